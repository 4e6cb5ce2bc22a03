//! Standard Algebraic Notation (SAN) for the chess variants, after the PGN
//! standard (Steven J. Edwards, "Portable Game Notation Specification and
//! Implementation Guide", 1994), section 8.2.3 "Movetext SAN".
//!
//! Written from the rule data of [`ChessVariant`], so one implementation
//! serves every variant of the family (any board size: files `a`.., ranks
//! `1`..):
//!
//! - A piece move is the piece letter (`N B R Q K`, §8.2.3.2), then, only
//!   when another legal move of a piece of the same kind reaches the same
//!   square, the origin's file, else its rank, else both (§8.2.3.4), `x`
//!   for a capture (§8.2.3.3) and the destination square.
//! - A pawn move is the destination square; a pawn capture (en passant
//!   included) is the origin's file, `x` and the destination; a promotion
//!   adds `=` and the piece letter (`exd8=Q`, §8.2.3.3).
//! - Castling is `O-O` (towards the higher files) or `O-O-O` (§8.2.3.3),
//!   only in a variant with castling.
//! - A move that leaves the opponent in check gets `+`, one that leaves it
//!   in check without a legal move `#` (§8.2.3.6), as the variant's rules
//!   define check and legal moves (Losers Chess has check; a mate there is a
//!   win for the mated side, but still written `#`; a check that also
//!   leaves the opponent a bare king ends the game, so it is `#` too, as
//!   Fairy-Stockfish writes it).
//!
//! Checked against Fairy-Stockfish's SAN for every legal move of every
//! oracle position (`tests/san_oracle.rs`, data made by
//! `scripts/fsf-san.py`).
//!
//! Reading ([`Board::parse_san`]) is strict about the move itself (the
//! piece letter, `x` exactly on captures, `=` before a promotion piece) but
//! takes the check suffix (`+`, `#`, `++` or none) and the annotation
//! suffixes of §8.2.3.8 (`!`, `?`, `!!`, `??`, `!?`, `?!`) as given, without
//! checking them, and accepts more disambiguation than needed (`Ngf3`).
//! Castling may be written with zeros (`0-0`), as §8.2.3.3 notes is seen in
//! the wild.

use thiserror::Error;

use super::board::Board;
use super::moves::{Move, Piece};
use super::spec::ChessVariant;
use crate::bitset::Bits;

/// Why a SAN move text (PGN standard §8.2.3) could not be read. Every
/// variant names the move text.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SanError {
    /// The text is not SAN.
    #[error("{text:?} is not a SAN move: {reason}")]
    Malformed {
        /// The move text.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Well-formed SAN, but no legal move fits it.
    #[error("{text:?} is not legal here: {reason}")]
    Illegal {
        /// The move text.
        text: String,
        /// Why no legal move fits.
        reason: String,
    },
    /// More than one legal move fits the text.
    #[error("{text:?} is ambiguous: it fits {candidates}")]
    Ambiguous {
        /// The move text.
        text: String,
        /// The legal moves that fit, in UCI notation.
        candidates: String,
    },
    /// The game is over: no move is legal.
    #[error("{text:?}: the game is already over")]
    GameOver {
        /// The move text.
        text: String,
    },
    /// The variant has no SAN ([`crate::Describe::parse_san`]).
    #[error("{text:?}: {variant} has no SAN")]
    Unsupported {
        /// The move text.
        text: String,
        /// The variant's display name.
        variant: &'static str,
    },
}

impl SanError {
    /// The move text the error is about.
    pub fn text(&self) -> &str {
        match self {
            SanError::Malformed { text, .. }
            | SanError::Illegal { text, .. }
            | SanError::Ambiguous { text, .. }
            | SanError::GameOver { text }
            | SanError::Unsupported { text, .. } => text,
        }
    }
}

/// Upper-case SAN letter of a piece kind (§8.2.3.2).
fn san_letter(p: Piece) -> char {
    p.letter().to_ascii_uppercase()
}

impl<V: ChessVariant> Board<V> {
    /// The SAN of `m` (PGN standard §8.2.3), a move legal in this position
    /// (one of [`Board::legal_moves`]); see the module docs for the rules.
    /// For a move that is not legal here the text is unspecified (never a
    /// panic).
    pub fn san(&self, m: Move) -> String {
        let mut legal = Vec::new();
        self.legal_moves(&mut legal);
        self.san_among(m, &legal)
    }

    /// [`Board::san`] with the legal moves of this position given.
    pub fn san_among(&self, m: Move, legal: &[Move]) -> String {
        let geo = Self::geometry();
        let mut s = String::new();
        let (from, to) = (m.from(), m.to());
        let moving = self.kind_at(from).unwrap_or(Piece::Pawn);
        let capture = m.is_en_passant() || self.colours[self.side() ^ 1].has(to);
        if m.is_castle() {
            s.push_str(if geo.file(to) > geo.file(from) {
                "O-O"
            } else {
                "O-O-O"
            });
        } else if moving == Piece::Pawn {
            if capture {
                s.push(file_char(geo.file(from)));
                s.push('x');
            }
            s.push_str(&geo.name(to));
            if let Some(p) = m.promotion() {
                s.push('=');
                s.push(san_letter(p));
            }
        } else {
            s.push(san_letter(moving));
            let others: Vec<usize> = legal
                .iter()
                .filter(|o| {
                    o.to() == to
                        && o.from() != from
                        && !o.is_castle()
                        && self.kind_at(o.from()) == Some(moving)
                })
                .map(|o| o.from())
                .collect();
            if !others.is_empty() {
                if others.iter().all(|&o| geo.file(o) != geo.file(from)) {
                    s.push(file_char(geo.file(from)));
                } else if others.iter().all(|&o| geo.rank(o) != geo.rank(from)) {
                    s.push_str(&(geo.rank(from) + 1).to_string());
                } else {
                    s.push_str(&geo.name(from));
                }
            }
            if capture {
                s.push('x');
            }
            s.push_str(&geo.name(to));
        }
        let mut after = *self;
        after.play(m);
        if self.gives_check(&after) {
            // No legal reply: none generated, or the game ended with the
            // move (a bare king in Losers, `docs/rules.md` §1).
            let ended = V::BARE_KING_WINS && (after.bare(0) || after.bare(1));
            s.push(if ended || after.count_moves() == 0 {
                '#'
            } else {
                '+'
            });
        }
        s
    }

    /// Whether the move that led from `self` to `after` gives check: the
    /// opponent's king is attacked by a square that did not attack it
    /// before. In play this is "the opponent is in check after the move";
    /// it differs only in a position set up with the side not to move
    /// already in check (accepted from FEN), where an old check is not the
    /// move's, as Fairy-Stockfish counts it.
    fn gives_check(&self, after: &Self) -> bool {
        let t = V::tables();
        let us = self.side();
        let them = us ^ 1;
        let ksq = self.king(them);
        let before = self.attackers(t, ksq, us, self.occupied());
        let now = after.attackers(t, after.king(them), us, after.occupied());
        !(now & !before).is_empty()
    }

    /// Read a SAN move (PGN standard §8.2.3) as the legal move it names;
    /// see the module docs for what is accepted.
    ///
    /// # Errors
    /// [`SanError`] naming the text: malformed, illegal, ambiguous, or no
    /// legal move at all. Never panics.
    pub fn parse_san(&self, text: &str) -> Result<Move, SanError> {
        let mut legal = Vec::new();
        self.legal_moves(&mut legal);
        self.parse_san_among(text, &legal)
    }

    /// [`Board::parse_san`] with the legal moves of this position given
    /// (a variant may allow fewer moves than the board, e.g. after a draw
    /// by rule).
    ///
    /// # Errors
    /// As [`Board::parse_san`].
    pub fn parse_san_among(&self, text: &str, legal: &[Move]) -> Result<Move, SanError> {
        let original = text;
        let malformed = |reason: &str| SanError::Malformed {
            text: original.to_string(),
            reason: reason.to_string(),
        };
        let illegal = |reason: String| SanError::Illegal {
            text: original.to_string(),
            reason,
        };
        let text = text.trim();
        if text.is_empty() {
            return Err(malformed("empty"));
        }
        if !text.is_ascii() {
            return Err(malformed("a character outside ASCII"));
        }
        let body = strip_suffixes(text);
        if body.is_empty() {
            return Err(malformed("no move before the suffix"));
        }
        if legal.is_empty() {
            return Err(SanError::GameOver {
                text: original.to_string(),
            });
        }
        let geo = Self::geometry();
        // Castling (§8.2.3.3), also written with zeros.
        let castle_side = match body {
            "O-O" | "0-0" => Some(true),
            "O-O-O" | "0-0-0" => Some(false),
            _ => None,
        };
        if let Some(short) = castle_side {
            if V::CASTLES.is_empty() {
                return Err(illegal("this variant has no castling".into()));
            }
            return legal
                .iter()
                .copied()
                .find(|m| m.is_castle() && (geo.file(m.to()) > geo.file(m.from())) == short)
                .ok_or_else(|| illegal("castling to that side is not legal here".into()));
        }
        let bytes = body.as_bytes();
        let (piece, rest) = match bytes[0] {
            b'N' | b'B' | b'R' | b'Q' | b'K' => (
                Piece::from_letter(bytes[0] as char).unwrap_or(Piece::Pawn),
                &body[1..],
            ),
            b'a'..=b'z' => (Piece::Pawn, body),
            _ => {
                return Err(malformed(
                    "expected a piece letter N, B, R, Q, K, a file or castling",
                ))
            }
        };
        // Promotion suffix `=Q` (§8.2.3.3); a bare letter (`e8Q`) is
        // accepted too.
        let (rest, promotion) = match rest.char_indices().last() {
            Some((i, c)) if c.is_ascii_uppercase() => {
                let promo = match Piece::from_letter(c) {
                    Some(p @ (Piece::Knight | Piece::Bishop | Piece::Rook | Piece::Queen)) => p,
                    _ => return Err(malformed("a promotion piece must be N, B, R or Q")),
                };
                let before = &rest[..i];
                (before.strip_suffix('=').unwrap_or(before), Some(promo))
            }
            _ => (rest, None),
        };
        if promotion.is_some() && piece != Piece::Pawn {
            return Err(malformed("only a pawn promotes"));
        }
        // The destination is the last square name: a file letter and the
        // digits after it.
        let Some(dest_at) = rest.rfind(|c: char| c.is_ascii_lowercase()) else {
            return Err(malformed("no destination square"));
        };
        let to = geo
            .parse_square(&rest[dest_at..])
            .ok_or_else(|| malformed("the destination is not a square of this board"))?;
        let mut prefix = &rest[..dest_at];
        let capture = match prefix.strip_suffix('x') {
            Some(p) => {
                prefix = p;
                true
            }
            None => false,
        };
        // Disambiguation: an optional file, then an optional rank.
        let mut file = None;
        let mut rank = None;
        let pb = prefix.as_bytes();
        let mut i = 0;
        if let Some(&c) = pb.first() {
            if c.is_ascii_lowercase() {
                let f = (c - b'a') as usize;
                if f >= V::WIDTH {
                    return Err(malformed("the origin file is not on this board"));
                }
                file = Some(f);
                i = 1;
            }
        }
        if i < pb.len() {
            let digits = &prefix[i..];
            let r: usize = digits
                .parse()
                .ok()
                .filter(|&r| r >= 1 && r <= V::HEIGHT && !digits.starts_with('0'))
                .ok_or_else(|| malformed("unexpected text before the destination"))?;
            rank = Some(r - 1);
        }
        if piece == Piece::Pawn {
            if rank.is_some() {
                return Err(malformed("a pawn move names no origin rank"));
            }
            if capture != file.is_some() {
                return Err(malformed(
                    "a pawn capture is the origin file, x and the destination",
                ));
            }
        }
        let fits = |m: &&Move| {
            !m.is_castle()
                && m.to() == to
                && self.kind_at(m.from()) == Some(piece)
                && file.is_none_or(|f| geo.file(m.from()) == f)
                && rank.is_none_or(|r| geo.rank(m.from()) == r)
        };
        let reaching: Vec<Move> = legal.iter().filter(fits).copied().collect();
        if reaching.is_empty() {
            return Err(illegal(format!(
                "no legal {} move to {}",
                piece_name(piece),
                geo.name(to)
            )));
        }
        let is_capture = |m: &Move| m.is_en_passant() || self.colours[self.side() ^ 1].has(m.to());
        if reaching.iter().all(|m| is_capture(m) != capture) {
            return Err(illegal(if capture {
                format!("{} is not a capture (no x)", geo.name(to))
            } else {
                format!("the move to {} is a capture: write x", geo.name(to))
            }));
        }
        let found: Vec<Move> = reaching
            .into_iter()
            .filter(|m| m.promotion() == promotion && is_capture(m) == capture)
            .collect();
        match found.as_slice() {
            [] if promotion.is_none() => Err(illegal("a promotion needs =N, =B, =R or =Q".into())),
            [] => Err(illegal("a pawn promotes only on the last rank".into())),
            [m] => Ok(*m),
            many => Err(SanError::Ambiguous {
                text: original.to_string(),
                candidates: many
                    .iter()
                    .map(|m| m.to_uci(geo))
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }
}

/// The file letter of 0-based file `f`.
fn file_char(f: usize) -> char {
    (b'a' + f as u8) as char
}

fn piece_name(p: Piece) -> &'static str {
    ["pawn", "knight", "bishop", "rook", "queen", "king"][p as usize]
}

/// `text` without annotation (`!`, `?`) and check (`+`, `#`) suffixes.
fn strip_suffixes(text: &str) -> &str {
    let text = text.trim_end_matches(['!', '?']);
    text.trim_end_matches(['+', '#'])
}

#[cfg(test)]
mod tests {
    use crate::{Game, Losers, Viking};

    fn san_of(fen: &str, uci: &str) -> String {
        let g = Losers::from_text(fen).unwrap();
        let m = g.parse_move(uci).unwrap()[0];
        g.board().san(m)
    }

    #[test]
    fn writes_the_standard_forms() {
        let start = Losers::start();
        let e4 = start.parse_move("e2e4").unwrap()[0];
        assert_eq!(start.board().san(e4), "e4");
        let n = start.parse_move("g1f3").unwrap()[0];
        assert_eq!(start.board().san(n), "Nf3");
        // Castling both ways (no capture available).
        let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
        assert_eq!(san_of(fen, "e1g1"), "O-O");
        assert_eq!(san_of(fen, "e1c1"), "O-O-O");
        // Promotion with capture.
        assert_eq!(
            san_of("1n2k3/P6p/8/8/8/8/8/4K3 w - - 0 1", "a7b8q"),
            "axb8=Q+"
        );
        // Only the move's own check counts (a FEN with both kings in check).
        assert_eq!(san_of("4r2k/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1d1"), "Kd1");
        // Check that leaves a bare king: the game is over, `#`.
        assert_eq!(san_of("n3k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8"), "Rxa8#");
        // File, rank and square disambiguation.
        let fen = "4k3/7p/8/8/8/8/8/1N2KN2 w - - 0 1";
        assert_eq!(san_of(fen, "b1d2"), "Nbd2");
        let fen = "4k3/7p/8/8/8/N7/8/N3K3 w - - 0 1";
        assert_eq!(san_of(fen, "a1c2"), "N1c2");
        let fen = "7k/7p/8/8/Q1Q5/8/Q7/4K3 w - - 0 1";
        assert_eq!(san_of(fen, "a4b3"), "Qa4b3");
    }

    #[test]
    fn reads_back_and_names_errors() {
        let g = Losers::start();
        let b = g.board();
        assert_eq!(b.parse_san("e4").unwrap(), g.parse_move("e2e4").unwrap()[0]);
        assert_eq!(
            b.parse_san("Nf3+!?").unwrap(),
            g.parse_move("g1f3").unwrap()[0]
        );
        assert_eq!(
            b.parse_san("Ngf3").unwrap(),
            g.parse_move("g1f3").unwrap()[0]
        );
        for (text, want) in [
            ("", "not a SAN move"),
            ("Zf3", "not a SAN move"),
            ("e5", "not legal"),
            ("Nxf3", "not legal"),
            ("O-O", "not legal"),
            ("e2e4", "not a SAN move"),
            ("Nf9", "not a SAN move"),
            ("é4", "not a SAN move"),
        ] {
            let err = b.parse_san(text).unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
            assert!(err.contains(&format!("{text:?}")), "{text}: {err}");
        }
        let two = Losers::from_text("4k3/7p/8/8/8/8/8/1N2KN2 w - - 0 1").unwrap();
        let err = two.board().parse_san("Nd2").unwrap_err().to_string();
        assert!(err.contains("ambiguous") && err.contains("b1d2"), "{err}");
        let v = Viking::start();
        assert_eq!(
            v.board().parse_san("Nd4").unwrap(),
            v.parse_move("c2d4").unwrap()[0]
        );
        assert_eq!(
            v.board().parse_san("fxg2").unwrap(),
            v.parse_move("f1g2").unwrap()[0]
        );
    }
}
