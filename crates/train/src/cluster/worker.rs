//! A self-play worker (`lokizero selfplay --store URL`): follow the
//! pointer, check each new bundle before use, play chunks of games with
//! the newest usable bundle and upload them under keys no other worker
//! can take. It never waits for the trainer: a worker whose bundle is old
//! keeps playing with it until the next chunk boundary, where it looks at
//! the pointer again.

use std::time::{Duration, Instant};

use burn::tensor::Device;
use encoding::Encode;
use model::Net;
use selfplay::replay::encode_chunk;
use selfplay::Games;
use store::Store;

use super::heartbeat::Heartbeat;
use super::keys::{self, ChunkKey};
use super::pointer::{fetch_published, now_unix, read_pointer, Pointer};
use crate::config::RunConfig;
use crate::error::{Result, TrainError};
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

/// Play one chunk of `games_per_chunk` games with `playing` and upload it
/// create-only under a fresh key. Returns its key and counts.
///
/// # Errors
/// A store error (after the store's retries).
pub(crate) fn play_and_upload<E: Encode>(
    store: &Store,
    config: &RunConfig,
    start: &E,
    (worker, playing): (&str, &Playing),
    device: &Device,
    progress: bool,
) -> Result<ChunkKey> {
    let sp = &config.selfplay;
    let seed = rand::random::<u64>();
    // Branched starts (`branch_fraction`) need the previous generation's
    // games, which a worker does not hold: every game starts from `start`.
    let games = Games {
        start,
        branch_starts: &[],
        search: &config.search,
        config: sp,
        count: sp.games_per_chunk,
        seed,
    };
    let pb = crate::run::progress_bar(progress, sp.games_per_chunk as u64, "selfplay");
    // Labelled with the newest generation, like a run directory's parts:
    // the replay window counts them whatever bundle played.
    let g = playing.newest;
    let (chunk, _) = play_chunk(&games, (g + 1, g), (&playing.net, device), || pb.inc(1));
    pb.finish_and_clear();
    let key = ChunkKey {
        generation: g,
        worker: worker.to_string(),
        games: chunk.games.len() as u64,
        positions: chunk.games.iter().map(|r| r.recorded() as u64).sum(),
    };
    let bytes = encode_chunk(&chunk);
    // A fresh random suffix per attempt: `false` (the key exists) can only
    // be this upload's own earlier try, retried after a lost answer.
    store.put_new(&key.key(rand::random()), &bytes)?;
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
        let key = play_and_upload(
            store,
            config,
            &start,
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
