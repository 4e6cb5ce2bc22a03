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

/// A mask value at or below this marks an illegal action (the mask is 0
/// or `samples::ILLEGAL_LOGIT`, -1e4): its softmax probability is 0 in
/// `f32`, so it is skipped rather than passed to `exp`, whose underflow
/// path is slow.
const ILLEGAL: f32 = -1.0e3;

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
    let scale = scale / batch as f32;
    let (loss, entropy) = logits
        .par_chunks_mut(len)
        .zip(mask.par_chunks(len))
        .zip(targets.par_chunks(len))
        .map(|((x, m), t)| {
            // A position without a legal action in its mask (none has
            // one in practice) takes the softmax over every masked logit,
            // as burn's does: all are then equally far below the rest.
            let cut = if m.iter().any(|&m| m > ILLEGAL) {
                ILLEGAL
            } else {
                f32::NEG_INFINITY
            };
            let (entropy, legal_log_sum, legal_max) = legal_softmax(x, m, cut);
            let total: f32 = t.iter().sum();
            let mut loss = 0.0f32;
            if over_legal {
                for ((g, &m), &t) in x.iter_mut().zip(m).zip(t) {
                    let l = *g + m - legal_max - legal_log_sum;
                    let p = if m <= cut { 0.0 } else { l.exp() };
                    if t != 0.0 {
                        loss -= t * l;
                    }
                    *g = (p * total - t) * scale;
                }
            } else {
                let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let log_sum = x.iter().map(|v| (v - max).exp()).sum::<f32>().ln();
                for (g, &t) in x.iter_mut().zip(t) {
                    let l = *g - max - log_sum;
                    loss -= t * l;
                    *g = (l.exp() * total - t) * scale;
                }
            }
            (loss as f64, entropy as f64)
        })
        .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    PolicyLoss {
        loss: loss / batch as f64,
        entropy: entropy / batch as f64,
    }
}

/// The softmax of `x + m` over the actions with `m > cut` (the legal
/// ones for `cut = ILLEGAL`): its entropy, log normaliser and the maximum
/// it was taken from (`log p_i = x_i + m_i - max - log_sum`).
fn legal_softmax(x: &[f32], m: &[f32], cut: f32) -> (f32, f32, f32) {
    let max = x
        .iter()
        .zip(m)
        .filter(|(_, &m)| m > cut)
        .map(|(x, m)| x + m)
        .fold(f32::NEG_INFINITY, f32::max);
    let (mut sum, mut weighted) = (0.0f32, 0.0f32);
    for (x, &m) in x.iter().zip(m) {
        if m > cut {
            let d = x + m - max;
            let e = d.exp();
            sum += e;
            weighted += e * d;
        }
    }
    let log_sum = sum.ln();
    // H = -sum p log p with p = e / sum, log p = d - log_sum.
    (log_sum - weighted / sum, log_sum, max)
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
    fn a_position_without_legal_actions_takes_the_full_softmax() {
        let x = [0.3f32, -1.2, 0.7];
        let t = [1.0, 0.0, 0.0];
        let (mut masked, mut plain) = (x, x);
        let a = policy(&mut masked, &[-1.0e4; 3], &t, true, 1, 1.0);
        let b = policy(&mut plain, &[0.0; 3], &t, true, 1, 1.0);
        // Within f32's resolution at -1e4 (about 1e-3), as in burn.
        assert!((a.loss - b.loss).abs() < 5e-3 && (a.entropy - b.entropy).abs() < 5e-3);
        assert!(masked.iter().zip(&plain).all(|(m, p)| (m - p).abs() < 5e-3));
    }

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
