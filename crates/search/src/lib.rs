//! PUCT Monte-Carlo tree search for any [`rules::Game`], as in AlphaZero
//! (Silver et al. 2018, "A general reinforcement learning algorithm that
//! masters chess, shogi, and Go through self-play", Science 362:1140), with
//! no neural-network dependency.
//!
//! - [`Mcts`]: one tree in an index arena; step-wise API
//!   ([`Mcts::select_leaves`] / [`Mcts::pending_leaves`] /
//!   [`Mcts::apply_evaluations`]) so one worker can put many games' leaves
//!   into one network batch, with virtual loss spreading each tree's leaves.
//! - [`Budget`]: the one budget of a search (nodes, a time, a stop flag)
//!   with its time policy ([`Stopper`]); every command and player states
//!   its thinking in it.
//! - [`Batch`]: the one batched step ([`Batch::step`] over any
//!   [`BatchedSearch`]: self-play's games) and the one search loop
//!   ([`Batch::run`]: matches and bots); [`run_batched`] and [`search`]
//!   are shorthands for a node budget.
//! - [`Evaluator`]: the batch interface a network implements;
//!   [`UniformEvaluator`] (zero cost) and [`RolloutEvaluator`] (pure UCT
//!   with random playouts) need no network.
//! - [`SearchConfig`] and [`TemperatureSchedule`]: serde-loadable settings
//!   with range validation.
//! - Root policies ([`RootSelection`], config key `root`): PUCT with
//!   Dirichlet noise and optional KataGo forced playouts with policy target
//!   pruning (Wu 2019), or Gumbel AlphaZero's sequential halving with
//!   Gumbel (Danihelka et al. 2022; arithmetic in [`sequential_halving`],
//!   [`completed_q`], [`improved_policy`]).
//!
//! Source layout: `tree/` holds [`Mcts`] by concept (arena and reroot in
//! `mod.rs`, then `select`, `expand`, `backup`, `decisive`, `report`);
//! `limit.rs` the search limit, `step.rs` the batched step and `run.rs`
//! the loop over it;
//! `root/` holds the root policies behind one trait, one file each
//! (`puct` with `dirichlet` and `forced`, `gumbel`); `gumbel.rs` is the
//! Gumbel arithmetic and `proof.rs` the wins in two.
//!
//! Turns need not alternate: values are backed up by comparing each node's
//! side to move with the leaf's, never by depth parity. Terminal positions
//! are scored exactly from [`rules::Game::outcome`].
//!
//! Run a search with pure UCT (random playouts, no network):
//! ```
//! use rand::SeedableRng;
//! use rules::{Game, Losers};
//! use search::{search, RolloutEvaluator, SearchConfig};
//!
//! let mut rng = rand::rngs::StdRng::seed_from_u64(7);
//! let mut evaluator = RolloutEvaluator::new(1, 40, rand::rngs::StdRng::seed_from_u64(8));
//! let config = SearchConfig { dirichlet_epsilon: 0.0, ..SearchConfig::default() };
//! let start = Losers::start();
//! let tree = search(&start, &mut evaluator, &config, 200, &mut rng);
//! assert_eq!(tree.visits(), 200);
//! // The root's own evaluation is the one visit no child holds.
//! let children = tree.root_children();
//! assert_eq!(children.iter().map(|c| c.visits).sum::<u32>(), 199);
//! let best = tree.choose_action(0.0, &mut rng).expect("the game is not over");
//! assert!(start.legal_vec().contains(&best));
//! ```

mod config;
mod evaluator;
mod forcing;
mod gumbel;
mod limit;
mod node;
mod proof;
mod root;
mod run;
mod step;
mod tree;

#[cfg(test)]
mod gumbel_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod toy;

pub use config::{
    InvalidSetting, RootKind, SearchConfig, TemperatureSchedule, MAX_FORCING_DEPTH,
    PLAY_FORCING_DEPTH, PLAY_NODES, PLAY_POLICY_TEMPERATURE,
};
pub use evaluator::{Evaluator, RolloutEvaluator, RolloutMix, UniformEvaluator, Wdl, DRAW_WDL};
pub use gumbel::{
    completed_q, considered_visit, improved_policy, logit, mixed_value, sequential_halving,
    sigma_scale, HalvingPhase,
};
pub use limit::{parse_plain_seconds, parse_plain_u64, Budget, BudgetError, Stopper};
pub use root::RootSelection;
pub use run::{run_batched, search};
pub use step::{Batch, BatchedSearch, TreeWork};
pub use tree::{ChildStats, Mcts, SearchError, CLOSE_SHARE, UNST_MARGIN};

/// Bytes per tree node, not counting the action stored beside it
/// (`size_of::<G::Action>()` more per node).
pub const NODE_BYTES: usize = size_of::<node::Node>();
