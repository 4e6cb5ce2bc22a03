//! Crash-safe file writes for every lokizero crate: write to a temporary
//! file in the same folder, flush it to disk, then rename it into place
//! (`tempfile`'s `persist`). A reader sees either the old file or the
//! complete new one, never a torn write, even if the process is killed at
//! any moment. Bundles (`model`), replay chunks (`selfplay`), run files and
//! metrics (`train`), match records and ladders (`arena`) and bench reports
//! all go through here; the crate depends on `std` and `tempfile` only (no
//! burn), so any crate can use it.
//!
//! Temporary names are `.tmp-<final name>-<random>` (folders being replaced
//! are moved to `.old-<name>-<random>`), so leftovers of a killed process
//! are recognisable and [`remove_stale_temps`] can clear them.
//!
//! Fault injection: when the environment variable [`FAULT_DELAY_ENV`] is
//! set to a number of milliseconds, every writer here sleeps that long
//! between writing the temporary and renaming it, so a test can kill the
//! process inside that window deterministically (`tests/fault_injection.rs`).
//!
//! ```
//! # fn main() -> std::io::Result<()> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("metrics.json");
//! fsio::write_atomic(&path, b"{\"generation\": 1}")?;
//! fsio::write_atomic(&path, b"{\"generation\": 2}")?; // replaced whole
//! assert_eq!(std::fs::read(&path)?, b"{\"generation\": 2}");
//! # Ok(())
//! # }
//! ```

use std::io::Write;
use std::path::Path;

/// Environment variable: milliseconds to sleep between the temporary write
/// and the rename (fault-injection tests only; unset in normal use).
pub const FAULT_DELAY_ENV: &str = "LOKIZERO_FAULT_DELAY_MS";

/// Sleep for [`FAULT_DELAY_ENV`] milliseconds if it is set (else nothing).
pub fn fault_delay() {
    if let Some(ms) = std::env::var(FAULT_DELAY_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// `.tmp-<name>-` prefix for the temporary sibling of `path`.
fn temp_prefix(kind: &str, path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{kind}{name}-")
}

/// Write `bytes` to `path` atomically (temporary sibling + fsync + rename).
///
/// # Errors
/// Any I/O error (e.g. disk full); the previous content of `path`, if any,
/// is left untouched and the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Like [`write_atomic`], with the content produced by `fill` writing into
/// the temporary file. An error of `fill` (or of any later step) aborts the
/// write: `path` keeps its previous content and the temporary is removed.
/// Tests inject write failures (disk full) through `fill`.
///
/// # Errors
/// The first I/O error of `fill`, the flush, or the rename.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(&temp_prefix(".tmp-", path))
        .tempfile_in(dir)?;
    {
        let mut buffered = std::io::BufWriter::new(tmp.as_file_mut());
        fill(&mut buffered)?;
        buffered.flush()?;
    }
    tmp.as_file().sync_all()?;
    make_shared(tmp.path(), 0o644)?;
    fault_delay();
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Make a file or folder we wrote readable by others (bundles ship in
/// `models/`); tempfile creates them private (0600/0700).
fn make_shared(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}

/// Replace the folder `dir` by a folder filled by `fill`, atomically: `fill`
/// writes into a fresh temporary sibling, which is then renamed to `dir`
/// (an existing `dir` is moved aside first and removed afterwards).
///
/// The sibling folders live in `dir`'s parent, resolved first, so that a
/// `dir` written through `..` (`d/../d`) still names the same place once
/// `dir` is moved aside.
///
/// # Errors
/// Errors of `fill` or of the file system; a `dir` that does not end in
/// a folder name (`.`, `..`, `/`) is refused (`InvalidInput`). On error
/// `dir` is unchanged.
pub fn replace_dir_atomic<E: From<std::io::Error>>(
    dir: &Path,
    fill: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    let mut components = dir.components();
    let Some(std::path::Component::Normal(name)) = components.next_back() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{}: does not end in a folder name to write", dir.display()),
        )
        .into());
    };
    let parent = components.as_path();
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    std::fs::create_dir_all(parent)?;
    let parent = &parent.canonicalize()?;
    let dir = &parent.join(name);
    let tmp = tempfile::Builder::new()
        .prefix(&temp_prefix(".tmp-", dir))
        .tempdir_in(parent)?;
    fill(tmp.path())?;
    make_shared(tmp.path(), 0o755)?;
    fault_delay();
    let tmp_path = tmp.keep();
    if dir.exists() {
        let old = tempfile::Builder::new()
            .prefix(&temp_prefix(".old-", dir))
            .tempdir_in(parent)?
            .keep();
        std::fs::remove_dir(&old)?;
        std::fs::rename(dir, &old)?;
        if let Err(e) = std::fs::rename(&tmp_path, dir) {
            // Put the old folder back; the new one stays as a `.tmp-`.
            let _ = std::fs::rename(&old, dir);
            return Err(e.into());
        }
        std::fs::remove_dir_all(&old)?;
    } else {
        std::fs::rename(&tmp_path, dir)?;
    }
    Ok(())
}

/// Remove the leftovers of writers killed mid-write in `dir` (entries whose
/// names start with `.tmp-` or `.old-`; files and folders). Only call this
/// when no other process writes into `dir`. Returns how many were removed.
///
/// # Errors
/// I/O errors listing or removing; a missing `dir` is not an error.
pub fn remove_stale_temps(dir: &Path) -> std::io::Result<usize> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with(".tmp-") || name.starts_with(".old-")) {
            continue;
        }
        if entry.file_type()?.is_dir() {
            std::fs::remove_dir_all(entry.path())?;
        } else {
            std::fs::remove_file(entry.path())?;
        }
        removed += 1;
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    }

    /// A writer that fails as a full disk does, after `room` bytes.
    fn disk_full_after(room: usize, bytes: &[u8], w: &mut dyn Write) -> std::io::Result<()> {
        let n = room.min(bytes.len());
        w.write_all(&bytes[..n])?;
        if n < bytes.len() {
            return Err(Error::new(
                ErrorKind::StorageFull,
                "No space left on device",
            ));
        }
        Ok(())
    }

    #[test]
    fn disk_full_keeps_the_old_file_and_leaves_no_temporary() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("metrics.jsonl");
        write_atomic(&path, b"old content\n").unwrap();
        let new = vec![b'x'; 100_000];
        let err = write_atomic_with(&path, |w| disk_full_after(4096, &new, w)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::StorageFull);
        assert_eq!(err.to_string(), "No space left on device");
        assert_eq!(std::fs::read(&path).unwrap(), b"old content\n");
        assert_eq!(names(tmp.path()), vec!["metrics.jsonl"]);
        // The same write with room succeeds.
        write_atomic_with(&path, |w| disk_full_after(usize::MAX, &new, w)).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), new);
    }

    #[test]
    fn failing_fill_keeps_the_old_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("gen-000001");
        replace_dir_atomic::<Error>(&dir, |d| write_atomic(&d.join("a"), b"1")).unwrap();
        let err = replace_dir_atomic::<Error>(&dir, |d| {
            write_atomic(&d.join("a"), b"2")?;
            Err(Error::new(
                ErrorKind::StorageFull,
                "No space left on device",
            ))
        })
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::StorageFull);
        assert_eq!(std::fs::read(dir.join("a")).unwrap(), b"1");
        assert_eq!(names(tmp.path()), vec!["gen-000001"]);
    }

    #[test]
    fn stale_temporaries_are_named_after_their_target_and_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("config.toml");
        // Simulate a writer killed before the rename.
        let t = tempfile::Builder::new()
            .prefix(&temp_prefix(".tmp-", &path))
            .tempfile_in(tmp.path())
            .unwrap();
        let (_, kept) = t.keep().unwrap();
        assert!(kept
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(".tmp-config.toml-"));
        std::fs::create_dir(tmp.path().join(".old-gen-000003-abc")).unwrap();
        std::fs::write(tmp.path().join("keep.txt"), b"k").unwrap();
        assert_eq!(remove_stale_temps(tmp.path()).unwrap(), 2);
        assert_eq!(names(tmp.path()), vec!["keep.txt"]);
        assert_eq!(remove_stale_temps(&tmp.path().join("missing")).unwrap(), 0);
    }

    /// A real full disk: a 32 KiB tmpfs. Needs root (mount); skipped with a
    /// message otherwise.
    #[test]
    fn real_full_tmpfs_keeps_the_old_file() {
        let tmp = tempfile::tempdir().unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=32k", "tmpfs"])
            .arg(tmp.path())
            .stderr(std::process::Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !mounted {
            eprintln!("SKIPPED real_full_tmpfs_keeps_the_old_file: cannot mount a tmpfs (needs root); the injected-error tests cover the same path");
            return;
        }
        let path = tmp.path().join("model.json");
        // Measure first, unmount, then assert (a failed assert must not
        // leave the tmpfs mounted).
        let result = (|| {
            write_atomic(&path, b"{\"old\": true}")?;
            let kind = write_atomic(&path, &vec![7u8; 1 << 20])
                .err()
                .map(|e| e.kind());
            Ok::<_, Error>((kind, std::fs::read(&path)?, names(tmp.path())))
        })();
        let _ = std::process::Command::new("umount")
            .arg(tmp.path())
            .status();
        let (kind, content, left) = result.unwrap();
        assert_eq!(kind, Some(ErrorKind::StorageFull));
        assert_eq!(content, b"{\"old\": true}");
        assert_eq!(left, vec!["model.json"]);
    }

    #[test]
    fn a_folder_named_through_its_parent_is_replaced_not_lost() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("bundle");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("old"), b"old").unwrap();
        // `bundle/../bundle` and `bundle/.` name the same folder.
        for (i, spelled) in [
            tmp.path().join("bundle/../bundle"),
            tmp.path().join("bundle/."),
        ]
        .iter()
        .enumerate()
        {
            let file = format!("new{i}");
            replace_dir_atomic::<Error>(spelled, |t| std::fs::write(t.join(&file), b"new"))
                .unwrap();
            assert_eq!(names(&dir), vec![file]);
            assert_eq!(names(tmp.path()), vec!["bundle".to_string()]);
        }
        // A path that names no folder is refused, nothing written.
        for bad in [tmp.path().join("bundle/.."), std::path::PathBuf::from("/")] {
            let err = replace_dir_atomic::<Error>(&bad, |_| Ok(())).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{}", bad.display());
        }
        assert_eq!(names(tmp.path()), vec!["bundle".to_string()]);
    }
}
