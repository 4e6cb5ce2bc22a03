//! Driving an external UCI engine process (e.g. Fairy-Stockfish) as a
//! player, robust to engines that crash, hang or send garbage.
//!
//! The engine's stdout is read by a thread that forwards each line over a
//! channel, so every wait has a timeout ([`std::sync::mpsc::Receiver::recv_timeout`]).
//! Any failure becomes a [`UciError`]; [`UciPlayer`] turns it into a forfeit
//! of the current game (see [`crate::Contestant::take_error`]) and starts a
//! fresh engine process for the next game. The process is killed on drop.
//!
//! The engine gets the current position as `position fen <text>` (no move
//! history, so it cannot see repetitions); the referee is always our
//! rules implementation.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use rules::Game;

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
        };
        engine.send("uci")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = engine.next_line("uciok", deadline, timeout)?;
            if let Some(name) = line.strip_prefix("id name ") {
                engine.id_name = Some(name.trim().to_string());
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

    /// Send `position fen <fen>` and `go_command` (e.g. `go nodes 1000`),
    /// return the move token of `bestmove` (`info` lines are skipped).
    ///
    /// # Errors
    /// [`UciError::Garbage`] for a `bestmove` line without a move (or
    /// `(none)`/`0000`), [`UciError::Timeout`] / [`UciError::Exited`]
    /// otherwise; after a timeout the caller should drop the engine.
    pub fn best_move(
        &mut self,
        fen: &str,
        go_command: &str,
        timeout: Duration,
    ) -> Result<String, UciError> {
        self.send(&format!("position fen {fen}"))?;
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
}

impl<G: Game> UciPlayer<G> {
    /// A player for `config`; the engine starts with the first game.
    pub fn new(config: UciConfig) -> Self {
        UciPlayer {
            config,
            engine: None,
            queued: VecDeque::new(),
            error: None,
        }
    }

    fn fail(&mut self, e: impl std::fmt::Display) -> Option<G::Action> {
        self.error = Some(e.to_string());
        self.engine = None; // kills the process
        None
    }
}

impl<G: Game> Contestant<G> for UciPlayer<G> {
    fn name(&self) -> String {
        let file = self
            .config
            .path
            .file_name()
            .map_or_else(|| "engine".into(), |f| f.to_string_lossy().to_string());
        format!("uci:{file}[{}]", self.config.go.trim_start_matches("go "))
    }

    fn new_game(&mut self) {
        self.queued.clear();
        self.error = None;
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
        let fen = self.config.dialect.convert(&game.to_text());
        let Some(engine) = self.engine.as_mut() else {
            let why = self
                .error
                .clone()
                .unwrap_or_else(|| "engine not running".to_string());
            return self.fail(why);
        };
        let token = match engine.best_move(&fen, &self.config.go, self.config.move_timeout) {
            Ok(t) => t,
            Err(e) => return self.fail(e),
        };
        match game.parse_move(&token) {
            Ok(actions) if !actions.is_empty() => {
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
