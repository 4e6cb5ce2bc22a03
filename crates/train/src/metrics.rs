//! The metrics of a generation, as one typed record: one JSON line per
//! generation in `metrics.jsonl` and the `training` section of the
//! generation's `model.json`. The log is rewritten atomically with each new
//! line so a kill never leaves a torn line.

use std::path::Path;

use fsio::write_atomic;
use serde::{Deserialize, Deserializer, Serialize};

/// What one generation did and measured (the schema of `metrics.jsonl` and
/// of `model.json`'s `training`). Every field has a default so records
/// written by older versions (with fewer keys) still read; a key unknown to
/// this version is ignored. Units: seconds of wall time unless named CPU,
/// rates per second of the phase that produced them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GenerationMetrics {
    /// The generation this record describes (its bundle's number).
    pub generation: u32,
    /// The generation whose network played the self-play games.
    pub selfplay_generation: u32,
    /// Self-play games of this generation.
    pub games: usize,
    /// Recorded training positions of those games.
    pub selfplay_positions: usize,
    /// Plies played in those games.
    pub selfplay_plies: usize,
    /// Wall time of self-play in this invocation.
    pub selfplay_seconds: f64,
    /// Games read back from disk after a resume (played by an earlier,
    /// interrupted invocation).
    pub selfplay_reused_games: usize,
    /// Self-play plies per second of this invocation (`None` when every
    /// game was reused).
    pub positions_per_second: Option<f64>,
    /// Games in the replay window trained on.
    pub replay_games: usize,
    /// Training positions in the replay window.
    pub replay_samples: usize,
    /// Optimiser steps.
    pub train_steps: usize,
    /// Learning rate of this generation.
    pub learning_rate: f64,
    /// Mean policy cross-entropy over the steps (nats).
    #[serde(deserialize_with = "nan_if_null")]
    pub policy_loss: f64,
    /// Mean WDL cross-entropy over the steps (nats).
    #[serde(deserialize_with = "nan_if_null")]
    pub value_loss: f64,
    /// Wall time of training.
    pub train_seconds: f64,
    /// Training samples per second.
    pub samples_per_second: f64,
    /// Share of this generation's games drawn (ply caps included).
    pub draw_rate: f64,
    /// Share of games stopped by the ply cap.
    pub ply_capped_rate: f64,
    /// Share of games won by the first player (in tafl, the attackers).
    pub first_player_win_rate: f64,
    /// Mean game length in plies.
    pub mean_game_plies: f64,
    /// Whether this generation became the self-play network (`None` in
    /// records older than gating: promoted).
    pub promoted: Option<bool>,
    /// The evaluation's matches (`arena::evaluate::EvalSummary::to_json`).
    pub eval: Option<serde_json::Value>,
    /// Chained Elo against generation 0, with its 95 % interval.
    pub elo: Option<f64>,
    /// Lower end of the Elo interval.
    pub elo_lower: Option<f64>,
    /// Upper end of the Elo interval.
    pub elo_upper: Option<f64>,
    /// CPU seconds (all threads) of this invocation's generation.
    pub cpu_seconds: Option<f64>,
    /// CPU seconds of the whole lineage up to this generation (a run
    /// started `--init-from` a bundle adds to the bundle's total).
    pub cpu_seconds_total: Option<f64>,
    /// Self-play games per hour of this invocation.
    pub games_per_hour: Option<f64>,
    /// Mean entropy of the network's policy over the legal actions (nats).
    #[serde(deserialize_with = "nan_if_null")]
    pub policy_entropy: f64,
    /// Mean entropy of the recorded policy targets (nats).
    pub policy_target_entropy: Option<f64>,
    /// Samples trained on by the lineage up to this generation.
    pub train_samples_total: u64,
    /// New self-play positions of the lineage up to this generation.
    pub selfplay_positions_total: u64,
    /// Mean moves-left loss (only with the moves-left head).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves_left_loss: Option<f64>,
    /// Resignation (only with `[selfplay] resign`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub resign: Option<ResignMetrics>,
}

/// The resignation figures of a generation ([`selfplay::resign`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResignMetrics {
    /// The threshold on the root value `W - L` used in this generation.
    pub resign_threshold: f64,
    /// Games that ended by resignation.
    pub resigned_games: usize,
    /// Games played out with resignation off (for the false-positive rate).
    pub resign_played_out_games: usize,
    /// Share of would-be resignations in played-out games that did not lose.
    pub resign_false_positive_rate: Option<f64>,
    /// Would-be resignations in the played-out games.
    pub resign_would_have_resigned: usize,
    /// The threshold calibrated for the next generation.
    pub resign_threshold_next: f64,
}

/// `serde_json` writes a NaN loss (a lost network) as `null`; read it back
/// as NaN.
fn nan_if_null<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

impl GenerationMetrics {
    /// The record in a bundle's `model.json` `training` section; `None`
    /// when the section is absent (generation 0) or not a metrics record.
    pub fn from_meta(training: &serde_json::Value) -> Option<Self> {
        if !training.is_object() {
            return None;
        }
        serde_json::from_value(training.clone()).ok()
    }

    /// The record as JSON (for `model.json`).
    pub fn to_json(&self) -> serde_json::Value {
        // Serialising plain numbers, strings and maps cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// Append `record` as one JSON line to the log at `path`.
///
/// # Errors
/// I/O errors; the existing log is unchanged on error.
pub fn append_metrics(path: &Path, record: &GenerationMetrics) -> std::io::Result<()> {
    let mut text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    push_metrics_line(&mut text, record);
    write_atomic(path, text.as_bytes())
}

/// Append `record` as one JSON line to the log text `text` (ending an
/// unterminated last line first). The file and the store write the log
/// whole with this.
pub fn push_metrics_line(text: &mut String, record: &GenerationMetrics) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&record.to_json().to_string());
    text.push('\n');
}

/// Read every record of the log.
///
/// # Errors
/// [`MetricsError`] naming the file, and the line of the first record that
/// does not parse.
pub fn read_metrics(path: &Path) -> Result<Vec<GenerationMetrics>, MetricsError> {
    let text = std::fs::read_to_string(path).map_err(|source| MetricsError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_metrics(&text, &path.display().to_string())
}

/// Every record of the log text `text`, read from `label` (named in
/// errors).
///
/// # Errors
/// [`MetricsError::Parse`] naming `label` and the line of the first record
/// that does not parse.
pub fn parse_metrics(text: &str, label: &str) -> Result<Vec<GenerationMetrics>, MetricsError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|source| MetricsError::Parse {
                label: label.to_string(),
                line: i + 1,
                source,
            })
        })
        .collect()
}

/// Why a metrics log could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The log file.
        path: std::path::PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A line is not a metrics record.
    #[error("{label} line {line}: {source}")]
    Parse {
        /// The log's file or store key.
        label: String,
        /// The line (1-based).
        line: usize,
        /// The JSON parser's error.
        source: serde_json::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_and_old_records_read() {
        let record = GenerationMetrics {
            generation: 3,
            policy_loss: f64::NAN,
            resign: Some(ResignMetrics {
                resign_threshold: -0.9,
                resigned_games: 2,
                resign_played_out_games: 1,
                resign_false_positive_rate: None,
                resign_would_have_resigned: 0,
                resign_threshold_next: -0.8,
            }),
            ..Default::default()
        };
        let json = record.to_json();
        assert_eq!(json["resign_threshold_next"], -0.8);
        assert!(json["policy_loss"].is_null());
        assert!(json.get("moves_left_loss").is_none());
        let back = GenerationMetrics::from_meta(&json).unwrap();
        assert!(back.policy_loss.is_nan());
        assert_eq!(back.resign, record.resign);
        // A record from before resignation and gating: defaults.
        let old = serde_json::json!({"generation": 2, "cpu_seconds_total": 5.0, "extra": 1});
        let old = GenerationMetrics::from_meta(&old).unwrap();
        assert_eq!((old.generation, old.cpu_seconds_total), (2, Some(5.0)));
        assert_eq!((old.resign, old.promoted), (None, None));
        assert_eq!(GenerationMetrics::from_meta(&serde_json::Value::Null), None);
    }
}
