//! Descents: PUCT child selection with virtual loss, and the collection of
//! the leaves that need a network evaluation.

use rand::Rng;
use rules::Game;

use super::expand::expand;
use super::Mcts;
use crate::config::SearchConfig;
use crate::node::{Node, NodeKind};
use crate::root::RootPolicy;

/// What one descent produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Descent {
    /// A new leaf awaits evaluation.
    Pending,
    /// A terminal node was reached and backed up at once.
    Terminal,
    /// The descent ended on a leaf already awaiting evaluation.
    Collision,
}

/// PUCT child choice at `node` (Silver et al. 2018, Methods):
/// `argmax_a Q(s,a) + c_puct * P(s,a) * sqrt(N(s)) / (1 + N(s,a))`, where
///
/// - `N(s)` is the parent's visits plus its in-flight descents;
/// - `N(s,a)` is the child's visits plus `virtual_loss` per in-flight descent;
/// - `Q(s,a)` is the child's mean value from the parent's side to move,
///   each virtual visit counting as a loss (-1), so that the next descent
///   of the same batch looks elsewhere; an unvisited child gets first-play
///   urgency `Q(s) - fpu_reduction` (Leela Chess Zero, KataGo).
///
/// With [`SearchConfig::solver`], a child proven won for the parent's side
/// to move is taken outright and one proven lost is passed over while any
/// other remains (MCTS-Solver, Winands et al. 2008).
///
/// Ties go to the first child in legal-action order.
pub(crate) fn puct_child(nodes: &[Node], node: usize, config: &SearchConfig) -> usize {
    let parent = &nodes[node];
    let vl = config.virtual_loss;
    let sqrt_n = ((parent.visits + parent.in_flight) as f32).sqrt();
    let fpu = parent.q().unwrap_or(0.0) - config.fpu_reduction;
    let mut best = parent.first_child as usize;
    let mut best_score = f32::NEG_INFINITY;
    for c in parent.children() {
        let child = &nodes[c];
        let virtual_visits = vl * child.in_flight as f32;
        let n_eff = child.visits as f32 + virtual_visits;
        let q = if child.visits == 0 && virtual_visits <= 0.0 {
            fpu
        } else {
            (child.seen_by(parent.to_move).value_sum() - virtual_visits) / n_eff
        };
        let mut score = q + config.c_puct * child.prior * sqrt_n / (1.0 + n_eff);
        if config.solver {
            match child.proven_for(parent.to_move) {
                Some(v) if v > 0.0 => return c,
                Some(_) => score = PROVEN_LOSS_SCORE,
                None => {}
            }
        }
        if score > best_score {
            best_score = score;
            best = c;
        }
    }
    best
}

/// The PUCT score of a child proven lost for the parent: below every open
/// child's (scores are within a few units), above the initial best, so the
/// first such child is chosen when all are lost.
const PROVEN_LOSS_SCORE: f32 = -1.0e9;

/// The most forced plies played through in a row on one descent
/// ([`SearchConfig::collapse_forced`]); the next forced leaf is evaluated.
const FORCED_CHAIN_LIMIT: usize = 32;

impl<G: Game> Mcts<G> {
    /// Descend up to `max_leaves` times, each with virtual loss on its path,
    /// and collect the leaves needing evaluation. Terminal leaves are scored
    /// exactly and backed up at once (each counts as a completed visit);
    /// a descent that ends on an already pending leaf (a collision) keeps
    /// its virtual loss until [`Mcts::apply_evaluations`], so later descents
    /// spread to other leaves. Applies pending root noise first, using `rng`.
    ///
    /// Returns the number of leaves added to [`Mcts::pending_leaves`]. May be
    /// called again before applying; leaves accumulate.
    pub fn select_leaves<R: Rng + ?Sized>(&mut self, max_leaves: usize, rng: &mut R) -> usize {
        let expanded = self.nodes[0].kind.is_expanded();
        if self.prepare_pending && expanded {
            self.prepare_pending = false;
            let explore = self.exploration();
            self.root.prepare(&mut self.nodes, explore, rng);
        }
        // After the noise: a proof overrides the (noisy) priors.
        if self.proof_pending && expanded {
            self.proof_pending = false;
            self.prove_root_wins();
        }
        let before = self.pending_nodes.len();
        for _ in 0..max_leaves {
            let slot = self.pending_nodes.len();
            self.descend(slot);
        }
        self.pending_nodes.len() - before
    }

    /// The leaves awaiting evaluation: `(positions, legal)`, both of length
    /// [`Mcts::num_pending`], `legal[i]` the non-empty legal actions of
    /// `positions[i]` in [`Game::legal_actions`] order. The buffers are
    /// reused between steps, so no allocation happens per leaf once warm.
    pub fn pending_leaves(&self) -> (&[G], &[Vec<G::Action>]) {
        let n = self.pending_nodes.len();
        (&self.pending_positions[..n], &self.pending_legal[..n])
    }

    /// One descent from the root into the pending slot `slot`.
    fn descend(&mut self, slot: usize) -> Descent {
        if slot < self.pending_positions.len() {
            self.pending_positions[slot].clone_from(&self.root_state);
        } else {
            self.pending_positions.push(self.root_state.clone());
            self.pending_legal.push(Vec::new());
        }
        self.path.clear();
        let mut node = 0usize;
        loop {
            self.path.push(node as u32);
            match self.nodes[node].kind {
                // The root searches on below a proof: its children are
                // what the move choice and the policy target read.
                kind if kind == NodeKind::Expanded || (node == 0 && kind.is_expanded()) => {
                    let child = self.select_child(node);
                    self.pending_positions[slot].play(self.actions[child - 1]);
                    node = child;
                }
                NodeKind::Unexpanded => return self.reach_leaf(node, slot),
                kind => {
                    self.score_terminal(kind, self.nodes[node].to_move);
                    return Descent::Terminal;
                }
            }
        }
    }

    /// The child of expanded `node` to descend into: the root policy's
    /// choice at the root, PUCT everywhere else.
    fn select_child(&self, node: usize) -> usize {
        if node == 0 {
            self.root.select(&self.root_view())
        } else {
            puct_child(&self.nodes, node, &self.config)
        }
    }

    /// The descent along `self.path` has reached unexpanded `leaf`, whose
    /// position is in pending slot `slot`: record a collision, score a
    /// terminal (or a decisive win) at once, or queue it for evaluation.
    fn reach_leaf(&mut self, leaf: usize, slot: usize) -> Descent {
        if self.nodes[leaf].in_flight > 0 {
            self.add_virtual_loss();
            self.collision_nodes.extend_from_slice(&self.path);
            return Descent::Collision;
        }
        let to_move = self.pending_positions[slot].side_to_move();
        self.nodes[leaf].to_move = to_move;
        if let Some(kind) = self.leaf_terminal_kind(leaf, slot) {
            self.nodes[leaf].kind = kind;
            self.score_terminal(kind, to_move);
            return Descent::Terminal;
        }
        if self.config.decisive_moves && self.expand_decisive(leaf, slot) {
            // Expanded over its winning actions, and worth an exact win:
            // proven (MCTS-Solver) when the solver is on.
            if self.config.solver {
                self.nodes[leaf].kind = NodeKind::ProvenWin;
            }
            self.score_terminal(NodeKind::TerminalWin, to_move);
            return Descent::Terminal;
        }
        if let Some(child) = self.play_through_forced(leaf, slot) {
            return self.reach_leaf(child, slot);
        }
        self.add_virtual_loss();
        self.pending_nodes.push(leaf as u32);
        self.pending_paths.extend_from_slice(&self.path);
        self.pending_path_ends.push(self.pending_paths.len() as u32);
        Descent::Pending
    }

    /// [`SearchConfig::collapse_forced`]: when `leaf` (below the root,
    /// not yet evaluated, its legal actions in slot `slot`) has a single
    /// legal action and the forced chain on this path is short enough,
    /// expand it with that action at prior 1, play it in the slot and
    /// return the child the descent goes on to. `None` leaves the leaf to
    /// be evaluated (also when the arena is full and it stays a leaf).
    fn play_through_forced(&mut self, leaf: usize, slot: usize) -> Option<usize> {
        let legal = &self.pending_legal[slot];
        if !self.config.collapse_forced || leaf == 0 || legal.len() != 1 {
            return None;
        }
        // The forced plies already on this path: a bound on the chain, so
        // a cycle of forced moves without a repetition rule cannot loop.
        let chain = self
            .path
            .iter()
            .rev()
            .skip(1)
            .take_while(|&&n| self.nodes[n as usize].num_children == 1 && n != 0);
        if chain.count() >= FORCED_CHAIN_LIMIT {
            return None;
        }
        let action = legal[0];
        expand(
            &mut self.nodes,
            &mut self.actions,
            self.node_cap,
            leaf,
            &[action],
            &[1.0],
            1.0,
        );
        if !self.nodes[leaf].kind.is_expanded() {
            return None;
        }
        let child = self.nodes[leaf].first_child as usize;
        self.pending_positions[slot].play(action);
        self.path.push(child as u32);
        Some(child)
    }

    /// The terminal kind of unexpanded `leaf` (position in slot `slot`):
    /// game over, a two-fold repetition below the root
    /// ([`SearchConfig::two_fold_draws`]) or no legal action. `None` when
    /// it needs evaluation; its legal actions are then in the slot.
    fn leaf_terminal_kind(&mut self, leaf: usize, slot: usize) -> Option<NodeKind> {
        let state = &self.pending_positions[slot];
        if let Some(outcome) = state.outcome() {
            return Some(NodeKind::terminal(outcome.value_for(state.side_to_move())));
        }
        if leaf != 0 && self.config.two_fold_draws && state.repeats_earlier() {
            return Some(NodeKind::TerminalDraw);
        }
        state.legal_actions(&mut self.pending_legal[slot]);
        // No legal action but no outcome: a rules gap; score a draw.
        self.pending_legal[slot]
            .is_empty()
            .then_some(NodeKind::TerminalDraw)
    }

    /// Virtual loss: one in-flight descent on every node of the current
    /// path, so that later descents of the batch spread to other leaves.
    fn add_virtual_loss(&mut self) {
        for &n in &self.path {
            self.nodes[n as usize].in_flight += 1;
        }
    }
}
