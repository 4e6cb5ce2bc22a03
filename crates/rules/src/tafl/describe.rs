//! [`Describe`] for the tafl variants (`docs/rules.md` §3–4): discs on an
//! 11x11 board of lines with a throne and four corners, between the
//! attackers and the defenders; Loki's powers and frozen pieces. Also the
//! static value of the greedy baseline ([`crate::Game::static_value`]).

use super::board::{Kind, CORNERS, CORNER_MASK, GEOMETRY, SIZE, THRONE};
use super::games::{Copenhagen, Hnefatafl, Loki};
use super::state::{Tafl, COMMAND, EXCHANGE, FREEZE, HOP};
use super::turn::Turn;
use crate::describe::{
    BoardStyle, BoardView, Describe, Figure, Mark, MoveShape, PowerView, Shade, Shape, SquareView,
};
use crate::{Geometry, Player};

/// The attackers and the defenders (`docs/rules.md` §3).
const SIDES: [&str; 2] = ["Attackers", "Defenders"];

/// Attackers dark, defenders light.
const COLOURS: [Shade; 2] = [Shade::Dark, Shade::Light];

/// Kind and display name of the four powers, by their index in the state
/// ([`EXCHANGE`], [`COMMAND`], [`FREEZE`], [`HOP`]), `docs/rules.md` §4.
const POWERS: [(usize, &str, &str); 4] = [
    (EXCHANGE, "exchange", "Exchange"),
    (COMMAND, "command", "Command"),
    (FREEZE, "freeze", "Freeze"),
    (HOP, "hop", "Hop"),
];

/// Name and symbol of a piece kind: the king a crowned disc, soldiers
/// plain discs, the special pieces their letter.
fn figure(kind: Kind) -> (&'static str, &'static str) {
    match kind {
        Kind::Soldier => ("soldier", ""),
        Kind::King => ("king", "♔"),
        Kind::Trickster => ("Trickster", "T"),
        Kind::General => ("General", "G"),
        Kind::Wizard => ("Wizard", "W"),
        Kind::Horse => ("Horse", "H"),
    }
}

impl Tafl {
    /// The board of this state, with `powers` listed (Loki) or not.
    fn board_view(&self, powers: bool) -> BoardView {
        let powers = if powers {
            POWERS
                .iter()
                .map(|&(index, kind, name)| PowerView {
                    kind,
                    name,
                    uses: [
                        self.uses(Player::First, index),
                        self.uses(Player::Second, index),
                    ],
                })
                .collect()
        } else {
            Vec::new()
        };
        BoardView::build(GEOMETRY, BoardStyle::Lines, powers, |sq| {
            let mut square = SquareView::empty(GEOMETRY, sq);
            square.mark = if sq == THRONE {
                Some(Mark::Throne)
            } else if CORNER_MASK & (1u128 << sq) != 0 {
                Some(Mark::Corner)
            } else {
                None
            };
            square.frozen = self.frozen() & (1u128 << sq) != 0;
            if let Some(piece) = self.piece_at(sq) {
                let (name, symbol) = figure(piece.kind);
                square.piece = Some(piece.to_char());
                square.figure = Some(Figure {
                    side: piece.side,
                    name,
                    symbol,
                    shape: Shape::Disc,
                    colour: COLOURS[piece.side.index()],
                });
            }
            square
        })
    }

    /// Material from the attackers' view for [`crate::Game::material`]:
    /// the attackers' pieces count 1 each, the defenders' 2 each (the
    /// king not counted), so the start's 24 against 12 is level. Capturing
    /// defenders brings the attackers' encirclement and the king's capture
    /// nearer; capturing attackers opens the king's roads. A measure of
    /// progress for self-play's adjudication only, chosen by this
    /// project (the published rules value no piece).
    pub fn material(&self) -> f32 {
        let mut count = [0.0f32; 2];
        for piece in self.cells.iter().flatten() {
            if piece.kind != Kind::King {
                count[piece.side.index()] += 1.0;
            }
        }
        count[0] - 2.0 * count[1]
    }

    /// The greedy baseline's value from the attackers' view: non-king
    /// pieces of the attackers minus the defenders', plus a quarter per
    /// step (Chebyshev) from the king to its nearest corner.
    pub fn static_value(&self) -> f32 {
        let mut count = [0.0f32; 2];
        for piece in self.cells.iter().flatten() {
            if piece.kind != Kind::King {
                count[piece.side.index()] += 1.0;
            }
        }
        let distance = self.king_square().map_or(0, |k| {
            CORNERS
                .iter()
                .map(|&c| {
                    (k / SIZE)
                        .abs_diff(c / SIZE)
                        .max((k % SIZE).abs_diff(c % SIZE))
                })
                .min()
                .unwrap_or(0)
        });
        count[0] - count[1] + 0.25 * distance as f32
    }
}

/// `Describe` for a tafl ruleset without powers: plain moves, the board
/// without Loki's frozen marks.
macro_rules! describe_plain_tafl {
    ($G:ty, $name:literal) => {
        impl Describe for $G {
            const NAME: &'static str = $name;
            const SIDES: [&'static str; 2] = SIDES;
            const GEOMETRY: Geometry = GEOMETRY;
            const CHESS_NOTATION: bool = false;
            const COLOURS: [Shade; 2] = COLOURS;

            fn board_view(&self) -> BoardView {
                self.state().board_view(false)
            }
        }
    };
}

describe_plain_tafl!(Hnefatafl, "Hnefatafl");
describe_plain_tafl!(Copenhagen, "Copenhagen Hnefatafl");

impl Describe for Loki {
    const NAME: &'static str = "Loki Chess";
    const SIDES: [&'static str; 2] = SIDES;
    const GEOMETRY: Geometry = GEOMETRY;
    const CHESS_NOTATION: bool = false;
    const COLOURS: [Shade; 2] = COLOURS;

    fn board_view(&self) -> BoardView {
        self.state().board_view(true)
    }

    /// A plain move, or a power's move ([`Turn`]): its squares in the
    /// order of the token (`x:e5d4`: the enemy piece, then the own one;
    /// `g:d4d6d6f6`: d4, d6, f6).
    fn move_shape(&self, token: &str) -> MoveShape {
        let name = |sq: u8| GEOMETRY.name(sq as usize);
        let (kind, squares) = match Turn::parse(token) {
            Ok(Turn::Move { from, to }) => (MoveShape::MOVE, vec![from, to]),
            Ok(Turn::Hop { from, to }) => ("hop", vec![from, to]),
            Ok(Turn::Freeze { target }) => ("freeze", vec![target]),
            Ok(Turn::Exchange { enemy, own }) => ("exchange", vec![enemy, own]),
            Ok(Turn::Command { from, mid, to }) => (
                "command",
                [Some(from), Some(mid), to].into_iter().flatten().collect(),
            ),
            Err(_) => return MoveShape::squares(GEOMETRY, MoveShape::MOVE, token),
        };
        MoveShape {
            kind,
            path: squares.into_iter().map(name).collect(),
            promotion: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;

    #[test]
    fn marks_powers_and_move_shapes() {
        let board = Loki::start().board_view();
        let at = |name: &str| board.squares.iter().find(|s| s.name == name).unwrap();
        assert_eq!(at("f6").mark, Some(Mark::Throne));
        assert_eq!(at("a1").mark, Some(Mark::Corner));
        assert_eq!(at("k11").mark, Some(Mark::Corner));
        assert_eq!(at("b1").mark, None);
        assert_eq!(at("f6").piece, Some('K'));
        let king = at("f6").figure.unwrap();
        assert_eq!(
            (king.side, king.colour, king.symbol),
            (Player::Second, Shade::Light, "♔")
        );
        let kinds: Vec<&str> = board.powers.iter().map(|p| p.kind).collect();
        assert_eq!(kinds, ["exchange", "command", "freeze", "hop"]);
        assert!(board.powers.iter().all(|p| p.uses == [3, 3]));
        assert!(Hnefatafl::start().board_view().powers.is_empty());

        let loki = Loki::start();
        let m = loki.move_shape("g:d4d6d6f6");
        assert_eq!(
            (m.kind, m.path),
            ("command", vec!["d4".into(), "d6".into(), "f6".into()])
        );
        let m = loki.move_shape("x:e5d4");
        assert_eq!(
            (m.kind, m.path),
            ("exchange", vec!["e5".into(), "d4".into()])
        );
        assert_eq!(loki.move_shape("f:e5").path, ["e5"]);
        assert_eq!(loki.move_shape("h:d1d3").kind, "hop");
        assert_eq!(loki.move_shape("k10k11").path, ["k10", "k11"]);
        // Not a token: no panic, a plain shape of what parses.
        assert_eq!(loki.move_shape("q:zz").path.len(), 0);
    }

    #[test]
    fn frozen_pieces_are_marked() {
        let loki = Loki::from_text("5s5/11/11/11/11/11/11/11/11/11/1K3S5 d 3333/3333 f=f1:1")
            .expect("a position with a frozen defender");
        let board = loki.board_view();
        let frozen: Vec<&str> = board
            .squares
            .iter()
            .filter(|s| s.frozen)
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(frozen, ["f1"]);
    }

    #[test]
    fn static_value_of_the_start() {
        // 24 attackers against 12 defenders; the king on the throne, 5
        // steps from a corner.
        assert_eq!(Hnefatafl::start().static_value(), 12.0 + 1.25);
    }

    #[test]
    fn material_is_level_at_the_start_and_counts_defenders_double() {
        assert_eq!(Hnefatafl::start().material(), Some(0.0));
        assert_eq!(Copenhagen::start().material(), Some(0.0));
        // Loki's special pieces have no agreed value.
        assert_eq!(Loki::start().material(), None);
        // Two attackers (b2, j10) against one defender and the king.
        let copenhagen = Copenhagen::from_text("11/9s1/11/11/11/5K5/5S5/11/11/1s9/11 a")
            .expect("a copenhagen position");
        assert_eq!(copenhagen.material(), Some(0.0));
        let fewer = Copenhagen::from_text("11/9s1/11/11/11/5K5/11/11/11/1s9/11 a")
            .expect("a copenhagen position");
        assert_eq!(fewer.material(), Some(2.0));
    }
}
