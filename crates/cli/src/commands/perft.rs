//! `lokizero perft`.

use std::time::Instant;

use anyhow::{anyhow, Result};
use clap::Args;
use rules::{Game, VariantId};

/// Arguments of `lokizero perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Variant id: losers, viking, hnefatafl, loki, shakti.
    #[arg(long)]
    variant: VariantId,
    /// Position text (default: the variant's start position).
    #[arg(long)]
    fen: Option<String>,
    /// Depth in actions.
    #[arg(long)]
    depth: u32,
    /// Print one line `ACTION: COUNT` per legal action.
    #[arg(long)]
    divide: bool,
}

/// Run perft and print the count (and nodes/s on stderr).
pub fn run(args: PerftArgs) -> Result<()> {
    rules::with_variant!(args.variant, G => perft_for::<G>(&args),
        else Err(anyhow!("variant {} is not available in this build yet", args.variant)))
}

fn perft_for<G: Game>(args: &PerftArgs) -> Result<()> {
    let game = match &args.fen {
        Some(text) => G::from_text(text).map_err(|e| anyhow!("--fen: {e}"))?,
        None => G::start(),
    };
    let t = Instant::now();
    let nodes = if args.divide {
        let lines = rules::perft_divide(&game, args.depth);
        for (action, count) in &lines {
            println!("{action}: {count}");
        }
        lines.iter().map(|(_, c)| c).sum()
    } else {
        rules::perft(&game, args.depth)
    };
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{}{nodes}",
        if args.divide {
            "\nNodes searched: "
        } else {
            ""
        }
    );
    eprintln!(
        "{nodes} nodes in {secs:.3} s ({:.0} nodes/s)",
        nodes as f64 / secs.max(1e-9)
    );
    Ok(())
}
