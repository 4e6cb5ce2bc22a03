//! The arithmetic of Gumbel AlphaZero's root search (Danihelka, Guez,
//! Schrittwieser, Silver, ICLR 2022, "Policy improvement by planning with
//! Gumbel"), as pure functions over the root's children so it can be tested
//! on hand-built numbers:
//!
//! - [`sequential_halving`] / [`considered_visit`]: the visit schedule of
//!   sequential halving (the paper's section 3.2; the schedule of mctx's
//!   `seq_halving.get_sequence_of_considered_visits`);
//! - [`mixed_value`], [`completed_q`], [`sigma_scale`]: completed Q-values
//!   with the mixed value `v_mix` of the paper's appendix D and the
//!   monotone transform `sigma` of its eq. 8 (mctx
//!   `qtransform_completed_by_mix_value`);
//! - [`improved_policy`]: the policy target `pi' = softmax(logits + sigma(completedQ))`
//!   (the paper's eq. 11);
//! - [`logit`]: a prior probability as a logit.
//!
//! The tree ([`crate::Mcts`]) uses them when its root selection is
//! [`crate::RootSelection::Gumbel`].

/// Scores below this are clamped to it before the argmax (mctx
/// `score_considered`'s `low_logit`), so `-inf` logits still order by Q.
pub(crate) const LOW_SCORE: f32 = -1e9;

/// The logit of a prior probability: `ln(max(p, f32::MIN_POSITIVE))` (mctx
/// `_get_logits_from_probs`). A softmax of these gives back the priors.
pub fn logit(prior: f32) -> f32 {
    if prior.is_finite() {
        prior.max(f32::MIN_POSITIVE).ln()
    } else {
        f32::MIN_POSITIVE.ln()
    }
}

/// One phase of sequential halving: `actions` actions each get
/// `visits_per_action` visits, `simulations` in all (the last phase may be
/// cut short by the budget; its visits then go round-robin from the best
/// action down).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HalvingPhase {
    /// Actions still considered in this phase.
    pub actions: u32,
    /// Visits each of them gets in a full phase: `max(1, floor(n / (ceil(log2 m) * actions)))`.
    pub visits_per_action: u32,
    /// Simulations actually spent in this phase (`actions * visits_per_action`,
    /// or fewer for a phase cut short by the budget).
    pub simulations: u32,
}

/// `ceil(log2(m))` for `m >= 2`.
fn ceil_log2(m: u32) -> u64 {
    u64::from(32 - (m - 1).leading_zeros())
}

/// The sequential-halving schedule of `n` simulations over `m` considered
/// actions, phase by phase (the paper's section 3.2, exactly as mctx's
/// `get_sequence_of_considered_visits`): `ceil(log2 m)` phases, the phase
/// with `k` remaining actions giving each `max(1, floor(n / (ceil(log2 m) * k)))`
/// visits, then halving `k` (never below 2); if simulations remain after
/// the last halving, further phases with 2 actions follow until `n` is
/// spent. For `m <= 1` a single phase gives the one action all `n` visits.
/// Empty when `n == 0`.
///
/// Example: `n = 32, m = 4` gives phases `(4 actions x 4 visits)`,
/// `(2 x 8)`: the two best actions end with 12 visits, the others with 4.
pub fn sequential_halving(m: u32, n: u32) -> Vec<HalvingPhase> {
    let mut phases = Vec::new();
    if n == 0 {
        return phases;
    }
    if m <= 1 {
        phases.push(HalvingPhase {
            actions: 1,
            visits_per_action: n,
            simulations: n,
        });
        return phases;
    }
    let log2m = ceil_log2(m);
    let (n, mut k) = (u64::from(n), u64::from(m));
    let mut spent = 0u64;
    while spent < n {
        let per = (n / (log2m * k)).max(1);
        let sims = (per * k).min(n - spent);
        phases.push(HalvingPhase {
            actions: k as u32,
            visits_per_action: per as u32,
            simulations: sims as u32,
        });
        spent += sims;
        k = (k / 2).max(2);
    }
    phases
}

/// The visit count an action must have to be chosen at simulation `index`
/// (0-based: the number of root-child visits so far) of sequential halving
/// with `m` considered actions and budget `n`: mctx's
/// `get_sequence_of_considered_visits(m, n)[index]`. Past `n` the schedule
/// continues as the generator would (2 actions, alternating), so an
/// over-long search stays well defined. For `m <= 1` it is `index`.
pub fn considered_visit(m: u32, n: u32, index: u64) -> u32 {
    if m <= 1 {
        return u32::try_from(index).unwrap_or(u32::MAX);
    }
    let log2m = ceil_log2(m);
    let n = u64::from(n);
    let (mut k, mut start, mut base) = (u64::from(m), 0u64, 0u64);
    loop {
        let per = (n / (log2m * k)).max(1);
        let len = per * k;
        // With 2 actions every later phase repeats this one: one long phase.
        if index < start + len || k == 2 {
            let v = base + (index - start) / k;
            return u32::try_from(v).unwrap_or(u32::MAX);
        }
        start += len;
        base += per;
        k = (k / 2).max(2);
    }
}

/// The mixed value `v_mix` of the paper's appendix D (eq. 33), an estimate
/// of the root value that completes the Q-values of unvisited actions:
///
/// `v_mix = (v_hat + (sum_b N(b)) / (sum_{b: N(b) > 0} pi(b)) * sum_{a: N(a) > 0} pi(a) q(a)) / (1 + sum_b N(b))`
///
/// - `raw_value`: `v_hat`, the network's value of the root (`W - L`, root's
///   side to move);
/// - `priors`: `pi`, the prior probabilities of the root's children (each
///   floored at `f32::MIN_POSITIVE` as mctx does);
/// - `visits`: `N` per child; `q`: the child's mean value from the root's
///   side to move (ignored where `N = 0`).
///
/// With no visited child it is `raw_value`.
pub fn mixed_value(raw_value: f32, priors: &[f32], visits: &[u32], q: &[f32]) -> f32 {
    let mut sum_n = 0f64;
    let mut sum_p = 0f64;
    let mut sum_pq = 0f64;
    for ((&p, &n), &q) in priors.iter().zip(visits).zip(q) {
        if n > 0 {
            let p = f64::from(p.max(f32::MIN_POSITIVE));
            sum_n += f64::from(n);
            sum_p += p;
            sum_pq += p * f64::from(q);
        }
    }
    if sum_n == 0.0 {
        return raw_value;
    }
    let weighted_q = sum_pq / sum_p;
    ((f64::from(raw_value) + sum_n * weighted_q) / (sum_n + 1.0)) as f32
}

/// Completed Q-values `q_hat` in `[0, 1]`, one per child: `q(a)` for a
/// visited child, [`mixed_value`] for an unvisited one (the paper's eq. 10
/// with appendix D; mctx `qtransform_completed_by_mix_value`), then
/// normalised: with `rescale`, by the min and max over the children,
/// `(x - min) / max(max - min, 1e-8)` (mctx `rescale_values=True`);
/// without, linearly from `[-1, 1]` by `(x + 1) / 2`.
///
/// Arguments as for [`mixed_value`]; all slices have one entry per child.
pub fn completed_q(
    raw_value: f32,
    priors: &[f32],
    visits: &[u32],
    q: &[f32],
    rescale: bool,
) -> Vec<f32> {
    let v_mix = mixed_value(raw_value, priors, visits, q);
    let completed: Vec<f32> = visits
        .iter()
        .zip(q)
        .map(|(&n, &q)| if n > 0 { q } else { v_mix })
        .collect();
    if rescale {
        let min = completed.iter().copied().fold(f32::INFINITY, f32::min);
        let max = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let range = (max - min).max(1e-8);
        completed.iter().map(|x| (x - min) / range).collect()
    } else {
        completed.iter().map(|x| (x + 1.0) / 2.0).collect()
    }
}

/// The factor of the paper's eq. 8, `sigma(q_hat) = (c_visit + max_b N(b)) * c_scale * q_hat`:
/// returns `(c_visit + max_visits) * c_scale`.
pub fn sigma_scale(c_visit: f32, c_scale: f32, max_visits: u32) -> f32 {
    (c_visit + max_visits as f32) * c_scale
}

/// The improved policy `pi' = softmax(logits + sigma(completed_q))` (the
/// paper's eq. 11), the Gumbel policy target: `logits` and `completed_q`
/// per child (from [`logit`] and [`completed_q`]), `scale` from
/// [`sigma_scale`]. Sums to 1; empty for no children.
pub fn improved_policy(logits: &[f32], completed_q: &[f32], scale: f32) -> Vec<f32> {
    let z: Vec<f64> = logits
        .iter()
        .zip(completed_q)
        .map(|(&l, &q)| f64::from(l) + f64::from(scale) * f64::from(q))
        .collect();
    let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exp: Vec<f64> = z.iter().map(|x| (x - max).exp()).collect();
    let sum: f64 = exp.iter().sum();
    exp.iter().map(|e| (e / sum) as f32).collect()
}
