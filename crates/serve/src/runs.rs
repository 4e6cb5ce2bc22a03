//! Training runs in the web lab: the run folders under `lokizero serve
//! --runs DIR` (or `DIR` itself when it is a run; the layout of
//! [`RunDir`]) and the run in an object store of `--store URL` (the
//! layout of [`train::cluster::keys`]), each with its generations read
//! from `metrics.jsonl` (one JSON object per generation, written by
//! `lokizero train`) and its newest self-play games read from its replay
//! chunks, served at `/api/runs`, `/api/runs/{name}` and
//! `/api/runs/{name}/games` and drawn by the page `/runs` (a table, a
//! learning curve and games to replay on the lab's board, refreshed while
//! the run goes on).
//!
//! The files are read on every request (on a blocking thread: a store's
//! requests block), so a run in progress shows its newest generation; a
//! line still being written (no newline yet, or not JSON) is left out
//! until it is whole.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use store::Store;
use train::cluster::keys;

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

/// Where a run's files are: a run folder, or an object store.
#[derive(Clone)]
pub enum Run {
    /// A run folder of `lokizero train --run-dir`.
    Dir(PathBuf),
    /// A run in an object store (`lokizero train --store URL`).
    Store(Arc<Store>),
}

impl Run {
    /// The text of the run's file `name` (`metrics.jsonl`, `config.toml`:
    /// the same name in a folder and a store); `None` when it is missing
    /// or unreadable.
    fn text(&self, name: &str) -> Option<String> {
        match self {
            Run::Dir(dir) => std::fs::read_to_string(dir.join(name)).ok(),
            Run::Store(store) => store
                .get(name)
                .ok()
                .flatten()
                .and_then(|b| String::from_utf8(b).ok()),
        }
    }

    /// The run's replay chunks as (generation, name), the newest last.
    fn chunks(&self) -> Result<Vec<(u32, String)>, ApiError> {
        match self {
            Run::Dir(dir) => {
                let replay = RunDir { root: dir.clone() }.replay();
                let found = selfplay::replay::list_chunks(&replay)
                    .map_err(|e| ApiError::Internal(format!("the run's replay folder: {e}")))?;
                Ok(found
                    .into_iter()
                    .map(|(g, _, path)| (g, path.to_string_lossy().into_owned()))
                    .collect())
            }
            Run::Store(store) => {
                let listed = store
                    .list(keys::REPLAY)
                    .map_err(|e| ApiError::Internal(e.to_string()))?;
                // Objects that are not chunks (a stray upload) are not
                // the run's games: skipped.
                let mut found: Vec<(u32, String)> = listed
                    .into_iter()
                    .filter_map(|o| Some((keys::ChunkKey::parse(&o.key)?.generation, o.key)))
                    .collect();
                found.sort();
                Ok(found)
            }
        }
    }

    /// The bytes of chunk `name` (from [`Run::chunks`]).
    fn chunk(&self, name: &str) -> Result<Vec<u8>, ApiError> {
        match self {
            Run::Dir(_) => std::fs::read(name).map_err(|e| {
                let short = name.rsplit('/').next().unwrap_or(name);
                ApiError::Internal(format!("{short}: {e}"))
            }),
            Run::Store(store) => store
                .get(name)
                .map_err(|e| ApiError::Internal(e.to_string()))?
                .ok_or_else(|| ApiError::Internal(format!("{name}: gone from the store"))),
        }
    }
}

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

/// The name of the run in `store`: the last part of its location
/// (`s3://bucket/run-1` is `run-1`).
pub fn store_run_name(store: &Store) -> String {
    let place = store.describe();
    place
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or("store")
        .to_string()
}

/// Every run the service shows: the folders of `--runs`, then the run of
/// `--store`.
///
/// # Errors
/// [`ApiError::NoRuns`] when the service has neither.
fn all_runs(service: &Service) -> Result<Vec<(String, Run)>, ApiError> {
    if service.config.runs.is_none() && service.runs_store.is_none() {
        return Err(ApiError::NoRuns);
    }
    let mut runs: Vec<(String, Run)> = service
        .config
        .runs
        .as_deref()
        .map(run_dirs)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, dir)| (name, Run::Dir(dir)))
        .collect();
    if let Some(store) = &service.runs_store {
        // A folder run of the same name keeps it; the store's gets a suffix.
        let mut name = store_run_name(store);
        if runs.iter().any(|(n, _)| *n == name) {
            name.push_str("-store");
        }
        runs.push((name, Run::Store(Arc::clone(store))));
    }
    Ok(runs)
}

/// The whole generations of metrics log `text` (`metrics.jsonl`), each
/// cut to [`GENERATION_FIELDS`]; a partial or broken line is skipped.
pub fn generations(text: &str) -> Vec<Value> {
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

/// The variant of a run from its `config.toml` text (`variant = "..."`),
/// if it names one.
fn config_variant(config: Option<String>) -> Option<String> {
    let table: toml::Table = config?.parse().ok()?;
    table.get("variant")?.as_str().map(str::to_string)
}

/// The variant of the run folder `dir`, from its `config.toml`; `None`
/// without one that names a known variant.
pub fn run_variant(dir: &Path) -> Option<VariantId> {
    config_variant(Run::Dir(dir.to_path_buf()).text(CONFIG))?
        .parse()
        .ok()
}

/// Whether `dir` looks like a training run folder: it has the run's
/// config or its checkpoints folder (a run being started has one of them
/// within a second).
pub fn looks_like_run(dir: &Path) -> bool {
    dir.join(CONFIG).is_file()
        || !RunDir {
            root: dir.to_path_buf(),
        }
        .checkpoints()
        .is_empty()
}

/// A run's summary and its generations: name, variant, generations so
/// far, the last one.
fn summary(name: &str, run: &Run) -> (Value, Vec<Value>) {
    let gens = generations(&run.text(METRICS).unwrap_or_default());
    let variant = config_variant(run.text(CONFIG));
    let summary = json!({
        "name": name,
        "variant": variant,
        "generations": gens.len(),
        "last": gens.last(),
    });
    (summary, gens)
}

/// The metrics log's name, in a run folder and in a store.
const METRICS: &str = keys::METRICS;
/// The run config's name, in a run folder and in a store.
const CONFIG: &str = keys::CONFIG;

/// Run `work` on a blocking thread (file and store reads).
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?
}

/// `GET /api/runs`: the runs of `--runs DIR` and `--store URL`.
///
/// # Errors
/// [`ApiError::NoRuns`] when the service was started with neither.
pub async fn list(State(service): State<Arc<Service>>) -> Result<Json<Value>, ApiError> {
    let runs = all_runs(&service)?;
    let runs = blocking(move || {
        Ok(runs
            .iter()
            .map(|(name, run)| summary(name, run).0)
            .collect::<Vec<Value>>())
    })
    .await?;
    Ok(Json(json!({ "runs": runs })))
}

/// The listed run called `name`.
fn find_run(service: &Service, name: String) -> Result<(String, Run), ApiError> {
    all_runs(service)?
        .into_iter()
        .find(|(n, _)| *n == name)
        .ok_or(ApiError::UnknownRun(name))
}

/// `GET /api/runs/{name}`: one run's generations.
///
/// # Errors
/// [`ApiError::NoRuns`] without runs; [`ApiError::UnknownRun`] for a
/// name that is not one of the listed runs.
pub async fn get(
    State(service): State<Arc<Service>>,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let (name, run) = find_run(&service, name)?;
    let out = blocking(move || {
        let (mut out, gens) = summary(&name, &run);
        out["rows"] = Value::Array(gens);
        Ok(out)
    })
    .await?;
    Ok(Json(out))
}

/// `GET /api/runs/{name}/games`: the run's newest self-play games (at
/// most [`NEWEST_GAMES`], the newest first), each with its start position
/// and its moves as the lab's move tokens, so `POST /api/games` with
/// `position` and `moves` sets it on the board: `{"variant", "games":
/// [{"generation", "chunk", "index", "start", "moves", "winner" (a side's
/// name or null), "ply_capped"}], "skipped": [...]}`; `generation` is the
/// chunk's ([`selfplay::replay::Chunk::generation`]), `skipped` names the
/// chunks that did not read (corrupt, truncated, other rules).
///
/// # Errors
/// [`ApiError::NoRuns`] without runs; [`ApiError::UnknownRun`];
/// [`ApiError::Internal`] for a run without a readable config or whose
/// config names no known variant, or an unreadable replay folder.
pub async fn games(
    State(service): State<Arc<Service>>,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let (name, run) = find_run(&service, name)?;
    let answer = blocking(move || {
        let config = run.text(CONFIG).ok_or_else(|| {
            ApiError::Internal(format!(
                "run {name}: no readable {CONFIG} (the run's config)"
            ))
        })?;
        let variant: VariantId = config_variant(Some(config))
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| {
                ApiError::Internal(format!("run {name}: its {CONFIG} names no known variant"))
            })?;
        let (games, skipped) = rules::with_variant!(variant, G => newest_games::<G>(&run))?;
        Ok(json!({ "variant": variant.as_str(), "games": games, "skipped": skipped }))
    })
    .await?;
    Ok(Json(answer))
}

/// The newest [`NEWEST_GAMES`] self-play games of `run`, read from its
/// replay chunks, the newest chunk first; a chunk that does not read or
/// replay is skipped and named (by its file or key name, never the
/// server's path) in the second list.
fn newest_games<G: BotGame>(run: &Run) -> Result<(Vec<Value>, Vec<String>), ApiError> {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for (generation, name) in run.chunks()?.iter().rev() {
        let short = name.rsplit('/').next().unwrap_or(name);
        let games = run.chunk(name).and_then(|bytes| {
            let chunk = selfplay::replay::decode_chunk_for::<G>(&bytes, Path::new(short))
                .map_err(|e| ApiError::Internal(e.to_string()))?;
            chunk
                .games
                .iter()
                .enumerate()
                .rev()
                .map(|(index, record)| {
                    let moves = move_tokens::<G>(record).map_err(|e| {
                        ApiError::Internal(format!("{short}: game {}: {e}", index + 1))
                    })?;
                    Ok(json!({
                        "generation": generation,
                        "chunk": short,
                        "index": index,
                        "start": record.start,
                        "moves": moves,
                        "winner": record.winner.map(|p| G::SIDES[usize::from(p == Player::Second)]),
                        "ply_capped": record.ply_capped,
                    }))
                })
                .collect::<Result<Vec<Value>, ApiError>>()
        });
        match games {
            Ok(games) => out.extend(games),
            Err(e) => skipped.push(e.to_string()),
        }
        if out.len() >= NEWEST_GAMES {
            out.truncate(NEWEST_GAMES);
            break;
        }
    }
    Ok((out, skipped))
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
        let (head, gens) = summary("losers-a", &Run::Dir(runs[0].1.clone()));
        assert_eq!(gens.len(), 2);
        assert_eq!(gens[0]["policy_loss"], 2.1);
        assert!(gens[0].get("secret").is_none());
        assert_eq!(head["variant"], "losers");
        assert_eq!(head["generations"], 2);
        // A run folder given itself is its own only run.
        assert_eq!(run_dirs(&run).len(), 1);
    }
}
