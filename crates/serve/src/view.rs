//! What the page draws, so that it never re-implements the rules: the
//! board square by square (from the position text's board field, read by
//! `rules::Geometry::parse_board`), each legal move's click path, and the
//! Loki power counts (from `rules::tafl::Tafl`).

use std::any::Any;

use rules::tafl::state::{COMMAND, EXCHANGE, FREEZE, HOP};
use rules::{Game, Geometry, Loki, Player, VariantId};
use serde::Serialize;

use crate::variants;

/// The board, square by square in reading order (top rank first, file `a`
/// first in each rank).
#[derive(Clone, Debug, Serialize)]
pub struct BoardView {
    /// Files.
    pub width: usize,
    /// Ranks.
    pub height: usize,
    /// `width * height` squares.
    pub squares: Vec<SquareView>,
}

/// One square of a [`BoardView`].
#[derive(Clone, Debug, Serialize)]
pub struct SquareView {
    /// Square name (`e4`, `k11`).
    pub name: String,
    /// The piece letter of the position text (upper case: first player in
    /// chess and Shakti, defenders in tafl), or `None` when empty.
    pub piece: Option<char>,
    /// A Shakti hole (no tile): nothing can stand or land there.
    pub hole: bool,
    /// `"throne"` or `"corner"` on tafl boards.
    pub mark: Option<&'static str>,
    /// A Loki piece frozen for its owner's coming turn.
    pub frozen: bool,
}

/// One legal move as the page offers it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveView {
    /// The whole-turn token to send back (`docs/rules.md` notation).
    #[serde(rename = "move")]
    pub token: String,
    /// `move` (a plain move), `pass` (Shakti), or a Loki power:
    /// `exchange`, `command`, `freeze`, `hop`.
    pub kind: &'static str,
    /// The squares to click, in order (a repeated square written once: a
    /// command's second move starts where its first ended).
    pub path: Vec<String>,
    /// A promotion piece letter (`q`, `r`, `b`, `n`).
    pub promotion: Option<String>,
}

/// Remaining uses of the four Loki powers for one side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PowerUses {
    /// Exchange (needs a Trickster).
    pub exchange: u8,
    /// Command (needs a General).
    pub command: u8,
    /// Freeze (needs a Wizard).
    pub freeze: u8,
    /// Hop (needs a Horse).
    pub hop: u8,
}

/// The hole character of Shakti position texts (`docs/rules.md` §5); no
/// other variant uses `x` on its board.
const HOLE: char = 'x';

/// The board of `game` (a `width` x `height` board of `variant`).
pub fn board_view<G: Game>(game: &G, variant: VariantId, geometry: Geometry) -> BoardView {
    let text = game.to_text();
    let field = text.split_whitespace().next().unwrap_or("");
    // The rules wrote this text, so it parses; an empty board is the
    // harmless fallback should a variant ever write another layout.
    let cells = geometry
        .parse_board(field, Some)
        .unwrap_or_else(|_| vec![None; geometry.squares()]);
    let marks = variants::marks(variant);
    let frozen = frozen_squares(game);
    let squares = (0..geometry.height)
        .rev()
        .flat_map(|rank| (0..geometry.width).map(move |file| rank * geometry.width + file))
        .map(|sq| {
            let name = geometry.name(sq);
            let cell = cells.get(sq).copied().flatten();
            SquareView {
                piece: cell.filter(|&c| c != HOLE),
                hole: cell == Some(HOLE),
                mark: marks.iter().find(|(n, _)| *n == name).map(|&(_, m)| m),
                frozen: frozen.contains(&sq),
                name,
            }
        })
        .collect();
    BoardView {
        width: geometry.width,
        height: geometry.height,
        squares,
    }
}

/// The click path of a whole-turn `token` on a board of `geometry`.
pub fn move_view(geometry: Geometry, token: &str) -> MoveView {
    if token == "pass" {
        return MoveView {
            token: token.to_string(),
            kind: "pass",
            path: Vec::new(),
            promotion: None,
        };
    }
    let (kind, mut rest) = match token.split_once(':') {
        Some(("x", rest)) => ("exchange", rest),
        Some(("g", rest)) => ("command", rest),
        Some(("f", rest)) => ("freeze", rest),
        Some(("h", rest)) => ("hop", rest),
        _ => ("move", token),
    };
    let mut path: Vec<String> = Vec::new();
    while let Some((sq, used)) = geometry.parse_square_prefix(rest) {
        let name = geometry.name(sq);
        if path.last() != Some(&name) {
            path.push(name);
        }
        rest = &rest[used..];
    }
    MoveView {
        token: token.to_string(),
        kind,
        path,
        promotion: (!rest.is_empty()).then(|| rest.to_string()),
    }
}

/// Power uses of both sides (first player's first) when `game` is Loki.
pub fn powers<G: Game>(game: &G) -> Option<[PowerUses; 2]> {
    let loki = (game as &dyn Any).downcast_ref::<Loki>()?;
    let uses = |side| PowerUses {
        exchange: loki.state().uses(side, EXCHANGE),
        command: loki.state().uses(side, COMMAND),
        freeze: loki.state().uses(side, FREEZE),
        hop: loki.state().uses(side, HOP),
    };
    Some([uses(Player::First), uses(Player::Second)])
}

/// Squares of frozen Loki pieces (none in other variants).
fn frozen_squares<G: Game>(game: &G) -> Vec<usize> {
    let Some(loki) = (game as &dyn Any).downcast_ref::<Loki>() else {
        return Vec::new();
    };
    let set = loki.state().frozen();
    (0..128).filter(|&sq| set & (1u128 << sq) != 0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_paths() {
        let chess = Geometry::new(8, 8);
        let tafl = Geometry::new(11, 11);
        let m = move_view(chess, "e7e8q");
        assert_eq!(
            (m.kind, m.path, m.promotion.as_deref()),
            ("move", vec!["e7".into(), "e8".into()], Some("q"))
        );
        let m = move_view(tafl, "g:d4d6d6f6");
        assert_eq!(
            (m.kind, m.path),
            ("command", vec!["d4".into(), "d6".into(), "f6".into()])
        );
        let m = move_view(tafl, "k10k11");
        assert_eq!(m.path, vec!["k10".to_string(), "k11".to_string()]);
        assert_eq!(move_view(tafl, "f:e5").path, vec!["e5".to_string()]);
        assert_eq!(move_view(chess, "b7b8b").promotion.as_deref(), Some("b"));
        assert_eq!(move_view(Geometry::new(7, 7), "pass").kind, "pass");
    }
}
