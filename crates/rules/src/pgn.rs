//! PGN, the Portable Game Notation (Steven J. Edwards, "Portable Game
//! Notation Specification and Implementation Guide", 1994), for the
//! variants in chess notation ([`Describe::CHESS_NOTATION`]): writing a
//! game (tag pairs, §8.1, and movetext, §8.2, in SAN where the variant has
//! it, [`Describe::move_san`]) and reading one back into the game's
//! actions.
//!
//! Reading takes the tag pairs, then the movetext: move numbers (`12.`,
//! `12...`, also glued to the move, `12.e4`), moves in SAN
//! ([`Describe::parse_san`]) or, for records written before SAN, in the
//! variant's own move text ([`Game::parse_move`], UCI for chess), and the
//! game termination marker (§8.2.6). Comments (`{...}`, `;` to the end of
//! the line), recursive variations (`(...)`), numeric annotation glyphs
//! (`$n`) and escape lines (`%`) are skipped. A `[FEN]` tag sets the start
//! position; a `[Variant]` tag, if present, must name the variant read
//! (its id or its display name, in any case).

use thiserror::Error;

use crate::{Describe, Game, Player, PositionError, SanError, Variant};

/// Why a PGN text could not be read. Move errors name the move number and
/// the move text.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PgnError {
    /// The text breaks the PGN syntax (a tag pair, an unclosed comment).
    #[error("PGN line {line}: {reason}")]
    Syntax {
        /// 1-based line of the text.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The `[Variant]` tag names another variant.
    #[error("PGN [Variant {found:?}]: this game is {expected}")]
    Variant {
        /// The tag's value.
        found: String,
        /// The variant being read.
        expected: &'static str,
    },
    /// The `[FEN]` tag is not a position of the variant.
    #[error("PGN [FEN {fen:?}]: {source}")]
    Fen {
        /// The tag's value.
        fen: String,
        /// Why it does not parse.
        source: PositionError,
    },
    /// A move of the movetext cannot be played.
    #[error("PGN move {number}{dots} {text}: {source}")]
    Move {
        /// The move number (§8.2.2).
        number: u32,
        /// `.` for the first player's move, `...` for the second's.
        dots: &'static str,
        /// The move text.
        text: String,
        /// Why it cannot be played.
        source: SanError,
    },
    /// The text holds no game (no tag and no move).
    #[error("PGN: the text holds no game")]
    Empty,
}

/// A game read from PGN.
#[derive(Clone, Debug)]
pub struct PgnGame<G: Game> {
    /// The tag pairs in the order of the text (§8.1).
    pub tags: Vec<(String, String)>,
    /// The `[FEN]` tag's position text, `None` for the variant's start.
    pub start_text: Option<String>,
    /// The start position.
    pub start: G,
    /// Each move's actions, in order (one whole turn each).
    pub moves: Vec<Vec<G::Action>>,
    /// The game termination marker of the movetext (`1-0`, `0-1`,
    /// `1/2-1/2`, `*`), if it has one.
    pub result: Option<String>,
}

impl<G: Game> PgnGame<G> {
    /// The value of tag `name` (first occurrence), if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The position after every move.
    pub fn end(&self) -> G {
        let mut g = self.start.clone();
        for &a in self.moves.iter().flatten() {
            g.play(a);
        }
        g
    }
}

/// The move number and side of `game`'s next move: the FEN's full-move
/// number (§16.1.3.6) for a variant in chess notation, else 1.
fn move_number<G: Describe>(game: &G) -> (u32, bool) {
    let number = if G::CHESS_NOTATION {
        game.to_text()
            .split_whitespace()
            .nth(5)
            .and_then(|n| n.parse().ok())
            .unwrap_or(1)
    } else {
        1
    };
    (number, game.side_to_move() == Player::Second)
}

/// The PGN string escape of a tag value (§7: `\` and `"` escaped).
pub fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The movetext (§8.2) of `moves` (whole turns) played from `start`, in
/// SAN where the variant has it ([`Describe::move_notation`]), numbered
/// from the start position's full-move number (`5... Nf6` when the second
/// player moves first), ending with `result`, wrapped at 79 columns
/// (§8.2.1 asks for lines under 80). Moves that are not legal are written
/// in the variant's move text (never a panic).
pub fn movetext<G: Describe>(start: &G, moves: &[Vec<G::Action>], result: &str) -> String {
    let (mut number, mut black) = move_number(start);
    let mut game = start.clone();
    let mut words: Vec<String> = Vec::new();
    for (i, actions) in moves.iter().enumerate() {
        if !black {
            words.push(format!("{number}."));
        } else if i == 0 {
            words.push(format!("{number}..."));
        }
        words.push(game.move_notation(actions));
        for &a in actions {
            game.play(a);
        }
        if black {
            number += 1;
        }
        black = !black;
    }
    words.push(result.to_string());
    wrap(words.iter().map(String::as_str), 79)
}

/// A whole PGN game: the tag pairs in the order given (the Seven Tag
/// Roster first, §8.1.1, is the caller's choice), a blank line, the
/// [`movetext`], and a blank line.
pub fn write<G: Describe>(
    tags: &[(&str, String)],
    start: &G,
    moves: &[Vec<G::Action>],
    result: &str,
) -> String {
    let mut out = String::new();
    for (name, value) in tags {
        out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    }
    out.push('\n');
    out.push_str(&movetext(start, moves, result));
    out.push_str("\n\n");
    out
}

/// `words` joined by spaces, broken into lines of at most `width`
/// characters (a longer word stands alone): PGN movetext lines (the PGN
/// standard, 8.2.1, asks for at most 79 characters).
pub fn wrap<'a>(words: impl IntoIterator<Item = &'a str>, width: usize) -> String {
    let mut out = String::new();
    let mut len = 0;
    for word in words {
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

/// One lexical item of a PGN text.
enum Item {
    Tag(String, String),
    Symbol(String),
}

/// The items of `text` with their 1-based lines; comments, variations,
/// NAGs and escape lines dropped.
fn lex(text: &str) -> Result<Vec<(usize, Item)>, PgnError> {
    let chars: Vec<char> = text.chars().collect();
    let mut items = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let syntax = |line: usize, reason: &str| PgnError::Syntax {
        line,
        reason: reason.to_string(),
    };
    let mut at_line_start = true;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
            at_line_start = true;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let starts_line = at_line_start;
        at_line_start = false;
        match c {
            '%' if starts_line => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ';' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '{' => {
                let from = line;
                i += 1;
                while i < chars.len() && chars[i] != '}' {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                if i == chars.len() {
                    return Err(syntax(from, "a comment { is never closed"));
                }
                i += 1;
            }
            '(' => {
                let from = line;
                let mut depth = 0;
                loop {
                    match chars.get(i) {
                        None => return Err(syntax(from, "a variation ( is never closed")),
                        Some('(') => depth += 1,
                        Some(')') => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        Some('{') => {
                            while i < chars.len() && chars[i] != '}' {
                                if chars[i] == '\n' {
                                    line += 1;
                                }
                                i += 1;
                            }
                        }
                        Some('\n') => line += 1,
                        Some(_) => {}
                    }
                    i += 1;
                }
            }
            ')' => return Err(syntax(line, "a ) without its (")),
            '[' => {
                i += 1;
                let name_from = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let name: String = chars[name_from..i].iter().collect();
                if name.is_empty() {
                    return Err(syntax(line, "a tag pair without a name"));
                }
                while matches!(chars.get(i), Some(' ' | '\t')) {
                    i += 1;
                }
                if chars.get(i) != Some(&'"') {
                    return Err(syntax(
                        line,
                        &format!("tag {name}: the value must be quoted"),
                    ));
                }
                i += 1;
                let mut value = String::new();
                loop {
                    match chars.get(i) {
                        None | Some('\n') => {
                            return Err(syntax(
                                line,
                                &format!("tag {name}: the value is not closed"),
                            ))
                        }
                        Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\')) => {
                            value.push(chars[i + 1]);
                            i += 2;
                        }
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some(&ch) => {
                            value.push(ch);
                            i += 1;
                        }
                    }
                }
                while matches!(chars.get(i), Some(' ' | '\t')) {
                    i += 1;
                }
                if chars.get(i) != Some(&']') {
                    return Err(syntax(line, &format!("tag {name}: no ] after the value")));
                }
                i += 1;
                items.push((line, Item::Tag(name, value)));
            }
            '$' => {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            _ => {
                let from = i;
                while i < chars.len()
                    && !chars[i].is_whitespace()
                    && !matches!(chars[i], '{' | '(' | ')' | ';' | '[' | '$')
                {
                    i += 1;
                }
                items.push((line, Item::Symbol(chars[from..i].iter().collect())));
            }
        }
    }
    Ok(items)
}

/// Split a PGN file into its games' texts: a game starts at a tag pair
/// that follows movetext. Text before the first tag (a file comment)
/// stays with the first game.
pub fn split_games(text: &str) -> Vec<&str> {
    let mut games = Vec::new();
    let mut start = 0;
    let mut seen_moves = false;
    let mut offset = 0;
    let mut in_comment = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if !in_comment {
            if t.starts_with('[') {
                if seen_moves {
                    games.push(&text[start..offset]);
                    start = offset;
                    seen_moves = false;
                }
            } else if !t.is_empty() && !t.starts_with(';') && !t.starts_with('%') {
                seen_moves = true;
            }
        }
        // A multi-line comment may hold a line starting with `[`.
        for c in line.chars() {
            match c {
                '{' => in_comment = true,
                '}' => in_comment = false,
                _ => {}
            }
        }
        offset += line.len();
    }
    if !text[start..].trim().is_empty() {
        games.push(&text[start..]);
    }
    games
}

/// Whether tag value `found` names variant `G` (its id or display name,
/// or the display name without " Chess", in any case).
fn names_variant<G: Variant>(found: &str) -> bool {
    let found = found.trim();
    let name = G::NAME;
    found.eq_ignore_ascii_case(G::VARIANT.as_str())
        || found.eq_ignore_ascii_case(name)
        || name
            .strip_suffix(" Chess")
            .is_some_and(|short| found.eq_ignore_ascii_case(short))
}

/// Read one PGN game of variant `G` (see the module docs).
///
/// # Errors
/// [`PgnError`]: the syntax error with its line, a `[Variant]` of another
/// variant, a bad `[FEN]`, or the first move that cannot be played with
/// its number and text. Never panics.
pub fn read<G: Variant>(text: &str) -> Result<PgnGame<G>, PgnError> {
    let items = lex(text)?;
    if items.is_empty() {
        return Err(PgnError::Empty);
    }
    let mut tags = Vec::new();
    let mut symbols = Vec::new();
    for (line, item) in items {
        match item {
            Item::Tag(name, value) => {
                if !symbols.is_empty() {
                    return Err(PgnError::Syntax {
                        line,
                        reason: format!("tag {name} after the movetext (one game only)"),
                    });
                }
                tags.push((name, value));
            }
            Item::Symbol(s) => symbols.push(s),
        }
    }
    let tag = |name: &str| {
        tags.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v): &(String, String)| v.clone())
    };
    if let Some(found) = tag("Variant") {
        if !names_variant::<G>(&found) {
            return Err(PgnError::Variant {
                found,
                expected: G::NAME,
            });
        }
    }
    let start_text = tag("FEN").map(|f| f.trim().to_string());
    let start = match &start_text {
        Some(fen) => G::from_text(fen).map_err(|source| PgnError::Fen {
            fen: fen.clone(),
            source,
        })?,
        None => G::start(),
    };
    let (mut number, mut black) = move_number(&start);
    let mut game = start.clone();
    let mut moves = Vec::new();
    let mut result = None;
    for symbol in symbols {
        if matches!(symbol.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
            result = Some(symbol);
            break;
        }
        // A move number, alone or glued to the move (`12.`, `12...e5`).
        let digits = symbol.bytes().take_while(u8::is_ascii_digit).count();
        let after = &symbol[digits..];
        let mv = if after.starts_with('.') {
            after.trim_start_matches('.')
        } else if digits == 0 {
            symbol.as_str()
        } else {
            return Err(PgnError::Move {
                number,
                dots: if black { "..." } else { "." },
                text: symbol.clone(),
                source: SanError::Malformed {
                    text: symbol,
                    reason: "neither a move number, a result nor a move".into(),
                },
            });
        };
        if mv.is_empty() {
            continue;
        }
        let actions = read_move(&game, mv).map_err(|source| PgnError::Move {
            number,
            dots: if black { "..." } else { "." },
            text: mv.to_string(),
            source,
        })?;
        for &a in &actions {
            game.play(a);
        }
        moves.push(actions);
        if black {
            number += 1;
        }
        black = !black;
    }
    Ok(PgnGame {
        tags,
        start_text,
        start,
        moves,
        result,
    })
}

/// One move: SAN, or the variant's own move text when the text is not
/// SAN (records written in UCI).
fn read_move<G: Variant>(game: &G, text: &str) -> Result<Vec<G::Action>, SanError> {
    match game.parse_san(text) {
        Ok(actions) => Ok(actions),
        Err(err @ (SanError::Malformed { .. } | SanError::Unsupported { .. })) => {
            game.parse_move(text).map_err(|_| err)
        }
        Err(err) => Err(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Losers, Viking};

    fn play_line<G: Variant>(tokens: &[&str]) -> (G, Vec<Vec<G::Action>>) {
        let start = G::start();
        let mut g = start.clone();
        let mut moves = Vec::new();
        for t in tokens {
            let a = g.parse_move(t).unwrap();
            for &x in &a {
                g.play(x);
            }
            moves.push(a);
        }
        (start, moves)
    }

    #[test]
    fn writes_san_and_reads_it_back() {
        let (start, moves) = play_line::<Losers>(&["e2e4", "b7b5", "f1b5", "c8a6"]);
        let text = write(
            &[
                ("Event", "test \"x\"".to_string()),
                ("Variant", "losers".into()),
            ],
            &start,
            &moves,
            "*",
        );
        assert!(text.contains("[Event \"test \\\"x\\\"\"]"), "{text}");
        assert!(text.contains("1. e4 b5 2. Bxb5 Ba6 *"), "{text}");
        let back = read::<Losers>(&text).unwrap();
        assert_eq!(back.moves, moves);
        assert_eq!(back.tag("Event"), Some("test \"x\""));
        assert_eq!(back.result.as_deref(), Some("*"));
        assert_eq!(back.end().to_text(), {
            let mut g = start.clone();
            moves.iter().flatten().for_each(|&a| g.play(a));
            g.to_text()
        });
    }

    #[test]
    fn reads_comments_variations_numbers_and_uci() {
        let text = "; file comment\n[Variant \"Losers Chess\"]\n\n\
            1.e4 {best} (1. d4 d5) b5 $1 2. Bxb5 Ba6 1/2-1/2\n";
        let g = read::<Losers>(text).unwrap();
        assert_eq!(g.moves.len(), 4);
        assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
        let uci = read::<Losers>("1. e2e4 b7b5 2. f1b5 *").unwrap();
        assert_eq!(uci.moves, g.moves[..3]);
    }

    #[test]
    fn errors_name_the_move() {
        let err = read::<Losers>("1. e4 b5 2. Bc4 *").unwrap_err().to_string();
        assert!(err.contains("move 2. Bc4"), "{err}");
        let err = read::<Losers>("1. e4 Zz9 *").unwrap_err().to_string();
        assert!(err.contains("move 1... Zz9"), "{err}");
        let err = read::<Viking>("[Variant \"losers\"]\n1. e4 *").unwrap_err();
        assert!(matches!(err, PgnError::Variant { .. }), "{err}");
        let err = read::<Losers>("[FEN \"8/8 w\"]\n*").unwrap_err();
        assert!(matches!(err, PgnError::Fen { .. }), "{err}");
        assert!(matches!(
            read::<Losers>("[Event \"x\n"),
            Err(PgnError::Syntax { line: 1, .. })
        ));
        assert_eq!(read::<Losers>("  \n").unwrap_err(), PgnError::Empty);
    }

    #[test]
    fn black_to_move_from_a_fen() {
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let start = Losers::from_text(fen).unwrap();
        let a = start.parse_move("e7e5").unwrap();
        let text = write(
            &[("FEN", fen.to_string())],
            &start,
            std::slice::from_ref(&a),
            "*",
        );
        assert!(text.contains("1... e5 *"), "{text}");
        let back = read::<Losers>(&text).unwrap();
        assert_eq!(back.start_text.as_deref(), Some(fen));
        assert_eq!(back.moves, vec![a]);
    }

    #[test]
    fn splits_files_into_games() {
        let text = "; c\n[A \"1\"]\n\n1. e4 *\n\n[A \"2\"]\n\n1. d4 *\n";
        let games = split_games(text);
        assert_eq!(games.len(), 2);
        assert!(games[1].starts_with("[A \"2\"]"));
    }
}
