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
/// see `shaped_priors`). Skipped only if the arena would outgrow `u32`
/// indices (the leaf then stays a leaf).
pub(super) fn expand<A: Copy>(
    nodes: &mut Vec<Node>,
    actions: &mut Vec<A>,
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
    nodes.extend(shaped_priors(block, inv_temperature, uniform).map(Node::leaf));
    actions.extend_from_slice(legal);
    let node = &mut nodes[leaf];
    node.first_child = first_child;
    node.num_children = count;
    node.kind = NodeKind::Expanded;
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
        let inv_temperature = 1.0 / self.config.policy_temperature;
        let mut offset = 0usize;
        let mut path_start = 0usize;
        for (i, (&leaf, legal)) in self
            .pending_nodes
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
        self.clear_pending();
    }
}
