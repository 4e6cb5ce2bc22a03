//! The text of UCI commands, parsed without any engine state: `go` (and
//! its search limits), `setoption`, and `position`. `lokizero uci` drives
//! these; they live in this library so the fuzz target `uci_command` can
//! reach them. Every function returns a [`UciTextError`] for bad input and
//! never panics.

use std::time::Duration;

use search::Budget;

use crate::Clock;
use rules::Player;

/// A UCI command whose text does not parse; the message names the
/// command and the token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UciTextError {
    /// A `go` parameter without its number.
    #[error("go: {0} needs a number")]
    MissingNumber(String),
    /// A `go` parameter whose number is malformed: not plain digits, or
    /// below 1 where only a clock (`wtime`, `btime`, `winc`, `binc`) may
    /// be 0 or negative.
    #[error("go: {name} expects {expected}, got {text:?}")]
    BadNumber {
        /// The parameter.
        name: String,
        /// Its text.
        text: String,
        /// What it takes.
        expected: &'static str,
    },
    /// An unknown `go` parameter.
    #[error("go: unknown parameter {0:?}")]
    UnknownGoParameter(String),
    /// `setoption` without `name`.
    #[error("setoption: expected `setoption name <id> [value <x>]`")]
    SetoptionSyntax,
    /// `setoption name` without a name.
    #[error("setoption: missing option name")]
    MissingOptionName,
    /// `position` without `startpos` or `fen <text>`.
    #[error("position: expected `position startpos|fen <text> [moves ...]`")]
    PositionSyntax,
}

/// The parameters of one `go` command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// `nodes N`.
    pub nodes: Option<u32>,
    /// `depth N`, used as a node budget (an MCTS has no fixed depth).
    pub depth: Option<u32>,
    /// `movetime MS`.
    pub movetime: Option<u64>,
    /// `wtime`, `btime` in ms (First = White in chess, attackers in tafl).
    pub time: [Option<u64>; 2],
    /// `winc`, `binc` in ms.
    pub inc: [Option<u64>; 2],
    /// `movestogo`; `movestogo 0` is read as none (sudden death).
    pub moves_to_go: Option<u32>,
    /// `infinite`: search until `stop`, and send `bestmove` only then.
    pub infinite: bool,
    /// `ponder`: search the position (the engine's expected reply played)
    /// until `stop` or `ponderhit`; on `ponderhit` the clock given by this
    /// `go` starts, and `bestmove` follows when its time is spent.
    pub ponder: bool,
    /// The keywords given but not supported (`searchmoves`, `mate`), in
    /// order: the search ignores them, and an engine says so (`info
    /// string`).
    pub ignored: Vec<&'static str>,
}

/// Parse the tokens after `go`. `searchmoves` and `mate` are accepted and
/// ignored ([`Go::ignored`] lists them).
///
/// # Errors
/// [`UciTextError`] naming the token with a missing or malformed number,
/// or an unknown keyword.
pub fn parse_go(rest: &str) -> Result<Go, UciTextError> {
    let mut go = Go::default();
    let mut tokens = rest.split_whitespace().peekable();
    while let Some(token) = tokens.next() {
        let mut number = |name: &str| -> Result<u64, UciTextError> {
            let text = tokens
                .next()
                .ok_or_else(|| UciTextError::MissingNumber(name.to_string()))?;
            // Clocks may be negative when a GUI lets the engine overrun; read as 0.
            // `movestogo 0` means none (sudden death), as Stockfish reads it.
            // Anything else below 1 (a search limit) is refused.
            let clock = matches!(name, "wtime" | "btime" | "winc" | "binc");
            let zero_is_none = name == "movestogo";
            // Plain digits (a clock also with a leading `-`): no `+5` or `1e3`.
            let value = match text.strip_prefix('-') {
                Some(digits) if clock => search::parse_plain_u64(digits).map(|_| 0),
                _ => search::parse_plain_u64(text),
            };
            match value {
                Some(v) if clock || zero_is_none || v >= 1 => Ok(v),
                _ => Err(UciTextError::BadNumber {
                    name: name.to_string(),
                    text: text.to_string(),
                    expected: if clock {
                        "milliseconds in plain digits (a negative clock is read as 0)"
                    } else if zero_is_none {
                        "a whole number in plain digits (0 = sudden death)"
                    } else {
                        "a whole number of at least 1 in plain digits"
                    },
                }),
            }
        };
        let small = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        match token {
            "nodes" => go.nodes = Some(small(number(token)?)),
            "depth" => go.depth = Some(small(number(token)?)),
            "movetime" => go.movetime = Some(number(token)?),
            "wtime" => go.time[0] = Some(number(token)?),
            "btime" => go.time[1] = Some(number(token)?),
            "winc" => go.inc[0] = Some(number(token)?),
            "binc" => go.inc[1] = Some(number(token)?),
            "movestogo" => go.moves_to_go = Some(small(number(token)?)).filter(|&n| n > 0),
            "mate" => {
                number(token)?;
                go.ignored.push("mate");
            }
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                // Moves follow until the next keyword; not supported, skipped.
                while tokens.peek().is_some_and(|t| !is_keyword(t)) {
                    tokens.next();
                }
                go.ignored.push("searchmoves");
            }
            other => return Err(UciTextError::UnknownGoParameter(other.to_string())),
        }
    }
    Ok(go)
}

fn is_keyword(t: &str) -> bool {
    matches!(
        t,
        "nodes"
            | "depth"
            | "movetime"
            | "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "mate"
            | "infinite"
            | "ponder"
            | "searchmoves"
    )
}

impl Go {
    /// Whether `go` gave no bound at all (then it searches until `stop`,
    /// as Stockfish does).
    pub fn unbounded(&self) -> bool {
        self.nodes.is_none()
            && self.depth.is_none()
            && self.movetime.is_none()
            && self.time.iter().all(Option::is_none)
    }

    /// The search budget for `side` to move, keeping `overhead` in reserve:
    /// nodes (the smaller of `nodes` and `depth`), time (the smaller of
    /// `movetime - overhead` and the clock budget, [`Clock::budget`]), and
    /// on a clock without `movetime` the longer time an unclear root may
    /// take ([`Clock::extended`], [`Budget::time_max`]).
    /// The stop flag is left for the caller.
    pub fn budget(&self, side: Player, overhead: Duration) -> Budget {
        let nodes = match (self.nodes, self.depth) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let i = side.index();
        let clock = self.time[i].map(|remaining| Clock {
            remaining: Duration::from_millis(remaining),
            increment: Duration::from_millis(self.inc[i].unwrap_or(0)),
            moves_to_go: self.moves_to_go,
        });
        let movetime = self
            .movetime
            .map(|ms| Duration::from_millis(ms).saturating_sub(overhead));
        let time = match (movetime, clock.map(|c| c.budget(overhead))) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let budget = Budget {
            nodes: nodes.map(|n| n.max(1)),
            time: if self.infinite { None } else { time },
            ..Budget::default()
        };
        // On a clock (and no fixed move time), an unclear root may take
        // longer, within the clock's cap.
        match (clock, movetime, self.infinite) {
            (Some(c), None, false) => budget.extended_to(c.extended(overhead)),
            _ => budget,
        }
    }
}

/// Split `setoption name <name...> [value <value...>]` (the tokens after
/// `setoption`) into name and value.
///
/// # Errors
/// [`UciTextError`] when `name` or the option name is missing.
pub fn parse_setoption(rest: &str) -> Result<(String, String), UciTextError> {
    let tokens: Vec<&str> = rest.split_whitespace().collect();
    if tokens.first() != Some(&"name") {
        return Err(UciTextError::SetoptionSyntax);
    }
    let value_at = tokens.iter().position(|t| *t == "value");
    let name_end = value_at.unwrap_or(tokens.len());
    let name = tokens[1..name_end].join(" ");
    if name.is_empty() {
        return Err(UciTextError::MissingOptionName);
    }
    let value = value_at
        .map(|i| tokens[i + 1..].join(" "))
        .unwrap_or_default();
    Ok((name, value))
}

/// Split the tokens after `position` — `startpos|fen <text> [moves ...]` —
/// into the position text (`None` for `startpos`) and the move tokens. The
/// text and moves are not checked against a variant here (see
/// [`crate::validate_position`]).
///
/// # Errors
/// [`UciTextError::PositionSyntax`] when neither `startpos` nor `fen
/// <text>` leads the command.
pub fn parse_position_command(rest: &str) -> Result<(Option<String>, Vec<String>), UciTextError> {
    let tokens: Vec<&str> = rest.split_whitespace().collect();
    let moves_at = tokens.iter().position(|t| *t == "moves");
    let head = &tokens[..moves_at.unwrap_or(tokens.len())];
    let moves: Vec<String> = moves_at
        .map(|i| tokens[i + 1..].iter().map(|s| s.to_string()).collect())
        .unwrap_or_default();
    let fen = match head {
        ["startpos"] => None,
        ["fen", fields @ ..] if !fields.is_empty() => Some(fields.join(" ")),
        _ => return Err(UciTextError::PositionSyntax),
    };
    Ok((fen, moves))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setoption_parsing() {
        assert_eq!(
            parse_setoption("name Move Overhead value 100").unwrap(),
            ("Move Overhead".into(), "100".into())
        );
        assert_eq!(
            parse_setoption("name BundlePath value /a b/c").unwrap(),
            ("BundlePath".into(), "/a b/c".into())
        );
        assert!(parse_setoption("value 3").is_err());
        assert!(parse_setoption("name").is_err());
    }

    #[test]
    fn position_command_parsing() {
        assert_eq!(parse_position_command("startpos").unwrap(), (None, vec![]));
        assert_eq!(
            parse_position_command("fen 8/8 w - - 0 1 moves e2e4 e7e5").unwrap(),
            (
                Some("8/8 w - - 0 1".to_string()),
                vec!["e2e4".to_string(), "e7e5".to_string()]
            )
        );
        assert!(parse_position_command("fen").is_err());
        assert!(parse_position_command("moves e2e4").is_err());
        assert!(parse_position_command("").is_err());
    }

    #[test]
    fn parses_every_form() {
        let g = parse_go("wtime 60000 btime 50000 winc 1000 binc 500 movestogo 20").unwrap();
        assert_eq!(g.time, [Some(60000), Some(50000)]);
        assert_eq!(g.inc, [Some(1000), Some(500)]);
        assert_eq!(g.moves_to_go, Some(20));
        assert!(!g.unbounded());
        assert_eq!(parse_go("nodes 800").unwrap().nodes, Some(800));
        assert_eq!(parse_go("depth 12").unwrap().depth, Some(12));
        assert!(parse_go("infinite").unwrap().infinite);
        let ponder = parse_go("ponder wtime 1000 btime 900").unwrap();
        assert!(ponder.ponder && !ponder.infinite && !ponder.unbounded());
        assert_eq!(
            parse_go("searchmoves e2e4 mate 3 movetime 50")
                .unwrap()
                .ignored,
            ["searchmoves", "mate"]
        );
        assert!(parse_go("movetime 50").unwrap().ignored.is_empty());
        assert!(parse_go("").unwrap().unbounded());
        assert_eq!(
            parse_go("searchmoves e2e4 d2d4 nodes 5").unwrap().nodes,
            Some(5)
        );
        assert_eq!(parse_go("wtime -20").unwrap().time[0], Some(0));
        assert!(parse_go("nodes").is_err());
        assert!(parse_go("nodes lots").is_err());
        for limit in [
            "nodes 0",
            "nodes -5",
            "movetime 0",
            "movetime -1",
            "depth 0",
            "nodes +5",
            "movetime 1e3",
            "wtime +5",
            "wtime --5",
            "winc 1.5",
            "movestogo -1",
        ] {
            assert!(parse_go(limit).is_err(), "{limit}");
        }
        assert!(parse_go("sideways 3").is_err());
        // Some GUIs send `movestogo 0` for sudden death.
        let g = parse_go("wtime 1000 btime 1000 movestogo 0").unwrap();
        assert_eq!(g.moves_to_go, None);
        assert_eq!(g.time, [Some(1000), Some(1000)]);
    }

    #[test]
    fn limits_use_the_side_to_move_clock() {
        let g = parse_go("wtime 60050 btime 1000 winc 1000 binc 0").unwrap();
        let overhead = Duration::from_millis(50);
        // White: (60050 - 50) / 30 + 750 = 2750 ms.
        assert_eq!(
            g.budget(Player::First, overhead).time,
            Some(Duration::from_millis(2750))
        );
        // Black: min(950 / 30, 950 / 2) = 31 ms (integer division of Duration).
        let black = g.budget(Player::Second, overhead).time.unwrap();
        assert_eq!(black, Duration::from_nanos(950_000_000 / 30));
        let m = parse_go("movetime 500 nodes 100 depth 7").unwrap();
        let l = m.budget(Player::First, overhead);
        assert_eq!(l.time, Some(Duration::from_millis(450)));
        assert_eq!(l.nodes, Some(7));
    }
}
