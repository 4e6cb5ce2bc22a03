//! A self-play worker (`lokizero selfplay --store URL`): follow the
//! pointer, check each new bundle before use, play chunks of games with
//! the newest usable bundle and upload them under keys no other worker
//! can take. It never waits for the trainer: a worker whose bundle is old
//! keeps playing with it until the next chunk boundary, where it looks at
//! the pointer again.

use std::path::Path;
use std::time::{Duration, Instant};

use burn::tensor::Device;
use encoding::Encode;
use model::Net;
use selfplay::replay::{decode_chunk_for, encode_chunk};
use selfplay::{Games, SelfPlayConfig};
use serde::{Deserialize, Serialize};
use store::Store;

use super::heartbeat::Heartbeat;
use super::keys::{self, ChunkKey};
use super::pointer::{fetch_published, now_unix, read_pointer, Pointer};
use crate::config::RunConfig;
use crate::cputime::process_cpu_seconds;
use crate::error::{Result, TrainError};
use crate::run::branch::BranchPool;
use crate::run::seed_for;
use crate::run::selfplay_phase::play_chunk;

/// Options of a worker.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The worker's id (`[A-Za-z0-9_.]`, unique among the run's workers).
    pub worker: String,
    /// Stop after uploading this many chunks (`None`: until the run is
    /// finished).
    pub max_chunks: Option<u64>,
    /// How long to wait between looks at an unchanged store.
    pub poll: Duration,
    /// Show a progress bar per chunk.
    pub progress: bool,
}

/// What a worker did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerSummary {
    /// Chunks uploaded.
    pub chunks: u64,
    /// Games uploaded.
    pub games: u64,
    /// Training positions uploaded.
    pub positions: u64,
}

/// The network a worker plays with.
pub(crate) struct Playing {
    /// Its generation.
    pub generation: u32,
    /// The newest published generation when it was chosen (the chunks'
    /// label: the same as `generation` unless `[eval] gate` keeps
    /// self-play on an older one).
    pub newest: u32,
    /// The network.
    pub net: Net,
    /// The resignation threshold the trainer calibrated (`None`: the
    /// config's).
    pub resign_threshold: Option<f32>,
}

/// The self-play figures of one chunk, written next to it
/// ([`keys::chunk_stats`]) for the trainer: what the chunk's games alone
/// do not tell (resignation samples, CPU time).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ChunkStats {
    /// The counts and resignation samples of the chunk's self-play.
    pub stats: selfplay::SelfPlayStats,
    /// CPU time the playing process spent on the chunk (all threads);
    /// `None` where the platform does not say.
    pub cpu_seconds: Option<f64>,
    /// The resignation threshold the games were played with.
    pub resign_threshold: f32,
}

/// The run config the trainer wrote into `store`, `None` before it did.
///
/// # Errors
/// A store error or a config that does not parse (named).
pub fn read_config(store: &Store) -> Result<Option<RunConfig>> {
    let Some(bytes) = store.get(keys::CONFIG)? else {
        return Ok(None);
    };
    let label = format!("{}/{}", store.describe(), keys::CONFIG);
    let text = String::from_utf8_lossy(&bytes);
    Ok(Some(RunConfig::from_toml(&text, &label)?))
}

/// Follow the pointer: load the bundle self-play should use
/// ([`Pointer::playing`]) when it is another generation than `playing`'s.
/// A bundle that does not load for `E` (another variant, a checksum
/// mismatch) is refused with a warning naming it, once, and the worker
/// keeps its current network.
pub(crate) fn follow<E: Encode>(
    store: &Store,
    pointer: &Pointer,
    playing: &mut Option<Playing>,
    refused: &mut Vec<u32>,
    device: &Device,
) {
    let wanted = pointer.playing();
    if let Some(p) = playing
        .as_mut()
        .filter(|p| p.generation == wanted.generation)
    {
        p.newest = p.newest.max(pointer.generation);
        p.resign_threshold = pointer.resign_threshold;
        return;
    }
    if refused.contains(&wanted.generation) {
        return;
    }
    match fetch_published::<E>(store, &wanted, device) {
        Ok((net, _)) => {
            eprintln!("playing with generation {}", wanted.generation);
            *playing = Some(Playing {
                generation: wanted.generation,
                newest: pointer.generation,
                net,
                resign_threshold: pointer.resign_threshold,
            });
        }
        Err(e) => {
            eprintln!(
                "warning: refusing bundle {}/{}: {e}",
                store.describe(),
                wanted.bundle
            );
            refused.push(wanted.generation);
        }
    }
}

/// Branch starts (`[selfplay] branch_fraction`) for the chunks labelled
/// with one generation, cached until the label changes.
pub(crate) struct BranchCache<E> {
    label: Option<u32>,
    starts: Vec<E>,
}

impl<E: Encode> BranchCache<E> {
    /// An empty cache.
    pub(crate) fn new() -> Self {
        BranchCache {
            label: None,
            starts: Vec::new(),
        }
    }

    /// The branch starts of chunks labelled `newest`: positions of the
    /// previous generation's games, the chunks labelled `newest - 1`
    /// (drawn as in a run directory, [`BranchPool`]). Read once per label;
    /// a chunk that does not decode is skipped with a warning.
    ///
    /// # Errors
    /// A store error.
    pub(crate) fn starts(
        &mut self,
        store: &Store,
        config: &RunConfig,
        newest: u32,
    ) -> Result<&[E]> {
        if self.label != Some(newest) {
            self.starts = branch_starts::<E>(store, config, newest)?;
            self.label = Some(newest);
        }
        Ok(&self.starts)
    }
}

/// See [`BranchCache::starts`].
fn branch_starts<E: Encode>(store: &Store, config: &RunConfig, newest: u32) -> Result<Vec<E>> {
    let sp = &config.selfplay;
    if sp.branch_fraction <= 0.0 || newest == 0 {
        return Ok(Vec::new());
    }
    // The seed a run directory uses for the same target generation.
    let mut pool = BranchPool::new(sp, seed_for(config, newest + 1, u32::MAX));
    for o in store.list(&keys::replay_folder(newest - 1))? {
        if ChunkKey::parse(&o.key).is_none() {
            continue;
        }
        let Some(bytes) = store.get(&o.key)? else {
            continue;
        };
        let label = format!("{}/{}", store.describe(), o.key);
        match decode_chunk_for::<E>(&bytes, Path::new(&label)) {
            Ok(chunk) => chunk.games.iter().for_each(|r| pool.add(r)),
            Err(e) => eprintln!("warning: branch starts: skipping {label}: {e}"),
        }
    }
    Ok(pool.starts())
}

/// Play one chunk of `games_per_chunk` games with `playing` from `start`
/// (and, for `branch_fraction` of them, from `branch_starts`) and upload
/// it create-only under a fresh key. Returns its key and counts.
///
/// # Errors
/// A store error (after the store's retries).
pub(crate) fn play_and_upload<E: Encode>(
    store: &Store,
    config: &RunConfig,
    (start, branch_starts): (&E, &[E]),
    (worker, playing): (&str, &Playing),
    device: &Device,
    progress: bool,
) -> Result<ChunkKey> {
    let sp = &SelfPlayConfig {
        resign_threshold: playing
            .resign_threshold
            .unwrap_or(config.selfplay.resign_threshold)
            .min(config.selfplay.resign_threshold_max),
        ..config.selfplay.clone()
    };
    let seed = rand::random::<u64>();
    let cpu0 = process_cpu_seconds();
    let games = Games {
        start,
        branch_starts,
        search: &config.search,
        config: sp,
        count: sp.games_per_chunk,
        seed,
    };
    let pb = crate::run::progress_bar(progress, sp.games_per_chunk as u64, "selfplay");
    // Labelled with the newest generation, like a run directory's parts:
    // the replay window counts them whatever bundle played.
    let g = playing.newest;
    let playing_net = (&playing.net, device, config.network.precision);
    let (chunk, stats) = play_chunk(&games, (g + 1, g), playing_net, || pb.inc(1));
    pb.finish_and_clear();
    let key = ChunkKey {
        generation: g,
        worker: worker.to_string(),
        games: chunk.games.len() as u64,
        positions: chunk.games.iter().map(|r| r.recorded() as u64).sum(),
    };
    let bytes = encode_chunk(&chunk);
    let figures = ChunkStats {
        stats,
        cpu_seconds: match (cpu0, process_cpu_seconds()) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        },
        resign_threshold: sp.resign_threshold,
    };
    // A fresh random suffix per attempt: `false` (the key exists) can only
    // be this upload's own earlier try, retried after a lost answer. The
    // figures go first, so a counted chunk has them.
    let chunk_key = key.key(rand::random());
    if let Some(stats_key) = keys::chunk_stats(&chunk_key) {
        let text = serde_json::to_vec(&figures).unwrap_or_default();
        store.put_new(&stats_key, &text)?;
    }
    store.put_new(&chunk_key, &bytes)?;
    Ok(key)
}

/// Run a worker on `store` for game `E` with the run's `config`, until the
/// run is finished or `max_chunks` chunks are uploaded.
///
/// # Errors
/// A store that stays unreachable past its patience, or a bad worker id.
pub fn run_worker<E: Encode>(
    store: &Store,
    config: &RunConfig,
    device: &Device,
    options: &WorkerOptions,
) -> Result<WorkerSummary> {
    if !keys::valid_worker(&options.worker) {
        return Err(TrainError::Cluster(format!(
            "worker id {:?}: use 1-64 characters of A-Z a-z 0-9 _ .",
            options.worker
        )));
    }
    let start = super::start_position::<E>(config)?;
    let mut branch = BranchCache::new();
    let (mut playing, mut refused) = (None, Vec::new());
    let mut done = WorkerSummary::default();
    let mut beat = Heartbeat {
        worker: options.worker.clone(),
        started_unix: now_unix(),
        ..Default::default()
    };
    let t0 = Instant::now();
    loop {
        let pointer = read_pointer(store)?;
        if let Some(p) = &pointer {
            if p.finished() {
                eprintln!("run finished at generation {}; worker stops", p.generation);
                return Ok(done);
            }
            follow::<E>(store, p, &mut playing, &mut refused, device);
        }
        let Some(current) = &playing else {
            std::thread::sleep(options.poll);
            continue;
        };
        let starts = branch.starts(store, config, current.newest)?;
        let key = play_and_upload(
            store,
            config,
            (&start, starts),
            (&options.worker, current),
            device,
            options.progress,
        )?;
        done.chunks += 1;
        done.games += key.games;
        done.positions += key.positions;
        beat.generation = current.generation;
        beat.games = done.games;
        beat.positions = done.positions;
        beat.positions_per_second = done.positions as f64 / t0.elapsed().as_secs_f64().max(1e-9);
        beat.updated_unix = now_unix();
        beat.write(store)?;
        if options.max_chunks.is_some_and(|m| done.chunks >= m) {
            return Ok(done);
        }
    }
}
