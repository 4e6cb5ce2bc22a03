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
    /// Back up the exact score of a terminal `kind` (side to move
    /// `to_move`) along the current descent's path, which holds no virtual
    /// loss.
    pub(super) fn score_terminal(&mut self, kind: NodeKind, to_move: Player) {
        let wdl = self.terminal_value(kind, to_move);
        backup(&mut self.nodes, &self.path, to_move, wdl, false);
    }

    /// WDL of a terminal node for its side to move `to_move`: exact for a
    /// win or loss; a draw shifted by [`crate::SearchConfig::contempt`]
    /// against the player to move at the root.
    fn terminal_value(&self, kind: NodeKind, to_move: Player) -> Wdl {
        let c = self.config.contempt;
        match kind.terminal_wdl() {
            Some(wdl) if wdl != DRAW_WDL || c == 0.0 => wdl,
            _ if c == 0.0 => DRAW_WDL,
            _ if to_move == self.root_state.side_to_move() => [0.0, 1.0 - c, c],
            _ => [c, 1.0 - c, 0.0],
        }
    }
}
