//! Bot searches: at most `max_searches` at once (a semaphore), each on a
//! tokio blocking thread with a bot from the [`Catalog`] pool, never on the
//! async executor.

use std::sync::Arc;
use std::time::Duration;

use bot::{Bot, Limits, MoveChoice, Strength};
use tokio::sync::Semaphore;

use crate::catalog::Catalog;
use crate::error::ApiError;
use crate::games::SearchJob;

/// The search slots.
pub struct Searches {
    slots: Arc<Semaphore>,
    size: usize,
    queue_timeout: Duration,
}

impl Searches {
    /// `size` slots; a request waits at most `queue_timeout` for one.
    pub fn new(size: usize, queue_timeout: Duration) -> Self {
        Searches {
            slots: Arc::new(Semaphore::new(size)),
            size,
            queue_timeout,
        }
    }

    /// Run `work` with a bot of `variant` on a blocking thread once a slot
    /// is free; the bot goes back to the pool afterwards.
    ///
    /// # Errors
    /// [`ApiError::SearchesBusy`] when no slot came free in time, the
    /// errors of [`Catalog::take`] and of `work`, and
    /// [`ApiError::Internal`] if the search thread panicked.
    pub async fn run<T, F>(
        &self,
        catalog: &Arc<Catalog>,
        variant: rules::VariantId,
        work: F,
    ) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Bot) -> Result<T, ApiError> + Send + 'static,
    {
        let permit = tokio::time::timeout(self.queue_timeout, self.slots.clone().acquire_owned())
            .await
            .map_err(|_| ApiError::SearchesBusy(self.size))?
            .map_err(|_| ApiError::Internal("the search slots were closed".into()))?;
        let catalog = Arc::clone(catalog);
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let mut bot = catalog.take(variant)?;
            let result = work(&mut bot);
            catalog.give_back(bot);
            result
        })
        .await
        .map_err(|e| ApiError::Internal(format!("search thread failed: {e}")))?
    }
}

/// Choose the bot's move in the game of `job` under `limits` at `strength`.
///
/// # Errors
/// As [`Bot::choose_move`], mapped to [`ApiError`].
pub fn choose(
    bot: &mut Bot,
    job: &SearchJob,
    limits: &Limits,
    strength: Strength,
) -> Result<MoveChoice, ApiError> {
    bot.set_strength(strength)?;
    // Fresh randomness per move, so sampled levels do not repeat a game.
    bot.set_seed(rand::random());
    bot.set_position(job.start.as_deref(), &job.moves)?;
    Ok(bot.choose_move(limits, &mut |_| {})?)
}
