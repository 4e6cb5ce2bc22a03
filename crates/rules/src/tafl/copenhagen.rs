//! The board-level rulings of `copenhagen` (`docs/rules.md` §6) that differ
//! from `hnefatafl`: the king is taken only when surrounded, the
//! shieldwall, and encirclement. The rest (moves, custodial captures,
//! hostile squares, the armed king) is the shared tafl code.

use super::board::{
    anvil, bit, landing_captures, squares_of, step, Cells, Kind, SIZE, SQUARES, THRONE,
};
use super::movegen::remove_captured;
use crate::Player;

/// What one copenhagen move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MoveResult {
    /// The king was captured (the attackers win).
    pub king_captured: bool,
    /// Some piece was captured.
    pub captured: bool,
}

/// True when the king on `k` is captured: attackers on all four sides, or
/// on three sides with the (then empty) throne on the fourth. On the board
/// edge a side is missing, so the king there cannot be captured.
pub fn king_surrounded(cells: &Cells, k: usize) -> bool {
    (0..4).all(|d| match step(k, d) {
        None => false,
        Some(n) => n == THRONE || matches!(cells[n], Some(p) if p.side == Player::First),
    })
}

/// The square one step inward from the edge square `sq` for a row running
/// in direction `dir`, or `None` when `sq` is not on an edge parallel to
/// `dir`.
fn inward(sq: usize, dir: usize) -> Option<usize> {
    let (file, rank) = (sq % SIZE, sq / SIZE);
    let inward_dir = match dir {
        // The row runs along a file: the a- or k-file edge.
        0 | 2 if file == 0 => 1,
        0 | 2 if file == SIZE - 1 => 3,
        // The row runs along a rank: rank 1 or rank 11.
        1 | 3 if rank == 0 => 0,
        1 | 3 if rank == SIZE - 1 => 2,
        _ => return None,
    };
    step(sq, inward_dir)
}

/// Shieldwall captures made by `mover`'s piece that has just landed on the
/// edge square `to`: in each direction along the edge, a row of two or more
/// enemy pieces starting next to `to`, each with a `mover` piece directly
/// in front of it (inward), and closed at its far end by a `mover` piece or
/// an empty corner. Every piece of such a row but the king is captured.
pub fn shieldwall_captures(cells: &Cells, to: usize, mover: Player) -> u128 {
    let mut captured = 0u128;
    for dir in 0..4 {
        if inward(to, dir).is_none() {
            continue;
        }
        let (mut row, mut len, mut sq) = (0u128, 0, step(to, dir));
        let mut closed = false;
        while let Some(s) = sq {
            match cells[s] {
                Some(p) if p.side != mover => {
                    let front = inward(s, dir).and_then(|f| cells[f]);
                    if !matches!(front, Some(q) if q.side == mover) {
                        break;
                    }
                    if p.kind != Kind::King {
                        row |= bit(s);
                    }
                    len += 1;
                    sq = step(s, dir);
                }
                _ => {
                    closed = anvil(cells, s, mover);
                    break;
                }
            }
        }
        if closed && len >= 2 {
            captured |= row;
        }
    }
    captured
}

/// True when no defender can reach the board edge: the squares reachable
/// from the edge over squares free of attackers hold no defender
/// (encirclement; the attackers win).
pub fn encircled(cells: &Cells) -> bool {
    let attacker = |sq: usize| matches!(cells[sq], Some(p) if p.side == Player::First);
    let mut seen = 0u128;
    let mut stack = Vec::with_capacity(SQUARES);
    for sq in 0..SQUARES {
        let (file, rank) = (sq % SIZE, sq / SIZE);
        let edge = file == 0 || rank == 0 || file == SIZE - 1 || rank == SIZE - 1;
        if edge && !attacker(sq) {
            seen |= bit(sq);
            stack.push(sq);
        }
    }
    while let Some(sq) = stack.pop() {
        if matches!(cells[sq], Some(p) if p.side == Player::Second) {
            return false;
        }
        for d in 0..4 {
            if let Some(n) = step(sq, d) {
                if seen & bit(n) == 0 && !attacker(n) {
                    seen |= bit(n);
                    stack.push(n);
                }
            }
        }
    }
    true
}

/// Play a plain move of `side`'s piece on `cells` under the copenhagen
/// rulings: custodial captures around the landing square (never the king),
/// shieldwall captures, and the king taken when surrounded by a move of
/// the attackers next to him.
pub(crate) fn play_move(cells: &mut Cells, from: usize, to: usize, side: Player) -> MoveResult {
    cells[to] = cells[from].take();
    let mut captured = landing_captures(cells, to, side);
    for sq in squares_of(captured) {
        if matches!(cells[sq], Some(p) if p.kind == Kind::King) {
            captured &= !bit(sq);
        }
    }
    captured |= shieldwall_captures(cells, to, side);
    if side == Player::First {
        for d in 0..4 {
            if let Some(n) = step(to, d) {
                if matches!(cells[n], Some(p) if p.kind == Kind::King) && king_surrounded(cells, n)
                {
                    captured |= bit(n);
                }
            }
        }
    }
    let king_captured = remove_captured(cells, captured);
    MoveResult {
        king_captured,
        captured: captured != 0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::board::{Piece, GEOMETRY};
    use super::super::games::{Copenhagen, COPENHAGEN_START};
    use super::super::TaflAction;
    use crate::{EndReason, Game, Outcome, Player};

    /// A copenhagen position from `(square, piece letter)` pairs.
    fn position(pieces: &[(&str, char)], side: char) -> Copenhagen {
        let mut cells = [None; super::SQUARES];
        for &(sq, c) in pieces {
            let sq = GEOMETRY.parse_square(sq).expect("a square");
            cells[sq] = Some(Piece::from_char(c).expect("a piece"));
        }
        let board = GEOMETRY.format_board(&cells, Piece::to_char);
        Copenhagen::from_text(&format!("{board} {side}")).expect("a legal position")
    }

    fn play(game: &mut Copenhagen, token: &str) {
        let actions = game.parse_move(token).expect("a legal move");
        for a in actions {
            game.play(a);
        }
    }

    fn at(game: &Copenhagen, sq: &str) -> Option<char> {
        let sq = GEOMETRY.parse_square(sq).expect("a square");
        game.state().piece_at(sq).map(Piece::to_char)
    }

    fn attackers_win() -> Option<Outcome> {
        Some(Outcome::win(Player::First, EndReason::KingCaptured))
    }

    #[test]
    fn exported_and_round_trips() {
        use crate::Copenhagen as Exported;
        let mut game = Exported::start();
        play(&mut game, "d1d3");
        let text = game.to_text();
        assert_eq!(Copenhagen::from_text(&text).map(|g| g.to_text()), Ok(text));
        // Powers and special pieces are refused, as in hnefatafl.
        assert!(Copenhagen::from_text(&format!("{COPENHAGEN_START} 3333/3333 -")).is_err());
    }

    #[test]
    fn start_is_the_hnefatafl_start() {
        let game = Copenhagen::start();
        assert_eq!(game.to_text(), COPENHAGEN_START);
        assert_eq!(game.side_to_move(), Player::First);
        assert_eq!(game.legal_vec().len(), 116);
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn start_perft_agrees_with_hnefatafl_while_the_rules_cannot_differ() {
        // In three plies no king, shieldwall or encirclement capture and no
        // repetition is possible: the counts are hnefatafl's (§3). At four
        // plies the defenders' repetition ban already differs (a move and
        // its undoing on both sides recreates the start).
        let start = Copenhagen::start();
        let counts: Vec<u64> = (1..=3).map(|d| crate::perft(&start, d)).collect();
        assert_eq!(counts, [116, 6788, 806344]);
    }

    #[test]
    fn custodial_capture() {
        let mut game = position(&[("e3", 'S'), ("d3", 's'), ("f1", 's'), ("f9", 'K')], 'a');
        play(&mut game, "f1f3");
        assert_eq!(at(&game, "e3"), None);
        assert_eq!(game.outcome(), None);
        // Moving between two enemies is safe.
        let mut game = position(&[("d3", 's'), ("f3", 's'), ("e9", 'S'), ("f9", 'K')], 'd');
        play(&mut game, "e9e3");
        assert_eq!(at(&game, "e3"), Some('S'));
    }

    #[test]
    fn the_king_is_armed() {
        // Hammer: the king lands on e6 (over the empty throne) and takes e5
        // against the defender on e4.
        let mut game = position(&[("e5", 's'), ("e4", 'S'), ("h6", 'K'), ("a9", 's')], 'd');
        play(&mut game, "h6e6");
        assert_eq!(at(&game, "e5"), None);
        // Anvil: a defender takes c5 against the king on c4.
        let mut game = position(&[("c5", 's'), ("c4", 'K'), ("h6", 'S'), ("a9", 's')], 'd');
        play(&mut game, "h6c6");
        assert_eq!(at(&game, "c5"), None);
    }

    #[test]
    fn the_king_is_not_taken_between_two() {
        let mut game = position(&[("d4", 'K'), ("c4", 's'), ("e2", 's')], 'a');
        play(&mut game, "e2e4");
        assert_eq!(at(&game, "d4"), Some('K'));
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn the_king_is_taken_on_four_sides() {
        let mut game = position(
            &[
                ("d4", 'K'),
                ("c4", 's'),
                ("e4", 's'),
                ("d5", 's'),
                ("d1", 's'),
            ],
            'a',
        );
        play(&mut game, "d1d3");
        assert_eq!(at(&game, "d4"), None);
        assert_eq!(game.outcome(), attackers_win());
        assert!(game.legal_vec().is_empty());
    }

    #[test]
    fn the_king_is_taken_on_three_sides_and_the_throne() {
        // f7 is next to the throne f6.
        let mut game = position(&[("f7", 'K'), ("e7", 's'), ("g7", 's'), ("h8", 's')], 'a');
        play(&mut game, "h8f8");
        assert_eq!(game.outcome(), attackers_win());
        // On the throne all four sides are needed.
        let mut game = position(&[("f6", 'K'), ("e6", 's'), ("g6", 's'), ("h7", 's')], 'a');
        play(&mut game, "h7f7");
        assert_eq!(game.outcome(), None);
        let mut game = position(
            &[
                ("f6", 'K'),
                ("e6", 's'),
                ("g6", 's'),
                ("f5", 's'),
                ("h7", 's'),
            ],
            'a',
        );
        play(&mut game, "h7f7");
        assert_eq!(game.outcome(), attackers_win());
    }

    #[test]
    fn the_king_on_the_edge_is_not_taken() {
        let mut game = position(
            &[
                ("a5", 'K'),
                ("a4", 's'),
                ("a6", 's'),
                ("d5", 's'),
                ("h9", 'S'),
            ],
            'a',
        );
        play(&mut game, "d5b5");
        assert_eq!(at(&game, "a5"), Some('K'));
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn shieldwall() {
        // c1 d1 on the edge, c2 d2 in front, b1 and the arriving e1 bracket.
        let pieces = [
            ("c1", 'S'),
            ("d1", 'S'),
            ("c2", 's'),
            ("d2", 's'),
            ("b1", 's'),
            ("e5", 's'),
            ("f9", 'K'),
        ];
        let mut game = position(&pieces, 'a');
        play(&mut game, "e5e1");
        assert_eq!((at(&game, "c1"), at(&game, "d1")), (None, None));
        // The king in the wall is not taken; the rest of the wall is.
        let mut game = position(
            &[
                ("c1", 'S'),
                ("d1", 'K'),
                ("c2", 's'),
                ("d2", 's'),
                ("b1", 's'),
                ("e5", 's'),
            ],
            'a',
        );
        play(&mut game, "e5e1");
        assert_eq!((at(&game, "c1"), at(&game, "d1")), (None, Some('K')));
        assert_eq!(game.outcome(), None);
        // A corner brackets one end.
        let mut game = position(
            &[
                ("b1", 'S'),
                ("c1", 'S'),
                ("b2", 's'),
                ("c2", 's'),
                ("d5", 's'),
                ("f9", 'K'),
            ],
            'a',
        );
        play(&mut game, "d5d1");
        assert_eq!((at(&game, "b1"), at(&game, "c1")), (None, None));
        // A gap in the front row: no capture.
        let mut game = position(
            &[
                ("c1", 'S'),
                ("d1", 'S'),
                ("c2", 's'),
                ("b1", 's'),
                ("e5", 's'),
                ("f9", 'K'),
            ],
            'a',
        );
        play(&mut game, "e5e1");
        assert_eq!((at(&game, "c1"), at(&game, "d1")), (Some('S'), Some('S')));
    }

    #[test]
    fn shieldwall_by_the_defenders_with_the_king() {
        // k4 k5 on the k-file edge, j4 j5 in front; the king on k3 closes
        // one end, the defender arriving on k6 the other.
        let pieces = [
            ("k4", 's'),
            ("k5", 's'),
            ("j4", 'S'),
            ("j5", 'S'),
            ("k3", 'K'),
            ("h6", 'S'),
            ("a9", 's'),
        ];
        let mut game = position(&pieces, 'd');
        play(&mut game, "h6k6");
        assert_eq!((at(&game, "k4"), at(&game, "k5")), (None, None));
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn the_king_wins_on_a_corner() {
        let mut game = position(&[("a5", 'K'), ("f9", 's')], 'd');
        play(&mut game, "a5a1");
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(Player::Second, EndReason::KingEscaped))
        );
    }

    #[test]
    fn no_legal_move_loses() {
        // The attacker on a2 is shut in by the corner, a3 and b2.
        let mut game = position(&[("a2", 's'), ("a3", 'S'), ("b5", 'S'), ("f9", 'K')], 'd');
        play(&mut game, "b5b2");
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(Player::Second, EndReason::NoLegalAction))
        );
        // Read from a text, the side to move without a move has lost.
        let game = position(&[("a2", 's'), ("a3", 'S'), ("b2", 'S'), ("f9", 'K')], 'a');
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(Player::Second, EndReason::NoLegalAction))
        );
    }

    #[test]
    fn throne_rules() {
        // Only the king may stop on the throne; every piece passes over it.
        let game = position(&[("c6", 's'), ("f9", 'K')], 'a');
        let texts: Vec<String> = game
            .legal_vec()
            .into_iter()
            .map(|a| game.action_to_text(a))
            .collect();
        assert!(!texts.contains(&"c6f6".to_string()));
        assert!(texts.contains(&"c6g6".to_string()));
        let game = position(&[("c6", 'K'), ("a9", 's')], 'd');
        assert!(game.parse_move("c6f6").is_ok());
        // The empty throne is hostile to defenders...
        let mut game = position(&[("f5", 'S'), ("h4", 's'), ("f9", 'K')], 'a');
        play(&mut game, "h4f4");
        assert_eq!(at(&game, "f5"), None);
        // ...but not while the king is on it...
        let mut game = position(&[("f5", 'S'), ("h4", 's'), ("f6", 'K')], 'a');
        play(&mut game, "h4f4");
        assert_eq!(at(&game, "f5"), Some('S'));
        // ...and always hostile to attackers.
        let mut game = position(&[("f5", 's'), ("h4", 'S'), ("f9", 'K')], 'd');
        play(&mut game, "h4f4");
        assert_eq!(at(&game, "f5"), None);
    }

    #[test]
    fn the_defenders_may_not_repeat_a_position() {
        let mut game = position(&[("k10", 's'), ("c3", 'S'), ("f9", 'K')], 'a');
        for token in ["k10k9", "c3c4", "k9k10"] {
            play(&mut game, token);
        }
        // c4c3 would recreate the start position.
        assert!(game.parse_move("c4c3").is_err());
        let c4c3 = TaflAction::Move {
            from: GEOMETRY.parse_square("c4").expect("c4") as u8,
            to: GEOMETRY.parse_square("c3").expect("c3") as u8,
        };
        assert!(!game.legal_vec().contains(&c4c3));
        assert!(game.state().has_refusals());
        // The attackers may repeat: k10k9 recreates an earlier board.
        play(&mut game, "c4c5");
        play(&mut game, "k10k9");
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn encirclement_wins_for_the_attackers() {
        let pieces = [
            ("c3", 'K'),
            ("d3", 'S'),
            ("b3", 's'),
            ("c2", 's'),
            ("d2", 's'),
            ("c4", 's'),
            ("d4", 's'),
            ("e7", 's'),
        ];
        let mut game = position(&pieces, 'a');
        assert_eq!(game.outcome(), None);
        play(&mut game, "e7e3");
        assert_eq!(at(&game, "d3"), Some('S'));
        assert_eq!(game.outcome(), attackers_win());
    }

    #[test]
    fn random_playouts_end_cleanly() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut finished = 0;
        for _ in 0..200 {
            let mut game = Copenhagen::start();
            for _ in 0..2000 {
                let legal = game.legal_vec();
                if game.outcome().is_some() {
                    assert!(legal.is_empty());
                    break;
                }
                assert!(!legal.is_empty(), "no move but no outcome");
                let action = legal[next(legal.len())];
                let token = game.action_to_text(action);
                assert_eq!(game.parse_move(&token), Ok(vec![action]));
                if !game.state().has_refusals() {
                    let text = game.to_text();
                    let copy = Copenhagen::from_text(&text).expect("text round trip");
                    assert_eq!(copy.to_text(), text);
                    assert_eq!(copy.position_hash(), game.position_hash());
                }
                game.play(action);
            }
            finished += usize::from(game.outcome().is_some());
        }
        assert!(finished > 150, "only {finished} of 200 games ended");
    }
}
