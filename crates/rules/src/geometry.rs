//! Board geometry shared by every variant: square names and the board
//! field of FEN-like position texts (`docs/rules.md`, common conventions).
//!
//! Squares are numbered `rank * width + file`, rank 0 at the bottom
//! (rank `1` in notation), file 0 on the left (`a`).

use crate::PositionError;

/// Width and height of a rectangular board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Number of files (columns).
    pub width: usize,
    /// Number of ranks (rows).
    pub height: usize,
}

impl Geometry {
    /// A `width` x `height` board.
    pub const fn new(width: usize, height: usize) -> Self {
        Geometry { width, height }
    }

    /// Number of squares.
    pub const fn squares(&self) -> usize {
        self.width * self.height
    }

    /// File (0-based from the left) of `sq`.
    #[inline]
    pub const fn file(&self, sq: usize) -> usize {
        sq % self.width
    }

    /// Rank (0-based from the bottom) of `sq`.
    #[inline]
    pub const fn rank(&self, sq: usize) -> usize {
        sq / self.width
    }

    /// Square at (`file`, `rank`), or `None` off the board (signed so
    /// callers can step in any direction).
    #[inline]
    pub fn square(&self, file: isize, rank: isize) -> Option<usize> {
        if file < 0 || rank < 0 || file as usize >= self.width || rank as usize >= self.height {
            None
        } else {
            Some(rank as usize * self.width + file as usize)
        }
    }

    /// Name of `sq`, e.g. `a1`, `l7`, `k11`.
    pub fn name(&self, sq: usize) -> String {
        let file = (b'a' + self.file(sq) as u8) as char;
        format!("{file}{}", self.rank(sq) + 1)
    }

    /// Parse a square name at the start of `text`; returns the square and
    /// the number of bytes consumed (so move tokens like `k10k11` split
    /// without ambiguity: the rank is the longest valid number).
    pub fn parse_square_prefix(&self, text: &str) -> Option<(usize, usize)> {
        let bytes = text.as_bytes();
        let file = (*bytes.first()?).wrapping_sub(b'a') as usize;
        if file >= self.width {
            return None;
        }
        let digits = bytes[1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
            .min(2);
        // Prefer the longest rank that is on the board (k11 before k1).
        (1..=digits).rev().find_map(|len| {
            let rank: usize = text[1..1 + len].parse().ok()?;
            (rank >= 1 && rank <= self.height && !text[1..].starts_with('0'))
                .then(|| ((rank - 1) * self.width + file, 1 + len))
        })
    }

    /// Parse exactly one square name.
    pub fn parse_square(&self, text: &str) -> Option<usize> {
        match self.parse_square_prefix(text) {
            Some((sq, used)) if used == text.len() => Some(sq),
            _ => None,
        }
    }

    /// Parse the board field of a position text: rows from the top rank
    /// down separated by `/`, digits (one or two) for runs of empty squares,
    /// other characters turned into square contents by `piece`.
    /// Returns one entry per square in square order (`None` = empty).
    ///
    /// # Errors
    /// [`PositionError::Board`] for a wrong row count or row length,
    /// [`PositionError::BadChar`] when `piece` rejects a character.
    pub fn parse_board<T: Copy>(
        &self,
        field: &str,
        piece: impl Fn(char) -> Option<T>,
    ) -> Result<Vec<Option<T>>, PositionError> {
        let rows: Vec<&str> = field.split('/').collect();
        if rows.len() != self.height {
            return Err(PositionError::Board(format!(
                "{} rows, expected {}",
                rows.len(),
                self.height
            )));
        }
        let mut cells = vec![None; self.squares()];
        for (i, row) in rows.iter().enumerate() {
            let rank = self.height - 1 - i;
            let mut file = 0usize;
            let mut chars = row.chars().peekable();
            while let Some(c) = chars.next() {
                if let Some(d) = c.to_digit(10) {
                    let mut run = d as usize;
                    if let Some(d2) = chars.peek().and_then(|c| c.to_digit(10)) {
                        chars.next();
                        run = run * 10 + d2 as usize;
                    }
                    if run == 0 {
                        return Err(PositionError::Board(format!(
                            "empty run of 0 in row {:?}",
                            row
                        )));
                    }
                    file += run;
                } else {
                    let p = piece(c).ok_or(PositionError::BadChar { ch: c })?;
                    if file < self.width {
                        cells[rank * self.width + file] = Some(p);
                    }
                    file += 1;
                }
                if file > self.width {
                    break;
                }
            }
            if file != self.width {
                return Err(PositionError::Board(format!(
                    "row {:?} (rank {}) covers {} squares, expected {}",
                    row,
                    rank + 1,
                    file,
                    self.width
                )));
            }
        }
        Ok(cells)
    }

    /// Write the board field: the inverse of [`Geometry::parse_board`].
    /// `piece` gives the character of an occupied square; empty squares
    /// become digit runs.
    pub fn format_board<T: Copy>(&self, cells: &[Option<T>], piece: impl Fn(T) -> char) -> String {
        let mut out = String::new();
        for rank in (0..self.height).rev() {
            let mut empty = 0;
            for file in 0..self.width {
                match cells[rank * self.width + file] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                            empty = 0;
                        }
                        out.push(piece(p));
                    }
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip_on_every_board() {
        for g in [
            Geometry::new(8, 8),
            Geometry::new(12, 7),
            Geometry::new(11, 11),
            Geometry::new(7, 7),
        ] {
            for sq in 0..g.squares() {
                assert_eq!(g.parse_square(&g.name(sq)), Some(sq));
            }
        }
        let tafl = Geometry::new(11, 11);
        assert_eq!(tafl.parse_square_prefix("k10k11"), Some((9 * 11 + 10, 3)));
        assert_eq!(tafl.parse_square_prefix("k1k3"), Some((10, 2)));
        assert_eq!(tafl.parse_square("l1"), None);
        assert_eq!(tafl.parse_square("a0"), None);
        assert_eq!(tafl.parse_square("a12"), None);
    }

    #[test]
    fn board_field_round_trips_with_two_digit_runs() {
        let g = Geometry::new(12, 7);
        let field = "12/12/12/12/1PPPP2pppp1/RPNNPPppnnpr/RBKQBPpbqkbr";
        let cells = g
            .parse_board(field, |c| c.is_ascii_alphabetic().then_some(c))
            .unwrap();
        assert_eq!(cells[0], Some('R'));
        assert_eq!(cells[11], Some('r'));
        assert_eq!(g.format_board(&cells, |c| c), field);
        assert!(matches!(
            g.parse_board("12/12", Some),
            Err(PositionError::Board(_))
        ));
        assert!(matches!(
            g.parse_board("13/12/12/12/12/12/12", Some),
            Err(PositionError::Board(_))
        ));
        assert_eq!(
            Geometry::new(7, 7).parse_board("7/7/7/7/7/7/6?", |c| (c != '?').then_some(c)),
            Err(PositionError::BadChar { ch: '?' })
        );
    }
}
