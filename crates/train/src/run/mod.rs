//! The main job: generations of self-play -> training -> export, in a run
//! directory that survives being killed at any moment.
//!
//! Run directory layout:
//! - `config.toml`: the config of the latest invocation, complete (its
//!   `extends` chain and `--set` overrides merged in, every default written);
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

pub(crate) mod branch;
mod dir;
pub(crate) mod generation;
pub(crate) mod report;
mod resume;
pub(crate) mod selfplay_phase;

use std::path::{Path, PathBuf};

use burn::tensor::Device;
use encoding::Encode;
use fsio::{remove_stale_temps, write_atomic};
use indicatif::{ProgressBar, ProgressStyle};
use model::bundle::{meta_for, save_bundle};
use model::{Net, NetShape};

pub use dir::RunDir;

use crate::config::RunConfig;
use crate::error::{Result, TrainError};

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
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Show indicatif progress bars.
    pub progress: bool,
    /// Stop after the first generation at which the CPU time this run has
    /// spent (`cpu_seconds_total` of the metrics since the run's first
    /// generation: self-play, training and evaluation, all threads)
    /// reaches this many seconds, even before `generations`. For
    /// experiments at equal compute.
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
    /// Generations this call trained (0 when the run was already complete
    /// or the CPU budget was already spent).
    pub trained: u32,
}

/// What every phase of a generation reads.
struct RunContext<'a, E> {
    config: &'a RunConfig,
    dir: &'a RunDir,
    /// The position every self-play game starts from.
    start: &'a E,
    device: &'a Device,
    options: &'a RunOptions,
}

/// The seed of part `part` of generation `generation`'s random draws.
pub(crate) fn seed_for(config: &RunConfig, generation: u32, part: u32) -> u64 {
    rules::zobrist::key(
        config.seed ^ 0x5EED,
        ((generation as u64) << 20) | part as u64,
    )
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
    let start = match &config.start {
        Some(t) => E::from_text(t).map_err(|e| TrainError::StartPosition(e.to_string()))?,
        None => E::start(),
    };
    // A new run directory: the bundle it starts from (variant, shape,
    // weights) is checked before the directory is created, so a refused
    // bundle leaves nothing behind.
    let early_init = if dir.root.exists() {
        None
    } else {
        init_bundle::<E>(config, options, &shape_for::<E>(config), device)?
    };
    std::fs::create_dir_all(&dir.root).map_err(TrainError::io("create", &dir.root))?;
    let _lock = crate::lock::RunLock::acquire(&dir.root)?;
    // Leftovers of writers killed mid-write (`.tmp-*`, `.old-*`): nothing
    // else writes into a run directory, so they are garbage.
    for folder in [dir.root.clone(), dir.root.join("checkpoints"), dir.replay()] {
        remove_stale_temps(&folder).map_err(TrainError::io("clean temporary files in", &folder))?;
    }
    let mut done = open_run::<E>(config, &dir, device, options, early_init)?;
    let ctx = RunContext {
        config,
        dir: &dir,
        start: &start,
        device,
        options,
    };
    // `generations` counts from the run's first generation (0, or the
    // bundle's generation with --init-from).
    let last = dir.first_generation() + config.generations;
    let resumed_at = done;
    while done < last && !budget_spent::<E>(&dir, done, options)? {
        generation::generation(&ctx, done + 1)?;
        done += 1;
    }
    // Also after a resume with nothing left to train: a kill may have
    // lost the last redraw.
    if config.eval.enabled {
        report::write_learning_curve::<E>(&dir);
    }
    Ok(RunSummary {
        generation: done,
        bundle: dir.checkpoint(done),
        trained: done - resumed_at,
    })
}

/// The bundle a new run starts from (`--init-from`, else the config's
/// `init_from`), loaded and checked against `E` and `shape`; `None`
/// without one.
fn init_bundle<E: Encode>(
    config: &RunConfig,
    options: &RunOptions,
    shape: &NetShape,
    device: &Device,
) -> Result<Option<resume::InitBundle>> {
    options
        .init_from
        .as_deref()
        .or(config.init_from.as_deref())
        .map(|bundle| resume::load_init_bundle::<E>(bundle, shape, device))
        .transpose()
}

/// Resume the run in `dir`, or start it (from `--init-from`'s bundle or an
/// untrained network); returns the last completed generation. The config
/// is written into the run only once it is known to fit. `early_init` is
/// the start bundle when [`run`] already loaded it (a new directory).
fn open_run<E: Encode>(
    config: &RunConfig,
    dir: &RunDir,
    device: &Device,
    options: &RunOptions,
    early_init: Option<resume::InitBundle>,
) -> Result<u32> {
    let shape = shape_for::<E>(config);
    let resumed = dir.newest_checkpoint();
    if let Some(g) = resumed {
        resume::check_resumable::<E>(dir, g, &shape)?;
    }
    // A bundle to start from is checked (variant, shape) before anything
    // is written.
    let init = match (resumed, early_init) {
        (Some(_), _) => None,
        (None, Some(init)) => Some(init),
        (None, None) => init_bundle::<E>(config, options, &shape, device)?,
    };
    // The config of the latest invocation, for the record. A resumed run
    // whose config changed keeps the earlier one beside it (the config
    // its generations so far were trained with) and says what changed.
    let text = toml::to_string(config)?;
    let path = dir.root.join("config.toml");
    if let (Some(g), Ok(old)) = (resumed, std::fs::read_to_string(&path)) {
        let changed = changed_keys(&old, &text);
        if !changed.is_empty() {
            // A config kept for these generations already is the one that
            // trained them (a later change that trained nothing is not).
            let kept = dir.root.join(format!("config-to-gen{g}.toml"));
            if !kept.exists() {
                write_atomic(&kept, old.as_bytes()).map_err(TrainError::io("write", &kept))?;
            }
            eprintln!(
                "note: the config differs from this run's earlier one in {}; generations from {} on use the new one, the earlier one is kept in {}",
                changed.join(", "),
                g + 1,
                kept.display()
            );
        }
    }
    write_atomic(&path, text.as_bytes()).map_err(TrainError::io("write", &path))?;
    match (resumed, init) {
        (Some(g), _) => resume::resume::<E>(dir, g, config.generations, &shape, device),
        (None, Some(init)) => resume::save_init_bundle::<E>(dir, init, &shape),
        (None, None) => {
            let net = Net::new(&shape, device);
            save_bundle(&dir.checkpoint(0), &net, &meta_for::<E>(&shape, 0, &[]))?;
            Ok(0)
        }
    }
}

/// The dotted keys (`selfplay.simulations`) whose values differ between
/// two config texts, or that only one of them has, except `generations`
/// (a longer run is the same run); empty when they are the same or either
/// is no TOML table.
fn changed_keys(old: &str, new: &str) -> Vec<String> {
    fn flatten(prefix: &str, value: &toml::Value, out: &mut Vec<(String, toml::Value)>) {
        match value {
            toml::Value::Table(table) => {
                for (key, v) in table {
                    let key = if prefix.is_empty() {
                        key.clone()
                    } else {
                        format!("{prefix}.{key}")
                    };
                    flatten(&key, v, out);
                }
            }
            other => out.push((prefix.to_string(), other.clone())),
        }
    }
    let flat = |text: &str| -> Option<std::collections::BTreeMap<String, toml::Value>> {
        let mut out = Vec::new();
        flatten("", &toml::from_str::<toml::Value>(text).ok()?, &mut out);
        Some(out.into_iter().collect())
    };
    let (Some(a), Some(b)) = (flat(old), flat(new)) else {
        return Vec::new();
    };
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    keys.into_iter()
        .filter(|k| k.as_str() != "generations" && a.get(*k) != b.get(*k))
        .cloned()
        .collect()
}

/// Whether `--cpu-budget` is reached after generation `done`: the CPU
/// seconds this run spent since its first generation (bundles record the
/// lineage's running total, which a run started `--init-from` a bundle
/// inherits).
fn budget_spent<E: Encode>(dir: &RunDir, done: u32, options: &RunOptions) -> Result<bool> {
    let Some(budget) = options.cpu_budget_seconds else {
        return Ok(false);
    };
    let first = dir.first_generation();
    if done == first {
        return Ok(false);
    }
    let total = |g: u32| -> Result<f64> {
        Ok(dir
            .metrics_of::<E>(g)?
            .and_then(|m| m.cpu_seconds_total)
            .unwrap_or(0.0))
    };
    Ok(budget_reached(total(done)? - total(first)?, budget, done))
}

/// Whether `spent` CPU-seconds after generation `done` reach `budget`;
/// says so when they do (also with `--quiet`: it says why the run stopped
/// early). Shared by the run directory's loop and the store's trainer.
pub(crate) fn budget_reached(spent: f64, budget: f64, done: u32) -> bool {
    if spent >= budget {
        eprintln!(
            "CPU budget spent: {spent:.2} of {budget:.2} CPU-seconds after generation {done}"
        );
    }
    spent >= budget
}

/// A progress bar (hidden without `--progress`).
fn bar(options: &RunOptions, len: u64, what: &str) -> ProgressBar {
    progress_bar(options.progress, len, what)
}

/// A progress bar of `len` steps labelled `what` (hidden unless `show`).
pub(crate) fn progress_bar(show: bool, len: u64, what: &str) -> ProgressBar {
    if !show {
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
