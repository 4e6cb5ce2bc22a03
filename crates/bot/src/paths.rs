//! Where a variant's shipped bundle is found.

use std::path::{Path, PathBuf};

use rules::VariantId;

use crate::error::BotError;

/// Folder of the shipped bundle of `variant`, relative to a repository:
/// `models/<variant>`.
pub fn shipped_dir(variant: VariantId) -> PathBuf {
    Path::new("models").join(variant.as_str())
}

/// Places a relative bundle path `rel` is looked up, in order: the current
/// directory, then each ancestor of the running executable's folder (so
/// `target/release/lokizero` finds `<repo>/models/...` from anywhere).
pub fn candidates(rel: &Path) -> Vec<PathBuf> {
    let mut out = vec![rel.to_path_buf()];
    if rel.is_absolute() {
        return out;
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1).take(6) {
            out.push(dir.join(rel));
        }
    }
    out
}

/// Resolve the bundle folder to load for `variant`: `given` when set
/// (a relative path tried as in [`candidates`]), otherwise the shipped
/// `models/<variant>`. A folder counts when it holds `model.json`.
///
/// # Errors
/// [`BotError::NoBundle`] listing the folders tried when none fits; a
/// `given` path that is not found is returned as is, so that loading it
/// reports the exact file error.
pub fn resolve_bundle(variant: VariantId, given: Option<&Path>) -> Result<PathBuf, BotError> {
    let is_bundle = |p: &Path| p.join(model::bundle::META_FILE).is_file();
    match given.filter(|p| !p.as_os_str().is_empty()) {
        Some(path) => Ok(candidates(path)
            .into_iter()
            .find(|p| is_bundle(p))
            .unwrap_or_else(|| path.to_path_buf())),
        None => {
            let tried = candidates(&shipped_dir(variant));
            tried
                .iter()
                .find(|p| is_bundle(p))
                .cloned()
                .ok_or_else(|| BotError::NoBundle {
                    variant,
                    tried: tried
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                })
        }
    }
}
