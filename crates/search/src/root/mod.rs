//! Root policies: how the root of a search picks the child to descend
//! into, what it reports as the policy target and which action it plays.
//! Inner nodes always use PUCT ([`crate::tree`]'s selection).
//!
//! Composed as in mctx's `policies.py`: each policy is one file behind the
//! [`RootPolicy`] trait, and the tree holds a [`Root`], the closed set of
//! policies, which forwards every call to the one it holds. The tree never
//! asks which policy it has.
//!
//! - [`puct`]: AlphaZero's PUCT root with Dirichlet noise ([`dirichlet`])
//!   and KataGo's forced playouts and policy target pruning ([`forced`]);
//! - [`gumbel`]: Gumbel AlphaZero's root (Danihelka et al. 2022), whose
//!   arithmetic is in [`crate::gumbel`].

mod dirichlet;
mod forced;
mod gumbel;
mod puct;

use std::ops::Range;

use rand::Rng;

use crate::config::SearchConfig;
use crate::node::Node;

pub(crate) use gumbel::GumbelRoot;
use puct::PuctRoot;

/// How the root picks the child to descend into (inner nodes always use PUCT).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub enum RootSelection {
    /// The same PUCT rule as every inner node (AlphaZero), with Dirichlet
    /// root noise and optionally KataGo's forced playouts.
    #[default]
    Puct,
    /// Gumbel AlphaZero (Danihelka et al., ICLR 2022, "Policy improvement by
    /// planning with Gumbel"; reference implementation mctx
    /// `gumbel_muzero_policy`):
    ///
    /// - at the first step after the root's evaluation, Gumbel noise
    ///   `g(a) ~ Gumbel(0, 1)` is drawn per root action when root noise is on
    ///   (`g = 0` otherwise, mctx `gumbel_scale = 0`), and the `min(m, legal)`
    ///   actions with the largest `g + logits` are considered (Gumbel-top-k);
    /// - sequential halving ([`crate::sequential_halving`]) spreads the
    ///   `simulations - 1` root-child visits of the search (the first
    ///   simulation evaluates the root; the budget is the search's node
    ///   limit, [`crate::Budget::nodes`]) over
    ///   them: a descent goes to the considered action with the
    ///   scheduled visit count ([`crate::considered_visit`]) and the largest
    ///   `g + logits + sigma(q_hat)`, `q_hat` the completed Q
    ///   ([`crate::completed_q`]), `sigma(q) = (c_visit + max_b N(b)) * c_scale * q`;
    /// - [`crate::Mcts::policy_target`] is the improved policy
    ///   `softmax(logits + sigma(q_hat))` over all legal actions, and
    ///   [`crate::Mcts::choose_action`] the paper's action: among the most visited
    ///   actions, the largest `g + logits + sigma(q_hat)`.
    ///
    /// Logits are `ln(prior)`; no Dirichlet noise is mixed into the priors.
    /// Each search starts from a fresh tree ([`crate::Mcts::advance`] keeps no
    /// subtree), as in the paper, so the schedule counts from zero.
    Gumbel {
        /// Number of actions sampled at the root (`>= 1`; paper: 16).
        m: u32,
        /// `c_visit` of `sigma` (paper: 50).
        c_visit: f32,
        /// `c_scale` of `sigma` (paper: 1.0).
        c_scale: f32,
        /// Min-max normalise the completed Q-values (mctx default) rather
        /// than map `[-1, 1]` to `[0, 1]` linearly.
        rescale_q: bool,
    },
}

/// What a root policy reads of the tree: the arena, whose index 0 is the
/// root, and this search's settings.
#[derive(Clone, Copy)]
pub(crate) struct RootView<'a> {
    /// The arena; `nodes[0]` is the root.
    pub nodes: &'a [Node],
    /// The search's settings.
    pub config: &'a SearchConfig,
    /// Root exploration on for this search ([`crate::Mcts::exploration`]).
    pub explore: bool,
    /// Root visits the search will reach (the batched step's node limit; 0 = unset).
    pub simulations: u32,
    /// The network's value (`W - L`, root's side to move) of the root, once evaluated.
    pub raw_value: Option<f32>,
}

impl RootView<'_> {
    /// The root node.
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// Arena indices of the root's children, in legal-action order.
    pub fn children(&self) -> Range<usize> {
        self.nodes[0].children()
    }

    /// Mean value of child `c` for the root's side to move, 0 if unvisited.
    pub fn child_q(&self, c: usize) -> f32 {
        let viewer = self.nodes[0].to_move;
        self.nodes[c].seen_by(viewer).q().unwrap_or(0.0)
    }

    /// Completed visits of each root child, in legal-action order.
    pub fn child_visits(&self) -> Vec<u32> {
        self.children().map(|c| self.nodes[c].visits).collect()
    }
}

/// One root policy. Child results are arena indices; the tree maps them
/// to actions. Per-search state (noise, samples) lives in the policy and
/// is dropped by [`RootPolicy::reset`] when the root changes.
pub(crate) trait RootPolicy {
    /// The public description of this policy.
    fn selection(&self) -> RootSelection;

    /// Forget the per-search state: the root is new.
    fn reset(&mut self);

    /// Whether [`crate::Mcts::advance`] keeps the played child's subtree.
    fn keeps_subtree(&self) -> bool;

    /// Prepare the search once the root is expanded (its noise, its
    /// samples), writing root priors where the policy perturbs them.
    fn prepare<R: Rng + ?Sized>(&mut self, nodes: &mut [Node], explore: bool, rng: &mut R);

    /// The root child the next descent goes to.
    fn select(&self, view: &RootView<'_>) -> usize;

    /// Root child visit counts as the targets and temperature sampling see
    /// them ([`crate::Mcts::pruned_root_visits`]).
    fn visit_counts(&self, view: &RootView<'_>) -> Vec<u32>;

    /// The policy target per root child, summing to 1 (root expanded).
    fn policy_target(&self, view: &RootView<'_>) -> Vec<f32>;

    /// The root child to play at temperature `t` (root expanded); `None`
    /// only when there is none.
    fn choose<R: Rng + ?Sized>(&self, view: &RootView<'_>, t: f32, rng: &mut R) -> Option<usize>;
}

/// The root policy a tree holds: one of the policies above.
#[derive(Clone, Debug)]
pub(crate) enum Root {
    /// AlphaZero's PUCT root ([`puct`]).
    Puct(PuctRoot),
    /// Gumbel AlphaZero's root ([`gumbel`]).
    Gumbel(GumbelRoot),
}

/// Forward a call to the policy a [`Root`] holds.
macro_rules! forward {
    ($root:expr, $policy:ident => $call:expr) => {
        match $root {
            Root::Puct($policy) => $call,
            Root::Gumbel($policy) => $call,
        }
    };
}

impl Root {
    /// The policy described by `selection` (a PUCT root takes its noise
    /// parameters from `config`), with no per-search state yet.
    pub fn new(selection: RootSelection, config: &SearchConfig) -> Root {
        match selection {
            RootSelection::Puct => Root::Puct(PuctRoot::new(config)),
            RootSelection::Gumbel {
                m,
                c_visit,
                c_scale,
                rescale_q,
            } => Root::Gumbel(GumbelRoot::new(m, c_visit, c_scale, rescale_q)),
        }
    }

    /// The Gumbel root, if that is the policy ([`crate::Mcts::gumbel_action`]).
    pub fn gumbel(&self) -> Option<&GumbelRoot> {
        match self {
            Root::Gumbel(g) => Some(g),
            Root::Puct(_) => None,
        }
    }
}

impl RootPolicy for Root {
    fn selection(&self) -> RootSelection {
        forward!(self, p => p.selection())
    }

    fn reset(&mut self) {
        forward!(self, p => p.reset())
    }

    fn keeps_subtree(&self) -> bool {
        forward!(self, p => p.keeps_subtree())
    }

    fn prepare<R: Rng + ?Sized>(&mut self, nodes: &mut [Node], explore: bool, rng: &mut R) {
        forward!(self, p => p.prepare(nodes, explore, rng))
    }

    fn select(&self, view: &RootView<'_>) -> usize {
        forward!(self, p => p.select(view))
    }

    fn visit_counts(&self, view: &RootView<'_>) -> Vec<u32> {
        forward!(self, p => p.visit_counts(view))
    }

    fn policy_target(&self, view: &RootView<'_>) -> Vec<f32> {
        forward!(self, p => p.policy_target(view))
    }

    fn choose<R: Rng + ?Sized>(&self, view: &RootView<'_>, t: f32, rng: &mut R) -> Option<usize> {
        forward!(self, p => p.choose(view, t, rng))
    }
}
