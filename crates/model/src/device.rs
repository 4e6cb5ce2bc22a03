//! Choosing the burn device (backend) from a name.

use burn::tensor::Device;

/// Backend names accepted by `--device`.
pub const DEVICE_NAMES: &str = "cpu (burn flex, the default), cuda (build with --features cuda)";

/// The device for `name`: `cpu`/`flex` = burn's pure-Rust flex CPU backend
/// (fastest CPU backend measured here); `cuda` = CUDA GPU 0 when built with
/// the `cuda` feature.
///
/// # Errors
/// A message naming the unknown or not-compiled-in backend.
pub fn device_from_name(name: &str) -> Result<Device, String> {
    match name.trim().to_ascii_lowercase().as_str() {
        "cpu" | "flex" => Ok(Device::flex()),
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
