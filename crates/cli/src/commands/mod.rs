//! Subcommands of the `lokizero` binary.

use clap::{Parser, Subcommand};

mod analyse;
mod bench;
mod export;
mod grow;
mod ladder;
mod matches;
mod models;
mod perft;
mod play;
mod search_args;
mod selfplay;
mod serve;
mod status;
mod train;
mod uci;

/// AlphaZero-style training and play for losers, viking, hnefatafl, loki,
/// shakti and copenhagen.
#[derive(Parser, Debug)]
#[command(name = "lokizero", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run (or resume) the main job: generations of self-play, training and
    /// export, in a run directory, or in an object store shared with
    /// self-play workers (--store).
    Train(train::TrainArgs),
    /// A self-play worker of a distributed run: plays with the newest
    /// bundle in the store and uploads replay chunks (docs/distributed.md).
    Selfplay(selfplay::SelfplayArgs),
    /// The state of a distributed run: generations, live workers, the
    /// newest bundle, throughput.
    Status(status::StatusArgs),
    /// The short form of `match`: a bundle against `random`, another bundle
    /// or any player spec, with the match's options and defaults.
    Play(play::PlayArgs),
    /// Match between two players (bundles, random, greedy, pure UCT, UCI
    /// engines): W/D/L, Elo with a 95 % interval, optional SPRT, records.
    Match(matches::MatchArgs),
    /// Round robin between players (or a gauntlet against a fixed ladder,
    /// --fixed), Bradley–Terry ratings with 95 % intervals, ladder.md and
    /// ladder.png (and a learning curve, curve.png).
    Ladder(ladder::LadderArgs),
    /// Count leaf nodes of the game tree in whole turns, or in atomic
    /// actions with --atomic (rules verification).
    Perft(perft::PerftArgs),
    /// Measure network, training, search and self-play throughput.
    Bench(bench::BenchArgs),
    /// Copy a checkpoint to a shipped bundle folder, verified, with its
    /// measured strength recorded in model.json; or write its network as
    /// ONNX (--onnx).
    Export(export::ExportArgs),
    /// The bundles this binary finds and where from (the search path:
    /// LOKIZERO_MODELS, ./models, the user's data folder, beside the
    /// executable), or `models install PATH` to add bundles to the user's
    /// models folder.
    Models(models::ModelsArgs),
    /// Grow a bundle to more residual blocks and filters, computing the
    /// same function (Net2Net), to continue training it with more capacity.
    Grow(grow::GrowArgs),
    /// Run as a UCI engine (Fairy-Stockfish conventions) on stdin/stdout.
    Uci(uci::UciArgs),
    /// JSON-lines analysis engine on stdin/stdout (one request per line).
    Analyse(analyse::AnalyseArgs),
    /// The web lab: an HTTP service and a page to play, watch and analyse
    /// the shipped bots in a browser (prints the page's address).
    Serve(serve::ServeArgs),
}

/// Run the parsed command.
pub fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Train(args) => train::run(args),
        Command::Play(args) => play::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Status(args) => status::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Export(args) => export::run(args),
        Command::Grow(args) => grow::run(args),
        Command::Models(args) => models::run(args),
        Command::Uci(args) => uci::run(args),
        Command::Analyse(args) => analyse::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Match(args) => matches::run(args),
        Command::Ladder(args) => ladder::run(args),
    }
}

/// A whole number typed on the command line: plain digits
/// ([`search::parse_plain_u64`]: no sign, point or exponent) that fit `T`.
///
/// # Errors
/// A message naming the text.
pub fn plain_int<T: TryFrom<u64>>(text: &str) -> anyhow::Result<T> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    match search::parse_plain_u64(text) {
        Some(n) => T::try_from(n).map_err(|_| anyhow::anyhow!("{text} is too large")),
        None if digits => Err(anyhow::anyhow!("{text} is too large")),
        None => Err(anyhow::anyhow!(
            "expected a whole number in plain digits (no sign, point or exponent), got {text:?}"
        )),
    }
}

/// A non-negative decimal typed on the command line: plain digits with an
/// optional fraction ([`search::parse_plain_seconds`]: `2`, `0.5`; no
/// sign, exponent or `inf`).
///
/// # Errors
/// A message naming the text.
pub fn plain_f64(text: &str) -> anyhow::Result<f64> {
    search::parse_plain_seconds(text).ok_or_else(|| {
        anyhow::anyhow!("expected a number in plain digits such as 2 or 0.5 (no sign or exponent), got {text:?}")
    })
}

/// The most CPU threads a command takes (`--threads`, UCI `Threads`).
pub const MAX_THREADS: usize = 256;

/// `--threads` of `uci`: plain digits, 1 to [`MAX_THREADS`] (the range of
/// its `Threads` option).
pub fn parse_uci_threads(text: &str) -> anyhow::Result<usize> {
    parse_threads(text, 1)
}

/// `--threads` where 0 means all cores: plain digits, 0 to
/// [`MAX_THREADS`].
pub fn parse_threads_or_all(text: &str) -> anyhow::Result<usize> {
    parse_threads(text, 0)
}

fn parse_threads(text: &str, min: usize) -> anyhow::Result<usize> {
    plain_int::<usize>(text)
        .ok()
        .filter(|n| (min..=MAX_THREADS).contains(n))
        .ok_or_else(|| {
            anyhow::anyhow!("expected a whole number of threads from {min} to {MAX_THREADS}")
        })
}

/// Limit rayon (and the flex backend, which uses rayon) to `threads`
/// threads; 0 keeps the default (all cores).
pub fn set_threads(threads: usize) {
    if threads > 0 {
        // Err only if already initialised, which leaves the earlier setting.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global();
    }
}

/// The thread pool of an engine (`uci`, `analyse`): `threads` threads
/// (0 = all cores) for the network and the search. The engine runs each
/// search inside it (`pool.install`), on one of its threads: a search on
/// another thread would hand each batch of leaves to the pool and sleep
/// until it is done, a thread hop per batch, which cost one-thread
/// `lokizero uci` 5-41 % of its nodes per second (docs/benchmarks.md,
/// "Nodes per second in play"). On a pool thread the batch runs in place,
/// its chunks shared with the pool's other threads. The other threads
/// sleep between batches: keeping them polling gained up to 22 % on an
/// idle machine and lost half on a loaded one. An engine owns its pool, so
/// it can build another when its thread count changes (UCI `Threads`).
///
/// # Errors
/// The operating system refused the threads.
pub fn engine_pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start {threads} threads: {e}"))
}

/// Refuse an output file that could not be written, before any work is
/// done (a match would otherwise play every game and then fail to
/// write): its folder does not exist or takes no new file (the file is
/// written to a temporary sibling and renamed over, `fsio`), or the path
/// is a folder or a read-only file (which the rename would replace).
///
/// # Errors
/// A message naming `option`, the path and the problem.
pub fn check_output_file(path: &std::path::Path, option: &str) -> anyhow::Result<()> {
    if path.as_os_str().to_string_lossy().ends_with('/') {
        anyhow::bail!(
            "{option} {}: ends in `/`, so it names a folder, not a file",
            path.display()
        );
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    if !parent.is_dir() {
        anyhow::bail!(
            "{option} {}: folder {} does not exist",
            path.display(),
            parent.display()
        );
    }
    if path.is_dir() {
        anyhow::bail!("{option} {}: is a folder, not a file", path.display());
    }
    if std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly()) {
        anyhow::bail!(
            "{option} {}: the file is read-only (make it writable or give another path)",
            path.display()
        );
    }
    if let Err(e) = tempfile::NamedTempFile::new_in(parent) {
        anyhow::bail!(
            "{option} {}: cannot write in folder {}: {e}",
            path.display(),
            parent.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn numbers_on_the_command_line_are_plain_digits() {
        assert_eq!(plain_int::<u32>("300").unwrap(), 300);
        for bad in ["+2", "-1", "1e2", "2.0", " 2", ""] {
            let e = plain_int::<u32>(bad).unwrap_err().to_string();
            assert!(e.contains("plain digits"), "{bad}: {e}");
        }
        for big in ["4294967296", "99999999999999999999"] {
            let e = plain_int::<u32>(big).unwrap_err().to_string();
            assert!(e.contains("too large"), "{big}: {e}");
        }
        assert_eq!(plain_f64("0.5").unwrap(), 0.5);
        for bad in ["1e0", "+1", ".5", "inf", "-0.5"] {
            assert!(plain_f64(bad).is_err(), "{bad}");
        }
        // Every such flag goes through them, defaults included.
        let cli = |args: &[&str]| Cli::try_parse_from(args);
        assert!(cli(&["lokizero", "match", "random", "random", "--games", "+2"]).is_err());
        assert!(cli(&["lokizero", "match", "random", "random", "--games", "2"]).is_ok());
        assert!(cli(&["lokizero", "ladder", "random", "greedy", "--out", "x"]).is_ok());
        assert!(cli(&[
            "lokizero",
            "ladder",
            "random",
            "greedy",
            "--out",
            "x",
            "--prior-draws",
            "1e0"
        ])
        .is_err());
        assert!(cli(&[
            "lokizero",
            "train",
            "--config",
            "c.toml",
            "--cpu-budget",
            "600"
        ])
        .is_ok());
        assert!(cli(&["lokizero", "uci", "--threads", "0"]).is_err());
    }
}
