//! Decisive moves at every new leaf (Teytaud & Teytaud 2010) and the
//! root's wins in two ([`crate::proof`]): exact wins found by playing the
//! actions out, so a small search over many actions does not miss them.

use rules::Game;

use super::expand::expand;
use super::Mcts;
use crate::node::NodeKind;
use crate::proof;

impl<G: Game> Mcts<G> {
    /// The decisive-move test ([`crate::SearchConfig::decisive_moves`]) for leaf
    /// `leaf` whose position and legal actions are in pending slot `slot`:
    /// if some action wins at once for the side to move, expand the leaf
    /// with the prior spread evenly over the winning actions and return
    /// true (the caller backs up an exact win).
    pub(super) fn expand_decisive(&mut self, leaf: usize, slot: usize) -> bool {
        let state = &self.pending_positions[slot];
        let legal = &self.pending_legal[slot];
        // Only the actions the rules say might win are played out.
        state.win_candidates(legal, &mut self.scratch_candidates);
        self.scratch_priors.clear();
        let mut wins = 0usize;
        for (&action, &candidate) in legal.iter().zip(&self.scratch_candidates) {
            let win = candidate && proof::wins_now(state, action, &mut self.scratch_state);
            wins += usize::from(win);
            self.scratch_priors.push(if win { 1.0 } else { 0.0 });
        }
        if wins == 0 {
            return false;
        }
        let priors = &self.scratch_priors;
        expand(&mut self.nodes, &mut self.actions, leaf, legal, priors, 1.0);
        self.nodes[leaf].kind == NodeKind::Expanded
    }

    /// Mark each root child whose action wins in two
    /// ([`crate::SearchConfig::win_in_two`]) as a proven loss for its side to move,
    /// so every later visit backs up an exact win for the root player, and
    /// give the proven children the whole prior (as a decisive expansion
    /// does), so the search visits them first.
    pub(super) fn prove_root_wins(&mut self) {
        let me = self.root_state.side_to_move();
        let mut budget = proof::PROOF_BUDGET;
        let mut proven = Vec::new();
        for c in self.nodes[0].children() {
            if self.nodes[c].kind.terminal_wdl().is_some() {
                continue;
            }
            self.scratch_state.clone_from(&self.root_state);
            self.scratch_state.play(self.actions[c - 1]);
            let after = &self.scratch_state;
            if after.outcome().is_some() || after.side_to_move() == me {
                continue; // Scored by the search itself, or our turn goes on.
            }
            if proof::replies_all_lose(after, me, &mut budget) {
                self.nodes[c].kind = NodeKind::TerminalLoss;
                self.nodes[c].to_move = me.opponent();
                proven.push(c);
            }
            if budget == 0 {
                break;
            }
        }
        if !proven.is_empty() {
            let share = 1.0 / proven.len() as f32;
            for c in self.nodes[0].children() {
                self.nodes[c].prior = if proven.contains(&c) { share } else { 0.0 };
            }
        }
    }
}
