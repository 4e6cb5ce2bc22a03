//! The optimisers of `crate::config::Optimizer` over the flat parameter
//! vector, with burn 0.22's update rules (`burn::optim`), so the fast path
//! and burn's path take the same step:
//! - AdamW (Loshchilov & Hutter 2019; burn's `AdamW`): `m = b1 m + (1 - b1) g`,
//!   `v = b2 v + (1 - b2) g^2`, `p = p (1 - lr wd) - lr m_hat / (sqrt(v_hat) + eps)`
//!   with `m_hat = m / (1 - b1^t)`, `v_hat = v / (1 - b2^t)`; b1 0.9,
//!   b2 0.999, eps 1e-5 (burn's `AdamWConfig` defaults).
//! - SGD with momentum 0.9, no dampening, L2 weight decay (burn's `Sgd`):
//!   `g' = g + wd p`, `u = 0.9 u + g'` (`u = g'` on the first step),
//!   `p = p - lr u`.

use rayon::prelude::*;

use crate::config::Optimizer;

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-5;
const MOMENTUM: f32 = 0.9;

/// Elements per parallel job of the update.
const JOB: usize = 1 << 14;

/// An optimiser's state for a parameter vector.
pub(crate) struct OptimState {
    kind: Optimizer,
    weight_decay: f32,
    /// Steps taken.
    time: i32,
    /// AdamW's first moment, or SGD's velocity.
    first: Vec<f32>,
    /// AdamW's second moment (empty for SGD).
    second: Vec<f32>,
}

impl OptimState {
    /// A fresh state for `len` parameters.
    pub fn new(kind: Optimizer, weight_decay: f32, len: usize) -> Self {
        OptimState {
            kind,
            weight_decay,
            time: 0,
            first: vec![0.0; len],
            second: if kind == Optimizer::Adamw {
                vec![0.0; len]
            } else {
                Vec::new()
            },
        }
    }

    /// One step of `params` along `grads` at learning rate `lr`.
    pub fn step(&mut self, params: &mut [f32], grads: &[f32], lr: f64) {
        self.time += 1;
        let wd = self.weight_decay;
        match self.kind {
            Optimizer::Adamw => {
                let c1 = 1.0 - BETA1.powi(self.time);
                let c2 = 1.0 - BETA2.powi(self.time);
                let decay = (1.0 - lr * wd as f64) as f32;
                let lr = lr as f32;
                params
                    .par_chunks_mut(JOB)
                    .zip(grads.par_chunks(JOB))
                    .zip(self.first.par_chunks_mut(JOB))
                    .zip(self.second.par_chunks_mut(JOB))
                    .for_each(|(((p, g), m), v)| {
                        for i in 0..p.len() {
                            m[i] = BETA1 * m[i] + (1.0 - BETA1) * g[i];
                            v[i] = BETA2 * v[i] + (1.0 - BETA2) * g[i] * g[i];
                            let delta = (m[i] / c1) / ((v[i] / c2).sqrt() + EPSILON);
                            p[i] = p[i] * decay - lr * delta;
                        }
                    });
            }
            Optimizer::Sgd => {
                let (first, lr) = (self.time == 1, lr as f32);
                params
                    .par_chunks_mut(JOB)
                    .zip(grads.par_chunks(JOB))
                    .zip(self.first.par_chunks_mut(JOB))
                    .for_each(|((p, g), u)| {
                        for i in 0..p.len() {
                            let g = g[i] + wd * p[i];
                            u[i] = if first { g } else { MOMENTUM * u[i] + g };
                            p[i] -= lr * u[i];
                        }
                    });
            }
        }
    }
}
