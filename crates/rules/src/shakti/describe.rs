//! [`Describe`] for Shakti (`docs/rules.md` §5): discs on tiles, a
//! missing tile a hole; White and Black; the pass a move of its own.

use super::action::{GEOMETRY, PASS_TEXT};
use super::Shakti;
use crate::describe::{
    BoardStyle, BoardView, Describe, Figure, MoveShape, Shade, Shape, SquareView,
};
use crate::{Game, Geometry, Player};

impl Describe for Shakti {
    const NAME: &'static str = "Shakti";
    const SIDES: [&'static str; 2] = ["White", "Black"];
    const GEOMETRY: Geometry = GEOMETRY;
    const CHESS_NOTATION: bool = false;
    const COLOURS: [Shade; 2] = [Shade::Light, Shade::Dark];

    /// Kings are crowned discs (White's ♔, Black's ♚), warriors small
    /// plain discs; White light, Black dark.
    fn board_view(&self) -> BoardView {
        let mut view = BoardView::build(GEOMETRY, BoardStyle::Tiles, Vec::new(), |sq| {
            let mut square = SquareView::empty(GEOMETRY, sq);
            let bit = 1u64 << sq;
            square.hole = self.tiles() & bit == 0;
            for side in [Player::First, Player::Second] {
                let white = side == Player::First;
                let colour = Self::COLOURS[side.index()];
                let piece = if self.king(side) == sq {
                    Some(('K', "king", if white { "♔" } else { "♚" }, Shape::Disc))
                } else if self.warriors(side) & bit != 0 {
                    Some(('W', "warrior", "", Shape::SmallDisc))
                } else {
                    None
                };
                if let Some((letter, name, symbol, shape)) = piece {
                    square.piece = Some(if white {
                        letter
                    } else {
                        letter.to_ascii_lowercase()
                    });
                    square.figure = Some(Figure {
                        side,
                        name,
                        symbol,
                        shape,
                        colour,
                    });
                }
            }
            square
        });
        if self.in_check() {
            view.check = Some(GEOMETRY.name(self.king(self.side_to_move())));
        }
        view
    }

    /// The pass (`pass`) has no square; any other token is a plain move.
    fn move_shape(&self, token: &str) -> MoveShape {
        if token == PASS_TEXT {
            MoveShape::pass()
        } else {
            MoveShape::squares(GEOMETRY, MoveShape::MOVE, token)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_pieces_and_the_pass() {
        let game = Shakti::start_45();
        let board = game.board_view();
        let at = |name: &str| board.squares.iter().find(|s| s.name == name).unwrap();
        assert!(at("a1").hole && at("g7").hole && !at("b1").hole);
        assert_eq!((at("a1").piece, at("a1").figure), (None, None));
        assert_eq!(at("d2").piece, Some('K'));
        assert_eq!(at("b6").piece, Some('w'));
        let warrior = at("b6").figure.unwrap();
        assert_eq!(
            (warrior.side, warrior.shape, warrior.colour),
            (Player::Second, Shape::SmallDisc, Shade::Dark)
        );
        assert_eq!(game.move_shape("pass"), MoveShape::pass());
        assert_eq!(game.move_shape("b2b4").path, ["b2", "b4"]);
        // The greedy value: even warriors, no check.
        assert_eq!(Shakti::start().static_value(), 0.0);
    }
}
