//! `lokizero uci`: a UCI engine following Fairy-Stockfish's conventions
//! (`UCI_Variant`, `position startpos|fen ... moves ...`, `go`, `stop`,
//! `bestmove`), playing a shipped bundle of any variant.
//!
//! Commands are read line by line from stdin. A search runs on its own
//! thread, so `stop`, `isready` and `quit` are answered while it thinks.
//! Bad input never ends the engine: it answers `info string error: ...`
//! (and `bestmove (none)` for a `go` it cannot search) and carries on.
//! Each error is reported once: a `go` after a rejected `position`
//! answers `bestmove (none)` alone, the error having been reported for
//! the `position`.

mod options;
#[cfg(test)]
mod tests;

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use bot::{centipawns, wdl_permille, Bot, SearchInfo};
use clap::Args;
use rules::VariantId;

use bot::uci_text::{parse_go, parse_position_command, parse_setoption};
use options::{Changed, Options};

/// Arguments of `lokizero uci`.
#[derive(Args, Debug)]
pub struct UciArgs {
    /// Default `UCI_Variant` (what a GUI that never sets it plays; python-chess
    /// sends `chess` for a plain `chess.Board`, which plays losers).
    #[arg(long, default_value = "shakti")]
    variant: VariantId,
    /// Default `BundlePath`; empty = the variant's bundle on the bundle
    /// search path (`lokizero models` lists it). A relative path is tried
    /// against the current directory, then against the folders above the
    /// executable.
    #[arg(long, default_value = "")]
    bundle: String,
    /// Backend: cpu or cuda.
    #[arg(long, default_value = "cpu")]
    device: model::Backend,
    /// Default `Threads` (CPU threads of the network and the search: with two or more, two batches of leaves are evaluated at once, one per thread), 1 to 256.
    #[arg(long, default_value_t = 1, value_parser = super::parse_uci_threads)]
    threads: usize,
    /// Precision of the network: int8 (the default: the trunk's 3x3
    /// convolutions on 8-bit integers, model::quant; used only on the CPU
    /// with AVX2 or VNNI, fp32 elsewhere) or fp32 (the reference).
    #[arg(long, default_value_t = model::Precision::default())]
    precision: model::Precision,
    /// The budget of a `go` that names none (without these flags such a
    /// `go` searches until `stop`, as UCI engines do).
    #[command(flatten)]
    budget: super::search_args::BudgetArgs,
}

/// Where the engine writes: stdout in the binary, a buffer in tests.
type Out = Arc<Mutex<dyn Write + Send>>;

fn send(out: &Out, line: &str) {
    // A poisoned lock or a closed pipe leaves nothing useful to do.
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }
}

/// The UCI `info` line of a search report: depth (principal-variation
/// length in moves), nodes, nps, time, score in centipawns from Q = W - L
/// ([`bot::centipawns`]), WDL in permille, and the PV. A search that
/// visited nothing (a `stop` before its first simulation) has no score,
/// WDL or PV to report: its line is `info nodes 0 time <ms>`.
pub fn info_line(info: &SearchInfo) -> String {
    if info.nodes == 0 {
        return format!("info nodes 0 time {}", info.time_ms);
    }
    let [w, d, l] = wdl_permille(info.wdl);
    let q = info.wdl[0] - info.wdl[2];
    let depth = info.pv.len().max(1);
    let mut line = format!(
        "info depth {depth} seldepth {depth} nodes {} nps {} time {} score cp {} wdl {w} {d} {l}",
        info.nodes,
        info.nps(),
        info.time_ms,
        centipawns(q)
    );
    if !info.pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&info.pv.join(" "));
    }
    line
}

/// The position last set by `position`.
#[derive(Clone, Debug, Default)]
struct PositionSpec {
    fen: Option<String>,
    moves: Vec<String>,
}

/// A search in progress.
struct Running {
    stop: Arc<AtomicBool>,
    /// While set, the search only ends on `stop` (`go infinite`, `go
    /// ponder` before its `ponderhit`, or no limit), and a search that
    /// ended keeps its `bestmove` until then.
    hold: Arc<AtomicBool>,
    /// A `go ponder`'s clock, started at `ponderhit`, and whether its `go`
    /// gave a bound (a clock, nodes or a move time) that ends the search
    /// after that; `None` when not pondering or after `ponderhit`.
    ponder: Option<(Arc<OnceLock<Instant>>, bool)>,
    handle: JoinHandle<Bot>,
}

/// The engine state between commands.
struct Engine {
    out: Out,
    device: model::Backend,
    /// The network's precision (`--precision`).
    precision: model::Precision,
    options: Options,
    /// The network's and the search's threads, `Threads` of them; built
    /// on the first network load and again when `Threads` changes.
    pool: Option<Arc<rayon::ThreadPool>>,
    bot: Option<Bot>,
    /// Variant and folder the loaded bot came from.
    loaded: Option<(VariantId, PathBuf)>,
    /// The current position; `None` after a `position` that was rejected
    /// (reported then).
    position: Option<PositionSpec>,
    search: Option<Running>,
    /// The budget of a `go` that names none (`--nodes` / `--movetime`);
    /// `None`: such a `go` searches until `stop`.
    default_budget: Option<search::Budget>,
}

impl Engine {
    fn new(out: Out, args: &UciArgs) -> Self {
        Engine {
            out,
            device: args.device,
            precision: args.precision,
            options: Options::new(args.variant, args.bundle.clone(), args.threads),
            pool: None,
            bot: None,
            loaded: None,
            position: Some(PositionSpec::default()),
            search: None,
            default_budget: args.budget.given(),
        }
    }

    fn say(&self, line: &str) {
        send(&self.out, line);
    }

    fn error(&self, message: impl std::fmt::Display) {
        self.say(&format!("info string error: {message}"));
    }

    /// Handle one input line; `false` after `quit`.
    fn handle(&mut self, line: &str) -> bool {
        let line = line.trim();
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        match command {
            "" => {}
            "uci" => {
                self.say(&format!("id name lokizero {}", env!("CARGO_PKG_VERSION")));
                self.say("id author the lokizero authors");
                for option in self.options.declarations() {
                    self.say(&option);
                }
                self.say("uciok");
            }
            "isready" => {
                if self.search.is_none() {
                    if let Err(e) = self.ensure_bot() {
                        self.error(&e);
                    }
                }
                self.say("readyok");
            }
            "ucinewgame" => {
                self.wait_search();
                self.position = Some(PositionSpec::default());
            }
            "setoption" => {
                self.wait_search();
                self.setoption(rest);
            }
            "position" => {
                self.wait_search();
                self.position = match self.parse_position(rest) {
                    Ok(spec) => Some(spec),
                    Err(e) => {
                        self.error(crate::error_text(&e));
                        None
                    }
                };
            }
            "go" => {
                self.wait_search();
                self.go(rest);
            }
            "stop" => self.finish_search(),
            "ponderhit" => self.ponderhit(),
            "debug" | "register" => {}
            "quit" => {
                self.finish_search();
                return false;
            }
            other => {
                let shown: String = other.chars().take(40).collect();
                self.error(format!("unknown command {shown:?}"));
            }
        }
        true
    }

    /// Before a command that needs the bot: let a bounded search finish
    /// (so piped scripts work), stop one that would only end on `stop`.
    fn wait_search(&mut self) {
        if let Some(running) = &self.search {
            if running.hold.load(Ordering::Relaxed) {
                running.stop.store(true, Ordering::Relaxed);
            }
        }
        self.join_search();
    }

    /// Stop a running search (if any) and wait for its `bestmove`.
    fn finish_search(&mut self) {
        if let Some(running) = &self.search {
            running.stop.store(true, Ordering::Relaxed);
        }
        self.join_search();
    }

    /// Wait for the search thread and take the bot back.
    fn join_search(&mut self) {
        if let Some(running) = self.search.take() {
            match running.handle.join() {
                Ok(bot) => self.bot = Some(bot),
                Err(_) => {
                    self.error("the search thread failed; the bundle will be reloaded");
                    self.loaded = None;
                }
            }
        }
    }

    fn setoption(&mut self, rest: &str) {
        let (name, value) = match parse_setoption(rest) {
            Ok(nv) => nv,
            Err(e) => return self.error(&e),
        };
        let before = self.options.clone();
        match self.options.set(&name, &value) {
            Err(e) => self.error(crate::error_text(&e)),
            Ok(Changed::Variant { via_chess_alias }) => {
                if via_chess_alias {
                    self.say("info string UCI_Variant chess is played as losers (the 8x8 chess variant of this engine)");
                }
                if self.options.variant != before.variant {
                    self.position = Some(PositionSpec::default());
                }
            }
            Ok(Changed::Threads) if self.options.threads != before.threads => {
                // Rebuilt at the next `go` (`ensure_bot`).
                self.pool = None;
            }
            Ok(_) => {}
        }
    }

    fn parse_position(&self, rest: &str) -> Result<PositionSpec> {
        let (fen, moves) = parse_position_command(rest)?;
        bot::validate_position(self.options.variant, fen.as_deref(), &moves)
            .with_context(|| format!("position ({})", self.options.variant))?;
        Ok(PositionSpec { fen, moves })
    }

    /// Load the bundle the options ask for, unless already loaded, and
    /// start the engine's threads, unless started; returns the threads.
    fn ensure_bot(&mut self) -> Result<Arc<rayon::ThreadPool>> {
        let variant = self.options.variant;
        let given =
            (!self.options.bundle_path.is_empty()).then(|| Path::new(&self.options.bundle_path));
        let path = bot::paths::resolve_bundle(variant, given)?;
        let pool = match &self.pool {
            Some(pool) => Arc::clone(pool),
            None => {
                let pool = super::engine_pool(self.options.threads)?;
                self.pool.insert(Arc::new(pool)).clone()
            }
        };
        if self.bot.is_none() || self.loaded.as_ref() != Some(&(variant, path.clone())) {
            self.bot = None;
            self.loaded = None;
            let device = self.device.device()?;
            let mut bot = pool.install(|| Bot::load_for(variant, &path, &device))?;
            bot.set_precision(self.precision);
            self.bot = Some(bot);
            self.loaded = Some((variant, path));
        }
        // The engine has the pool to itself: with two or more threads the
        // network's work overlaps the tree's.
        if let Some(bot) = self.bot.as_mut() {
            bot.set_pipeline(pool.current_num_threads() > 1);
        }
        Ok(pool)
    }

    fn go(&mut self, rest: &str) {
        let go = match parse_go(rest) {
            Ok(go) => go,
            Err(e) => {
                self.error(&e);
                return self.say("bestmove (none)");
            }
        };
        for keyword in &go.ignored {
            self.say(&format!(
                "info string go {keyword} is not supported: ignored, searching for the best move as usual"
            ));
        }
        if self.position.is_none() {
            // Reported when the `position` came; not repeated here.
            return self.say("bestmove (none)");
        }
        let prepared = self.prepare_bot();
        let (bot, pool) = match prepared {
            Ok(prepared) => prepared,
            Err(e) => {
                self.error(crate::error_text(&e));
                return self.say("bestmove (none)");
            }
        };
        if let Some(outcome) = bot.outcome() {
            self.say(&format!(
                "info string game over: {}",
                bot::describe_outcome(&outcome)
            ));
            let until_stop =
                go.infinite || go.ponder || (go.unbounded() && self.default_budget.is_none());
            if !until_stop {
                self.bot = Some(bot);
                return self.say("bestmove (none)");
            }
            // `go infinite`, `go ponder` and a bare `go` answer only on
            // `stop` (or `ponderhit`), even with nothing to search.
            let (stop, hold) = (Arc::default(), Arc::new(AtomicBool::new(true)));
            let (flag, held, out) = (Arc::clone(&stop), Arc::clone(&hold), self.out.clone());
            let handle = std::thread::spawn(move || {
                wait_while_held(&held, &flag);
                send(&out, "bestmove (none)");
                bot
            });
            let ponder = go.ponder.then(|| (Arc::default(), true));
            self.search = Some(Running {
                stop,
                hold,
                ponder,
                handle,
            });
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let overhead = Duration::from_millis(self.options.move_overhead_ms);
        let mut budget = go.budget(bot.side_to_move(), overhead);
        if go.unbounded() {
            if let Some(default) = &self.default_budget {
                budget = default.clone();
            }
        }
        let bounded = budget.nodes.is_some() || budget.time.is_some();
        // Pondering searches until `stop` or `ponderhit`; the clock starts
        // at `ponderhit` (the search's time policy counts from there).
        let ponder = go.ponder.then(|| {
            let clock = Arc::new(OnceLock::new());
            budget.clock_start = Some(clock.clone());
            (clock, bounded)
        });
        budget.stop = Some(stop.clone());
        budget.tree_bytes = self.options.tree_bytes();
        let wait_for_stop = go.infinite || go.ponder || !bounded;
        let unbounded_after = go.ponder && !bounded;
        // Said for any `go` that names something but no limit (`go winc
        // 100 binc 100`, `go movestogo 0`); a bare `go` searches until
        // `stop` silently, as Stockfish's does.
        let named = !rest.trim().is_empty();
        if (wait_for_stop && !go.infinite && !go.ponder && named) || unbounded_after {
            self.say("info string go gives no limit for the side to move; searching until stop");
        }
        let hold = Arc::new(AtomicBool::new(wait_for_stop));
        let out = self.out.clone();
        let (flag, held) = (stop.clone(), hold.clone());
        let expected_reply = self.options.ponder;
        let handle = std::thread::spawn(move || {
            search_thread(&pool, bot, budget, &held, &flag, expected_reply, out)
        });
        self.search = Some(Running {
            stop,
            hold,
            ponder,
            handle,
        });
    }

    /// `ponderhit`: the expected reply was played, so the pondering search
    /// goes on as the `go` asked, its clock counted from now: the time
    /// policy of any timed search (smart pruning on the tree pondering
    /// grew, a longer think on an unclear root, Move Overhead kept) or its
    /// node bound ends it. Without a pondering search it does nothing (a
    /// GUI may send it just after the search ended).
    fn ponderhit(&mut self) {
        let Some(running) = self.search.as_mut() else {
            return;
        };
        let Some((clock, bounded)) = running.ponder.take() else {
            return;
        };
        // Set once: this search's only ponderhit.
        let _ = clock.set(Instant::now());
        if bounded {
            running.hold.store(false, Ordering::Relaxed);
        }
    }

    /// The bot, loaded, with the current position and strength set, and
    /// the threads to search on.
    fn prepare_bot(&mut self) -> Result<(Bot, Arc<rayon::ThreadPool>)> {
        let spec = self
            .position
            .clone()
            .context("no valid position (the last `position` was rejected)")?;
        let pool = self.ensure_bot()?;
        let mut bot = self.bot.take().context("no network loaded")?;
        let result = bot
            .set_position(spec.fen.as_deref(), &spec.moves)
            .and_then(|()| bot.set_strength(self.options.strength()))
            .and_then(|()| bot.set_search_config(self.options.search_config()));
        match result {
            Ok(()) => Ok((bot, pool)),
            Err(e) => {
                self.bot = Some(bot);
                Err(e.into())
            }
        }
    }
}

/// Search, report, wait while `hold` is set until `stop` (`go infinite`,
/// `go ponder` before its `ponderhit`), then send `bestmove`, naming the
/// expected reply (`ponder R`, the principal variation's second move) when
/// `expected_reply` and the line has one; hands the bot back.
fn search_thread(
    pool: &rayon::ThreadPool,
    mut bot: Bot,
    budget: search::Budget,
    hold: &AtomicBool,
    stop: &AtomicBool,
    expected_reply: bool,
    out: Out,
) -> Bot {
    // On a thread of the pool (see `super::engine_pool`).
    let result =
        pool.install(|| bot.choose_move(&budget, &mut |info| send(&out, &info_line(info))));
    // The kept tree's nodes, when they reached RamLimitMb.
    let at_ram_limit = budget
        .tree_bytes
        .zip(bot.kept_tree_bytes())
        .filter(|&(max, bytes)| bytes >= max)
        .map(|(_, bytes)| bytes);
    if let Some(bytes) = at_ram_limit {
        send(
            &out,
            &format!(
                "info string search stopped at RamLimitMb: {} MiB in the tree's nodes",
                bytes >> 20
            ),
        );
    }
    if hold.load(Ordering::Relaxed) && !stop.load(Ordering::Relaxed) {
        let release = if budget.clock_start.is_some() {
            "stop or ponderhit"
        } else {
            "stop"
        };
        let why = if at_ram_limit.is_some() {
            "at RamLimitMb"
        } else {
            "at its node bound"
        };
        send(
            &out,
            &format!("info string search finished {why}; bestmove waits for {release}"),
        );
    }
    wait_while_held(hold, stop);
    match result {
        Ok(choice) => {
            send(&out, &info_line(&choice.info));
            let reply = match choice.info.pv.as_slice() {
                [first, reply, ..] if expected_reply && *first == choice.mv => {
                    format!(" ponder {reply}")
                }
                _ => String::new(),
            };
            send(&out, &format!("bestmove {}{reply}", choice.mv));
            // Off the clock now: cut the kept tree to the move's subtree.
            bot.settle_tree();
        }
        Err(e) => {
            send(&out, &format!("info string error: {e}"));
            send(&out, "bestmove (none)");
        }
    }
    bot
}

/// Wait while `hold` is set and `stop` is not.
fn wait_while_held(hold: &AtomicBool, stop: &AtomicBool) {
    while hold.load(Ordering::Relaxed) && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Run the engine on stdin/stdout until `quit` or end of input.
pub fn run(args: UciArgs) -> Result<()> {
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    let mut engine = Engine::new(out, &args);
    let mut stdin = std::io::stdin().lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match stdin.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // Invalid UTF-8 is replaced (and then reported as an unknown command).
        if !engine.handle(&String::from_utf8_lossy(&buf)) {
            return Ok(());
        }
    }
    engine.wait_search();
    Ok(())
}
