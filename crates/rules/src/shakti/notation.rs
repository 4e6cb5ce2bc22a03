//! Shakti position text (`docs/rules.md` §5, Notation): board field rows
//! from rank 7 down, `K`/`W` white, `k`/`w` black, digits for runs of empty
//! tiles, `x` for each hole; then the side to move, `w` or `b`.
//! Example (the 49-tile start): `7/1w1k1w1/7/7/7/1W1K1W1/7 w`.

use super::action::GEOMETRY;
use super::board::Board;
use super::rays::{ALL, SQUARES};
use crate::{Player, PositionError};

/// Contents of one square in the board field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    Hole,
    King(Player),
    Warrior(Player),
}

fn cell_of_char(c: char) -> Option<Cell> {
    match c {
        'x' => Some(Cell::Hole),
        'K' => Some(Cell::King(Player::First)),
        'k' => Some(Cell::King(Player::Second)),
        'W' => Some(Cell::Warrior(Player::First)),
        'w' => Some(Cell::Warrior(Player::Second)),
        _ => None,
    }
}

fn char_of_cell(cell: Cell) -> char {
    match cell {
        Cell::Hole => 'x',
        Cell::King(Player::First) => 'K',
        Cell::King(Player::Second) => 'k',
        Cell::Warrior(Player::First) => 'W',
        Cell::Warrior(Player::Second) => 'w',
    }
}

/// Parse a position text into a board, rejecting positions the rules can
/// never produce: not exactly one king per side, kings that see each
/// other, or the side *not* to move in check (its last move or pass would
/// have been illegal).
pub fn parse(text: &str) -> Result<Board, PositionError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [board_field, side_field] = fields[..] else {
        return Err(PositionError::FieldCount {
            found: fields.len(),
            expected: "2 (board, side to move)".to_string(),
        });
    };
    let side = match side_field {
        "w" => Player::First,
        "b" => Player::Second,
        other => {
            return Err(PositionError::Field {
                field: "side to move",
                text: other.to_string(),
                reason: "expected `w` or `b`".to_string(),
            })
        }
    };
    let cells = GEOMETRY.parse_board(board_field, cell_of_char)?;
    let mut board = Board {
        tiles: ALL,
        warriors: [0, 0],
        kings: [0, 0],
        side,
    };
    let mut king_count = [0usize; 2];
    for (sq, cell) in cells.iter().enumerate() {
        match cell {
            None => {}
            Some(Cell::Hole) => board.tiles &= !(1u64 << sq),
            Some(Cell::King(p)) => {
                king_count[p.index()] += 1;
                board.kings[p.index()] = sq as u8;
            }
            Some(Cell::Warrior(p)) => board.warriors[p.index()] |= 1u64 << sq,
        }
    }
    validate(&board, king_count)?;
    Ok(board)
}

fn validate(board: &Board, king_count: [usize; 2]) -> Result<(), PositionError> {
    for (p, name) in [
        (Player::First, "white king K"),
        (Player::Second, "black king k"),
    ] {
        if king_count[p.index()] != 1 {
            return Err(PositionError::Illegal(format!(
                "expected exactly one {name}, found {}",
                king_count[p.index()]
            )));
        }
    }
    if board.kings_facing() {
        return Err(PositionError::Illegal(
            "the kings see each other (mutual check rule)".to_string(),
        ));
    }
    if board.in_check(board.side.opponent()) {
        return Err(PositionError::Illegal(
            "the side not to move is in check".to_string(),
        ));
    }
    Ok(())
}

/// Write the position text of `board` (inverse of [`parse`]).
pub fn format(board: &Board) -> String {
    let cells: Vec<Option<Cell>> = (0..SQUARES)
        .map(|sq| {
            let b = 1u64 << sq;
            if board.tiles & b == 0 {
                Some(Cell::Hole)
            } else if let Some(p) = [Player::First, Player::Second]
                .into_iter()
                .find(|p| board.kings[p.index()] as usize == sq)
            {
                Some(Cell::King(p))
            } else {
                [Player::First, Player::Second]
                    .into_iter()
                    .find(|p| board.warriors[p.index()] & b != 0)
                    .map(Cell::Warrior)
            }
        })
        .collect();
    let side = match board.side {
        Player::First => 'w',
        Player::Second => 'b',
    };
    format!("{} {side}", GEOMETRY.format_board(&cells, char_of_cell))
}
