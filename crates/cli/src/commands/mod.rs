//! Subcommands of the `lokizero` binary.

use clap::{Parser, Subcommand};

mod ladder;
mod matches;
mod perft;
mod play;
mod train;

/// AlphaZero-style training and play for losers, viking, hnefatafl, loki
/// and shakti.
#[derive(Parser, Debug)]
#[command(name = "lokizero", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run (or resume) the main job: generations of self-play, training and
    /// export, in a run directory.
    Train(train::TrainArgs),
    /// Play a match between a bundle and `random` or another bundle; print W/D/L.
    Play(play::PlayArgs),
    /// Match between two players (bundles, random, greedy, pure UCT, UCI
    /// engines): W/D/L, Elo with a 95 % interval, optional SPRT, records.
    Match(matches::MatchArgs),
    /// Round robin between players, Bradley–Terry ratings with 95 %
    /// intervals, ladder.md and ladder.png.
    Ladder(ladder::LadderArgs),
    /// Count leaf nodes of the legal-action tree (rules verification).
    Perft(perft::PerftArgs),
}

/// Run the parsed command.
pub fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Train(args) => train::run(args),
        Command::Play(args) => play::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Match(args) => matches::run(args),
        Command::Ladder(args) => ladder::run(args),
    }
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
