//! One generation: self-play with the best generation so far, train the
//! newest (`g - 1`) into `g`, evaluate it (if configured), export `g`.

use std::time::Instant;

use arena::evaluate::EvalSummary;
use arena::EloEstimate;
use burn::tensor::Device;
use encoding::Encode;
use model::bundle::{load_bundle, meta_for, save_bundle, BundleMeta};
use model::lineage::Lineage;
use model::Net;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use selfplay::{load_window, GameRecord};

use super::report::{self, chain_step, rate};
use super::selfplay_phase::{self, SelfPlayOutcome};
use super::{progress_bar, seed_for, shape_for, RunContext};
use crate::config::RunConfig;
use crate::cputime::process_cpu_seconds;
use crate::error::{Result, TrainError};
use crate::losses::{LossStats, LossWeights};
use crate::metrics::{append_metrics, GenerationMetrics};
use crate::samples::{sample_batch, samples_from_records, ValueTargets};
use crate::trainer::Trainer;

/// The networks a generation starts from.
struct Inputs {
    /// Generation `g - 1`, which training continues.
    net: Net,
    /// Its record (default for an untrained generation 0).
    prev: GenerationMetrics,
    /// Its lineage (ancestors carried on to generation `g`).
    prev_lineage: Option<Lineage>,
    /// The best (promoted) generation, which plays the self-play.
    best: u32,
    /// Its network.
    best_net: Net,
    /// Its chained Elo (0 for the run's first generation when untrained).
    best_elo: Option<f64>,
}

/// What training produced.
pub(crate) struct Trained {
    /// The trained network.
    pub net: Net,
    /// Its losses over the steps.
    pub loss: LossStats,
    /// The learning rate.
    pub lr: f64,
    /// Wall time of the training phase.
    pub seconds: f64,
    /// Games in the replay window.
    pub replay_games: usize,
    /// Training samples drawn from them.
    pub replay_samples: usize,
}

/// Run generation `g` and export its bundle and metrics line.
///
/// # Errors
/// Unreadable checkpoints or replay chunks, an empty replay buffer, a lost
/// network, or a bundle or metrics line that cannot be written.
pub(super) fn generation<E: Encode>(ctx: &RunContext<'_, E>, g: u32) -> Result<()> {
    let cpu0 = process_cpu_seconds();
    let inputs = load_inputs(ctx, g)?;
    let resign_threshold = report::resign_threshold(ctx.dir, &ctx.config.selfplay);
    let played = selfplay_phase::play(ctx, g, inputs.best_net.clone(), resign_threshold)?;
    let trained = train(
        ctx,
        g,
        inputs.net.clone(),
        &inputs.prev,
        &played,
        resign_threshold,
    )?;
    let best = Best {
        generation: inputs.best,
        net: &inputs.best_net,
        elo: inputs.best_elo,
    };
    let eval = evaluate::<E>(
        ctx.config,
        g,
        &trained.net,
        &best,
        ctx.device,
        ctx.options.progress,
    );
    let (games, sp) = (&played.games, &played.stats);
    let figures = SelfPlayFigures {
        selfplay_generation: inputs.best,
        positions: sp.positions,
        plies: sp.plies,
        seconds: played.seconds,
        reused_games: sp.reused_games,
        positions_per_second: played.played_rate((sp.plies - sp.reused_plies) as f64),
        games_per_hour: played.played_rate((games.len() - sp.reused_games) as f64 * 3600.0),
    };
    let mut metrics = assemble(
        ctx.config,
        (g, &inputs.prev, cpu0),
        (games, figures),
        &trained,
        eval.as_ref().map(|e| (e, inputs.best_elo)),
    );
    if ctx.config.selfplay.resign {
        metrics.resign = Some(report::resign_metrics(
            &ctx.config.selfplay,
            resign_threshold,
            &played.stats,
        ));
    }
    let meta = bundle_meta::<E>(
        ctx.config,
        &metrics,
        (inputs.prev_lineage.as_ref(), metrics.cpu_seconds_total),
    );
    save_bundle(&ctx.dir.checkpoint(g), &trained.net, &meta)?;
    append_metrics(&ctx.dir.metrics(), &metrics)
        .map_err(TrainError::io("write", ctx.dir.metrics()))?;
    if ctx.config.eval.enabled {
        report::write_learning_curve::<E>(ctx.dir);
    }
    report::print_generation_line(&metrics, eval.as_ref());
    Ok(())
}

/// The bundle metadata of generation `metrics.generation`: its record and
/// its lineage (`parent`'s ancestors carried on, `cpu_seconds_total` the
/// lineage's CPU time when known).
pub(crate) fn bundle_meta<E: Encode>(
    config: &RunConfig,
    metrics: &GenerationMetrics,
    (parent, cpu_seconds_total): (Option<&Lineage>, Option<f64>),
) -> BundleMeta {
    let g = metrics.generation;
    let mut meta = meta_for::<E>(&shape_for::<E>(config), g, &[]);
    meta.training = metrics.to_json();
    meta.lineage = Some(Lineage::at_generation(g, cpu_seconds_total, parent));
    meta
}

/// Load generation `g - 1` and the best generation so far.
fn load_inputs<E: Encode>(ctx: &RunContext<'_, E>, g: u32) -> Result<Inputs> {
    let (net, prev_meta) = load_bundle::<E>(&ctx.dir.checkpoint(g - 1), ctx.device)?;
    let prev = GenerationMetrics::from_meta(&prev_meta.training).unwrap_or_default();
    let best = ctx.dir.best_generation::<E>(g - 1)?;
    let (best_net, best_record) = if best == g - 1 {
        (
            net.clone(),
            GenerationMetrics::from_meta(&prev_meta.training),
        )
    } else {
        let (n, m) = load_bundle::<E>(&ctx.dir.checkpoint(best), ctx.device)?;
        (n, GenerationMetrics::from_meta(&m.training))
    };
    // An untrained generation 0 is the origin of the Elo chain.
    let best_elo = match best_record {
        None if best == 0 => Some(0.0),
        record => record.and_then(|r| r.elo),
    };
    Ok(Inputs {
        net,
        prev,
        prev_lineage: prev_meta.lineage.clone(),
        best,
        best_net,
        best_elo,
    })
}

/// Train `net` on the replay window of generation `g`.
fn train<E: Encode>(
    ctx: &RunContext<'_, E>,
    g: u32,
    net: Net,
    prev: &GenerationMetrics,
    played: &SelfPlayOutcome,
    resign_threshold: f32,
) -> Result<Trained> {
    let t0 = Instant::now();
    let records = load_window::<E>(&ctx.dir.replay(), g, ctx.config.training.replay_window)?;
    let job = TrainJob {
        config: ctx.config,
        g,
        records: &records,
        new_positions: played.stats.positions as u64,
        prev,
        seed: seed_for(ctx.config, g, 1 << 19),
        progress: ctx.options.progress,
        resign_threshold: ctx.config.selfplay.resign.then_some(resign_threshold),
    };
    train_on::<E>(&job, net, ctx.device, t0)
}

/// What a generation trains on, and how.
pub(crate) struct TrainJob<'a> {
    /// The run config.
    pub config: &'a RunConfig,
    /// The generation being trained.
    pub g: u32,
    /// The games of the replay window.
    pub records: &'a [GameRecord],
    /// The new positions the steps are sized for.
    pub new_positions: u64,
    /// The previous generation's record (the run's totals).
    pub prev: &'a GenerationMetrics,
    /// Seed of the batches.
    pub seed: u64,
    /// Show a progress bar.
    pub progress: bool,
    /// The resignation threshold of the games, when resignation is on
    /// (named when no game left a training position).
    pub resign_threshold: Option<f32>,
}

/// Train `net` into generation `job.g` on `job.records`; `t0` is when the
/// generation's training phase began (reading the window included).
///
/// # Errors
/// Records that do not replay, an empty replay buffer, a lost network.
pub(crate) fn train_on<E: Encode>(
    job: &TrainJob<'_>,
    net: Net,
    device: &Device,
    t0: Instant,
) -> Result<Trained> {
    let (t, g) = (&job.config.training, job.g);
    let samples = samples_from_records::<E>(job.records, ValueTargets::from_config(t))?;
    if samples.is_empty() {
        let hint = match job.resign_threshold {
            Some(threshold) => format!(
                " (with resignation on, every game ended before a recorded search: \
                 resign_threshold {threshold} is too high)"
            ),
            None => String::new(),
        };
        return Err(TrainError::EmptyReplay {
            generation: g,
            hint,
        });
    }
    let steps = t.steps_for(
        job.new_positions,
        job.prev.train_samples_total,
        job.prev.selfplay_positions_total,
    );
    let lr = t.lr_at(g);
    let pb = progress_bar(job.progress, steps as u64, &format!("train g{g}"));
    let (net, loss) = fit::<E>(net, device, t, (&samples, steps), (lr, job.seed), &pb)?;
    Ok(Trained {
        net,
        loss,
        lr,
        seconds: t0.elapsed().as_secs_f64(),
        replay_games: job.records.len(),
        replay_samples: samples.len(),
    })
}

/// Take `steps` optimiser steps on batches drawn from `samples` at learning
/// rate `lr` (batches from `seed`), advancing `pb`. Shared by `train` and
/// the trainer of a distributed run.
///
/// # Errors
/// The optimiser lost the network.
pub(crate) fn fit<E: Encode>(
    net: Net,
    device: &Device,
    t: &crate::config::TrainingConfig,
    (samples, steps): (&[crate::samples::Sample], usize),
    (lr, seed): (f64, u64),
    pb: &indicatif::ProgressBar,
) -> Result<(Net, LossStats)> {
    let mut trainer = Trainer::new::<E>(net, device, t);
    let mut rng = SmallRng::seed_from_u64(seed);
    let weights = LossWeights {
        value: t.value_loss_weight,
        moves_left: t.moves_left_loss_weight,
    };
    let mut loss = LossStats::default();
    for _ in 0..steps {
        let batch = sample_batch::<E>(samples, t.batch_size, t.augment, &mut rng);
        loss.add(trainer.step::<E>(&batch, lr, weights));
        pb.set_message(format!(
            "policy {:.3} value {:.3}",
            loss.policy_loss, loss.value_loss
        ));
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok((trainer.into_net().ok_or(TrainError::LostNetwork)?, loss))
}

/// The generation self-play used, which the trained one plays in
/// `[eval]`.
pub(crate) struct Best<'a> {
    /// Its number.
    pub generation: u32,
    /// Its network.
    pub net: &'a Net,
    /// Its chained Elo (`None`: trained without `[eval]`).
    pub elo: Option<f64>,
}

/// The `[eval]` matches of the trained generation `g` (`None` when off or
/// not due).
pub(crate) fn evaluate<E: Encode>(
    config: &RunConfig,
    g: u32,
    trained: &Net,
    best: &Best<'_>,
    device: &Device,
    progress: bool,
) -> Option<EvalSummary> {
    let eval = &config.eval;
    if !eval.enabled || !g.is_multiple_of(eval.every) {
        return None;
    }
    if progress {
        let against = if eval.games_vs_previous > 0 {
            format!("generation {} and ", best.generation)
        } else {
            String::new()
        };
        eprintln!("generation {g}: evaluating against {against}the baselines");
    }
    if progress && best.elo.is_none() {
        eprintln!(
            "note: generation {} has no Elo (trained without [eval]), so the Elo chain from generation 0 is broken",
            best.generation
        );
    }
    Some(arena::evaluate::evaluate_generation_for(
        E::VARIANT,
        trained,
        Some((best.net, best.generation)),
        device,
        eval,
        g,
        seed_for(config, g, 1 << 18),
    ))
}

/// The self-play side of a generation's record.
pub(crate) struct SelfPlayFigures {
    /// The generation whose network played (the oldest, when several did).
    pub selfplay_generation: u32,
    /// Training positions of the generation's games.
    pub positions: usize,
    /// Plies of the generation's games.
    pub plies: usize,
    /// Wall time of the self-play this process waited for.
    pub seconds: f64,
    /// Games read back rather than played.
    pub reused_games: usize,
    /// Plies per second of this invocation's self-play.
    pub positions_per_second: Option<f64>,
    /// Games per hour of this invocation's self-play.
    pub games_per_hour: Option<f64>,
}

/// The record of generation `g` (resignation is added by the caller):
/// the one assembly both loops use. `prev` is the previous generation's
/// record (the run's totals), `cpu0` the process CPU time when the
/// generation began, `eval` the `[eval]` result with the Elo of the
/// generation it played.
pub(crate) fn assemble(
    config: &RunConfig,
    (g, prev, cpu0): (u32, &GenerationMetrics, Option<f64>),
    (games, sp): (&[GameRecord], SelfPlayFigures),
    trained: &Trained,
    eval: Option<(&EvalSummary, Option<f64>)>,
) -> GenerationMetrics {
    let loss = &trained.loss;
    let batch = config.training.batch_size;
    let step = eval
        .and_then(|(e, _)| e.vs_previous.as_ref())
        .map(chain_step);
    let best_elo = eval.and_then(|(_, elo)| elo);
    let elo =
        |f: fn(&EloEstimate) -> f64| Some(best_elo? + f(step.as_ref()?)).filter(|e| e.is_finite());
    let cpu_seconds = match (cpu0, process_cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let eval = eval.map(|(e, _)| e);
    GenerationMetrics {
        generation: g,
        selfplay_generation: sp.selfplay_generation,
        games: games.len(),
        selfplay_positions: sp.positions,
        selfplay_plies: sp.plies,
        selfplay_seconds: sp.seconds,
        selfplay_reused_games: sp.reused_games,
        positions_per_second: sp.positions_per_second,
        replay_games: trained.replay_games,
        replay_samples: trained.replay_samples,
        train_steps: loss.steps,
        learning_rate: trained.lr,
        policy_loss: loss.policy_loss,
        value_loss: loss.value_loss,
        train_seconds: trained.seconds,
        samples_per_second: (loss.steps * batch) as f64 / trained.seconds.max(1e-9),
        draw_rate: rate(games, |r| r.winner.is_none()),
        ply_capped_rate: rate(games, |r| r.ply_capped),
        first_player_win_rate: rate(games, |r| r.winner == Some(rules::Player::First)),
        mean_game_plies: games.iter().map(|r| r.actions.len()).sum::<usize>() as f64
            / games.len().max(1) as f64,
        promoted: Some(eval.is_none_or(|e| e.promote)),
        eval: eval.map(|e| e.to_json()),
        elo: elo(|m| m.elo),
        elo_lower: elo(|m| m.lower),
        elo_upper: elo(|m| m.upper),
        cpu_seconds,
        cpu_seconds_total: cpu_seconds.map(|c| c + prev.cpu_seconds_total.unwrap_or(0.0)),
        games_per_hour: sp.games_per_hour,
        policy_entropy: loss.policy_entropy,
        policy_target_entropy: report::mean_target_entropy(games),
        train_samples_total: prev.train_samples_total + (loss.steps * batch) as u64,
        selfplay_positions_total: prev.selfplay_positions_total + sp.positions as u64,
        moves_left_loss: config.network.moves_left.then_some(loss.moves_left_loss),
        resign: None,
    }
}
