//! Run configuration: one TOML file per variant in `configs/`.
//!
//! A config file may start from another: `extends = "../losers.toml"`
//! (a path relative to the file that says it) takes every key of that
//! base, and the file's own keys win; tables merge key by key, any other
//! value (arrays included) replaces the base's. Bases may extend bases;
//! a chain that comes back to a file already in it is an error. Then the
//! `--set KEY=VALUE` overrides of `lokizero train` ([`ConfigOverride`])
//! apply in order, and only the merged table is deserialised and
//! validated, so every check below applies to the result.
//!
//! Unknown keys, wrong types and out-of-range values are errors that name
//! the key and the file (or `--set` argument) that set it (serde's
//! `deny_unknown_fields` plus [`RunConfig::validate`]).
//! So is a setting that a run would silently ignore: `[search]
//! leaves_per_batch`, which self-play does not read (it batches
//! `[selfplay] leaves_per_tree` leaves per tree; see [`RunConfig::search`]).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;

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
    /// Precision of the network in self-play on the CPU (`"int8"`, the
    /// default, or `"fp32"`; [`model::Precision`]): int8 where the CPU has
    /// a fast int8 kernel, `fp32` elsewhere and on a GPU. Training and the
    /// exported weights are `f32` either way; the `[eval]` games play as
    /// bots do (int8 by default, `arena::FactoryContext`).
    pub precision: model::Precision,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            blocks: 4,
            filters: 32,
            value_hidden: 64,
            moves_left: false,
            precision: model::Precision::default(),
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
    /// TOML syntax, unknown key or wrong type (the reason names the key).
    #[error("invalid config {path}: {reason}")]
    Parse {
        /// The file that set the key (a base names the file it was read
        /// for), or the `--set` argument.
        path: String,
        /// The key and the parser's message.
        reason: String,
    },
    /// A value out of range.
    #[error("invalid config {path}: {source}")]
    Range {
        /// The file that set the key, or the `--set` argument.
        path: String,
        /// The key and the range its value must be in.
        source: InvalidSetting,
    },
    /// The base file named by a config's `extends` could not be read.
    #[error("cannot read config {base}, which {path} extends: {source}")]
    Base {
        /// The config that says `extends`.
        path: String,
        /// The base file, resolved against the directory of `path`.
        base: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// An `extends` chain that comes back to a file already in it.
    #[error("invalid config {path}: `extends` cycle {chain}")]
    Cycle {
        /// The config that was loaded.
        path: String,
        /// The files of the chain, `a.toml -> b.toml -> a.toml`.
        chain: String,
    },
    /// A `--set` argument that is not `KEY=VALUE` with a dotted key.
    #[error("invalid --set {arg}: {reason}")]
    Override {
        /// The argument as given.
        arg: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// The key of a config file that names its base config.
pub const EXTENDS: &str = "extends";

/// One `--set KEY=VALUE` override of a config key (`lokizero train
/// --set`), applied after the `extends` chain is merged.
///
/// `KEY` is dotted, section first (`selfplay.games_per_generation`,
/// `search.c_puct`; a top-level key such as `seed` has no section).
/// `VALUE` is read as a TOML value (`64`, `1.5`, `true`, `"text"`,
/// `[[0, 0.002]]`, `{ elo1 = 30.0 }`); text that is not a TOML value is
/// taken as a string, so `selfplay.branch_book=configs/books/x.txt` needs
/// no quotes. A table value merges into the table there, like a child
/// config's.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigOverride {
    arg: String,
    key: Vec<String>,
    value: toml::Value,
}

impl ConfigOverride {
    /// The argument as given (`selfplay.games_per_generation=64`).
    pub fn arg(&self) -> &str {
        &self.arg
    }

    /// The dotted key (`selfplay.games_per_generation`).
    pub fn key(&self) -> String {
        self.key.join(".")
    }

    /// The value it sets.
    pub fn value(&self) -> &toml::Value {
        &self.value
    }

    /// The override as a one-key table (`{ selfplay = { games = 64 } }`),
    /// to merge like a config file.
    fn as_table(&self) -> toml::Table {
        let mut value = self.value.clone();
        for part in self.key.iter().rev() {
            let mut table = toml::Table::new();
            table.insert(part.clone(), value);
            value = toml::Value::Table(table);
        }
        match value {
            toml::Value::Table(table) => table,
            // The key has at least one part (checked by `from_str`).
            _ => toml::Table::new(),
        }
    }
}

impl FromStr for ConfigOverride {
    type Err = ConfigError;

    fn from_str(arg: &str) -> Result<Self, ConfigError> {
        let bad = |reason: &str| ConfigError::Override {
            arg: arg.to_owned(),
            reason: reason.to_owned(),
        };
        let Some((key, text)) = arg.split_once('=') else {
            return Err(bad(
                "expected KEY=VALUE, such as selfplay.games_per_generation=64",
            ));
        };
        let key: Vec<String> = key.trim().split('.').map(str::to_owned).collect();
        let name_ok = |part: &String| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        if !key.iter().all(name_ok) {
            return Err(bad(
                "KEY must be names of letters, digits, `_` or `-` joined by dots, \
                 such as search.c_puct",
            ));
        }
        if key.len() == 1 && key[0] == EXTENDS {
            return Err(bad(
                "`extends` cannot be overridden: it is resolved before --set \
                 (name another file with --config)",
            ));
        }
        Ok(ConfigOverride {
            arg: arg.to_owned(),
            key,
            value: override_value(text.trim()),
        })
    }
}

/// `text` as a TOML value, or as a string when it is not one.
fn override_value(text: &str) -> toml::Value {
    if let Ok(mut table) = format!("value = {text}").parse::<toml::Table>() {
        if table.len() == 1 {
            if let Some(value) = table.remove("value") {
                return value;
            }
        }
    }
    toml::Value::String(text.to_owned())
}

/// Config layers merged into one table, remembering which layer set each
/// key so that an error can name the file (or `--set` argument).
struct Layers {
    /// The merged table.
    table: toml::Table,
    /// Each layer's label, in merge order.
    labels: Vec<String>,
    /// Dotted key -> the layer that set it last (tables too).
    origins: BTreeMap<String, usize>,
    /// The layer named when no key is to blame (the loaded file).
    main: usize,
}

impl Layers {
    fn new() -> Self {
        Layers {
            table: toml::Table::new(),
            labels: Vec::new(),
            origins: BTreeMap::new(),
            main: 0,
        }
    }

    /// Merge `table` over the layers so far.
    fn push(&mut self, label: String, table: toml::Table) {
        let layer = self.labels.len();
        self.labels.push(label);
        merge(&mut self.table, table, "", layer, &mut self.origins);
    }

    /// The label of the layer that set `key` (a dotted path as
    /// `serde_path_to_error` writes it), or of its nearest table that one
    /// did; the main file when none did.
    fn origin(&self, key: &str) -> &str {
        let mut key = key;
        let layer = loop {
            if let Some(&layer) = self.origins.get(key) {
                break layer;
            }
            match key.rfind('.') {
                Some(dot) => key = &key[..dot],
                None => break self.main,
            }
        };
        &self.labels[layer]
    }

    /// Deserialise and validate the merged table.
    fn into_config(mut self) -> Result<RunConfig, ConfigError> {
        let value = toml::Value::Table(std::mem::take(&mut self.table));
        let config: RunConfig = serde_path_to_error::deserialize(value).map_err(|e| {
            let key = e.path().to_string();
            let message = e.inner().message().trim();
            if key.is_empty() || key == "." {
                ConfigError::Parse {
                    path: self.labels[self.main].clone(),
                    reason: message.to_owned(),
                }
            } else {
                ConfigError::Parse {
                    path: self.origin(&key).to_owned(),
                    reason: format!("{key}: {message}"),
                }
            }
        })?;
        config.validate().map_err(|source| ConfigError::Range {
            path: self.origin(&source.field).to_owned(),
            source,
        })?;
        Ok(config)
    }
}

/// Merge `src` into `dst` key by key: a table into a table recursively,
/// any other value replaces. Records `layer` as the origin of every key it
/// sets (`prefix` is the dotted path of `dst`).
fn merge(
    dst: &mut toml::Table,
    src: toml::Table,
    prefix: &str,
    layer: usize,
    origins: &mut BTreeMap<String, usize>,
) {
    for (key, value) in src {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        origins.insert(path.clone(), layer);
        match (dst.get_mut(&key), value) {
            (Some(toml::Value::Table(into)), toml::Value::Table(from)) => {
                merge(into, from, &path, layer, origins);
            }
            (_, value) => {
                // The keys under a replaced value are gone; those under the
                // new value are this layer's.
                let under = format!("{path}.");
                origins.retain(|k, _| !k.starts_with(&under));
                if let toml::Value::Table(from) = &value {
                    record(from, &path, layer, origins);
                }
                dst.insert(key, value);
            }
        }
    }
}

/// Record `layer` as the origin of every key under `table` (at `prefix`).
fn record(table: &toml::Table, prefix: &str, layer: usize, origins: &mut BTreeMap<String, usize>) {
    for (key, value) in table {
        let path = format!("{prefix}.{key}");
        origins.insert(path.clone(), layer);
        if let toml::Value::Table(inner) = value {
            record(inner, &path, layer, origins);
        }
    }
}

/// Parse TOML text into a table; `path` labels errors.
fn parse_table(text: &str, path: &str) -> Result<toml::Table, ConfigError> {
    text.parse::<toml::Table>().map_err(|e| ConfigError::Parse {
        path: path.into(),
        reason: e.to_string().trim_end().to_owned(),
    })
}

/// `path` without `.` and with each `..` cancelling the name before it
/// (`configs/experiments/../losers.toml` -> `configs/losers.toml`), for
/// messages; the files are found through the path as written.
fn tidy(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Read `path` and the chain of bases its `extends` names, base first,
/// each with its label for messages.
fn read_chain(path: &Path) -> Result<Vec<(String, toml::Table)>, ConfigError> {
    let main = path.display().to_string();
    // (shown path, canonical path) of each file read, child first.
    let mut chain: Vec<(String, PathBuf)> = Vec::new();
    let mut layers = Vec::new();
    let mut current = path.to_path_buf();
    loop {
        let shown = current.display().to_string();
        let text = std::fs::read_to_string(&current).map_err(|source| match chain.last() {
            None => ConfigError::Io {
                path: shown.clone(),
                source,
            },
            Some((child, _)) => ConfigError::Base {
                path: child.clone(),
                base: shown.clone(),
                source,
            },
        })?;
        let canonical = std::fs::canonicalize(&current).unwrap_or_else(|_| current.clone());
        if let Some(first) = chain.iter().position(|(_, c)| *c == canonical) {
            let names: Vec<&str> = chain[first..].iter().map(|(s, _)| s.as_str()).collect();
            return Err(ConfigError::Cycle {
                path: main,
                chain: format!("{} -> {shown}", names.join(" -> ")),
            });
        }
        let label = if chain.is_empty() {
            shown.clone()
        } else {
            format!("{shown} (a base of {main})")
        };
        let mut table = parse_table(&text, &label)?;
        let base = match table.remove(EXTENDS) {
            None => None,
            Some(toml::Value::String(base)) => Some(base),
            Some(other) => {
                return Err(ConfigError::Parse {
                    path: label,
                    reason: format!(
                        "{EXTENDS}: must be a string, the path of the base config \
                         relative to this file, got {other}"
                    ),
                })
            }
        };
        layers.push((label, table));
        chain.push((shown, canonical));
        match base {
            None => break,
            Some(base) => {
                let dir = current.parent().unwrap_or(Path::new(""));
                current = tidy(&dir.join(base));
            }
        }
    }
    layers.reverse();
    Ok(layers)
}

impl RunConfig {
    /// Parse and validate TOML text; `path` only labels errors. The text
    /// cannot say `extends` (it has no directory to resolve a base
    /// against): use [`RunConfig::load`].
    pub fn from_toml(text: &str, path: &str) -> Result<Self, ConfigError> {
        let table = parse_table(text, path)?;
        if table.contains_key(EXTENDS) {
            return Err(ConfigError::Parse {
                path: path.into(),
                reason: format!(
                    "{EXTENDS}: a base config can only be named in a config file \
                     read from disk"
                ),
            });
        }
        let mut layers = Layers::new();
        layers.push(path.into(), table);
        layers.into_config()
    }

    /// Read, parse and validate a config file, with the bases its
    /// `extends` chain names.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        Self::load_with_overrides(path, &[])
    }

    /// [`RunConfig::load`], then `overrides` in order (`lokizero train
    /// --set`) before the result is deserialised and validated.
    ///
    /// # Errors
    /// A file that cannot be read (a missing base names the file that
    /// extends it), an `extends` cycle (naming the chain), TOML syntax, or
    /// an unknown key, wrong type or out-of-range value, naming the key and
    /// the file or `--set` argument that set it.
    pub fn load_with_overrides(
        path: &Path,
        overrides: &[ConfigOverride],
    ) -> Result<Self, ConfigError> {
        let mut layers = Layers::new();
        for (label, table) in read_chain(path)? {
            layers.push(label, table);
        }
        layers.main = layers.labels.len().saturating_sub(1);
        for o in overrides {
            layers.push(format!("--set {}", o.arg), o.as_table());
        }
        layers.into_config()
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
