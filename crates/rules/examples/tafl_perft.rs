//! Perft of `hnefatafl` and `loki` from their start positions, in full
//! turns, by the turn path and the atomic path, with nodes per second.
//!
//! `cargo run --release -p rules --example tafl_perft -- [hnefatafl_depth] [loki_depth]`

use std::time::Instant;

use rules::tafl::{perft_atomic, perft_turns, Hnefatafl, Loki, Tafl};
use rules::Game;

fn run(name: &str, game: &Tafl, depth: u32) {
    for d in 1..=depth {
        for (method, f) in [
            ("turns", perft_turns as fn(&Tafl, u32) -> u64),
            ("atomic", perft_atomic),
        ] {
            let t = Instant::now();
            let n = f(game, d);
            let s = t.elapsed().as_secs_f64();
            println!(
                "{name} depth {d} {method:>6}: {n:>14} nodes {s:>8.2} s {:>12.0} nodes/s",
                n as f64 / s.max(1e-9)
            );
        }
    }
}

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<u32>().unwrap_or(1));
    let hd = args.next().unwrap_or(4);
    let ld = args.next().unwrap_or(3);
    run("hnefatafl", Hnefatafl::start().state(), hd);
    run("loki", Loki::start().state(), ld);
}
