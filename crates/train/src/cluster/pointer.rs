//! Bundles in the store and the pointer to the newest one.
//!
//! Publishing generation `g` writes `checkpoints/gen-GGGGGG/model.safetensors`,
//! then its `model.json`, then (after the ledger) `latest.json`, last. A
//! reader follows the pointer only: it never lists `checkpoints/`, so a
//! bundle that a killed trainer left half-published is never read, and
//! the trainer (the one writer) may write it again. Once the pointer has
//! named a bundle, nothing rewrites it.

use std::path::Path;

use burn::tensor::Device;
use encoding::Encode;
use model::bundle::{BundleFiles, META_FILE, WEIGHTS_FILE};
use model::{BundleMeta, Net};
use serde::{Deserialize, Serialize};
use store::Store;

use super::keys;
use crate::error::{Result, TrainError};

/// `latest.json`: the newest published generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pointer {
    /// Variant id of the run.
    pub variant: rules::VariantId,
    /// The newest published generation.
    pub generation: u32,
    /// Its bundle folder's key (`checkpoints/gen-GGGGGG`).
    pub bundle: String,
    /// Lower-case hex sha256 of its `model.safetensors`.
    pub weights_sha256: String,
    /// The run's first generation (0, or the `--init-from` bundle's).
    pub first_generation: u32,
    /// The generation the trainer stops after; workers stop when the
    /// pointer reaches it.
    pub last_generation: u32,
    /// When it was written (Unix seconds, the trainer's clock).
    pub published_unix: u64,
    /// The bundle self-play uses when it is not the newest: with `[eval]
    /// gate = true`, the newest generation the evaluation promoted. Absent
    /// when self-play uses the newest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selfplay: Option<Published>,
    /// The resignation threshold self-play uses, as the last generation
    /// with resignation on calibrated it; absent before (the config's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign_threshold: Option<f32>,
}

/// A published bundle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Published {
    /// Its generation.
    pub generation: u32,
    /// Its bundle folder's key.
    pub bundle: String,
    /// Lower-case hex sha256 of its `model.safetensors`.
    pub weights_sha256: String,
}

impl Pointer {
    /// Whether the run is complete (workers stop).
    pub fn finished(&self) -> bool {
        self.generation >= self.last_generation
    }

    /// The bundle self-play plays with: [`Pointer::selfplay`], else the
    /// newest.
    pub fn playing(&self) -> Published {
        self.selfplay.clone().unwrap_or_else(|| Published {
            generation: self.generation,
            bundle: self.bundle.clone(),
            weights_sha256: self.weights_sha256.clone(),
        })
    }
}

/// Seconds since the Unix epoch.
pub fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The pointer, `None` before the first bundle.
///
/// # Errors
/// A store error, or a pointer that does not parse (named).
pub fn read_pointer(store: &Store) -> Result<Option<Pointer>> {
    let Some(bytes) = store.get(keys::POINTER)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        TrainError::Cluster(format!(
            "{}/{}: not a pointer: {e}",
            store.describe(),
            keys::POINTER
        ))
    })
}

/// Write the pointer (the trainer only; last step of a publication).
///
/// # Errors
/// A store error.
pub fn write_pointer(store: &Store, pointer: &Pointer) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(pointer).unwrap_or_default();
    store.put(keys::POINTER, &bytes)?;
    Ok(())
}

/// Upload bundle `files` of generation `g`: weights first, `model.json`
/// second (the pointer comes after, from the caller).
///
/// # Errors
/// A store error.
pub fn upload_bundle(store: &Store, g: u32, files: &BundleFiles) -> Result<()> {
    let dir = keys::bundle(g);
    store.put(&format!("{dir}/{WEIGHTS_FILE}"), &files.weights)?;
    store.put(&format!("{dir}/{META_FILE}"), &files.meta)?;
    Ok(())
}

/// Download and check the newest bundle, the one `pointer` names, for game
/// `E`: the variant, rules and encoding versions, the shape, the weights'
/// sha256 (against `model.json` and against the pointer).
///
/// # Errors
/// [`TrainError::Bundle`] for a bundle that does not fit or is damaged
/// (another variant, a checksum mismatch), a missing object, a store error.
pub fn fetch_bundle<E: Encode>(
    store: &Store,
    pointer: &Pointer,
    device: &Device,
) -> Result<(Net, BundleMeta)> {
    fetch_published::<E>(
        store,
        &Published {
            generation: pointer.generation,
            bundle: pointer.bundle.clone(),
            weights_sha256: pointer.weights_sha256.clone(),
        },
        device,
    )
}

/// Download and check the published bundle `published` for game `E`, as
/// [`fetch_bundle`] does.
///
/// # Errors
/// As [`fetch_bundle`].
pub fn fetch_published<E: Encode>(
    store: &Store,
    published: &Published,
    device: &Device,
) -> Result<(Net, BundleMeta)> {
    let label = Path::new(&store.describe()).join(&published.bundle);
    let get = |name: &str| -> Result<Vec<u8>> {
        let key = format!("{}/{name}", published.bundle);
        store.get(&key)?.ok_or_else(|| {
            TrainError::Cluster(format!(
                "{}/{key}: missing (the pointer names a bundle that is not there)",
                store.describe()
            ))
        })
    };
    let files = BundleFiles {
        meta: get(META_FILE)?,
        weights: get(WEIGHTS_FILE)?,
    };
    let (net, meta) = model::load_bundle_bytes::<E>(files, &label, device)?;
    if meta.weights_sha256 != published.weights_sha256 {
        return Err(TrainError::Cluster(format!(
            "{}: weights sha256 {} differs from the pointer's {}",
            label.display(),
            meta.weights_sha256,
            published.weights_sha256
        )));
    }
    Ok((net, meta))
}
