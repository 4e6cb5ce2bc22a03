//! Applying evaluations: the pending leaves are expanded with the
//! network's priors and their values backed up.

use rules::Game;

use super::backup::backup;
use super::{Mcts, SearchError};
use crate::evaluator::{Wdl, DRAW_WDL};
use crate::node::{Node, NodeKind};

/// Clamp negatives and renormalise a WDL; a non-finite or zero one is a draw.
fn sanitize_wdl(wdl: Wdl) -> Wdl {
    if wdl.iter().any(|x| !x.is_finite()) {
        return DRAW_WDL;
    }
    let w = wdl.map(|x| x.max(0.0));
    let sum = w[0] + w[1] + w[2];
    if sum > 0.0 {
        [w[0] / sum, w[1] / sum, w[2] / sum]
    } else {
        DRAW_WDL
    }
}

/// The priors of a new node's children from the raw `block`: each
/// positive finite entry raised to `inv_temperature` (the policy softmax
/// temperature of Leela Chess Zero, [`crate::SearchConfig::policy_temperature`])
/// and renormalised, the others 0; `uniform` everywhere if no entry is
/// positive and finite.
fn shaped_priors(
    block: &[f32],
    inv_temperature: f32,
    uniform: f32,
) -> impl Iterator<Item = f32> + '_ {
    let valid = |p: f32| p.is_finite() && p > 0.0;
    // (p / p_max)^(1/T): dividing by the largest prior first keeps the
    // top action at 1, so a small T cannot underflow every prior to 0.
    let p_max = block
        .iter()
        .filter(|&&p| valid(p))
        .fold(0.0f32, |m, &p| m.max(p));
    let shape = move |p: f32| {
        if inv_temperature == 1.0 {
            p
        } else {
            (p / p_max).powf(inv_temperature)
        }
    };
    let sum: f32 = block.iter().filter(|&&p| valid(p)).map(|&p| shape(p)).sum();
    block.iter().map(move |&p| {
        if sum > 0.0 && valid(p) {
            shape(p) / sum
        } else if sum > 0.0 {
            0.0
        } else {
            uniform
        }
    })
}

/// Expand `leaf` with children for `legal` and priors `block` (aligned;
/// see `shaped_priors`), the arena growing as [`grow`] says with `cap`.
/// Skipped only if the arena would outgrow `u32` indices (the leaf then
/// stays a leaf).
pub(super) fn expand<A: Copy>(
    nodes: &mut Vec<Node>,
    actions: &mut Vec<A>,
    cap: Option<usize>,
    leaf: usize,
    legal: &[A],
    block: &[f32],
    inv_temperature: f32,
) {
    let first = nodes.len();
    let (Ok(first_child), Ok(count)) = (u32::try_from(first), u32::try_from(legal.len())) else {
        return;
    };
    if u32::try_from(first + legal.len()).is_err() {
        return;
    }
    let uniform = 1.0 / legal.len() as f32;
    grow(nodes, legal.len(), cap);
    grow(actions, legal.len(), cap);
    nodes.extend(shaped_priors(block, inv_temperature, uniform).map(Node::leaf));
    actions.extend_from_slice(legal);
    let node = &mut nodes[leaf];
    node.first_child = first_child;
    node.num_children = count;
    node.kind = NodeKind::Expanded;
}

/// Make room in `arena` for `extra` more entries. Without a `cap` it
/// grows as a `Vec` does (doubling); with one, it doubles up to `cap`
/// entries and past that grows by what is needed only, so a tree bounded
/// by [`crate::Budget::tree_bytes`] holds about that much memory when its
/// search stops, not up to twice it.
fn grow<T>(arena: &mut Vec<T>, extra: usize, cap: Option<usize>) {
    let need = arena.len() + extra;
    let Some(cap) = cap.filter(|_| need > arena.capacity()) else {
        return;
    };
    let target = (arena.capacity() * 2).max(need).min(cap.max(need));
    arena.reserve_exact(target - arena.len());
}

impl<G: Game> Mcts<G> {
    /// Expand the pending leaves and back up their values.
    ///
    /// - `priors`: `[sum_i legal[i].len()]`, one block per pending leaf in
    ///   order, aligned with its legal actions (renormalised; uniform if no
    ///   positive finite entry).
    /// - `wdl`: `[num_pending]`, `[W, D, L]` from each leaf's side to move
    ///   (sanitised: negatives clamped, renormalised, non-finite = draw).
    ///
    /// Removes all virtual losses (including collisions') and clears the
    /// pending list.
    ///
    /// # Errors
    /// [`SearchError::LengthMismatch`] if a slice has the wrong length; the
    /// tree is then unchanged.
    pub fn apply_evaluations(&mut self, priors: &[f32], wdl: &[Wdl]) -> Result<(), SearchError> {
        let n = self.pending_nodes.len();
        if wdl.len() != n {
            return Err(SearchError::LengthMismatch {
                what: "wdl",
                expected: n,
                found: wdl.len(),
            });
        }
        let total: usize = self.pending_legal[..n].iter().map(Vec::len).sum();
        if priors.len() != total {
            return Err(SearchError::LengthMismatch {
                what: "priors",
                expected: total,
                found: priors.len(),
            });
        }
        self.apply_unchecked(priors, wdl);
        Ok(())
    }

    /// [`Mcts::apply_evaluations`] with lengths already checked by the caller.
    pub(crate) fn apply_unchecked(&mut self, priors: &[f32], wdl: &[Wdl]) {
        self.apply_first(self.pending_mark(), priors, wdl);
    }

    /// Apply the evaluations of the leaves pending at `mark` (the first
    /// `mark.leaves` pending leaves; `priors` and `wdl` as in
    /// [`Mcts::apply_evaluations`] for those leaves only) and revert the
    /// virtual visits of the collisions recorded before `mark`. Leaves and
    /// collisions selected since stay pending, so the next batch can be
    /// collected while this one is evaluated (the pipelined search of
    /// [`crate::Batch::run_pipelined`]).
    pub(crate) fn apply_first(&mut self, mark: PendingMark, priors: &[f32], wdl: &[Wdl]) {
        let inv_temperature = 1.0 / self.config.policy_temperature;
        let mut offset = 0usize;
        let mut path_start = 0usize;
        for (i, (&leaf, legal)) in self.pending_nodes[..mark.leaves]
            .iter()
            .zip(&self.pending_legal)
            .enumerate()
        {
            let leaf = leaf as usize;
            let block = &priors[offset..offset + legal.len()];
            offset += legal.len();
            expand(
                &mut self.nodes,
                &mut self.actions,
                self.node_cap,
                leaf,
                legal,
                block,
                inv_temperature,
            );
            let path_end = self.pending_path_ends[i] as usize;
            let value = sanitize_wdl(wdl[i]);
            if leaf == 0 {
                self.root_raw_value = Some(value[0] - value[2]);
            }
            let to_move = self.nodes[leaf].to_move;
            let path = &self.pending_paths[path_start..path_end];
            backup(&mut self.nodes, path, to_move, value, true);
            path_start = path_end;
        }
        self.drop_first(mark);
    }

    /// Where the pending leaves and collisions stand now: the leaves and
    /// collisions a later [`Mcts::select_leaves`] adds come after it.
    pub(crate) fn pending_mark(&self) -> PendingMark {
        PendingMark {
            leaves: self.pending_nodes.len(),
            collisions: self.collision_nodes.len(),
        }
    }

    /// Remove the leaves and collisions pending at `mark` (their leaves
    /// already applied), reverting those collisions' virtual visits; the
    /// ones added since move to the front.
    fn drop_first(&mut self, mark: PendingMark) {
        let pending = self.pending_nodes.len();
        if mark.leaves == pending && mark.collisions == self.collision_nodes.len() {
            self.clear_pending();
            return;
        }
        for &n in &self.collision_nodes[..mark.collisions] {
            if let Some(node) = self.nodes.get_mut(n as usize) {
                node.in_flight = node.in_flight.saturating_sub(1);
            }
        }
        self.collision_nodes.drain(..mark.collisions);
        let cut = match mark.leaves {
            0 => 0,
            n => self.pending_path_ends[n - 1],
        };
        self.pending_paths.drain(..cut as usize);
        self.pending_path_ends.drain(..mark.leaves);
        for end in &mut self.pending_path_ends {
            *end -= cut;
        }
        self.pending_nodes.drain(..mark.leaves);
        // The slots are reused buffers: the later leaves' move to the front.
        self.pending_positions[..pending].rotate_left(mark.leaves);
        self.pending_legal[..pending].rotate_left(mark.leaves);
    }
}

/// How many leaves and collisions were pending at one moment
/// ([`Mcts::pending_mark`]): the batch a pipelined search has in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PendingMark {
    /// Pending leaves.
    pub(crate) leaves: usize,
    /// Entries of the collisions' path list.
    pub(crate) collisions: usize,
}
