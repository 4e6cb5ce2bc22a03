//! Where a variant's bundle is found: the bundle search path.
//!
//! A *models folder* holds one bundle folder per variant
//! (`<folder>/<variant>/model.json`). The folders searched, in order
//! ([`model_roots`]):
//! 1. each folder of the `LOKIZERO_MODELS` environment variable (joined
//!    like `PATH`);
//! 2. `models/` in the current directory (a checkout of the repository);
//! 3. the user's data folder, `lokizero/models` under
//!    `$XDG_DATA_HOME` or `~/.local/share` on Linux (`dirs::data_dir`),
//!    where `lokizero models install` copies bundles;
//! 4. beside the executable: `models/` in its own folder,
//!    `../share/lokizero/models` (`/usr/local/bin/lokizero` with
//!    `/usr/local/share/lokizero/models`: the container image's and the
//!    release archive's layout), then the `models/` of the checkout it was
//!    built in (the nearest of the five folders above it that holds a
//!    `Cargo.toml`: `target/release/lokizero`). Other folders above the
//!    executable (`/tmp/models`, `/models`) are never searched.
//!
//! The first folder holding a variant's bundle wins; `lokizero models`
//! lists what each one holds.

use std::path::{Path, PathBuf};

use rules::VariantId;

use crate::error::BotError;

/// The environment variable of models folders searched first.
pub const MODELS_ENV: &str = "LOKIZERO_MODELS";

/// Why a models folder is on the search path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootSource {
    /// Named by `LOKIZERO_MODELS`.
    Env,
    /// `models/` in the current directory.
    CurrentDir,
    /// The user's data folder ([`user_models_dir`]).
    UserData,
    /// Beside the running executable.
    Executable,
}

impl RootSource {
    /// A few words for listings (`lokizero models`).
    pub fn describe(self) -> &'static str {
        match self {
            RootSource::Env => "LOKIZERO_MODELS",
            RootSource::CurrentDir => "current directory",
            RootSource::UserData => "user data folder",
            RootSource::Executable => "beside the executable",
        }
    }
}

/// One models folder of the search path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelRoot {
    /// The folder (holding `<variant>/model.json`); it need not exist.
    pub dir: PathBuf,
    /// Why it is searched.
    pub source: RootSource,
}

/// The user's models folder, where `lokizero models install` copies
/// bundles: `lokizero/models` in `dirs::data_dir()` (`$XDG_DATA_HOME`
/// or `~/.local/share` on Linux, `~/Library/Application Support` on
/// macOS); `None` when the platform has no home folder.
pub fn user_models_dir() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("lokizero").join("models"))
}

/// The models folders searched for bundles, in order (see the module
/// docs), without duplicates.
pub fn model_roots() -> Vec<ModelRoot> {
    let mut roots = Vec::new();
    if let Some(list) = std::env::var_os(MODELS_ENV) {
        for dir in std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()) {
            roots.push((dir, RootSource::Env));
        }
    }
    roots.push((PathBuf::from("models"), RootSource::CurrentDir));
    if let Some(dir) = user_models_dir() {
        roots.push((dir, RootSource::UserData));
    }
    if let Ok(exe) = std::env::current_exe() {
        let mut above = exe.ancestors().skip(1);
        if let Some(own) = above.next() {
            roots.push((own.join("models"), RootSource::Executable));
            if let Some(parent) = own.parent() {
                roots.push((parent.join("share/lokizero/models"), RootSource::Executable));
            }
        }
        if let Some(checkout) = above.take(5).find(|d| d.join("Cargo.toml").is_file()) {
            roots.push((checkout.join("models"), RootSource::Executable));
        }
    }
    let mut out: Vec<ModelRoot> = Vec::new();
    for (dir, source) in roots {
        let same = |r: &ModelRoot| same_folder(&r.dir, &dir);
        if !out.iter().any(same) {
            out.push(ModelRoot { dir, source });
        }
    }
    out
}

/// Whether `a` and `b` name the same folder: equal paths, or paths that
/// resolve to the same place (links, `..`).
pub fn same_folder(a: &Path, b: &Path) -> bool {
    a == b
        || match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
}

/// Whether `dir` holds a bundle (`model.json`).
fn is_bundle(dir: &Path) -> bool {
    dir.join(model::bundle::META_FILE).is_file()
}

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

/// The bundle of `variant` in each models folder of the search path that
/// has one, in search order (the first is the one played).
pub fn bundles_of(variant: VariantId) -> Vec<(PathBuf, RootSource)> {
    model_roots()
        .into_iter()
        .map(|r| (r.dir.join(variant.as_str()), r.source))
        .filter(|(dir, _)| is_bundle(dir))
        .collect()
}

/// Resolve the bundle folder to load for `variant`: `given` when set
/// (a relative path tried as in [`candidates`]), otherwise the first
/// bundle of `variant` on the search path ([`model_roots`]). A folder
/// counts when it holds `model.json`.
///
/// # Errors
/// [`BotError::NoBundle`] listing the folders tried when none fits; a
/// `given` path that is not found is returned as is, so that loading it
/// reports the exact file error.
pub fn resolve_bundle(variant: VariantId, given: Option<&Path>) -> Result<PathBuf, BotError> {
    match given.filter(|p| !p.as_os_str().is_empty()) {
        Some(path) => Ok(candidates(path)
            .into_iter()
            .find(|p| is_bundle(p))
            .unwrap_or_else(|| path.to_path_buf())),
        None => {
            if let Some((dir, _)) = bundles_of(variant).into_iter().next() {
                return Ok(dir);
            }
            Err(BotError::NoBundle {
                variant,
                tried: model_roots()
                    .iter()
                    .map(|r| r.dir.join(variant.as_str()).display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        }
    }
}
