//! The network's trainable tensors in one flat vector (so the optimiser is
//! one loop over it, and gradients share its layout), converted from and
//! to burn's layout ([`model::weights::NetWeights`]).
//!
//! Layouts inside the vector: a convolution's weight is `[taps * in, out]`
//! (row `tap * in + c`, `tap = ky * 3 + kx`; the im2col product's right
//! side), batch norm's scale and shift `[out]`, the policy head's 1x1
//! convolution `[P, F]` (burn's `[P, F, 1, 1]`), dense layers `[in, out]`
//! (burn's).

use std::ops::Range;

use model::weights::{ConvBnWeights, DenseWeights, NetWeights};
use model::NetShape;

/// A batch norm's running (mean, variance), `[out]` each.
pub(crate) type Running = (Vec<f32>, Vec<f32>);

/// Where one convolution + batch norm lives in the vector.
#[derive(Clone, Debug)]
pub(crate) struct ConvBnSlot {
    /// 9 (3x3) or 1 (1x1).
    pub taps: usize,
    /// Input channels.
    pub cin: usize,
    /// Output channels.
    pub cout: usize,
    /// Weight `[taps * cin, cout]`.
    pub weight: Range<usize>,
    /// Batch-norm scale `[cout]`.
    pub gamma: Range<usize>,
    /// Batch-norm shift `[cout]`.
    pub beta: Range<usize>,
}

/// Where one layer with weight and bias lives in the vector.
#[derive(Clone, Debug)]
pub(crate) struct DenseSlot {
    /// Inputs.
    pub din: usize,
    /// Outputs.
    pub dout: usize,
    /// Weight (see the module docs for its layout).
    pub weight: Range<usize>,
    /// Bias `[dout]`.
    pub bias: Range<usize>,
}

/// The slots of every layer of a network shape, in burn's field order.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// `[stem, block 0 first, block 0 second, ..., policy hidden]`: the
    /// 3x3 layers in the order the forward pass runs them.
    pub convs: Vec<ConvBnSlot>,
    /// Policy head's 1x1 convolution (`din` = F, `dout` = P, weight `[P, F]`).
    pub policy_out: DenseSlot,
    /// Value head's 1x1 convolution F -> 2.
    pub value_conv: ConvBnSlot,
    /// Value head's hidden layer.
    pub value_fc: DenseSlot,
    /// WDL output layer.
    pub value_out: DenseSlot,
    /// Floats in the vector.
    pub len: usize,
}

impl Layout {
    /// The layout of `shape`'s network.
    pub fn new(shape: &NetShape) -> Self {
        let mut end = 0;
        let mut take = |n: usize| {
            end += n;
            end - n..end
        };
        let mut conv = |taps: usize, cin: usize, cout: usize| ConvBnSlot {
            taps,
            cin,
            cout,
            weight: take(taps * cin * cout),
            gamma: take(cout),
            beta: take(cout),
        };
        let f = shape.filters;
        let mut convs = vec![conv(9, shape.input_planes, f)];
        for _ in 0..2 * shape.blocks + 1 {
            convs.push(conv(9, f, f));
        }
        let value_conv = conv(1, f, 2);
        let mut dense = |din: usize, dout: usize| DenseSlot {
            din,
            dout,
            weight: take(din * dout),
            bias: take(dout),
        };
        let policy_out = dense(f, shape.policy_planes);
        let value_fc = dense(2 * shape.height * shape.width, shape.value_hidden);
        let value_out = dense(shape.value_hidden, 3);
        Layout {
            convs,
            policy_out,
            value_conv,
            value_fc,
            value_out,
            len: end,
        }
    }

    /// Whether every tensor of `w` has this layout's number of elements.
    pub fn fits(&self, w: &NetWeights) -> bool {
        let convs = self.conv_slots().zip(Self::conv_weights(w)).all(|(s, c)| {
            c.weight.len() == s.weight.len()
                && [&c.gamma, &c.beta, &c.running_mean, &c.running_var]
                    .iter()
                    .all(|v| v.len() == s.cout)
        });
        let dense = self
            .dense_slots()
            .zip([&w.policy_out, &w.value_fc, &w.value_out])
            .all(|(s, d)| d.weight.len() == s.weight.len() && d.bias.len() == s.bias.len());
        convs && dense && Self::conv_weights(w).len() == self.convs.len() + 1
    }

    /// The burn-layout convolution + batch norm layers in the order of
    /// [`Layout::convs`], then the value head's.
    fn conv_weights(w: &NetWeights) -> Vec<&ConvBnWeights> {
        let mut out = vec![&w.stem];
        for (first, second) in &w.blocks {
            out.extend([first, second]);
        }
        out.extend([&w.policy_hidden, &w.value_conv]);
        out
    }

    /// The flat vector of `w`'s trainable tensors, and the batch norms'
    /// running (mean, variance) in the order of [`Layout::convs`] then the
    /// value head's.
    ///
    /// # Panics
    /// If `w` does not have this layout's shape.
    pub fn flatten(&self, w: &NetWeights) -> (Vec<f32>, Vec<Running>) {
        let mut flat = vec![0.0; self.len];
        let mut running = Vec::new();
        for (slot, cw) in self.conv_slots().zip(Self::conv_weights(w)) {
            let dst = &mut flat[slot.weight.clone()];
            for o in 0..slot.cout {
                for c in 0..slot.cin {
                    for t in 0..slot.taps {
                        dst[(t * slot.cin + c) * slot.cout + o] =
                            cw.weight[(o * slot.cin + c) * slot.taps + t];
                    }
                }
            }
            flat[slot.gamma.clone()].copy_from_slice(&cw.gamma);
            flat[slot.beta.clone()].copy_from_slice(&cw.beta);
            running.push((cw.running_mean.clone(), cw.running_var.clone()));
        }
        for (slot, dw) in self
            .dense_slots()
            .zip([&w.policy_out, &w.value_fc, &w.value_out])
        {
            flat[slot.weight.clone()].copy_from_slice(&dw.weight);
            flat[slot.bias.clone()].copy_from_slice(&dw.bias);
        }
        (flat, running)
    }

    /// The inverse of [`Layout::flatten`]: burn-layout tensors of `shape`
    /// from a flat vector (weights or gradients) and running statistics
    /// (empty vectors for gradients).
    pub fn unflatten(&self, shape: &NetShape, flat: &[f32], running: &[Running]) -> NetWeights {
        let empty = (Vec::new(), Vec::new());
        let mut convs: Vec<ConvBnWeights> = self
            .conv_slots()
            .enumerate()
            .map(|(i, slot)| {
                let src = &flat[slot.weight.clone()];
                let mut weight = vec![0.0; src.len()];
                for o in 0..slot.cout {
                    for c in 0..slot.cin {
                        for t in 0..slot.taps {
                            weight[(o * slot.cin + c) * slot.taps + t] =
                                src[(t * slot.cin + c) * slot.cout + o];
                        }
                    }
                }
                let (mean, var) = running.get(i).unwrap_or(&empty);
                ConvBnWeights {
                    weight,
                    gamma: flat[slot.gamma.clone()].to_vec(),
                    beta: flat[slot.beta.clone()].to_vec(),
                    running_mean: mean.clone(),
                    running_var: var.clone(),
                }
            })
            .collect();
        let dense = |slot: &DenseSlot| DenseWeights {
            weight: flat[slot.weight.clone()].to_vec(),
            bias: flat[slot.bias.clone()].to_vec(),
        };
        let value_conv = convs.pop().unwrap_or_default();
        let policy_hidden = convs.pop().unwrap_or_default();
        let mut rest = convs.into_iter();
        let stem = rest.next().unwrap_or_default();
        let mut blocks = Vec::new();
        while let (Some(first), Some(second)) = (rest.next(), rest.next()) {
            blocks.push((first, second));
        }
        NetWeights {
            shape: shape.clone(),
            stem,
            blocks,
            policy_hidden,
            policy_out: dense(&self.policy_out),
            value_conv,
            value_fc: dense(&self.value_fc),
            value_out: dense(&self.value_out),
        }
    }

    fn conv_slots(&self) -> impl Iterator<Item = &ConvBnSlot> {
        self.convs.iter().chain([&self.value_conv])
    }

    fn dense_slots(&self) -> impl Iterator<Item = &DenseSlot> {
        [&self.policy_out, &self.value_fc, &self.value_out].into_iter()
    }
}
