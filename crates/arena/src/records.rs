//! Game records of a match, written atomically (temporary file + rename).
//!
//! - Variants in chess notation ([`rules::Describe::CHESS_NOTATION`]:
//!   `losers`, `viking`): PGN, one game per block, with a
//!   `[Variant "..."]` tag, `[FEN]`/`[SetUp "1"]` when the game did not
//!   start from the standard position (random openings), and
//!   `[Termination]` for adjudications and forfeits. **Moves are in UCI
//!   long-algebraic notation** (`e2e4`, `e7e8q`), not SAN; the header
//!   comment of the file says so.
//! - Other variants: text records, one line per game, tab-separated:
//!   `index  first  second  result  termination  start-text  actions`
//!   (`result` `1-0` / `0-1` / `1/2-1/2` from the first mover's view;
//!   `actions` space-separated action texts).

use std::path::Path;

use rules::{Player as Side, VariantId};

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
        out.push_str("; lokizero match records; moves in UCI long-algebraic notation\n\n");
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
            for (i, mv) in g.result.actions.iter().enumerate() {
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
            out.push_str(&wrap(&line, 79));
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

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut len = 0;
    for word in text.split(' ') {
        if len > 0 && len + 1 + word.len() > width {
            out.push('\n');
            len = 0;
        } else if len > 0 {
            out.push(' ');
            len += 1;
        }
        out.push_str(word);
        len += word.len();
    }
    out
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

    #[test]
    fn pgn_for_the_variants_in_chess_notation() {
        let pgn: Vec<&str> = VariantId::ALL
            .into_iter()
            .filter(|&v| uses_pgn(v))
            .map(VariantId::as_str)
            .collect();
        assert_eq!(pgn, ["losers", "viking"]);
    }
}
