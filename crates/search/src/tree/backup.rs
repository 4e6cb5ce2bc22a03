//! Backing a value up the path of a descent, and the exact scores of
//! terminal nodes.

use rules::{Game, Player};

use super::Mcts;
use crate::evaluator::{Wdl, DRAW_WDL};
use crate::node::{wdl_for, Node, NodeKind};

/// Add one visit with `wdl` (from `leaf_to_move`'s view) to every node of
/// `path`, each from its own side to move (W and L swapped where that
/// differs from the leaf's; never by depth parity, as turns need not
/// alternate). With `undo_virtual`, also remove one in-flight descent.
pub(super) fn backup(
    nodes: &mut [Node],
    path: &[u32],
    leaf_to_move: Player,
    wdl: Wdl,
    undo_virtual: bool,
) {
    for &n in path {
        let node = &mut nodes[n as usize];
        let [w, _, l] = wdl_for(wdl, leaf_to_move, node.to_move);
        node.win_sum += w;
        node.loss_sum += l;
        node.visits += 1;
        if undo_virtual {
            node.in_flight = node.in_flight.saturating_sub(1);
        }
    }
}

impl<G: Game> Mcts<G> {
    /// Back up the exact score of a terminal or proven `kind` (side to
    /// move `to_move`) along the current descent's path, which holds no
    /// virtual loss; with [`crate::SearchConfig::solver`], then mark the
    /// path's nodes that this result proves ([`Mcts::propagate_proof`]).
    pub(super) fn score_terminal(&mut self, kind: NodeKind, to_move: Player) {
        let wdl = self.terminal_value(kind, to_move);
        backup(&mut self.nodes, &self.path, to_move, wdl, false);
        if self.config.solver && kind.proven().is_some() {
            self.propagate_proof();
        }
    }

    /// MCTS-Solver's backup of proofs (Winands, Björnsson & Saito 2008,
    /// "Monte-Carlo Tree Search Solver", CG): walking up the current path
    /// from the parent of the proven node it ended on, a node is proven
    /// won when some child is proven won for its side to move (a loss
    /// for the child's own side to move, when that is the other player),
    /// proven lost when every child is proven won for the other side; the
    /// walk stops at the first node the children leave open. The root is
    /// never marked (its children are what the move choice reads,
    /// [`Mcts::choose_action`]); sides are compared, not depths, since
    /// turns need not alternate.
    pub(super) fn propagate_proof(&mut self) {
        for i in (1..self.path.len().saturating_sub(1)).rev() {
            let n = self.path[i] as usize;
            match self.proof_of(n) {
                Some(kind) => self.nodes[n].kind = kind,
                None => break,
            }
        }
    }

    /// What the children of expanded node `n` prove about it.
    fn proof_of(&self, n: usize) -> Option<NodeKind> {
        let me = self.nodes[n].to_move;
        let mut all_lost = true;
        for c in self.nodes[n].children() {
            match self.nodes[c].proven_for(me) {
                Some(v) if v > 0.0 => return Some(NodeKind::ProvenWin),
                Some(_) => {}
                None => all_lost = false,
            }
        }
        all_lost.then_some(NodeKind::ProvenLoss)
    }

    /// WDL of a terminal or proven node for its side to move `to_move`:
    /// exact for a win or loss; a draw shifted by
    /// [`crate::SearchConfig::contempt`] against the player to move at the
    /// root.
    fn terminal_value(&self, kind: NodeKind, to_move: Player) -> Wdl {
        let c = self.config.contempt;
        match kind.exact_wdl() {
            Some(wdl) if wdl != DRAW_WDL || c == 0.0 => wdl,
            _ if c == 0.0 => DRAW_WDL,
            _ if to_move == self.root_state.side_to_move() => [0.0, 1.0 - c, c],
            _ => [c, 1.0 - c, 0.0],
        }
    }
}
