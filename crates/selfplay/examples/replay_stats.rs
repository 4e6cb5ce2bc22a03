//! Summarise the outcomes of self-play games in replay chunks:
//! `cargo run --release -p selfplay --example replay_stats -- VARIANT CHUNK...`
//! (prints the count of each end reason and the mean game length).
//! With `SHOW_GAMES=N` in the environment it also prints the actions of
//! the first N games (one line each), to see what self-play converged to.

use std::collections::BTreeMap;
use std::path::Path;

use rules::{Game, Variant, VariantId};

/// The actions of a record as text, in order.
fn action_texts<G: Game>(record: &selfplay::GameRecord) -> Result<Vec<String>, String> {
    let mut pos = G::from_text(&record.start).map_err(|e| e.to_string())?;
    let mut legal = Vec::new();
    let mut out = Vec::new();
    for &i in &record.actions {
        pos.legal_actions(&mut legal);
        let a = *legal.get(i as usize).ok_or("record action out of range")?;
        out.push(pos.action_to_text(a));
        pos.play(a);
    }
    Ok(out)
}

fn stats<G: Variant>(paths: &[String]) -> Result<(), String> {
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let (mut games, mut plies) = (0usize, 0usize);
    let show: usize = std::env::var("SHOW_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for p in paths {
        let chunk = selfplay::read_chunk::<G>(Path::new(p)).map_err(|e| e.to_string())?;
        for record in &chunk.games {
            let end = record
                .replay::<G>(|_, _, _| {})
                .map_err(|e| e.to_string())?;
            if games < show {
                println!("game {games}: {}", action_texts::<G>(record)?.join(" "));
            }
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
    let result = rules::with_variant!(variant, G => stats::<G>(&args[1..]));
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
