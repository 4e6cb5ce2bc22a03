//! KataGo's forced playouts and policy target pruning (Wu 2019,
//! "Accelerating Self-Play Learning in Go", section 3.1), PUCT root only:
//! while exploring, every root child the noise made worth a look gets a
//! minimum number of visits, and those extra visits are taken out of the
//! policy target again so the network does not learn the noise.

use crate::root::RootView;
use crate::tree::most_visited;

/// `n_forced(c) = sqrt(k * P(c) * sum_b N(b))`, the visits child `c` is
/// forced up to (`sum_visits` the completed visits of all root children).
fn n_forced(k: f32, prior: f32, sum_visits: f32) -> f32 {
    (k * prior * sum_visits).sqrt()
}

/// The forced child, if any: the first root child (legal order) with at
/// least one completed visit and `N(c) < n_forced(c)`, `N(c)` counting
/// `virtual_loss` per in-flight descent as PUCT does.
pub(super) fn forced_child(view: &RootView<'_>) -> Option<usize> {
    let k = view.config.forced_playouts_k;
    let vl = view.config.virtual_loss;
    let sum_visits: f32 = view.children().map(|c| view.nodes[c].visits as f32).sum();
    view.children().find(|&c| {
        let child = &view.nodes[c];
        let n_eff = child.visits as f32 + vl * child.in_flight as f32;
        child.visits > 0 && n_eff < n_forced(k, child.prior, sum_visits)
    })
}

/// Root child visit counts after policy target pruning. Pruning keeps the
/// most visited child `c*` and takes from every other child `c` as many
/// visits `d <= n_forced(c)` as possible while `PUCT(c) < PUCT(c*)` still
/// holds with `N(c) - d` visits, where
/// `PUCT(x) = Q(x) + c_puct * P(x) * sqrt(N_root) / (1 + N(x))` with the
/// final counts (no first-play urgency: unvisited children stay at 0). A
/// child left with a single visit after losing some is pruned to 0.
pub(super) fn pruned_visits(view: &RootView<'_>) -> Vec<u32> {
    let raw = view.child_visits();
    let Some(best) = most_visited(view.nodes, 0) else {
        return raw;
    };
    let first = view.root().first_child as usize;
    let c_puct = view.config.c_puct;
    let sqrt_root = (view.root().visits as f32).sqrt();
    let sum_visits: f32 = raw.iter().map(|&v| v as f32).sum();
    let star = &view.nodes[best];
    let puct_star =
        view.child_q(best) + c_puct * star.prior * sqrt_root / (1.0 + star.visits as f32);
    raw.iter()
        .enumerate()
        .map(|(i, &n)| {
            let c = first + i;
            if c == best || n == 0 {
                return n;
            }
            let prior = view.nodes[c].prior;
            let n_forced = n_forced(view.config.forced_playouts_k, prior, sum_visits);
            let gap = puct_star - view.child_q(c);
            kept_visits(n, n_forced, c_puct * prior * sqrt_root, gap)
        })
        .collect()
}

/// The visits a child keeps out of its `n`: at most `n_forced` are cut,
/// and only while its PUCT score, `Q + exploration / (1 + n')` with `n'`
/// the kept visits, stays below `PUCT(c*)`, `gap` being `PUCT(c*) - Q`.
fn kept_visits(n: u32, n_forced: f32, exploration: f32, gap: f32) -> u32 {
    let max_cut = n_forced.floor().min(n as f32) as u32;
    if gap.is_nan() || gap <= 0.0 || max_cut == 0 {
        return n;
    }
    // PUCT(c) with n' visits < PUCT(c*)  <=>  n' > c_puct * P(c) * sqrt(N_root) / gap - 1.
    let bound = exploration / gap - 1.0;
    let min_keep = if bound < 0.0 {
        0
    } else if bound >= n as f32 {
        n
    } else {
        bound.floor() as u32 + 1
    };
    let kept = min_keep.max(n - max_cut).min(n);
    // A lone visit left is noise, not evidence: drop it.
    if kept < n && kept <= 1 {
        0
    } else {
        kept
    }
}
