//! The heads after their batch-norm layers: the policy head's 1x1
//! convolution with bias, flattened as burn flattens `[B, P, H, W]`
//! (logit `p * H * W + square`), and the value head's two dense layers
//! (`relu(v W1 + b1) W2 + b2`, burn's `Linear`: weight `[in, out]`), with
//! their backward passes.

use rayon::prelude::*;

use super::batch::{sized, sum_groups, Geometry, Scratch};
use super::conv_bn::relu_grad;
use super::matmul::{matmul, View};
use super::params::DenseSlot;

/// Policy logits `[B, P * H * W]` from the policy head's hidden
/// activations `[N, F]`: per position `logits_b [P, HW] = W [P, F] *
/// hidden_b^T + bias`.
pub(crate) fn policy_forward(
    params: &[f32],
    slot: &DenseSlot,
    hidden: &[f32],
    geo: &Geometry,
    logits: &mut Vec<f32>,
) {
    let (f, p, sq) = (slot.din, slot.dout, geo.squares());
    let (w, bias) = (&params[slot.weight.clone()], &params[slot.bias.clone()]);
    sized(logits, geo.batch * p * sq, false)
        .par_chunks_mut(p * sq)
        .zip(hidden.par_chunks(sq * f))
        .for_each(|(out, hid)| {
            matmul(
                out,
                View::rows(w, p, f),
                View::transposed(hid, f, sq),
                false,
            );
            for (row, b) in out.chunks_exact_mut(sq).zip(bias) {
                row.iter_mut().for_each(|v| *v += b);
            }
        });
}

/// Backward of [`policy_forward`]: weight and bias gradients into
/// `grads`, the hidden activations' gradient (`[N, F]`) into `dhidden`.
#[allow(
    clippy::too_many_arguments,
    reason = "the layer, its input and gradients, the batch split"
)]
pub(crate) fn policy_backward(
    params: &[f32],
    grads: &mut [f32],
    slot: &DenseSlot,
    hidden: &[f32],
    dlogits: &[f32],
    dhidden: &mut [f32],
    geo: &Geometry,
    scratch: &mut [Scratch],
) {
    let (f, p, sq) = (slot.din, slot.dout, geo.squares());
    let w = &params[slot.weight.clone()];
    scratch
        .par_iter_mut()
        .zip(geo.split(dhidden, sq * f))
        .zip(&geo.groups)
        .for_each(|((scr, dh), g)| {
            let dw = sized(&mut scr.dw, p * f, true);
            let db = sized(&mut scr.db, p, true);
            for (i, b) in g.clone().enumerate() {
                let dl = &dlogits[b * p * sq..][..p * sq];
                let hid = &hidden[b * sq * f..][..sq * f];
                matmul(dw, View::rows(dl, p, sq), View::rows(hid, sq, f), true);
                for (d, row) in db.iter_mut().zip(dl.chunks_exact(sq)) {
                    *d += lane_sum(row);
                }
                matmul(
                    &mut dh[i * sq * f..][..sq * f],
                    View::transposed(dl, sq, p),
                    View::rows(w, p, f),
                    false,
                );
            }
        });
    sum_groups(&mut grads[slot.weight.clone()], scratch, |s| &s.dw);
    sum_groups(&mut grads[slot.bias.clone()], scratch, |s| &s.db);
}

/// The sum of `v` in 8 interleaved partial sums (a single running sum is
/// one dependent add per element; these vectorise).
fn lane_sum(v: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let mut chunks = v.chunks_exact(8);
    for c in &mut chunks {
        lanes.iter_mut().zip(c).for_each(|(l, x)| *l += x);
    }
    lanes.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>()
}

/// The value head's dense layers and what their backward pass needs.
#[derive(Default)]
pub(crate) struct ValueHead {
    /// The value convolution's output flattened as burn flattens `[B, 2,
    /// H, W]`: `[B, 2 * H * W]`.
    flat: Vec<f32>,
    /// Hidden layer after ReLU, `[B, hidden]`.
    hidden: Vec<f32>,
    /// WDL logits, `[B, 3]`; the loss replaces them by their gradient.
    pub wdl: Vec<f32>,
    /// Gradient of the hidden layer.
    dhidden: Vec<f32>,
    /// Gradient of `flat`.
    dflat: Vec<f32>,
}

fn add_bias(rows: &mut [f32], bias: &[f32]) {
    for row in rows.chunks_exact_mut(bias.len()) {
        row.iter_mut().zip(bias).for_each(|(v, b)| *v += b);
    }
}

fn bias_grad(dst: &mut [f32], rows: &[f32]) {
    dst.fill(0.0);
    for row in rows.chunks_exact(dst.len()) {
        dst.iter_mut().zip(row).for_each(|(d, v)| *d += v);
    }
}

impl ValueHead {
    /// Forward from the value convolution's output `v` (`[N, 2]`,
    /// channels last) to [`ValueHead::wdl`].
    pub fn forward(
        &mut self,
        params: &[f32],
        fc: &DenseSlot,
        out: &DenseSlot,
        v: &[f32],
        geo: &Geometry,
    ) {
        let (b, sq, hid) = (geo.batch, geo.squares(), fc.dout);
        let flat = sized(&mut self.flat, b * 2 * sq, false);
        for (pos, dst) in flat.chunks_exact_mut(2 * sq).enumerate() {
            for s in 0..sq {
                for c in 0..2 {
                    dst[c * sq + s] = v[(pos * sq + s) * 2 + c];
                }
            }
        }
        let hidden = sized(&mut self.hidden, b * hid, false);
        let w1 = View::rows(&params[fc.weight.clone()], fc.din, hid);
        matmul(hidden, View::rows(&self.flat, b, fc.din), w1, false);
        add_bias(hidden, &params[fc.bias.clone()]);
        hidden.iter_mut().for_each(|x| *x = x.max(0.0));
        let wdl = sized(&mut self.wdl, b * 3, false);
        let w2 = View::rows(&params[out.weight.clone()], hid, 3);
        matmul(wdl, View::rows(&self.hidden, b, hid), w2, false);
        add_bias(wdl, &params[out.bias.clone()]);
    }

    /// Backward from the WDL logits' gradient (in [`ValueHead::wdl`]): the dense
    /// layers' gradients into `grads`, the value convolution output's
    /// gradient (`[N, 2]`) into `dv`.
    pub fn backward(
        &mut self,
        params: &[f32],
        grads: &mut [f32],
        fc: &DenseSlot,
        out: &DenseSlot,
        dv: &mut [f32],
        geo: &Geometry,
    ) {
        let (b, sq, hid) = (geo.batch, geo.squares(), fc.dout);
        let dwdl = &self.wdl;
        let hidden = View::transposed(&self.hidden, hid, b);
        matmul(
            &mut grads[out.weight.clone()],
            hidden,
            View::rows(dwdl, b, 3),
            false,
        );
        bias_grad(&mut grads[out.bias.clone()], dwdl);
        let dh = sized(&mut self.dhidden, b * hid, false);
        let w2t = View::transposed(&params[out.weight.clone()], 3, hid);
        matmul(dh, View::rows(dwdl, b, 3), w2t, false);
        relu_grad(dh, &self.hidden);
        let flat_t = View::transposed(&self.flat, fc.din, b);
        matmul(
            &mut grads[fc.weight.clone()],
            flat_t,
            View::rows(&self.dhidden, b, hid),
            false,
        );
        bias_grad(&mut grads[fc.bias.clone()], &self.dhidden);
        let dflat = sized(&mut self.dflat, b * fc.din, false);
        let w1t = View::transposed(&params[fc.weight.clone()], hid, fc.din);
        matmul(dflat, View::rows(&self.dhidden, b, hid), w1t, false);
        for (pos, src) in dflat.chunks_exact(2 * sq).enumerate() {
            for s in 0..sq {
                for c in 0..2 {
                    dv[(pos * sq + s) * 2 + c] = src[c * sq + s];
                }
            }
        }
    }
}
