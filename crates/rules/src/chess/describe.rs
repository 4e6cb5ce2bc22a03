//! [`Describe`] for the chess variants (`docs/rules.md` §1–2): a checkered
//! board of figurines between White and Black, in FEN and UCI notation.

use super::game::Chess;
use super::moves::{Move, Piece};
use super::san::SanError;
use super::spec::ChessVariant;
use crate::describe::{BoardStyle, BoardView, Describe, Figure, Shade, Shape, SquareView};
use crate::{Game, Geometry, Player};

/// Name and figurine of each piece kind, in [`Piece`] index order. The
/// filled figurines serve both colours (the page colours them): the
/// outline ones look hollow on a dark square.
const FIGURES: [(&str, &str); 6] = [
    ("pawn", "♟"),
    ("knight", "♞"),
    ("bishop", "♝"),
    ("rook", "♜"),
    ("queen", "♛"),
    ("king", "♚"),
];

impl<V: ChessVariant> Describe for Chess<V> {
    const NAME: &'static str = V::NAME;
    const SIDES: [&'static str; 2] = ["White", "Black"];
    const GEOMETRY: Geometry = Geometry::new(V::WIDTH, V::HEIGHT);
    const CHESS_NOTATION: bool = true;
    const COLOURS: [Shade; 2] = [Shade::Light, Shade::Dark];
    const SAN: bool = true;

    /// SAN written from the rule data ([`super::san`]); a chess move is one
    /// action.
    fn move_san(&self, actions: &[Move]) -> Option<String> {
        match actions {
            [m] => Some(self.board().san(*m)),
            _ => None,
        }
    }

    /// SAN read against the game's legal moves ([`super::san`]), so a game
    /// ended by a rule has none.
    fn parse_san(&self, text: &str) -> Result<Vec<Move>, SanError> {
        self.board()
            .parse_san_among(text, &self.legal_vec())
            .map(|m| vec![m])
    }

    /// Squares are dark where the file and the rank counted from a1 are
    /// both even or both odd: a1 is dark on every board, as in FIDE chess
    /// and in the Viking Chess diagram (whose 7 ranks make the top-left
    /// square dark too).
    fn board_view(&self) -> BoardView {
        let geometry = Self::GEOMETRY;
        let mut view = BoardView::build(geometry, BoardStyle::Checkered, Vec::new(), |sq| {
            let mut square = SquareView::empty(geometry, sq);
            square.shade = Some(if (geometry.file(sq) + geometry.rank(sq)) % 2 == 0 {
                Shade::Dark
            } else {
                Shade::Light
            });
            if let Some((colour, piece)) = self.board().piece_at(sq) {
                square.piece = Some(letter(colour, piece));
                let (name, symbol) = FIGURES[piece as usize];
                square.figure = Some(Figure {
                    side: if colour == 0 {
                        Player::First
                    } else {
                        Player::Second
                    },
                    name,
                    symbol,
                    shape: Shape::Glyph,
                    colour: Self::COLOURS[colour & 1],
                });
            }
            square
        });
        if self.in_check() {
            let side = self.board().side();
            view.check = Some(geometry.name(self.board().king(side)));
        }
        view
    }
}

/// The FEN letter of `piece` of `colour` (0 White, upper case).
fn letter(colour: usize, piece: Piece) -> char {
    if colour == 0 {
        piece.letter().to_ascii_uppercase()
    } else {
        piece.letter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::MoveShape;
    use crate::{Game, Losers, Viking};

    #[test]
    fn boards_and_moves() {
        let board = Losers::start().board_view();
        assert_eq!((board.width, board.height, board.squares.len()), (8, 8, 64));
        // a8 first, light; a1 dark; h1 light.
        let at = |name: &str| board.squares.iter().find(|s| s.name == name).unwrap();
        assert_eq!(board.squares[0].name, "a8");
        assert_eq!(at("a8").shade, Some(Shade::Light));
        assert_eq!(at("a1").shade, Some(Shade::Dark));
        assert_eq!(at("h1").shade, Some(Shade::Light));
        assert_eq!(at("e1").piece, Some('K'));
        let king = at("e8").figure.unwrap();
        assert_eq!(
            (king.side, king.name, king.symbol, king.colour),
            (Player::Second, "king", "♚", Shade::Dark)
        );
        assert_eq!(at("e4").figure, None);
        assert!(board.powers.is_empty());
        let viking = Viking::start().board_view();
        assert_eq!((viking.width, viking.height), (12, 7));
        let on_viking = |name: &str| viking.squares.iter().find(|s| s.name == name).unwrap();
        assert_eq!(on_viking("a1").shade, Some(Shade::Dark));
        assert_eq!(on_viking("a7").shade, Some(Shade::Dark));
        assert_eq!(on_viking("l1").shade, Some(Shade::Light));
        let m = Losers::start().move_shape("e2e4");
        assert_eq!(
            (m.kind, m.path),
            (MoveShape::MOVE, vec!["e2".into(), "e4".into()])
        );
    }
}
