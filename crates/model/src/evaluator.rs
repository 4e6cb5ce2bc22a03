//! [`NetEvaluator`]: the network as the search's leaf evaluator.
//!
//! With a moves-left head, the evaluator prefers shorter wins: it discounts
//! the decisive part of each leaf's WDL by the predicted plies left
//! ([`discount_wdl`]), so of two winning lines the shorter one has the
//! higher value, and of two losing lines the longer one (resistance). The
//! network is trained on undiscounted results; only the search's utility
//! changes.

use std::marker::PhantomData;
use std::sync::Arc;

use burn::module::Module;
use burn::tensor::activation::softmax;
use burn::tensor::{Device, Tensor, TensorData};
use encoding::Encode;
use search::{Evaluator, Wdl};

use crate::fused::{FusedNet, FusedOutput};
use crate::net::{Net, MOVES_LEFT_SCALE};
use crate::quant::Precision;

/// Evaluates batches of positions of game `E` with a [`Net`] in inference
/// mode. The input buffer is reused across calls, so the hot path does not
/// allocate per position.
///
/// On the CPU (burn's flex device) the forward pass runs on the
/// [`FusedNet`] form of the same weights (3-4x faster than burn flex here, see
/// `docs/benchmarks.md`); on other devices, or with
/// [`NetEvaluator::new_burn`], through burn.
pub struct NetEvaluator<E: Encode> {
    net: Net,
    device: Device,
    /// The fused form of `net`, shared with this evaluator's forks.
    fused: Option<Arc<FusedNet>>,
    input: Vec<f32>,
    /// Positions evaluated so far (for throughput figures).
    pub evaluated: u64,
    /// Per-ply discount of the decisive outcomes ([`discount_wdl`]); used
    /// only when the network has the moves-left head. 1 = off.
    moves_left_discount: f32,
    moves_left: Vec<f32>,
    /// The last forward pass's outputs (reused buffers); `policy` holds the
    /// logits on both paths: all of them (`[B * P*H*W]`) after
    /// [`Self::forward`] or on burn, those of the legal moves after
    /// [`Evaluator::evaluate`] on the fused path.
    out: FusedOutput,
    /// [`FusedNet::forward_legal`]'s request: per position the policy
    /// indices of its legal moves, `[sum of legal moves]`, and where each
    /// position's start, `[B + 1]`.
    legal_indices: Vec<u32>,
    legal_offsets: Vec<usize>,
    _game: PhantomData<fn() -> E>,
}

/// Per-ply discount of decisive outcomes used with a moves-left head:
/// a win predicted 100 plies away is worth `0.997^100 = 0.74` of one now.
/// At a value of 0.8 a move that brings the end 10 plies nearer (near 35
/// plies left) gains about 0.02, about what Lc0's moves-left utility
/// gives (`MovesLeftSlope` 0.0027 per ply, capped at 0.0345); at 0.999 the
/// gain was 0.008, under the noise between the value head's estimates of
/// sibling positions, and a won losers endgame was shuffled to the
/// match's ply cap (`docs/experiments.md`).
pub const DEFAULT_MOVES_LEFT_DISCOUNT: f32 = 0.997;

/// Move the fraction `1 - gamma^plies_left` of the win and loss mass of
/// `wdl` to the draw, so `W - L` shrinks by `gamma^plies_left`: sooner wins
/// and later losses score better. `gamma` in `(0, 1]`; `plies_left >= 0`.
pub fn discount_wdl(wdl: Wdl, plies_left: f32, gamma: f32) -> Wdl {
    let keep = gamma.powf(plies_left.max(0.0));
    let [w, d, l] = wdl;
    [w * keep, d + (w + l) * (1.0 - keep), l * keep]
}

impl<E: Encode> NetEvaluator<E> {
    /// Wrap `net` (switched to inference mode: batch norm uses its running
    /// statistics) for evaluation on `device`; on the CPU through the
    /// [`FusedNet`] path.
    pub fn new(net: Net, device: Device) -> Self {
        let mut eval = Self::new_burn(net, device);
        if eval.device == Device::flex() {
            let board = eval.board();
            // A net that cannot be converted (not one of ours) stays on burn.
            eval.fused = FusedNet::from_net(&eval.net, board).ok().map(Arc::new);
        }
        eval
    }

    /// Like [`Self::new`] but always through burn's backend for `device`
    /// (for comparisons and the equivalence tests).
    pub fn new_burn(net: Net, device: Device) -> Self {
        let net = net.valid().to_device(&device.clone().without_autodiff());
        Self::with_parts(net, device.without_autodiff(), None)
    }

    /// An evaluator of `net` (already in inference mode on `device`) and
    /// its fused form, with empty buffers.
    fn with_parts(net: Net, device: Device, fused: Option<Arc<FusedNet>>) -> Self {
        NetEvaluator {
            net,
            device,
            fused,
            input: Vec::new(),
            evaluated: 0,
            moves_left_discount: DEFAULT_MOVES_LEFT_DISCOUNT,
            moves_left: Vec::new(),
            out: FusedOutput::default(),
            legal_indices: Vec::new(),
            legal_offsets: Vec::new(),
            _game: PhantomData,
        }
    }

    /// The board dimensions [`FusedNet::from_net`] asks for: input planes,
    /// policy planes, height, width.
    fn board(&self) -> [usize; 4] {
        [E::INPUT_PLANES, E::POLICY_PLANES, E::HEIGHT, E::WIDTH]
    }

    /// Set the per-ply discount of decisive outcomes (1 = prefer no
    /// shorter win); no effect without the moves-left head.
    pub fn with_moves_left_discount(mut self, gamma: f32) -> Self {
        self.moves_left_discount = gamma.clamp(f32::MIN_POSITIVE, 1.0);
        self
    }

    /// Predicted plies left of the positions of the last [`Self::forward`]
    /// call (empty without the moves-left head).
    pub fn last_moves_left(&self) -> &[f32] {
        &self.moves_left
    }

    /// Run the fused path's trunk convolutions in `precision` (see
    /// [`Self::set_precision`]).
    pub fn with_precision(mut self, precision: Precision) -> Self {
        self.set_precision(precision);
        self
    }

    /// Run the fused path's trunk convolutions in `precision`
    /// ([`FusedNet::with_precision`]). [`Precision::Int8`] takes effect
    /// only on the fused path (the CPU) and on a CPU whose int8 kernel
    /// beats `fp32` (AVX2 or VNNI, [`crate::quant::int8_accelerated`]):
    /// elsewhere the evaluator stays `fp32`, the reference. Returns the
    /// precision in effect ([`Self::precision`]).
    pub fn set_precision(&mut self, precision: Precision) -> Precision {
        self.force_precision(precision.on_this_cpu());
        self.precision()
    }

    /// Like [`Self::set_precision`] but without the fall-back: int8 runs on
    /// the portable kernel where the CPU has no faster one (for the
    /// equivalence tests; slower than `fp32` there). No effect off the
    /// fused path.
    pub fn force_precision(&mut self, precision: Precision) {
        if let Some(fused) = self.fused.take() {
            // A fork still holding the old form keeps it; this one gets
            // its own (rebuilt from the same weights).
            let own =
                Arc::try_unwrap(fused).or_else(|_| FusedNet::from_net(&self.net, self.board()));
            self.fused = own.ok().map(|f| Arc::new(f.with_precision(precision)));
        }
    }

    /// The precision the forward pass runs in: `fp32` unless the fused
    /// path runs its trunk on int8.
    pub fn precision(&self) -> Precision {
        self.fused
            .as_ref()
            .map_or(Precision::Fp32, |f| f.precision())
    }

    /// Whether the forward pass runs on the [`FusedNet`] path.
    pub fn is_fused(&self) -> bool {
        self.fused.is_some()
    }

    /// Run the network on `positions`: returns (policy logits `[B * P*H*W]`,
    /// WDL probabilities `[B]`).
    pub fn forward(&mut self, positions: &[&E]) -> (&[f32], Vec<Wdl>) {
        let wdl = self.run(positions, false);
        (&self.out.policy, wdl)
    }

    /// The forward pass: logits into `self.out.policy` (on the fused path
    /// with `legal_only` only those of `self.legal_indices`, see
    /// [`FusedNet::forward_legal`]), plies left into `self.moves_left`;
    /// returns the WDL probabilities `[B]`.
    fn run(&mut self, positions: &[&E], legal_only: bool) -> Vec<Wdl> {
        let b = positions.len();
        let n = E::input_len();
        self.input.resize(b * n, 0.0);
        for (chunk, p) in self.input.chunks_exact_mut(n).zip(positions) {
            p.encode(chunk);
        }
        self.evaluated += b as u64;
        match &self.fused {
            Some(fused) => {
                if legal_only {
                    let (offsets, indices) = (&self.legal_offsets, &self.legal_indices);
                    fused.forward_legal(&self.input, offsets, indices, &mut self.out);
                } else {
                    fused.forward_into(&self.input, &mut self.out);
                }
                self.moves_left.clear();
                let scaled = self.out.moves_left.iter().map(|m| m * MOVES_LEFT_SCALE);
                self.moves_left.extend(scaled);
                self.out.value.chunks_exact(3).map(softmax3).collect()
            }
            None => {
                let (logits, wdl) = self.forward_burn(b);
                self.out.policy = logits;
                wdl
            }
        }
    }

    /// The burn forward pass on the first `b` encoded positions of `input`.
    fn forward_burn(&mut self, b: usize) -> (Vec<f32>, Vec<Wdl>) {
        let data = TensorData::new(
            self.input.clone(),
            [b, E::INPUT_PLANES, E::HEIGHT, E::WIDTH],
        );
        let out = self
            .net
            .forward_all(Tensor::<4>::from_data(data, &self.device));
        let (policy, value) = (out.policy, out.value);
        self.moves_left = out.moves_left.map_or_else(Vec::new, |m| {
            let scaled = m.mul_scalar(MOVES_LEFT_SCALE);
            scaled.into_data().try_into_vec::<f32>().unwrap_or_default()
        });
        let wdl = softmax(value, 1);
        let logits = policy.into_data().try_into_vec::<f32>().unwrap_or_default();
        let wdl_flat = wdl.into_data().try_into_vec::<f32>().unwrap_or_default();
        let wdl = wdl_flat
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect();
        (logits, wdl)
    }
}

/// Softmax of three WDL logits.
fn softmax3(logits: &[f32]) -> Wdl {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e = [0, 1, 2].map(|i| (logits[i] - max).exp());
    let sum = e[0] + e[1] + e[2];
    e.map(|v| v / sum)
}

/// Softmax of `logits[index(a)]` over the legal actions, written to `out`.
pub fn masked_softmax<E: Encode>(
    position: &E,
    legal: &[E::Action],
    logits: &[f32],
    out: &mut [f32],
) {
    for (o, &a) in out.iter_mut().zip(legal) {
        *o = logits.get(position.policy_index(a)).copied().unwrap_or(0.0);
    }
    softmax_in_place(out);
}

/// Softmax of the logits in `out`, in place.
fn softmax_in_place(out: &mut [f32]) {
    let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for o in out.iter_mut() {
        *o = (*o - max).exp();
        sum += *o;
    }
    for o in out.iter_mut() {
        *o /= sum;
    }
}

impl<E: Encode> Evaluator<E> for NetEvaluator<E> {
    fn evaluate(
        &mut self,
        positions: &[&E],
        legal: &[&[E::Action]],
        priors: &mut [f32],
        wdl: &mut [Wdl],
    ) {
        let fused = self.fused.is_some();
        if fused {
            self.legal_indices.clear();
            self.legal_offsets.clear();
            self.legal_offsets.push(0);
            for (pos, actions) in positions.iter().zip(legal) {
                let index = |&a| u32::try_from(pos.policy_index(a)).unwrap_or(u32::MAX);
                self.legal_indices.extend(actions.iter().map(index));
                self.legal_offsets.push(self.legal_indices.len());
            }
        }
        let values = self.run(positions, fused);
        let logits = &self.out.policy;
        let plen = E::policy_len();
        let mut offset = 0;
        for (i, (pos, actions)) in positions.iter().zip(legal).enumerate() {
            let block = &mut priors[offset..offset + actions.len()];
            if fused {
                block.copy_from_slice(&logits[offset..offset + actions.len()]);
                softmax_in_place(block);
            } else {
                masked_softmax(*pos, actions, &logits[i * plen..(i + 1) * plen], block);
            }
            offset += actions.len();
            let value = values.get(i).copied().unwrap_or(search::DRAW_WDL);
            wdl[i] = match self.moves_left.get(i) {
                Some(&plies) => discount_wdl(value, plies, self.moves_left_discount),
                None => value,
            };
        }
    }

    /// An evaluator sharing this one's fused network (its weights are
    /// read-only and each thread runs it on scratch buffers of its own)
    /// with buffers of its own; `None` off the fused path.
    fn fork(&mut self) -> Option<Self> {
        let fused = Arc::clone(self.fused.as_ref()?);
        let mut fork = Self::with_parts(self.net.clone(), self.device.clone(), Some(fused));
        fork.moves_left_discount = self.moves_left_discount;
        Some(fork)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discount_shrinks_the_decisive_mass_by_gamma_to_the_plies() {
        // 0.5^2 = 0.25 of W and L kept, the rest moves to D.
        let d = discount_wdl([0.8, 0.0, 0.2], 2.0, 0.5);
        assert!((d[0] - 0.2).abs() < 1e-6 && (d[2] - 0.05).abs() < 1e-6);
        assert!((d[1] - 0.75).abs() < 1e-6);
        // No plies left or gamma 1: unchanged.
        assert_eq!(discount_wdl([0.7, 0.1, 0.2], 0.0, 0.9), [0.7, 0.1, 0.2]);
        assert_eq!(discount_wdl([0.7, 0.1, 0.2], 50.0, 1.0), [0.7, 0.1, 0.2]);
        // A sure win 10 plies away beats one 50 plies away; a sure loss
        // 50 plies away beats one 10 plies away.
        let g = DEFAULT_MOVES_LEFT_DISCOUNT;
        let v = |wdl: Wdl| wdl[0] - wdl[2];
        assert!(
            v(discount_wdl([1.0, 0.0, 0.0], 10.0, g)) > v(discount_wdl([1.0, 0.0, 0.0], 50.0, g))
        );
        assert!(
            v(discount_wdl([0.0, 0.0, 1.0], 50.0, g)) > v(discount_wdl([0.0, 0.0, 1.0], 10.0, g))
        );
    }
}
