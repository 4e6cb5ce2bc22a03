//! The compact tree node stored in the arena of [`crate::Mcts`].

use rules::Player;

use crate::evaluator::Wdl;

/// What is known about a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum NodeKind {
    /// Not evaluated yet (a leaf). Its `to_move` is valid once it has been reached.
    Unexpanded,
    /// Evaluated; its children occupy `first_child..first_child + num_children`.
    Expanded,
    /// Game over: the side to move here has won.
    TerminalWin,
    /// Game over: draw.
    TerminalDraw,
    /// Game over: the side to move here has lost.
    TerminalLoss,
    /// Expanded, and proven won for the side to move by the search: some
    /// child is proven lost for the opponent (MCTS-Solver, Winands,
    /// Björnsson & Saito 2008; [`crate::SearchConfig::solver`]). Its
    /// children stay in the tree; a descent reaching it (below the root)
    /// backs up an exact win.
    ProvenWin,
    /// Expanded, and proven lost for the side to move: every child is
    /// proven won for the opponent (MCTS-Solver).
    ProvenLoss,
}

impl NodeKind {
    /// The terminal kind for a score from the side to move's view (1, 0, -1).
    pub(crate) fn terminal(value: f32) -> NodeKind {
        if value > 0.0 {
            NodeKind::TerminalWin
        } else if value < 0.0 {
            NodeKind::TerminalLoss
        } else {
            NodeKind::TerminalDraw
        }
    }

    /// The exact WDL of a terminal node from its side to move, `None` otherwise
    /// (also for a node proven by the search, whose game goes on).
    pub(crate) fn terminal_wdl(self) -> Option<Wdl> {
        match self {
            NodeKind::TerminalWin => Some([1.0, 0.0, 0.0]),
            NodeKind::TerminalDraw => Some([0.0, 1.0, 0.0]),
            NodeKind::TerminalLoss => Some([0.0, 0.0, 1.0]),
            _ => None,
        }
    }

    /// The exact WDL a descent ending here backs up: a terminal's, or a
    /// proven node's win or loss.
    pub(crate) fn exact_wdl(self) -> Option<Wdl> {
        match self {
            NodeKind::ProvenWin => Some([1.0, 0.0, 0.0]),
            NodeKind::ProvenLoss => Some([0.0, 0.0, 1.0]),
            kind => kind.terminal_wdl(),
        }
    }

    /// Whether the node has its children in the tree (expanded, proven or not).
    pub(crate) fn is_expanded(self) -> bool {
        matches!(
            self,
            NodeKind::Expanded | NodeKind::ProvenWin | NodeKind::ProvenLoss
        )
    }

    /// The proven result for the side to move: `1` won, `-1` lost (game
    /// over, or proven by the search); `None` when open or drawn (draws are
    /// not propagated: a two-fold repetition draw depends on the path).
    pub(crate) fn proven(self) -> Option<f32> {
        match self {
            NodeKind::TerminalWin | NodeKind::ProvenWin => Some(1.0),
            NodeKind::TerminalLoss | NodeKind::ProvenLoss => Some(-1.0),
            _ => None,
        }
    }
}

/// One tree node: 32 bytes (`size_of::<Node>() == 32`, asserted in the
/// tests), independent of the game. The action leading to a node lives in a
/// parallel arena (`Mcts::actions`), so the whole cost per node is
/// `32 + size_of::<G::Action>()` bytes.
///
/// Statistics are kept from the view of **this node's own side to move**
/// (`to_move`); a parent converts them by comparing sides, never by depth
/// parity, because turns need not alternate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// Prior probability of the action leading here, from the parent's
    /// evaluation (after root noise at the root's children).
    pub prior: f32,
    /// Completed visits (evaluations backed up through this node).
    pub visits: u32,
    /// Descents through this node whose leaf awaits evaluation (virtual loss).
    pub in_flight: u32,
    /// Sum of win probabilities backed up, from `to_move`'s view.
    pub win_sum: f32,
    /// Sum of loss probabilities backed up, from `to_move`'s view. The draw
    /// sum is `visits - win_sum - loss_sum` (backed-up WDLs sum to 1).
    pub loss_sum: f32,
    /// Arena index of the first child (valid when `kind == Expanded`).
    pub first_child: u32,
    /// Number of children (the legal actions at expansion).
    pub num_children: u32,
    /// The side to move in this node's position.
    pub to_move: Player,
    /// Leaf, expanded or terminal.
    pub kind: NodeKind,
}

impl Node {
    /// A fresh leaf with the given prior.
    pub(crate) fn leaf(prior: f32) -> Node {
        Node {
            prior,
            visits: 0,
            in_flight: 0,
            win_sum: 0.0,
            loss_sum: 0.0,
            first_child: 0,
            num_children: 0,
            to_move: Player::First,
            kind: NodeKind::Unexpanded,
        }
    }

    /// Mean value `(W - L) / N` from this node's side to move; `None` when unvisited.
    pub(crate) fn q(&self) -> Option<f32> {
        (self.visits > 0).then(|| (self.win_sum - self.loss_sum) / self.visits as f32)
    }

    /// Mean `[W, D, L]` from this node's side to move; `None` when unvisited.
    pub(crate) fn wdl(&self) -> Option<Wdl> {
        if self.visits == 0 {
            return None;
        }
        let n = self.visits as f32;
        let w = self.win_sum / n;
        let l = self.loss_sum / n;
        Some([w, (1.0 - w - l).max(0.0), l])
    }

    /// This node's statistics read from `viewer`'s side (a parent's or the
    /// root's side to move): the one place where a value kept from the
    /// node's own side is flipped for another, since turns need not
    /// alternate and depth parity says nothing about sides.
    pub(crate) fn seen_by(&self, viewer: Player) -> Seen<'_> {
        Seen { node: self, viewer }
    }

    /// The proven result ([`NodeKind::proven`]) read from `viewer`'s side:
    /// `1` won for `viewer`, `-1` lost for `viewer`.
    pub(crate) fn proven_for(&self, viewer: Player) -> Option<f32> {
        let v = self.kind.proven()?;
        Some(if self.to_move == viewer { v } else { -v })
    }

    /// Indices of the children, as a range into the arena.
    pub(crate) fn children(&self) -> std::ops::Range<usize> {
        if self.kind.is_expanded() {
            let start = self.first_child as usize;
            start..start + self.num_children as usize
        } else {
            0..0
        }
    }
}

/// A WDL kept from `owner`'s side, read from `viewer`'s: W and L swap when
/// the two sides differ (the draw share is the same for both).
pub(crate) fn wdl_for(wdl: Wdl, owner: Player, viewer: Player) -> Wdl {
    let [w, d, l] = wdl;
    if owner == viewer {
        [w, d, l]
    } else {
        [l, d, w]
    }
}

/// A node's statistics from a viewer's side ([`Node::seen_by`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seen<'a> {
    node: &'a Node,
    viewer: Player,
}

impl Seen<'_> {
    /// The summed value `W - L` of all visits, from the viewer's side.
    pub(crate) fn value_sum(self) -> f32 {
        let own = self.node.win_sum - self.node.loss_sum;
        if self.node.to_move == self.viewer {
            own
        } else {
            -own
        }
    }

    /// Mean value `(W - L) / N` from the viewer's side; `None` when unvisited.
    pub(crate) fn q(self) -> Option<f32> {
        let visits = self.node.visits;
        (visits > 0).then(|| self.value_sum() / visits as f32)
    }

    /// Mean `[W, D, L]` from the viewer's side; `None` when unvisited.
    pub(crate) fn wdl(self) -> Option<Wdl> {
        let (owner, viewer) = (self.node.to_move, self.viewer);
        self.node.wdl().map(|wdl| wdl_for(wdl, owner, viewer))
    }
}
