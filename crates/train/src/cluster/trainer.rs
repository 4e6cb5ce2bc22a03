//! The trainer of a distributed run (`lokizero train --store URL
//! --trainer-only`, or without `--trainer-only` a trainer that also plays
//! when no generation is due): hold the lease, count new replay chunks
//! from listings, train a generation when enough new games arrived, and
//! publish it (bundle, ledger, pointer, in that order).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use burn::tensor::Device;
use encoding::Encode;
use model::bundle::{bundle_files, meta_for};
use model::lineage::Lineage;
use model::Net;
use selfplay::replay::decode_chunk_for;
use selfplay::GameRecord;
use store::Store;

use super::keys::{self, ChunkKey};
use super::lease::Lease;
use super::ledger::{self, Counted, Ledger, Skipped};
use super::pointer::{
    fetch_bundle, fetch_published, now_unix, read_pointer, upload_bundle, write_pointer, Pointer,
    Published,
};
use super::worker::{play_and_upload, BranchCache, ChunkStats, Playing};
use crate::config::RunConfig;
use crate::cputime::process_cpu_seconds;
use crate::error::{Result, TrainError};
use crate::metrics::{parse_metrics, push_metrics_line, GenerationMetrics};
use crate::run::generation::{
    assemble, bundle_meta, evaluate, train_on, Best, SelfPlayFigures, TrainJob, Trained,
};
use crate::run::report::{draw_learning_curve, print_generation_line, resign_metrics};
use crate::run::{budget_reached, shape_for};

/// Options of a trainer.
#[derive(Clone, Debug)]
pub struct TrainerOptions {
    /// Show progress bars.
    pub progress: bool,
    /// Play a chunk of self-play itself whenever no generation is due
    /// (`lokizero train --store URL` alone); `false` for a trainer that
    /// only trains (`--trainer-only`).
    pub play: bool,
    /// How long to wait between listings when nothing is due.
    pub poll: Duration,
    /// The lease's time to live.
    pub lease_ttl: Duration,
    /// Start a new run from this local bundle instead of an untrained
    /// network (ignored when the store already has a pointer).
    pub init_from: Option<std::path::PathBuf>,
    /// Stop after the first generation at which this run's
    /// `cpu_seconds_total` has grown by this many seconds since its first
    /// generation (`--cpu-budget`), even before `generations`; the pointer
    /// then names the last generation, so workers stop too. Counts the
    /// trainer's process time and the CPU time the workers report for the
    /// chunks it counted.
    pub cpu_budget_seconds: Option<f64>,
}

/// The worker id of the chunks a trainer plays itself.
const OWN_WORKER: &str = "trainer";

/// The replay chunks the trainer has read, by key.
#[derive(Default)]
struct Replay {
    /// Keys counted or skipped by a published generation.
    seen: BTreeSet<String>,
    /// Decoded chunks of the replay window.
    cache: BTreeMap<String, (ChunkKey, Vec<GameRecord>)>,
    /// Objects skipped since the last publication, with why.
    skipped: BTreeMap<String, String>,
}

/// A generation's new data, read and checked.
struct Fresh {
    counted: Vec<Counted>,
    games: Vec<GameRecord>,
    /// The chunks' self-play figures, merged.
    stats: selfplay::SelfPlayStats,
    /// CPU time the workers spent on the chunks (the trainer's own chunks
    /// are in its process time); `None` when a chunk did not say.
    worker_cpu_seconds: Option<f64>,
}

/// The figures written next to chunk `key`; `None` (with a warning when
/// present but unreadable) without them.
///
/// # Errors
/// A store error.
fn read_chunk_stats(store: &Store, key: &str) -> Result<Option<ChunkStats>> {
    let Some(stats_key) = keys::chunk_stats(key) else {
        return Ok(None);
    };
    let Some(bytes) = store.get(&stats_key)? else {
        return Ok(None);
    };
    let parsed = serde_json::from_slice::<ChunkStats>(&bytes);
    if let Err(e) = &parsed {
        eprintln!("warning: ignoring {}/{stats_key}: {e}", store.describe());
    }
    Ok(parsed.ok())
}

/// Refuse a config that a run in a store cannot honour, before anything
/// is written to the store.
///
/// # Errors
/// [`TrainError::Cluster`] for `[selfplay] branch_book`: refused rather
/// than ignored, as the workers, on other machines, do not have the book
/// file.
pub fn check_store_config(config: &RunConfig) -> Result<()> {
    if config.selfplay.branch_book.is_some() {
        return Err(TrainError::Cluster(
            "[selfplay] branch_book is not supported with --store (the workers do not have the \
             book); remove it from the config"
                .into(),
        ));
    }
    Ok(())
}

/// Run the trainer on `store` for game `E`; returns the final pointer.
///
/// A generation is the local loop's, with self-play from the store: its
/// record is assembled, evaluated (`[eval]`), logged (`metrics.jsonl`,
/// the learning curve) and chained into the lineage by the same code as
/// in a run directory ([`crate::run`](mod@crate::run)).
///
/// # Errors
/// Another trainer holds the lease (or took it over), the store holds
/// another variant or network shape, the store stays unreachable past its
/// patience, an empty replay window, or a bundle that cannot be published.
pub fn run_trainer<E: Encode>(
    config: &RunConfig,
    store: Arc<Store>,
    device: &Device,
    options: &TrainerOptions,
) -> Result<Pointer> {
    check_store_config(config)?;
    let lease = Lease::acquire(store.clone(), options.lease_ttl)?;
    let Opened {
        mut pointer,
        mut net,
        record: mut prev,
        mut lineage,
        mut best,
    } = open::<E>(config, &store, device, options)?;
    let mut replay = Replay {
        seen: ledger::seen_keys(&store, pointer.first_generation + 1, pointer.generation)?,
        ..Default::default()
    };
    let start = super::start_position::<E>(config)?;
    let mut branch = BranchCache::new();
    // CPU time of this process since the last generation: its training,
    // evaluation and the self-play it played itself.
    let mut cpu0 = process_cpu_seconds();
    let first_total = match options.cpu_budget_seconds {
        Some(_) if pointer.generation > pointer.first_generation => {
            record_at(&store, pointer.first_generation)?.and_then(|r| r.cpu_seconds_total)
        }
        _ => prev.cpu_seconds_total,
    };
    while !pointer.finished() {
        if let Some(budget) = options.cpu_budget_seconds {
            let spent = prev.cpu_seconds_total.unwrap_or(0.0) - first_total.unwrap_or(0.0);
            if pointer.generation > pointer.first_generation
                && budget_reached(spent, budget, pointer.generation)
            {
                // The run ends here: workers stop at the pointer.
                pointer.last_generation = pointer.generation;
                lease.check()?;
                write_pointer(&store, &pointer)?;
                break;
            }
        }
        let g = pointer.generation + 1;
        let oldest = g.saturating_sub(config.training.replay_window);
        let window = oldest..=pointer.generation;
        let Some(fresh) = due::<E>(&store, config, &mut replay, &window)? else {
            if options.play {
                let playing = Playing {
                    generation: best.generation,
                    newest: pointer.generation,
                    net: best.net.clone(),
                    resign_threshold: pointer.resign_threshold,
                };
                let starts = branch.starts(&store, config, pointer.generation)?;
                play_and_upload(
                    &store,
                    config,
                    (&start, starts),
                    (OWN_WORKER, &playing),
                    device,
                    options.progress,
                )?;
            } else {
                std::thread::sleep(options.poll);
            }
            continue;
        };
        load_window::<E>(&store, &mut replay, &window)?;
        let trained =
            train_generation::<E>(config, (g, net, &prev), &replay, &fresh, device, options)?;
        let as_best = Best {
            generation: best.generation,
            net: &best.net,
            elo: best.elo,
        };
        let eval = evaluate::<E>(config, g, &trained.net, &as_best, device, options.progress);
        let figures = SelfPlayFigures {
            selfplay_generation: best.generation,
            positions: fresh.counted.iter().map(|c| c.positions as usize).sum(),
            plies: fresh.games.iter().map(|r| r.actions.len()).sum(),
            seconds: 0.0,
            reused_games: 0,
            positions_per_second: None,
            games_per_hour: None,
        };
        let mut metrics = assemble(
            config,
            (g, &prev, cpu0),
            (&fresh.games, figures),
            &trained,
            eval.as_ref().map(|e| (e, best.elo)),
        );
        // The workers' self-play counts with the trainer's own time.
        let cpu_known = fresh.worker_cpu_seconds.is_some();
        metrics.cpu_seconds = metrics
            .cpu_seconds
            .map(|c| c + fresh.worker_cpu_seconds.unwrap_or(0.0));
        metrics.cpu_seconds_total = metrics
            .cpu_seconds
            .map(|c| c + prev.cpu_seconds_total.unwrap_or(0.0));
        if config.selfplay.resign {
            let threshold = pointer
                .resign_threshold
                .unwrap_or(config.selfplay.resign_threshold)
                .min(config.selfplay.resign_threshold_max);
            metrics.resign = Some(resign_metrics(&config.selfplay, threshold, &fresh.stats));
        }
        net = trained.net;
        if metrics.promoted.unwrap_or(true) {
            best = BestNet {
                generation: g,
                net: net.clone(),
                elo: metrics.elo,
            };
        }
        // A trainer whose lease was taken over publishes nothing more.
        lease.check()?;
        // The lineage's CPU-hours are known while every chunk reported its
        // CPU time.
        let cpu_total = metrics.cpu_seconds_total.filter(|_| cpu_known);
        let meta = bundle_meta::<E>(config, &metrics, (lineage.as_ref(), cpu_total));
        lineage = meta.lineage.clone();
        let next = Pointer {
            selfplay: best.published(&store, &pointer)?,
            resign_threshold: metrics
                .resign
                .as_ref()
                .map(|r| r.resign_threshold_next as f32)
                .or(pointer.resign_threshold),
            ..pointer.clone()
        };
        pointer = publish(&store, (&net, &meta), &mut replay, fresh, &next)?;
        append_store_metrics(&store, &metrics)?;
        if config.eval.enabled {
            upload_learning_curve::<E>(&store);
        }
        print_generation_line(&metrics, eval.as_ref());
        prev = metrics;
        cpu0 = process_cpu_seconds();
        let keep_from = (g + 1).saturating_sub(config.training.replay_window);
        replay.cache.retain(|_, (k, _)| k.generation >= keep_from);
    }
    if config.eval.enabled {
        upload_learning_curve::<E>(&store);
    }
    Ok(pointer)
}

/// The generation self-play uses (the newest promoted one).
struct BestNet {
    generation: u32,
    net: Net,
    /// Its chained Elo (0 for the run's first generation when untrained).
    elo: Option<f64>,
}

impl BestNet {
    /// The pointer's [`Pointer::selfplay`] for a publication after
    /// `before`: `None` while self-play uses the newest generation.
    fn published(&self, store: &Store, before: &Pointer) -> Result<Option<Published>> {
        if self.generation == before.generation + 1 {
            return Ok(None);
        }
        if let Some(p) = before
            .selfplay
            .as_ref()
            .filter(|p| p.generation == self.generation)
        {
            return Ok(Some(p.clone()));
        }
        if self.generation == before.generation {
            return Ok(Some(before.playing()));
        }
        published_at(store, self.generation).map(Some)
    }
}

/// The `model.json` of published generation `g`.
///
/// # Errors
/// A store error, a missing or unreadable `model.json` (named).
fn meta_at(store: &Store, g: u32) -> Result<serde_json::Value> {
    let key = format!("{}/{}", keys::bundle(g), model::bundle::META_FILE);
    store
        .get(&key)?
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .ok_or_else(|| {
            TrainError::Cluster(format!("{}/{key}: missing or unreadable", store.describe()))
        })
}

/// The published bundle of generation `g` (its weights' sha256 from its
/// `model.json`).
fn published_at(store: &Store, g: u32) -> Result<Published> {
    let meta = meta_at(store, g)?;
    let sha = meta
        .get("weights_sha256")
        .and_then(|v| v.as_str())
        .ok_or_else(|| {
            TrainError::Cluster(format!(
                "{}/{}: no weights_sha256",
                store.describe(),
                keys::bundle(g)
            ))
        })?;
    Ok(Published {
        generation: g,
        bundle: keys::bundle(g),
        weights_sha256: sha.to_string(),
    })
}

/// The metrics record of published generation `g` (`None` for an
/// untrained first generation).
///
/// # Errors
/// A missing or unreadable `model.json`.
fn record_at(store: &Store, g: u32) -> Result<Option<GenerationMetrics>> {
    Ok(meta_at(store, g)?
        .get("training")
        .and_then(GenerationMetrics::from_meta))
}

/// Append `metrics` to the store's `metrics.jsonl` (read, extended and
/// written whole: the trainer is its one writer).
///
/// # Errors
/// A store error.
fn append_store_metrics(store: &Store, metrics: &GenerationMetrics) -> Result<()> {
    let mut text = store
        .get(keys::METRICS)?
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    push_metrics_line(&mut text, metrics);
    store.put(keys::METRICS, text.as_bytes())?;
    Ok(())
}

/// Give every published generation after the first its line in
/// `metrics.jsonl`: a trainer killed between the pointer and the log
/// loses the newest line, restored from the record its bundle carries.
///
/// # Errors
/// A store error, an unreadable log or `model.json`.
fn restore_store_metrics(store: &Store, pointer: &Pointer) -> Result<()> {
    let label = format!("{}/{}", store.describe(), keys::METRICS);
    let logged: Vec<u32> = match store.get(keys::METRICS)? {
        Some(b) => parse_metrics(&String::from_utf8_lossy(&b), &label)?
            .iter()
            .map(|r| r.generation)
            .collect(),
        None => Vec::new(),
    };
    for g in pointer.first_generation + 1..=pointer.generation {
        if logged.contains(&g) {
            continue;
        }
        if let Some(record) = record_at(store, g)? {
            append_store_metrics(store, &record)?;
        }
    }
    Ok(())
}

/// Redraw `learning-curve.png` in the store from its `metrics.jsonl`. A
/// chart is a convenience: a failure is reported and the run goes on.
fn upload_learning_curve<E: Encode>(store: &Store) {
    if let Err(e) = try_upload_learning_curve::<E>(store) {
        eprintln!("warning: {e}");
    }
}

/// [`upload_learning_curve`], failures returned.
fn try_upload_learning_curve<E: Encode>(store: &Store) -> Result<()> {
    let label = format!("{}/{}", store.describe(), keys::METRICS);
    let Some(bytes) = store.get(keys::METRICS)? else {
        return Ok(());
    };
    let records = parse_metrics(&String::from_utf8_lossy(&bytes), &label)?;
    let tmp = std::env::temp_dir().join(format!(
        "lokizero-curve-{}-{:016x}.png",
        std::process::id(),
        rand::random::<u64>()
    ));
    let uploaded = (|| {
        if draw_learning_curve::<E>(&records, &tmp)? {
            let png = std::fs::read(&tmp).map_err(TrainError::io("read", &tmp))?;
            store.put(keys::LEARNING_CURVE, &png)?;
        }
        Ok(())
    })();
    let _ = std::fs::remove_file(&tmp);
    uploaded
}

/// The newest published generation of a run.
struct Opened {
    pointer: Pointer,
    net: Net,
    /// Its metrics record.
    record: GenerationMetrics,
    /// Its bundle's lineage (the `--init-from` bundle's ancestors).
    lineage: Option<Lineage>,
    /// The generation self-play uses.
    best: BestNet,
}

impl Opened {
    /// Generation `pointer` names, with `net` and its bundle's `meta`;
    /// self-play uses it.
    fn new(pointer: Pointer, net: Net, meta: model::BundleMeta) -> Self {
        let record = GenerationMetrics::from_meta(&meta.training);
        // An untrained first generation is the origin of the Elo chain.
        let elo = match &record {
            None => Some(0.0),
            Some(r) => r.elo,
        };
        Opened {
            best: BestNet {
                generation: pointer.generation,
                net: net.clone(),
                elo,
            },
            pointer,
            net,
            record: record.unwrap_or_default(),
            lineage: meta.lineage,
        }
    }
}

/// Check the store against the config (or start the run in it), write the
/// config, and return the newest generation.
fn open<E: Encode>(
    config: &RunConfig,
    store: &Store,
    device: &Device,
    options: &TrainerOptions,
) -> Result<Opened> {
    let shape = shape_for::<E>(config);
    let existing = read_pointer(store)?;
    let opened = match existing {
        Some(mut p) => {
            if p.variant != E::VARIANT {
                return Err(TrainError::Mismatch(format!(
                    "store {} holds a {} run, the config is for {}; use another --store prefix",
                    store.describe(),
                    p.variant,
                    E::VARIANT
                )));
            }
            let (net, meta) = fetch_bundle::<E>(store, &p, device)?;
            if meta.shape != shape {
                return Err(TrainError::Mismatch(format!(
                    "store {} holds a network of shape {:?}, the config asks for {:?}",
                    store.describe(),
                    meta.shape,
                    shape
                )));
            }
            p.last_generation = p.first_generation + config.generations;
            if p.generation < p.last_generation {
                eprintln!(
                    "resuming {}: generation {} is the last published, continuing with {}",
                    store.describe(),
                    p.generation,
                    p.generation + 1
                );
            } else {
                eprintln!(
                    "{}: generation {} is the last published; this run asks for generations up to {}, so there is nothing to train (a larger --generations trains more)",
                    store.describe(),
                    p.generation,
                    p.last_generation
                );
            }
            restore_store_metrics(store, &p)?;
            let mut opened = Opened::new(p, net, meta);
            if let Some(s) = opened.pointer.selfplay.clone() {
                let (net, meta) = fetch_published::<E>(store, &s, device)?;
                let record = GenerationMetrics::from_meta(&meta.training);
                opened.best = BestNet {
                    generation: s.generation,
                    net,
                    elo: match record {
                        None => Some(0.0),
                        Some(r) => r.elo,
                    },
                };
            }
            opened
        }
        None => first_bundle::<E>(config, store, device, options)?,
    };
    let text = toml::to_string(config)?;
    store.put(keys::CONFIG, text.as_bytes())?;
    write_pointer(store, &opened.pointer)?;
    Ok(opened)
}

/// Publish the run's first bundle (untrained, or `--init-from`'s).
fn first_bundle<E: Encode>(
    config: &RunConfig,
    store: &Store,
    device: &Device,
    options: &TrainerOptions,
) -> Result<Opened> {
    let shape = shape_for::<E>(config);
    let (net, meta) = match options.init_from.as_deref().or(config.init_from.as_deref()) {
        Some(path) => {
            let (net, meta) =
                model::load_bundle::<E>(path, device).map_err(|source| TrainError::InitFrom {
                    path: path.to_path_buf(),
                    source,
                })?;
            if meta.shape != shape {
                return Err(TrainError::Mismatch(format!(
                    "--init-from {}: the bundle's network shape differs from the config's",
                    path.display()
                )));
            }
            (net, meta)
        }
        None => (Net::new(&shape, device), meta_for::<E>(&shape, 0, &[])),
    };
    let g = meta.generation;
    let files = bundle_files(&net, &meta, Path::new(&keys::bundle(g)))?;
    upload_bundle(store, g, &files)?;
    let sha = model::bundle::sha256_hex(&files.weights);
    let pointer = Pointer {
        variant: E::VARIANT,
        generation: g,
        bundle: keys::bundle(g),
        weights_sha256: sha,
        first_generation: g,
        last_generation: g + config.generations,
        published_unix: now_unix(),
        selfplay: None,
        resign_threshold: None,
    };
    Ok(Opened::new(pointer, net, meta))
}

/// The chunk keys in the replay `window` (the bundle generations, oldest
/// to newest): one listing of `replay/` (objects directly in it, or in a
/// folder that is not a generation's, are noted as skipped, once, with a
/// warning) and one per generation folder in the window, so a poll costs
/// the same however long the run.
fn window_keys(
    store: &Store,
    replay: &mut Replay,
    window: &RangeInclusive<u32>,
) -> Result<Vec<(String, ChunkKey)>> {
    let (loose, folders) = store.list_folder(keys::REPLAY)?;
    for o in loose {
        if !replay.seen.contains(&o.key) && !replay.skipped.contains_key(&o.key) {
            skip(store, replay, &o.key, "not a replay chunk key".into());
        }
    }
    let mut found = Vec::new();
    for folder in folders {
        let Some(b) = keys::parse_replay_folder(&folder) else {
            if !replay.seen.contains(&folder) && !replay.skipped.contains_key(&folder) {
                skip(
                    store,
                    replay,
                    &folder,
                    "not a generation folder (replay/gen-GGGGGG/)".into(),
                );
            }
            continue;
        };
        if !window.contains(&b) {
            continue;
        }
        for o in store.list(&folder)? {
            match ChunkKey::parse(&o.key) {
                Some(k) => found.push((o.key, k)),
                None if replay.seen.contains(&o.key) || replay.skipped.contains_key(&o.key) => {}
                None => skip(store, replay, &o.key, "not a replay chunk key".into()),
            }
        }
    }
    Ok(found)
}

/// The chunks in the window not yet seen; when they hold
/// `games_per_generation` games, read and check them; `None` while fewer
/// valid games have arrived.
fn due<E: Encode>(
    store: &Store,
    config: &RunConfig,
    replay: &mut Replay,
    window: &RangeInclusive<u32>,
) -> Result<Option<Fresh>> {
    let mut new = Vec::new();
    for (key, k) in window_keys(store, replay, window)? {
        if replay.seen.contains(&key)
            || replay.skipped.contains_key(&key)
            || replay.cache.contains_key(&key)
        {
            continue;
        }
        new.push((key, k));
    }
    let wanted = config.selfplay.games_per_generation as u64;
    if new.iter().map(|(_, k)| k.games).sum::<u64>() < wanted {
        return Ok(None);
    }
    let mut fresh = Fresh {
        counted: Vec::new(),
        games: Vec::new(),
        stats: selfplay::SelfPlayStats::default(),
        worker_cpu_seconds: Some(0.0),
    };
    for (key, k) in new {
        let Some(bytes) = store.get(&key)? else {
            continue;
        };
        match decode_chunk_for::<E>(&bytes, Path::new(&format!("{}/{key}", store.describe()))) {
            Ok(chunk) => {
                fresh.counted.push(Counted {
                    key: key.clone(),
                    games: chunk.games.len() as u64,
                    positions: chunk.games.iter().map(|r| r.recorded() as u64).sum(),
                });
                let figures = read_chunk_stats(store, &key)?;
                let own = k.worker == OWN_WORKER;
                fresh.worker_cpu_seconds = match (&figures, own) {
                    (_, true) => fresh.worker_cpu_seconds,
                    (Some(f), false) => fresh
                        .worker_cpu_seconds
                        .zip(f.cpu_seconds)
                        .map(|(a, b)| a + b),
                    (None, false) => None,
                };
                if let Some(f) = figures {
                    fresh.stats.merge(f.stats);
                }
                fresh.games.extend(chunk.games.iter().cloned());
                replay.cache.insert(key, (k, chunk.games));
            }
            Err(e) => skip(store, replay, &key, e.to_string()),
        }
    }
    if (fresh.games.len() as u64) < wanted {
        // Some were damaged: they stay cached and count with the next ones.
        for c in &fresh.counted {
            replay.cache.remove(&c.key);
        }
        return Ok(None);
    }
    Ok(Some(fresh))
}

/// Note `key` as skipped for `reason`, with a warning naming it.
fn skip(store: &Store, replay: &mut Replay, key: &str, reason: String) {
    eprintln!("warning: skipping {}/{key}: {reason}", store.describe());
    replay.skipped.insert(key.to_string(), reason);
}

/// Read the chunks of the window that earlier generations counted and the
/// cache lacks (after a restart).
fn load_window<E: Encode>(
    store: &Store,
    replay: &mut Replay,
    window: &RangeInclusive<u32>,
) -> Result<()> {
    for (key, k) in window_keys(store, replay, window)? {
        if !replay.seen.contains(&key) || replay.cache.contains_key(&key) {
            continue;
        }
        let Some(bytes) = store.get(&key)? else {
            continue;
        };
        match decode_chunk_for::<E>(&bytes, Path::new(&format!("{}/{key}", store.describe()))) {
            Ok(chunk) => {
                replay.cache.insert(key, (k, chunk.games));
            }
            Err(e) => eprintln!("warning: skipping {}/{key}: {e}", store.describe()),
        }
    }
    Ok(())
}

/// Train generation `g` from `net` on the cached window.
fn train_generation<E: Encode>(
    config: &RunConfig,
    (g, net, prev): (u32, Net, &GenerationMetrics),
    replay: &Replay,
    fresh: &Fresh,
    device: &Device,
    options: &TrainerOptions,
) -> Result<Trained> {
    let t0 = Instant::now();
    let records: Vec<GameRecord> = replay
        .cache
        .values()
        .flat_map(|(_, r)| r.iter().cloned())
        .collect();
    let new_positions: u64 = fresh.counted.iter().map(|c| c.positions).sum();
    let job = TrainJob {
        config,
        g,
        records: &records,
        new_positions: paced_positions(new_positions, fresh.games.len(), config),
        prev,
        seed: rules::zobrist::key(config.seed ^ 0x7EA1, g as u64),
        progress: options.progress,
        resign_threshold: None,
    };
    train_on::<E>(&job, net, device, t0)
}

/// Publish a generation: its bundle (weights, then `model.json` with
/// `meta`, which holds its metrics record), its ledger, then the pointer
/// (`before` with the new generation). Returns the new pointer.
fn publish(
    store: &Store,
    (net, meta): (&Net, &model::BundleMeta),
    replay: &mut Replay,
    fresh: Fresh,
    before: &Pointer,
) -> Result<Pointer> {
    let g = meta.generation;
    let files = bundle_files(net, meta, Path::new(&keys::bundle(g)))?;
    upload_bundle(store, g, &files)?;
    let skipped = std::mem::take(&mut replay.skipped);
    let ledger = Ledger {
        generation: g,
        counted: fresh.counted,
        skipped: skipped
            .into_iter()
            .map(|(key, reason)| Skipped { key, reason })
            .collect(),
    };
    ledger.write(store)?;
    replay
        .seen
        .extend(ledger.counted.iter().map(|c| c.key.clone()));
    replay
        .seen
        .extend(ledger.skipped.iter().map(|s| s.key.clone()));
    let pointer = Pointer {
        generation: g,
        bundle: keys::bundle(g),
        weights_sha256: model::bundle::sha256_hex(&files.weights),
        published_unix: now_unix(),
        ..before.clone()
    };
    write_pointer(store, &pointer)?;
    Ok(pointer)
}

/// The new positions a generation's steps are sized for: all of them, but
/// no more than `games_per_generation` games' worth. When workers outpace
/// the trainer a generation takes every new chunk (nothing is dropped) yet
/// trains as many steps as one of the single-process `train`, so its time
/// stays steady instead of growing with the backlog.
fn paced_positions(new_positions: u64, new_games: usize, config: &RunConfig) -> u64 {
    let wanted = config.selfplay.games_per_generation;
    if new_games <= wanted {
        return new_positions;
    }
    (new_positions as f64 * wanted as f64 / new_games as f64).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backlog_trains_one_generations_worth_of_steps() {
        let mut config: RunConfig =
            RunConfig::from_toml("variant = \"shakti\"\ngenerations = 1", "t").unwrap();
        config.selfplay.games_per_generation = 100;
        assert_eq!(paced_positions(5000, 100, &config), 5000);
        assert_eq!(paced_positions(3000, 60, &config), 3000);
        assert_eq!(paced_positions(20000, 400, &config), 5000);
    }
}
