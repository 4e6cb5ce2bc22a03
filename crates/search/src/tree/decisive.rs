//! Decisive moves at every new leaf (Teytaud & Teytaud 2010) and the
//! root's wins in two ([`crate::proof`]): exact wins found by playing the
//! actions out, so a small search over many actions does not miss them.

use rules::Game;

use super::expand::expand;
use super::Mcts;
use crate::forcing::{self, ForcingProof};
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
        let flags = &mut self.scratch_candidates;
        if proof::flag_wins_now(state, legal, flags, &mut self.scratch_state) == 0 {
            return false;
        }
        self.scratch_priors.clear();
        let as_prior = |&win: &bool| if win { 1.0 } else { 0.0 };
        self.scratch_priors.extend(flags.iter().map(as_prior));
        let priors = &self.scratch_priors;
        expand(
            &mut self.nodes,
            &mut self.actions,
            self.node_cap,
            leaf,
            legal,
            priors,
            1.0,
        );
        self.nodes[leaf].kind == NodeKind::Expanded
    }

    /// Mark each root child whose action wins, shortest win first, as a
    /// proven loss for its side to move, so every later visit backs up an
    /// exact win for the root player, and give the proven children the
    /// whole prior (as a decisive expansion does), so the search visits
    /// them first and plays one: the actions that win at once; failing
    /// those, the wins in two ([`crate::SearchConfig::win_in_two`]);
    /// failing those, longer forcing lines ([`Mcts::prove_forcing_lines`]).
    /// Shortest first because a proven longer win is no better to the
    /// search than a win at once, and playing it every move may never
    /// convert (seen in a break test: a king on f1 stepped to g1, also
    /// won, instead of escaping to a1).
    pub(super) fn prove_root_wins(&mut self) {
        let me = self.root_state.side_to_move();
        let mut budget = proof::PROOF_BUDGET;
        let mut proven = self.root_children_winning_now();
        let in_two = if self.config.win_in_two && proven.is_empty() {
            self.open_root_children()
        } else {
            Vec::new()
        };
        for c in in_two {
            let after = self.after_root_action(c);
            if proof::replies_all_lose(after, me, &mut budget) {
                proven.push(c);
            }
            if budget == 0 {
                break;
            }
        }
        if proven.is_empty() && self.config.forcing_depth > 0 {
            proven = self.prove_forcing_lines();
        }
        for &c in &proven {
            self.mark_root_child(c, -1.0);
        }
        if !proven.is_empty() {
            let share = 1.0 / proven.len() as f32;
            for c in self.nodes[0].children() {
                self.nodes[c].prior = if proven.contains(&c) { share } else { 0.0 };
            }
        }
    }

    /// Forcing lines at the root ([`crate::SearchConfig::forcing_depth`]),
    /// proof-number searches ([`crate::forcing`]) sharing one budget of
    /// [`forcing::FORCING_BUDGET`] plays: first one for the root player
    /// from the root, whose proven winning children are returned; failing
    /// that, one for the opponent after each open child, most prior first,
    /// until [`forcing::DEFENDED_CHILDREN`] are not proven lost (each with
    /// an even share of the budget left), and a child after which the opponent wins is marked proven lost for
    /// the root player (in losers: the sacrifice race an engine
    /// out-calculates), so the search passes over it.
    fn prove_forcing_lines(&mut self) -> Vec<usize> {
        let me = self.root_state.side_to_move();
        let turns = self.config.forcing_depth;
        let mut budget = forcing::FORCING_BUDGET;
        let mut attack_budget = budget / 2;
        let attack = ForcingProof::run(&self.root_state, me, turns, &mut attack_budget);
        budget -= budget / 2 - attack_budget;
        let wins = attack.winning_root_actions();
        let won: Vec<usize> = self.nodes[0]
            .children()
            .filter(|&c| wins.contains(&self.actions[c - 1]))
            .collect();
        if !won.is_empty() {
            return won;
        }
        let mut open = self.open_root_children();
        open.sort_by(|&a, &b| self.nodes[b].prior.total_cmp(&self.nodes[a].prior));
        // Defend until that many children are not proven lost, so the
        // search has checked moves to choose from even where most moves
        // lose (a tafl fork threat: 128 of 135 attacker moves).
        let mut unrefuted = 0;
        let mut refund = forcing::REFUTATION_REFUND;
        for c in open {
            if unrefuted == forcing::DEFENDED_CHILDREN || budget == 0 {
                break;
            }
            // An even share of what is left among the children still to
            // find, so one child whose proof fails slowly does not starve
            // the others (a proof that succeeds returns the rest).
            let mut share = budget / (forcing::DEFENDED_CHILDREN - unrefuted) as u32;
            let given = share;
            let after = self.after_root_action(c).clone();
            let lost = ForcingProof::run(&after, me.opponent(), turns, &mut share).proven();
            let used = given - share;
            if lost {
                self.mark_root_child(c, 1.0);
                // A move proven lost is worth its cost: pay it back.
                let paid = used.min(refund);
                refund -= paid;
                budget += paid;
            } else {
                unrefuted += 1;
            }
            budget -= used;
        }
        Vec::new()
    }

    /// The root children whose action ends the game at once with a win
    /// for the root player (only [`Game::win_candidates`] are played).
    fn root_children_winning_now(&mut self) -> Vec<usize> {
        let legal: Vec<G::Action> = self.nodes[0]
            .children()
            .map(|c| self.actions[c - 1])
            .collect();
        let flags = &mut self.scratch_candidates;
        proof::flag_wins_now(&self.root_state, &legal, flags, &mut self.scratch_state);
        let won = self.nodes[0].children().zip(flags.iter());
        won.filter(|&(_, &win)| win).map(|(c, _)| c).collect()
    }

    /// The root children a proof may still mark: not over or proven, and
    /// handing the turn to the opponent (a split turn's first part is left
    /// to the search).
    fn open_root_children(&mut self) -> Vec<usize> {
        let me = self.root_state.side_to_move();
        let mut open = Vec::new();
        for c in self.nodes[0].children() {
            if self.nodes[c].kind.exact_wdl().is_some() {
                continue;
            }
            let after = self.after_root_action(c);
            if after.outcome().is_none() && after.side_to_move() != me {
                open.push(c);
            }
        }
        open
    }

    /// The root position after root child `c`'s action, in the scratch state.
    fn after_root_action(&mut self, c: usize) -> &G {
        self.scratch_state.clone_from(&self.root_state);
        self.scratch_state.play(self.actions[c - 1]);
        &self.scratch_state
    }

    /// Mark root child `c` proven with `value` (1 won, -1 lost) for its
    /// side to move, the root player's opponent: a proven node if it has
    /// children, else a terminal one.
    fn mark_root_child(&mut self, c: usize, value: f32) {
        let node = &mut self.nodes[c];
        node.kind = match (node.kind.is_expanded(), value > 0.0) {
            (true, true) => NodeKind::ProvenWin,
            (true, false) => NodeKind::ProvenLoss,
            (false, _) => NodeKind::terminal(value),
        };
        node.to_move = self.root_state.side_to_move().opponent();
    }
}
