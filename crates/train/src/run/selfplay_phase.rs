//! A generation's self-play: play the missing games in replay chunks,
//! keeping the chunks an interrupted invocation already wrote.

use std::time::Instant;

use burn::module::Module;
use burn::tensor::Device;
use encoding::Encode;
use model::{Net, NetEvaluator};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use search::{RolloutEvaluator, RolloutMix};
use selfplay::replay::{chunk_name, list_chunks};
use selfplay::{
    play_games_parallel, read_chunk, write_chunk, Chunk, GameRecord, Games, SelfPlayConfig,
};

use super::{bar, seed_for, RunContext};
use crate::error::{Result, TrainError};

/// The games of a generation and what playing them cost.
pub(super) struct SelfPlayOutcome {
    /// This generation's games (reused ones first).
    pub games: Vec<GameRecord>,
    /// Counts of the games, positions and resignations.
    pub stats: selfplay::SelfPlayStats,
    /// Wall time of this invocation's self-play.
    pub seconds: f64,
}

impl SelfPlayOutcome {
    /// `amount` per second of this invocation's self-play; `None` when
    /// every game was read back from disk (they took no time here).
    pub fn played_rate(&self, amount: f64) -> Option<f64> {
        (self.stats.games > self.stats.reused_games).then(|| amount / self.seconds.max(1e-9))
    }
}

/// The games of generation `g` already on disk and the next part number.
fn reused_games<E: Encode>(ctx: &RunContext<'_, E>, g: u32) -> Result<(Vec<GameRecord>, u32)> {
    let mut games = Vec::new();
    let mut next_part = 0;
    let replay = ctx.dir.replay();
    let chunks = list_chunks(&replay).map_err(TrainError::io("list", &replay))?;
    for (gen, part, path) in chunks {
        if gen == g {
            games.extend(read_chunk::<E>(&path)?.games);
            next_part = part + 1;
        }
    }
    Ok((games, next_part))
}

/// Self-play for generation `g` with `net`, in parts; parts already on
/// disk (from an interrupted run) are kept (their resignation samples are
/// not: the false-positive rate is measured on the parts played by this
/// call).
///
/// # Errors
/// An unreadable replay chunk, or a chunk that cannot be written.
pub(super) fn play<E: Encode>(
    ctx: &RunContext<'_, E>,
    g: u32,
    net: Net,
    resign_threshold: f32,
) -> Result<SelfPlayOutcome> {
    let t0 = Instant::now();
    let sp = &SelfPlayConfig {
        resign_threshold,
        ..ctx.config.selfplay.clone()
    };
    // Moved once: the workers clone it.
    let (net, device) = match &ctx.options.selfplay_device {
        Some(d) => (net.to_device(d), d),
        None => (net, ctx.device),
    };
    let (mut games, mut next_part) = reused_games(ctx, g)?;
    // The same pool on a resume: drawn from generation g - 1's games with
    // the generation's seed.
    let branch_starts = super::branch::branch_starts(ctx, g, seed_for(ctx.config, g, u32::MAX))?;
    let reused_plies = games.iter().map(|r| r.actions.len()).sum();
    let mut stats = selfplay::SelfPlayStats {
        games: games.len(),
        positions: games.iter().map(|r| r.recorded()).sum(),
        plies: reused_plies,
        evaluations: 0,
        reused_games: games.len(),
        reused_plies,
        ..Default::default()
    };
    if !games.is_empty() && ctx.options.progress {
        eprintln!(
            "generation {g}: reusing {} self-play games already on disk",
            games.len()
        );
    }
    let pb = bar(
        ctx.options,
        sp.games_per_generation as u64,
        &format!("selfplay g{g}"),
    );
    pb.set_position(games.len() as u64);
    // The reused games took no time now: keep them out of the estimate.
    pb.reset_eta();
    while games.len() < sp.games_per_generation {
        let n = sp
            .games_per_chunk
            .min(sp.games_per_generation - games.len());
        let part = Part {
            g,
            part: next_part,
            count: n,
            branch_starts: &branch_starts,
        };
        let (chunk, s) = play_part(ctx, sp, &part, (&net, device), &pb)?;
        stats.merge(s);
        games.extend(chunk.games);
        next_part += 1;
    }
    pb.finish_and_clear();
    Ok(SelfPlayOutcome {
        games,
        stats,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// One replay chunk's worth of games to play.
struct Part<'a, E> {
    /// Generation.
    g: u32,
    /// Part number within the generation.
    part: u32,
    /// Games in the part.
    count: usize,
    /// Start positions of branched games (`[selfplay] branch_fraction`).
    branch_starts: &'a [E],
}

/// Play the games of `part` with `net` on `device` and write them as one
/// replay chunk.
fn play_part<E: Encode>(
    ctx: &RunContext<'_, E>,
    sp: &SelfPlayConfig,
    part: &Part<'_, E>,
    (net, device): (&Net, &Device),
    pb: &indicatif::ProgressBar,
) -> Result<(Chunk, selfplay::SelfPlayStats)> {
    let (g, n) = (part.g, part.count);
    let seed = seed_for(ctx.config, g, part.part);
    let games = Games {
        start: ctx.start,
        branch_starts: part.branch_starts,
        search: &ctx.config.search,
        config: sp,
        count: n,
        seed,
    };
    let precision = ctx.config.network.precision;
    let (chunk, stats) = play_chunk(&games, (g, g), (net, device, precision), || pb.inc(1));
    write_chunk(&ctx.dir.replay().join(chunk_name(g, part.part)), &chunk)?;
    Ok((chunk, stats))
}

/// Play `games` with `net` on `device` in `precision` (the run's
/// `[network] precision`) for generation `target` (its rollout mix and
/// warm start) into one replay chunk labelled `label` (the target
/// generation in a run directory, the playing bundle's in a store);
/// `done` is called after each game. Shared by `train` and the self-play
/// workers of a distributed run.
pub(crate) fn play_chunk<E: Encode>(
    games: &Games<'_, E>,
    (target, label): (u32, u32),
    (net, device, precision): (&Net, &Device, model::Precision),
    done: impl Fn() + Sync,
) -> (Chunk, selfplay::SelfPlayStats) {
    let sp = games.config;
    let seed = games.seed;
    let mut part_games = Vec::with_capacity(games.count);
    let stats = play_games_parallel(
        games,
        sp.workers,
        |w| {
            let playouts = RolloutEvaluator::new(
                1,
                sp.ply_cap,
                SmallRng::seed_from_u64(seed ^ (w as u64 + 1).wrapping_mul(0x9E37_79B9)),
            );
            let net_eval =
                NetEvaluator::<E>::new(net.clone(), device.clone()).with_precision(precision);
            RolloutMix::new(net_eval, playouts, sp.rollout_mix_at(target))
        },
        |r| {
            done();
            part_games.push(r);
        },
    );
    let chunk = Chunk {
        version: selfplay::replay::CHUNK_VERSION,
        variant: E::VARIANT,
        rules_version: E::RULES_VERSION,
        generation: label,
        games: part_games,
    };
    (chunk, stats)
}
