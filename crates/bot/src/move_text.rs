//! What the bot needs from a variant beyond [`encoding::Encode`]: the text
//! of a whole move made of several atomic actions.

use encoding::Encode;
use rules::{Hnefatafl, Loki, Losers, Shakti, Viking};

/// A variant the bot can play. A *move* (one token of a UCI `moves` list,
/// `docs/rules.md` notation) may consist of several atomic actions
/// (Loki's exchange and command, docs/rules.md §4); the search chooses atomic
/// actions and this trait joins one turn's actions into its token.
pub trait BotGame: Encode {
    /// Whether a move can consist of more than one action (only Loki).
    const MULTI_ACTION_MOVES: bool = false;

    /// The move token of `actions`, one whole turn played from `self`
    /// (`Game::parse_move(token)` gives back `actions`).
    fn move_text(&self, actions: &[Self::Action]) -> String {
        actions
            .iter()
            .map(|&a| self.action_to_text(a))
            .collect::<Vec<_>>()
            .join("")
    }
}

impl BotGame for Losers {}
impl BotGame for Viking {}
impl BotGame for Shakti {}

impl BotGame for Hnefatafl {
    fn move_text(&self, actions: &[Self::Action]) -> String {
        rules::tafl::turn_text(actions)
    }
}

impl BotGame for Loki {
    const MULTI_ACTION_MOVES: bool = true;
    fn move_text(&self, actions: &[Self::Action]) -> String {
        rules::tafl::turn_text(actions)
    }
}

/// Group a line of atomic actions played from `position` into move tokens:
/// a move ends when the turn passes or the game ends (never mid-turn). A
/// trailing incomplete turn is written as far as it goes.
pub fn moves_of_line<G: BotGame>(position: &G, line: &[G::Action]) -> Vec<String> {
    let mut game = position.clone();
    let mut start = game.clone();
    let mut turn: Vec<G::Action> = Vec::new();
    let mut out = Vec::new();
    for &action in line {
        turn.push(action);
        game.play(action);
        if !game.mid_turn() || game.outcome().is_some() {
            out.push(start.move_text(&turn));
            turn.clear();
            start = game.clone();
        }
    }
    if !turn.is_empty() {
        out.push(start.move_text(&turn));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Game;

    #[test]
    fn chess_line_is_one_token_per_action() {
        let g = Losers::start();
        let a = g.parse_move("e2e4").unwrap();
        let mut g2 = g.clone();
        g2.play(a[0]);
        let b = g2.parse_move("e7e5").unwrap();
        let line = [a[0], b[0]];
        assert_eq!(moves_of_line(&g, &line), vec!["e2e4", "e7e5"]);
    }
}

#[cfg(test)]
mod loki_tests {
    use super::*;
    use rules::Game;

    /// A two-action Loki move (exchange or command) joins into one token
    /// that `parse_move` turns back into the same two actions.
    #[test]
    fn loki_two_action_move_round_trips() {
        let start = Loki::start();
        let mut checked = 0;
        for first in start.legal_vec() {
            let mut g = start.clone();
            g.play(first);
            if !g.mid_turn() {
                continue;
            }
            let second = g.legal_vec()[0];
            let token = start.move_text(&[first, second]);
            assert_eq!(
                start.parse_move(&token).unwrap(),
                vec![first, second],
                "{token}"
            );
            assert_eq!(moves_of_line(&start, &[first, second]), vec![token]);
            checked += 1;
        }
        assert!(checked > 0, "the Loki start has multi-action moves");
    }
}
