//! Choosing the burn device (backend) from a name.

use burn::tensor::Device;

/// Backend names accepted by `--device`.
pub const DEVICE_NAMES: &str =
    "cpu or flex (the default: burn flex; inference on the fused path), \
     ndarray (build with --features ndarray), cuda (build with --features cuda), \
     wgpu (any Vulkan/Metal/DX12 GPU; build with --features wgpu), \
     gpu (cuda if built in, else wgpu)";

/// A backend `--device` names (see [`DEVICE_NAMES`]); parsed from its
/// name (`Backend`'s `FromStr`), turned into a burn device by
/// [`Backend::device`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// `cpu` or `flex`: burn's pure-Rust flex CPU backend (the fastest
    /// burn CPU backend measured here, `docs/benchmarks.md`; the evaluator
    /// runs inference on it through [`crate::FusedNet`]).
    Cpu,
    /// `ndarray`: burn's deprecated ndarray backend (for comparisons;
    /// build with the `ndarray` feature).
    Ndarray,
    /// `cuda`: CUDA GPU 0 (build with the `cuda` feature; its build
    /// downloads an LLVM bundle for the PTX compiler once).
    Cuda,
    /// `wgpu`: the best GPU that wgpu finds (Vulkan on Linux, Metal on
    /// macOS, DX12 on Windows; build with the `wgpu` feature).
    Wgpu,
    /// `gpu`: `cuda` if compiled in, else `wgpu`.
    Gpu,
}

/// Why a backend cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// Not a backend name.
    #[error("unknown device {0:?}; expected one of: {DEVICE_NAMES}")]
    Unknown(String),
    /// A backend this build does not have.
    #[error("this build has no {0} backend: rebuild with `--features {0}`")]
    NotBuilt(&'static str),
    /// `gpu` in a build with neither GPU backend.
    #[error("this build has no GPU backend: rebuild with `--features wgpu` or `--features cuda`")]
    NoGpu,
}

impl std::str::FromStr for Backend {
    type Err = DeviceError;

    /// A backend name, case-insensitive: `cpu`/`flex`, `ndarray`, `cuda`,
    /// `wgpu`, `gpu`. Whether this build has it is checked by
    /// [`Backend::device`].
    fn from_str(name: &str) -> Result<Self, DeviceError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "cpu" | "flex" => Ok(Backend::Cpu),
            "ndarray" => Ok(Backend::Ndarray),
            "cuda" => Ok(Backend::Cuda),
            "wgpu" => Ok(Backend::Wgpu),
            "gpu" => Ok(Backend::Gpu),
            other => Err(DeviceError::Unknown(other.to_string())),
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Cpu => "cpu",
            Backend::Ndarray => "ndarray",
            Backend::Cuda => "cuda",
            Backend::Wgpu => "wgpu",
            Backend::Gpu => "gpu",
        })
    }
}

impl Backend {
    /// The burn device of this backend.
    ///
    /// # Errors
    /// [`DeviceError::NotBuilt`] / [`DeviceError::NoGpu`] for a backend
    /// this build was compiled without.
    pub fn device(self) -> Result<Device, DeviceError> {
        match self {
            Backend::Cpu => Ok(Device::flex()),
            #[cfg(feature = "ndarray")]
            #[allow(
                deprecated,
                reason = "burn deprecates its ndarray backend; kept for comparison"
            )]
            Backend::Ndarray => Ok(Device::ndarray()),
            #[cfg(not(feature = "ndarray"))]
            Backend::Ndarray => Err(DeviceError::NotBuilt("ndarray")),
            #[cfg(feature = "cuda")]
            Backend::Cuda | Backend::Gpu => Ok(Device::cuda(0)),
            #[cfg(not(feature = "cuda"))]
            Backend::Cuda => Err(DeviceError::NotBuilt("cuda")),
            #[cfg(feature = "wgpu")]
            Backend::Wgpu => Ok(wgpu_device()),
            #[cfg(all(feature = "wgpu", not(feature = "cuda")))]
            Backend::Gpu => Ok(wgpu_device()),
            #[cfg(not(feature = "wgpu"))]
            Backend::Wgpu => Err(DeviceError::NotBuilt("wgpu")),
            #[cfg(not(any(feature = "cuda", feature = "wgpu")))]
            Backend::Gpu => Err(DeviceError::NoGpu),
        }
    }
}

/// The device for the backend `name` (`Backend`'s `FromStr`, then
/// [`Backend::device`]).
///
/// # Errors
/// [`DeviceError`] naming the unknown or not-compiled-in backend.
pub fn device_from_name(name: &str) -> Result<Device, DeviceError> {
    name.parse::<Backend>()?.device()
}

#[cfg(feature = "wgpu")]
fn wgpu_device() -> Device {
    // wgpu's own choice (a discrete GPU first); CUBECL_WGPU_DEFAULT_DEVICE overrides.
    Device::wgpu(burn::tensor::DeviceKind::DefaultDevice)
}
