//! Crash-safe file writes: write to a temporary file in the same folder,
//! flush it to disk, then rename it into place (`tempfile`'s `persist`).
//! A reader sees either the old file or the complete new one, never a torn
//! write, even if the process is killed at any moment.

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` atomically (temporary sibling + fsync + rename).
///
/// # Errors
/// Any I/O error (e.g. disk full); the previous content of `path`, if any,
/// is left untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Replace the folder `dir` by a folder filled by `fill`, atomically: `fill`
/// writes into a fresh temporary sibling, which is then renamed to `dir`
/// (an existing `dir` is moved aside first and removed afterwards).
///
/// # Errors
/// Errors of `fill` or of the file system; on error `dir` is unchanged.
pub fn replace_dir_atomic<E: From<std::io::Error>>(
    dir: &Path,
    fill: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempdir_in(parent)?;
    fill(tmp.path())?;
    let tmp_path = tmp.keep();
    if dir.exists() {
        let old = tempfile::Builder::new()
            .prefix(".old-")
            .tempdir_in(parent)?
            .keep();
        std::fs::remove_dir(&old)?;
        std::fs::rename(dir, &old)?;
        std::fs::rename(&tmp_path, dir)?;
        std::fs::remove_dir_all(&old)?;
    } else {
        std::fs::rename(&tmp_path, dir)?;
    }
    Ok(())
}
