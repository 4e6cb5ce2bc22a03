//! [`NetEvaluator`]: the network as the search's leaf evaluator.

use std::marker::PhantomData;

use burn::module::Module;
use burn::tensor::activation::softmax;
use burn::tensor::{Device, Tensor, TensorData};
use encoding::Encode;
use search::{Evaluator, Wdl};

use crate::net::Net;

/// Evaluates batches of positions of game `E` with a [`Net`] in inference
/// mode. The input buffer is reused across calls, so the hot path does not
/// allocate per position.
pub struct NetEvaluator<E: Encode> {
    net: Net,
    device: Device,
    input: Vec<f32>,
    /// Positions evaluated so far (for throughput figures).
    pub evaluated: u64,
    _game: PhantomData<fn() -> E>,
}

impl<E: Encode> NetEvaluator<E> {
    /// Wrap `net` (switched to inference mode: batch norm uses its running
    /// statistics) for evaluation on `device`.
    pub fn new(net: Net, device: Device) -> Self {
        let net = net.valid().to_device(&device.clone().without_autodiff());
        NetEvaluator {
            net,
            device: device.without_autodiff(),
            input: Vec::new(),
            evaluated: 0,
            _game: PhantomData,
        }
    }

    /// Run the network on `positions`: returns (policy logits `[B * P*H*W]`,
    /// WDL probabilities `[B]`).
    pub fn forward(&mut self, positions: &[&E]) -> (Vec<f32>, Vec<Wdl>) {
        let b = positions.len();
        let n = E::input_len();
        self.input.resize(b * n, 0.0);
        for (chunk, p) in self.input.chunks_exact_mut(n).zip(positions) {
            p.encode(chunk);
        }
        let data = TensorData::new(
            self.input.clone(),
            [b, E::INPUT_PLANES, E::HEIGHT, E::WIDTH],
        );
        let (policy, value) = self.net.forward(Tensor::<4>::from_data(data, &self.device));
        let wdl = softmax(value, 1);
        let logits = policy.into_data().try_into_vec::<f32>().unwrap_or_default();
        let wdl_flat = wdl.into_data().try_into_vec::<f32>().unwrap_or_default();
        let wdl = wdl_flat
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect();
        self.evaluated += b as u64;
        (logits, wdl)
    }
}

/// Softmax of `logits[index(a)]` over the legal actions, written to `out`.
pub fn masked_softmax<E: Encode>(
    position: &E,
    legal: &[E::Action],
    logits: &[f32],
    out: &mut [f32],
) {
    let mut max = f32::NEG_INFINITY;
    for (o, &a) in out.iter_mut().zip(legal) {
        *o = logits.get(position.policy_index(a)).copied().unwrap_or(0.0);
        max = max.max(*o);
    }
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
        let (logits, values) = self.forward(positions);
        let plen = E::policy_len();
        let mut offset = 0;
        for (i, (pos, actions)) in positions.iter().zip(legal).enumerate() {
            let block = &mut priors[offset..offset + actions.len()];
            masked_softmax(*pos, actions, &logits[i * plen..(i + 1) * plen], block);
            offset += actions.len();
            wdl[i] = values.get(i).copied().unwrap_or(search::DRAW_WDL);
        }
    }
}
