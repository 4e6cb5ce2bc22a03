//! The games in play: each under an unguessable id, dropped after idling,
//! at most a configured number at once, and marked busy while a bot move
//! is searched so no other request changes the game under the search.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rules::{Player, VariantId};

use crate::error::ApiError;
use crate::table::{Table, TableView};

/// A game and its bookkeeping.
struct Slot {
    table: Box<dyn Table>,
    touched: Instant,
    busy: bool,
}

/// What a bot search needs to know of a game: the variant, the start and
/// the moves (the bot replays them, so repetition history counts).
#[derive(Clone, Debug)]
pub struct SearchJob {
    /// The game id.
    pub id: String,
    /// The variant.
    pub variant: VariantId,
    /// The side to move (the bot's side).
    pub side: Player,
    /// The start position text (`None` = the variant's start).
    pub start: Option<String>,
    /// The moves played.
    pub moves: Vec<String>,
}

/// All games, by id.
pub struct Games {
    slots: Mutex<HashMap<String, Slot>>,
    max_games: usize,
    idle_timeout: Duration,
}

impl Games {
    /// An empty store holding at most `max_games`, each dropped after
    /// `idle_timeout` without a request.
    pub fn new(max_games: usize, idle_timeout: Duration) -> Self {
        Games {
            slots: Mutex::new(HashMap::new()),
            max_games,
            idle_timeout,
        }
    }

    /// The map. A panic while it was held cannot leave a game half
    /// changed (each change is one assignment), so a poisoned lock is used
    /// as it is.
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Slot>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Number of games held.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when no game is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Add `table` under a new id; returns the id and the state.
    ///
    /// # Errors
    /// [`ApiError::TooManyGames`] at the cap, after dropping idle games.
    pub fn insert(&self, table: Box<dyn Table>) -> Result<(String, TableView), ApiError> {
        let mut slots = self.lock();
        if slots.len() >= self.max_games {
            drop_idle(&mut slots, self.idle_timeout);
        }
        if slots.len() >= self.max_games {
            return Err(ApiError::TooManyGames(self.max_games));
        }
        // 128 random bits: another client cannot guess a game's id.
        let id = format!("{:032x}", rand::random::<u128>());
        let view = table.view();
        slots.insert(
            id.clone(),
            Slot {
                table,
                touched: Instant::now(),
                busy: false,
            },
        );
        Ok((id, view))
    }

    /// The state of game `id`.
    ///
    /// # Errors
    /// [`ApiError::UnknownGame`].
    pub fn view(&self, id: &str) -> Result<TableView, ApiError> {
        let mut slots = self.lock();
        let slot = touch(&mut slots, id)?;
        Ok(slot.table.view())
    }

    /// The state of game `id` as it stood after its first `ply` moves.
    ///
    /// # Errors
    /// [`ApiError::UnknownGame`], or those of [`Table::view_at`].
    pub fn view_at(&self, id: &str, ply: usize) -> Result<TableView, ApiError> {
        let mut slots = self.lock();
        let slot = touch(&mut slots, id)?;
        slot.table.view_at(ply)
    }

    /// Play `token` in game `id`.
    ///
    /// # Errors
    /// [`ApiError::UnknownGame`], [`ApiError::Busy`] while a bot move is
    /// searched, or the errors of [`Table::play`].
    pub fn play(&self, id: &str, token: &str) -> Result<TableView, ApiError> {
        let mut slots = self.lock();
        let slot = touch(&mut slots, id)?;
        if slot.busy {
            return Err(ApiError::Busy(id.to_string()));
        }
        slot.table.play(token)?;
        Ok(slot.table.view())
    }

    /// Take back the last `plies` moves of game `id`.
    ///
    /// # Errors
    /// [`ApiError::UnknownGame`], [`ApiError::Busy`] while a bot move is
    /// searched, or the errors of [`Table::undo`].
    pub fn undo(&self, id: &str, plies: usize) -> Result<TableView, ApiError> {
        let mut slots = self.lock();
        let slot = touch(&mut slots, id)?;
        if slot.busy {
            return Err(ApiError::Busy(id.to_string()));
        }
        slot.table.undo(plies)?;
        Ok(slot.table.view())
    }

    /// Mark game `id` busy for a bot search and describe it; the
    /// [`BusyGuard`] clears the mark when dropped, whether or not the move
    /// was played.
    ///
    /// # Errors
    /// [`ApiError::UnknownGame`], [`ApiError::Busy`] when a search is
    /// already running, [`ApiError::GameOver`] when there is no move.
    pub fn begin_search(&self, id: &str) -> Result<(SearchJob, BusyGuard<'_>), ApiError> {
        let mut slots = self.lock();
        let slot = touch(&mut slots, id)?;
        if slot.busy {
            return Err(ApiError::Busy(id.to_string()));
        }
        if let Some(text) = slot.table.over() {
            return Err(ApiError::GameOver(text));
        }
        slot.busy = true;
        let job = SearchJob {
            id: id.to_string(),
            variant: slot.table.variant(),
            side: slot.table.side_to_move(),
            start: slot.table.start().map(str::to_string),
            moves: slot.table.moves().to_vec(),
        };
        Ok((
            job,
            BusyGuard {
                games: self,
                id: id.to_string(),
            },
        ))
    }

    /// Play the bot's `token` in the game of `job` (still busy), noting
    /// `wdl_first` (its search's root value, first player's view; `None`
    /// for a move chosen without a search) as the evaluation behind it.
    ///
    /// # Errors
    /// [`ApiError::UnknownGame`] if the game vanished;
    /// [`ApiError::Internal`] if the game moved on under the search (it
    /// cannot while busy) or the rules refuse the bot's move.
    pub fn finish_search(
        &self,
        job: &SearchJob,
        token: &str,
        wdl_first: Option<[f32; 3]>,
    ) -> Result<TableView, ApiError> {
        let mut slots = self.lock();
        let slot = touch(&mut slots, &job.id)?;
        if slot.table.moves() != job.moves.as_slice() {
            return Err(ApiError::Internal(format!(
                "game {} changed during the search",
                job.id
            )));
        }
        slot.table.play(token).map_err(|e| {
            ApiError::Internal(format!("the bot's move {token:?} was refused: {e}"))
        })?;
        if let Some(wdl) = wdl_first {
            slot.table.evaluated(wdl);
        }
        Ok(slot.table.view())
    }

    /// Drop the games idle for longer than the timeout; returns how many.
    pub fn drop_idle(&self) -> usize {
        drop_idle(&mut self.lock(), self.idle_timeout)
    }
}

/// Clears a game's busy mark when dropped (after the search, or when the
/// request is cancelled while it runs).
pub struct BusyGuard<'a> {
    games: &'a Games,
    id: String,
}

impl Drop for BusyGuard<'_> {
    fn drop(&mut self) {
        if let Some(slot) = self.games.lock().get_mut(&self.id) {
            slot.busy = false;
        }
    }
}

/// The slot of `id`, its idle clock restarted.
fn touch<'a>(slots: &'a mut HashMap<String, Slot>, id: &str) -> Result<&'a mut Slot, ApiError> {
    let slot = slots
        .get_mut(id)
        .ok_or_else(|| ApiError::UnknownGame(id.to_string()))?;
    slot.touched = Instant::now();
    Ok(slot)
}

/// Remove the games idle for longer than `timeout` (a busy game is never
/// idle: its search will touch it).
fn drop_idle(slots: &mut HashMap<String, Slot>, timeout: Duration) -> usize {
    let before = slots.len();
    slots.retain(|_, slot| slot.busy || slot.touched.elapsed() <= timeout);
    before - slots.len()
}
