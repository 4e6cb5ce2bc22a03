//! What the page draws, so that it never re-implements the rules: the
//! board and each legal move's click path, both from the variant's
//! [`rules::Describe`] (names, board view, move shapes). Nothing here is
//! per variant.

use std::collections::BTreeMap;

use rules::describe::{BoardView, MoveShape, PowerView};
use rules::Describe;
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
