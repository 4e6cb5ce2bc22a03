//! Training runs in the web lab (`lokizero serve --runs DIR`): the run
//! folders under `DIR` (or `DIR` itself when it is a run; the layout of
//! [`RunDir`]), each with its generations read from `metrics.jsonl` (one
//! JSON object per generation, written by `lokizero train`) and its newest
//! self-play games read from its replay chunks, served at `/api/runs`,
//! `/api/runs/{name}` and `/api/runs/{name}/games` and drawn by the page
//! `/runs` (a table, a learning curve and games to replay on the lab's
//! board, refreshed while the run goes on).
//!
//! The files are read on every request, so a run in progress shows its
//! newest generation; a line still being written (no newline yet, or not
//! JSON) is left out until it is whole.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::State;
use axum::Json;
use serde_json::{json, Map, Value};

use bot::BotGame;
use rules::{Game, Player, VariantId};
use selfplay::record::GameRecord;
use train::run::RunDir;

use crate::error::{ApiError, ApiPath};
use crate::Service;

/// Most self-play games `GET /api/runs/{name}/games` returns, the newest
/// first.
pub const NEWEST_GAMES: usize = 12;

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

/// Whether `dir` is a run folder: it holds the metrics log
/// ([`RunDir::metrics`]).
fn is_run(dir: &Path) -> bool {
    RunDir {
        root: dir.to_path_buf(),
    }
    .metrics()
    .is_file()
}

/// The run folders of `root`: `root` itself when it is one (it holds the
/// metrics log, [`RunDir::metrics`]), else its subfolders that are, by
/// name.
pub fn run_dirs(root: &Path) -> Vec<(String, PathBuf)> {
    if is_run(root) {
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
            is_run(&path).then_some((name, path))
        })
        .collect();
    out.sort();
    out
}

/// The whole generations of a run's metrics log ([`RunDir::metrics`]),
/// each cut to [`GENERATION_FIELDS`]; an unreadable file gives none, a
/// partial or broken line is skipped.
pub fn generations(run: &Path) -> Vec<Value> {
    let metrics = RunDir {
        root: run.to_path_buf(),
    }
    .metrics();
    let Ok(text) = std::fs::read_to_string(metrics) else {
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
    let (name, dir) = find_run(&service, name)?;
    let gens = generations(&dir);
    let mut out = summary(&name, &dir, &gens);
    out["rows"] = Value::Array(gens);
    Ok(Json(out))
}

/// The listed run called `name`: its name and folder.
fn find_run(service: &Service, name: String) -> Result<(String, PathBuf), ApiError> {
    run_dirs(root(service)?)
        .into_iter()
        .find(|(n, _)| *n == name)
        .ok_or(ApiError::UnknownRun(name))
}

/// `GET /api/runs/{name}/games`: the run's newest self-play games (at
/// most [`NEWEST_GAMES`], the newest first), each with its start position
/// and its moves as the lab's move tokens, so `POST /api/games` with
/// `position` and `moves` sets it on the board: `{"variant", "games":
/// [{"generation", "part", "index", "start", "moves", "winner" (a side's
/// name or null), "ply_capped"}]}`.
///
/// # Errors
/// [`ApiError::NoRuns`] without `--runs`; [`ApiError::UnknownRun`];
/// [`ApiError::Internal`] naming the file for a run whose config names no
/// known variant, an unreadable replay folder or a corrupt chunk.
pub async fn games(
    State(service): State<Arc<Service>>,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let (name, dir) = find_run(&service, name)?;
    let variant: VariantId = run_variant(&dir)
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| {
            ApiError::Internal(format!(
                "run {name}: its config.toml names no known variant"
            ))
        })?;
    let answer = tokio::task::spawn_blocking(
        move || rules::with_variant!(variant, G => newest_games::<G>(&dir)),
    )
    .await
    .map_err(|e| ApiError::Internal(e.to_string()))??;
    Ok(Json(
        json!({ "variant": variant.as_str(), "games": answer }),
    ))
}

/// The newest [`NEWEST_GAMES`] self-play games of the run in `dir`, read
/// from its replay chunks, newest part first.
fn newest_games<G: BotGame>(dir: &Path) -> Result<Vec<Value>, ApiError> {
    let replay = RunDir {
        root: dir.to_path_buf(),
    }
    .replay();
    let chunks = selfplay::replay::list_chunks(&replay)
        .map_err(|e| ApiError::Internal(format!("{}: {e}", replay.display())))?;
    let mut out = Vec::new();
    for (generation, part, path) in chunks.iter().rev() {
        let chunk = selfplay::replay::read_chunk::<G>(path)
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        for (index, record) in chunk.games.iter().enumerate().rev() {
            let moves = move_tokens::<G>(record).map_err(|e| {
                ApiError::Internal(format!("{}: game {index}: {e}", path.display()))
            })?;
            out.push(json!({
                "generation": generation,
                "part": part,
                "index": index,
                "start": record.start,
                "moves": moves,
                "winner": record.winner.map(|p| G::SIDES[usize::from(p == Player::Second)]),
                "ply_capped": record.ply_capped,
            }));
            if out.len() == NEWEST_GAMES {
                return Ok(out);
            }
        }
    }
    Ok(out)
}

/// A self-play game's moves as the lab's whole-turn move tokens.
fn move_tokens<G: Game>(record: &GameRecord) -> Result<Vec<String>, selfplay::record::RecordError> {
    let (mut game, turns) = record.turns::<G>()?;
    Ok(turns
        .iter()
        .map(|turn| {
            let token = game.move_text(turn);
            for &action in turn {
                game.play(action);
            }
            token
        })
        .collect())
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
            run.join("metrics.jsonl"),
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
