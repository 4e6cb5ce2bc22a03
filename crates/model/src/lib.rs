//! The lokizero network on `burn` 0.22, the network as a search evaluator,
//! and checkpoint bundles.
//!
//! - [`net`]: residual CNN with a convolutional per-square policy head and
//!   a WDL value head.
//! - [`fused`]: [`FusedNet`], the CPU inference form of a trained net
//!   (batch norm folded, padded channels-last, direct convolutions;
//!   the kernels, AVX-512/AVX2/portable, are in the private `direct`).
//! - [`quant`]: [`Precision`], and the trunk's 3x3 convolutions in int8
//!   (AVX-512 VNNI/AVX-VNNI/AVX2/portable kernels, the same integers).
//! - [`evaluator`]: [`NetEvaluator`], batched inference behind
//!   `search::Evaluator`.
//! - [`bundle`]: `model.safetensors` + `model.json`, verified on load.
//! - [`onnx`]: the network as an ONNX model (`lokizero export --onnx`).
//! - [`grow`]: a trained network grown deeper and wider, computing the
//!   same function (Net2Net), to carry on training with more capacity.
//! - [`lineage`]: a bundle's generations, CPU-hours, ancestors and promotion.
//! - [`weights`]: a network's tensors as plain vectors, read and written
//!   back (for the hand-written training step).
//! - [`device`]: backend choice (`cpu` = burn flex by default).
//!
//! Load the shipped losers bundle and evaluate the start position:
//! ```
//! use model::{load_bundle, Backend, NetEvaluator};
//! use rules::{Game, Losers};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let device = Backend::Cpu.device()?;
//! let (net, meta) = load_bundle::<Losers>("../../models/losers".as_ref(), &device)?;
//! let mut evaluator = NetEvaluator::<Losers>::new(net, device);
//! let start = Losers::start();
//! let (logits, wdl) = evaluator.forward(&[&start]);
//! // Policy logits [B * P*H*W] (B = 1), WDL from the side to move's view.
//! assert_eq!(logits.len(), <Losers as encoding::Encode>::policy_len());
//! let [win, draw, loss] = wdl[0];
//! assert!((win + draw + loss - 1.0).abs() < 1e-4);
//! println!("generation {}: W {win:.2} D {draw:.2} L {loss:.2}", meta.generation);
//! # Ok(())
//! # }
//! ```

pub mod bundle;
pub mod device;
mod direct;
pub mod evaluator;
pub mod fused;
pub mod grow;
pub mod lineage;
pub mod net;
pub mod onnx;
pub mod quant;
pub mod weights;
mod winograd;

pub use bundle::{
    load_bundle, load_bundle_bytes, save_bundle, BundleError, BundleFiles, BundleMeta,
    WeightsMismatch,
};
pub use device::{device_from_name, Backend, DeviceError};
pub use evaluator::NetEvaluator;
pub use fused::{FusedError, FusedNet, FusedOutput};
pub use net::{Net, NetOutput, NetShape, MOVES_LEFT_SCALE};
pub use quant::{Precision, PrecisionError};
