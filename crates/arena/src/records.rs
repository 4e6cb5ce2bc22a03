//! Game records of a match, written atomically (temporary file + rename).
//!
//! - Variants in chess notation ([`rules::Describe::CHESS_NOTATION`]:
//!   `losers`, `viking`): PGN, one game per block, with a
//!   `[Variant "..."]` tag, `[FEN]`/`[SetUp "1"]` when the game did not
//!   start from the standard position (random openings), and
//!   `[Termination]` for adjudications and forfeits. Moves are in SAN
//!   (PGN standard §8.2.3, [`rules::Describe::move_san`]: `e4`, `exd8=Q`),
//!   replayed from the game's start; a move that does not replay (never
//!   expected) and the rest of the game stay in UCI long-algebraic
//!   notation, which [`read_pgn`] reads as well. [`read_pgn`] reads a
//!   records file back into the games' actions ([`rules::pgn`]).
//! - Other variants: text records, one line per game, tab-separated:
//!   `index  first  second  result  termination  start-text  actions`
//!   (`result` `1-0` / `0-1` / `1/2-1/2` from the first mover's view;
//!   `actions` space-separated action texts).

use std::path::Path;

use rules::pgn::{PgnError, PgnGame};
use rules::{Player as Side, Variant, VariantId};

use crate::matches::MatchGame;

/// PGN / text result token for a winner.
pub fn result_token(winner: Option<Side>) -> &'static str {
    match winner {
        Some(Side::First) => "1-0",
        Some(Side::Second) => "0-1",
        None => "1/2-1/2",
    }
}

/// Why a game ended, in words (forfeit reason, rule outcome or ply cap).
pub fn termination(game: &MatchGame) -> String {
    let r = &game.result;
    if let Some(f) = &r.forfeit {
        return format!("forfeit by {:?}: {}", f.side, f.reason);
    }
    match r.outcome {
        Some(o) => format!("{:?}", o.reason),
        None => "adjudicated draw: ply cap".to_string(),
    }
}

/// Whether records of `variant` are PGN (a variant in chess notation,
/// [`rules::Describe::CHESS_NOTATION`]) or text lines.
pub fn uses_pgn(variant: VariantId) -> bool {
    rules::with_variant!(variant, G => <G as rules::Describe>::CHESS_NOTATION)
}

fn escape(tag: &str) -> String {
    tag.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The whole record file for `games` of a match between `name_a` and
/// `name_b` (PGN or text lines, see the module docs). `standard_start` is
/// the variant's start position text (a game from elsewhere gets a FEN tag).
pub fn render(
    variant: VariantId,
    standard_start: &str,
    name_a: &str,
    name_b: &str,
    games: &[MatchGame],
) -> String {
    let mut out = String::new();
    if uses_pgn(variant) {
        out.push_str("; lokizero match records; moves in SAN\n\n");
    }
    for g in games {
        let (first, second) = if g.a_first {
            (name_a, name_b)
        } else {
            (name_b, name_a)
        };
        let result = result_token(g.result.winner);
        let term = termination(g);
        if uses_pgn(variant) {
            out.push_str("[Event \"lokizero match\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n");
            out.push_str(&format!("[Round \"{}\"]\n", g.index + 1));
            out.push_str(&format!("[White \"{}\"]\n", escape(first)));
            out.push_str(&format!("[Black \"{}\"]\n", escape(second)));
            out.push_str(&format!("[Result \"{result}\"]\n"));
            out.push_str(&format!("[Variant \"{variant}\"]\n"));
            if g.result.start != standard_start {
                out.push_str(&format!("[SetUp \"1\"]\n[FEN \"{}\"]\n", g.result.start));
            }
            out.push_str(&format!("[Termination \"{}\"]\n\n", escape(&term)));
            let fields: Vec<&str> = g.result.start.split(' ').collect();
            let mut black = fields.get(1) == Some(&"b");
            let mut number: u32 = fields.get(5).and_then(|f| f.parse().ok()).unwrap_or(1);
            let mut line = String::new();
            let moves = notation(variant, &g.result.start, &g.result.actions);
            for (i, mv) in moves.iter().enumerate() {
                if !black {
                    line.push_str(&format!("{number}. "));
                } else if i == 0 {
                    line.push_str(&format!("{number}... "));
                }
                line.push_str(mv);
                line.push(' ');
                if black {
                    number += 1;
                }
                black = !black;
            }
            line.push_str(result);
            out.push_str(&rules::pgn::wrap(line.split(' '), 79));
            out.push_str("\n\n");
        } else {
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                g.index,
                first,
                second,
                result,
                term,
                g.result.start,
                g.result.actions.join(" ")
            ));
        }
    }
    out
}

/// The moves of a record, `actions` played from the position text
/// `start`, in SAN where the variant has it ([`rules::Describe::move_san`]);
/// from a move that does not replay on, the recorded texts.
pub fn notation(variant: VariantId, start: &str, actions: &[String]) -> Vec<String> {
    rules::with_variant!(variant, G => san_line::<G>(start, actions))
}

fn san_line<G: Variant>(start: &str, actions: &[String]) -> Vec<String> {
    let Ok(mut game) = G::from_text(start) else {
        return actions.to_vec();
    };
    if !G::SAN {
        return actions.to_vec();
    }
    let mut out = Vec::with_capacity(actions.len());
    for (i, token) in actions.iter().enumerate() {
        match game.parse_move(token) {
            Ok(played) => {
                out.push(game.move_notation(&played));
                for a in played {
                    game.play(a);
                }
            }
            Err(_) => {
                out.extend(actions[i..].iter().cloned());
                break;
            }
        }
    }
    out
}

/// A game of a records file that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("game {game} of the records: {source}")]
pub struct RecordError {
    /// 1-based number of the game in the file.
    pub game: usize,
    /// What is wrong with it (the move number and text for a move).
    pub source: PgnError,
}

/// Read a PGN records file (this module's, or any PGN of variant `G`) into
/// its games: tags, start and actions ([`rules::pgn::read`]; SAN or UCI
/// moves).
///
/// # Errors
/// The first game that does not read, with its number.
pub fn read_pgn<G: Variant>(text: &str) -> Result<Vec<PgnGame<G>>, RecordError> {
    rules::pgn::split_games(text)
        .into_iter()
        .enumerate()
        .map(|(i, game)| {
            rules::pgn::read::<G>(game).map_err(|source| RecordError {
                game: i + 1,
                source,
            })
        })
        .collect()
}

/// Render and write the records to `path` atomically.
///
/// # Errors
/// The I/O error of the write.
pub fn write_records(
    path: &Path,
    variant: VariantId,
    standard_start: &str,
    name_a: &str,
    name_b: &str,
    games: &[MatchGame],
) -> std::io::Result<()> {
    let text = render(variant, standard_start, name_a, name_b, games);
    fsio::write_atomic(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Game;

    #[test]
    fn pgn_for_the_variants_in_chess_notation() {
        let pgn: Vec<&str> = VariantId::ALL
            .into_iter()
            .filter(|&v| uses_pgn(v))
            .map(VariantId::as_str)
            .collect();
        assert_eq!(pgn, ["losers", "viking"]);
    }

    fn game(index: usize, start: &str, actions: &[&str]) -> MatchGame {
        MatchGame {
            index,
            a_first: index.is_multiple_of(2),
            result: crate::single_game::GameResult {
                winner: None,
                outcome: None,
                actions: actions.iter().map(|a| a.to_string()).collect(),
                start: start.to_string(),
                forfeit: None,
            },
        }
    }

    #[test]
    fn pgn_records_are_san_and_read_back() {
        use rules::{Losers, Viking};
        let start = Losers::start().to_text();
        let from_black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let games = [
            game(0, &start, &["e2e4", "b7b5", "f1b5", "c8a6"]),
            game(1, from_black, &["e7e5", "g1f3"]),
        ];
        let text = render(VariantId::Losers, &start, "a", "b", &games);
        assert!(text.contains("1. e4 b5 2. Bxb5 Ba6 1/2-1/2"), "{text}");
        assert!(text.contains("1... e5 2. Nf3 1/2-1/2"), "{text}");
        let read = read_pgn::<Losers>(&text).unwrap();
        assert_eq!(read.len(), 2);
        for (g, r) in games.iter().zip(&read) {
            let mut pos = Losers::from_text(&g.result.start).unwrap();
            assert_eq!(r.start.to_text(), pos.to_text());
            let texts: Vec<String> = r
                .moves
                .iter()
                .map(|a| {
                    let t = pos.move_text(a);
                    a.iter().for_each(|&x| pos.play(x));
                    t
                })
                .collect();
            assert_eq!(texts, g.result.actions);
        }
        assert_eq!(read[1].tag("White"), Some("b"));
        // Viking: black pawns are pawns in SAN too.
        let vstart = Viking::start().to_text();
        let text = render(
            VariantId::Viking,
            &vstart,
            "a",
            "b",
            &[game(0, &vstart, &["b3b4", "h3h4", "f1g2"])],
        );
        assert!(text.contains("1. b4 h4 2. fxg2"), "{text}");
        assert_eq!(read_pgn::<Viking>(&text).unwrap()[0].moves.len(), 3);
        // Errors name the game, the move number and the text.
        let bad = text.replace("2. fxg2", "2. fxg3");
        let err = read_pgn::<Viking>(&bad).unwrap_err().to_string();
        assert!(
            err.contains("game 1") && err.contains("move 2. fxg3"),
            "{err}"
        );
    }
}
