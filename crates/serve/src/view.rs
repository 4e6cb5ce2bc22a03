//! What the page draws, so that it never re-implements the rules: the
//! board and each legal move's click path, both from the variant's
//! [`rules::Describe`] (names, board view, move shapes). Nothing here is
//! per variant.

use std::collections::BTreeMap;

use rules::describe::{BoardView, Figure, MoveShape, PowerView};
use rules::{Describe, Player};
use serde::Serialize;

/// One legal move as the page offers it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveView {
    /// The whole-turn token to send back (`docs/rules.md` notation).
    #[serde(rename = "move")]
    pub token: String,
    /// `move` (a plain move), `pass`, or the kind of the power it uses
    /// (one of the board's `powers`).
    pub kind: &'static str,
    /// The squares to click, in order (a repeated square written once).
    pub path: Vec<String>,
    /// A promotion piece letter (`q`, `r`, `b`, `n`).
    pub promotion: Option<String>,
}

/// The move view of the whole-turn `token`, legal in `game`.
pub fn move_view<G: Describe>(game: &G, token: &str) -> MoveView {
    let MoveShape {
        kind,
        path,
        promotion,
    } = game.move_shape(token);
    MoveView {
        token: token.to_string(),
        kind,
        path,
        promotion,
    }
}

/// The remaining uses of each power of `board`, per side (first player's
/// first), keyed by the power's kind; `None` for a variant without powers.
pub fn power_uses(board: &BoardView) -> Option<[BTreeMap<&'static str, u8>; 2]> {
    if board.powers.is_empty() {
        return None;
    }
    let side = |i: usize| {
        board
            .powers
            .iter()
            .map(|&PowerView { kind, uses, .. }| (kind, uses[i]))
            .collect()
    };
    Some([side(0), side(1)])
}

/// A piece a move took off the board.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TakenPiece {
    /// The square it was taken on.
    pub square: String,
    /// The piece, as the board draws it (its side, name and looks).
    pub figure: Figure,
}

/// The pieces of board `before` that are not on board `after` (a piece
/// that moved is still there), counted by side and name. Each is placed
/// where such a piece stood and no longer does: first where another piece
/// now stands (taken by replacement), then where nothing does, a square
/// of the move's click `path` last (where the mover left from). A side
/// whose number of pieces did not fall lost none: its piece changed kind
/// (a promotion), so nothing was taken.
pub fn removed_pieces(before: &BoardView, after: &BoardView, path: &[String]) -> Vec<TakenPiece> {
    let key = |f: &Figure| (f.side, f.name);
    let count = |board: &BoardView| {
        let mut n: BTreeMap<(Player, &'static str), usize> = BTreeMap::new();
        for f in board.squares.iter().filter_map(|sq| sq.figure.as_ref()) {
            *n.entry(key(f)).or_default() += 1;
        }
        n
    };
    let (mut was, is) = (count(before), count(after));
    let now = |i: usize| after.squares.get(i).and_then(|sq| sq.figure.as_ref());
    let mut gone: Vec<usize> = (0..before.squares.len())
        .filter(|&i| {
            before.squares[i]
                .figure
                .as_ref()
                .is_some_and(|f| now(i).is_none_or(|n| key(n) != key(f)))
        })
        .collect();
    let rank = |i: usize| match now(i) {
        Some(_) => 0,
        None if path.contains(&before.squares[i].name) => 2,
        None => 1,
    };
    gone.sort_by_key(|&i| rank(i));
    let mut removed = Vec::new();
    for i in gone {
        let square = &before.squares[i];
        let Some(figure) = square.figure.as_ref() else {
            continue;
        };
        let k = key(figure);
        let left = was.get(&k).copied().unwrap_or(0);
        if left <= is.get(&k).copied().unwrap_or(0) {
            continue;
        }
        was.insert(k, left - 1);
        removed.push(TakenPiece {
            square: square.name.clone(),
            figure: *figure,
        });
    }
    let total = |board: &BoardView, side: Player| {
        board
            .squares
            .iter()
            .filter(|sq| sq.figure.as_ref().is_some_and(|f| f.side == side))
            .count()
    };
    removed.retain(|p| total(after, p.figure.side) < total(before, p.figure.side));
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    use rules::describe::{BoardStyle, SquareView};
    use rules::{Game, Geometry, VariantId};

    #[test]
    fn every_legal_start_move_has_a_click_path_on_the_board() {
        for variant in VariantId::ALL {
            rules::with_variant!(variant, G => {
                let game = G::start();
                let board = game.board_view();
                assert_eq!(board.squares.len(), board.width * board.height);
                let names: HashSet<&str> = board.squares.iter().map(|s| s.name.as_str()).collect();
                let turns = rules::perft_turns_divide(&game, 1);
                assert!(!turns.is_empty(), "{variant}");
                for (actions, _) in turns {
                    let token = game.move_text(&actions);
                    let view = move_view(&game, &token);
                    assert_eq!(view.token, token);
                    assert!(
                        view.kind == MoveShape::PASS || !view.path.is_empty(),
                        "{variant}: {token} has no path"
                    );
                    assert!(
                        view.path.iter().all(|sq| names.contains(sq.as_str())),
                        "{variant}: {token} leaves the board: {:?}",
                        view.path
                    );
                }
            })
        }
    }

    #[test]
    fn removed_pieces_names_captures_not_promotions() {
        use rules::Losers;
        let taken = |fen: &str, token: &str| {
            let mut game = Losers::from_text(fen).unwrap();
            let before = game.board_view();
            let path = game.move_shape(token).path;
            for a in game
                .parse_move(token)
                .unwrap_or_else(|e| panic!("{fen} {token}: {e}"))
            {
                game.play(a);
            }
            removed_pieces(&before, &game.board_view(), &path)
        };
        let capture = taken("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5");
        assert_eq!(capture.len(), 1);
        assert_eq!(
            (
                capture[0].figure.side,
                capture[0].figure.name,
                capture[0].square.as_str()
            ),
            (Player::Second, "pawn", "d5")
        );
        assert!(taken("4k2n/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q").is_empty());
        assert!(taken("4k3/p7/8/8/8/8/4P3/4K3 w - - 0 1", "e2e4").is_empty());
    }

    #[test]
    fn power_uses_per_side() {
        let g = Geometry::new(2, 2);
        let mut board = BoardView::build(g, BoardStyle::Lines, Vec::new(), |sq| {
            SquareView::empty(g, sq)
        });
        assert_eq!(power_uses(&board), None);
        board.powers = vec![
            PowerView {
                kind: "a",
                name: "A",
                uses: [3, 1],
            },
            PowerView {
                kind: "b",
                name: "B",
                uses: [0, 2],
            },
        ];
        let [first, second] = power_uses(&board).unwrap();
        assert_eq!((first["a"], first["b"]), (3, 0));
        assert_eq!((second["a"], second["b"]), (1, 2));
    }
}
