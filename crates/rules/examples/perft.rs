//! Chess perft benchmark: `cargo run --release -p rules --example perft --
//! --variant losers|viking [--fen FEN] --depth N [--divide] [--generic]`.
//! Prints nodes, seconds and nodes/s of the specialised `fast_perft`
//! (or of the generic `rules::perft` with `--generic`).

use std::time::Instant;

use rules::{Game, Losers, Viking};

fn run<G: Game>(game: G, depth: u32, divide: bool, generic: bool, fast: impl Fn(&G, u32) -> u64) {
    if divide {
        for (m, n) in rules::perft_divide(&game, depth) {
            println!("{m}: {n}");
        }
    }
    let start = Instant::now();
    let nodes = if generic {
        rules::perft(&game, depth)
    } else {
        fast(&game, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!("nodes {nodes}");
    println!("seconds {secs:.3}");
    println!("nps {:.0}", nodes as f64 / secs.max(1e-9));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let variant = value("--variant").unwrap_or_else(|| "losers".into());
    let depth: u32 = value("--depth").and_then(|d| d.parse().ok()).unwrap_or(5);
    let fen = value("--fen");
    let divide = args.iter().any(|a| a == "--divide");
    let generic = args.iter().any(|a| a == "--generic");
    let result = match variant.as_str() {
        "losers" => fen
            .map_or(Ok(Losers::start()), |f| Losers::from_text(&f))
            .map(|g| run(g, depth, divide, generic, |g, d| g.fast_perft(d))),
        "viking" => fen
            .map_or(Ok(Viking::start()), |f| Viking::from_text(&f))
            .map(|g| run(g, depth, divide, generic, |g, d| g.fast_perft(d))),
        v => {
            eprintln!("unknown variant {v:?} (losers or viking)");
            std::process::exit(2);
        }
    };
    if let Err(e) = result {
        eprintln!("bad position: {e}");
        std::process::exit(2);
    }
}
