//! Match journals: a match's finished games, one JSON line each after a
//! header naming the match, so that a stopped match (`lokizero match
//! --journal`, each pair of `lokizero ladder`) resumes where it stopped
//! ([`crate::matches::run_match_resuming`]) and a journal of another match
//! is refused, not mixed in.
//!
//! ```
//! use arena::journal::{read_journal, write_journal};
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("match.jsonl");
//! let identity = serde_json::json!({"a": "random", "b": "greedy", "seed": 3});
//! // No file yet: a new match.
//! assert!(read_journal(&path, &identity).unwrap().is_empty());
//! write_journal(&path, &identity, &[]).unwrap();
//! assert!(read_journal(&path, &identity).unwrap().is_empty());
//! // Another seed is another match.
//! let other = serde_json::json!({"a": "random", "b": "greedy", "seed": 4});
//! let refused = read_journal(&path, &other).unwrap_err();
//! assert!(refused.to_string().contains("seed is 3 there, 4 here"));
//! ```

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::matches::MatchGame;

/// The `journal` field of a match journal's first line:
/// `{"journal": JOURNAL_KIND, "match": identity}`.
pub const JOURNAL_KIND: &str = "lokizero match";

/// A journal that cannot be resumed. Each message starts with the path.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The journal.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Its first line is no journal header.
    #[error("{path}: not a match journal (its first line should be {{\"journal\": \"{JOURNAL_KIND}\", ...}}); give a new path or remove the file")]
    NotAJournal {
        /// The file.
        path: PathBuf,
    },
    /// The journal of a match with other players or settings.
    #[error("{path} is the journal of another match ({differs}); resume with the same settings, or move the file away")]
    AnotherMatch {
        /// The journal.
        path: PathBuf,
        /// The first setting that differs, both ways.
        differs: String,
    },
    /// A line after the header that is no game.
    #[error("{path} line {line}: not a game of a match journal (the match writes whole files, so the line was changed outside it: delete the line to resume without that game, or move the file away)")]
    BadGame {
        /// The journal.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
    },
    /// More games than the match asks for.
    #[error("{path} holds {held} games, more than the {total} games asked for; ask for at least {held}, or move the file away")]
    TooMany {
        /// The journal.
        path: PathBuf,
        /// Games in it.
        held: usize,
        /// Games of the match (`--games`, rounded up to an even number).
        total: usize,
    },
    /// A game whose index is past the match's games.
    #[error("{path}: game {index} is past the {total} games asked for (indices 0 to {last}); ask for more games, or move the file away", last = total.saturating_sub(1))]
    PastTheEnd {
        /// The journal.
        path: PathBuf,
        /// The game's index.
        index: usize,
        /// Games of the match.
        total: usize,
    },
    /// A game index seen twice.
    #[error("{path} line {line}: game {index} a second time")]
    Duplicate {
        /// The journal.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The game's index.
        index: usize,
    },
}

/// Write the journal at `path` (atomically: a crash leaves the previous
/// one): its header with `identity`, then one finished game per line.
///
/// # Errors
/// The file could not be written.
pub fn write_journal(
    path: &Path,
    identity: &serde_json::Value,
    games: &[MatchGame],
) -> std::io::Result<()> {
    let mut text = serde_json::json!({"journal": JOURNAL_KIND, "match": identity}).to_string();
    text.push('\n');
    for game in games {
        text.push_str(&serde_json::to_string(game).map_err(std::io::Error::other)?);
        text.push('\n');
    }
    fsio::write_atomic(path, text.as_bytes())
}

/// The games of the journal at `path` (none when there is no file yet, or
/// an empty one), after checking it is a journal of the match `identity`.
///
/// # Errors
/// [`JournalError`]: a file that cannot be read, is no match journal,
/// belongs to another match (naming the first setting that differs), or
/// has a line that is no game or repeats one (naming the line).
pub fn read_journal(
    path: &Path,
    identity: &serde_json::Value,
) -> Result<Vec<MatchGame>, JournalError> {
    let path_buf = || path.to_path_buf();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(JournalError::Io {
                path: path_buf(),
                source,
            })
        }
    };
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .peekable();
    if lines.peek().is_none() {
        // An empty file (`touch`ed for the purpose): a new journal.
        return Ok(Vec::new());
    }
    let header: Option<serde_json::Value> =
        lines.next().and_then(|(_, l)| serde_json::from_str(l).ok());
    let Some(recorded) = header
        .as_ref()
        .filter(|h| h["journal"] == JOURNAL_KIND)
        .map(|h| &h["match"])
    else {
        return Err(JournalError::NotAJournal { path: path_buf() });
    };
    if recorded != identity {
        return Err(JournalError::AnotherMatch {
            path: path_buf(),
            differs: first_difference(recorded, identity),
        });
    }
    let mut games = Vec::new();
    let mut seen = BTreeSet::new();
    for (n, line) in lines {
        let game: MatchGame = serde_json::from_str(line).map_err(|_| JournalError::BadGame {
            path: path_buf(),
            line: n + 1,
        })?;
        if !seen.insert(game.index) {
            return Err(JournalError::Duplicate {
                path: path_buf(),
                line: n + 1,
                index: game.index,
            });
        }
        games.push(game);
    }
    Ok(games)
}

/// Check that the games `done` read from the journal at `path` belong to a
/// match of `total` games: no more of them, and each index below `total`.
///
/// # Errors
/// [`JournalError::TooMany`], [`JournalError::PastTheEnd`].
pub fn check_games(path: &Path, done: &[MatchGame], total: usize) -> Result<(), JournalError> {
    if done.len() > total {
        return Err(JournalError::TooMany {
            path: path.to_path_buf(),
            held: done.len(),
            total,
        });
    }
    match done.iter().find(|g| g.index >= total) {
        Some(g) => Err(JournalError::PastTheEnd {
            path: path.to_path_buf(),
            index: g.index,
            total,
        }),
        None => Ok(()),
    }
}

/// `player A's budget is "8" there, "9" here`: the first key of the two
/// identities whose values differ.
fn first_difference(recorded: &serde_json::Value, identity: &serde_json::Value) -> String {
    let keys: BTreeSet<&String> = [recorded, identity]
        .iter()
        .filter_map(|v| v.as_object())
        .flat_map(|m| m.keys())
        .collect();
    keys.into_iter()
        .find(|k| recorded.get(k.as_str()) != identity.get(k.as_str()))
        .map(|k| {
            // The players by name, not by their JSON keys.
            let name = match k.as_str() {
                "a" => "player A",
                "b" => "player B",
                "budget_a" => "player A's budget",
                "budget_b" => "player B's budget",
                other => other,
            };
            let value = |v: &serde_json::Value| {
                v.get(k.as_str())
                    .cloned()
                    .unwrap_or(serde_json::Value::Null)
            };
            format!(
                "{name} is {} there, {} here",
                value(recorded),
                value(identity)
            )
        })
        .unwrap_or_else(|| "its settings differ".into())
}
