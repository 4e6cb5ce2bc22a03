//! Training runs in the web lab (`lokizero serve --runs DIR`): the run
//! folders under `DIR` (or `DIR` itself when it is a run), each with its
//! generations read from `metrics.jsonl` (one JSON object per generation,
//! written by `lokizero train`), served at `/api/runs` and
//! `/api/runs/{name}` and drawn by the page `/runs` (a table and a learning
//! curve that refresh while the run goes on).
//!
//! The files are read on every request, so a run in progress shows its
//! newest generation; a line still being written (no newline yet, or not
//! JSON) is left out until it is whole.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::State;
use axum::Json;
use serde_json::{json, Map, Value};

use crate::error::{ApiError, ApiPath};
use crate::Service;

/// The file of a run folder with one JSON line per generation.
pub const METRICS_FILE: &str = "metrics.jsonl";

/// The fields of a generation's metrics line the API passes on (the rest
/// stay in the file): counts, losses, throughput, CPU time and the
/// evaluation's Elo with its interval.
pub const GENERATION_FIELDS: [&str; 17] = [
    "generation",
    "games",
    "selfplay_positions",
    "selfplay_positions_total",
    "mean_game_plies",
    "draw_rate",
    "first_player_win_rate",
    "policy_loss",
    "value_loss",
    "policy_entropy",
    "positions_per_second",
    "samples_per_second",
    "cpu_seconds",
    "cpu_seconds_total",
    "elo",
    "elo_lower",
    "elo_upper",
];

/// The run folders of `root`: `root` itself when it holds
/// [`METRICS_FILE`], else its subfolders that do, by name.
pub fn run_dirs(root: &Path) -> Vec<(String, PathBuf)> {
    if root.join(METRICS_FILE).is_file() {
        let name = root
            .file_name()
            .map_or_else(|| "run".into(), |n| n.to_string_lossy().into_owned());
        return vec![(name, root.to_path_buf())];
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let path = e.path();
            let name = e.file_name().into_string().ok()?;
            path.join(METRICS_FILE).is_file().then_some((name, path))
        })
        .collect();
    out.sort();
    out
}

/// The whole generations of a run's [`METRICS_FILE`], each cut to
/// [`GENERATION_FIELDS`]; an unreadable file gives none, a partial or
/// broken line is skipped.
pub fn generations(run: &Path) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(run.join(METRICS_FILE)) else {
        return Vec::new();
    };
    // Only lines ended by a newline are whole.
    let whole = text.rfind('\n').map_or("", |end| &text[..end]);
    whole
        .lines()
        .filter_map(|line| serde_json::from_str::<Map<String, Value>>(line).ok())
        .map(|row| {
            let kept: Map<String, Value> = GENERATION_FIELDS
                .iter()
                .filter_map(|&k| row.get(k).map(|v| (k.to_string(), v.clone())))
                .collect();
            Value::Object(kept)
        })
        .collect()
}

/// The variant of a run from its `config.toml` (`variant = "..."`), if
/// it names one.
fn run_variant(run: &Path) -> Option<String> {
    let text = std::fs::read_to_string(run.join("config.toml")).ok()?;
    let table: toml::Table = text.parse().ok()?;
    table.get("variant")?.as_str().map(str::to_string)
}

/// A run's summary from its generations `gens`: name, variant,
/// generations so far, the last one.
fn summary(name: &str, dir: &Path, gens: &[Value]) -> Value {
    json!({
        "name": name,
        "variant": run_variant(dir),
        "generations": gens.len(),
        "last": gens.last(),
    })
}

fn root(service: &Service) -> Result<&Path, ApiError> {
    service.config.runs.as_deref().ok_or(ApiError::NoRuns)
}

/// `GET /api/runs`: the runs of `--runs DIR`.
///
/// # Errors
/// [`ApiError::NoRuns`] when the service was started without `--runs`.
pub async fn list(State(service): State<Arc<Service>>) -> Result<Json<Value>, ApiError> {
    let root = root(&service)?;
    let runs: Vec<Value> = run_dirs(root)
        .iter()
        .map(|(name, dir)| summary(name, dir, &generations(dir)))
        .collect();
    Ok(Json(json!({ "runs": runs })))
}

/// `GET /api/runs/{name}`: one run's generations.
///
/// # Errors
/// [`ApiError::NoRuns`] without `--runs`; [`ApiError::UnknownRun`] for a
/// name that is not one of the listed runs.
pub async fn get(
    State(service): State<Arc<Service>>,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let root = root(&service)?;
    let (name, dir) = run_dirs(root)
        .into_iter()
        .find(|(n, _)| *n == name)
        .ok_or(ApiError::UnknownRun(name))?;
    let gens = generations(&dir);
    let mut out = summary(&name, &dir, &gens);
    out["rows"] = Value::Array(gens);
    Ok(Json(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_skip_a_partial_last_line_and_keep_known_fields() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("losers-a");
        std::fs::create_dir(&run).unwrap();
        std::fs::write(
            run.join(METRICS_FILE),
            "{\"generation\":1,\"games\":4,\"policy_loss\":2.1,\"secret\":1}\n\
             not json\n\
             {\"generation\":2,\"games\":8}\n\
             {\"generation\":3,\"ga",
        )
        .unwrap();
        std::fs::write(run.join("config.toml"), "variant = \"losers\"\n").unwrap();
        std::fs::create_dir(tmp.path().join("not-a-run")).unwrap();
        let runs = run_dirs(tmp.path());
        assert_eq!(runs.len(), 1);
        let gens = generations(&runs[0].1);
        assert_eq!(gens.len(), 2);
        assert_eq!(gens[0]["policy_loss"], 2.1);
        assert!(gens[0].get("secret").is_none());
        assert_eq!(summary("losers-a", &run, &gens)["variant"], "losers");
        // A run folder given itself is its own only run.
        assert_eq!(run_dirs(&run).len(), 1);
    }
}
