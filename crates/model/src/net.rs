//! The residual policy/value network (AlphaZero, Silver et al. 2018,
//! "A general reinforcement learning algorithm that masters chess, shogi and
//! Go through self-play", Methods: "Neural network architecture").
//!
//! Shapes (B = batch, C = input planes, H x W board, P = policy planes,
//! F = filters):
//! - input `[B, C, H, W]`
//! - trunk: 3x3 conv stem to `F`, then `blocks` residual blocks
//!   (conv3x3-BN-ReLU-conv3x3-BN + skip, ReLU)
//! - policy head: conv3x3 `F`->`F` + BN + ReLU, then conv1x1 `F`->`P`:
//!   per-square action planes, flattened to `[B, P*H*W]` logits. A
//!   convolutional head keeps the weights small (no dense layer over the
//!   board) and shares the move pattern across squares.
//! - value head: conv1x1 `F`->2 + BN + ReLU, flatten `[B, 2*H*W]`, linear to
//!   `value_hidden`, ReLU, linear to 3 WDL logits `[B, 3]` (win, draw, loss
//!   for the side to move).
//! - moves-left head (optional, `NetShape::moves_left`; after Lc0's): a
//!   linear layer from the value head's hidden layer to 1 output, softplus:
//!   the predicted plies to the end of the game divided by
//!   [`MOVES_LEFT_SCALE`], `[B, 1]`.

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::{relu, softplus};
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

/// Network shape. `input_planes`, `policy_planes`, `height` and `width`
/// come from the variant's encoding; `blocks`, `filters` and `value_hidden`
/// from the config.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetShape {
    /// Input planes `C`.
    pub input_planes: usize,
    /// Policy planes `P`.
    pub policy_planes: usize,
    /// Board height `H`.
    pub height: usize,
    /// Board width `W`.
    pub width: usize,
    /// Residual blocks in the trunk.
    pub blocks: usize,
    /// Channels `F` of the trunk.
    pub filters: usize,
    /// Hidden units of the value head.
    pub value_hidden: usize,
    /// Whether the network has the moves-left head. Absent in bundles
    /// written before the head existed (read as false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moves_left: bool,
}

/// The most residual blocks a network may have (bundles with more are
/// refused as implausible; configs and `lokizero grow` are held to it).
pub const MAX_BLOCKS: usize = 64;

/// The most filters `F` a network may have (as [`MAX_BLOCKS`]).
pub const MAX_FILTERS: usize = 1024;

/// The moves-left head predicts plies left divided by this (so its targets
/// are of order 1).
pub const MOVES_LEFT_SCALE: f32 = 100.0;

impl NetShape {
    /// Policy logits per position, `P*H*W`.
    pub fn policy_len(&self) -> usize {
        self.policy_planes * self.height * self.width
    }

    /// Input floats per position, `C*H*W`.
    pub fn input_len(&self) -> usize {
        self.input_planes * self.height * self.width
    }
}

fn conv(input: usize, output: usize, kernel: usize, device: &Device) -> Conv2d {
    let padding = if kernel == 1 {
        PaddingConfig2d::Valid
    } else {
        PaddingConfig2d::Same
    };
    // No bias: every conv is followed by batch norm, which has its own shift.
    Conv2dConfig::new([input, output], [kernel, kernel])
        .with_padding(padding)
        .with_bias(false)
        .init(device)
}

/// Conv + batch norm + optional ReLU.
#[derive(Module, Debug)]
pub struct ConvBn {
    pub(crate) conv: Conv2d,
    pub(crate) bn: BatchNorm,
}

impl ConvBn {
    fn new(input: usize, output: usize, kernel: usize, device: &Device) -> Self {
        ConvBn {
            conv: conv(input, output, kernel, device),
            bn: BatchNormConfig::new(output).init(device),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        self.bn.forward(self.conv.forward(x))
    }
}

/// One residual block: `relu(x + bn(conv(relu(bn(conv(x))))))`.
#[derive(Module, Debug)]
pub struct ResBlock {
    pub(crate) first: ConvBn,
    pub(crate) second: ConvBn,
}

impl ResBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let y = relu(self.first.forward(x.clone()));
        relu(self.second.forward(y) + x)
    }
}

/// The policy/value network.
#[derive(Module, Debug)]
pub struct Net {
    pub(crate) stem: ConvBn,
    pub(crate) blocks: Vec<ResBlock>,
    pub(crate) policy_hidden: ConvBn,
    pub(crate) policy_out: Conv2d,
    pub(crate) value_conv: ConvBn,
    pub(crate) value_fc: Linear,
    pub(crate) value_out: Linear,
    pub(crate) moves_left_out: Option<Linear>,
}

/// The outputs of [`Net::forward_all`].
pub struct NetOutput {
    /// Policy logits `[B, P*H*W]`.
    pub policy: Tensor<2>,
    /// WDL logits `[B, 3]`.
    pub value: Tensor<2>,
    /// Predicted plies left / [`MOVES_LEFT_SCALE`], `[B, 1]`, >= 0; `None`
    /// without the moves-left head.
    pub moves_left: Option<Tensor<2>>,
}

impl Net {
    /// A freshly initialised network of the given shape on `device`.
    pub fn new(shape: &NetShape, device: &Device) -> Self {
        let f = shape.filters;
        let blocks = (0..shape.blocks)
            .map(|_| ResBlock {
                first: ConvBn::new(f, f, 3, device),
                second: ConvBn::new(f, f, 3, device),
            })
            .collect();
        Net {
            stem: ConvBn::new(shape.input_planes, f, 3, device),
            blocks,
            policy_hidden: ConvBn::new(f, f, 3, device),
            policy_out: Conv2dConfig::new([f, shape.policy_planes], [1, 1]).init(device),
            value_conv: ConvBn::new(f, 2, 1, device),
            value_fc: LinearConfig::new(2 * shape.height * shape.width, shape.value_hidden)
                .init(device),
            value_out: LinearConfig::new(shape.value_hidden, 3).init(device),
            moves_left_out: shape
                .moves_left
                .then(|| LinearConfig::new(shape.value_hidden, 1).init(device)),
        }
    }

    /// Whether the network has the moves-left head.
    pub fn has_moves_left(&self) -> bool {
        self.moves_left_out.is_some()
    }

    /// Forward pass: input `[B, C, H, W]` -> (policy logits `[B, P*H*W]`,
    /// WDL logits `[B, 3]`).
    pub fn forward(&self, input: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let out = self.forward_all(input);
        (out.policy, out.value)
    }

    /// Forward pass with every head (see [`NetOutput`] for the shapes).
    pub fn forward_all(&self, input: Tensor<4>) -> NetOutput {
        let mut x = relu(self.stem.forward(input));
        for block in &self.blocks {
            x = block.forward(x);
        }
        let policy = self
            .policy_out
            .forward(relu(self.policy_hidden.forward(x.clone())))
            .flatten::<2>(1, 3);
        let v = relu(self.value_conv.forward(x)).flatten::<2>(1, 3);
        let v = relu(self.value_fc.forward(v));
        let moves_left = self
            .moves_left_out
            .as_ref()
            .map(|head| softplus(head.forward(v.clone()), 1.0));
        NetOutput {
            policy,
            value: self.value_out.forward(v),
            moves_left,
        }
    }
}
