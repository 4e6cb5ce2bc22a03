//! Summarise the outcomes of self-play games in replay chunks:
//! `cargo run --release -p selfplay --example replay_stats -- VARIANT CHUNK...`
//! (prints the count of each end reason and the mean game length).

use std::collections::BTreeMap;
use std::path::Path;

use rules::{Game, VariantId};

fn stats<G: Game>(paths: &[String]) -> Result<(), String> {
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let (mut games, mut plies) = (0usize, 0usize);
    for p in paths {
        let chunk = selfplay::read_chunk::<G>(Path::new(p)).map_err(|e| e.to_string())?;
        for record in &chunk.games {
            let end = record.replay::<G>(|_, _, _| {})?;
            let reason = match end.outcome() {
                Some(o) => format!("{:?} winner {:?}", o.reason, o.winner),
                None => "ply cap".to_string(),
            };
            *reasons.entry(reason).or_default() += 1;
            games += 1;
            plies += record.actions.len();
        }
    }
    for (r, n) in &reasons {
        println!("{n:>5}  {r}");
    }
    println!(
        "{games} games, mean {:.1} plies",
        plies as f64 / games.max(1) as f64
    );
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(variant) = args.first().and_then(|v| v.parse::<VariantId>().ok()) else {
        eprintln!("usage: replay_stats VARIANT CHUNK...");
        std::process::exit(2);
    };
    let result = rules::with_variant!(variant, G => stats::<G>(&args[1..]), else Err("unknown variant".into()));
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
