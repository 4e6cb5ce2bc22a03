//! The one search loop: batched steps over some trees until their
//! [`Budget`] stops them, and two shorthands for a node budget.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

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
        let mut stopper = budget.stopper(Instant::now());
        let mut steps = 0;
        while !stopper.should_stop(trees) && !stop(trees) {
            self.step_shared(trees, evaluator, budget.node_target(), rng);
            steps += 1;
        }
        steps
    }

    /// [`Batch::run`] with two batches in flight, each evaluated whole by
    /// one of `evaluators` (the second usually an [`Evaluator::fork`] of the
    /// first), as Leela Chess Zero's search threads overlap the network
    /// and the tree. The tree work is done in turns: turn `k` applies the
    /// results of batch `k - 2` and collects batch `k`, while batch `k - 1`
    /// is being evaluated, with virtual loss on it. In a rayon pool of two
    /// or more threads the turns alternate between two threads, each
    /// evaluating the batches it collected, so both threads evaluate at
    /// once and neither waits for the other's tree work beyond its own
    /// turn; with one thread the same turns run one after the other. The
    /// trees are the same either way (the same seed gives the same search,
    /// whatever the pool's size), but differ from [`Batch::run`]'s: each
    /// batch's leaves are chosen without the results of the batch in
    /// flight. `stop` and `budget`'s stopper are consulted on the even
    /// turns (those of the calling thread), so `stop` need not be `Send`.
    /// Returns the number of batches evaluated after the roots'.
    pub fn run_pipelined<G, E, R, S>(
        &mut self,
        trees: &mut [Mcts<G>],
        evaluators: [&mut E; 2],
        budget: &Budget,
        rng: &mut R,
        mut stop: S,
    ) -> usize
    where
        G: Game,
        E: Evaluator<G> + Send,
        R: Rng + Send + ?Sized,
        S: FnMut(&[Mcts<G>]) -> bool,
    {
        for tree in trees.iter_mut() {
            tree.bound_memory(budget.tree_bytes);
        }
        let [first, second] = evaluators;
        let nodes = budget.node_target();
        let mut stopper = budget.stopper(Instant::now());
        // The roots' own evaluations, in turn: while a root is in flight
        // every descent would stop at it.
        while trees.iter().any(|t| t.visits() == 0 && !t.is_terminal()) {
            if stopper.should_stop(trees) || stop(trees) {
                return 0;
            }
            self.step_shared(trees, first, nodes, rng);
        }
        let leaves = self.leaves_per_tree;
        let mut check = |trees: &[Mcts<G>]| stopper.should_stop(trees) || stop(trees);
        let mut workers = [Worker::new(first), Worker::new(second)];
        if rayon::current_num_threads() < 2 {
            // The same turns on this thread alone.
            let mut turn = 0;
            loop {
                let w = turn % 2;
                let checks = (w == 0).then_some(&mut check as &mut StopCheck<'_, G>);
                if !workers[w].tree_turn(trees, rng, nodes, leaves, checks) {
                    // The other batch in flight was evaluated already.
                    workers[1 - w].apply(trees);
                    break;
                }
                workers[w].evaluate();
                turn += 1;
            }
            return workers.iter().map(|w| w.batches).sum();
        }
        let shared = Mutex::new((trees, rng));
        let turns = Turns::default();
        let [w0, w1] = &mut workers;
        rayon::in_place_scope(|scope| {
            let (shared, turns) = (&shared, &turns);
            scope.spawn(move |_| {
                let _quit = turns.quit_on_drop(1);
                w1.run_turns(1, shared, turns, nodes, leaves, None);
            });
            let _quit = turns.quit_on_drop(0);
            w0.run_turns(0, shared, turns, nodes, leaves, Some(&mut check));
        });
        workers.iter().map(|w| w.batches).sum()
    }
}

/// Whether a pipelined search stops now, asked with the trees on the
/// calling thread's turns ([`Batch::run_pipelined`]).
type StopCheck<'a, G> = dyn FnMut(&[Mcts<G>]) -> bool + 'a;

/// One batch's evaluations: the priors of its leaves' legal actions, one
/// block per leaf, and their WDLs.
#[derive(Default)]
struct Evaluated {
    priors: Vec<f32>,
    wdl: Vec<Wdl>,
}

/// One of [`Batch::run_pipelined`]'s two workers: its evaluator, the batch
/// it collected last (copied out of the trees, so that they can change
/// while it is evaluated) and that batch's results.
struct Worker<'e, G: Game, E> {
    evaluator: &'e mut E,
    /// The collected batch's positions and their legal actions, all trees'.
    positions: Vec<G>,
    legal: Vec<Vec<G::Action>>,
    /// Per tree the collected batch's pending mark (its leaves and
    /// collisions, counted from the front of the pending lists as they
    /// will stand when it is applied) and its `(leaves, priors)` counts;
    /// `None` when nothing is waiting to be applied.
    ready: Option<Vec<(PendingMark, (usize, usize))>>,
    done: Evaluated,
    /// Batches this worker evaluated.
    batches: usize,
}

impl<'e, G: Game, E: Evaluator<G>> Worker<'e, G, E> {
    fn new(evaluator: &'e mut E) -> Self {
        Worker {
            evaluator,
            positions: Vec::new(),
            legal: Vec::new(),
            ready: None,
            done: Evaluated::default(),
            batches: 0,
        }
    }

    /// Apply this worker's evaluated batch to `trees`, if any: its leaves
    /// and collisions are the first pending ones (the other worker's batch
    /// was collected after it).
    fn apply(&mut self, trees: &mut [Mcts<G>]) {
        let Some(ready) = self.ready.take() else {
            return;
        };
        let (mut priors, mut wdl) = (&self.done.priors[..], &self.done.wdl[..]);
        for (tree, &(mark, (n_leaves, n_priors))) in trees.iter_mut().zip(&ready) {
            let (p, p_rest) = priors.split_at(n_priors);
            let (w, w_rest) = wdl.split_at(n_leaves);
            (priors, wdl) = (p_rest, w_rest);
            tree.apply_first(mark, p, w);
        }
    }

    /// One turn of tree work: apply this worker's last batch, then (unless
    /// `check` says the search stops, returning `false`) collect the next
    /// one and copy it out.
    fn tree_turn<R: Rng + ?Sized>(
        &mut self,
        trees: &mut [Mcts<G>],
        rng: &mut R,
        nodes: u32,
        leaves: usize,
        check: Option<&mut StopCheck<'_, G>>,
    ) -> bool {
        self.apply(trees);
        if check.is_some_and(|check| check(trees)) {
            return false;
        }
        self.positions.clear();
        self.legal.clear();
        let mut ready = Vec::with_capacity(trees.len());
        for tree in trees.iter_mut() {
            let before = tree.pending_mark();
            collect(tree, nodes, leaves, rng);
            let after = tree.pending_mark();
            let (p, l) = tree.pending_leaves();
            let (p, l) = (&p[before.leaves..], &l[before.leaves..]);
            self.positions.extend_from_slice(p);
            self.legal.extend_from_slice(l);
            let mark = PendingMark {
                leaves: after.leaves - before.leaves,
                collisions: after.collisions - before.collisions,
            };
            ready.push((mark, (p.len(), l.iter().map(Vec::len).sum::<usize>())));
        }
        // Applied even when empty: its collisions' virtual visits go.
        self.ready = Some(ready);
        true
    }

    /// Evaluate the batch collected last into `done`.
    fn evaluate(&mut self) {
        if self.positions.is_empty() {
            return;
        }
        let total = self.legal.iter().map(Vec::len).sum();
        self.done.priors.resize(total, 0.0);
        self.done.wdl.resize(self.positions.len(), DRAW_WDL);
        let positions: Vec<&G> = self.positions.iter().collect();
        let legal: Vec<&[G::Action]> = self.legal.iter().map(Vec::as_slice).collect();
        self.evaluator.evaluate(
            &positions,
            &legal,
            &mut self.done.priors,
            &mut self.done.wdl,
        );
        self.batches += 1;
    }

    /// The turns `me`, `me + 2`, ... on this thread, each followed by the
    /// evaluation of the batch it collected, until a turn finds the search
    /// stopped (`check`, worker 0's) or the other worker gone.
    fn run_turns<R: Rng + Send + ?Sized>(
        &mut self,
        me: usize,
        shared: &Mutex<(&mut [Mcts<G>], &mut R)>,
        turns: &Turns,
        nodes: u32,
        leaves: usize,
        mut check: Option<&mut StopCheck<'_, G>>,
    ) {
        let mut turn = me;
        while turns.wait_for(turn, 1 - me) {
            let mut guard = shared.lock().unwrap_or_else(PoisonError::into_inner);
            let (trees, rng) = &mut *guard;
            let go_on = !turns.stopped.load(Ordering::Acquire)
                && self.tree_turn(trees, *rng, nodes, leaves, check.as_deref_mut());
            if !go_on {
                // The other worker applies its batch in flight on its next
                // turn and stops there too.
                self.apply(trees);
                turns.stopped.store(true, Ordering::Release);
            }
            drop(guard);
            turns.next.store(turn + 1, Ordering::Release);
            if !go_on {
                break;
            }
            self.evaluate();
            turn += 2;
        }
    }
}

/// The turn-taking of [`Batch::run_pipelined`]'s two threads.
#[derive(Default)]
struct Turns {
    /// The turn whose tree work may run now.
    next: AtomicUsize,
    /// A turn found the search stopped: every later turn only applies.
    stopped: AtomicBool,
    /// Whether each worker has left (normally or by a panic).
    quit: [AtomicBool; 2],
}

impl Turns {
    /// Wait until turn `turn` may run (`true`), or the worker `other`
    /// has left (`false`). Spins briefly, then yields the core: a turn
    /// comes every few hundred microseconds, sooner than a sleeping
    /// thread wakes.
    fn wait_for(&self, turn: usize, other: usize) -> bool {
        let mut spins = 0u32;
        loop {
            if self.next.load(Ordering::Acquire) == turn {
                return true;
            }
            if self.quit[other].load(Ordering::Acquire) {
                return false;
            }
            if spins < 2000 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// A guard marking worker `me` gone when dropped, also by a panic, so
    /// that the other worker stops waiting for it.
    fn quit_on_drop(&self, me: usize) -> impl Drop + '_ {
        struct Quit<'a>(&'a AtomicBool);
        impl Drop for Quit<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Release);
            }
        }
        Quit(&self.quit[me])
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
