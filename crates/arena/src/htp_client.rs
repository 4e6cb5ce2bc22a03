//! Driving `hnefatafl-text-protocol` (the Copenhagen Hnefatafl engine of
//! the `hnefatafl-copenhagen` crate, hnefatafl.org; AGPL, run as a
//! separate program) as a player of `copenhagen` matches.
//!
//! The engine's own AIs (`--ai basic --depth N`, alpha-beta; `--ai
//! monte-carlo --seconds N`) play only as a client of a game server: it
//! connects to TCP port 49152 of `--host` (a port fixed in the engine)
//! and reads one command per line: `play ROLE FROM TO` (a move of either
//! side, applied to its game) and `generate_move` (it answers its own move
//! as `play ROLE FROM TO`, or `play ROLE resigns _`, and applies it). Roles
//! are `attacker` and `defender`; squares are written as ours (`d1`:
//! file letter, rank 1 at the bottom). It exits when its game ends.
//!
//! So each game here listens on `127.0.0.1:49152`, starts the engine
//! pointed at it, and accepts its connection: one such game at a time on a
//! machine. The engine sees the whole game from the start position (the
//! opening's moves included), so its repetition rule sees what ours sees.
//! Any failure (the engine exits, hangs past the move limit, answers an
//! illegal move or garbage, resigns) ends the game as a forfeit of the
//! engine ([`Contestant::take_error`]); when it exits, the forfeit quotes
//! its exit status and last output lines (a panic's message: the engine
//! runs with `RUST_BACKTRACE=0`). The referee is always our rules
//! implementation.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bot::{moves_of_line, same_position};
use rules::{Game, Player};

use crate::opening::Opening;
use crate::player::Contestant;
use crate::uci_client::{move_between, program_name};

/// The address the engine connects to: its port is fixed (its
/// `SERVER_PORT`), only the host is an option.
pub const HTP_ADDRESS: &str = "127.0.0.1:49152";

/// Which of the engine's AIs plays, and how hard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HtpAi {
    /// Alpha-beta to `depth` plies (`--ai basic --depth N`; the engine's
    /// default depth is 4).
    Basic {
        /// Search depth, plies.
        depth: u8,
    },
    /// Monte-Carlo search for `seconds` per move (`--ai monte-carlo
    /// --seconds N`; whole seconds only).
    MonteCarlo {
        /// Thinking time per move, whole seconds.
        seconds: u32,
    },
}

impl HtpAi {
    /// The engine's default: alpha-beta at depth 4.
    pub const DEFAULT: HtpAi = HtpAi::Basic { depth: 4 };

    /// The engine's command-line arguments for this AI.
    fn args(self) -> Vec<String> {
        match self {
            HtpAi::Basic { depth } => vec![
                "--ai".into(),
                "basic".into(),
                "--depth".into(),
                depth.to_string(),
            ],
            HtpAi::MonteCarlo { seconds } => vec![
                "--ai".into(),
                "monte-carlo".into(),
                "--seconds".into(),
                seconds.to_string(),
            ],
        }
    }
}

impl std::fmt::Display for HtpAi {
    /// `depth4`, `1s`: the spec's tail.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HtpAi::Basic { depth } => write!(f, "depth{depth}"),
            HtpAi::MonteCarlo { seconds } => write!(f, "{seconds}s"),
        }
    }
}

/// A failure driving the engine.
#[derive(Debug, thiserror::Error)]
pub enum HtpError {
    /// The process could not be started.
    #[error("cannot start {path}: {source}")]
    Spawn {
        /// Executable.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The port the engine connects to is taken (another engine game or
    /// another program).
    #[error("cannot listen on {HTP_ADDRESS} for the engine ({source}); only one engine game can run at a time on a machine")]
    Port {
        /// The OS error.
        source: std::io::Error,
    },
    /// The engine exited or did not connect in time.
    #[error("{path} did not connect to {HTP_ADDRESS}{exited}")]
    NoConnection {
        /// Executable.
        path: PathBuf,
        /// The limit, seconds.
        seconds: f64,
        /// ` within N s` when the time ran out, `: it exited (status)` when
        /// it exited first.
        exited: String,
    },
    /// Reading or writing the connection failed.
    #[error("{path}: {what} failed ({source}); the engine has probably exited")]
    Io {
        /// Executable.
        path: PathBuf,
        /// What was being done.
        what: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
    /// No move within the limit.
    #[error("{path} sent no move within {seconds:.1} s")]
    Timeout {
        /// Executable.
        path: PathBuf,
        /// The limit, seconds.
        seconds: f64,
    },
    /// The engine closed the connection while a move was awaited.
    #[error("{path} closed the connection while we waited for its move{said}")]
    Closed {
        /// Executable.
        path: PathBuf,
        /// `; it exited (status)` and the last lines it printed, when
        /// there are any.
        said: String,
    },
    /// A reply that is not `play ROLE FROM TO`, or a move our rules refuse.
    #[error("{path} answered {line:?}: {reason}")]
    BadMove {
        /// Executable.
        path: PathBuf,
        /// The reply.
        line: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The engine resigned.
    #[error("{path} resigned")]
    Resigned {
        /// Executable.
        path: PathBuf,
    },
    /// A game it cannot be told: the engine starts only from the start
    /// position, and plays only whole plain moves.
    #[error("{0}")]
    Unsupported(String),
}

/// Settings of an engine player.
#[derive(Clone, Debug)]
pub struct HtpConfig {
    /// The `hnefatafl-text-protocol` executable.
    pub path: PathBuf,
    /// Its AI and strength.
    pub ai: HtpAi,
    /// Limit for its connection at the start of a game.
    pub connect_timeout: Duration,
    /// Limit for one move.
    pub move_timeout: Duration,
}

impl HtpConfig {
    /// Check that `path` runs (`--version`), so a missing engine is the
    /// caller's error before any game, not a match lost by forfeits.
    ///
    /// # Errors
    /// [`HtpError::Spawn`] when it cannot be run or fails.
    pub fn check(&self) -> Result<(), HtpError> {
        let spawn = |source| HtpError::Spawn {
            path: self.path.clone(),
            source,
        };
        let out = Command::new(&self.path)
            .arg("--version")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .map_err(spawn)?;
        if !out.status.success() {
            return Err(spawn(std::io::Error::other(format!(
                "`--version` exited with {}",
                out.status
            ))));
        }
        Ok(())
    }
}

/// How many of the engine's last output lines an error quotes.
const OUTPUT_LINES: usize = 8;

/// One running engine game: the process and its connection.
struct Session {
    path: PathBuf,
    child: Child,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    /// The last [`OUTPUT_LINES`] lines the engine printed (stdout and
    /// stderr), for the error when it exits mid-game.
    output: Arc<Mutex<VecDeque<String>>>,
}

/// Keep the last [`OUTPUT_LINES`] lines of `stream` in `into`, on a thread
/// that ends with the stream.
fn collect_lines(stream: impl Read + Send + 'static, into: &Arc<Mutex<VecDeque<String>>>) {
    let into = Arc::clone(into);
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            let mut lines = into
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if lines.len() == OUTPUT_LINES {
                lines.pop_front();
            }
            lines.push_back(line);
        }
    });
}

impl Session {
    /// Listen, start the engine, accept its connection.
    fn start(config: &HtpConfig) -> Result<Self, HtpError> {
        let listener =
            TcpListener::bind(HTP_ADDRESS).map_err(|source| HtpError::Port { source })?;
        let io = |what| {
            let path = config.path.clone();
            move |source| HtpError::Io { path, what, source }
        };
        listener.set_nonblocking(true).map_err(io("listen"))?;
        let mut child = Command::new(&config.path)
            .arg("--host")
            .arg("127.0.0.1")
            .args(config.ai.args())
            // A panic's message, not its backtrace, in the last lines an
            // error quotes.
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| HtpError::Spawn {
                path: config.path.clone(),
                source,
            })?;
        let output = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(out) = child.stdout.take() {
            collect_lines(out, &output);
        }
        if let Some(err) = child.stderr.take() {
            collect_lines(err, &output);
        }
        let deadline = Instant::now() + config.connect_timeout;
        let stream = loop {
            match listener.accept() {
                Ok((stream, _)) => break stream,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(io("accept")(e));
                }
            }
            let exited = child.try_wait().ok().flatten();
            if exited.is_some() || Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(HtpError::NoConnection {
                    path: config.path.clone(),
                    seconds: config.connect_timeout.as_secs_f64(),
                    exited: exited.map_or_else(
                        || format!(" within {:.0} s", config.connect_timeout.as_secs_f64()),
                        |s| format!(": it exited ({s}) first"),
                    ),
                });
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let setup = || -> std::io::Result<(BufReader<TcpStream>, TcpStream)> {
            stream.set_nonblocking(false)?;
            stream.set_nodelay(true)?;
            stream.set_read_timeout(Some(config.move_timeout))?;
            Ok((BufReader::new(stream.try_clone()?), stream.try_clone()?))
        };
        match setup() {
            Ok((reader, writer)) => Ok(Session {
                path: config.path.clone(),
                child,
                reader,
                writer,
                output,
            }),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(io("set up the connection")(e))
            }
        }
    }

    fn send(&mut self, line: &str) -> Result<(), HtpError> {
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| self.writer.flush())
            .map_err(|source| HtpError::Io {
                path: self.path.clone(),
                what: "write",
                source,
            })
    }

    /// Ask for the engine's move; its reply line (trimmed).
    fn generate_move(&mut self, limit: Duration) -> Result<String, HtpError> {
        self.send("generate_move")?;
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => Err(HtpError::Closed {
                path: self.path.clone(),
                said: self.last_words(),
            }),
            Ok(_) => Ok(line.trim().to_string()),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Err(HtpError::Timeout {
                    path: self.path.clone(),
                    seconds: limit.as_secs_f64(),
                })
            }
            Err(source) => Err(HtpError::Io {
                path: self.path.clone(),
                what: "read",
                source,
            }),
        }
    }
}

impl Session {
    /// After the engine closed the connection: `; it exited (status)` and
    /// its last output lines, waiting up to a second for it to exit.
    fn last_words(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(1);
        let mut status = None;
        while status.is_none() && Instant::now() < deadline {
            status = self.child.try_wait().ok().flatten();
            if status.is_none() {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        // The reading threads end with the process; give them a moment.
        std::thread::sleep(Duration::from_millis(50));
        let lines = self
            .output
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut said = status.map_or(String::new(), |s| format!("; it exited ({s})"));
        if !lines.is_empty() {
            said.push_str("; its last output: ");
            said.push_str(&lines.iter().cloned().collect::<Vec<_>>().join(" | "));
        }
        said
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.writer.shutdown(Shutdown::Both);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The engine's role name for `side` (the attackers move first).
fn role(side: Player) -> &'static str {
    match side {
        Player::First => "attacker",
        Player::Second => "defender",
    }
}

/// Our move token `d1d3` (or `a10k10`) as the engine's `play ROLE d1 d3`.
fn play_line(side: Player, token: &str) -> Option<String> {
    let split = token
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c.is_ascii_alphabetic())?
        .0;
    let (from, to) = token.split_at(split);
    let square = |s: &str| {
        s.len() >= 2
            && s.as_bytes()[0].is_ascii_lowercase()
            && s[1..].bytes().all(|b| b.is_ascii_digit())
    };
    (square(from) && square(to)).then(|| format!("play {} {from} {to}", role(side)))
}

/// What is wrong with an engine's reply to `generate_move`.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum ReplyError {
    /// Not `play ROLE FROM TO`.
    #[error("not `play ROLE FROM TO`")]
    NotAPlay,
    /// A move of the side not to move.
    #[error("a move of the {got}s, but the {expected}s are to move")]
    WrongSide {
        /// The role in the reply.
        got: String,
        /// The side to move's role.
        expected: &'static str,
    },
}

/// The engine's `play ROLE FROM TO` as our move token, checked against
/// the side to move: `Ok(None)` for a resignation.
fn parse_play(line: &str, side: Player) -> Result<Option<String>, ReplyError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["play", r, "resigns", ..] if *r == role(side) => Ok(None),
        ["play", r, from, to] if *r == role(side) => Ok(Some(format!(
            "{}{}",
            from.to_ascii_lowercase(),
            to.to_ascii_lowercase()
        ))),
        ["play", r, ..] => Err(ReplyError::WrongSide {
            got: r.to_string(),
            expected: role(side),
        }),
        _ => Err(ReplyError::NotAPlay),
    }
}

/// `hnefatafl-text-protocol` as a [`Contestant`]: a new engine process and
/// connection per game, started at [`Contestant::new_game`].
pub struct HtpPlayer<G: Game> {
    config: HtpConfig,
    session: Option<Session>,
    /// The position the engine's game is at.
    at: Option<G>,
    error: Option<String>,
}

impl<G: Game> HtpPlayer<G> {
    /// A player for `config`; the engine starts with the first game.
    pub fn new(config: HtpConfig) -> Self {
        HtpPlayer {
            config,
            session: None,
            at: None,
            error: None,
        }
    }

    fn fail(&mut self, e: impl std::fmt::Display) -> Option<G::Action> {
        self.error = Some(e.to_string());
        self.session = None; // kills the process
        None
    }

    /// Start the engine and tell it the opening's moves.
    fn start(&mut self, opening: &Opening<G>) -> Result<(), HtpError> {
        if !same_position(&opening.root, &G::start()) {
            return Err(HtpError::Unsupported(format!(
                "{} starts only from the start position, not {:?}",
                self.config.path.display(),
                opening.root.to_text()
            )));
        }
        let mut session = Session::start(&self.config)?;
        let mut game = opening.root.clone();
        for token in moves_of_line(&opening.root, &opening.actions) {
            session.send(&self.tell(&game, &token)?)?;
            for a in game
                .parse_move(&token)
                .map_err(|e| HtpError::Unsupported(e.to_string()))?
            {
                game.play(a);
            }
        }
        self.session = Some(session);
        self.at = Some(game);
        Ok(())
    }

    /// The engine's line for our move `token` played in `game`.
    fn tell(&self, game: &G, token: &str) -> Result<String, HtpError> {
        play_line(game.side_to_move(), token).ok_or_else(|| {
            HtpError::Unsupported(format!(
                "{} plays only plain moves FROM TO, not {token:?}",
                self.config.path.display()
            ))
        })
    }

    /// Bring the engine to `game` (the opponent's reply since its own
    /// move) and ask for its move.
    fn next_move(&mut self, game: &G) -> Result<G::Action, HtpError> {
        let path = self.config.path.clone();
        let at = self
            .at
            .take()
            .ok_or_else(|| HtpError::Unsupported("no game started".into()))?;
        if !same_position(&at, game) {
            let token = move_between(&at, game).ok_or_else(|| {
                HtpError::Unsupported(format!(
                    "{} cannot be told how {:?} follows from {:?}",
                    path.display(),
                    game.to_text(),
                    at.to_text()
                ))
            })?;
            let line = self.tell(&at, &token)?;
            self.session_mut()?.send(&line)?;
        }
        let limit = self.config.move_timeout;
        let line = self.session_mut()?.generate_move(limit)?;
        let bad = |reason: String| HtpError::BadMove {
            path: path.clone(),
            line: line.clone(),
            reason,
        };
        let token = parse_play(&line, game.side_to_move())
            .map_err(|e| bad(e.to_string()))?
            .ok_or_else(|| HtpError::Resigned { path: path.clone() })?;
        let actions = game.parse_move(&token).map_err(|e| bad(e.to_string()))?;
        let [action] = actions.as_slice() else {
            return Err(bad("not a one-action move".into()));
        };
        let mut after = game.clone();
        after.play(*action);
        self.at = Some(after);
        Ok(*action)
    }

    fn session_mut(&mut self) -> Result<&mut Session, HtpError> {
        self.session
            .as_mut()
            .ok_or_else(|| HtpError::Unsupported("the engine is not running".into()))
    }
}

impl<G: Game> Contestant<G> for HtpPlayer<G> {
    fn name(&self) -> String {
        format!(
            "htp:{}[{}]",
            program_name(&self.config.path),
            self.config.ai
        )
    }

    fn new_game(&mut self, opening: &Opening<G>) {
        self.error = None;
        self.session = None;
        self.at = None;
        if let Err(e) = self.start(opening) {
            self.error = Some(e.to_string());
        }
    }

    fn choose(&mut self, game: &G) -> Option<G::Action> {
        if let Some(e) = self.error.clone() {
            return self.fail(e);
        }
        match self.next_move(game) {
            Ok(a) => Some(a),
            Err(e) => self.fail(e),
        }
    }

    fn take_error(&mut self) -> Option<String> {
        self.error.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_convert_both_ways() {
        assert_eq!(
            play_line(Player::First, "d1d3").as_deref(),
            Some("play attacker d1 d3")
        );
        assert_eq!(
            play_line(Player::Second, "a10k10").as_deref(),
            Some("play defender a10 k10")
        );
        assert_eq!(play_line(Player::First, "x:e5d4"), None);
        assert_eq!(play_line(Player::First, "d1"), None);
        assert_eq!(
            parse_play("play attacker D1 D3", Player::First),
            Ok(Some("d1d3".into()))
        );
        assert_eq!(
            parse_play("play defender resigns _", Player::Second),
            Ok(None)
        );
        assert!(parse_play("play defender f8 f9", Player::First).is_err());
        assert!(parse_play("= ongoing", Player::First).is_err());
        assert_eq!(HtpAi::DEFAULT.to_string(), "depth4");
        assert_eq!(HtpAi::MonteCarlo { seconds: 1 }.to_string(), "1s");
    }
}
