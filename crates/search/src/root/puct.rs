//! AlphaZero's PUCT root (Silver et al. 2018): the inner nodes' PUCT rule
//! at the root too, with Dirichlet noise on the priors while exploring and,
//! optionally, KataGo's forced playouts; visit counts are the policy
//! target and, at a temperature, the distribution the move is drawn from.

use rand::Rng;

use super::{dirichlet, forced, RootPolicy, RootSelection, RootView};
use crate::config::SearchConfig;
use crate::node::Node;
use crate::tree::{most_visited, puct_child};

/// The PUCT root; it keeps no per-search state (its noise goes into the
/// priors themselves).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PuctRoot {
    /// `alpha` of the Dirichlet noise ([`SearchConfig::dirichlet_alpha`]).
    alpha: f32,
    /// Weight of the noise in the priors ([`SearchConfig::dirichlet_epsilon`]).
    epsilon: f32,
}

impl PuctRoot {
    /// A PUCT root with the noise parameters of `config`.
    pub fn new(config: &SearchConfig) -> PuctRoot {
        PuctRoot {
            alpha: config.dirichlet_alpha,
            epsilon: config.dirichlet_epsilon,
        }
    }
}

/// The PUCT child choice at the root: with forced playouts on while
/// exploring (KataGo), a child short of its forced visits first; otherwise
/// the PUCT rule of every inner node.
pub(super) fn select_puct(view: &RootView<'_>) -> usize {
    let forcing = view.config.forced_playouts && view.explore;
    forcing
        .then(|| forced::forced_child(view))
        .flatten()
        .unwrap_or_else(|| puct_child(view.nodes, 0, view.config))
}

impl RootPolicy for PuctRoot {
    fn selection(&self) -> RootSelection {
        RootSelection::Puct
    }

    fn reset(&mut self) {}

    /// The subtree under the played move holds valid PUCT statistics.
    fn keeps_subtree(&self) -> bool {
        true
    }

    /// Dirichlet noise on the root priors when exploring.
    fn prepare<R: Rng + ?Sized>(&mut self, nodes: &mut [Node], explore: bool, rng: &mut R) {
        if explore {
            dirichlet::mix_into_root(nodes, self.alpha, self.epsilon, rng);
        }
    }

    fn select(&self, view: &RootView<'_>) -> usize {
        select_puct(view)
    }

    /// Pruned by KataGo's policy target pruning when forced playouts are
    /// configured (whether or not this search explored), raw otherwise.
    fn visit_counts(&self, view: &RootView<'_>) -> Vec<u32> {
        if view.config.forced_playouts {
            forced::pruned_visits(view)
        } else {
            view.child_visits()
        }
    }

    /// The visit counts normalised (AlphaZero); uniform before any visit.
    fn policy_target(&self, view: &RootView<'_>) -> Vec<f32> {
        let counts = self.visit_counts(view);
        let total: f64 = counts.iter().map(|&v| f64::from(v)).sum();
        let n = counts.len() as f32;
        counts
            .iter()
            .map(|&v| {
                if total > 0.0 {
                    (f64::from(v) / total) as f32
                } else {
                    1.0 / n
                }
            })
            .collect()
    }

    /// The most visited child at temperature 0 (or before any visit);
    /// otherwise drawn with probability proportional to `N(a)^(1 / t)`
    /// (Silver et al. 2018) over [`RootPolicy::visit_counts`].
    fn choose<R: Rng + ?Sized>(&self, view: &RootView<'_>, t: f32, rng: &mut R) -> Option<usize> {
        let best = most_visited(view.nodes, 0)?;
        let greedy = !(t > 0.0 && t.is_finite());
        if greedy || view.nodes[best].visits == 0 {
            return Some(best);
        }
        let counts = self.visit_counts(view);
        let first = view.root().first_child as usize;
        Some(sample_by_visits(&counts, t, rng).map_or(best, |i| first + i))
    }
}

/// An index drawn with probability proportional to `counts[i]^(1 / t)`;
/// `None` if the draw falls past every positive weight (rounding).
fn sample_by_visits<R: Rng + ?Sized>(
    counts: &[u32],
    temperature: f32,
    rng: &mut R,
) -> Option<usize> {
    let max_visits = counts.iter().copied().max().unwrap_or(0).max(1);
    // Weights N^(1/t) scaled by max N^(1/t), computed in logs to avoid overflow.
    let inv_t = 1.0 / f64::from(temperature);
    let ln_max = f64::from(max_visits).ln();
    let weights: Vec<f64> = counts
        .iter()
        .map(|&v| {
            if v == 0 {
                0.0
            } else {
                ((f64::from(v).ln() - ln_max) * inv_t).exp()
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.random::<f64>() * total;
    for (i, &w) in weights.iter().enumerate() {
        if w > 0.0 {
            if x < w {
                return Some(i);
            }
            x -= w;
        }
    }
    None
}
