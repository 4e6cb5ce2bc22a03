//! Gumbel AlphaZero's root (Danihelka et al., ICLR 2022, "Policy
//! improvement by planning with Gumbel"; mctx `gumbel_muzero_policy`):
//! Gumbel-top-k sampling of the considered actions, sequential halving
//! over them, the improved policy as target and the paper's action to
//! play. See [`RootSelection::Gumbel`]; the arithmetic is in
//! [`crate::gumbel`].

use rand::Rng;
use rand_distr::{Distribution, Gumbel};

use super::puct::select_puct;
use super::{RootPolicy, RootSelection, RootView};
use crate::gumbel;
use crate::node::Node;

/// The Gumbel root: its parameters and this search's samples.
#[derive(Clone, Debug)]
pub(crate) struct GumbelRoot {
    /// Number of actions sampled at the root.
    m: u32,
    /// `c_visit` of `sigma`.
    c_visit: f32,
    /// `c_scale` of `sigma`.
    c_scale: f32,
    /// Min-max normalise the completed Q-values.
    rescale_q: bool,
    /// This search's samples, once the root is expanded and prepared.
    samples: Option<Samples>,
}

/// One search's samples, aligned with the root's children.
#[derive(Clone, Debug)]
struct Samples {
    /// Gumbel noise per child (zeros when root noise is off).
    g: Vec<f32>,
    /// `ln(prior)` per child, from the priors at preparation.
    logits: Vec<f32>,
    /// Child offsets (from `first_child`) of the considered actions, best
    /// `g + logits` first.
    considered: Vec<u32>,
}

impl GumbelRoot {
    /// A Gumbel root with the parameters of [`RootSelection::Gumbel`].
    pub fn new(m: u32, c_visit: f32, c_scale: f32, rescale_q: bool) -> GumbelRoot {
        GumbelRoot {
            m,
            c_visit,
            c_scale,
            rescale_q,
            samples: None,
        }
    }

    /// `sigma(q_hat)` per root child: the paper's eq. 8 applied to the
    /// completed Q of its eq. 10 (appendix D's mixed value for unvisited
    /// children).
    fn sigma_q(&self, view: &RootView<'_>) -> Vec<f32> {
        let priors: Vec<f32> = view.children().map(|c| view.nodes[c].prior).collect();
        let visits = view.child_visits();
        let q: Vec<f32> = view.children().map(|c| view.child_q(c)).collect();
        let raw = view.raw_value.or_else(|| view.root().q()).unwrap_or(0.0);
        let completed = gumbel::completed_q(raw, &priors, &visits, &q, self.rescale_q);
        let max_visits = visits.iter().copied().max().unwrap_or(0);
        let scale = gumbel::sigma_scale(self.c_visit, self.c_scale, max_visits);
        completed.iter().map(|x| scale * x).collect()
    }

    /// The score `max(-1e9, g + logits + sigma(q_hat))` of child offset
    /// `o` (mctx `score_considered`), `g` and `logits` this search's samples,
    /// or `g = 0` and the current prior's logit before any were drawn.
    fn score(&self, view: &RootView<'_>, sigma: &[f32], o: usize) -> f32 {
        let perturbed = match &self.samples {
            Some(s) => s.g[o] + s.logits[o],
            None => gumbel::logit(view.nodes[view.root().first_child as usize + o].prior),
        };
        (perturbed + sigma[o]).max(gumbel::LOW_SCORE)
    }

    /// The child offset among `offsets` with the largest [`GumbelRoot::score`]
    /// (ties: the smallest offset, i.e. legal order).
    fn best_scored(
        &self,
        view: &RootView<'_>,
        offsets: impl Iterator<Item = usize>,
    ) -> Option<usize> {
        let sigma = self.sigma_q(view);
        let mut best: Option<(usize, f32)> = None;
        for o in offsets {
            let score = self.score(view, &sigma, o);
            let better = match best {
                None => true,
                Some((b, s)) => score > s || (score == s && o < b),
            };
            if better {
                best = Some((o, score));
            }
        }
        best.map(|(o, _)| o)
    }

    /// The paper's action (section 4; mctx `gumbel_muzero_policy`): among
    /// the root children with the most visits, the one with the largest
    /// score ([`GumbelRoot::score`]; ties: legal order). `None` for an
    /// unexpanded or terminal root.
    pub fn action(&self, view: &RootView<'_>) -> Option<usize> {
        let visits = view.child_visits();
        let max_visits = visits.iter().copied().max()?;
        let most_visited = (0..visits.len()).filter(|&o| visits[o] == max_visits);
        let best = self.best_scored(view, most_visited)?;
        Some(view.root().first_child as usize + best)
    }

    /// Sequential halving with Gumbel (mctx
    /// `gumbel_muzero_root_action_selection`): among the considered children
    /// whose visits (completed plus in flight) equal the scheduled
    /// [`gumbel::considered_visit`] for the current simulation index (the
    /// sum of those counts over all children), the one with the largest
    /// score ([`GumbelRoot::score`]; ties: legal order). If none has the
    /// scheduled count (cannot happen from a fresh tree), those with the
    /// fewest visits compete instead.
    fn select_halving(&self, view: &RootView<'_>, samples: &Samples) -> usize {
        let first = view.root().first_child as usize;
        let count = |c: usize| view.nodes[c].visits + view.nodes[c].in_flight;
        let index: u64 = view.children().map(|c| u64::from(count(c))).sum();
        let m_eff = self.m.min(view.root().num_children);
        let target = gumbel::considered_visit(m_eff, view.simulations.saturating_sub(1), index);
        let considered = || samples.considered.iter().map(|&o| o as usize);
        let wanted = if considered().any(|o| count(first + o) == target) {
            target
        } else {
            considered().map(|o| count(first + o)).min().unwrap_or(0)
        };
        let candidates = considered().filter(|&o| count(first + o) == wanted);
        first + self.best_scored(view, candidates).unwrap_or(0)
    }
}

impl RootPolicy for GumbelRoot {
    fn selection(&self) -> RootSelection {
        RootSelection::Gumbel {
            m: self.m,
            c_visit: self.c_visit,
            c_scale: self.c_scale,
            rescale_q: self.rescale_q,
        }
    }

    fn reset(&mut self) {
        self.samples = None;
    }

    /// No: each search of the paper starts from a fresh tree, so the
    /// halving schedule counts from zero.
    fn keeps_subtree(&self) -> bool {
        false
    }

    /// Draw this search's samples: logits, Gumbel noise (when exploring)
    /// and the considered actions (Gumbel-top-k by `g + logits`).
    fn prepare<R: Rng + ?Sized>(&mut self, nodes: &mut [Node], explore: bool, rng: &mut R) {
        let logits: Vec<f32> = nodes[0]
            .children()
            .map(|c| gumbel::logit(nodes[c].prior))
            .collect();
        let g: Vec<f32> = match (explore, Gumbel::new(0.0f32, 1.0f32)) {
            (true, Ok(dist)) => logits.iter().map(|_| dist.sample(rng)).collect(),
            _ => vec![0.0; logits.len()],
        };
        let mut order: Vec<u32> = (0..logits.len() as u32).collect();
        let key = |o: &u32| g[*o as usize] + logits[*o as usize];
        // Stable sort: ties keep legal order.
        order.sort_by(|a, b| key(b).total_cmp(&key(a)));
        order.truncate(self.m.max(1) as usize);
        self.samples = Some(Samples {
            g,
            logits,
            considered: order,
        });
    }

    /// Sequential halving once the samples are drawn. Before that (a root
    /// expanded by a decisive move within the same batch of descents, or a
    /// policy switched in mid-search), the PUCT root's choice.
    fn select(&self, view: &RootView<'_>) -> usize {
        match &self.samples {
            Some(samples) => self.select_halving(view, samples),
            None => select_puct(view),
        }
    }

    /// The visits as they are (nothing is forced).
    fn visit_counts(&self, view: &RootView<'_>) -> Vec<u32> {
        view.child_visits()
    }

    /// The improved policy `softmax(logits + sigma(q_hat))` (the paper's
    /// eq. 11) over all root children, logits of the current priors.
    fn policy_target(&self, view: &RootView<'_>) -> Vec<f32> {
        let logits: Vec<f32> = view
            .children()
            .map(|c| gumbel::logit(view.nodes[c].prior))
            .collect();
        gumbel::improved_policy(&logits, &self.sigma_q(view), 1.0)
    }

    /// The paper's action ([`GumbelRoot::action`]), already a sample when
    /// its noise is on: the temperature `t` is ignored.
    fn choose<R: Rng + ?Sized>(&self, view: &RootView<'_>, _t: f32, _rng: &mut R) -> Option<usize> {
        self.action(view)
    }
}
