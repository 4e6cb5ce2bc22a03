//! Forced wins through forcing lines, proven by proof-number search
//! (Allis, van der Meulen & van den Herik 1994, "Proof-number search",
//! Artificial Intelligence 66:91-124) at the root of a search
//! ([`crate::SearchConfig::forcing_depth`]).
//!
//! A forcing line is one where every turn of the defender has at most
//! [`MAX_FORCING_REPLIES`] replies that do not lose at once (that neither
//! end the game for the attacker nor leave it an action that does), as a
//! chess engine's mate search follows checks only. In losers, where
//! captures are compulsory, a piece offered to a lone king leaves it one
//! reply, so "give every piece away" is such a line, and so is a race of
//! sacrifices that must be taken; in tafl a king with an open road to a
//! corner leaves the attackers only the blocks, so a chain of such threats
//! ending in a fork is one (threat-space search, Allis, van den Herik &
//! Huntjens 1993, "Go-Moku and threat-space search"). A
//! PUCT search of a few hundred or thousand simulations with flat priors
//! spreads its visits over such an endgame's moves alike (all valued as
//! won) and shuffles; a proof tells it which move wins. The proof is exact
//! (the rules decide every line) but incomplete: a wider defender turn, a
//! line longer than the turn limit or a spent budget leave it unproven.
//!
//! Proof-number search expands the leaf that most cheaply settles the
//! question (the most-proving node), so it walks down the narrowest lines
//! first instead of enumerating every attacker move to a fixed depth.

use rules::{Game, Player};

use crate::proof;

/// The most replies that do not lose at once a defender turn may have for
/// a forcing line to follow it.
pub(crate) const MAX_FORCING_REPLIES: usize = 3;

/// Plays (`Game::play` calls) allowed for one root's forcing-line proofs,
/// attack and defence together: about 7 ms per losers middle-game root on
/// this project's 2-core machine (`docs/benchmarks.md`, "Forcing lines at
/// the root"), a few per cent of a 250 ms move.
pub(crate) const FORCING_BUDGET: u32 = 10_000;

/// Plays paid back to the defence for the children it proves lost, at
/// most this many per root: a proof that succeeds removes a losing move,
/// so the budget bounds the proofs that fail, and a root where most moves
/// lose (a tafl fork threat) still gets its checked moves; worst case per
/// root, [`FORCING_BUDGET`] plus this.
pub(crate) const REFUTATION_REFUND: u32 = 30_000;

/// How many root children the defence must find not proven lost before it
/// stops searching the opponent's forcing lines after further ones (most
/// prior first; those proven lost do not count, so where most moves lose
/// the search still has checked moves to play): where turns are wide
/// (tafl, 100 actions) each such search tries a few replies to each of the
/// opponent's actions, so this bounds the cost there.
pub(crate) const DEFENDED_CHILDREN: usize = 8;

/// An infinite proof or disproof number (saturating sums stay below
/// `u32::MAX`).
const INF: u32 = u32::MAX / 4;

/// What expanding a node did.
enum Expansion {
    /// Its children were added.
    Children,
    /// A defender's turn with more than [`MAX_FORCING_REPLIES`] replies
    /// that do not lose at once (or, never reached, none legal): refuted.
    TooWide,
    /// The budget ran out; nothing was added.
    OutOfBudget,
}

/// One position of the proof tree.
struct PnNode<G: Game> {
    state: G,
    /// The action from the parent (none at the root).
    action: Option<G::Action>,
    /// Index of the parent; the root's is itself (0).
    parent: u32,
    /// The attacker is to move (an OR node) rather than the defender (AND).
    attacker_to_move: bool,
    /// The attacker's whole turns played from the root to here.
    turns: u32,
    /// Proof number: leaves to prove before the attacker's win is proven.
    pn: u32,
    /// Disproof number: leaves to disprove before the win is refuted.
    dn: u32,
    /// First child's index; children are contiguous.
    first_child: u32,
    num_children: u32,
    expanded: bool,
}

/// A proof-number search for `attacker` from one position.
pub(crate) struct ForcingProof<G: Game> {
    attacker: Player,
    /// The attacker must win within this many of its turns.
    max_turns: u32,
    nodes: Vec<PnNode<G>>,
}

impl<G: Game> ForcingProof<G> {
    /// Search whether `attacker` wins from `state` within `max_turns` of
    /// its turns through forcing lines, spending at most `budget` plays
    /// (decremented by what was used).
    pub(crate) fn run(state: &G, attacker: Player, max_turns: u32, budget: &mut u32) -> Self {
        let mut proof = ForcingProof {
            attacker,
            max_turns,
            nodes: Vec::new(),
        };
        let root = proof.new_node(state.clone(), None, 0, 0, budget);
        proof.nodes.push(root);
        while proof.nodes[0].pn != 0 && proof.nodes[0].dn != 0 {
            let leaf = proof.most_proving();
            match proof.expand(leaf, budget) {
                Expansion::OutOfBudget => break,
                Expansion::Children => proof.update_ancestors(leaf),
                Expansion::TooWide => {
                    let node = &mut proof.nodes[leaf];
                    (node.pn, node.dn) = (INF, 0);
                    let parent = node.parent as usize;
                    if leaf == 0 {
                        break;
                    }
                    proof.update_ancestors(parent);
                }
            }
        }
        proof
    }

    /// Whether the attacker's win is proven.
    pub(crate) fn proven(&self) -> bool {
        self.nodes[0].pn == 0
    }

    /// The root actions proven to win for the attacker (empty unless the
    /// attacker is to move at the root and some action is proven; empty
    /// too when it wins at once there, which the tree's decisive moves
    /// find).
    pub(crate) fn winning_root_actions(&self) -> Vec<G::Action> {
        let root = &self.nodes[0];
        if !root.attacker_to_move || !root.expanded {
            return Vec::new();
        }
        self.children(0)
            .filter(|&c| self.nodes[c].pn == 0)
            .filter_map(|c| self.nodes[c].action)
            .collect()
    }

    fn children(&self, i: usize) -> std::ops::Range<usize> {
        let node = &self.nodes[i];
        let first = node.first_child as usize;
        first..first + node.num_children as usize
    }

    /// A node for `state` with its initial numbers: exact at a game end,
    /// at the attacker's turn when it wins at once (proven) or it is its
    /// last (refuted otherwise); else the defender's legal reply count
    /// (AND) or 1 (OR).
    fn new_node(
        &self,
        state: G,
        action: Option<G::Action>,
        parent: u32,
        turns: u32,
        budget: &mut u32,
    ) -> PnNode<G> {
        let attacker_to_move = state.side_to_move() == self.attacker;
        let (pn, dn) = self.initial_numbers(&state, attacker_to_move, turns, budget);
        PnNode {
            state,
            action,
            parent,
            attacker_to_move,
            turns,
            pn,
            dn,
            first_child: 0,
            num_children: 0,
            expanded: false,
        }
    }

    fn initial_numbers(
        &self,
        state: &G,
        attacker_to_move: bool,
        turns: u32,
        budget: &mut u32,
    ) -> (u32, u32) {
        const PROVEN: (u32, u32) = (0, INF);
        const REFUTED: (u32, u32) = (INF, 0);
        if let Some(outcome) = state.outcome() {
            return if outcome.value_for(self.attacker) > 0.0 {
                PROVEN
            } else {
                REFUTED
            };
        }
        if attacker_to_move {
            if proof::wins_at_once(state, self.attacker, budget) {
                return PROVEN;
            }
            return if turns + 1 < self.max_turns {
                (1, 1)
            } else {
                REFUTED
            };
        }
        match state.legal_vec().len() {
            0 => REFUTED,
            // An estimate until expanded (`expand` counts the replies that
            // do not lose at once): a wide turn is seldom forcing, so it
            // is tried after the narrow ones.
            n => (n as u32, 1),
        }
    }

    /// From the root, the child that settles its parent's number at each
    /// node (least proof number at the attacker's turns, least disproof
    /// number at the defender's), down to an unexpanded node.
    fn most_proving(&self) -> usize {
        let mut i = 0;
        while self.nodes[i].expanded {
            let attacker = self.nodes[i].attacker_to_move;
            let key = |c: &usize| {
                let n = &self.nodes[*c];
                if attacker {
                    n.pn
                } else {
                    n.dn
                }
            };
            i = self
                .children(i)
                .min_by_key(key)
                .expect("an expanded node has children");
        }
        i
    }

    /// Add node `i`'s children, each play taken from `budget`. At a
    /// defender's turn, stop at the first reply beyond
    /// [`MAX_FORCING_REPLIES`] that does not lose at once (its node is not
    /// proven when made) and add nothing: a wide turn without a threat
    /// costs a few plays, not one per reply.
    fn expand(&mut self, i: usize, budget: &mut u32) -> Expansion {
        let legal = self.nodes[i].state.legal_vec();
        let first = self.nodes.len();
        let parent = &self.nodes[i];
        let (attacker_moves, turns) = (parent.attacker_to_move, parent.turns);
        let parent_state = parent.state.clone();
        let mut choices = 0;
        for action in legal {
            if *budget == 0 {
                self.nodes.truncate(first);
                return Expansion::OutOfBudget;
            }
            *budget -= 1;
            let mut state = parent_state.clone();
            state.play(action);
            // A turn ends when the side to move changes (split turns).
            let done = attacker_moves && state.side_to_move() != self.attacker;
            let mut child = self.new_node(
                state,
                Some(action),
                i as u32,
                turns + u32::from(done),
                budget,
            );
            if attacker_moves && !done && child.pn != 0 {
                // The attacker's split turn goes on: not followed (its
                // further parts are as wide as a whole turn: Loki).
                (child.pn, child.dn) = (INF, 0);
            }
            if !attacker_moves && child.pn != 0 {
                choices += 1;
                if choices > MAX_FORCING_REPLIES {
                    self.nodes.truncate(first);
                    return Expansion::TooWide;
                }
            }
            self.nodes.push(child);
        }
        let count = self.nodes.len() - first;
        if count == 0 {
            return Expansion::TooWide;
        }
        let node = &mut self.nodes[i];
        node.first_child = first as u32;
        node.num_children = count as u32;
        node.expanded = true;
        Expansion::Children
    }

    /// Recompute the numbers from node `i` up to the root: at the
    /// attacker's turn pn = min, dn = sum over the children; at the
    /// defender's pn = sum, dn = min.
    fn update_ancestors(&mut self, mut i: usize) {
        loop {
            let (mut min_pn, mut min_dn, mut sum_pn, mut sum_dn) = (INF, INF, 0u32, 0u32);
            for c in self.children(i) {
                let n = &self.nodes[c];
                min_pn = min_pn.min(n.pn);
                min_dn = min_dn.min(n.dn);
                sum_pn = sum_pn.saturating_add(n.pn).min(INF);
                sum_dn = sum_dn.saturating_add(n.dn).min(INF);
            }
            let node = &mut self.nodes[i];
            (node.pn, node.dn) = if node.attacker_to_move {
                (min_pn, sum_dn)
            } else {
                (sum_pn, min_dn)
            };
            if i == 0 {
                return;
            }
            i = node.parent as usize;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toy::HashGame;

    /// The definition the proof search implements, by plain recursion: the
    /// attacker wins from `g` having played `turns` whole turns, within
    /// `max_turns`, through defender turns of at most
    /// [`MAX_FORCING_REPLIES`] replies.
    fn forced(g: &HashGame, attacker: Player, turns: u32, max_turns: u32) -> bool {
        if let Some(o) = g.outcome() {
            return o.value_for(attacker) > 0.0;
        }
        let legal = g.legal_vec();
        let child = |a: u8| {
            let mut next = g.clone();
            next.play(a);
            next
        };
        if g.side_to_move() == attacker {
            if turns + 1 >= max_turns {
                return wins_at_once(g, attacker);
            }
            legal.into_iter().any(|a| {
                let next = child(a);
                let done = next.side_to_move() != attacker;
                if !done && next.outcome().is_none() && turns + 1 < max_turns {
                    // A split turn's further parts are not followed, but
                    // one that wins at once counts.
                    return wins_at_once(&next, attacker);
                }
                forced(&next, attacker, turns + u32::from(done), max_turns)
            })
        } else {
            let choices = legal
                .iter()
                .filter(|&&a| !loses_at_once(&child(a), attacker))
                .count();
            choices <= MAX_FORCING_REPLIES
                && legal
                    .into_iter()
                    .all(|a| forced(&child(a), attacker, turns, max_turns))
        }
    }

    /// The defender's reply that led to `g` lost at once: the attacker won,
    /// or is to move with an action that wins.
    fn loses_at_once(g: &HashGame, attacker: Player) -> bool {
        if let Some(o) = g.outcome() {
            return o.value_for(attacker) > 0.0;
        }
        g.side_to_move() == attacker && wins_at_once(g, attacker)
    }

    /// The attacker, to move in `g`, has an action that wins.
    fn wins_at_once(g: &HashGame, attacker: Player) -> bool {
        g.legal_vec().into_iter().any(|a| {
            let mut next = g.clone();
            next.play(a);
            next.outcome().is_some_and(|o| o.value_for(attacker) > 0.0)
        })
    }

    #[test]
    fn proofs_agree_with_the_definition_and_with_minimax() {
        let mut proven = 0;
        for seed in 0..400u64 {
            let game = HashGame::new(seed, 9);
            for attacker in [Player::First, Player::Second] {
                for max_turns in [1, 2, 3, 5] {
                    let mut budget = 1_000_000;
                    let proof = ForcingProof::run(&game, attacker, max_turns, &mut budget);
                    let expected = forced(&game, attacker, 0, max_turns);
                    assert_eq!(
                        proof.proven(),
                        expected,
                        "seed {seed} {attacker:?} {max_turns}"
                    );
                    if proof.proven() {
                        proven += 1;
                        // Sound: minimax agrees the attacker wins.
                        assert_eq!(game.solve(attacker), 1, "seed {seed}");
                        // Every root action named wins.
                        for a in proof.winning_root_actions() {
                            let mut next = game.clone();
                            next.play(a);
                            assert_eq!(next.solve(attacker), 1, "seed {seed} action {a}");
                        }
                    }
                }
            }
        }
        // The trees give both answers often enough to mean something.
        assert!((200..3000).contains(&proven), "{proven} proofs");
    }

    #[test]
    fn a_spent_budget_leaves_a_win_unproven_never_a_loss_proven() {
        let mut cut = 0;
        for seed in 0..200u64 {
            let game = HashGame::new(seed, 9);
            let mut budget = 12;
            let proof = ForcingProof::run(&game, Player::First, 5, &mut budget);
            if proof.proven() {
                assert_eq!(game.solve(Player::First), 1, "seed {seed}");
            } else if forced(&game, Player::First, 0, 5) {
                cut += 1;
            }
        }
        assert!(cut > 0, "a budget of 12 plays should cut some proofs short");
    }
}
