//! The hand-written training step for this project's residual networks:
//! forward with saved activations, backward, losses and the
//! optimiser written out for the layers of `model::Net`, on the `gemm`
//! crate's kernels with im2col, over one rayon pool, with every buffer
//! kept across steps. burn's autodiff path (`crate::trainer`) stays the
//! reference: `tests/fast_step_matches_burn.rs` holds one step of both
//! to the same losses, gradients and updated weights on every variant's
//! shape.
//!
//! Activations are channels-last, `[B * H * W, channels]` (`N` rows).

mod batch;
mod conv_bn;
mod heads;
mod loss;
mod matmul;
mod optim;
mod params;

use model::weights::{NetWeights, Values};
use model::{Net, NetShape};
use rayon::prelude::*;

use self::batch::{sized, Geometry, Scratch};
use self::conv_bn::ConvBn;
use self::heads::ValueHead;
use self::optim::OptimState;
use self::params::{Layout, Running};
use crate::config::TrainingConfig;
use crate::losses::{LossWeights, StepLoss};
use crate::samples::Batch;

/// A network in training on the fast path, with its optimiser state.
pub struct FastTrainer {
    shape: NetShape,
    layout: Layout,
    params: Vec<f32>,
    grads: Vec<f32>,
    optim: OptimState,
    /// `[stem, blocks' first and second layers, policy hidden]`.
    convs: Vec<ConvBn>,
    value_conv: ConvBn,
    value_head: ValueHead,
    policy_over_legal: bool,
    /// The network the weights came from (written back into at the end).
    template: Net,
    buffers: Buffers,
}

/// Buffers of one step, kept across steps.
#[derive(Default)]
struct Buffers {
    scratch: Vec<Scratch>,
    /// Input, channels last.
    input: Vec<f32>,
    /// Policy logits `[B, P * H * W]`, then their gradient.
    logits: Vec<f32>,
    /// Gradients of the trunk's activations (`[N, F]` each).
    grad_a: Vec<f32>,
    grad_mid: Vec<f32>,
    grad_skip: Vec<f32>,
    /// Gradient of the value convolution's output `[N, 2]`.
    grad_value: Vec<f32>,
}

impl FastTrainer {
    /// Start training `net` for boards of `board = [C, P, H, W]` (the
    /// variant's encoding); `None` for a network the fast path does not
    /// cover (the moves-left head) or that does not fit the board.
    pub fn new(net: Net, board: [usize; 4], config: &TrainingConfig) -> Option<Self> {
        let weights = net.read_weights(board, &mut Values)?;
        let shape = &weights.shape;
        let layout = Layout::new(shape);
        if !layout.fits(&weights) {
            return None;
        }
        let (params, mut running) = layout.flatten(&weights);
        let value_running = running.pop()?;
        let convs = running
            .into_iter()
            .zip(&layout.convs)
            // Every trunk layer ends in a ReLU (a block's second after its
            // skip, which `ConvBn` adds before the ReLU).
            .map(|(r, slot)| ConvBn::new(slot.clone(), true, r))
            .collect();
        Some(FastTrainer {
            shape: shape.clone(),
            grads: vec![0.0; layout.len],
            optim: OptimState::new(config.optimizer, config.weight_decay, layout.len),
            value_conv: ConvBn::new(layout.value_conv.clone(), true, value_running),
            layout,
            params,
            convs,
            value_head: ValueHead::default(),
            policy_over_legal: config.policy_over_legal,
            template: net,
            buffers: Buffers::default(),
        })
    }

    /// The current weights (and running statistics) in burn's layout.
    pub fn weights(&self) -> NetWeights {
        let running: Vec<Running> = self
            .convs
            .iter()
            .chain([&self.value_conv])
            .map(|c| (c.running_mean.clone(), c.running_var.clone()))
            .collect();
        self.layout.unflatten(&self.shape, &self.params, &running)
    }

    /// The gradients of the last step in burn's layout (running
    /// statistics empty).
    pub fn gradients(&self) -> NetWeights {
        self.layout.unflatten(&self.shape, &self.grads, &[])
    }

    /// The trained network: the original burn network with the trained
    /// weights, in inference mode.
    pub fn into_net(self) -> Net {
        self.template.with_weights(&self.weights())
    }

    /// One optimiser step on `batch`; the losses before the step.
    pub fn step(&mut self, batch: &Batch, lr: f64, weights: LossWeights) -> StepLoss {
        let threads = rayon::current_num_threads();
        let s = &self.shape;
        let (h, w) = (s.height, s.width);
        let geo = Geometry::new(batch.size, h, w, threads);
        self.buffers
            .scratch
            .resize_with(geo.groups.len(), Scratch::default);
        self.forward(batch, &geo);
        let policy = loss::policy(
            &mut self.buffers.logits,
            &batch.legal_mask,
            &batch.policy,
            self.policy_over_legal,
            batch.size,
            1.0,
        );
        let value = loss::value(
            &mut self.value_head.wdl,
            &batch.wdl,
            &batch.value_weight,
            weights.value,
        );
        self.backward(&geo);
        self.optim.step(&mut self.params, &self.grads, lr);
        StepLoss {
            policy: policy.loss,
            value,
            policy_entropy: policy.entropy,
            moves_left: 0.0,
        }
    }

    fn forward(&mut self, batch: &Batch, geo: &Geometry) {
        let s = &self.shape;
        let (c, sq) = (s.input_planes, geo.squares());
        let b = &mut self.buffers;
        // Input `[B, C, H, W]` to channels last.
        sized(&mut b.input, geo.rows() * c, false)
            .par_chunks_mut(sq * c)
            .zip(batch.inputs.par_chunks(c * sq))
            .for_each(|(dst, src)| {
                for ch in 0..c {
                    for q in 0..sq {
                        dst[q * c + ch] = src[ch * sq + q];
                    }
                }
            });
        let p = &self.params;
        let scratch = &mut b.scratch;
        self.convs[0].forward(p, &b.input, None, geo, scratch);
        let blocks = s.blocks;
        for k in 1..=2 * blocks + 1 {
            let (done, rest) = self.convs.split_at_mut(k);
            let input = &done[k - 1].out;
            // Block i's second layer (k = 2 + 2i) adds the block's input.
            let skip = (k % 2 == 0).then(|| &done[k - 2].out[..]);
            rest[0].forward(p, input, skip, geo, scratch);
        }
        let trunk = &self.convs[2 * blocks].out;
        self.value_conv.forward(p, trunk, None, geo, scratch);
        let hidden = &self.convs[2 * blocks + 1].out;
        heads::policy_forward(p, &self.layout.policy_out, hidden, geo, &mut b.logits);
        self.value_head.forward(
            p,
            &self.layout.value_fc,
            &self.layout.value_out,
            &self.value_conv.out,
            geo,
        );
    }

    fn backward(&mut self, geo: &Geometry) {
        let blocks = self.shape.blocks;
        let (n, f) = (geo.rows(), self.shape.filters);
        let (p, g, l) = (&self.params, &mut self.grads, &self.layout);
        let b = &mut self.buffers;
        let grad_value = sized(&mut b.grad_value, n * 2, false);
        self.value_head
            .backward(p, g, &l.value_fc, &l.value_out, grad_value, geo);
        let trunk = &self.convs[2 * blocks].out;
        let grad_a = sized(&mut b.grad_a, n * f, false);
        self.value_conv.backward(
            p,
            g,
            grad_value,
            trunk,
            None,
            Some((grad_a, false)),
            geo,
            &mut b.scratch,
        );
        let ph = &self.convs[2 * blocks + 1];
        let grad_mid = sized(&mut b.grad_mid, n * f, false);
        heads::policy_backward(
            p,
            g,
            &l.policy_out,
            &ph.out,
            &b.logits,
            grad_mid,
            geo,
            &mut b.scratch,
        );
        ph.backward(
            p,
            g,
            grad_mid,
            trunk,
            None,
            Some((&mut b.grad_a, true)),
            geo,
            &mut b.scratch,
        );
        sized(&mut b.grad_skip, n * f, false);
        for i in (0..blocks).rev() {
            let (first, second) = (&self.convs[1 + 2 * i], &self.convs[2 + 2 * i]);
            let input = &self.convs[2 * i].out;
            second.backward(
                p,
                g,
                &mut b.grad_a,
                &first.out,
                Some(&mut b.grad_skip),
                Some((&mut b.grad_mid, false)),
                geo,
                &mut b.scratch,
            );
            first.backward(
                p,
                g,
                &mut b.grad_mid,
                input,
                None,
                Some((&mut b.grad_skip, true)),
                geo,
                &mut b.scratch,
            );
            std::mem::swap(&mut b.grad_a, &mut b.grad_skip);
        }
        self.convs[0].backward(
            p,
            g,
            &mut b.grad_a,
            &b.input,
            None,
            None,
            geo,
            &mut b.scratch,
        );
    }
}
