//! Optimiser steps on the network: policy cross-entropy + WDL
//! cross-entropy, with L2 regularisation as the optimiser's weight decay
//! (AlphaZero's loss `l = -pi^T log p + (z - v)^2 + c||theta||^2`, with the
//! value term as a WDL cross-entropy as in Lc0/KataGo).

use burn::module::Module;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use encoding::Encode;
use model::Net;
use serde::{Deserialize, Serialize};

use crate::config::{Optimizer, TrainingConfig};
use crate::samples::Batch;

/// Mean losses over a training call.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct LossStats {
    /// Optimiser steps taken.
    pub steps: usize,
    /// Mean policy cross-entropy (nats).
    pub policy_loss: f64,
    /// Mean WDL cross-entropy (nats).
    pub value_loss: f64,
    /// Mean entropy of the network's policy (nats) over all `P*H*W`
    /// outputs of the batch positions, before each step. Illegal actions
    /// are included, but targets give them no mass, so a trained network
    /// puts almost none there; a collapse toward 0 signals overfitting.
    #[serde(default)]
    pub policy_entropy: f64,
}

/// The losses of one optimiser step (nats, batch means before the step).
#[derive(Clone, Copy, Debug, Default)]
pub struct StepLoss {
    /// Policy cross-entropy.
    pub policy: f64,
    /// WDL cross-entropy.
    pub value: f64,
    /// Entropy of the network's policy.
    pub policy_entropy: f64,
}

impl LossStats {
    /// Fold one step into the running means.
    pub fn add(&mut self, step: StepLoss) {
        self.steps += 1;
        let n = self.steps as f64;
        self.policy_loss += (step.policy - self.policy_loss) / n;
        self.value_loss += (step.value - self.value_loss) / n;
        self.policy_entropy += (step.policy_entropy - self.policy_entropy) / n;
    }
}

/// Holds the network on an autodiff device and its optimiser.
pub struct Trainer {
    // `Option` only so `step` can move the network through the optimiser.
    net: Option<Net>,
    optim: ModuleOptimizer,
    device: Device,
}

impl Trainer {
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
        Trainer {
            net: Some(net),
            optim,
            device,
        }
    }

    /// One optimiser step on `batch` of game `E`; returns the losses and
    /// policy entropy before the step (NaN if the network was lost).
    pub fn step<E: Encode>(&mut self, batch: &Batch, lr: f64, value_weight: f32) -> StepLoss {
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
            return StepLoss {
                policy: f64::NAN,
                value: f64::NAN,
                policy_entropy: f64::NAN,
            };
        };
        let (policy, value) = net.forward(x);
        let log_p = log_softmax(policy, 1);
        let entropy = (log_p.clone().detach().exp() * log_p.clone().detach())
            .sum_dim(1)
            .mean()
            .neg();
        let policy_loss = (log_p * pi).sum_dim(1).mean().neg();
        let value_loss = (log_softmax(value, 1) * z).sum_dim(1).mean().neg();
        let loss = policy_loss.clone() + value_loss.clone().mul_scalar(value_weight);
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        self.net = Some(self.optim.step(lr, net, grads));
        StepLoss {
            policy: scalar(policy_loss),
            value: scalar(value_loss),
            policy_entropy: scalar(entropy),
        }
    }

    /// The trained network, without autodiff, in inference mode.
    pub fn into_net(self) -> Option<Net> {
        self.net.map(|n| n.valid())
    }
}

fn scalar(t: Tensor<1>) -> f64 {
    t.into_data()
        .try_into_vec::<f32>()
        .ok()
        .and_then(|v| v.first().copied())
        .unwrap_or(f32::NAN) as f64
}
