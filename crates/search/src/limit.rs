//! When a search stops: the one search limit (nodes, a deadline, a stop
//! flag) and its time policy, checked between batched steps (in the manner
//! of lc0's `stoppers/` and kZero's stop closure).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rules::Game;

use crate::tree::Mcts;

/// The bounds of one search; it stops at the first one reached. Self-play
/// (a node target per move), matches (nodes or time per action) and bots
/// (UCI `go nodes`, `movetime`, clocks, `infinite` with `stop`) all state
/// their budget as one of these.
#[derive(Clone, Debug)]
pub struct SearchLimit {
    /// Root visits each tree searches to: network evaluations and terminal
    /// scorings, counting the visits a reused subtree kept. `u32::MAX`
    /// ([`SearchLimit::NO_NODE_LIMIT`]) = no node bound.
    pub nodes: u32,
    /// Wall-clock time by which the search must be over. The clock is read
    /// between batched steps, and a step is not started when the recent
    /// steps' duration says it would end past the deadline (see
    /// [`SearchLimit::stopper`]); the root's first evaluation is always
    /// made.
    pub deadline: Option<Instant>,
    /// Set to `true` from another thread to stop (UCI `stop`); checked
    /// between steps, before anything else, even before the first step.
    pub stop: Option<Arc<AtomicBool>>,
}

impl SearchLimit {
    /// [`SearchLimit::nodes`] when there is no node bound.
    pub const NO_NODE_LIMIT: u32 = u32::MAX;

    /// A node budget only: `nodes` root visits per tree.
    pub fn nodes(nodes: u32) -> Self {
        SearchLimit {
            nodes,
            deadline: None,
            stop: None,
        }
    }

    /// A time budget only: search for `budget` from now.
    pub fn time(budget: Duration) -> Self {
        SearchLimit {
            deadline: Some(Instant::now() + budget),
            ..SearchLimit::nodes(Self::NO_NODE_LIMIT)
        }
    }

    /// Whether some bound is given (a search without one never ends).
    pub fn is_bounded(&self) -> bool {
        self.nodes != Self::NO_NODE_LIMIT || self.deadline.is_some() || self.stop.is_some()
    }

    /// Whether the stop flag is set.
    pub fn stopped(&self) -> bool {
        self.stop
            .as_deref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// The running check of this limit over one search (its time policy).
    pub fn stopper(&self) -> Stopper<'_> {
        Stopper {
            limit: self,
            last: None,
            step: Duration::ZERO,
        }
    }
}

impl<G: Game> Mcts<G> {
    /// Whether this tree is done with a search to `nodes` root visits: it
    /// has them, or its root is terminal (nothing to search).
    pub fn reached(&self, nodes: u32) -> bool {
        self.is_terminal() || self.visits() >= nodes
    }
}

/// A [`SearchLimit`] applied to one search, asked before every batched
/// step whether to stop. Time policy: the duration of the next step is
/// predicted as a decaying maximum of the recent steps' durations (each
/// step's maximum with 3/4 of the previous prediction), and no step starts
/// that would end past the deadline, so a clock is not overrun by the
/// step in flight. Until every tree's root is evaluated the deadline does
/// not apply (a move is never chosen blind), and that first step is left
/// out of the prediction.
pub struct Stopper<'a> {
    limit: &'a SearchLimit,
    /// When the previous check ran; `None` when the step since then is
    /// not measured (before the first check, after the root evaluation).
    last: Option<Instant>,
    /// Predicted duration of the next step.
    step: Duration,
}

impl Stopper<'_> {
    /// Whether the search of `trees` stops now: every tree reached the node
    /// bound, the stop flag is set, or the next step would overrun the
    /// deadline.
    pub fn should_stop<G: Game>(&mut self, trees: &[Mcts<G>]) -> bool {
        let nodes = self.limit.nodes;
        if trees.iter().all(|t| t.reached(nodes)) || self.limit.stopped() {
            return true;
        }
        // Without a deadline the clock is not read at all.
        let Some(deadline) = self.limit.deadline else {
            return false;
        };
        let now = Instant::now();
        let unevaluated = trees.iter().any(|t| !t.reached(nodes) && t.visits() == 0);
        if unevaluated {
            self.last = None;
            return false;
        }
        let took = self.last.map_or(Duration::ZERO, |last| now - last);
        self.step = took.max(self.step * 3 / 4);
        self.last = Some(now);
        now + self.step >= deadline
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use rand::rngs::StdRng;
    use rand::SeedableRng;

    use super::*;
    use crate::toy::TicTacToe;
    use crate::{Batch, SearchConfig, UniformEvaluator};

    /// Run `limit` on a fresh tic-tac-toe tree (8 leaves per step);
    /// `(steps, root visits)`.
    fn run(limit: &SearchLimit, tree: &mut Mcts<TicTacToe>) -> (usize, u32) {
        let mut rng = StdRng::seed_from_u64(1);
        let trees = std::slice::from_mut(tree);
        let steps = Batch::new(8).run(trees, &mut UniformEvaluator, limit, &mut rng, |_| false);
        (steps, trees[0].visits())
    }

    fn fresh() -> Mcts<TicTacToe> {
        Mcts::new(TicTacToe::start(), &SearchConfig::default())
    }

    #[test]
    fn nodes_bound_each_tree() {
        assert_eq!(run(&SearchLimit::nodes(17), &mut fresh()), (3, 17));
        assert!(SearchLimit::nodes(17).is_bounded());
        assert!(!SearchLimit::nodes(SearchLimit::NO_NODE_LIMIT).is_bounded());
    }

    #[test]
    fn a_set_stop_flag_stops_before_the_first_step() {
        let flag = Arc::new(AtomicBool::new(true));
        let limit = SearchLimit {
            stop: Some(flag),
            ..SearchLimit::nodes(SearchLimit::NO_NODE_LIMIT)
        };
        assert!(limit.is_bounded() && limit.stopped());
        assert_eq!(run(&limit, &mut fresh()), (0, 0));
    }

    #[test]
    fn a_past_deadline_still_evaluates_the_root_once() {
        let past = SearchLimit {
            deadline: Some(Instant::now()),
            ..SearchLimit::nodes(1000)
        };
        let mut tree = fresh();
        assert_eq!(run(&past, &mut tree), (1, 1));
        // An evaluated root: the deadline applies before the first step.
        assert_eq!(run(&past, &mut tree), (0, 1));
    }

    #[test]
    fn a_time_budget_ends_the_search() {
        let limit = SearchLimit::time(Duration::from_millis(30));
        let started = Instant::now();
        let (steps, visits) = run(&limit, &mut fresh());
        assert!(steps >= 1 && visits >= 1);
        // Stopped before the deadline by the predicted step, or just after
        // it by a slow step on a loaded machine, never much later.
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
