//! The Fairy-Stockfish variant definition of `viking` that ships with the
//! project (`configs/fairy-stockfish/viking.ini`). It is built into the
//! binary, so no path outside the program is needed: when a Fairy-Stockfish
//! player needs it as a file (`VariantPath`), [`viking_ini_path`] writes it
//! to the temporary folder once.

use std::path::{Path, PathBuf};

/// The text of `configs/fairy-stockfish/viking.ini`.
pub const VIKING_INI: &str = include_str!("../../../configs/fairy-stockfish/viking.ini");

/// Why the viking variant file cannot be handed to Fairy-Stockfish.
#[derive(Debug, thiserror::Error)]
pub enum VikingIniError {
    /// The file given does not exist.
    #[error("viking variant file {0} not found (omit --viking-ini to use the one built in)")]
    Missing(PathBuf),
    /// The built-in definition could not be written to the temporary folder.
    #[error("cannot write the viking variant file {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// The viking variant file to hand to Fairy-Stockfish: `given` when set
/// (it must be a file), else a temp-folder copy of [`VIKING_INI`].
///
/// # Errors
/// [`VikingIniError`] naming the file that is missing or could not be
/// written.
pub fn viking_ini_path(given: Option<&Path>) -> Result<PathBuf, VikingIniError> {
    match given {
        Some(path) if path.is_file() => Ok(path.to_path_buf()),
        Some(path) => Err(VikingIniError::Missing(path.to_path_buf())),
        None => write_shipped(&std::env::temp_dir()),
    }
}

/// Write [`VIKING_INI`] into `dir` under a name that depends on its content
/// (so concurrent runs and other versions never clash), unless a file with
/// that content is already there. The write goes to a process-unique
/// temporary name first, then is renamed into place.
fn write_shipped(dir: &Path) -> Result<PathBuf, VikingIniError> {
    let path = dir.join(format!("lokizero-viking-{:016x}.ini", fnv1a(VIKING_INI)));
    if std::fs::read_to_string(&path).is_ok_and(|text| text == VIKING_INI) {
        return Ok(path);
    }
    let temp = path.with_extension(format!("{}.tmp", std::process::id()));
    std::fs::write(&temp, VIKING_INI)
        .and_then(|()| std::fs::rename(&temp, &path))
        .map_err(|source| VikingIniError::Write {
            path: path.clone(),
            source,
        })?;
    Ok(path)
}

/// 64-bit FNV-1a hash of `text` (a stable file-name tag).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_definition_is_written_once_and_reused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let first = write_shipped(dir.path()).expect("written");
        assert_eq!(std::fs::read_to_string(&first).expect("read"), VIKING_INI);
        assert_eq!(write_shipped(dir.path()).expect("reused"), first);
        assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 1);
    }

    #[test]
    fn shipped_definition_is_the_viking_variant() {
        assert!(VIKING_INI.starts_with("[viking]"));
        assert!(VIKING_INI.contains("customPiece1 = o:mbWcbF"));
    }

    #[test]
    fn a_given_file_is_used_and_a_missing_one_is_an_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("v.ini");
        std::fs::write(&file, "[viking]\n").expect("write");
        assert_eq!(viking_ini_path(Some(&file)).expect("given"), file);
        let missing = dir.path().join("none.ini");
        let err = viking_ini_path(Some(&missing)).expect_err("missing file");
        assert!(err.to_string().contains("none.ini"), "{err}");
    }
}
