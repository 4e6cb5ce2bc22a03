//! Books of positions: one position text per line, the form self-play
//! curricula (`[selfplay] branch_book`) and match openings
//! (`lokizero match --openings`) read.

use crate::game::{Game, PositionError};

/// Why a book is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    /// A line is not a position of the variant.
    #[error("line {line}: {reason}")]
    Position {
        /// 1-based line number.
        line: usize,
        /// Why the text does not parse.
        reason: PositionError,
    },
    /// A line is a position where the game is already over (a game from
    /// it would have no move to play).
    #[error("line {line}: the game is already over there")]
    Finished {
        /// 1-based line number.
        line: usize,
    },
    /// The book holds no position.
    #[error("no positions in the book")]
    Empty,
}

/// The positions of a book's `text`, in order: one position text per
/// line; blank lines and lines starting with `#` skipped (a leading
/// byte-order mark too).
///
/// # Errors
/// The first line that does not parse or whose game is over, or a book
/// without positions.
///
/// # Example
/// ```
/// use rules::{book::parse_book, Game, Losers};
/// let book = "# two endgames\n8/8/k7/4p3/4P3/3P4/8/6K1 w - - 0 1\n\n5K2/8/8/1k2p3/4P3/8/7R/2R5 b - - 0 1\n";
/// let games: Vec<Losers> = parse_book(book).unwrap();
/// assert_eq!(games.len(), 2);
/// assert!(parse_book::<Losers>("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
/// ```
pub fn parse_book<G: Game>(text: &str) -> Result<Vec<G>, BookError> {
    let mut positions = Vec::new();
    // A byte-order mark, as some editors write, is not part of line 1.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let game = G::from_text(line).map_err(|reason| BookError::Position {
            line: i + 1,
            reason,
        })?;
        if game.outcome().is_some() {
            return Err(BookError::Finished { line: i + 1 });
        }
        positions.push(game);
    }
    if positions.is_empty() {
        return Err(BookError::Empty);
    }
    Ok(positions)
}
