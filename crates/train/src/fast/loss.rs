//! The losses of `crate::trainer::Trainer::step` and their gradients with
//! respect to the logits, written out (so no autodiff is needed):
//! for a cross-entropy `l = -sum_i t_i log softmax(x)_i` with targets `t`
//! (not necessarily summing to 1), `dl/dx_j = softmax(x)_j * sum_i t_i - t_j`.

use rayon::prelude::*;

/// `log softmax(x)` into `out`.
fn log_softmax(x: impl Iterator<Item = f32> + Clone, out: &mut [f32]) {
    let max = x.clone().fold(f32::NEG_INFINITY, f32::max);
    for (o, v) in out.iter_mut().zip(x) {
        *o = v - max;
    }
    let log_sum = out.iter().map(|v| v.exp()).sum::<f32>().ln();
    out.iter_mut().for_each(|v| *v -= log_sum);
}

/// Policy loss terms of a batch.
pub(crate) struct PolicyLoss {
    /// Mean cross-entropy against the targets.
    pub loss: f64,
    /// Mean entropy of the softmax over the legal actions.
    pub entropy: f64,
}

/// Mean policy cross-entropy over the batch of `logits` (`[B, L]`) against
/// `targets` (`[B, L]`), the softmax over `logits + mask` when
/// `over_legal` (`mask`: 0 on legal actions, `samples::ILLEGAL_LOGIT`
/// elsewhere), and the mean entropy of `softmax(logits + mask)`. The
/// logits are replaced by the loss's gradient scaled by `scale / B`.
pub(crate) fn policy(
    logits: &mut [f32],
    mask: &[f32],
    targets: &[f32],
    over_legal: bool,
    batch: usize,
    scale: f32,
) -> PolicyLoss {
    let len = logits.len() / batch;
    let (loss, entropy) = logits
        .par_chunks_mut(len)
        .zip(mask.par_chunks(len))
        .zip(targets.par_chunks(len))
        .map_init(
            || vec![0.0f32; len],
            |logp, ((x, m), t)| {
                log_softmax(x.iter().zip(m).map(|(a, b)| a + b), logp);
                let entropy = -logp.iter().map(|&l| l.exp() * l).sum::<f32>();
                if !over_legal {
                    log_softmax(x.iter().copied(), logp);
                }
                let total: f32 = t.iter().sum();
                let mut loss = 0.0f32;
                for ((g, &l), &t) in x.iter_mut().zip(logp.iter()).zip(t) {
                    loss -= t * l;
                    *g = (l.exp() * total - t) * scale / batch as f32;
                }
                (loss as f64, entropy as f64)
            },
        )
        .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    PolicyLoss {
        loss: loss / batch as f64,
        entropy: entropy / batch as f64,
    }
}

/// Weighted mean WDL cross-entropy `sum_b w_b CE_b / max(sum_b w_b, 1)`
/// of `wdl` logits (`[B, 3]`) against `targets` (`[B, 3]`); the logits
/// are replaced by the loss's gradient scaled by `scale`.
pub(crate) fn value(wdl: &mut [f32], targets: &[f32], weights: &[f32], scale: f32) -> f64 {
    let denom = weights.iter().sum::<f32>().max(1.0);
    let mut loss = 0.0f64;
    let mut logq = [0.0f32; 3];
    for ((x, t), &w) in wdl
        .chunks_exact_mut(3)
        .zip(targets.chunks_exact(3))
        .zip(weights)
    {
        log_softmax(x.iter().copied(), &mut logq);
        let total: f32 = t.iter().sum();
        for ((g, &l), &t) in x.iter_mut().zip(&logq).zip(t) {
            loss -= (w * t * l) as f64;
            *g = w / denom * (l.exp() * total - t) * scale;
        }
    }
    loss / denom as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradient_matches_finite_differences() {
        let x0 = [0.3f32, -1.2, 0.7, 2.0, 0.1, -0.4];
        let mask = [0.0, 0.0, -1.0e4, 0.0, 0.0, 0.0];
        let t = [0.5, 0.5, 0.0, 0.0, 1.0, 0.0];
        let mut g = x0;
        let base = policy(&mut g, &mask, &t, true, 2, 1.0).loss;
        for j in [0usize, 1, 3, 4] {
            let mut x = x0;
            x[j] += 1e-2;
            let up = policy(&mut x, &mask, &t, true, 2, 1.0).loss;
            assert!(((up - base) / 1e-2 - g[j] as f64).abs() < 1e-2, "{j}");
        }
    }
}
