//! The one batched step: every search in the batch collects leaves with
//! virtual loss, all pending leaves go to the [`Evaluator`] in **one**
//! call, and the results are applied back to their trees. Self-play, the
//! matches and the bots all search through it (AlphaZero's batched
//! evaluation, as in KataGo and Leela: one network call serves many trees).

use rand::Rng;
use rayon::prelude::*;
use rules::Game;

use crate::evaluator::{Evaluator, Wdl, DRAW_WDL};
use crate::tree::Mcts;

/// One search taking part in a batched step: a tree (its `AsRef` and
/// `AsMut`), the root visits it searches to, and the random source of its
/// leaf selection (root noise). Self-play's games implement it, each with
/// a generator of its own; [`Batch::run`] steps plain trees that share one.
pub trait BatchedSearch<G: Game>: AsRef<Mcts<G>> + AsMut<Mcts<G>> + Send {
    /// Root visits this search runs to (its [`crate::Budget::nodes`]);
    /// `None` leaves it out of the step (a self-play move with a single
    /// legal action, played without a search).
    fn node_limit(&self) -> Option<u32>;
    /// Collect up to `max` leaves ([`Mcts::select_leaves`]) with this
    /// search's random source.
    fn select_leaves(&mut self, max: usize);
}

/// Where a step's tree work (leaf selection, expansion, backup) runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeWork {
    /// Spread over the rayon pool, one job per tree: best for a lone
    /// self-play worker, which otherwise leaves the other cores idle
    /// between network calls.
    Parallel,
    /// In order on the calling thread: with several self-play workers the
    /// pool is busy with another worker's network batch, and tree jobs
    /// queued behind it would stall this worker (measured in
    /// docs/benchmarks.md, "Self-play and the time outside the network").
    /// Trees sharing one random source must use this, so the draws keep
    /// their order.
    OwnThread,
}

/// How a batched step is done, and its reused buffers: the leaves each
/// tree collects per step and where the tree work runs. Make one per
/// search loop and call [`Batch::step`] (or [`Batch::run`]) repeatedly.
pub struct Batch {
    pub(crate) leaves_per_tree: usize,
    tree_work: TreeWork,
    pub(crate) priors: Vec<f32>,
    pub(crate) wdl: Vec<Wdl>,
}

impl Batch {
    /// Steps of up to `leaves_per_tree` leaves per tree (0 counts as 1),
    /// the tree work on the calling thread.
    pub fn new(leaves_per_tree: usize) -> Self {
        Batch {
            leaves_per_tree: leaves_per_tree.max(1),
            tree_work: TreeWork::OwnThread,
            priors: Vec::new(),
            wdl: Vec::new(),
        }
    }

    /// The same, with the tree work done where `tree_work` says.
    pub fn with_tree_work(self, tree_work: TreeWork) -> Self {
        Batch { tree_work, ..self }
    }

    /// One batched step over `searches`: each search that still needs
    /// visits (and whose root is not terminal) collects up to
    /// `leaves_per_tree` leaves, never more than it needs to reach its
    /// node limit; all pending leaves of all searches go to `evaluator` in
    /// one call; the results are applied back to their trees.
    ///
    /// Returns the number of positions evaluated (0 if no tree needed one
    /// this step; terminal backups may still have happened).
    pub fn step<G, E, S>(&mut self, searches: &mut [S], evaluator: &mut E) -> usize
    where
        G: Game,
        E: Evaluator<G> + ?Sized,
        S: BatchedSearch<G>,
    {
        let leaves = self.leaves_per_tree;
        let collect = |s: &mut S| {
            let nodes = s.node_limit();
            if let Some(max) = leaves_wanted(s.as_mut(), nodes, leaves) {
                s.select_leaves(max);
            }
        };
        match self.tree_work {
            TreeWork::Parallel => searches.par_iter_mut().for_each(collect),
            TreeWork::OwnThread => searches.iter_mut().for_each(collect),
        }
        self.evaluate_and_apply(searches, evaluator, self.tree_work)
    }

    /// [`Batch::step`] over plain trees searching to `nodes` root visits
    /// that share one random source: their leaves are collected in tree
    /// order on this thread, so the draws, and the searches, are
    /// reproducible.
    pub(crate) fn step_shared<G, E, R>(
        &mut self,
        trees: &mut [Mcts<G>],
        evaluator: &mut E,
        nodes: u32,
        rng: &mut R,
    ) -> usize
    where
        G: Game,
        E: Evaluator<G> + ?Sized,
        R: Rng + ?Sized,
    {
        for tree in trees.iter_mut() {
            if let Some(max) = leaves_wanted(tree, Some(nodes), self.leaves_per_tree) {
                tree.select_leaves(max, rng);
            }
        }
        self.evaluate_and_apply(trees, evaluator, TreeWork::OwnThread)
    }

    /// The rest of a step once the leaves are collected: evaluate every
    /// pending leaf of `trees` in one `evaluator` call and apply the
    /// results, the tree work done where `work` says. Returns the number of
    /// positions evaluated.
    fn evaluate_and_apply<G, E, T>(
        &mut self,
        trees: &mut [T],
        evaluator: &mut E,
        work: TreeWork,
    ) -> usize
    where
        G: Game,
        E: Evaluator<G> + ?Sized,
        T: AsRef<Mcts<G>> + AsMut<Mcts<G>> + Send,
    {
        let Some(spans) = self.evaluate(trees, evaluator) else {
            return 0;
        };
        self.apply(trees, &spans, work);
        spans.iter().map(|&(leaves, _)| leaves).sum()
    }

    /// Evaluate every pending leaf of `trees` in one `evaluator` call
    /// into the buffers. Returns each tree's `(leaves, priors)` counts,
    /// or `None` when no leaf is pending.
    fn evaluate<G, E, T>(&mut self, trees: &[T], evaluator: &mut E) -> Option<Vec<(usize, usize)>>
    where
        G: Game,
        E: Evaluator<G> + ?Sized,
        T: AsRef<Mcts<G>>,
    {
        let mut positions: Vec<&G> = Vec::new();
        let mut legal: Vec<&[G::Action]> = Vec::new();
        let mut spans = Vec::with_capacity(trees.len());
        for tree in trees {
            let (p, l) = tree.as_ref().pending_leaves();
            spans.push((p.len(), l.iter().map(Vec::len).sum::<usize>()));
            positions.extend(p.iter());
            legal.extend(l.iter().map(Vec::as_slice));
        }
        if positions.is_empty() {
            return None;
        }
        let total = spans.iter().map(|&(_, priors)| priors).sum();
        // Every entry is overwritten: the evaluator must write them all.
        self.priors.resize(total, 0.0);
        self.wdl.resize(positions.len(), DRAW_WDL);
        evaluator.evaluate(&positions, &legal, &mut self.priors, &mut self.wdl);
        Some(spans)
    }

    /// Split the buffers back per tree (by `spans`) and apply them.
    fn apply<G, T>(&self, trees: &mut [T], spans: &[(usize, usize)], work: TreeWork)
    where
        G: Game,
        T: AsMut<Mcts<G>> + Send,
    {
        let mut jobs = Vec::with_capacity(trees.len());
        let (mut priors, mut wdl) = (&self.priors[..], &self.wdl[..]);
        for (tree, &(n_leaves, n_priors)) in trees.iter_mut().zip(spans) {
            let (p, p_rest) = priors.split_at(n_priors);
            let (w, w_rest) = wdl.split_at(n_leaves);
            (priors, wdl) = (p_rest, w_rest);
            if n_leaves > 0 {
                jobs.push((tree, p, w));
            }
        }
        // The spans were read off the pending leaves themselves, so the
        // lengths match without the public API's check.
        let apply = |(t, p, w): (&mut T, &[f32], &[Wdl])| t.as_mut().apply_unchecked(p, w);
        match work {
            TreeWork::Parallel => jobs.into_par_iter().for_each(apply),
            TreeWork::OwnThread => jobs.into_iter().for_each(apply),
        }
    }
}

/// How many leaves `tree` collects this step, searching to `nodes` root
/// visits (`None`: it sits the step out): up to `leaves_per_tree`, never
/// more than the node limit still needs counting the leaves already
/// pending; `None` when it needs none or its root is terminal. Tells the
/// tree its budget on the way.
pub(crate) fn leaves_wanted<G: Game>(
    tree: &mut Mcts<G>,
    nodes: Option<u32>,
    leaves_per_tree: usize,
) -> Option<usize> {
    let nodes = nodes?;
    if tree.is_terminal() {
        return None;
    }
    // A Gumbel root plans its sequential halving over this budget.
    tree.set_simulations(nodes);
    let have = u64::from(tree.visits()) + tree.num_pending() as u64;
    let need = u64::from(nodes).saturating_sub(have);
    let max = usize::try_from(need)
        .unwrap_or(usize::MAX)
        .min(leaves_per_tree);
    (max > 0).then_some(max)
}

impl<G: Game> AsRef<Mcts<G>> for Mcts<G> {
    fn as_ref(&self) -> &Mcts<G> {
        self
    }
}

impl<G: Game> AsMut<Mcts<G>> for Mcts<G> {
    fn as_mut(&mut self) -> &mut Mcts<G> {
        self
    }
}
