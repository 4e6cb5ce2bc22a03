//! `lokizero play`: a quick match of a bundle against random play or
//! another bundle.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};
use arena::player::Budget;
use arena::spec::net_player;
use arena::{
    opening_seed, play_match, random_opening, tally_by_side, Contestant, RandomPlayer, WdlCounts,
};
use clap::Args;
use encoding::Encode;
use model::bundle::{load_bundle, peek_variant};
use model::Net;
use search::SearchConfig;

use super::search_args::PlaySearchArgs;

/// Arguments of `lokizero play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Bundle folder (model.json + model.safetensors) of player A.
    #[arg(long)]
    model: PathBuf,
    /// Opponent: `random` or another bundle folder of the same variant.
    #[arg(long, default_value = "random")]
    vs: String,
    /// Games (colours alternate: A moves first in even games).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// MCTS simulations per action for bundle players.
    #[arg(long, default_value_t = 64)]
    simulations: u32,
    #[command(flatten)]
    search: PlaySearchArgs,
    /// Games played in parallel.
    #[arg(long, default_value_t = 2)]
    concurrency: usize,
    /// Plies played by the players (after the random opening plies) after
    /// which a game is adjudicated a draw.
    #[arg(long, default_value_t = 300)]
    ply_cap: u32,
    /// Random plies played from the start position before the players take
    /// over (the same opening for both games of a colour-swapped pair), so
    /// deterministic players do not replay the same two games.
    #[arg(long, default_value_t = 2)]
    opening_plies: u32,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Backend: cpu (default), wgpu or cuda (GPU builds: --features wgpu / cuda).
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Print a JSON summary instead of text.
    #[arg(long)]
    json: bool,
}

/// Play the match and print W/D/L from A's view.
pub fn run(args: PlayArgs) -> Result<()> {
    let variant = peek_variant(&args.model)?;
    rules::with_variant!(variant, G => run_for::<G>(&args))
}

fn bundle_player<G: Encode>(
    net: &Net,
    device: &burn::tensor::Device,
    name: &str,
    args: &PlayArgs,
    search: &SearchConfig,
    seed: u64,
) -> Box<dyn Contestant<G>> {
    Box::new(
        net_player::<G>(
            name,
            net.clone(),
            device,
            search,
            Budget::Nodes(args.simulations),
            (args.search.rollout_mix, args.ply_cap),
            seed,
        )
        .with_tree_reuse(!args.search.no_tree_reuse),
    )
}

fn run_for<G: Encode>(args: &PlayArgs) -> Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.simulations == 0 {
        bail!("--simulations must be at least 1");
    }
    if args.ply_cap == 0 {
        bail!("--ply-cap must be at least 1");
    }
    let search = args.search.search_config()?;
    args.search.rollout_mix()?;
    if args.vs != "random" && !PathBuf::from(&args.vs).is_dir() {
        bail!("--vs {:?} is neither `random` nor a bundle folder", args.vs);
    }
    let device = model::device_from_name(&args.device).map_err(|e| anyhow!(e))?;
    let (net_a, _) = load_bundle::<G>(&args.model, &device)?;
    let net_b = if args.vs == "random" {
        None
    } else {
        Some(load_bundle::<G>(&PathBuf::from(&args.vs), &device)?.0)
    };
    let (name_a, name_b) = (args.model.display().to_string(), args.vs.clone());
    let (wdl, played) = play_match::<G, _, _>(
        args.games,
        args.concurrency,
        args.ply_cap,
        |i| random_opening::<G>(args.opening_plies, opening_seed(args.seed, i / 2)),
        |i| {
            bundle_player::<G>(
                &net_a,
                &device,
                &name_a,
                args,
                &search,
                args.seed ^ i as u64,
            )
        },
        |i| match &net_b {
            Some(net) => bundle_player::<G>(
                net,
                &device,
                &name_b,
                args,
                &search,
                args.seed ^ (i as u64) << 32,
            ),
            None => Box::new(RandomPlayer::new(args.seed.wrapping_mul(31) ^ i as u64)),
        },
    );
    let (as_first, as_second) = tally_by_side(&played);
    let side =
        |w: &WdlCounts| serde_json::json!({"wins": w.wins, "draws": w.draws, "losses": w.losses});
    if args.json {
        let mut summary = serde_json::json!({
            "variant": G::VARIANT.as_str(), "a": name_a, "b": name_b, "games": wdl.games(),
            "wins": wdl.wins, "draws": wdl.draws, "losses": wdl.losses,
            "as_first": side(&as_first), "as_second": side(&as_second),
            "score": wdl.score(), "win_rate": wdl.win_rate(), "simulations": args.simulations,
            "opening_plies": args.opening_plies, "ply_cap": args.ply_cap,
        });
        if let Some(map) = summary.as_object_mut() {
            map.extend(args.search.json_fields());
        }
        println!("{summary}");
    } else {
        let short = |w: &WdlCounts| format!("+{} ={} -{}", w.wins, w.draws, w.losses);
        println!(
            "{name_a} vs {name_b}: {} ({} games, score {:.1}%, wins {:.1}%; moving first {}, second {})",
            short(&wdl),
            wdl.games(),
            100.0 * wdl.score(),
            100.0 * wdl.win_rate(),
            short(&as_first),
            short(&as_second),
        );
    }
    Ok(())
}
