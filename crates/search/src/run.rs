//! The one search loop: batched steps over some trees until their
//! [`Budget`] stops them, and two shorthands for a node budget.

use rand::Rng;
use rules::Game;

use crate::config::SearchConfig;
use crate::evaluator::Evaluator;
use crate::limit::Budget;
use crate::step::Batch;
use crate::tree::Mcts;

impl Batch {
    /// Search `trees` in lockstep until `budget` stops them (every tree has
    /// `budget.nodes` root visits or a terminal root, the stop flag is set,
    /// or the time from this call is nearly spent: [`Budget::stopper`]) or `stop` says
    /// so: it is called with the trees before every step the limit allows
    /// (progress reports, or a custom stop). `rng` drives root noise; the
    /// trees share it, so their tree work runs in order on this thread
    /// whatever [`Batch::with_tree_work`] said. Every tree is left with no
    /// pending leaves. Returns the number of steps run.
    pub fn run<G, E, R, S>(
        &mut self,
        trees: &mut [Mcts<G>],
        evaluator: &mut E,
        budget: &Budget,
        rng: &mut R,
        mut stop: S,
    ) -> usize
    where
        G: Game,
        E: Evaluator<G> + ?Sized,
        R: Rng + ?Sized,
        S: FnMut(&[Mcts<G>]) -> bool,
    {
        let mut stopper = budget.stopper(std::time::Instant::now());
        let mut steps = 0;
        while !stopper.should_stop(trees) && !stop(trees) {
            self.step_shared(trees, evaluator, budget.node_target(), rng);
            steps += 1;
        }
        steps
    }
}

/// Drive many trees in lockstep until each has `simulations` root visits
/// (trees with a terminal root are skipped; a reused subtree's visits
/// count), evaluating all their pending leaves in one `evaluator` batch per
/// step, with up to `leaves_per_tree` leaves per tree per step. `rng`
/// drives root noise only. Shorthand for [`Batch::run`] with
/// [`Budget::nodes`].
pub fn run_batched<G, E, R>(
    trees: &mut [Mcts<G>],
    evaluator: &mut E,
    simulations: u32,
    leaves_per_tree: usize,
    rng: &mut R,
) where
    G: Game,
    E: Evaluator<G> + ?Sized,
    R: Rng + ?Sized,
{
    let budget = Budget::nodes(simulations);
    Batch::new(leaves_per_tree).run(trees, evaluator, &budget, rng, |_| false);
}

/// Convenience: search one position with `simulations` root visits,
/// `config.leaves_per_batch` leaves per evaluator call, and return the tree
/// (ask it for [`Mcts::choose_action`], [`Mcts::policy_target`], ...).
pub fn search<G, E, R>(
    root: &G,
    evaluator: &mut E,
    config: &SearchConfig,
    simulations: u32,
    rng: &mut R,
) -> Mcts<G>
where
    G: Game,
    E: Evaluator<G> + ?Sized,
    R: Rng + ?Sized,
{
    let mut trees = [Mcts::new(root.clone(), config)];
    run_batched(
        &mut trees,
        evaluator,
        simulations,
        config.leaves_per_batch,
        rng,
    );
    let [tree] = trees;
    tree
}
