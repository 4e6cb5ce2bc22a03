//! Starting a run: resuming one in a run directory, or continuing a bundle
//! (`--init-from`).

use std::path::Path;

use burn::tensor::Device;
use encoding::Encode;
use model::bundle::{load_bundle, meta_for, save_bundle};
use model::lineage::{Ancestor, Lineage};
use model::NetShape;

use super::RunDir;
use crate::error::{Result, TrainError};
use crate::metrics::{append_metrics, read_metrics, GenerationMetrics};

/// The config must fit the run in `dir` (newest generation `g`): the same
/// variant and network shape. Checked from `model.json` before anything in
/// the run directory is written, so a wrong `--config` changes nothing.
pub(super) fn check_resumable<E: Encode>(dir: &RunDir, g: u32, shape: &NetShape) -> Result<()> {
    let bundle = dir.checkpoint(g);
    let meta: serde_json::Value = std::fs::read(bundle.join(model::bundle::META_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(serde_json::Value::Null);
    // An unreadable model.json is reported by the full load that follows.
    if let Some(variant) = meta.get("variant").and_then(|v| v.as_str()) {
        if variant != E::VARIANT.as_str() {
            return Err(TrainError::Mismatch(format!(
                "run directory {} holds a {variant} run, the config is for {}; use another --run-dir",
                dir.root.display(),
                E::VARIANT
            )));
        }
    }
    if let Some(Ok(theirs)) = meta
        .get("shape")
        .map(|s| serde_json::from_value::<NetShape>(s.clone()))
    {
        if &theirs != shape {
            return Err(TrainError::Mismatch(format!(
                "run directory {} holds a network with {}; use another --run-dir or the run's own config.toml",
                dir.root.display(),
                shape_difference(&theirs, shape)
            )));
        }
    }
    Ok(())
}

/// `blocks = 3 (the config asks for 4), ...`: the fields where two shapes
/// differ.
fn shape_difference(run: &NetShape, config: &NetShape) -> String {
    let (a, b) = (
        serde_json::to_value(run).unwrap_or_default(),
        serde_json::to_value(config).unwrap_or_default(),
    );
    // A field absent from one side is a `false` flag skipped when unset.
    let field = |v: &serde_json::Value, k: &str| v.get(k).cloned().unwrap_or(false.into());
    let mut keys: Vec<String> = [&a, &b]
        .iter()
        .filter_map(|v| v.as_object())
        .flat_map(|o| o.keys().cloned())
        .collect();
    keys.sort();
    keys.dedup();
    keys.iter()
        .filter(|k| field(&a, k) != field(&b, k))
        .map(|k| {
            format!(
                "{k} = {} (the config asks for {})",
                field(&a, k),
                field(&b, k)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Load the newest checkpoint `g` of a run being resumed, check its shape,
/// and give every completed generation its metrics line.
///
/// # Errors
/// A newest bundle that does not load: it was damaged after it was written
/// (writes are atomic), so the run stops rather than silently retrain and
/// overwrite a completed generation.
pub(super) fn resume<E: Encode>(
    dir: &RunDir,
    g: u32,
    generations: u32,
    shape: &NetShape,
    device: &Device,
) -> Result<u32> {
    let (_, meta) = load_bundle::<E>(&dir.checkpoint(g), device).map_err(|source| {
        TrainError::DamagedCheckpoint {
            path: dir.checkpoint(g),
            source,
        }
    })?;
    if &meta.shape != shape {
        return Err(TrainError::Mismatch(format!(
            "the newest checkpoint {} has {}",
            dir.checkpoint(g).display(),
            shape_difference(&meta.shape, shape)
        )));
    }
    // `generations` counts from the run's first generation (0, or the
    // bundle's generation with --init-from).
    let last = dir.first_generation() + generations;
    if g < last {
        eprintln!(
            "resuming {}: generation {g} is the last completed, continuing with {}",
            dir.root.display(),
            g + 1
        );
    } else {
        eprintln!(
            "{}: generation {g} is the last completed; this run asks for generations up to {last}, so there is nothing to train (a larger --generations trains more)",
            dir.root.display()
        );
    }
    restore_metrics::<E>(dir, g)?;
    Ok(g)
}

/// Give every completed generation after the first its metrics line: a
/// kill between saving a generation's bundle and appending its line loses
/// the line, so it is restored from the record the bundle carries
/// (`model.json` `training`). Lines stay in generation order because only
/// the newest generation can lack one.
fn restore_metrics<E: Encode>(dir: &RunDir, done: u32) -> Result<()> {
    let path = dir.metrics();
    let logged: Vec<u32> = if path.exists() {
        read_metrics(&path)?.iter().map(|r| r.generation).collect()
    } else {
        Vec::new()
    };
    for g in dir.first_generation() + 1..=done {
        if logged.contains(&g) {
            continue;
        }
        if let Some(record) = dir.metrics_of::<E>(g)? {
            append_metrics(&path, &record).map_err(TrainError::io("write", &path))?;
        }
    }
    Ok(())
}

/// The network and metadata of a bundle a new run starts from
/// (`--init-from`), checked against the run's variant and shape.
pub(super) struct InitBundle {
    net: model::Net,
    meta: model::bundle::BundleMeta,
    path: std::path::PathBuf,
}

/// Load `bundle` for a run of `E` with network `shape`. A bundle of
/// another variant is taken when that variant's encoding has `E`'s
/// dimensions (input planes, policy planes, board), as `hnefatafl` and
/// `copenhagen` share theirs: its network then starts the run (transfer
/// between rulesets on one board), and what it was measured at is dropped.
///
/// # Errors
/// A bundle that does not load (a damaged file, other rules or encoding
/// versions), a variant whose encoding differs from `E`'s, or a network
/// shape other than the config's.
pub(super) fn load_init_bundle<E: Encode>(
    bundle: &Path,
    shape: &NetShape,
    device: &Device,
) -> Result<InitBundle> {
    let init_error = |source| TrainError::InitFrom {
        path: bundle.to_path_buf(),
        source,
    };
    let from = model::bundle::peek_variant(bundle).map_err(init_error)?;
    let (net, mut meta) = if from == E::VARIANT {
        load_bundle::<E>(bundle, device).map_err(init_error)?
    } else {
        let dims = rules::with_variant!(from, F => (F::INPUT_PLANES, F::POLICY_PLANES, F::HEIGHT, F::WIDTH));
        if dims != (E::INPUT_PLANES, E::POLICY_PLANES, E::HEIGHT, E::WIDTH) {
            return Err(TrainError::Mismatch(format!(
                "--init-from {}: a {from} network cannot start a {} run: the encodings differ ({from}: {dims:?}, {}: {:?}; input planes, policy planes, height, width)",
                bundle.display(),
                E::VARIANT,
                E::VARIANT,
                (E::INPUT_PLANES, E::POLICY_PLANES, E::HEIGHT, E::WIDTH)
            )));
        }
        let loaded = rules::with_variant!(from, F => load_bundle::<F>(bundle, device));
        let (net, mut meta) = loaded.map_err(init_error)?;
        eprintln!(
            "--init-from {}: a {from} network starts this {} run (the encodings have the same planes)",
            bundle.display(),
            E::VARIANT
        );
        // Its measurements and promotion were of the other variant.
        meta.strength = serde_json::Value::Null;
        if let Some(eval) = meta.training.get_mut("eval") {
            *eval = serde_json::Value::Null;
        }
        if let Some(lineage) = meta.lineage.as_mut() {
            lineage.promoted_by = None;
        }
        (net, meta)
    };
    if &meta.shape != shape {
        return Err(TrainError::Mismatch(format!(
            "--init-from {}: the bundle's network has {}; set [network] in the config to the bundle's shape",
            bundle.display(),
            shape_difference(&meta.shape, shape)
        )));
    }
    meta.variant = E::VARIANT;
    Ok(InitBundle {
        net,
        meta,
        path: bundle.to_path_buf(),
    })
}

/// Copy the bundle into the run as its first checkpoint, keeping its
/// generation number and training record (so CPU-seconds, samples and
/// positions keep adding up across runs: the lineage). Returns that
/// generation.
///
/// # Errors
/// The checkpoint cannot be written.
pub(super) fn save_init_bundle<E: Encode>(
    dir: &RunDir,
    init: InitBundle,
    shape: &NetShape,
) -> Result<u32> {
    let g = init.meta.generation;
    let mut copy = meta_for::<E>(shape, g, &[]);
    // The run continues the bundle's lineage: it becomes an ancestor of
    // every generation trained here.
    let cpu_total =
        GenerationMetrics::from_meta(&init.meta.training).and_then(|m| m.cpu_seconds_total);
    let mut lineage = init
        .meta
        .lineage
        .clone()
        .unwrap_or_else(|| Lineage::at_generation(g, cpu_total, None));
    lineage.ancestors.push(Ancestor {
        generation: g,
        weights_sha256: init.meta.weights_sha256.clone(),
    });
    copy.lineage = Some(lineage);
    copy.training = init.meta.training;
    copy.strength = init.meta.strength;
    save_bundle(&dir.checkpoint(g), &init.net, &copy)?;
    eprintln!(
        "starting {} from {} (generation {g})",
        dir.root.display(),
        init.path.display()
    );
    Ok(g)
}
