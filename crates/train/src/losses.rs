//! The losses of training, shared by both training steps (the fast path,
//! [`crate::fast`], and burn's autodiff, [`crate::trainer`]): one step's
//! losses, their running means and the weights of the loss terms.

use serde::{Deserialize, Serialize};

/// Mean losses over a training call.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct LossStats {
    /// Optimiser steps taken.
    pub steps: usize,
    /// Mean policy cross-entropy (nats).
    pub policy_loss: f64,
    /// Mean WDL cross-entropy (nats).
    pub value_loss: f64,
    /// Mean entropy (nats) of the network's policy renormalised over each
    /// batch position's legal actions, before each step: comparable with
    /// the entropy of the search targets; a collapse toward 0 signals
    /// overfitting.
    #[serde(default)]
    pub policy_entropy: f64,
    /// Mean moves-left loss (Huber, in units of `model::MOVES_LEFT_SCALE`
    /// plies); 0 without the head.
    #[serde(default)]
    pub moves_left_loss: f64,
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
    /// Moves-left Huber loss (0 without the head).
    pub moves_left: f64,
}

impl LossStats {
    /// Fold one step into the running means.
    pub fn add(&mut self, step: StepLoss) {
        self.steps += 1;
        let n = self.steps as f64;
        self.policy_loss += (step.policy - self.policy_loss) / n;
        self.value_loss += (step.value - self.value_loss) / n;
        self.policy_entropy += (step.policy_entropy - self.policy_entropy) / n;
        self.moves_left_loss += (step.moves_left - self.moves_left_loss) / n;
    }
}

/// Weights of the loss terms against the policy loss.
#[derive(Clone, Copy, Debug)]
pub struct LossWeights {
    /// Of the WDL loss.
    pub value: f32,
    /// Of the moves-left loss (used only when the network has the head).
    pub moves_left: f32,
}
