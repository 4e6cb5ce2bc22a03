//! The self-play driver: many games in flight at once, their search leaves
//! evaluated together in one network batch per step (AlphaZero self-play,
//! batched as in KataGo/Leela: a single evaluator call serves every game),
//! each game's move played once its search is done and a finished game's
//! slot handed to the next game.
//!
//! Playout cap randomisation (KataGo, Wu 2019, "Accelerating Self-Play
//! Learning in Go", section 3.1): with `full_search_prob < 1`, each searched
//! move is a full search (`simulations` visits, root exploration on,
//! recorded as a training target) with that probability, otherwise a fast
//! search (`fast_simulations` visits, no root noise or forced playouts, not
//! recorded).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules::Game;
use search::{Batch, Evaluator, TreeWork};

use crate::games::Games;
use crate::record::GameRecord;
use crate::slot::Slot;
use crate::stats::SelfPlayStats;

impl<G> Copy for Games<'_, G> {}

/// Play `games` with `evaluator`, calling `on_game` for each finished game
/// (in completion order). The tree work of each step is spread over the
/// rayon pool.
pub fn play_games<G: Game, E: Evaluator<G>>(
    games: &Games<'_, G>,
    evaluator: &mut E,
    on_game: impl FnMut(GameRecord),
) -> SelfPlayStats {
    play_games_on(games, evaluator, TreeWork::Parallel, on_game)
}

/// [`play_games`] with the tree work done as `work` says (a scheduling
/// choice only: the games are the same either way).
pub(crate) fn play_games_on<G: Game, E: Evaluator<G>>(
    games: &Games<'_, G>,
    evaluator: &mut E,
    work: TreeWork,
    on_game: impl FnMut(GameRecord),
) -> SelfPlayStats {
    let config = games.config;
    let mut driver = Driver {
        games,
        seeds: SmallRng::seed_from_u64(games.seed),
        started: 0,
        stats: SelfPlayStats {
            resign_on: config.resign,
            ..SelfPlayStats::default()
        },
        on_game,
    };
    let mut slots: Vec<Slot<G>> = Vec::new();
    while slots.len() < config.concurrent_games {
        let Some(slot) = driver.next_game() else {
            break;
        };
        slots.push(slot);
    }
    let mut batch = Batch::new(config.leaves_per_tree).with_tree_work(work);
    while !slots.is_empty() {
        driver.stats.evaluations += batch.step(&mut slots, evaluator) as u64;
        driver.play_moves(&mut slots);
    }
    driver.stats
}

/// The state of a [`play_games_on`] call between steps.
struct Driver<'a, G, F> {
    games: &'a Games<'a, G>,
    /// Draws each game's seed, in the order the games start.
    seeds: SmallRng,
    /// Games started so far.
    started: usize,
    stats: SelfPlayStats,
    on_game: F,
}

impl<G: Game, F: FnMut(GameRecord)> Driver<'_, G, F> {
    /// A slot for the next game, if any game is left to start.
    fn next_game(&mut self) -> Option<Slot<G>> {
        if self.started >= self.games.count {
            return None;
        }
        self.started += 1;
        Some(Slot::new(self.games, self.seeds.random()))
    }

    /// Play the move of every slot whose search is done; a finished game
    /// is reported and its slot given to the next game (or dropped).
    fn play_moves(&mut self, slots: &mut Vec<Slot<G>>) {
        let mut i = 0;
        while i < slots.len() {
            if slots[i].search_done() {
                let config = self.games.config;
                if let Some(record) = slots[i].play_move(config, &mut self.stats) {
                    (self.on_game)(record);
                    self.stats.games += 1;
                    match self.next_game() {
                        Some(slot) => slots[i] = slot,
                        None => {
                            slots.swap_remove(i);
                            continue;
                        }
                    }
                }
            }
            i += 1;
        }
    }
}
