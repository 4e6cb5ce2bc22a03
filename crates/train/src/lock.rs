//! One writer per run directory: a `lock` file holding the owner's process
//! id, created exclusively when a run starts and removed when it ends.
//! Two runs writing the same directory would interleave `metrics.jsonl`
//! and overwrite each other's checkpoints.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Result, TrainError};

/// Held for the life of a run; removes the lock file on drop.
#[derive(Debug)]
pub struct RunLock {
    path: PathBuf,
}

impl RunLock {
    /// Take the lock of run directory `root`. A lock left by a process that
    /// no longer exists (a killed run) is taken over; where liveness cannot
    /// be checked (no `/proc`), an existing lock is respected.
    ///
    /// # Errors
    /// The directory is in use by a live process (named), or the lock file
    /// cannot be created.
    pub fn acquire(root: &Path) -> Result<Self> {
        let path = root.join("lock");
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    write!(file, "{}", std::process::id())
                        .map_err(TrainError::io("write", &path))?;
                    return Ok(RunLock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let owner = std::fs::read_to_string(&path).unwrap_or_default();
                    let pid = owner.trim().parse::<u32>().ok();
                    if pid.is_some_and(is_gone) {
                        // A killed run's lock: take it over.
                        let _ = std::fs::remove_file(&path);
                        continue;
                    }
                    return Err(TrainError::Locked {
                        root: root.to_path_buf(),
                        owner: owner.trim().to_string(),
                        lock: path,
                    });
                }
                Err(e) => return Err(TrainError::io("create", &path)(e)),
            }
        }
        // Taken over twice and lost both times: another run is starting.
        Err(TrainError::Locked {
            root: root.to_path_buf(),
            owner: "starting at the same time".into(),
            lock: path,
        })
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether process `pid` surely no longer exists (Linux `/proc`; `false`
/// where that cannot be told). `/proc/N` also answers for a thread id
/// that is not listed, so a dead run's pid reused as some other
/// process's thread id would keep the lock forever: a pid whose status
/// names another thread group (`Tgid`) is gone too.
fn is_gone(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/status")) {
        Err(_) => true,
        Ok(status) => status
            .lines()
            .find_map(|l| l.strip_prefix("Tgid:"))
            .and_then(|t| t.trim().parse::<u32>().ok())
            .is_some_and(|tgid| tgid != pid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_run_is_refused_and_a_dead_owner_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let lock = RunLock::acquire(dir.path()).unwrap();
        let err = RunLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(err.contains("in use by process"), "{err}");
        drop(lock);
        assert!(!dir.path().join("lock").exists());
        if !Path::new("/proc/self").exists() {
            return; // Liveness cannot be told here.
        }
        // A lock naming a process that does not exist (pid beyond pid_max).
        std::fs::write(dir.path().join("lock"), "4294967295").unwrap();
        let taken = RunLock::acquire(dir.path()).unwrap();
        drop(taken);
        // A lock naming a live process's other thread (a dead run's pid
        // reused as a thread id): not a process, so taken over.
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            tx.send(std::fs::read_link("/proc/thread-self").ok())
                .unwrap();
            done_rx.recv().ok();
        });
        let tid = rx
            .recv()
            .unwrap()
            .and_then(|p| p.file_name()?.to_str()?.parse::<u32>().ok());
        if let Some(tid) = tid.filter(|&t| t != std::process::id()) {
            assert!(!is_gone(std::process::id()));
            std::fs::write(dir.path().join("lock"), tid.to_string()).unwrap();
            drop(RunLock::acquire(dir.path()).unwrap());
        }
        done_tx.send(()).unwrap();
        thread.join().unwrap();
    }
}
