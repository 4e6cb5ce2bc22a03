//! Optimiser steps on the network: policy cross-entropy + WDL
//! cross-entropy, with L2 regularisation as the optimiser's weight decay
//! (AlphaZero's loss `l = -pi^T log p + (z - v)^2 + c||theta||^2`, with the
//! value term as a WDL cross-entropy as in Lc0/KataGo).

use burn::module::Module;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Gradients, Tensor, TensorData};
use encoding::Encode;
use model::weights::{NetWeights, TensorReader, Values};
use model::Net;

use crate::config::{Optimizer, TrainBackend, TrainingConfig};
use crate::fast::FastTrainer;
use crate::losses::{LossWeights, StepLoss};
use crate::samples::Batch;

/// A network in training and its optimiser: on the hand-written fast path
/// ([`crate::fast`]) or on burn's autodiff ([`TrainingConfig::backend`]).
pub enum Trainer {
    /// The hand-written step on the CPU.
    Fast(Box<FastTrainer>),
    /// burn's autodiff.
    Burn(Box<BurnTrainer>),
}

impl Trainer {
    /// Start training `net` on `device`: on the fast path when the config
    /// asks for it and it covers the network and device (the CPU, no
    /// moves-left head), else on burn's autodiff.
    pub fn new<E: Encode>(net: Net, device: &Device, config: &TrainingConfig) -> Self {
        if config.backend == TrainBackend::Fast && *device == Device::flex() {
            let board = [E::INPUT_PLANES, E::POLICY_PLANES, E::HEIGHT, E::WIDTH];
            if let Some(fast) = FastTrainer::new(net.clone(), board, config) {
                return Trainer::Fast(Box::new(fast));
            }
        }
        Trainer::Burn(Box::new(BurnTrainer::new(net, device, config)))
    }

    /// Which path trains: `"fast"` or `"burn"`.
    pub fn backend(&self) -> &'static str {
        match self {
            Trainer::Fast(_) => "fast",
            Trainer::Burn(_) => "burn",
        }
    }

    /// One optimiser step on `batch` of game `E`; returns the losses and
    /// policy entropy before the step (NaN if the network was lost).
    pub fn step<E: Encode>(&mut self, batch: &Batch, lr: f64, weights: LossWeights) -> StepLoss {
        match self {
            Trainer::Fast(t) => t.step(batch, lr, weights),
            Trainer::Burn(t) => t.step::<E>(batch, lr, weights),
        }
    }

    /// The trained network, without autodiff, in inference mode.
    pub fn into_net(self) -> Option<Net> {
        match self {
            Trainer::Fast(t) => Some(t.into_net()),
            Trainer::Burn(t) => t.into_net(),
        }
    }
}

/// Holds the network on an autodiff device and its optimiser.
pub struct BurnTrainer {
    // `Option` only so `step` can move the network through the optimiser.
    net: Option<Net>,
    optim: ModuleOptimizer,
    device: Device,
    /// `TrainingConfig::policy_over_legal`: the policy softmax over the
    /// legal actions only.
    policy_over_legal: bool,
}

impl BurnTrainer {
    /// Start training `net` on `device` (autodiff is enabled here).
    pub fn new(net: Net, device: &Device, config: &TrainingConfig) -> Self {
        let device = device.clone().autodiff();
        let net = net.to_device(&device).train();
        let optim = match config.optimizer {
            Optimizer::Adamw => AdamWConfig::new()
                .with_weight_decay(config.weight_decay)
                .init(),
            Optimizer::Sgd => SgdConfig::new()
                .with_momentum(Some(MomentumConfig::new().with_dampening(0.0)))
                .with_weight_decay(Some(WeightDecayConfig::new(config.weight_decay)))
                .init(),
        };
        BurnTrainer {
            net: Some(net),
            optim,
            device,
            policy_over_legal: config.policy_over_legal,
        }
    }

    /// One optimiser step on `batch` of game `E`; returns the losses and
    /// policy entropy before the step (NaN if the network was lost).
    pub fn step<E: Encode>(&mut self, batch: &Batch, lr: f64, weights: LossWeights) -> StepLoss {
        self.step_traced::<E>(batch, lr, weights, false).0
    }

    /// [`BurnTrainer::step`], also returning the step's gradients in
    /// burn's layout when `trace` is set (for the fast path's equivalence
    /// test; `None` for a network with the moves-left head).
    pub fn step_traced<E: Encode>(
        &mut self,
        batch: &Batch,
        lr: f64,
        weights: LossWeights,
        trace: bool,
    ) -> (StepLoss, Option<NetWeights>) {
        let b = batch.size;
        let x = Tensor::<4>::from_data(
            TensorData::new(
                batch.inputs.clone(),
                [b, E::INPUT_PLANES, E::HEIGHT, E::WIDTH],
            ),
            &self.device,
        );
        let pi = Tensor::<2>::from_data(
            TensorData::new(batch.policy.clone(), [b, E::policy_len()]),
            &self.device,
        );
        let z = Tensor::<2>::from_data(TensorData::new(batch.wdl.clone(), [b, 3]), &self.device);
        let Some(net) = self.net.take() else {
            let nan = StepLoss {
                policy: f64::NAN,
                value: f64::NAN,
                policy_entropy: f64::NAN,
                moves_left: f64::NAN,
            };
            return (nan, None);
        };
        let out = net.forward_all(x);
        let (policy, value) = (out.policy, out.value);
        let mask = Tensor::<2>::from_data(
            TensorData::new(batch.legal_mask.clone(), [b, E::policy_len()]),
            &self.device,
        );
        let log_legal = log_softmax(policy.clone().detach() + mask.clone(), 1);
        let entropy = (log_legal.clone().exp() * log_legal)
            .sum_dim(1)
            .mean()
            .neg();
        // Cross-entropy against the visit distribution; over the legal
        // actions it is the loss of the distribution the search uses as
        // priors (the masked logits' softmax).
        let logits = if self.policy_over_legal {
            policy + mask
        } else {
            policy
        };
        let log_p = log_softmax(logits, 1);
        let policy_loss = (log_p * pi).sum_dim(1).mean().neg();
        let value_loss = self.value_loss(value, z, &batch.value_weight);
        let mut loss = policy_loss.clone() + value_loss.clone().mul_scalar(weights.value);
        let moves_left_loss = out.moves_left.map(|m| {
            let target = Tensor::<2>::from_data(
                TensorData::new(batch.moves_left.clone(), [b, 1]),
                &self.device,
            );
            huber(m - target)
        });
        if let Some(ml) = &moves_left_loss {
            loss = loss + ml.clone().mul_scalar(weights.moves_left);
        }
        let grads = loss.backward();
        let traced = trace
            .then(|| {
                let board = [E::INPUT_PLANES, E::POLICY_PLANES, E::HEIGHT, E::WIDTH];
                net.read_weights(board, &mut GradReader(&grads))
            })
            .flatten();
        let grads = GradientsParams::from_grads(grads, &net);
        self.net = Some(self.optim.step(lr, net, grads));
        let step = StepLoss {
            policy: scalar(policy_loss),
            value: scalar(value_loss),
            policy_entropy: scalar(entropy),
            moves_left: moves_left_loss.map_or(0.0, scalar),
        };
        (step, traced)
    }

    /// Weighted mean WDL cross-entropy: `sum_b w_b CE_b / max(sum_b w_b,
    /// 1)` (`value` logits `[B, 3]`, targets `z` `[B, 3]`, weights `w` `[B]`:
    /// 0 leaves a position's value out, `samples::Sample::value_weight`).
    fn value_loss(&self, value: Tensor<2>, z: Tensor<2>, weights: &[f32]) -> Tensor<1> {
        let denom = weights.iter().sum::<f32>().max(1.0);
        let w = Tensor::<2>::from_data(
            TensorData::new(weights.to_vec(), [weights.len(), 1]),
            &self.device,
        );
        (log_softmax(value, 1) * z)
            .sum_dim(1)
            .mul(w)
            .sum()
            .mul_scalar(-1.0 / denom)
    }

    /// The trained network, without autodiff, in inference mode.
    pub fn into_net(self) -> Option<Net> {
        self.net.map(|n| n.valid())
    }
}

/// Reads a tensor's gradient from a backward pass (empty when it has none).
struct GradReader<'a>(&'a Gradients);

impl TensorReader for GradReader<'_> {
    fn read<const D: usize>(&mut self, t: &Tensor<D>) -> Vec<f32> {
        t.grad(self.0).map(|g| Values.read(&g)).unwrap_or_default()
    }
}

/// Mean Huber loss (delta 1) of the errors `e`: `0.5 e^2` for `|e| <= 1`,
/// `|e| - 0.5` beyond; written with a clamp so it needs no branch:
/// `q = min(|e|, 1)`, loss `= 0.5 q^2 + (|e| - q)`.
fn huber(e: Tensor<2>) -> Tensor<1> {
    let d = e.abs();
    let q = d.clone().clamp_max(1.0);
    (q.clone() * q.clone()).mul_scalar(0.5).add(d - q).mean()
}

fn scalar(t: Tensor<1>) -> f64 {
    t.into_data()
        .try_into_vec::<f32>()
        .ok()
        .and_then(|v| v.first().copied())
        .unwrap_or(f32::NAN) as f64
}
