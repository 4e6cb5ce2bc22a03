//! One generation: self-play with the best generation so far, train the
//! newest (`g - 1`) into `g`, evaluate it (if configured), export `g`.

use std::time::Instant;

use arena::evaluate::EvalSummary;
use arena::EloEstimate;
use encoding::Encode;
use model::bundle::{load_bundle, meta_for, save_bundle};
use model::lineage::Lineage;
use model::Net;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use selfplay::load_window;

use super::report::{self, chain_step, rate};
use super::selfplay_phase::{self, SelfPlayOutcome};
use super::{bar, seed_for, shape_for, RunContext};
use crate::cputime::process_cpu_seconds;
use crate::error::{Result, TrainError};
use crate::metrics::{append_metrics, GenerationMetrics};
use crate::samples::{sample_batch, samples_from_records, ValueTargets};
use crate::trainer::{LossStats, LossWeights, Trainer};

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
struct Trained {
    net: Net,
    loss: LossStats,
    lr: f64,
    seconds: f64,
    replay_games: usize,
    replay_samples: usize,
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
    let eval = evaluate(ctx, g, &trained.net, &inputs);
    let cpu_seconds = match (cpu0, process_cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let mut metrics = record(ctx, g, &inputs, &played, &trained, eval.as_ref());
    metrics.cpu_seconds = cpu_seconds;
    metrics.cpu_seconds_total =
        cpu_seconds.map(|c| c + inputs.prev.cpu_seconds_total.unwrap_or(0.0));
    if ctx.config.selfplay.resign {
        metrics.resign = Some(report::resign_metrics(
            &ctx.config.selfplay,
            resign_threshold,
            &played.stats,
        ));
    }
    let mut meta = meta_for::<E>(&shape_for::<E>(ctx.config), g, &[]);
    meta.training = metrics.to_json();
    meta.lineage = Some(Lineage::at_generation(
        g,
        metrics.cpu_seconds_total,
        inputs.prev_lineage.as_ref(),
    ));
    save_bundle(&ctx.dir.checkpoint(g), &trained.net, &meta)?;
    append_metrics(&ctx.dir.metrics(), &metrics)
        .map_err(TrainError::io("write", ctx.dir.metrics()))?;
    if ctx.config.eval.enabled {
        report::write_learning_curve::<E>(ctx.dir);
    }
    report::print_generation_line(&metrics, eval.as_ref());
    Ok(())
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
    let t = &ctx.config.training;
    let records = load_window::<E>(&ctx.dir.replay(), g, t.replay_window)?;
    let samples = samples_from_records::<E>(&records, ValueTargets::from_config(t))
        .map_err(TrainError::Records)?;
    if samples.is_empty() {
        let hint = if ctx.config.selfplay.resign {
            format!(
                " (with resignation on, every game ended before a recorded search: \
                 resign_threshold {resign_threshold} is too high)"
            )
        } else {
            String::new()
        };
        return Err(TrainError::EmptyReplay {
            generation: g,
            hint,
        });
    }
    let steps = t.steps_for(
        played.stats.positions as u64,
        prev.train_samples_total,
        prev.selfplay_positions_total,
    );
    let lr = t.lr_at(g);
    let pb = bar(ctx.options, steps as u64, &format!("train g{g}"));
    let seed = seed_for(ctx.config, g, 1 << 19);
    let (net, loss) = fit::<E>(net, ctx.device, t, (&samples, steps), (lr, seed), &pb)?;
    Ok(Trained {
        net,
        loss,
        lr,
        seconds: t0.elapsed().as_secs_f64(),
        replay_games: records.len(),
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
    device: &burn::tensor::Device,
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

/// The `[eval]` matches of the trained generation (`None` when off).
fn evaluate<E: Encode>(
    ctx: &RunContext<'_, E>,
    g: u32,
    trained: &Net,
    inputs: &Inputs,
) -> Option<EvalSummary> {
    let config = &ctx.config.eval;
    if !config.enabled || !g.is_multiple_of(config.every) {
        return None;
    }
    if ctx.options.progress {
        let against = if config.games_vs_previous > 0 {
            format!("generation {} and ", inputs.best)
        } else {
            String::new()
        };
        eprintln!("generation {g}: evaluating against {against}the baselines");
    }
    if ctx.options.progress && inputs.best_elo.is_none() {
        eprintln!(
            "note: generation {} has no Elo (trained without [eval]), so the Elo chain from generation 0 is broken",
            inputs.best
        );
    }
    Some(arena::evaluate::evaluate_generation_for(
        E::VARIANT,
        trained,
        Some((&inputs.best_net, inputs.best)),
        ctx.device,
        config,
        g,
        seed_for(ctx.config, g, 1 << 18),
    ))
}

/// The generation's metrics record (CPU time and resignation are added by
/// the caller).
fn record<E: Encode>(
    ctx: &RunContext<'_, E>,
    g: u32,
    inputs: &Inputs,
    played: &SelfPlayOutcome,
    trained: &Trained,
    eval: Option<&EvalSummary>,
) -> GenerationMetrics {
    let (games, sp, loss) = (&played.games, &played.stats, &trained.loss);
    let batch = ctx.config.training.batch_size;
    let step = eval.and_then(|e| e.vs_previous.as_ref()).map(chain_step);
    let elo = |f: fn(&EloEstimate) -> f64| {
        Some(inputs.best_elo? + f(step.as_ref()?)).filter(|e| e.is_finite())
    };
    GenerationMetrics {
        generation: g,
        selfplay_generation: inputs.best,
        games: games.len(),
        selfplay_positions: sp.positions,
        selfplay_plies: sp.plies,
        selfplay_seconds: played.seconds,
        selfplay_reused_games: sp.reused_games,
        positions_per_second: played.played_rate((sp.plies - sp.reused_plies) as f64),
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
        cpu_seconds: None,
        cpu_seconds_total: None,
        games_per_hour: played.played_rate((games.len() - sp.reused_games) as f64 * 3600.0),
        policy_entropy: loss.policy_entropy,
        policy_target_entropy: report::mean_target_entropy(games),
        train_samples_total: inputs.prev.train_samples_total + (loss.steps * batch) as u64,
        selfplay_positions_total: inputs.prev.selfplay_positions_total + sp.positions as u64,
        moves_left_loss: ctx
            .config
            .network
            .moves_left
            .then_some(loss.moves_left_loss),
        resign: None,
    }
}
