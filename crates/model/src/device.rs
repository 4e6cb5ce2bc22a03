//! Choosing the burn device (backend) from a name.

use burn::tensor::Device;

/// Backend names accepted by `--device`.
pub const DEVICE_NAMES: &str =
    "cpu or flex (the default: burn flex; inference on the fused path), \
     ndarray (build with --features ndarray), cuda (build with --features cuda), \
     wgpu (any Vulkan/Metal/DX12 GPU; build with --features wgpu), \
     gpu (cuda if built in, else wgpu)";

/// The device for `name`: `cpu`/`flex` = burn's pure-Rust flex CPU backend
/// (the fastest burn CPU backend measured here, `docs/benchmarks.md`; the
/// evaluator runs inference on it through [`crate::FusedNet`]); `ndarray` =
/// burn's deprecated ndarray backend when built with the `ndarray` feature
/// (for comparisons); `cuda` = CUDA GPU 0 when built with the `cuda`
/// feature (its build downloads an LLVM bundle for the PTX compiler, so it
/// needs network access once); `wgpu` = the best GPU that wgpu finds
/// (Vulkan on Linux, Metal on macOS, DX12 on Windows; WGSL shaders, no
/// vendor toolkit) when built with the `wgpu` feature; `gpu` = `cuda` if
/// compiled in, else `wgpu`.
///
/// # Errors
/// A message naming the unknown or not-compiled-in backend.
pub fn device_from_name(name: &str) -> Result<Device, String> {
    match name.trim().to_ascii_lowercase().as_str() {
        "cpu" | "flex" => Ok(Device::flex()),
        #[cfg(feature = "ndarray")]
        #[allow(
            deprecated,
            reason = "burn deprecates its ndarray backend; kept for comparison"
        )]
        "ndarray" => Ok(Device::ndarray()),
        #[cfg(not(feature = "ndarray"))]
        "ndarray" => {
            Err("this build has no ndarray backend: rebuild with `--features ndarray`".to_string())
        }
        #[cfg(feature = "cuda")]
        "cuda" | "gpu" => Ok(Device::cuda(0)),
        #[cfg(not(feature = "cuda"))]
        "cuda" => Err(not_built("cuda")),
        #[cfg(feature = "wgpu")]
        "wgpu" => Ok(wgpu_device()),
        #[cfg(all(feature = "wgpu", not(feature = "cuda")))]
        "gpu" => Ok(wgpu_device()),
        #[cfg(not(feature = "wgpu"))]
        "wgpu" => Err(not_built("wgpu")),
        #[cfg(not(any(feature = "cuda", feature = "wgpu")))]
        "gpu" => Err(
            "this build has no GPU backend: rebuild with `--features wgpu` or `--features cuda`"
                .to_string(),
        ),
        other => Err(format!(
            "unknown device {other:?}; expected one of: {DEVICE_NAMES}"
        )),
    }
}

#[cfg(feature = "wgpu")]
fn wgpu_device() -> Device {
    // wgpu's own choice (a discrete GPU first); CUBECL_WGPU_DEFAULT_DEVICE overrides.
    Device::wgpu(burn::tensor::DeviceKind::DefaultDevice)
}

#[allow(dead_code, reason = "unused when every backend is compiled in")]
fn not_built(feature: &str) -> String {
    format!("this build has no {feature} backend: rebuild with `--features {feature}`")
}
