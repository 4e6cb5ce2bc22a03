//! Move tokens of a line of atomic actions ([`moves_of_line`]), and
//! [`BotGame`], the bound of a playable variant.

use encoding::Encode;

/// A variant the bot can play: a name for [`Encode`] (which brings
/// `rules::Variant` and `rules::Game`, with `Game::move_text`, the
/// inverse of `Game::parse_move`). Every encoded variant is one; it has
/// no items of its own.
pub trait BotGame: Encode {}

impl<G: Encode> BotGame for G {}

/// Group a line of atomic actions played from `position` (a position
/// between turns, as every position a frontend sets is) into move tokens:
/// a move ends when the turn passes or the game ends (never mid-turn). A
/// trailing incomplete turn (a line cut in the middle of a Loki exchange
/// or command) is left out, so every token is a whole move that
/// `Game::parse_move` reads back.
pub fn moves_of_line<G: rules::Game>(position: &G, line: &[G::Action]) -> Vec<String> {
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::{Game, Losers};

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
    use rules::{Game, Loki};

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

    /// The first action of `game` that leaves the turn open.
    fn split_action(game: &Loki) -> <Loki as Game>::Action {
        game.legal_vec()
            .into_iter()
            .find(|&a| {
                let mut g = game.clone();
                g.play(a);
                g.mid_turn()
            })
            .expect("an exchange or a command")
    }

    /// A line cut in the middle of a move ends with the last whole move.
    #[test]
    fn a_line_cut_mid_move_leaves_the_half_move_out() {
        let start = Loki::start();
        let first = split_action(&start);
        assert_eq!(moves_of_line(&start, &[first]), Vec::<String>::new());
        let plain = start
            .legal_vec()
            .into_iter()
            .find(|&a| {
                let mut g = start.clone();
                g.play(a);
                !g.mid_turn()
            })
            .unwrap();
        let mut after = start.clone();
        after.play(plain);
        let reply = split_action(&after);
        let mut mid = after.clone();
        mid.play(reply);
        let reply_end = mid.legal_vec()[0];
        let whole = vec![
            start.move_text(&[plain]),
            after.move_text(&[reply, reply_end]),
        ];
        assert_eq!(moves_of_line(&start, &[plain, reply, reply_end]), whole);
        assert_eq!(moves_of_line(&start, &[plain, reply]), whole[..1]);
    }
}
