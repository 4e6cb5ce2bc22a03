//! A network's tensors as plain `f32` vectors in burn's layout, read from
//! and written back into a [`Net`], so code outside burn (the hand-written
//! training step in `train::fast`) can work on the very weights burn holds
//! and hand them back unchanged in form (bundles and export see a burn
//! network as before).
//!
//! Layouts are burn's: a convolution's weight is `[out, in, k, k]`, a
//! linear layer's `[in, out]` (`y = x W + b`).

use burn::module::{Module, Param, RunningState};
use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};
use burn::tensor::{Tensor, TensorData};

use crate::net::{ConvBn, Net, NetShape};

/// Reads a tensor of any rank into a flat vector (its values, or its
/// gradient in a backward pass's result).
pub trait TensorReader {
    /// The tensor's elements in row-major order (empty if there is nothing
    /// to read, e.g. no gradient).
    fn read<const D: usize>(&mut self, t: &Tensor<D>) -> Vec<f32>;
}

/// Reads the tensors' values.
pub struct Values;

impl TensorReader for Values {
    fn read<const D: usize>(&mut self, t: &Tensor<D>) -> Vec<f32> {
        t.to_data()
            .convert::<f32>()
            .try_into_vec::<f32>()
            .unwrap_or_default()
    }
}

/// A convolution followed by batch norm.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConvBnWeights {
    /// Convolution weight `[out, in, k, k]`.
    pub weight: Vec<f32>,
    /// Batch-norm scale `[out]`.
    pub gamma: Vec<f32>,
    /// Batch-norm shift `[out]`.
    pub beta: Vec<f32>,
    /// Running mean `[out]` (not trained by gradients).
    pub running_mean: Vec<f32>,
    /// Running (biased) variance `[out]` (not trained by gradients).
    pub running_var: Vec<f32>,
}

/// A dense layer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DenseWeights {
    /// Weight `[in, out]`.
    pub weight: Vec<f32>,
    /// Bias `[out]`.
    pub bias: Vec<f32>,
}

/// Every tensor of a [`Net`] without the moves-left head (see
/// [`crate::net`] for the layers and shapes; `F` filters, `P` policy
/// planes, `H x W` board).
#[derive(Clone, Debug, PartialEq)]
pub struct NetWeights {
    /// The network's shape.
    pub shape: NetShape,
    /// Stem, `[F, C, 3, 3]`.
    pub stem: ConvBnWeights,
    /// Residual blocks, (first, second), each `[F, F, 3, 3]`.
    pub blocks: Vec<(ConvBnWeights, ConvBnWeights)>,
    /// Policy head's hidden layer, `[F, F, 3, 3]`.
    pub policy_hidden: ConvBnWeights,
    /// Policy head's 1x1 convolution with bias: weight `[P, F, 1, 1]`
    /// (stored as a conv weight), bias `[P]`.
    pub policy_out: DenseWeights,
    /// Value head's 1x1 convolution, `[2, F, 1, 1]`.
    pub value_conv: ConvBnWeights,
    /// Value head's hidden layer, `[2*H*W, value_hidden]`.
    pub value_fc: DenseWeights,
    /// WDL output layer, `[value_hidden, 3]`.
    pub value_out: DenseWeights,
}

fn read_conv_bn(layer: &ConvBn, r: &mut impl TensorReader) -> ConvBnWeights {
    ConvBnWeights {
        weight: r.read(&layer.conv.weight.val()),
        gamma: r.read(&layer.bn.gamma.val()),
        beta: r.read(&layer.bn.beta.val()),
        running_mean: r.read(&layer.bn.running_mean.value()),
        running_var: r.read(&layer.bn.running_var.value()),
    }
}

fn read_bias(bias: Option<&Param<Tensor<1>>>, r: &mut impl TensorReader) -> Vec<f32> {
    bias.map(|b| r.read(&b.val())).unwrap_or_default()
}

fn read_dense(layer: &Linear, r: &mut impl TensorReader) -> DenseWeights {
    DenseWeights {
        weight: r.read(&layer.weight.val()),
        bias: read_bias(layer.bias.as_ref(), r),
    }
}

/// `param` with its value replaced by `values` (same shape, same device,
/// same parameter id, so optimiser state and bundles keep addressing it).
fn replaced<const D: usize>(param: Param<Tensor<D>>, values: &[f32]) -> Param<Tensor<D>> {
    param.map(|t| {
        let data = TensorData::new(values.to_vec(), t.shape());
        Tensor::from_data(data, &t.device())
    })
}

fn write_conv(conv: &mut Conv2d, weight: &[f32]) {
    conv.weight = replaced(conv.weight.clone(), weight);
}

fn write_bn(bn: &mut BatchNorm, w: &ConvBnWeights) {
    bn.gamma = replaced(bn.gamma.clone(), &w.gamma);
    bn.beta = replaced(bn.beta.clone(), &w.beta);
    // In place: the caller made these states its own (`Module::valid`
    // rebuilds them), and `value_sync` commits the update so `value()`
    // (what the fused path and bundles read) sees it.
    let set = |s: &RunningState<Tensor<1>>, values: &[f32]| {
        let t = s.value();
        let data = TensorData::new(values.to_vec(), t.shape());
        s.update(Tensor::from_data(data, &t.device()));
        s.value_sync();
    };
    set(&bn.running_mean, &w.running_mean);
    set(&bn.running_var, &w.running_var);
}

fn write_conv_bn(layer: &mut ConvBn, w: &ConvBnWeights) {
    write_conv(&mut layer.conv, &w.weight);
    write_bn(&mut layer.bn, w);
}

pub(crate) fn write_dense(layer: &mut Linear, w: &DenseWeights) {
    layer.weight = replaced(layer.weight.clone(), &w.weight);
    if let Some(b) = layer.bias.take() {
        layer.bias = Some(replaced(b, &w.bias));
    }
}

impl Net {
    /// The network's tensors read with `reader` (values: [`Values`]), for
    /// boards of `board = [C, P, H, W]` (input planes, policy planes,
    /// height, width; the variant's encoding); `None` for a network with
    /// the moves-left head, which [`NetWeights`] does not hold.
    pub fn read_weights(
        &self,
        board: [usize; 4],
        reader: &mut impl TensorReader,
    ) -> Option<NetWeights> {
        if self.has_moves_left() {
            return None;
        }
        let [input_planes, policy_planes, height, width] = board;
        let shape = NetShape {
            input_planes,
            policy_planes,
            height,
            width,
            blocks: self.blocks.len(),
            filters: self.stem.bn.gamma.val().dims()[0],
            value_hidden: self.value_fc.weight.val().dims()[1],
            moves_left: false,
        };
        Some(NetWeights {
            shape,
            stem: read_conv_bn(&self.stem, reader),
            blocks: self
                .blocks
                .iter()
                .map(|b| {
                    (
                        read_conv_bn(&b.first, reader),
                        read_conv_bn(&b.second, reader),
                    )
                })
                .collect(),
            policy_hidden: read_conv_bn(&self.policy_hidden, reader),
            policy_out: DenseWeights {
                weight: reader.read(&self.policy_out.weight.val()),
                bias: read_bias(self.policy_out.bias.as_ref(), reader),
            },
            value_conv: read_conv_bn(&self.value_conv, reader),
            value_fc: read_dense(&self.value_fc, reader),
            value_out: read_dense(&self.value_out, reader),
        })
    }

    /// The network in inference mode without autodiff (as
    /// [`Module::valid`]) with every tensor replaced by those of `w` (same
    /// shapes, parameter ids and device).
    ///
    /// # Panics
    /// If a vector of `w` does not have its tensor's number of elements
    /// (`w` was not read from a network of this shape).
    pub fn with_weights(&self, w: &NetWeights) -> Net {
        // `valid` gives the result running states of its own (a clone of
        // a network shares them), so writing them in place is safe.
        let mut net = self.valid();
        net.write_weights(w);
        net
    }

    fn write_weights(&mut self, w: &NetWeights) {
        write_conv_bn(&mut self.stem, &w.stem);
        for (block, (first, second)) in self.blocks.iter_mut().zip(&w.blocks) {
            write_conv_bn(&mut block.first, first);
            write_conv_bn(&mut block.second, second);
        }
        write_conv_bn(&mut self.policy_hidden, &w.policy_hidden);
        write_conv(&mut self.policy_out, &w.policy_out.weight);
        if let Some(b) = self.policy_out.bias.take() {
            self.policy_out.bias = Some(replaced(b, &w.policy_out.bias));
        }
        write_conv_bn(&mut self.value_conv, &w.value_conv);
        write_dense(&mut self.value_fc, &w.value_fc);
        write_dense(&mut self.value_out, &w.value_out);
    }
}
