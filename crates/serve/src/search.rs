//! Bot searches: at most `max_searches` at once (a semaphore), each on a
//! tokio blocking thread with a bot from the [`Catalog`] pool, never on the
//! async executor.
//!
//! Each search gets a stop flag of its own ([`Budget::stop`]), set when
//! its request goes away (the client disconnected, or the request was
//! cancelled: the future of [`Searches::run`] is dropped) and when the
//! service shuts down ([`Searches::close`]), so a search nobody waits for
//! stops at its next network batch and frees its slot.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bot::{Bot, MoveChoice, Strength};
use search::Budget;
use tokio::sync::Semaphore;

use crate::catalog::Catalog;
use crate::error::ApiError;
use crate::games::SearchJob;

/// The search slots.
pub struct Searches {
    slots: Arc<Semaphore>,
    size: usize,
    queue_timeout: Duration,
    /// The stop flags of the searches waiting or running, by a serial
    /// number; `None` once closed.
    flags: Mutex<Option<Flags>>,
}

/// The stop flags of the live searches and the next serial number.
#[derive(Default)]
struct Flags {
    next: u64,
    live: HashMap<u64, Arc<AtomicBool>>,
}

impl Searches {
    /// `size` slots; a request waits at most `queue_timeout` for one.
    pub fn new(size: usize, queue_timeout: Duration) -> Self {
        Searches {
            slots: Arc::new(Semaphore::new(size)),
            size,
            queue_timeout,
            flags: Mutex::new(Some(Flags::default())),
        }
    }

    /// Run `work` with a bot of `variant` on a blocking thread once a slot
    /// is free; the bot goes back to the pool afterwards. `work` gets the
    /// search's stop flag, to put in its [`Budget::stop`]: it is set when
    /// this future is dropped before the search ends (the client went
    /// away) or the searches are [closed](Searches::close), so the search
    /// stops at once and its slot comes free.
    ///
    /// # Errors
    /// [`ApiError::SearchesBusy`] when no slot came free in time,
    /// [`ApiError::ShuttingDown`] once the searches are closed (also for a
    /// request still waiting for a slot then), the errors of
    /// [`Catalog::take`] and of `work`, and [`ApiError::Internal`] if the
    /// search thread panicked.
    pub async fn run<T, F>(
        &self,
        catalog: &Arc<Catalog>,
        variant: rules::VariantId,
        work: F,
    ) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Bot, Arc<AtomicBool>) -> Result<T, ApiError> + Send + 'static,
    {
        // Registered before queueing, so a close while waiting stops it too.
        let guard = self.register()?;
        let permit = match tokio::time::timeout(
            self.queue_timeout,
            self.slots.clone().acquire_owned(),
        )
        .await
        {
            Err(_elapsed) => return Err(ApiError::SearchesBusy(self.size)),
            // Only `close` closes the semaphore.
            Ok(Err(_closed)) => return Err(ApiError::ShuttingDown),
            Ok(Ok(permit)) => permit,
        };
        if guard.flag.load(Ordering::SeqCst) {
            return Err(ApiError::ShuttingDown);
        }
        let catalog = Arc::clone(catalog);
        let stop = Arc::clone(&guard.flag);
        let result = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let mut bot = catalog.take(variant)?;
            let result = work(&mut bot, stop);
            catalog.give_back(bot);
            result
        })
        .await
        .map_err(|e| ApiError::Internal(format!("search thread failed: {e}")))?;
        drop(guard);
        result
    }

    /// Shut the searches down: every search waiting or running is told to
    /// stop at once, a request waiting for a slot gets
    /// [`ApiError::ShuttingDown`], and so does every later one. For good:
    /// a closed `Searches` does not reopen.
    pub fn close(&self) {
        let flags = self.lock().take();
        self.slots.close();
        for flag in flags.iter().flat_map(|f| f.live.values()) {
            flag.store(true, Ordering::SeqCst);
        }
    }

    /// Whether [`Searches::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.lock().is_none()
    }

    /// How many searches hold a slot now (running, or just ending).
    pub fn running(&self) -> usize {
        self.size.saturating_sub(self.slots.available_permits())
    }

    /// How many search requests are waiting for a slot or running (0 once
    /// closed).
    pub fn pending(&self) -> usize {
        self.lock().as_ref().map_or(0, |f| f.live.len())
    }

    /// A new stop flag, registered until the guard drops.
    fn register(&self) -> Result<StopOnDrop<'_>, ApiError> {
        let mut flags = self.lock();
        let flags = flags.as_mut().ok_or(ApiError::ShuttingDown)?;
        let id = flags.next;
        flags.next += 1;
        let flag = Arc::new(AtomicBool::new(false));
        flags.live.insert(id, Arc::clone(&flag));
        Ok(StopOnDrop {
            searches: self,
            id,
            flag,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Option<Flags>> {
        // A panic elsewhere while holding the lock leaves the map usable.
        self.flags
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A search's stop flag: set and unregistered when dropped, which is when
/// the search's request ends, including when its future is dropped
/// mid-search because the client went away.
struct StopOnDrop<'a> {
    searches: &'a Searches,
    id: u64,
    flag: Arc<AtomicBool>,
}

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.flag.store(true, Ordering::SeqCst);
        if let Some(flags) = self.searches.lock().as_mut() {
            flags.live.remove(&self.id);
        }
    }
}

/// Choose the bot's move in the game of `job` under `limits` at `strength`.
///
/// # Errors
/// As [`Bot::choose_move`], mapped to [`ApiError`].
pub fn choose(
    bot: &mut Bot,
    job: &SearchJob,
    limits: &Budget,
    strength: Strength,
) -> Result<MoveChoice, ApiError> {
    bot.set_strength(strength)?;
    // Fresh randomness per move, so sampled levels do not repeat a game.
    bot.set_seed(rand::random());
    bot.set_position(job.start.as_deref(), &job.moves)?;
    Ok(bot.choose_move(limits, &mut |_| {})?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_guard_sets_its_flag_and_close_sets_the_live_ones() {
        let searches = Searches::new(1, Duration::from_secs(1));
        let first = searches.register().unwrap();
        let flag = Arc::clone(&first.flag);
        drop(first);
        assert!(flag.load(Ordering::SeqCst), "dropping the guard stops");
        assert!(searches.lock().as_ref().unwrap().live.is_empty());
        let live = searches.register().unwrap();
        assert!(!live.flag.load(Ordering::SeqCst));
        searches.close();
        assert!(live.flag.load(Ordering::SeqCst), "close stops it");
        assert!(searches.is_closed());
        assert!(matches!(searches.register(), Err(ApiError::ShuttingDown)));
    }
}
