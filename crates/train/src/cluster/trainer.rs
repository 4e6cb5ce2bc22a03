//! The trainer of a distributed run (`lokizero train --store URL
//! --trainer-only`, or without `--trainer-only` a trainer that also plays
//! when no generation is due): hold the lease, count new replay chunks
//! from listings, train a generation when enough new games arrived, and
//! publish it (bundle, ledger, pointer, in that order).

use std::collections::{BTreeMap, BTreeSet};
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
use super::pointer::{fetch_bundle, now_unix, read_pointer, upload_bundle, write_pointer, Pointer};
use super::worker::{play_and_upload, Playing};
use crate::config::RunConfig;
use crate::cputime::process_cpu_seconds;
use crate::error::{Result, TrainError};
use crate::metrics::GenerationMetrics;
use crate::run::generation::fit;
use crate::run::report::{mean_target_entropy, print_generation_line, rate};
use crate::run::{progress_bar, shape_for};
use crate::samples::{samples_from_records, ValueTargets};

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
}

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
    oldest_bundle: u32,
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
/// # Errors
/// Another trainer holds the lease, the store holds another variant or
/// network shape, the store stays unreachable past its patience, an empty
/// replay window, or a bundle that cannot be published.
pub fn run_trainer<E: Encode>(
    config: &RunConfig,
    store: Arc<Store>,
    device: &Device,
    options: &TrainerOptions,
) -> Result<Pointer> {
    check_store_config(config)?;
    let _lease = Lease::acquire(store.clone(), options.lease_ttl)?;
    let Opened {
        mut pointer,
        mut net,
        record: mut prev,
        mut lineage,
    } = open::<E>(config, &store, device, options)?;
    let mut replay = Replay {
        seen: ledger::seen_keys(&store, pointer.first_generation + 1, pointer.generation)?,
        ..Default::default()
    };
    let start = super::start_position::<E>(config)?;
    while !pointer.finished() {
        let g = pointer.generation + 1;
        let oldest = g.saturating_sub(config.training.replay_window);
        let window = (oldest, pointer.generation);
        let Some(fresh) = due::<E>(&store, config, &mut replay, window)? else {
            if options.play {
                let playing = Playing {
                    generation: pointer.generation,
                    net: net.clone(),
                };
                play_and_upload(
                    &store,
                    config,
                    &start,
                    ("trainer", &playing),
                    device,
                    options.progress,
                )?;
            } else {
                std::thread::sleep(options.poll);
            }
            continue;
        };
        load_window::<E>(&store, &mut replay, window)?;
        let (trained, metrics) =
            train_generation::<E>(config, (g, net, &prev), &replay, &fresh, device, options)?;
        net = trained;
        // Generations and ancestors carry on; CPU-hours stay unknown (the
        // workers' CPU time is not reported to the trainer).
        lineage = Some(Lineage::at_generation(g, None, lineage.as_ref()));
        pointer = publish::<E>(
            &store,
            config,
            (g, &net, lineage.clone()),
            &metrics,
            &mut replay,
            fresh,
            &pointer,
        )?;
        print_generation_line(&metrics, None);
        prev = metrics;
        let keep_from = (g + 1).saturating_sub(config.training.replay_window);
        replay.cache.retain(|_, (k, _)| k.generation >= keep_from);
    }
    Ok(pointer)
}

/// The newest published generation of a run.
struct Opened {
    pointer: Pointer,
    net: Net,
    /// Its metrics record.
    record: GenerationMetrics,
    /// Its bundle's lineage (the `--init-from` bundle's ancestors).
    lineage: Option<Lineage>,
}

impl Opened {
    /// Generation `pointer` names, with `net` and its bundle's `meta`.
    fn new(pointer: Pointer, net: Net, meta: model::BundleMeta) -> Self {
        Opened {
            pointer,
            net,
            record: GenerationMetrics::from_meta(&meta.training).unwrap_or_default(),
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
            if p.variant != E::VARIANT.as_str() {
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
            eprintln!(
                "resuming {}: generation {} is the last published",
                store.describe(),
                p.generation
            );
            Opened::new(p, net, meta)
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
        variant: E::VARIANT.to_string(),
        generation: g,
        bundle: keys::bundle(g),
        weights_sha256: sha,
        first_generation: g,
        last_generation: g + config.generations,
        published_unix: now_unix(),
    };
    Ok(Opened::new(pointer, net, meta))
}

/// The chunk keys in the replay window (bundle generations `oldest` to
/// `newest`): one listing of `replay/` (objects directly in it, or in a
/// folder that is not a generation's, are noted as skipped, once, with a
/// warning) and one per generation folder in the window, so a poll costs
/// the same however long the run.
fn window_keys(
    store: &Store,
    replay: &mut Replay,
    (oldest, newest): (u32, u32),
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
        if b < oldest || b > newest {
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
    window: (u32, u32),
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
        oldest_bundle: u32::MAX,
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
                fresh.oldest_bundle = fresh.oldest_bundle.min(k.generation);
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
fn load_window<E: Encode>(store: &Store, replay: &mut Replay, window: (u32, u32)) -> Result<()> {
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

/// Train generation `g` from `net` on the cached window; returns the new
/// network and its metrics record.
fn train_generation<E: Encode>(
    config: &RunConfig,
    (g, net, prev): (u32, Net, &GenerationMetrics),
    replay: &Replay,
    fresh: &Fresh,
    device: &Device,
    options: &TrainerOptions,
) -> Result<(Net, GenerationMetrics)> {
    let cpu0 = process_cpu_seconds();
    let t0 = Instant::now();
    let t = &config.training;
    let records: Vec<GameRecord> = replay
        .cache
        .values()
        .flat_map(|(_, r)| r.iter().cloned())
        .collect();
    let samples = samples_from_records::<E>(&records, ValueTargets::from_config(t))
        .map_err(TrainError::Records)?;
    if samples.is_empty() {
        return Err(TrainError::EmptyReplay {
            generation: g,
            hint: String::new(),
        });
    }
    let new_positions: u64 = fresh.counted.iter().map(|c| c.positions).sum();
    let (trained_before, positions_before) =
        (prev.train_samples_total, prev.selfplay_positions_total);
    let steps = t.steps_for(
        paced_positions(new_positions, fresh.games.len(), config),
        trained_before,
        positions_before,
    );
    let lr = t.lr_at(g);
    let pb = progress_bar(options.progress, steps as u64, &format!("train g{g}"));
    let seed = rules::zobrist::key(config.seed ^ 0x7EA1, g as u64);
    let (net, loss) = fit::<E>(net, device, t, (&samples, steps), (lr, seed), &pb)?;
    let seconds = t0.elapsed().as_secs_f64();
    let games = &fresh.games;
    let batch = t.batch_size;
    let mut metrics = GenerationMetrics {
        generation: g,
        selfplay_generation: fresh.oldest_bundle,
        games: games.len(),
        selfplay_positions: new_positions as usize,
        selfplay_plies: games.iter().map(|r| r.actions.len()).sum(),
        replay_games: records.len(),
        replay_samples: samples.len(),
        train_steps: loss.steps,
        learning_rate: lr,
        policy_loss: loss.policy_loss,
        value_loss: loss.value_loss,
        train_seconds: seconds,
        samples_per_second: (loss.steps * batch) as f64 / seconds.max(1e-9),
        draw_rate: rate(games, |r| r.winner.is_none()),
        ply_capped_rate: rate(games, |r| r.ply_capped),
        first_player_win_rate: rate(games, |r| r.winner == Some(rules::Player::First)),
        mean_game_plies: games.iter().map(|r| r.actions.len()).sum::<usize>() as f64
            / games.len().max(1) as f64,
        policy_entropy: loss.policy_entropy,
        policy_target_entropy: mean_target_entropy(games),
        train_samples_total: trained_before + (loss.steps * batch) as u64,
        selfplay_positions_total: positions_before + new_positions,
        ..Default::default()
    };
    metrics.cpu_seconds = match (cpu0, process_cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    metrics.cpu_seconds_total = metrics
        .cpu_seconds
        .map(|c| c + prev.cpu_seconds_total.unwrap_or(0.0));
    Ok((net, metrics))
}

/// Publish generation `g`: its bundle (weights, then `model.json` with the
/// metrics record), its ledger, then the pointer. Returns the new pointer.
fn publish<E: Encode>(
    store: &Store,
    config: &RunConfig,
    (g, net, lineage): (u32, &Net, Option<Lineage>),
    metrics: &GenerationMetrics,
    replay: &mut Replay,
    fresh: Fresh,
    before: &Pointer,
) -> Result<Pointer> {
    let mut meta = meta_for::<E>(&shape_for::<E>(config), g, &[]);
    meta.training = metrics.to_json();
    meta.lineage = lineage;
    let files = bundle_files(net, &meta, Path::new(&keys::bundle(g)))?;
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
