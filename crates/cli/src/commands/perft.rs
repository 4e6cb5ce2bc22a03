//! `lokizero perft`: leaf counts in whole turns (the unit of the notation,
//! `docs/rules.md`), or in atomic actions with `--atomic`.

use std::time::Instant;

use anyhow::{anyhow, Result};
use clap::Args;
use rules::{Game, VariantId};

/// Arguments of `lokizero perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Variant id: losers, viking, hnefatafl, loki, shakti, copenhagen.
    #[arg(long)]
    variant: VariantId,
    /// Position text (default: the variant's start position).
    #[arg(long)]
    fen: Option<String>,
    /// Depth in whole turns (in atomic actions with --atomic).
    #[arg(long, value_parser = super::plain_int::<u32>)]
    depth: u32,
    /// Print one line `MOVE: COUNT` per legal root move, the move written as
    /// one token of docs/rules.md (e.g. loki `g:d4d6d6f6`); with --atomic,
    /// one line per atomic action (`g:d4d6`, then `g>d6f6` one ply deeper).
    #[arg(long)]
    divide: bool,
    /// Count atomic actions instead of whole turns: a loki exchange or
    /// command is two plies (the search's view). Other variants count the
    /// same either way.
    #[arg(long)]
    atomic: bool,
}

/// Run perft and print the count (and nodes/s on stderr).
pub fn run(args: PerftArgs) -> Result<()> {
    rules::with_variant!(args.variant, G => perft_for::<G>(&args))
}

fn perft_for<G: Game>(args: &PerftArgs) -> Result<()> {
    let game = match &args.fen {
        Some(text) => G::from_text(text).map_err(|e| anyhow!("--fen: {e}"))?,
        None => G::start(),
    };
    let t = Instant::now();
    let nodes = if args.divide {
        let lines = divide(&game, args.depth, args.atomic);
        for (text, count) in &lines {
            println!("{text}: {count}");
        }
        lines.iter().map(|(_, c)| c).sum()
    } else {
        count(&game, args.depth, args.atomic)
    };
    let secs = t.elapsed().as_secs_f64();
    let label = if args.divide {
        "\nNodes searched: "
    } else {
        ""
    };
    println!("{label}{nodes}");
    eprintln!(
        "{nodes} nodes in {secs:.3} s ({:.0} nodes/s)",
        nodes as f64 / secs.max(1e-9)
    );
    Ok(())
}

/// Whether to walk whole turns: only variants that split a turn differ;
/// for the others the action perft is the same count, with bulk-counted
/// leaves (faster).
fn by_turns<G: Game>(atomic: bool) -> bool {
    G::MULTI_ACTION_MOVES && !atomic
}

/// Leaf count at `depth`.
fn count<G: Game>(game: &G, depth: u32, atomic: bool) -> u64 {
    if by_turns::<G>(atomic) {
        rules::perft_turns(game, depth)
    } else {
        rules::perft(game, depth)
    }
}

/// `(move text, count)` per root move (per root action with `atomic`).
fn divide<G: Game>(game: &G, depth: u32, atomic: bool) -> Vec<(String, u64)> {
    if by_turns::<G>(atomic) {
        rules::perft_turns_divide(game, depth)
            .into_iter()
            .map(|(actions, n)| (game.move_text(&actions), n))
            .collect()
    } else {
        rules::perft_divide(game, depth)
    }
}
