//! Checkpoint bundles: a folder with `model.safetensors` (weights) and
//! `model.json` ([`BundleMeta`]: variant, rules and encoding versions,
//! network shape, generation, training summary, sha256 of the weights).
//!
//! Loading checks everything before any weight is used and fails with a
//! [`BundleError`] naming the mismatch (wrong variant, other encoding or
//! rules version, shape not matching the variant, truncated or altered
//! weights).

use std::path::{Path, PathBuf};

use burn::store::{ModuleSnapshot, SafetensorsStore};
use burn::tensor::Device;
use encoding::Encode;
use fsio::{replace_dir_atomic, write_atomic};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::lineage::Lineage;
use crate::net::{Net, NetShape};

/// Value of [`BundleMeta::format`].
pub const BUNDLE_FORMAT: &str = "lokizero-bundle";
/// Current bundle layout version.
pub const BUNDLE_FORMAT_VERSION: u32 = 1;
/// Weights file name inside a bundle.
pub const WEIGHTS_FILE: &str = "model.safetensors";
/// Metadata file name inside a bundle.
pub const META_FILE: &str = "model.json";

/// Metadata of a bundle (`model.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BundleMeta {
    /// Always [`BUNDLE_FORMAT`].
    pub format: String,
    /// Bundle layout version ([`BUNDLE_FORMAT_VERSION`]).
    pub format_version: u32,
    /// Variant id (`shakti`, ...).
    pub variant: rules::VariantId,
    /// `Game::RULES_VERSION` the network was trained under.
    pub rules_version: u32,
    /// `Encode::ENCODING_VERSION` of the input planes and policy map.
    pub encoding_version: u32,
    /// Network shape.
    pub shape: NetShape,
    /// Training generation (0 = untrained initial network).
    pub generation: u32,
    /// Free-form training summary (samples seen, losses, config name).
    #[serde(default)]
    pub training: serde_json::Value,
    /// Measured strength, when known (match results against baselines).
    #[serde(default)]
    pub strength: serde_json::Value,
    /// Generations, CPU-hours, ancestors and promotion of this bundle
    /// ([`crate::lineage`]); absent in bundles written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lineage: Option<Lineage>,
    /// Lower-case hex sha256 of `model.safetensors`.
    pub weights_sha256: String,
}

impl BundleMeta {
    /// The bundle's lineage, taken out of the metadata; a bundle written
    /// before the lineage record gets one from its training record
    /// (generation and `cpu_seconds_total`), so every bundle written on
    /// carries generations and CPU-hours.
    pub fn take_lineage(&mut self) -> Lineage {
        self.lineage.take().unwrap_or_else(|| {
            let cpu = self
                .training
                .get("cpu_seconds_total")
                .and_then(serde_json::Value::as_f64);
            Lineage::at_generation(self.generation, cpu, None)
        })
    }
}

/// Why a bundle could not be written or loaded.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// File system error, with the path involved.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// `model.json` is not valid metadata.
    #[error("{path}: invalid bundle metadata: {reason}")]
    Meta {
        /// The metadata file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The bundle is for another variant or another rules/encoding version.
    #[error("bundle {path} does not fit: {reason}")]
    Mismatch {
        /// The bundle folder.
        path: PathBuf,
        /// What differs.
        reason: String,
    },
    /// The weights do not match the recorded sha256 (truncated or altered).
    #[error("{path}: weights checksum mismatch (expected sha256 {expected}, found {found}); the file is truncated or corrupt")]
    Checksum {
        /// The weights file.
        path: PathBuf,
        /// The sha256 recorded in `model.json` (hex).
        expected: String,
        /// The sha256 of the file read (hex).
        found: String,
    },
    /// The safetensors content does not fit the network shape.
    #[error("{path}: cannot load weights: {source}")]
    Weights {
        /// The weights file.
        path: PathBuf,
        /// What does not fit.
        source: WeightsMismatch,
    },
    /// burn could not write the network's weights as safetensors.
    #[error("cannot serialise the weights: {0}")]
    Serialise(String),
}

/// Why safetensors bytes do not load into a network of the bundle's shape.
#[derive(Debug, thiserror::Error)]
pub enum WeightsMismatch {
    /// burn refused the file (its message's first line, shortened).
    #[error("the weights do not fit the network shape in model.json ({0}...)")]
    Refused(String),
    /// Tensors that failed, are missing or are left over.
    #[error(
        "weights do not fit the network: {errors} errors, missing {missing:?}, unused {unused:?}"
    )]
    Tensors {
        /// Tensors that did not load.
        errors: usize,
        /// Tensors the network needs and the file lacks.
        missing: Vec<String>,
        /// Tensors in the file the network does not have.
        unused: Vec<String>,
    },
}

impl From<std::io::Error> for BundleError {
    fn from(source: std::io::Error) -> Self {
        BundleError::Io {
            path: PathBuf::new(),
            source,
        }
    }
}

/// Lower-case hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Serialize the weights of `net` to safetensors bytes.
///
/// # Errors
/// [`BundleError::Serialise`] when burn cannot write them.
pub fn weights_bytes(net: &Net) -> Result<Vec<u8>, BundleError> {
    let mut store = SafetensorsStore::from_bytes(None);
    let err = |e: &dyn std::fmt::Display| BundleError::Serialise(e.to_string());
    net.save_into(&mut store).map_err(|e| err(&e))?;
    let bytes = store.get_bytes().map_err(|e| err(&e))?;
    Ok(canonical_header(bytes))
}

/// The same safetensors bytes with the JSON header's keys in sorted order.
/// burn writes `__metadata__` from a hash map, so two saves of the same
/// weights differed in their header and thus in `weights_sha256`; sorted,
/// equal weights give equal files. The header keeps its length (padded
/// with spaces, as the format allows), so the tensor data does not move.
/// Bytes that do not parse as safetensors are returned unchanged.
fn canonical_header(mut bytes: Vec<u8>) -> Vec<u8> {
    let Some(len) = bytes
        .get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .and_then(|b| usize::try_from(u64::from_le_bytes(b)).ok())
    else {
        return bytes;
    };
    let Some(header) = bytes.get(8..8 + len) else {
        return bytes;
    };
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(header) else {
        return bytes;
    };
    let Ok(mut sorted) = serde_json::to_vec(&sorted_keys(value)) else {
        return bytes;
    };
    if sorted.len() > len {
        return bytes;
    }
    sorted.resize(len, b' ');
    bytes[8..8 + len].copy_from_slice(&sorted);
    bytes
}

/// `value` with every object's keys in sorted order (whatever the
/// `serde_json` map type of the build).
fn sorted_keys(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            let sorted: std::collections::BTreeMap<String, serde_json::Value> =
                map.into_iter().map(|(k, v)| (k, sorted_keys(v))).collect();
            serde_json::Value::Object(sorted.into_iter().collect())
        }
        other => other,
    }
}

/// Metadata for a network of game `E` at `generation`, checksum filled in
/// from `weights`.
pub fn meta_for<E: Encode>(shape: &NetShape, generation: u32, weights: &[u8]) -> BundleMeta {
    BundleMeta {
        format: BUNDLE_FORMAT.to_string(),
        format_version: BUNDLE_FORMAT_VERSION,
        variant: E::VARIANT,
        rules_version: E::RULES_VERSION,
        encoding_version: E::ENCODING_VERSION,
        shape: shape.clone(),
        generation,
        training: serde_json::Value::Null,
        strength: serde_json::Value::Null,
        lineage: None,
        weights_sha256: sha256_hex(weights),
    }
}

/// Write a bundle folder atomically (a reader never sees half a bundle).
/// `meta.weights_sha256` is recomputed from the weights written.
///
/// # Errors
/// [`BundleError::Io`] with the path on any file-system error; an existing
/// bundle at `dir` is then left unchanged. [`BundleError::Mismatch`] when
/// `dir` exists and is not a bundle folder (a file, or a folder with other
/// files): nothing is touched.
pub fn save_bundle(dir: &Path, net: &Net, meta: &BundleMeta) -> Result<(), BundleError> {
    check_replaceable(dir)?;
    let BundleFiles {
        weights,
        meta: json,
    } = bundle_files(net, meta, dir)?;
    replace_dir_atomic(dir, |tmp| {
        let io = |path: PathBuf| move |source| BundleError::Io { path, source };
        write_atomic(&tmp.join(WEIGHTS_FILE), &weights).map_err(io(dir.join(WEIGHTS_FILE)))?;
        write_atomic(&tmp.join(META_FILE), &json).map_err(io(dir.join(META_FILE)))
    })
    .map_err(|e| match e {
        BundleError::Io { path, source } if path.as_os_str().is_empty() => BundleError::Io {
            path: dir.into(),
            source,
        },
        other => other,
    })
}

/// The two files of a bundle as bytes, for stores that are not a folder
/// (`model.safetensors` first: a reader that finds `model.json` finds
/// weights whose sha256 it records).
#[derive(Clone, Debug)]
pub struct BundleFiles {
    /// `model.safetensors`.
    pub weights: Vec<u8>,
    /// `model.json`, with the sha256 of `weights` filled in.
    pub meta: Vec<u8>,
}

/// The files of a bundle of `net` with `meta` (`weights_sha256` recomputed);
/// `label` names the bundle in errors.
///
/// # Errors
/// [`BundleError::Weights`] or [`BundleError::Meta`] when serialising fails.
pub fn bundle_files(
    net: &Net,
    meta: &BundleMeta,
    label: &Path,
) -> Result<BundleFiles, BundleError> {
    let weights = weights_bytes(net)?;
    let mut meta = meta.clone();
    meta.weights_sha256 = sha256_hex(&weights);
    let json = serde_json::to_vec_pretty(&meta).map_err(|e| BundleError::Meta {
        path: label.into(),
        reason: e.to_string(),
    })?;
    Ok(BundleFiles {
        weights,
        meta: json,
    })
}

/// A bundle may only replace nothing, an empty folder or another bundle
/// (a folder holding only bundle files): `export --out ~/Documents` must
/// not move a user's folder aside, nor a file.
///
/// # Errors
/// [`BundleError::Mismatch`] naming `dir` and why it is refused;
/// [`BundleError::Io`] when it cannot be read.
pub fn check_replaceable(dir: &Path) -> Result<(), BundleError> {
    let refuse = |why: &str| {
        Err(BundleError::Mismatch {
            path: dir.into(),
            reason: format!("refusing to replace it: {why}"),
        })
    };
    // As the folder is replaced: `link/`, `link/.` and `link//` name the
    // link itself, which must not be followed here.
    let dir: &Path = &dir.components().collect::<PathBuf>();
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(BundleError::Io {
                path: dir.into(),
                source,
            })
        }
    };
    if meta.file_type().is_symlink() {
        // Swapping the link for a folder would break what it links; the
        // folder it points to is replaced only when named.
        let to = std::fs::read_link(dir).unwrap_or_default();
        return refuse(&format!(
            "it is a symbolic link (to {}); give the folder it points to",
            to.display()
        ));
    }
    if !meta.is_dir() {
        return refuse("it exists and is not a folder");
    }
    let entries = std::fs::read_dir(dir).map_err(|source| BundleError::Io {
        path: dir.into(),
        source,
    })?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name != WEIGHTS_FILE && name != META_FILE {
            return refuse(&format!(
                "it is a folder with other files than a bundle's ({})",
                name.to_string_lossy()
            ));
        }
    }
    Ok(())
}

/// Read and validate `model.json` of the bundle at `dir` for game `E`.
///
/// # Errors
/// [`BundleError::Meta`] for unreadable metadata, [`BundleError::Mismatch`]
/// for another variant, rules or encoding version, or a shape that does not
/// fit `E`'s encoding.
pub fn read_meta<E: Encode>(dir: &Path) -> Result<BundleMeta, BundleError> {
    let path = dir.join(META_FILE);
    let text = std::fs::read(&path).map_err(|source| BundleError::Io {
        path: path.clone(),
        source,
    })?;
    parse_meta::<E>(&text, dir)
}

/// Parse and validate `model.json` bytes for game `E` (the pure part of
/// [`read_meta`]; `dir` only labels errors).
///
/// # Errors
/// As [`read_meta`], without the I/O error.
pub fn parse_meta<E: Encode>(text: &[u8], dir: &Path) -> Result<BundleMeta, BundleError> {
    let path = dir.join(META_FILE);
    let meta: BundleMeta = serde_json::from_slice(text).map_err(|e| BundleError::Meta {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let mismatch = |reason: String| {
        Err(BundleError::Mismatch {
            path: dir.into(),
            reason,
        })
    };
    if meta.format != BUNDLE_FORMAT || meta.format_version != BUNDLE_FORMAT_VERSION {
        return mismatch(format!(
            "format {} v{}, expected {BUNDLE_FORMAT} v{BUNDLE_FORMAT_VERSION}",
            meta.format, meta.format_version
        ));
    }
    if meta.variant != E::VARIANT {
        return mismatch(format!(
            "bundle is for variant {:?}, but {:?} was requested",
            meta.variant.as_str(),
            E::VARIANT.as_str()
        ));
    }
    if meta.rules_version != E::RULES_VERSION || meta.encoding_version != E::ENCODING_VERSION {
        return mismatch(format!(
            "bundle has rules v{} / encoding v{}, this build has rules v{} / encoding v{}",
            meta.rules_version,
            meta.encoding_version,
            E::RULES_VERSION,
            E::ENCODING_VERSION
        ));
    }
    let s = &meta.shape;
    if (s.input_planes, s.policy_planes, s.height, s.width)
        != (E::INPUT_PLANES, E::POLICY_PLANES, E::HEIGHT, E::WIDTH)
    {
        return mismatch(format!(
            "network shape {s:?} does not fit the {} encoding",
            E::VARIANT
        ));
    }
    if s.blocks > crate::net::MAX_BLOCKS
        || s.filters == 0
        || s.filters > crate::net::MAX_FILTERS
        || s.value_hidden == 0
        || s.value_hidden > 4096
    {
        return mismatch(format!("implausible network shape {s:?}"));
    }
    Ok(meta)
}

/// Load a bundle for game `E` onto `device`: metadata checks, then the
/// checksum, then the weights.
///
/// # Errors
/// Any [`BundleError`]; nothing is loaded unless every check passes.
pub fn load_bundle<E: Encode>(
    dir: &Path,
    device: &Device,
) -> Result<(Net, BundleMeta), BundleError> {
    let meta = read_meta::<E>(dir)?;
    let path = dir.join(WEIGHTS_FILE);
    let bytes = std::fs::read(&path).map_err(|source| BundleError::Io {
        path: path.clone(),
        source,
    })?;
    let net = net_checked(&meta, bytes, &path, device)?;
    Ok((net, meta))
}

/// Load a bundle for game `E` from its two files' bytes (read from an
/// object store); `label` names it in errors. The same checks as
/// [`load_bundle`]: metadata, then the checksum, then the weights.
///
/// # Errors
/// Any [`BundleError`] but `Io`.
pub fn load_bundle_bytes<E: Encode>(
    files: BundleFiles,
    label: &Path,
    device: &Device,
) -> Result<(Net, BundleMeta), BundleError> {
    let meta = parse_meta::<E>(&files.meta, label)?;
    let net = net_checked(&meta, files.weights, &label.join(WEIGHTS_FILE), device)?;
    Ok((net, meta))
}

/// The network of `meta` from weights `bytes` (read from `path`), after
/// checking their sha256.
fn net_checked(
    meta: &BundleMeta,
    bytes: Vec<u8>,
    path: &Path,
    device: &Device,
) -> Result<Net, BundleError> {
    let path = path.to_path_buf();
    let found = sha256_hex(&bytes);
    if found != meta.weights_sha256 {
        return Err(BundleError::Checksum {
            path,
            expected: meta.weights_sha256.clone(),
            found,
        });
    }
    net_from_weights(&meta.shape, bytes, device)
        .map_err(|source| BundleError::Weights { path, source })
}

/// Build a network of `shape` from safetensors `bytes`; every tensor must
/// be present with the right shape.
///
/// # Errors
/// [`WeightsMismatch`] when the bytes do not load into that shape.
pub fn net_from_weights(
    shape: &NetShape,
    bytes: Vec<u8>,
    device: &Device,
) -> Result<Net, WeightsMismatch> {
    let mut net = Net::new(shape, device);
    let mut store = SafetensorsStore::from_bytes(Some(bytes));
    let result = net.load_from(&mut store).map_err(|e| {
        // burn's message lists every tensor (and may end in a hint meant for
        // developers): keep its first line, shortened.
        let text = e.to_string();
        let first: String = text
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(160)
            .collect();
        WeightsMismatch::Refused(first)
    })?;
    if !result.is_success() || !result.missing.is_empty() || !result.unused.is_empty() {
        return Err(WeightsMismatch::Tensors {
            errors: result.errors.len(),
            missing: result.missing.iter().map(|m| m.0.to_string()).collect(),
            unused: result.unused.iter().map(|u| u.to_string()).collect(),
        });
    }
    Ok(net)
}

/// The variant a bundle was made for, read from its `model.json` without
/// loading the weights (to pick the game type before [`load_bundle`]).
///
/// # Errors
/// [`BundleError::Io`]/[`BundleError::Meta`] for a missing or unreadable
/// `model.json` or an unknown variant id.
pub fn peek_variant(dir: &Path) -> Result<rules::VariantId, BundleError> {
    let path = dir.join(META_FILE);
    let text = std::fs::read(&path).map_err(|source| BundleError::Io {
        path: path.clone(),
        source,
    })?;
    let value: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| BundleError::Meta {
            path: path.clone(),
            reason: e.to_string(),
        })?;
    let variant = value
        .get("variant")
        .and_then(|v| v.as_str())
        .unwrap_or_default();
    variant
        .parse()
        .map_err(|e: rules::variant::UnknownVariant| BundleError::Meta {
            path,
            reason: e.to_string(),
        })
}
