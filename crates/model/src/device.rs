//! Choosing the burn device (backend) from a name.

use burn::tensor::Device;

/// Backend names accepted by `--device`.
pub const DEVICE_NAMES: &str =
    "cpu or flex (the default: burn flex; inference on the fused path), \
     ndarray (build with --features ndarray), cuda (build with --features cuda)";

/// The device for `name`: `cpu`/`flex` = burn's pure-Rust flex CPU backend
/// (the fastest burn CPU backend measured here, `docs/benchmarks.md`; the
/// evaluator runs inference on it through [`crate::FusedNet`]); `ndarray` =
/// burn's deprecated ndarray backend when built with the `ndarray` feature
/// (for comparisons); `cuda` = CUDA GPU 0 when built with the `cuda`
/// feature.
///
/// # Errors
/// A message naming the unknown or not-compiled-in backend.
pub fn device_from_name(name: &str) -> Result<Device, String> {
    match name.trim().to_ascii_lowercase().as_str() {
        "cpu" | "flex" => Ok(Device::flex()),
        #[cfg(feature = "ndarray")]
        #[allow(deprecated)]
        "ndarray" => Ok(Device::ndarray()),
        #[cfg(not(feature = "ndarray"))]
        "ndarray" => {
            Err("this build has no ndarray backend: rebuild with `--features ndarray`".to_string())
        }
        #[cfg(feature = "cuda")]
        "cuda" | "gpu" => Ok(Device::cuda(0)),
        #[cfg(not(feature = "cuda"))]
        "cuda" | "gpu" => {
            Err("this build has no GPU backend: rebuild with `--features cuda`".to_string())
        }
        other => Err(format!(
            "unknown device {other:?}; expected one of: {DEVICE_NAMES}"
        )),
    }
}
