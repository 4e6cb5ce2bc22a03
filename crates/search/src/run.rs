//! The one search loop: batched steps over some trees until their
//! [`Budget`] stops them, and two shorthands for a node budget.

use rand::Rng;
use rules::Game;

use crate::config::SearchConfig;
use crate::evaluator::{Evaluator, Wdl, DRAW_WDL};
use crate::limit::Budget;
use crate::step::{leaves_wanted, Batch};
use crate::tree::{Mcts, PendingMark};

impl Batch {
    /// Search `trees` in lockstep until `budget` stops them (every tree has
    /// `budget.nodes` root visits or a terminal root, the stop flag is set,
    /// or the time from this call is nearly spent: [`Budget::stopper`]) or `stop` says
    /// so: it is called with the trees before every step the limit allows
    /// (progress reports, or a custom stop). `rng` drives root noise; the
    /// trees share it, so their tree work runs in order on this thread
    /// whatever [`Batch::with_tree_work`] said. Every tree is left with no
    /// pending leaves. Returns the number of steps run.
    ///
    /// With [`Batch::with_pipeline`] the steps overlap: the evaluator runs
    /// on one step's leaves while the previous step's results are applied
    /// and the next step's leaves collected.
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
        E: Evaluator<G> + Send + ?Sized,
        R: Rng + Send + ?Sized,
        S: FnMut(&[Mcts<G>]) -> bool,
    {
        for tree in trees.iter_mut() {
            tree.bound_memory(budget.tree_bytes);
        }
        if self.pipeline {
            return self.run_pipelined(trees, evaluator, budget, rng, stop);
        }
        let mut stopper = budget.stopper(std::time::Instant::now());
        let mut steps = 0;
        while !stopper.should_stop(trees) && !stop(trees) {
            self.step_shared(trees, evaluator, budget.node_target(), rng);
            steps += 1;
        }
        steps
    }

    /// [`Batch::run`] with each step's evaluation overlapping the tree
    /// work (`rayon::join`: the evaluator on this thread, the tree work
    /// where the pool finds a free thread, which then helps with the
    /// evaluation). Step `k` evaluates batch `k` while the tree work applies
    /// batch `k - 1`'s results and collects batch `k + 1`, with virtual
    /// loss on batch `k`.
    fn run_pipelined<G, E, R, S>(
        &mut self,
        trees: &mut [Mcts<G>],
        evaluator: &mut E,
        budget: &Budget,
        rng: &mut R,
        mut stop: S,
    ) -> usize
    where
        G: Game,
        E: Evaluator<G> + Send + ?Sized,
        R: Rng + Send + ?Sized,
        S: FnMut(&[Mcts<G>]) -> bool,
    {
        let nodes = budget.node_target();
        let leaves = self.leaves_per_tree;
        // The batch evaluated in the previous step and not yet applied:
        // per tree its mark and its `(leaves, priors)` counts; its results
        // are in `done`.
        let mut ready: Option<Vec<(PendingMark, (usize, usize))>> = None;
        let mut done = Evaluated::default();
        let mut next = Evaluated::default();
        let mut stopper = budget.stopper(std::time::Instant::now());
        let mut steps = 0;
        while !stopper.should_stop(trees) && !stop(trees) {
            // The roots' own evaluations, in turn: while a root is in
            // flight every descent would stop at it.
            if ready.is_none() && trees.iter().any(|t| t.visits() == 0 && !t.is_terminal()) {
                self.step_shared(trees, evaluator, nodes, rng);
                steps += 1;
                continue;
            }
            // Nothing to evaluate beyond the ready batch (the first step
            // after the roots', or a step whose leaves were all terminal):
            // apply it and collect this step's leaves first.
            let skip = |i: usize| ready.as_ref().map_or(0, |r| r[i].0.leaves);
            if trees
                .iter()
                .enumerate()
                .all(|(i, t)| t.num_pending() == skip(i))
            {
                if let Some(ready) = ready.take() {
                    apply_ready(trees, &ready, &done);
                }
                for tree in trees.iter_mut() {
                    collect(tree, nodes, leaves, rng);
                }
            }
            // This step's batch: the pending leaves after the ready ones,
            // copied out so that the trees can change meanwhile.
            let mut positions: Vec<G> = Vec::new();
            let mut legal: Vec<Vec<G::Action>> = Vec::new();
            let mut spans = Vec::with_capacity(trees.len());
            for (i, tree) in trees.iter().enumerate() {
                let skip = ready.as_ref().map_or(0, |r| r[i].0.leaves);
                let (p, l) = tree.pending_leaves();
                let (p, l) = (&p[skip..], &l[skip..]);
                spans.push((p.len(), l.iter().map(Vec::len).sum::<usize>()));
                positions.extend_from_slice(p);
                legal.extend_from_slice(l);
            }
            let total = spans.iter().map(|&(_, priors)| priors).sum();
            next.priors.resize(total, 0.0);
            next.wdl.resize(positions.len(), DRAW_WDL);
            let mut marks = Vec::with_capacity(trees.len());
            let Evaluated { priors, wdl } = &mut next;
            rayon::join(
                || {
                    if !positions.is_empty() {
                        let positions: Vec<&G> = positions.iter().collect();
                        let legal: Vec<&[G::Action]> = legal.iter().map(Vec::as_slice).collect();
                        evaluator.evaluate(&positions, &legal, priors, wdl);
                    }
                },
                || {
                    if let Some(ready) = &ready {
                        apply_ready(trees, ready, &done);
                    }
                    for tree in trees.iter_mut() {
                        marks.push(tree.pending_mark());
                        collect(tree, nodes, leaves, rng);
                    }
                },
            );
            ready = (!positions.is_empty()).then(|| marks.into_iter().zip(spans).collect());
            std::mem::swap(&mut done, &mut next);
            steps += 1;
        }
        // The batch evaluated last, then the one collected when the search
        // stopped (by time or the stop flag; a node budget collects none
        // past its target).
        if let Some(ready) = ready {
            apply_ready(trees, &ready, &done);
        }
        self.step_shared(trees, evaluator, 0, rng);
        steps
    }
}

/// One batch's evaluations: the priors of its leaves' legal actions, one
/// block per leaf, and their WDLs.
#[derive(Default)]
struct Evaluated {
    priors: Vec<f32>,
    wdl: Vec<Wdl>,
}

/// Apply the batch evaluated last to `trees`: per tree its mark and its
/// `(leaves, priors)` counts in `ready`, the results in `done` in tree
/// order.
fn apply_ready<G: Game>(
    trees: &mut [Mcts<G>],
    ready: &[(PendingMark, (usize, usize))],
    done: &Evaluated,
) {
    let (mut priors, mut wdl) = (&done.priors[..], &done.wdl[..]);
    for (tree, &(mark, (n_leaves, n_priors))) in trees.iter_mut().zip(ready) {
        let (p, p_rest) = priors.split_at(n_priors);
        let (w, w_rest) = wdl.split_at(n_leaves);
        (priors, wdl) = (p_rest, w_rest);
        tree.apply_first(mark, p, w);
    }
}

/// Collect the leaves `tree` needs this step toward `nodes` root visits
/// (up to `leaves`).
fn collect<G: Game, R: Rng + ?Sized>(tree: &mut Mcts<G>, nodes: u32, leaves: usize, rng: &mut R) {
    if let Some(max) = leaves_wanted(tree, Some(nodes), leaves) {
        tree.select_leaves(max, rng);
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
    E: Evaluator<G> + Send + ?Sized,
    R: Rng + Send + ?Sized,
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
    E: Evaluator<G> + Send + ?Sized,
    R: Rng + Send + ?Sized,
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
