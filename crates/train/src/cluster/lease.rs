//! `lease.json`: one trainer per store. The trainer creates the lease with
//! a create-only write (`If-None-Match: *`), renews it from a thread of its
//! own every third of its time to live, and deletes it when it stops. A
//! second trainer finds a lease that is not its own and not expired and is
//! refused, naming the holder.
//!
//! Where the store offers a compare-and-swap ([`Store::put_if`]: S3 and
//! compatible servers, `If-Match`), taking over an expired lease and every
//! renewal are conditional on the version last read or written: of two
//! trainers that find the same expired lease only one takes it, and a
//! trainer whose lease was taken over (it stalled past its time to live)
//! learns so at its next renewal, stops renewing, and refuses to publish
//! ([`Lease::check`]). On a store without one (a local folder) an expired
//! lease is deleted and created anew, and a renewal first reads the lease
//! and stops if another trainer holds it: the same guarantees up to the
//! moment between that read and the write.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use store::{Store, Swap, Version};

use super::keys;
use super::pointer::now_unix;
use crate::error::{Result, TrainError};

/// The lease object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaseRecord {
    /// The holder: `host:pid:random`, unique per trainer process.
    pub owner: String,
    /// When it was last renewed (Unix seconds).
    pub renewed_unix: u64,
    /// When it lapses unless renewed (Unix seconds).
    pub expires_unix: u64,
}

/// A held lease: renewed in the background, deleted on drop.
#[derive(Debug)]
pub struct Lease {
    owner: String,
    stop: Arc<AtomicBool>,
    /// The holder that took the lease over, once a renewal found one.
    lost: Arc<std::sync::Mutex<Option<String>>>,
    renewer: Option<JoinHandle<()>>,
    store: Arc<Store>,
}

/// `host:pid:random` for this process.
pub fn owner_id() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "host".into());
    format!(
        "{host}:{}:{:08x}",
        std::process::id(),
        rand::random::<u32>()
    )
}

fn record(owner: &str, ttl: Duration) -> Vec<u8> {
    let now = now_unix();
    serde_json::to_vec_pretty(&LeaseRecord {
        owner: owner.to_string(),
        renewed_unix: now,
        expires_unix: now + ttl.as_secs().max(1),
    })
    .unwrap_or_default()
}

impl Lease {
    /// Take the lease of `store` for `ttl`.
    ///
    /// # Errors
    /// [`TrainError::Leased`] when another live trainer holds it; a store
    /// error.
    pub fn acquire(store: Arc<Store>, ttl: Duration) -> Result<Lease> {
        let owner = owner_id();
        for _ in 0..3 {
            let mine = record(&owner, ttl);
            if store.put_new(keys::LEASE, &mine)? {
                let version = version_if_mine(&store, &mine)?;
                return Ok(Self::hold(store, owner, ttl, version));
            }
            let Some((bytes, version)) = store.get_versioned(keys::LEASE)? else {
                // Deleted since: try to create it again.
                continue;
            };
            match serde_json::from_slice::<LeaseRecord>(&bytes).ok() {
                Some(h) if h.expires_unix > now_unix() && h.owner != owner => {
                    return Err(TrainError::Leased {
                        store: store.describe(),
                        owner: h.owner,
                        seconds_left: h.expires_unix - now_unix(),
                    })
                }
                // Expired or unreadable: a dead trainer's.
                _ => {
                    eprintln!(
                        "taking over the expired trainer lease of {}",
                        store.describe()
                    );
                    let swap = match &version {
                        Some(v) => store.put_if(keys::LEASE, &mine, v)?,
                        None => Swap::Unsupported,
                    };
                    match swap {
                        Swap::Written(v) => {
                            let v = match v {
                                Some(v) => Some(v),
                                None => version_if_mine(&store, &mine)?,
                            };
                            return Ok(Self::hold(store, owner, ttl, v));
                        }
                        // Another trainer took it first (or the answer was
                        // lost): look again.
                        Swap::Changed => {}
                        Swap::Unsupported => store.delete(keys::LEASE)?,
                    }
                }
            }
        }
        Err(TrainError::Leased {
            store: store.describe(),
            owner: "another trainer starting at the same time".into(),
            seconds_left: ttl.as_secs(),
        })
    }

    fn hold(store: Arc<Store>, owner: String, ttl: Duration, version: Option<Version>) -> Lease {
        let stop = Arc::new(AtomicBool::new(false));
        let lost = Arc::new(std::sync::Mutex::new(None));
        let renewer = {
            let held = Held {
                store: store.clone(),
                owner: owner.clone(),
                ttl,
                version,
                lost: lost.clone(),
            };
            let stop = stop.clone();
            std::thread::spawn(move || renew_until(held, &stop))
        };
        Lease {
            owner,
            stop,
            lost,
            renewer: Some(renewer),
            store,
        }
    }

    /// Whether the lease is still held: an error naming the trainer that
    /// took it over once a renewal found one (this trainer stalled past
    /// the time to live). Checked before each publication, so a trainer
    /// that lost its lease publishes nothing more.
    ///
    /// # Errors
    /// [`TrainError::Cluster`] naming the new holder.
    pub fn check(&self) -> Result<()> {
        match self.lost.lock().ok().and_then(|l| l.clone()) {
            None => Ok(()),
            Some(holder) => Err(TrainError::Cluster(format!(
                "the trainer lease of {} was taken over by {holder} (this trainer stalled past \
                 --lease-ttl); stopping without publishing",
                self.store.describe()
            ))),
        }
    }

    /// The holder id written into the lease.
    pub fn owner(&self) -> &str {
        &self.owner
    }
}

/// The version of the lease in `store` when it holds `mine` (the record
/// this trainer just wrote), else `None`.
fn version_if_mine(store: &Store, mine: &[u8]) -> Result<Option<Version>> {
    Ok(store
        .get_versioned(keys::LEASE)?
        .and_then(|(bytes, v)| (bytes == mine).then_some(v).flatten()))
}

/// What the renewing thread holds.
struct Held {
    store: Arc<Store>,
    owner: String,
    ttl: Duration,
    /// The lease's version as last written (`None`: the store has no
    /// compare-and-swap, or did not report one).
    version: Option<Version>,
    lost: Arc<std::sync::Mutex<Option<String>>>,
}

impl Held {
    /// Renew once. `Ok(false)` when another trainer holds the lease now.
    fn renew(&mut self) -> Result<bool> {
        let mine = record(&self.owner, self.ttl);
        if let Some(v) = &self.version {
            match self.store.put_if(keys::LEASE, &mine, v)? {
                Swap::Written(next) => {
                    self.version = match next {
                        Some(n) => Some(n),
                        None => version_if_mine(&self.store, &mine)?,
                    };
                    return Ok(true);
                }
                Swap::Changed => {
                    // Ours still, when only the answer to our own write was
                    // lost.
                    if let Some(v) = version_if_mine(&self.store, &mine)? {
                        self.version = Some(v);
                        return Ok(true);
                    }
                    if !self.note_holder()? {
                        return Ok(false);
                    }
                    // Gone (deleted by a trainer that lost it at exit):
                    // create it again.
                    self.store.put_new(keys::LEASE, &mine)?;
                    self.version = version_if_mine(&self.store, &mine)?;
                    return Ok(true);
                }
                Swap::Unsupported => self.version = None,
            }
        }
        if !self.note_holder()? {
            return Ok(false);
        }
        self.store.put(keys::LEASE, &mine)?;
        Ok(true)
    }

    /// `Ok(true)` when the lease in the store is this trainer's (or gone);
    /// otherwise records its holder as the one that took it over.
    fn note_holder(&self) -> Result<bool> {
        let holder = self
            .store
            .get(keys::LEASE)?
            .and_then(|b| serde_json::from_slice::<LeaseRecord>(&b).ok())
            .map(|h| h.owner)
            .filter(|o| o != &self.owner);
        match holder {
            None => Ok(true),
            Some(h) => {
                eprintln!(
                    "warning: the trainer lease of {} was taken over by {h}",
                    self.store.describe()
                );
                if let Ok(mut lost) = self.lost.lock() {
                    *lost = Some(h);
                }
                Ok(false)
            }
        }
    }
}

/// Renew the lease every `ttl / 3` until `stop` (in steps of 100 ms, so a
/// drop does not wait long) or until another trainer holds it. A failed
/// renewal is reported and retried.
fn renew_until(mut held: Held, stop: &AtomicBool) {
    let period = (held.ttl / 3).max(Duration::from_millis(200));
    let mut waited = Duration::ZERO;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        waited += Duration::from_millis(100);
        if waited >= period {
            waited = Duration::ZERO;
            match held.renew() {
                Ok(true) => {}
                Ok(false) => return,
                Err(e) => eprintln!("warning: cannot renew the trainer lease: {e}"),
            }
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.renewer.take() {
            let _ = t.join();
        }
        // Only a lease still ours: one taken over belongs to its new holder.
        let ours = self
            .store
            .get(keys::LEASE)
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice::<LeaseRecord>(&b).ok())
            .is_some_and(|h| h.owner == self.owner);
        if ours {
            let _ = self.store.delete(keys::LEASE);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn foreign(owner: &str, expires_unix: u64) -> Vec<u8> {
        serde_json::to_vec(&LeaseRecord {
            owner: owner.into(),
            renewed_unix: now_unix(),
            expires_unix,
        })
        .unwrap()
    }

    fn holder(store: &Store) -> Option<String> {
        store
            .get(keys::LEASE)
            .unwrap()
            .and_then(|b| serde_json::from_slice::<LeaseRecord>(&b).ok())
            .map(|h| h.owner)
    }

    /// Refused while held; an expired lease is taken over; a trainer whose
    /// lease another took over notices at its next renewal, refuses to go
    /// on, and leaves the new holder's lease alone.
    fn exercise(store: Arc<Store>) {
        // Expiry is kept in whole seconds (at least one past now), so a
        // lease of under 2 s can lapse at once across a second boundary:
        // 3 s keeps the refusal below sure.
        let ttl = Duration::from_secs(3);
        let a = Lease::acquire(store.clone(), ttl).unwrap();
        assert_eq!(holder(&store).as_deref(), Some(a.owner()));
        let err = Lease::acquire(store.clone(), ttl).unwrap_err().to_string();
        assert!(err.contains(a.owner()), "{err}");
        // Renewals keep it (two periods of ttl / 3).
        std::thread::sleep(ttl * 2 / 3 + Duration::from_millis(200));
        a.check().unwrap();
        assert_eq!(holder(&store).as_deref(), Some(a.owner()));
        // Another trainer takes it over while this one stalls.
        store
            .put(keys::LEASE, &foreign("other:1:beef", now_unix() + 600))
            .unwrap();
        // The next renewal (within ttl / 3) notices.
        std::thread::sleep(ttl / 3 + Duration::from_millis(400));
        let err = a.check().unwrap_err().to_string();
        assert!(err.contains("other:1:beef"), "{err}");
        drop(a);
        assert_eq!(holder(&store).as_deref(), Some("other:1:beef"));
        // An expired lease is taken over.
        store
            .put(keys::LEASE, &foreign("dead:2:cafe", now_unix() - 5))
            .unwrap();
        let b = Lease::acquire(store.clone(), ttl).unwrap();
        assert_eq!(holder(&store).as_deref(), Some(b.owner()));
        b.check().unwrap();
        drop(b);
        assert_eq!(holder(&store), None, "deleted at exit");
    }

    #[test]
    fn the_lease_on_a_local_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(&tmp.path().display().to_string()).unwrap();
        exercise(Arc::new(store));
    }

    #[test]
    fn s3_the_lease_with_compare_and_swap() {
        if std::env::var_os("AWS_ENDPOINT").is_none() {
            println!("SKIPPED: s3_the_lease_with_compare_and_swap: AWS_ENDPOINT is unset");
            return;
        }
        let bucket = std::env::var("AWS_BUCKET").unwrap_or_else(|_| "lokizero".into());
        let url = format!("s3://{bucket}/test-lease-{:08x}", rand::random::<u32>());
        exercise(Arc::new(Store::open(&url).unwrap()));
    }
}
