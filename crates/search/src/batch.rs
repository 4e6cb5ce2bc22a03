//! Driving many trees in lockstep with one evaluator batch per step.

use rand::Rng;
use rules::Game;

use crate::config::SearchConfig;
use crate::evaluator::{Evaluator, Wdl};
use crate::tree::Mcts;

/// One batched step over `trees`: each tree that still needs visits (and
/// whose root is not terminal) collects up to `leaves_per_tree` leaves,
/// never more than it needs to reach `simulations` root visits; all pending
/// leaves of all trees go to `evaluator` in **one** call; the results are
/// applied back to their trees.
///
/// Returns the number of positions evaluated (0 if no tree needed one this
/// step; terminal backups may still have happened).
pub fn step_batched<G, E, R>(
    trees: &mut [Mcts<G>],
    evaluator: &mut E,
    simulations: u32,
    leaves_per_tree: usize,
    rng: &mut R,
) -> usize
where
    G: Game,
    E: Evaluator<G> + ?Sized,
    R: Rng + ?Sized,
{
    for tree in trees.iter_mut() {
        if tree.is_terminal() {
            continue;
        }
        tree.set_simulations(simulations);
        let have = u64::from(tree.visits()) + tree.num_pending() as u64;
        let need = u64::from(simulations).saturating_sub(have);
        let max = usize::try_from(need)
            .unwrap_or(usize::MAX)
            .min(leaves_per_tree);
        if max > 0 {
            tree.select_leaves(max, rng);
        }
    }
    let mut positions: Vec<&G> = Vec::new();
    let mut legal: Vec<&[G::Action]> = Vec::new();
    for tree in trees.iter() {
        let (p, l) = tree.pending_leaves();
        positions.extend(p.iter());
        legal.extend(l.iter().map(Vec::as_slice));
    }
    let batch = positions.len();
    if batch == 0 {
        return 0;
    }
    let total: usize = legal.iter().map(|l| l.len()).sum();
    let mut priors = vec![0.0f32; total];
    let mut wdl: Vec<Wdl> = vec![[0.0; 3]; batch];
    evaluator.evaluate(&positions, &legal, &mut priors, &mut wdl);
    drop(positions);
    drop(legal);
    let (mut p_off, mut w_off) = (0usize, 0usize);
    for tree in trees.iter_mut() {
        let (_, l) = tree.pending_leaves();
        let n = l.len();
        let k: usize = l.iter().map(Vec::len).sum();
        tree.apply_unchecked(&priors[p_off..p_off + k], &wdl[w_off..w_off + n]);
        p_off += k;
        w_off += n;
    }
    batch
}

/// Drive many trees in lockstep until each has `simulations` root visits
/// (trees with a terminal root are skipped; a reused subtree's visits
/// count), evaluating all their pending leaves in one `evaluator` batch per
/// step, with up to `leaves_per_tree` leaves per tree per step. `rng`
/// drives root noise only.
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
    run_batched_until(trees, evaluator, simulations, leaves_per_tree, rng, || {
        false
    });
}

/// [`run_batched`] that also calls `stop()` before every step and returns as
/// soon as it says `true` (e.g. a UCI `stop`: `|| flag.load(Ordering::Relaxed)`,
/// or a time or node budget). Every tree is left with no pending leaves.
/// Returns the number of steps run.
pub fn run_batched_until<G, E, R, S>(
    trees: &mut [Mcts<G>],
    evaluator: &mut E,
    simulations: u32,
    leaves_per_tree: usize,
    rng: &mut R,
    mut stop: S,
) -> usize
where
    G: Game,
    E: Evaluator<G> + ?Sized,
    R: Rng + ?Sized,
    S: FnMut() -> bool,
{
    let leaves_per_tree = leaves_per_tree.max(1);
    let mut steps = 0;
    loop {
        let unfinished = trees
            .iter()
            .any(|t| !t.is_terminal() && t.visits() < simulations);
        if !unfinished || stop() {
            return steps;
        }
        step_batched(trees, evaluator, simulations, leaves_per_tree, rng);
        steps += 1;
    }
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
