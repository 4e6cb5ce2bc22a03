//! [`Describe`]: what a variant says about itself to a reader of its games
//! (the web page, match records) beyond the [`Game`] rules: its display
//! name, the names of its sides, the board as a list of squares, the
//! shape of each move token, and whether its notation is chess notation.
//! Every variant of the list implements it ([`crate::Variant`] requires
//! it), so code that shows games needs no per-variant branch.

use serde::{Serialize, Serializer};

use crate::{Game, Geometry, Player, SanError};

/// How a variant presents itself and its positions (`docs/rules.md`, each
/// variant's section). Data only: nothing here changes the rules.
pub trait Describe: Game {
    /// Display name (`"Losers Chess"`, `"Hnefatafl"`).
    const NAME: &'static str;

    /// Names of the first and the second player (`["White", "Black"]`,
    /// `["Attackers", "Defenders"]`).
    const SIDES: [&'static str; 2];

    /// Files and ranks of the board.
    const GEOMETRY: Geometry;

    /// Whether position texts are FEN and move tokens UCI long algebraic
    /// between White (the first player) and Black, so that records of its
    /// games can be PGN (`docs/rules.md` §1–2).
    const CHESS_NOTATION: bool;

    /// The colour of the first and the second player's pieces
    /// ([`Figure::colour`]), for a reader that colours a side (an
    /// evaluation bar, a result): `[Light, Dark]` in chess, `[Dark, Light]`
    /// in tafl, whose attackers have the dark pieces.
    const COLOURS: [Shade; 2];

    /// The board as it stands: every square with its piece, its mark and
    /// the powers left to each side.
    fn board_view(&self) -> BoardView;

    /// How one legal whole-turn move token (`docs/rules.md` notation) is
    /// entered on the board: its kind and the squares to click. The
    /// default reads the token as square names in a row with an optional
    /// suffix (a promotion piece), which is every variant's plain move.
    /// A text that is not a move token gives a shape with fewer squares,
    /// never a panic.
    fn move_shape(&self, token: &str) -> MoveShape {
        MoveShape::squares(Self::GEOMETRY, MoveShape::MOVE, token)
    }

    /// Whether the variant writes and reads its moves in Standard
    /// Algebraic Notation (PGN standard, section 8.2.3):
    /// [`Describe::move_san`] gives `Some` and [`Describe::parse_san`]
    /// reads. `false` by default.
    const SAN: bool = false;

    /// The move `actions` (one whole turn played from `self`, as
    /// [`Game::move_text`] takes it) in Standard Algebraic Notation (PGN
    /// standard, section 8.2.3: `e4`, `Nbd7`, `exd8=Q+`, `O-O`), or `None`
    /// (the default) for a variant without SAN. The actions must be legal
    /// here; for others the text is unspecified (never a panic).
    fn move_san(&self, _actions: &[Self::Action]) -> Option<String> {
        None
    }

    /// Read one move in Standard Algebraic Notation (PGN standard, section
    /// 8.2.3) into the legal actions it consists of: the inverse of
    /// [`Describe::move_san`].
    ///
    /// # Errors
    /// [`SanError`] naming the text and why (malformed, illegal,
    /// ambiguous, game over); [`SanError::Unsupported`] (the default) for
    /// a variant without SAN. Never panics.
    fn parse_san(&self, text: &str) -> Result<Vec<Self::Action>, SanError> {
        Err(SanError::Unsupported {
            text: text.to_string(),
            variant: Self::NAME,
        })
    }

    /// The move's text for a reader: [`Describe::move_san`] where the
    /// variant has SAN, else [`Game::move_text`].
    fn move_notation(&self, actions: &[Self::Action]) -> String {
        self.move_san(actions)
            .unwrap_or_else(|| self.move_text(actions))
    }
}

/// How the page draws a board's squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BoardStyle {
    /// Light and dark squares ([`SquareView::shade`]), as a chess board.
    Checkered,
    /// One colour with lines between the squares, as a tafl board.
    Lines,
    /// Separate tiles over a dark table; a missing tile is a hole
    /// ([`SquareView::hole`]).
    Tiles,
}

/// The colour of a square or of a piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shade {
    /// The light colour.
    Light,
    /// The dark colour.
    Dark,
}

/// A marked square (`docs/rules.md` §3): only the king may stop there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// The tafl throne (centre square).
    Throne,
    /// A tafl corner square (the king escapes there).
    Corner,
}

/// How a piece is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// A figurine character ([`Figure::symbol`]) in the piece's colour.
    Glyph,
    /// A disc in the piece's colour, with [`Figure::symbol`] on it.
    Disc,
    /// A smaller disc (a minor piece among discs).
    SmallDisc,
}

/// A board as [`Describe::board_view`] gives it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardView {
    /// Files.
    pub width: usize,
    /// Ranks.
    pub height: usize,
    /// How the squares are drawn.
    pub style: BoardStyle,
    /// `width * height` squares in reading order: the top rank first, file
    /// `a` first in each rank.
    pub squares: Vec<SquareView>,
    /// The powers of the variant with the uses left to each side, in
    /// their order in the notation (empty for a variant without powers).
    pub powers: Vec<PowerView>,
    /// The square of the side to move's king when it is in check, in a
    /// variant with check (`None` otherwise, and in a variant without).
    pub check: Option<String>,
}

/// One square of a [`BoardView`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SquareView {
    /// Square name (`e4`, `k11`).
    pub name: String,
    /// The piece letter of the position text, or `None` when empty.
    pub piece: Option<char>,
    /// How to draw the piece, or `None` when empty.
    pub figure: Option<Figure>,
    /// A square without a tile (Shakti, `docs/rules.md` §5): nothing
    /// stands or lands there.
    pub hole: bool,
    /// A marked square, or `None`.
    pub mark: Option<Mark>,
    /// The piece here is frozen for its owner's coming turn (Loki,
    /// `docs/rules.md` §4, Freeze).
    pub frozen: bool,
    /// The square's colour on a [`BoardStyle::Checkered`] board.
    pub shade: Option<Shade>,
}

/// How to draw one piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Figure {
    /// The owner.
    #[serde(serialize_with = "side_name")]
    pub side: Player,
    /// The piece's name (`"king"`, `"Trickster"`).
    pub name: &'static str,
    /// The character drawn (may be empty: a plain disc).
    pub symbol: &'static str,
    /// Glyph or disc.
    pub shape: Shape,
    /// The piece's colour.
    pub colour: Shade,
}

/// The remaining uses of one power (Loki, `docs/rules.md` §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PowerView {
    /// The power's id, also the [`MoveShape::kind`] of its moves
    /// (`"exchange"`).
    pub kind: &'static str,
    /// Display name (`"Exchange"`).
    pub name: &'static str,
    /// Uses left to the first and the second player.
    pub uses: [u8; 2],
}

/// How a move token is entered ([`Describe::move_shape`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveShape {
    /// [`MoveShape::MOVE`] (a plain move), [`MoveShape::PASS`], or the
    /// [`PowerView::kind`] of the power it uses.
    pub kind: &'static str,
    /// The squares to click, in order; a square repeated in a row is
    /// written once (a command's second move starts where its first
    /// ended).
    pub path: Vec<String>,
    /// The text after the squares (a chess promotion piece, `q`).
    pub promotion: Option<String>,
}

impl MoveShape {
    /// The kind of a plain move.
    pub const MOVE: &'static str = "move";
    /// The kind of a pass (no square to click).
    pub const PASS: &'static str = "pass";

    /// A pass.
    pub fn pass() -> Self {
        MoveShape {
            kind: Self::PASS,
            path: Vec::new(),
            promotion: None,
        }
    }

    /// A move of `kind` whose `text` is square names of `geometry` in a
    /// row, then an optional suffix ([`MoveShape::promotion`]).
    pub fn squares(geometry: Geometry, kind: &'static str, text: &str) -> Self {
        let mut rest = text;
        let mut path: Vec<String> = Vec::new();
        while let Some((sq, used)) = geometry.parse_square_prefix(rest) {
            let name = geometry.name(sq);
            if path.last() != Some(&name) {
                path.push(name);
            }
            rest = &rest[used..];
        }
        MoveShape {
            kind,
            path,
            promotion: (!rest.is_empty()).then(|| rest.to_string()),
        }
    }
}

impl BoardView {
    /// A board of `geometry` in `style` whose square `sq` (numbered
    /// `rank * width + file`) is `square(sq)`, listed in reading order.
    pub fn build(
        geometry: Geometry,
        style: BoardStyle,
        powers: Vec<PowerView>,
        square: impl Fn(usize) -> SquareView,
    ) -> Self {
        let squares = (0..geometry.height)
            .rev()
            .flat_map(|rank| (0..geometry.width).map(move |file| rank * geometry.width + file))
            .map(square)
            .collect();
        BoardView {
            width: geometry.width,
            height: geometry.height,
            style,
            squares,
            powers,
            check: None,
        }
    }
}

impl SquareView {
    /// An empty square `sq` of `geometry`, without mark or shade.
    pub fn empty(geometry: Geometry, sq: usize) -> Self {
        SquareView {
            name: geometry.name(sq),
            piece: None,
            figure: None,
            hole: false,
            mark: None,
            frozen: false,
            shade: None,
        }
    }
}

/// `"first"` or `"second"`, as the rest of the JSON names sides.
fn side_name<S: Serializer>(side: &Player, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(match side {
        Player::First => "first",
        Player::Second => "second",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_shapes_of_square_runs() {
        let chess = Geometry::new(8, 8);
        let tafl = Geometry::new(11, 11);
        let m = MoveShape::squares(chess, MoveShape::MOVE, "e7e8q");
        assert_eq!(
            (m.kind, m.path, m.promotion.as_deref()),
            ("move", vec!["e7".into(), "e8".into()], Some("q"))
        );
        let m = MoveShape::squares(tafl, MoveShape::MOVE, "k10k11");
        assert_eq!(m.path, ["k10", "k11"]);
        assert_eq!(m.promotion, None);
        // A repeated square is clicked once.
        let m = MoveShape::squares(tafl, "command", "d4d6d6f6");
        assert_eq!(m.path, ["d4", "d6", "f6"]);
        // Text that is no square: no path, the text kept as the suffix.
        let m = MoveShape::squares(chess, MoveShape::MOVE, "z9");
        assert_eq!((m.path.len(), m.promotion.as_deref()), (0, Some("z9")));
    }

    #[test]
    fn board_views_list_squares_in_reading_order() {
        let g = Geometry::new(3, 2);
        let board = BoardView::build(g, BoardStyle::Lines, Vec::new(), |sq| {
            SquareView::empty(g, sq)
        });
        let names: Vec<&str> = board.squares.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a2", "b2", "c2", "a1", "b1", "c1"]);
        let json = serde_json::to_value(&board).unwrap();
        assert_eq!(json["style"], "lines");
        assert_eq!(json["squares"][0]["mark"], serde_json::Value::Null);
        assert_eq!(json["check"], serde_json::Value::Null);
    }
}
