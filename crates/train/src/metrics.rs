//! The metrics log: one JSON object per line (`metrics.jsonl`), rewritten
//! atomically with each new line so a kill never leaves a torn line.

use std::path::Path;

use fsio::write_atomic;

/// Append `record` as one JSON line to the log at `path`.
///
/// # Errors
/// I/O errors; the existing log is unchanged on error.
pub fn append_metrics(path: &Path, record: &serde_json::Value) -> std::io::Result<()> {
    let mut text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&record.to_string());
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// Read every record of the log (lines that fail to parse are reported).
pub fn read_metrics(path: &Path) -> Result<Vec<serde_json::Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| format!("{} line {}: {e}", path.display(), i + 1))
        })
        .collect()
}
