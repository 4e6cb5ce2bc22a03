//! Driving an external UCI engine process (e.g. Fairy-Stockfish) as a
//! player, robust to engines that crash, hang or send garbage.
//!
//! The engine's stdout is read by a thread that forwards each line over a
//! channel, so every wait has a timeout ([`std::sync::mpsc::Receiver::recv_timeout`]).
//! Any failure becomes a [`UciError`]; [`UciPlayer`] turns it into a forfeit
//! of the current game (see [`crate::Contestant::take_error`]) and starts a
//! fresh engine process for the next game. The process is killed on drop.
//!
//! The engine gets the game as `position fen <start> moves <m1> <m2> ...`:
//! the position it first saw the game from and the whole moves played
//! since (found by [`UciPlayer`] from one position to the next), so it sees
//! the repetitions of the moves played since; after a position it cannot
//! follow (an unrelated one) the line starts anew from it. A game's line
//! starts at its [`Opening`]'s root with the opening's moves, so rules that
//! count the whole game and are not in the position text (hnefatafl's and
//! Loki's ban on a side's third use of one move token) see the opening
//! too. The referee is always our rules implementation.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use bot::{moves_of_line, same_position};
use rules::Game;

use crate::clock::GameClock;
use crate::opening::Opening;
use crate::player::Contestant;

/// A failure talking to a UCI engine.
#[derive(Debug, thiserror::Error)]
pub enum UciError {
    /// The process could not be started.
    #[error("cannot start UCI engine {path}: {source}")]
    Spawn {
        /// Executable.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Writing to the engine failed (it has probably exited).
    #[error("UCI engine {path}: write failed ({source}); it has probably crashed")]
    Write {
        /// Executable.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The engine closed its output (exited or crashed).
    #[error("UCI engine {path} exited while we waited for {waiting_for:?}")]
    Exited {
        /// Executable.
        path: PathBuf,
        /// The reply expected.
        waiting_for: String,
    },
    /// No reply within the time limit.
    #[error("UCI engine {path} did not send {waiting_for:?} within {seconds:.1} s")]
    Timeout {
        /// Executable.
        path: PathBuf,
        /// The reply expected.
        waiting_for: String,
        /// The limit, seconds.
        seconds: f64,
    },
    /// A reply that is not valid UCI where one was required.
    #[error("UCI engine {path} sent garbage: {line:?}")]
    Garbage {
        /// Executable.
        path: PathBuf,
        /// The offending line.
        line: String,
    },
}

/// A running UCI engine process.
pub struct UciEngine {
    path: PathBuf,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// The engine's `id name`, if it sent one.
    pub id_name: Option<String>,
    /// The values of the engine's `UCI_Variant` combo option (the
    /// variants it offers), empty when it declared none.
    pub variants: Vec<String>,
}

impl UciEngine {
    /// Start `path`, do the `uci`/`uciok` handshake, send each
    /// `setoption name N value V`, then `isready`/`readyok`; every reply
    /// must come within `timeout`.
    ///
    /// # Errors
    /// [`UciError`] if the engine cannot be started or fails the handshake.
    pub fn start(
        path: &Path,
        options: &[(String, String)],
        timeout: Duration,
    ) -> Result<Self, UciError> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| UciError::Spawn {
                path: path.to_path_buf(),
                source,
            })?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(UciError::Spawn {
                    path: path.to_path_buf(),
                    source: std::io::Error::other("no stdio pipes"),
                });
            }
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim().to_string();
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut engine = UciEngine {
            path: path.to_path_buf(),
            child,
            stdin,
            lines: rx,
            id_name: None,
            variants: Vec::new(),
        };
        engine.send("uci")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = engine.next_line("uciok", deadline, timeout)?;
            if let Some(name) = line.strip_prefix("id name ") {
                engine.id_name = Some(name.trim().to_string());
            }
            if let Some(vars) = combo_values(&line, "UCI_Variant") {
                engine.variants = vars;
            }
            if line == "uciok" {
                break;
            }
        }
        for (name, value) in options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.ready(timeout)?;
        Ok(engine)
    }

    /// Send one command line.
    ///
    /// # Errors
    /// [`UciError::Write`] if the pipe is closed.
    pub fn send(&mut self, line: &str) -> Result<(), UciError> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|source| UciError::Write {
                path: self.path.clone(),
                source,
            })
    }

    fn next_line(
        &mut self,
        waiting_for: &str,
        deadline: Instant,
        limit: Duration,
    ) -> Result<String, UciError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(UciError::Timeout {
                path: self.path.clone(),
                waiting_for: waiting_for.to_string(),
                seconds: limit.as_secs_f64(),
            }),
            Err(RecvTimeoutError::Disconnected) => Err(UciError::Exited {
                path: self.path.clone(),
                waiting_for: waiting_for.to_string(),
            }),
        }
    }

    /// `isready` and wait for `readyok`.
    ///
    /// # Errors
    /// [`UciError`] on timeout or exit.
    pub fn ready(&mut self, timeout: Duration) -> Result<(), UciError> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        while self.next_line("readyok", deadline, timeout)? != "readyok" {}
        Ok(())
    }

    /// `ucinewgame` then `isready`/`readyok`.
    ///
    /// # Errors
    /// [`UciError`] on timeout or exit.
    pub fn new_game(&mut self, timeout: Duration) -> Result<(), UciError> {
        self.send("ucinewgame")?;
        self.ready(timeout)
    }

    /// Send `position fen <fen> [moves <moves>...]` and `go_command` (e.g.
    /// `go nodes 1000`), return the move token of `bestmove` (`info` lines
    /// are skipped).
    ///
    /// # Errors
    /// [`UciError::Garbage`] for a `bestmove` line without a move (or
    /// `(none)`/`0000`), [`UciError::Timeout`] / [`UciError::Exited`]
    /// otherwise; after a timeout the caller should drop the engine.
    pub fn best_move(
        &mut self,
        fen: &str,
        moves: &[String],
        go_command: &str,
        timeout: Duration,
    ) -> Result<String, UciError> {
        if moves.is_empty() {
            self.send(&format!("position fen {fen}"))?;
        } else {
            self.send(&format!("position fen {fen} moves {}", moves.join(" ")))?;
        }
        self.send(go_command)?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = self.next_line("bestmove", deadline, timeout)?;
            let mut words = line.split_whitespace();
            if words.next() != Some("bestmove") {
                continue;
            }
            return match words.next() {
                Some(m) if m != "(none)" && m != "0000" => Ok(m.to_string()),
                _ => Err(UciError::Garbage {
                    path: self.path.clone(),
                    line,
                }),
            };
        }
    }
}

/// The token of the whole move that leads from `from` to `to`: one
/// action, or two when the first leaves the turn open (a Loki exchange or
/// command); `None` when no move does.
pub(crate) fn move_between<G: Game>(from: &G, to: &G) -> Option<String> {
    if to.ply() <= from.ply() || to.ply() > from.ply() + 2 {
        return None;
    }
    for a in from.legal_vec() {
        let mut next = from.clone();
        next.play(a);
        if !next.mid_turn() || next.outcome().is_some() {
            if same_position(&next, to) {
                return Some(from.move_text(&[a]));
            }
            continue;
        }
        for b in next.legal_vec() {
            let mut after = next.clone();
            after.play(b);
            if same_position(&after, to) {
                return Some(from.move_text(&[a, b]));
            }
        }
    }
    None
}

/// The `var` values of `line` when it declares the combo option `name`
/// (`option name UCI_Variant type combo default chess var chess var
/// losers ...`; the name compared case-insensitively, as UCI names are).
fn combo_values(line: &str, name: &str) -> Option<Vec<String>> {
    let rest = line.strip_prefix("option name ")?;
    let (declared, spec) = rest.split_once(" type ")?;
    if !declared.trim().eq_ignore_ascii_case(name) || !spec.trim_start().starts_with("combo") {
        return None;
    }
    let words: Vec<&str> = spec.split_whitespace().collect();
    Some(
        words
            .windows(2)
            .filter(|w| w[0] == "var")
            .map(|w| w[1].to_string())
            .collect(),
    )
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How the engine writes positions, when it differs from our text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenDialect {
    /// Our position text as is (`losers`: standard FEN).
    Same,
    /// Fairy-Stockfish's `viking.ini`: black pawns are the custom piece
    /// `o` (`configs/fairy-stockfish/viking.ini`), ours are `p`.
    VikingBlackPawnO,
}

impl FenDialect {
    /// Our position text in the engine's dialect.
    pub fn convert(self, text: &str) -> String {
        match self {
            FenDialect::Same => text.to_string(),
            FenDialect::VikingBlackPawnO => match text.split_once(' ') {
                Some((board, rest)) => format!("{} {rest}", board.replace('p', "o")),
                None => text.replace('p', "o"),
            },
        }
    }
}

/// Settings of a UCI player.
#[derive(Clone, Debug)]
pub struct UciConfig {
    /// Engine executable.
    pub path: PathBuf,
    /// `setoption` pairs sent after `uci` (e.g. `UCI_Variant` = `losers`).
    pub options: Vec<(String, String)>,
    /// The `go` line, e.g. `go nodes 1000` or `go depth 1`.
    pub go: String,
    /// Limit for the handshake and `readyok`.
    pub handshake_timeout: Duration,
    /// Limit for one `bestmove`.
    pub move_timeout: Duration,
    /// Position-text dialect.
    pub dialect: FenDialect,
}

/// An external UCI engine as a [`Contestant`]. One engine process per game:
/// started at [`Contestant::new_game`] (or restarted after a failure).
pub struct UciPlayer<G: Game> {
    config: UciConfig,
    engine: Option<UciEngine>,
    queued: VecDeque<G::Action>,
    error: Option<String>,
    /// The game as the engine is told it: the start position's text, the
    /// whole moves played since, and the position after them.
    line: Option<(String, Vec<String>, G)>,
    /// The clocks at a time control: `go wtime .. btime ..` instead of the
    /// configured `go`.
    clock: Option<GameClock>,
}

impl<G: Game> UciPlayer<G> {
    /// A player for `config`; the engine starts with the first game.
    pub fn new(config: UciConfig) -> Self {
        UciPlayer {
            config,
            engine: None,
            queued: VecDeque::new(),
            error: None,
            line: None,
            clock: None,
        }
    }

    /// Bring the engine's line up to `game`: append the whole move that
    /// leads from the line's last position to `game` (one action, or two
    /// of a turn that splits), or start a new line from `game` when none
    /// does.
    fn follow(&mut self, game: &G) {
        if let Some((_, moves, at)) = &mut self.line {
            if same_position(at, game) {
                return;
            }
            if let Some(token) = move_between(at, game) {
                moves.push(token);
                *at = game.clone();
                return;
            }
        }
        self.line = Some((game.to_text(), Vec::new(), game.clone()));
    }

    fn fail(&mut self, e: impl std::fmt::Display) -> Option<G::Action> {
        self.error = Some(e.to_string());
        self.engine = None; // kills the process
        None
    }
}

/// The file name of an engine's program, for a player's name ("engine"
/// when the path has none).
pub(crate) fn program_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| "engine".into(), |f| f.to_string_lossy().to_string())
}

impl<G: Game> Contestant<G> for UciPlayer<G> {
    fn name(&self) -> String {
        format!(
            "uci:{}[{}]",
            program_name(&self.config.path),
            self.config.go.trim_start_matches("go ")
        )
    }

    fn set_clock(&mut self, clock: &GameClock) {
        self.clock = Some(*clock);
    }

    fn new_game(&mut self, opening: &Opening<G>) {
        self.queued.clear();
        self.error = None;
        self.clock = None;
        self.line = Some((
            opening.root.to_text(),
            moves_of_line(&opening.root, &opening.actions),
            opening.position.clone(),
        ));
        if let Some(engine) = self.engine.as_mut() {
            if engine.new_game(self.config.handshake_timeout).is_ok() {
                return;
            }
        }
        self.engine = None;
        match UciEngine::start(
            &self.config.path,
            &self.config.options,
            self.config.handshake_timeout,
        ) {
            Ok(e) => self.engine = Some(e),
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    fn choose(&mut self, game: &G) -> Option<G::Action> {
        if let Some(a) = self.queued.pop_front() {
            if game.legal_vec().contains(&a) {
                return Some(a);
            }
            self.queued.clear();
        }
        self.follow(game);
        let (start, moves) = match &self.line {
            Some((start, moves, _)) => (self.config.dialect.convert(start), moves.clone()),
            None => (self.config.dialect.convert(&game.to_text()), Vec::new()),
        };
        let Some(engine) = self.engine.as_mut() else {
            let why = self
                .error
                .clone()
                .unwrap_or_else(|| "engine not running".to_string());
            return self.fail(why);
        };
        let go = self
            .clock
            .map_or_else(|| self.config.go.clone(), |c| c.go_command());
        let token = match engine.best_move(&start, &moves, &go, self.config.move_timeout) {
            Ok(t) => t,
            Err(e) => return self.fail(e),
        };
        match game.parse_move(&token) {
            Ok(actions) if !actions.is_empty() => {
                if let Some((_, moves, at)) = &mut self.line {
                    for &a in &actions {
                        at.play(a);
                    }
                    moves.push(token);
                }
                self.queued.extend(actions[1..].iter().copied());
                Some(actions[0])
            }
            Ok(_) => self.fail(format!("engine move {token:?} has no actions")),
            Err(e) => self.fail(format!("engine sent a bad move {token:?}: {e}")),
        }
    }

    fn take_error(&mut self) -> Option<String> {
        self.error.take()
    }
}

#[cfg(test)]
mod tests {
    use super::combo_values;

    #[test]
    fn the_offered_variants_are_read_from_the_combo_declaration() {
        let line =
            "option name UCI_Variant type combo default losers var losers var viking var chess";
        assert_eq!(
            combo_values(line, "UCI_Variant").unwrap(),
            ["losers", "viking", "chess"]
        );
        assert!(combo_values("option name Threads type spin default 1", "UCI_Variant").is_none());
        assert!(combo_values("id name x", "UCI_Variant").is_none());
    }
}
