//! The store's key layout (one place; `docs/distributed.md` describes it
//! for readers in other languages).

/// The run config the trainer writes and workers read.
pub const CONFIG: &str = "config.toml";
/// The pointer to the newest published bundle ([`super::pointer`](mod@super::pointer)).
pub const POINTER: &str = "latest.json";
/// The trainer's lease ([`super::lease`]).
pub const LEASE: &str = "lease.json";
/// Folder of the replay chunks.
pub const REPLAY: &str = "replay/";
/// Folder of the workers' heartbeats.
pub const HEARTBEATS: &str = "heartbeats/";
/// Folder of the per-generation ledgers ([`super::ledger`]).
pub const LEDGER: &str = "ledger/";
/// The metrics log: one JSON line per published generation.
pub const METRICS: &str = "metrics.jsonl";
/// The learning-curve chart (with `[eval]`).
pub const LEARNING_CURVE: &str = "learning-curve.png";
/// Folder of the bundles.
pub const CHECKPOINTS: &str = "checkpoints/";

/// Folder of the bundle of generation `g` (the same name as in a run
/// directory, so `lokizero play --model STORE/checkpoints/gen-000003`
/// works on a local store).
pub fn bundle(g: u32) -> String {
    format!("{CHECKPOINTS}gen-{g:06}")
}

/// The ledger of generation `g`.
pub fn ledger(g: u32) -> String {
    format!("{LEDGER}gen-{g:06}.json")
}

/// The folder of the chunks played by the bundle of generation `b`.
pub fn replay_folder(b: u32) -> String {
    format!("{REPLAY}gen-{b:06}/")
}

/// The generation of a folder made by [`replay_folder`]; `None` for any
/// other folder.
pub fn parse_replay_folder(folder: &str) -> Option<u32> {
    let g = folder
        .strip_prefix(REPLAY)?
        .strip_prefix("gen-")?
        .strip_suffix('/')?;
    (g.len() == 6).then(|| g.parse().ok()).flatten()
}

/// Folder of the chunks' self-play figures ([`chunk_stats`]).
pub const STATS: &str = "stats/";

/// The self-play figures of the chunk `chunk_key`
/// (`stats/gen-GGGGGG/WORKER-SUFFIX-gGAMES-pPOSITIONS.json`, written just
/// before the chunk); `None` for a key that is not a chunk's.
pub fn chunk_stats(chunk_key: &str) -> Option<String> {
    ChunkKey::parse(chunk_key)?;
    let rest = chunk_key.strip_prefix(REPLAY)?.strip_suffix(".bin")?;
    Some(format!("{STATS}{rest}.json"))
}

/// The heartbeat of worker `worker`.
pub fn heartbeat(worker: &str) -> String {
    format!("{HEARTBEATS}{worker}.json")
}

/// What a replay chunk's key says about it, without reading it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkKey {
    /// The newest published generation when the games were played (the
    /// playing bundle's, unless `[eval] gate` keeps self-play on an older
    /// one).
    pub generation: u32,
    /// The worker that wrote it.
    pub worker: String,
    /// Games in the chunk.
    pub games: u64,
    /// Recorded (training) positions in the chunk.
    pub positions: u64,
}

impl ChunkKey {
    /// `replay/gen-GGGGGG/WORKER-SUFFIX-gGAMES-pPOSITIONS.bin`: the worker
    /// id and a random 64-bit suffix make it unique among all workers, the
    /// counts let a listing tell how much new data there is.
    pub fn key(&self, suffix: u64) -> String {
        format!(
            "{REPLAY}gen-{:06}/{}-{suffix:016x}-g{}-p{}.bin",
            self.generation, self.worker, self.games, self.positions
        )
    }

    /// Parse a key made by [`ChunkKey::key`]; `None` for any other key (a
    /// foreign object).
    pub fn parse(key: &str) -> Option<ChunkKey> {
        let rest = key.strip_prefix(REPLAY)?.strip_prefix("gen-")?;
        let (generation, name) = rest.split_once('/')?;
        let name = name.strip_suffix(".bin")?;
        let mut parts = name.rsplitn(4, '-');
        let positions = parts.next()?.strip_prefix('p')?.parse().ok()?;
        let games = parts.next()?.strip_prefix('g')?.parse().ok()?;
        let suffix = parts.next()?;
        let worker = parts.next()?;
        let valid = suffix.len() == 16 && suffix.bytes().all(|b| b.is_ascii_hexdigit());
        if !(valid && generation.len() == 6 && valid_worker(worker)) {
            return None;
        }
        Some(ChunkKey {
            generation: generation.parse().ok()?,
            worker: worker.to_string(),
            games,
            positions,
        })
    }
}

/// A worker id: 1-64 characters of `[A-Za-z0-9_.]` (no `-` or `/`, so keys
/// parse back).
pub fn valid_worker(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_keys_round_trip_and_foreign_keys_do_not_parse() {
        let k = ChunkKey {
            generation: 3,
            worker: "box7_a".into(),
            games: 40,
            positions: 2311,
        };
        let key = k.key(0xdead_beef);
        assert_eq!(
            key,
            "replay/gen-000003/box7_a-00000000deadbeef-g40-p2311.bin"
        );
        assert_eq!(ChunkKey::parse(&key), Some(k));
        for foreign in [
            "replay/notes.txt",
            "replay/gen-000003/x.bin",
            "replay/gen-3/w-00000000deadbeef-g1-p2.bin",
            "replay/gen-000003/w-xyz-g1-p2.bin",
            "replay/gen-000003/w-00000000deadbeef-g1-p2.bin.tmp",
        ] {
            assert_eq!(ChunkKey::parse(foreign), None, "{foreign}");
        }
        assert_eq!(parse_replay_folder(&replay_folder(12)), Some(12));
        for other in [
            "replay/junk/",
            "replay/gen-12/",
            "replay/gen-000012",
            "ledger/gen-000012/",
        ] {
            assert_eq!(parse_replay_folder(other), None, "{other}");
        }
        assert!(valid_worker("host1.w2"));
        assert!(!valid_worker("a-b") && !valid_worker("") && !valid_worker("a/b"));
    }
}
