//! One game in flight: its position, search tree, record and random
//! streams, and the setup of each move's search (full or fast, playout cap
//! randomisation). A slot takes part in the batched step of
//! [`search::Batch`] as a [`BatchedSearch`].

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules::Game;
use search::{BatchedSearch, Mcts};

use crate::config::SelfPlayConfig;
use crate::games::Games;
use crate::record::GameRecord;
use crate::resign::ResignTracker;

/// One game in flight.
pub(crate) struct Slot<G: Game> {
    /// The position.
    pub game: G,
    /// The search of the current move (a subtree of the previous one).
    pub tree: Mcts<G>,
    /// The record so far.
    pub record: GameRecord,
    /// Drives root noise and the move choice.
    pub rng: SmallRng,
    /// Draws full or fast search per move (playout cap randomisation), a
    /// stream of its own so the draws do not depend on the search.
    cap_rng: SmallRng,
    /// Only one legal action: play it without searching.
    pub forced: bool,
    /// The current move gets a full search (recorded).
    pub full: bool,
    /// Root visits the current move's search runs to (its node limit).
    pub target: u32,
    /// Resignation state of this game.
    pub resign: ResignTracker,
}

/// Mixed into a slot's seed for its playout-cap stream.
pub(crate) const CAP_SEED_SALT: u64 = 0x9e37_79b9_7f4a_7c15;
/// Mixed into a slot's seed for the draw of its start position.
const BRANCH_SEED_SALT: u64 = 0x2545_f491_4f6c_dd1d;

/// The start of the game seeded `seed`: one of `games.branch_starts` with
/// probability `branch_fraction`, else `games.start`. A stream of its own,
/// drawn only when branching is on, so runs without it keep their games.
fn branch_start<'a, G>(games: &Games<'a, G>, seed: u64) -> &'a G {
    let (pool, fraction) = (games.branch_starts, games.config.branch_fraction);
    if pool.is_empty() || fraction <= 0.0 {
        return games.start;
    }
    let mut rng = SmallRng::seed_from_u64(seed ^ BRANCH_SEED_SALT);
    if rng.random::<f32>() < fraction {
        &pool[rng.random_range(0..pool.len())]
    } else {
        games.start
    }
}

impl<G: Game> Slot<G> {
    /// A new game of `games` from its start, with its random streams
    /// seeded from `seed`.
    pub fn new(games: &Games<'_, G>, seed: u64) -> Self {
        let (start, config) = (branch_start(games, seed), games.config);
        let mut cap_rng = SmallRng::seed_from_u64(seed ^ CAP_SEED_SALT);
        // Drawn from `cap_rng` only when resignation is on, so runs without
        // it keep their playout-cap draws.
        let played_out = !config.resign || cap_rng.random::<f32>() < config.resign_playout_fraction;
        let mut slot = Slot {
            game: start.clone(),
            tree: Mcts::new(start.clone(), games.search),
            record: GameRecord::new(start.to_text()),
            rng: SmallRng::seed_from_u64(seed),
            cap_rng,
            forced: start.legal_vec().len() == 1,
            full: true,
            target: config.simulations,
            resign: ResignTracker::new(!played_out, config.resign_consecutive),
        };
        slot.begin_move(config);
        slot
    }

    /// Set up the search of the next move: full (with the side to move's
    /// budget, [`SelfPlayConfig::full_simulations`]) or fast (one draw from
    /// `cap_rng` per searched move, none when `full_search_prob >= 1`).
    pub fn begin_move(&mut self, config: &SelfPlayConfig) {
        if self.forced {
            return;
        }
        self.full = config.full_search_prob >= 1.0
            || self.cap_rng.random::<f32>() < config.full_search_prob;
        self.target = if self.full {
            config.full_simulations(self.game.side_to_move())
        } else {
            config.fast_simulations.max(1)
        };
        self.tree.set_exploration(self.full);
    }

    /// Whether the current move is ready to be played: forced, or its
    /// search reached its node limit.
    pub fn search_done(&self) -> bool {
        self.forced || self.tree.reached(self.target)
    }
}

impl<G: Game> AsRef<Mcts<G>> for Slot<G> {
    fn as_ref(&self) -> &Mcts<G> {
        &self.tree
    }
}

impl<G: Game> AsMut<Mcts<G>> for Slot<G> {
    fn as_mut(&mut self) -> &mut Mcts<G> {
        &mut self.tree
    }
}

impl<G: Game> BatchedSearch<G> for Slot<G> {
    fn node_limit(&self) -> Option<u32> {
        (!self.forced).then_some(self.target)
    }

    fn select_leaves(&mut self, max: usize) {
        self.tree.select_leaves(max, &mut self.rng);
    }
}
