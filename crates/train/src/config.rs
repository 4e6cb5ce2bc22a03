//! Run configuration: one TOML file per variant in `configs/`.
//!
//! Unknown keys, wrong types and out-of-range values are errors that name
//! the key (serde's `deny_unknown_fields` plus [`RunConfig::validate`]).
//! So is a setting that a run would silently ignore: `[search]
//! leaves_per_batch`, which self-play does not read (it batches
//! `[selfplay] leaves_per_tree` leaves per tree; see [`RunConfig::search`]).

use std::path::{Path, PathBuf};

use arena::evaluate::EvalConfig;
use rules::VariantId;
use search::{InvalidSetting, SearchConfig};
use selfplay::SelfPlayConfig;
use serde::{Deserialize, Serialize};

/// Network size (the variant's encoding gives the planes and board).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    /// Residual blocks.
    pub blocks: usize,
    /// Trunk channels.
    pub filters: usize,
    /// Hidden units of the value head.
    pub value_hidden: usize,
    /// Add the moves-left head (`model::net`), trained on the plies left in
    /// each game and used by the evaluator to prefer shorter wins
    /// (`model::NetEvaluator`, discount per predicted ply).
    pub moves_left: bool,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            blocks: 4,
            filters: 32,
            value_hidden: 64,
            moves_left: false,
        }
    }
}

/// Optimiser choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// AdamW (Loshchilov & Hutter 2019), decoupled weight decay as the L2 term.
    Adamw,
    /// SGD with momentum 0.9 and L2 weight decay (AlphaZero's choice).
    Sgd,
}

/// Training settings (the `[training]` table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainingConfig {
    /// Samples per optimiser step.
    pub batch_size: usize,
    /// Optimiser steps per generation = recorded new samples * `sample_reuse`
    /// / `batch_size` (how often each new sample is seen on average).
    pub sample_reuse: f32,
    /// Minimum optimiser steps per generation.
    pub min_steps: usize,
    /// Optimiser.
    pub optimizer: Optimizer,
    /// Learning rate per generation: `[[generation, lr], ...]`, piecewise
    /// constant from each listed generation on (sorted by generation).
    pub lr_schedule: Vec<(u32, f64)>,
    /// L2 regularisation strength (weight decay).
    pub weight_decay: f32,
    /// Replay window in generations (the buffer holds the games of the last
    /// `replay_window` generations).
    pub replay_window: u32,
    /// Weight of the value (WDL) loss against the policy loss.
    pub value_loss_weight: f32,
    /// Weight of the moves-left loss (Huber on plies left / 100) when the
    /// network has the head.
    pub moves_left_loss_weight: f32,
    /// Augment each sample with a random symmetry of the variant.
    pub augment: bool,
    /// The steps-per-new-sample guard (KataGo's bound on training samples
    /// per new self-play sample, `train.py --max-train-bucket-per-new-data`):
    /// over the whole run, samples trained on (steps x `batch_size`) never
    /// exceed this many times the new recorded positions, so `min_steps`
    /// cannot make training outrun self-play (overfitting to a small
    /// buffer). 0 = no guard.
    pub max_sample_reuse: f32,
    /// The policy loss's softmax spans the legal actions only (the logits
    /// of illegal actions are masked out, as the search's priors are), so
    /// no gradient is spent pushing illegal actions down; `false` = the
    /// softmax over all `P x H x W` logits (AlphaZero's loss as written).
    /// Default true (on tafl and loki most of the `P x H x W`
    /// actions are illegal in every position).
    pub policy_over_legal: bool,
    /// Weight `a` in `[0, 1]` of the search's root WDL in the value target:
    /// target = `(1 - a) z + a q` (the "z/q averaging" of Oracle's
    /// Connect-4 AlphaZero study and KataGo's short-term value targets);
    /// 0 (the default) = the game result `z` alone.
    pub value_target_search_weight: f32,
    /// Value target of positions from a game stopped by the ply cap (an
    /// adjudication, not a result of the rules): `"result"` (the recorded
    /// result, a draw unless `ply_cap_winner`/material adjudication decided
    /// it; the default), `"search"` (the root WDL of the search at that
    /// position) or `"skip"` (no value target: the value loss leaves those
    /// positions out; the policy target stays).
    pub ply_capped_value: PlyCappedValue,
    /// How the CPU takes a training step: `"fast"` (the default: the
    /// hand-written step, `crate::fast`, held to burn's step by
    /// `tests/fast_step_matches_burn.rs`) or `"burn"` (burn's autodiff).
    /// The fast path covers the networks without the moves-left head on
    /// the CPU device; other networks and devices train with burn
    /// whatever this says.
    pub backend: TrainBackend,
}

/// The training step's implementation ([`TrainingConfig::backend`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrainBackend {
    /// The hand-written step for the residual networks (`crate::fast`).
    #[default]
    Fast,
    /// burn's autodiff on the configured device.
    Burn,
}

/// The value target of positions of ply-capped games
/// ([`TrainingConfig::ply_capped_value`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlyCappedValue {
    /// The recorded result (usually a draw).
    #[default]
    Result,
    /// The search's root WDL.
    Search,
    /// No value target.
    Skip,
}

impl Default for TrainingConfig {
    fn default() -> Self {
        TrainingConfig {
            batch_size: 256,
            sample_reuse: 4.0,
            min_steps: 50,
            optimizer: Optimizer::Adamw,
            lr_schedule: vec![(0, 2e-3)],
            weight_decay: 1e-4,
            replay_window: 4,
            value_loss_weight: 1.0,
            augment: true,
            max_sample_reuse: 8.0,
            moves_left_loss_weight: 0.5,
            policy_over_legal: true,
            value_target_search_weight: 0.0,
            ply_capped_value: PlyCappedValue::Result,
            backend: TrainBackend::default(),
        }
    }
}

impl TrainingConfig {
    /// Optimiser steps for a generation with `new_positions` new recorded
    /// positions: `ceil(new_positions * sample_reuse / batch_size)`, raised
    /// to `min_steps`, then capped by the `max_sample_reuse` guard given the
    /// run's totals before this generation (`trained_before` samples
    /// trained on, `positions_before` new positions). At least 1.
    pub fn steps_for(
        &self,
        new_positions: u64,
        trained_before: u64,
        positions_before: u64,
    ) -> usize {
        let batch = self.batch_size.max(1) as f64;
        let wanted = ((new_positions as f64 * self.sample_reuse as f64 / batch).ceil() as usize)
            .max(self.min_steps);
        if self.max_sample_reuse <= 0.0 {
            return wanted.max(1);
        }
        let allowed_samples = self.max_sample_reuse as f64
            * (positions_before + new_positions) as f64
            - trained_before as f64;
        let cap = (allowed_samples / batch).floor().max(0.0) as usize;
        wanted.min(cap).max(1)
    }

    /// Learning rate for `generation`.
    pub fn lr_at(&self, generation: u32) -> f64 {
        self.lr_schedule
            .iter()
            .rfind(|(g, _)| *g <= generation)
            .map_or(2e-3, |&(_, lr)| lr)
    }
}

/// A whole run: variant, generations, and the tables above.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Variant id.
    pub variant: VariantId,
    /// Generations to train (each: self-play, train, export).
    pub generations: u32,
    /// Master seed (self-play and training randomness derive from it).
    #[serde(default)]
    pub seed: u64,
    /// Threads for rayon and the CPU backend (0 = all cores; at most
    /// [`MAX_THREADS`]).
    #[serde(default)]
    pub threads: usize,
    /// Start position text (default: the variant's standard start).
    #[serde(default)]
    pub start: Option<String>,
    /// Start a new run from this bundle folder instead of an untrained
    /// network (the generation numbering and training totals continue from
    /// the bundle's); `lokizero train --init-from` overrides it. Ignored
    /// when the run directory already has checkpoints (a resume).
    #[serde(default)]
    pub init_from: Option<PathBuf>,
    /// Network size.
    #[serde(default)]
    pub network: NetworkConfig,
    /// MCTS settings of the self-play search (`lokizero bench` uses them
    /// too; the per-generation evaluation plays with
    /// `search::SearchConfig::for_play` and `[eval]`). Every key applies
    /// except `leaves_per_batch`: self-play's batched step takes the leaves
    /// per tree from [`SelfPlayConfig::leaves_per_tree`] (`[selfplay]
    /// leaves_per_tree`) and never reads it. So [`RunConfig::validate`]
    /// rejects any `[search] leaves_per_batch` other than its default (8),
    /// with an error naming both keys, instead of ignoring it; the default
    /// stays accepted because the `config.toml` of run directories written
    /// before this check lists it. A run writes its `config.toml` without
    /// the key.
    #[serde(default, serialize_with = "serialize_search")]
    pub search: SearchConfig,
    /// Self-play settings.
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    /// Training settings.
    #[serde(default)]
    pub training: TrainingConfig,
    /// Per-generation evaluation and promotion gating (off by default; see
    /// [`arena::evaluate::EvalConfig`]).
    #[serde(default)]
    pub eval: EvalConfig,
}

/// A config that cannot be used, with the file and reason.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config {path}: {source}")]
    Io {
        /// The config file.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// TOML syntax, unknown key or wrong type (serde names the key).
    #[error("invalid config {path}: {reason}")]
    Parse {
        /// The config file.
        path: String,
        /// The parser's message.
        reason: String,
    },
    /// A value out of range.
    #[error("invalid config {path}: {source}")]
    Range {
        /// The config file.
        path: String,
        /// The key and the range its value must be in.
        source: InvalidSetting,
    },
}

impl RunConfig {
    /// Parse and validate TOML text; `path` only labels errors.
    pub fn from_toml(text: &str, path: &str) -> Result<Self, ConfigError> {
        let config: RunConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.into(),
            reason: e.to_string(),
        })?;
        config.validate().map_err(|source| ConfigError::Range {
            path: path.into(),
            source,
        })?;
        Ok(config)
    }

    /// Read, parse and validate a config file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let p = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: p.clone(),
            source,
        })?;
        Self::from_toml(&text, &p)
    }

    /// Check every range, the run's own keys and then every section's.
    ///
    /// # Errors
    /// The [`InvalidSetting`] of the first failing check, naming the key
    /// with its section.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        if self.threads > MAX_THREADS {
            return Err(InvalidSetting::new(
                "threads",
                format!(
                    "must be in 0..={MAX_THREADS} (0 = all cores), got {}",
                    self.threads
                ),
            ));
        }
        let n = &self.network;
        let t = &self.training;
        let checks: [(bool, &str, &str); 12] = [
            (
                self.generations >= 1 && self.generations <= 100_000,
                "generations",
                "must be in 1..=100000",
            ),
            (
                n.blocks <= model::net::MAX_BLOCKS,
                "network.blocks",
                "must be <= 64",
            ),
            (
                n.filters >= 1 && n.filters <= model::net::MAX_FILTERS,
                "network.filters",
                "must be in 1..=1024",
            ),
            (
                n.value_hidden >= 1 && n.value_hidden <= 4096,
                "network.value_hidden",
                "must be in 1..=4096",
            ),
            (
                t.batch_size >= 1 && t.batch_size <= 65_536,
                "training.batch_size",
                "must be in 1..=65536",
            ),
            (
                t.sample_reuse.is_finite() && t.sample_reuse > 0.0,
                "training.sample_reuse",
                "must be finite and > 0",
            ),
            (
                !t.lr_schedule.is_empty()
                    && t.lr_schedule
                        .iter()
                        .all(|(_, lr)| lr.is_finite() && *lr > 0.0 && *lr < 10.0),
                "training.lr_schedule",
                "needs at least one [generation, lr] with 0 < lr < 10",
            ),
            (
                t.weight_decay.is_finite() && t.weight_decay >= 0.0,
                "training.weight_decay",
                "must be finite and >= 0",
            ),
            (
                t.replay_window >= 1,
                "training.replay_window",
                "must be >= 1",
            ),
            (
                t.max_sample_reuse.is_finite() && t.max_sample_reuse >= 0.0,
                "training.max_sample_reuse",
                "must be finite and >= 0 (0 = no guard)",
            ),
            (
                t.moves_left_loss_weight.is_finite() && t.moves_left_loss_weight >= 0.0,
                "training.moves_left_loss_weight",
                "must be finite and >= 0",
            ),
            (
                (0.0..=1.0).contains(&t.value_target_search_weight),
                "training.value_target_search_weight",
                "must be in [0, 1]",
            ),
        ];
        for &(ok, field, reason) in &checks {
            InvalidSetting::check(ok, field, reason)?;
        }
        self.search.validate().map_err(|e| e.in_section("search"))?;
        if self.search.leaves_per_batch != SearchConfig::default().leaves_per_batch {
            return Err(InvalidSetting::new(
                "search.leaves_per_batch",
                LEAVES_PER_BATCH_IGNORED,
            ));
        }
        self.eval.validate()?;
        self.selfplay.validate()
    }
}

/// The most `threads` a run config may ask for: far above any machine's
/// cores, low enough that a typo (`threads = 99999`) is refused instead of
/// hanging while the thread pool is created.
pub const MAX_THREADS: usize = 1024;

/// The message for a `[search] leaves_per_batch` that a run would ignore.
const LEAVES_PER_BATCH_IGNORED: &str = "has no effect in a run config: \
     self-play collects selfplay.leaves_per_tree leaves per tree per batch step \
     and never reads search.leaves_per_batch; set selfplay.leaves_per_tree instead";

/// Serialise the `[search]` table without `leaves_per_batch`, which a run
/// never reads (see [`RunConfig::search`]), so the `config.toml` a run
/// writes shows only settings that apply.
fn serialize_search<S: serde::Serializer>(
    search: &SearchConfig,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut value = toml::Value::try_from(search).map_err(serde::ser::Error::custom)?;
    if let Some(table) = value.as_table_mut() {
        table.remove("leaves_per_batch");
    }
    value.serialize(serializer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_leaves_per_batch_is_rejected_naming_both_keys() {
        let ok = "variant = \"shakti\"\ngenerations = 2\n";
        for text in [
            format!("{ok}[search]\nleaves_per_batch = 4\n"),
            format!("{ok}[search]\nc_puct = 2.0\nleaves_per_batch = 16\n"),
            format!("{ok}search = {{ leaves_per_batch = 1 }}\n"),
        ] {
            let e = RunConfig::from_toml(&text, "t").unwrap_err().to_string();
            assert!(e.starts_with("invalid config t: "), "{e}");
            assert!(e.contains("search.leaves_per_batch"), "{e}");
            assert!(e.contains("selfplay.leaves_per_tree"), "{e}");
        }
        // The key self-play reads, and the other search keys, are fine.
        let fine = format!("{ok}[search]\nc_puct = 2.0\n[selfplay]\nleaves_per_tree = 3\n");
        let c = RunConfig::from_toml(&fine, "t").unwrap();
        assert_eq!(c.selfplay.leaves_per_tree, 3);
        assert_eq!(c.search.c_puct, 2.0);
        // A run directory's config.toml from before the check lists the
        // default; it still loads.
        let old = format!("{ok}[search]\nleaves_per_batch = 8\n");
        assert!(RunConfig::from_toml(&old, "t").is_ok());
    }

    #[test]
    fn a_written_config_has_no_leaves_per_batch_and_loads_back() {
        let c = RunConfig::from_toml("variant = \"shakti\"\ngenerations = 2\n", "t").unwrap();
        let text = toml::to_string(&c).unwrap();
        assert!(!text.contains("leaves_per_batch"), "{text}");
        assert!(text.contains("c_puct"), "{text}");
        assert_eq!(RunConfig::from_toml(&text, "t").unwrap(), c);
    }

    #[test]
    fn unknown_keys_wrong_types_and_ranges_are_named() {
        let ok = "variant = \"shakti\"\ngenerations = 2\n";
        assert_eq!(RunConfig::from_toml(ok, "t").unwrap().generations, 2);
        let unknown = format!("{ok}[training]\nbatchsize = 3\n");
        let e = RunConfig::from_toml(&unknown, "t").unwrap_err().to_string();
        assert!(e.contains("batchsize"), "{e}");
        let wrong_type = format!("{ok}[network]\nblocks = \"four\"\n");
        let e = RunConfig::from_toml(&wrong_type, "t")
            .unwrap_err()
            .to_string();
        assert!(e.contains("blocks") || e.contains("invalid type"), "{e}");
        let range = format!("{ok}[training]\nbatch_size = 0\n");
        let e = RunConfig::from_toml(&range, "t").unwrap_err().to_string();
        assert!(e.contains("training.batch_size"), "{e}");
        let bad_variant = "variant = \"chess\"\ngenerations = 1\n";
        assert!(RunConfig::from_toml(bad_variant, "t")
            .unwrap_err()
            .to_string()
            .contains("chess"));
    }

    #[test]
    fn threads_above_the_limit_are_refused_with_the_value() {
        let ok = "variant = \"shakti\"\ngenerations = 2\n";
        for fine in [0, 1, 64, MAX_THREADS] {
            let text = format!("threads = {fine}\n{ok}");
            assert_eq!(RunConfig::from_toml(&text, "t").unwrap().threads, fine);
        }
        let text = format!("threads = 99999\n{ok}");
        let e = RunConfig::from_toml(&text, "t").unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid config t: threads must be in 0..=1024 (0 = all cores), got 99999"
        );
    }

    #[test]
    fn lr_schedule_is_piecewise_constant() {
        let t = TrainingConfig {
            lr_schedule: vec![(0, 0.01), (5, 0.001)],
            ..Default::default()
        };
        assert_eq!(t.lr_at(0), 0.01);
        assert_eq!(t.lr_at(4), 0.01);
        assert_eq!(t.lr_at(5), 0.001);
        assert_eq!(t.lr_at(99), 0.001);
    }

    #[test]
    fn steps_follow_reuse_and_min_steps_under_the_guard() {
        let t = TrainingConfig {
            batch_size: 100,
            sample_reuse: 4.0,
            min_steps: 50,
            max_sample_reuse: 8.0,
            ..Default::default()
        };
        // 2000 new positions x 4 / 100 = 80 steps; the guard allows 160.
        assert_eq!(t.steps_for(2000, 0, 0), 80);
        // 500 positions: 20 wanted, min_steps raises it to 50, the guard
        // (8 x 500 = 4000 samples = 40 steps) caps it at 40.
        assert_eq!(t.steps_for(500, 0, 0), 40);
        // Earlier generations count: 1000 + 500 positions allow 12000
        // samples, 11000 already trained: 10 steps.
        assert_eq!(t.steps_for(500, 11_000, 1000), 10);
        // Over budget already: one step, never zero.
        assert_eq!(t.steps_for(500, 50_000, 1000), 1);
        // No guard: min_steps wins.
        let off = TrainingConfig {
            max_sample_reuse: 0.0,
            ..t
        };
        assert_eq!(off.steps_for(500, 50_000, 1000), 50);
    }
}
