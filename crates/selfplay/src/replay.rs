//! Replay chunks on disk and the replay buffer over recent generations.
//!
//! A chunk file is `MAGIC` (8 bytes) + sha256 of the payload (32 bytes) +
//! payload (bincode of [`Chunk`]). The checksum makes a truncated or
//! bit-flipped chunk a clear error instead of garbage training data.
//! Files are named `gen-GGGGGG-part-PPPP.bin` and written atomically.

use std::path::{Path, PathBuf};

use rules::{Variant, VariantId};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::record::GameRecord;

/// First bytes of every replay chunk.
pub const MAGIC: &[u8; 8] = b"LZREPLAY";
/// Chunk layout version.
pub const CHUNK_VERSION: u32 = 1;

/// A batch of games from one generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// Layout version ([`CHUNK_VERSION`]).
    pub version: u32,
    /// Variant id (stored as its id text, as a string was before).
    pub variant: VariantId,
    /// `Game::RULES_VERSION` the games were played under.
    pub rules_version: u32,
    /// The generation the games belong to: in a run folder the
    /// generation they were played for (the one trained on them), in an
    /// object store the generation of the bundle that played them.
    pub generation: u32,
    /// The games.
    pub games: Vec<GameRecord>,
}

/// Why a replay chunk could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// File-system error.
    #[error("{path}: {source}")]
    Io {
        /// The chunk file or replay folder.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Not a chunk, truncated, or corrupt.
    #[error("{path}: corrupt replay chunk: {reason}")]
    Corrupt {
        /// The chunk file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A chunk of another variant or rules version.
    #[error("{path}: replay chunk does not fit: {reason}")]
    Mismatch {
        /// The chunk file.
        path: PathBuf,
        /// What differs.
        reason: String,
    },
}

fn bincode_config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Most bytes a chunk's decoded collections may claim (1 GiB). Without a
/// limit a corrupt length prefix behind a valid checksum made the decoder
/// allocate that length at once and abort the process (found by the
/// `replay_chunk` fuzz target); real chunks are a few MB.
const DECODE_LIMIT: usize = 1 << 30;

fn bincode_decode_config() -> bincode::config::Configuration<
    bincode::config::LittleEndian,
    bincode::config::Varint,
    bincode::config::Limit<DECODE_LIMIT>,
> {
    bincode::config::standard().with_limit::<DECODE_LIMIT>()
}

/// Encode a chunk to its file bytes.
pub fn encode_chunk(chunk: &Chunk) -> Vec<u8> {
    let payload = bincode::serde::encode_to_vec(chunk, bincode_config()).unwrap_or_default();
    let mut out = Vec::with_capacity(payload.len() + 40);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&Sha256::digest(&payload));
    out.extend_from_slice(&payload);
    out
}

/// Decode chunk file bytes (checks magic and checksum).
pub fn decode_chunk(bytes: &[u8], path: &Path) -> Result<Chunk, ReplayError> {
    let corrupt = |reason: String| ReplayError::Corrupt {
        path: path.into(),
        reason,
    };
    if bytes.len() < 40 || &bytes[..8] != MAGIC {
        return Err(corrupt(format!(
            "{} bytes, missing the LZREPLAY header",
            bytes.len()
        )));
    }
    let payload = &bytes[40..];
    if Sha256::digest(payload).as_slice() != &bytes[8..40] {
        return Err(corrupt("checksum mismatch (truncated or altered)".into()));
    }
    let (chunk, used): (Chunk, usize) =
        bincode::serde::decode_from_slice(payload, bincode_decode_config())
            .map_err(|e| corrupt(e.to_string()))?;
    if used != payload.len() {
        return Err(corrupt(format!("{} trailing bytes", payload.len() - used)));
    }
    if chunk.version != CHUNK_VERSION {
        return Err(ReplayError::Mismatch {
            path: path.into(),
            reason: format!("chunk version {}, expected {CHUNK_VERSION}", chunk.version),
        });
    }
    Ok(chunk)
}

/// Write a chunk atomically ([`fsio::write_atomic`]: temporary
/// `.tmp-<name>-*` file + fsync + rename), creating its folder first.
pub fn write_chunk(path: &Path, chunk: &Chunk) -> Result<(), ReplayError> {
    let io = |source| ReplayError::Io {
        path: path.into(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    fsio::write_atomic(path, &encode_chunk(chunk)).map_err(io)
}

/// Read a chunk and check it belongs to game `G` under the current rules.
pub fn read_chunk<G: Variant>(path: &Path) -> Result<Chunk, ReplayError> {
    let bytes = std::fs::read(path).map_err(|source| ReplayError::Io {
        path: path.into(),
        source,
    })?;
    decode_chunk_for::<G>(&bytes, path)
}

/// Decode chunk bytes (read from anywhere: a file, an object store) and
/// check they belong to game `G` under the current rules; `path` labels
/// errors.
///
/// # Errors
/// [`ReplayError::Corrupt`] (not a chunk, truncated, altered) or
/// [`ReplayError::Mismatch`] (another variant, rules or layout version).
pub fn decode_chunk_for<G: Variant>(bytes: &[u8], path: &Path) -> Result<Chunk, ReplayError> {
    let chunk = decode_chunk(bytes, path)?;
    if chunk.variant != G::VARIANT || chunk.rules_version != G::RULES_VERSION {
        return Err(ReplayError::Mismatch {
            path: path.into(),
            reason: format!(
                "chunk is {} rules v{}, expected {} rules v{}",
                chunk.variant,
                chunk.rules_version,
                G::VARIANT,
                G::RULES_VERSION
            ),
        });
    }
    Ok(chunk)
}

/// File name of part `part` of generation `generation`.
pub fn chunk_name(generation: u32, part: u32) -> String {
    format!("gen-{generation:06}-part-{part:04}.bin")
}

/// Parse `gen-GGGGGG-part-PPPP.bin` into (generation, part).
pub fn parse_chunk_name(name: &str) -> Option<(u32, u32)> {
    let rest = name.strip_prefix("gen-")?.strip_suffix(".bin")?;
    let (g, p) = rest.split_once("-part-")?;
    Some((g.parse().ok()?, p.parse().ok()?))
}

/// All chunk files in `dir` as (generation, part, path), sorted.
pub fn list_chunks(dir: &Path) -> std::io::Result<Vec<(u32, u32, PathBuf)>> {
    let mut out = Vec::new();
    if !dir.exists() {
        return Ok(out);
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if let Some((g, p)) = entry.file_name().to_str().and_then(parse_chunk_name) {
            out.push((g, p, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// The replay buffer: the games of the last `window` generations up to
/// `latest`, loaded from `dir`.
///
/// # Errors
/// The first unreadable chunk (a corrupt chunk is an error, not skipped, so
/// the user learns of it).
pub fn load_window<G: Variant>(
    dir: &Path,
    latest: u32,
    window: u32,
) -> Result<Vec<GameRecord>, ReplayError> {
    let first = latest.saturating_sub(window.saturating_sub(1));
    let chunks = list_chunks(dir).map_err(|source| ReplayError::Io {
        path: dir.into(),
        source,
    })?;
    let mut games = Vec::new();
    for (g, _, path) in chunks {
        if g >= first && g <= latest {
            games.extend(read_chunk::<G>(&path)?.games);
        }
    }
    Ok(games)
}
