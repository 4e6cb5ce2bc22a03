//! The main job: generations of self-play -> training -> export, in a run
//! directory that survives being killed at any moment.
//!
//! Run directory layout:
//! - `config.toml`: the config of the latest invocation;
//! - `checkpoints/gen-GGGGGG/`: one bundle per completed generation
//!   (generation 0 = the untrained initial network);
//! - `replay/gen-GGGGGG-part-PPPP.bin`: self-play games, in parts;
//! - `metrics.jsonl`: one line per generation;
//! - `learning-curve.png`: Elo vs CPU-hours, when `[eval]` is enabled.
//!
//! Evaluation and gating (`[eval]`, off by default): after training, the new
//! generation plays the current best generation (SPRT) and the baselines;
//! the result goes into its metrics line and its `model.json`. With
//! `gate = true` a generation becomes the best only if the SPRT accepts it;
//! self-play always uses the best generation, while training always
//! continues from the newest one (AlphaGo Zero's split, Silver et al. 2017).
//! Elo is chained: a generation's Elo is its reference's Elo plus the Elo
//! of their match counted with one virtual draw (so a clean sweep stays
//! finite), with that match's 95 % interval (the reference's own
//! uncertainty is not added).
//!
//! Resume: the newest checkpoint is the last completed generation (bundles
//! are renamed into place whole; one that no longer loads is an error, not
//! a reason to retrain over it). Self-play
//! parts already written for the next generation are kept and only the
//! missing games are played. Every file is written to a temporary name and
//! renamed, so a SIGKILL loses at most the part or the training in flight.
//! The optimiser state is not carried across generations (each generation
//! trains the previous network with a fresh optimiser), so a resumed run
//! continues exactly as an uninterrupted one would, up to randomness.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use arena::{EloEstimate, Wdl};
use burn::module::Module;
use burn::tensor::Device;
use encoding::Encode;
use fsio::{remove_stale_temps, write_atomic};
use indicatif::{ProgressBar, ProgressStyle};
use model::bundle::{load_bundle, meta_for, read_meta, save_bundle};
use model::{Net, NetEvaluator, NetShape};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use search::{RolloutEvaluator, RolloutMix};
use selfplay::replay::{chunk_name, list_chunks};
use selfplay::resign::{calibrate_threshold, false_positive_rate};
use selfplay::{
    load_window, play_games_parallel, read_chunk, write_chunk, Chunk, GameRecord, SelfPlayConfig,
};

use crate::config::RunConfig;
use crate::cputime::process_cpu_seconds;
use crate::metrics::{append_metrics, read_metrics};
use crate::samples::{sample_batch, samples_from_records, ValueTargets};
use crate::trainer::{LossStats, LossWeights, Trainer};

/// Paths inside a run directory.
#[derive(Clone, Debug)]
pub struct RunDir {
    /// The run directory itself.
    pub root: PathBuf,
}

impl RunDir {
    /// Bundle folder of `generation`.
    pub fn checkpoint(&self, generation: u32) -> PathBuf {
        self.root
            .join("checkpoints")
            .join(format!("gen-{generation:06}"))
    }
    /// Folder of the replay chunks.
    pub fn replay(&self) -> PathBuf {
        self.root.join("replay")
    }
    /// The metrics log.
    pub fn metrics(&self) -> PathBuf {
        self.root.join("metrics.jsonl")
    }
    /// The learning-curve chart.
    pub fn learning_curve(&self) -> PathBuf {
        self.root.join("learning-curve.png")
    }
}

/// Network shape of game `E` for the run's config.
pub fn shape_for<E: Encode>(config: &RunConfig) -> NetShape {
    NetShape {
        input_planes: E::INPUT_PLANES,
        policy_planes: E::POLICY_PLANES,
        height: E::HEIGHT,
        width: E::WIDTH,
        blocks: config.network.blocks,
        filters: config.network.filters,
        value_hidden: config.network.value_hidden,
        moves_left: config.network.moves_left,
    }
}

/// Options of a run invocation that are not part of the config.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Show indicatif progress bars.
    pub progress: bool,
    /// Stop after the first generation at which the run's total CPU time
    /// (`cpu_seconds_total` of the metrics: self-play, training and
    /// evaluation, all threads) reaches this many seconds, even before
    /// `generations`. For experiments at equal compute.
    pub cpu_budget_seconds: Option<f64>,
    /// Device of the self-play network (`None`: the training device). On a
    /// many-core machine with a GPU the CPU's fused path plays faster at
    /// self-play batch sizes while the GPU trains faster
    /// (`docs/benchmarks.md`, "GPU").
    pub selfplay_device: Option<Device>,
    /// Start a new run from this bundle instead of an untrained network
    /// (`lokizero train --init-from`; overrides the config's `init_from`).
    /// Ignored when the run directory already has a checkpoint (a resume).
    pub init_from: Option<PathBuf>,
}

/// Result of [`run`]: the last completed generation and its bundle.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// Last completed generation.
    pub generation: u32,
    /// Its bundle folder.
    pub bundle: PathBuf,
}

fn seed_for(config: &RunConfig, generation: u32, part: u32) -> u64 {
    rules::zobrist::key(
        config.seed ^ 0x5EED,
        ((generation as u64) << 20) | part as u64,
    )
}

/// The generations that have a checkpoint folder, unordered.
fn checkpoints(dir: &RunDir) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(dir.root.join("checkpoints")) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_prefix("gen-")?
                .parse()
                .ok()
        })
        .collect()
}

/// The newest generation with a checkpoint folder (`None`: no bundle yet).
/// Checkpoints are written by atomic rename, so a kill never leaves a
/// partial one; the caller still loads it to check.
pub fn newest_checkpoint(dir: &RunDir) -> Option<u32> {
    checkpoints(dir).into_iter().max()
}

/// The run's first generation: 0, or the generation of the bundle a run
/// started with `--init-from` continues (its oldest checkpoint).
pub fn first_generation(dir: &RunDir) -> u32 {
    checkpoints(dir).into_iter().min().unwrap_or(0)
}

/// Run (or resume) the main job for game `E` in `run_dir`.
///
/// # Errors
/// Unreadable run files (named), a corrupt replay chunk, or I/O errors.
/// Completed generations on disk are never modified.
pub fn run<E: Encode>(
    config: &RunConfig,
    run_dir: &Path,
    device: &Device,
    options: &RunOptions,
) -> Result<RunSummary> {
    let dir = RunDir {
        root: run_dir.to_path_buf(),
    };
    std::fs::create_dir_all(&dir.root)
        .with_context(|| format!("cannot create run directory {}", dir.root.display()))?;
    let _lock = crate::lock::RunLock::acquire(&dir.root)?;
    // Leftovers of writers killed mid-write (`.tmp-*`, `.old-*`): nothing
    // else writes into a run directory, so they are garbage.
    for folder in [dir.root.clone(), dir.root.join("checkpoints"), dir.replay()] {
        remove_stale_temps(&folder)
            .with_context(|| format!("cannot clean temporary files in {}", folder.display()))?;
    }
    let shape = shape_for::<E>(config);
    let start = match &config.start {
        Some(t) => E::from_text(t).map_err(|e| anyhow::anyhow!("config start position: {e}"))?,
        None => E::start(),
    };
    let resume = newest_checkpoint(&dir);
    if let Some(g) = resume {
        check_resumable::<E>(&dir, g, &shape)?;
    }
    // Only now, when the config fits the run: the config of the latest
    // invocation, for the record.
    let text = toml::to_string(config).context("cannot serialise config")?;
    write_atomic(&dir.root.join("config.toml"), text.as_bytes())
        .context("cannot write config.toml")?;
    let mut done = match resume {
        Some(g) => {
            // A newest bundle that does not load was damaged after it was
            // written (writes are atomic): stop rather than silently
            // retrain and overwrite a completed generation.
            let (_, meta) = load_bundle::<E>(&dir.checkpoint(g), device).with_context(|| {
                format!(
                    "the newest checkpoint {} does not load; completed generations are never \
                     rewritten, so restore it or move it out of the run directory and run again",
                    dir.checkpoint(g).display()
                )
            })?;
            anyhow::ensure!(meta.shape == shape, "network shape changed while loading");
            eprintln!(
                "resuming {}: generation {g} is the last completed, continuing with {}",
                dir.root.display(),
                g + 1
            );
            restore_metrics::<E>(&dir, g)?;
            g
        }
        None => match options.init_from.as_deref().or(config.init_from.as_deref()) {
            Some(bundle) => start_from_bundle::<E>(&dir, bundle, &shape, device)?,
            None => {
                let net = Net::new(&shape, device);
                save_bundle(&dir.checkpoint(0), &net, &meta_for::<E>(&shape, 0, &[]))?;
                0
            }
        },
    };
    // `generations` counts from the run's first generation (0, or the
    // bundle's generation with --init-from).
    let last = first_generation(&dir) + config.generations;
    while done < last && !budget_spent::<E>(&dir, done, options)? {
        generation::<E>(config, &dir, &start, done + 1, device, options)?;
        done += 1;
    }
    // Also after a resume with nothing left to train: a kill may have
    // lost the last redraw.
    if config.eval.enabled {
        write_learning_curve::<E>(&dir);
    }
    Ok(RunSummary {
        generation: done,
        bundle: dir.checkpoint(done),
    })
}

/// Copy `bundle` into the run as its first checkpoint, keeping its
/// generation number and training summary (so CPU-seconds, samples and
/// positions keep adding up across runs: the lineage). Returns that
/// generation.
///
/// # Errors
/// A bundle that does not load for `E` (another variant, a damaged file),
/// or a network shape other than the config's.
fn start_from_bundle<E: Encode>(
    dir: &RunDir,
    bundle: &Path,
    shape: &NetShape,
    device: &Device,
) -> Result<u32> {
    let (net, meta) = load_bundle::<E>(bundle, device)
        .with_context(|| format!("--init-from {}", bundle.display()))?;
    anyhow::ensure!(
        &meta.shape == shape,
        "--init-from {}: the bundle's network has {}; set [network] in the config to the bundle's shape",
        bundle.display(),
        shape_difference(&meta.shape, shape)
    );
    let g = meta.generation;
    let mut copy = meta_for::<E>(shape, g, &[]);
    copy.training = meta.training.clone();
    copy.strength = meta.strength.clone();
    save_bundle(&dir.checkpoint(g), &net, &copy)?;
    eprintln!(
        "starting {} from {} (generation {g})",
        dir.root.display(),
        bundle.display()
    );
    Ok(g)
}

/// Whether `--cpu-budget` is reached after generation `done`: the CPU
/// seconds this run spent since its first generation (bundles record the
/// lineage's running total, which a run started `--init-from` a bundle
/// inherits).
fn budget_spent<E: Encode>(dir: &RunDir, done: u32, options: &RunOptions) -> Result<bool> {
    let Some(budget) = options.cpu_budget_seconds else {
        return Ok(false);
    };
    let first = first_generation(dir);
    if done == first {
        return Ok(false);
    }
    let total = |g: u32| -> Result<f64> {
        let meta = read_meta::<E>(&dir.checkpoint(g))?;
        Ok(field_f64(&meta.training, "cpu_seconds_total").unwrap_or(0.0))
    };
    let spent = total(done)? - total(first)?;
    if spent >= budget {
        // Also with --quiet: it says why the run stopped early.
        eprintln!(
            "CPU budget spent: {spent:.2} of {budget:.2} CPU-seconds after generation {done}"
        );
    }
    Ok(spent >= budget)
}

/// The config must fit the run in `dir` (newest generation `g`): the same
/// variant and network shape. Checked from `model.json` before anything in
/// the run directory is written, so a wrong `--config` changes nothing.
fn check_resumable<E: Encode>(dir: &RunDir, g: u32, shape: &NetShape) -> Result<()> {
    let bundle = dir.checkpoint(g);
    let meta: serde_json::Value = std::fs::read(bundle.join(model::bundle::META_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(serde_json::Value::Null);
    // An unreadable model.json is reported by the full load that follows.
    if let Some(variant) = meta.get("variant").and_then(|v| v.as_str()) {
        anyhow::ensure!(
            variant == E::VARIANT.as_str(),
            "run directory {} holds a {variant} run, the config is for {}; use another --run-dir",
            dir.root.display(),
            E::VARIANT
        );
    }
    if let Some(Ok(theirs)) = meta
        .get("shape")
        .map(|s| serde_json::from_value::<NetShape>(s.clone()))
    {
        anyhow::ensure!(
            &theirs == shape,
            "run directory {} holds a network with {}; use another --run-dir or the run's own config.toml",
            dir.root.display(),
            shape_difference(&theirs, shape)
        );
    }
    Ok(())
}

/// `blocks 3 (the config asks for 4), ...`: the fields where two shapes differ.
fn shape_difference(run: &NetShape, config: &NetShape) -> String {
    let (a, b) = (
        serde_json::to_value(run).unwrap_or_default(),
        serde_json::to_value(config).unwrap_or_default(),
    );
    // A field absent from one side is a `false` flag skipped when unset.
    let field = |v: &serde_json::Value, k: &str| v.get(k).cloned().unwrap_or(false.into());
    let mut keys: Vec<String> = [&a, &b]
        .iter()
        .filter_map(|v| v.as_object())
        .flat_map(|o| o.keys().cloned())
        .collect();
    keys.sort();
    keys.dedup();
    keys.iter()
        .filter(|k| field(&a, k) != field(&b, k))
        .map(|k| {
            format!(
                "{k} = {} (the config asks for {})",
                field(&a, k),
                field(&b, k)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Give every completed generation `1..=done` its metrics line: a kill
/// between saving a generation's bundle and appending its line loses the
/// line, so it is restored from the summary the bundle carries
/// (`model.json` `training`). Lines are kept in generation order because
/// only the newest generation can lack one.
fn restore_metrics<E: Encode>(dir: &RunDir, done: u32) -> Result<()> {
    let path = dir.metrics();
    let logged: Vec<u64> = if path.exists() {
        read_metrics(&path)
            .map_err(anyhow::Error::msg)?
            .iter()
            .filter_map(|r| r.get("generation").and_then(|g| g.as_u64()))
            .collect()
    } else {
        Vec::new()
    };
    for g in first_generation(dir) + 1..=done {
        if logged.contains(&(g as u64)) {
            continue;
        }
        let meta = read_meta::<E>(&dir.checkpoint(g))?;
        if meta.training.is_object() {
            append_metrics(&path, &meta.training).context("cannot write metrics.jsonl")?;
        }
    }
    Ok(())
}

fn bar(options: &RunOptions, len: u64, what: &str) -> ProgressBar {
    if !options.progress {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    let style = ProgressStyle::with_template(
        "{prefix:>12} [{bar:30}] {pos}/{len} {msg} ({elapsed}, eta {eta})",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    pb.set_style(style.progress_chars("=> "));
    pb.set_prefix(what.to_string());
    pb
}

/// The newest generation `<= upto` that was promoted (its `model.json`
/// `training.promoted` is true or absent: runs without gating promote
/// every generation). The run's first generation (0, or the bundle of
/// `--init-from`) always counts as promoted.
///
/// # Errors
/// An unreadable `model.json` of a completed generation.
pub fn best_generation<E: Encode>(dir: &RunDir, upto: u32) -> Result<u32> {
    let first = first_generation(dir);
    for g in (first + 1..=upto).rev() {
        let meta = read_meta::<E>(&dir.checkpoint(g))?;
        if field_bool(&meta.training, "promoted").unwrap_or(true) {
            return Ok(g);
        }
    }
    Ok(first)
}

fn field_f64(v: &serde_json::Value, key: &str) -> Option<f64> {
    v.get(key).and_then(serde_json::Value::as_f64)
}

fn field_bool(v: &serde_json::Value, key: &str) -> Option<bool> {
    v.get(key).and_then(serde_json::Value::as_bool)
}

/// One generation: self-play with the best generation so far, train the
/// newest (`g - 1`) into `g`, evaluate it (if configured), export `g`.
fn generation<E: Encode>(
    config: &RunConfig,
    dir: &RunDir,
    start: &E,
    g: u32,
    device: &Device,
    options: &RunOptions,
) -> Result<()> {
    let cpu0 = process_cpu_seconds();
    let (net, prev_meta) = load_bundle::<E>(&dir.checkpoint(g - 1), device)?;
    let best = best_generation::<E>(dir, g - 1)?;
    let (best_net, best_meta) = if best == g - 1 {
        (net.clone(), prev_meta.clone())
    } else {
        load_bundle::<E>(&dir.checkpoint(best), device)?
    };
    // The resignation threshold calibrated by the last generation that had
    // resignation on (the metrics log keeps it across generations without).
    let resign_threshold = last_logged(dir, "resign_threshold_next")
        .map_or(config.selfplay.resign_threshold, |v| v as f32)
        .min(config.selfplay.resign_threshold_max);
    let t0 = Instant::now();
    let (games, sp) = selfplay_generation::<E>(
        config,
        dir,
        start,
        g,
        best_net.clone(),
        device,
        options,
        resign_threshold,
    )?;
    let selfplay_secs = t0.elapsed().as_secs_f64();
    // Rates over what this invocation played: after a resume, games read
    // back from disk took no time here (null when all were reused). The
    // CPU time of an interrupted invocation is not recorded anywhere, so
    // `cpu_seconds` counts this invocation only.
    let played_rate =
        |amount: f64| (sp.games > sp.reused_games).then(|| amount / selfplay_secs.max(1e-9));

    let t1 = Instant::now();
    let records = load_window::<E>(&dir.replay(), g, config.training.replay_window)?;
    let samples = samples_from_records::<E>(&records, ValueTargets::from_config(&config.training)).map_err(anyhow::Error::msg)?;
    anyhow::ensure!(
        !samples.is_empty(),
        "generation {g}: the replay buffer holds no training positions{}",
        if config.selfplay.resign {
            format!(
                " (with resignation on, every game ended before a recorded search: \
                 resign_threshold {resign_threshold} is too high)"
            )
        } else {
            String::new()
        }
    );
    let t = &config.training;
    let prev_total = |key: &str| field_f64(&prev_meta.training, key).unwrap_or(0.0) as u64;
    let (trained_before, positions_before) = (
        prev_total("train_samples_total"),
        prev_total("selfplay_positions_total"),
    );
    let steps = t.steps_for(sp.positions as u64, trained_before, positions_before);
    let lr = t.lr_at(g);
    let mut trainer = Trainer::new(net, device, t);
    let mut rng = SmallRng::seed_from_u64(seed_for(config, g, 1 << 19));
    let pb = bar(options, steps as u64, &format!("train g{g}"));
    let mut loss = LossStats::default();
    for _ in 0..steps {
        let batch = sample_batch::<E>(&samples, t.batch_size, t.augment, &mut rng);
        let weights = LossWeights {
            value: t.value_loss_weight,
            moves_left: t.moves_left_loss_weight,
        };
        loss.add(trainer.step::<E>(&batch, lr, weights));
        pb.set_message(format!(
            "policy {:.3} value {:.3}",
            loss.policy_loss, loss.value_loss
        ));
        pb.inc(1);
    }
    pb.finish_and_clear();
    let train_secs = t1.elapsed().as_secs_f64();
    let trained = trainer.into_net().context("training lost the network")?;

    let eval = config.eval.enabled.then(|| {
        if options.progress {
            let against = if config.eval.games_vs_previous > 0 {
                format!("generation {best} and ")
            } else {
                String::new()
            };
            eprintln!("generation {g}: evaluating against {against}the baselines");
        }
        arena::evaluate::evaluate_generation_for(
            E::VARIANT,
            &trained,
            Some((&best_net, best)),
            device,
            &config.eval,
            g,
            seed_for(config, g, 1 << 18),
        )
    });
    let promoted = eval.as_ref().is_none_or(|e| e.promote);
    let base_elo = if best == 0 {
        Some(0.0)
    } else {
        field_f64(&best_meta.training, "elo")
    };
    let step = eval
        .as_ref()
        .and_then(|e| e.vs_previous.as_ref())
        .map(chain_step);
    if options.progress && config.eval.enabled && base_elo.is_none() {
        eprintln!(
            "note: generation {best} has no Elo (trained without [eval]), so the Elo chain from generation 0 is broken"
        );
    }
    let elo =
        |f: fn(&EloEstimate) -> f64| Some(base_elo? + f(step.as_ref()?)).filter(|e| e.is_finite());
    let cpu_secs = match (cpu0, process_cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let cpu_total =
        cpu_secs.map(|c| c + field_f64(&prev_meta.training, "cpu_seconds_total").unwrap_or(0.0));

    let shape = shape_for::<E>(config);
    let mut meta = meta_for::<E>(&shape, g, &[]);
    let summary = serde_json::json!({
        "generation": g,
        "selfplay_generation": best,
        "games": games.len(),
        "selfplay_positions": sp.positions,
        "selfplay_plies": sp.plies,
        "selfplay_seconds": selfplay_secs,
        "selfplay_reused_games": sp.reused_games,
        "positions_per_second": played_rate((sp.plies - sp.reused_plies) as f64),
        "replay_games": records.len(),
        "replay_samples": samples.len(),
        "train_steps": loss.steps,
        "learning_rate": lr,
        "policy_loss": loss.policy_loss,
        "value_loss": loss.value_loss,
        "train_seconds": train_secs,
        "samples_per_second": (loss.steps * t.batch_size) as f64 / train_secs.max(1e-9),
        "draw_rate": rate(&games, |r| r.winner.is_none()),
        "ply_capped_rate": rate(&games, |r| r.ply_capped),
        "first_player_win_rate": rate(&games, |r| r.winner == Some(rules::Player::First)),
        "mean_game_plies": games.iter().map(|r| r.actions.len()).sum::<usize>() as f64 / games.len().max(1) as f64,
        "promoted": promoted,
        "eval": eval.as_ref().map(|e| e.to_json()),
        "elo": elo(|m| m.elo),
        "elo_lower": elo(|m| m.lower),
        "elo_upper": elo(|m| m.upper),
        "cpu_seconds": cpu_secs,
        "cpu_seconds_total": cpu_total,
        "games_per_hour": played_rate((games.len() - sp.reused_games) as f64 * 3600.0),
        "policy_entropy": loss.policy_entropy,
        "policy_target_entropy": mean_target_entropy(&games),
        "train_samples_total": trained_before + (loss.steps * t.batch_size) as u64,
        "selfplay_positions_total": positions_before + sp.positions as u64,
    });
    let mut summary = summary;
    if config.network.moves_left {
        merge_json(
            &mut summary,
            serde_json::json!({ "moves_left_loss": loss.moves_left_loss }),
        );
    }
    if config.selfplay.resign {
        merge_json(
            &mut summary,
            resign_summary(&config.selfplay, resign_threshold, &sp),
        );
    }
    meta.training = summary.clone();
    save_bundle(&dir.checkpoint(g), &trained, &meta)?;
    append_metrics(&dir.metrics(), &summary).context("cannot write metrics.jsonl")?;
    if config.eval.enabled {
        write_learning_curve::<E>(dir);
    }
    {
        // Printed with --quiet too: one line per generation is the log.
        eprintln!(
            "generation {g}: {} games, {} positions, policy loss {:.3}, value loss {:.3}, draws {:.0}%{}",
            games.len(),
            sp.positions,
            loss.policy_loss,
            loss.value_loss,
            100.0 * rate(&games, |r| r.winner.is_none()),
            eval.as_ref().map_or(String::new(), |e| eval_line(e, best)),
        );
    }
    Ok(())
}

/// One link of the Elo chain: the match against the reference with one
/// virtual draw added (the ladder's prior, see `arena::ladder`), so a clean
/// sweep gives a large finite step instead of an infinite one. Interval:
/// this match's only (the reference's own uncertainty is not added).
fn chain_step(m: &arena::evaluate::MatchSummary) -> EloEstimate {
    EloEstimate::from_wdl(&Wdl {
        wins: m.wins,
        draws: m.draws + 1,
        losses: m.losses,
    })
}

/// `, vs gen-N: W/D/L (Elo ±), vs random: ..., promoted` for the progress line.
fn eval_line(e: &arena::evaluate::EvalSummary, best: u32) -> String {
    let m = |m: &arena::evaluate::MatchSummary| {
        format!(
            "{}: +{} ={} -{} (Elo {:+.0} [{:+.0}, {:+.0}])",
            m.opponent,
            m.wins,
            m.draws,
            m.losses,
            // `+ 0.0` turns the -0 of an even score into +0 for printing.
            m.elo + 0.0,
            m.elo_lower + 0.0,
            m.elo_upper + 0.0
        )
    };
    let mut parts: Vec<String> = e.vs_previous.iter().map(m).collect();
    parts.extend(e.baselines.iter().map(m));
    let verdict = if e.promote {
        "promoted".to_string()
    } else {
        format!("not promoted (self-play stays on gen-{best:06})")
    };
    format!("; {}; {verdict}", parts.join(", "))
}

/// Redraw `learning-curve.png` from the metrics log (Elo vs cumulative
/// CPU-hours; generation 0 at the origin). A chart is a convenience: a
/// failure is reported and the run goes on.
fn write_learning_curve<E: Encode>(dir: &RunDir) {
    let Ok(records) = read_metrics(&dir.metrics()) else {
        return;
    };
    let mut points = vec![arena::chart::CurvePoint {
        generation: 0,
        cpu_hours: 0.0,
        elo: 0.0,
        lower: 0.0,
        upper: 0.0,
    }];
    points.extend(records.iter().filter_map(|r| {
        Some(arena::chart::CurvePoint {
            generation: r.get("generation")?.as_u64()? as u32,
            cpu_hours: field_f64(r, "cpu_seconds_total")? / 3600.0,
            elo: field_f64(r, "elo")?,
            lower: field_f64(r, "elo_lower").unwrap_or(f64::NAN),
            upper: field_f64(r, "elo_upper").unwrap_or(f64::NAN),
        })
    }));
    let title = format!("{}: Elo vs CPU-hours", E::VARIANT);
    if let Err(e) =
        arena::chart::draw_learning_curve(&dir.learning_curve(), &title, &points, 800, 480)
    {
        eprintln!("warning: {e}");
    }
}

/// The resignation metrics of a generation: the threshold used, how many
/// games resigned and were played out, the false-positive rate measured on
/// the played-out games at that threshold, and the threshold calibrated for
/// the next generation ([`selfplay::resign`]).
fn resign_summary(
    sp: &SelfPlayConfig,
    threshold: f32,
    stats: &selfplay::SelfPlayStats,
) -> serde_json::Value {
    let samples = &stats.resign_samples;
    let fp = false_positive_rate(samples, threshold);
    let next = calibrate_threshold(
        samples,
        sp.resign_fp_target as f64,
        threshold,
        sp.resign_threshold_max,
    );
    // f32 thresholds printed as f64 would show float noise (-0.2 as
    // -0.20000000298023224).
    let round = |x: f32| (x as f64 * 1e6).round() / 1e6;
    let (threshold, next) = (round(threshold), round(next));
    serde_json::json!({
        "resign_threshold": threshold,
        "resigned_games": stats.resigned,
        "resign_played_out_games": stats.played_out,
        "resign_false_positive_rate": fp.map(|(r, _)| r),
        "resign_would_have_resigned": fp.map_or(0, |(_, n)| n),
        "resign_threshold_next": next,
    })
}

/// The newest value of `key` in the run's metrics log, if any line has it.
fn last_logged(dir: &RunDir, key: &str) -> Option<f64> {
    let lines = read_metrics(&dir.metrics()).ok()?;
    lines.iter().rev().find_map(|l| field_f64(l, key))
}

fn merge_json(into: &mut serde_json::Value, from: serde_json::Value) {
    if let (Some(a), serde_json::Value::Object(b)) = (into.as_object_mut(), from) {
        a.extend(b);
    }
}

/// Mean entropy (nats) of the recorded policy targets of `games`; `None`
/// without recorded positions.
fn mean_target_entropy(games: &[GameRecord]) -> Option<f64> {
    let entropies: Vec<f64> = games
        .iter()
        .flat_map(|r| r.targets.iter().flatten())
        .map(|t| {
            -t.policy
                .iter()
                .filter(|&&p| p > 0.0)
                .map(|&p| p as f64 * (p as f64).ln())
                .sum::<f64>()
        })
        .collect();
    (!entropies.is_empty()).then(|| entropies.iter().sum::<f64>() / entropies.len() as f64)
}

fn rate(games: &[GameRecord], pred: impl Fn(&GameRecord) -> bool) -> f64 {
    games.iter().filter(|r| pred(r)).count() as f64 / games.len().max(1) as f64
}

/// Self-play for generation `g`, in parts; parts already on disk (from an
/// interrupted run) are kept (their resignation samples are not: the
/// false-positive rate is measured on the parts played by this call).
/// Returns this generation's games.
#[allow(clippy::too_many_arguments)]
fn selfplay_generation<E: Encode>(
    config: &RunConfig,
    dir: &RunDir,
    start: &E,
    g: u32,
    net: Net,
    device: &Device,
    options: &RunOptions,
    resign_threshold: f32,
) -> Result<(Vec<GameRecord>, selfplay::SelfPlayStats)> {
    let sp = &SelfPlayConfig {
        resign_threshold,
        ..config.selfplay.clone()
    };
    let (net, device) = match &options.selfplay_device {
        Some(d) => (net.to_device(d), d),
        None => (net, device),
    };
    let mut games = Vec::new();
    let mut next_part = 0;
    for (gen, part, path) in list_chunks(&dir.replay())? {
        if gen == g {
            games.extend(read_chunk::<E>(&path)?.games);
            next_part = part + 1;
        }
    }
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
    if !games.is_empty() && options.progress {
        eprintln!(
            "generation {g}: reusing {} self-play games already on disk",
            games.len()
        );
    }
    let pb = bar(
        options,
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
        let mut part_games = Vec::with_capacity(n);
        let seed = seed_for(config, g, next_part);
        let s = play_games_parallel(
            start,
            |w| {
                let playouts = RolloutEvaluator::new(
                    1,
                    sp.ply_cap,
                    SmallRng::seed_from_u64(seed ^ (w as u64 + 1).wrapping_mul(0x9E37_79B9)),
                );
                let net_eval = NetEvaluator::<E>::new(net.clone(), device.clone());
                RolloutMix::new(net_eval, playouts, sp.rollout_mix_at(g))
            },
            &config.search,
            sp,
            n,
            sp.workers,
            seed,
            |r| {
                pb.inc(1);
                part_games.push(r);
            },
        );
        let chunk = Chunk {
            version: selfplay::replay::CHUNK_VERSION,
            variant: E::VARIANT.to_string(),
            rules_version: E::RULES_VERSION,
            generation: g,
            games: part_games,
        };
        write_chunk(&dir.replay().join(chunk_name(g, next_part)), &chunk)?;
        stats.merge(s);
        games.extend(chunk.games);
        next_part += 1;
    }
    pb.finish_and_clear();
    Ok((games, stats))
}
