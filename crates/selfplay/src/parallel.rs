//! Self-play on several threads, each a worker with its own evaluator and
//! its share of the games.

use std::sync::Mutex;

use rules::Game;
use search::{Evaluator, TreeWork};

use crate::config::SelfPlayConfig;
use crate::driver::play_games_on;
use crate::games::Games;
use crate::record::GameRecord;
use crate::stats::SelfPlayStats;

/// Mixed into the run's seed per worker.
const WORKER_SEED_SALT: u64 = 0x9E37_79B9_7F4A_7C15;

/// [`crate::play_games`] on `workers` threads, each with its own evaluator
/// from `make_evaluator(worker)`, its share of the games and its share of
/// `config.concurrent_games` (the total over all workers, rounded up per
/// worker). Two workers keep both cores of a small machine busy: while one
/// does tree work on its own thread, the other runs its network batch on
/// the rayon pool. `on_game` is called under a lock.
pub fn play_games_parallel<G: Game, E: Evaluator<G>>(
    games: &Games<'_, G>,
    workers: usize,
    make_evaluator: impl Fn(usize) -> E + Sync,
    on_game: impl FnMut(GameRecord) + Send,
) -> SelfPlayStats {
    let workers = workers.clamp(1, games.count.max(1));
    let config = &SelfPlayConfig {
        concurrent_games: games.config.concurrent_games.div_ceil(workers),
        ..games.config.clone()
    };
    let work = if workers == 1 {
        TreeWork::Parallel
    } else {
        TreeWork::OwnThread
    };
    let on_game = Mutex::new(on_game);
    let stats: Vec<SelfPlayStats> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let share = Games {
                    config,
                    count: games.count / workers + usize::from(w < games.count % workers),
                    seed: games.seed ^ (w as u64).wrapping_mul(WORKER_SEED_SALT),
                    ..*games
                };
                let (make_evaluator, on_game) = (&make_evaluator, &on_game);
                scope.spawn(move || {
                    let mut evaluator = make_evaluator(w);
                    let on_game = |r| {
                        if let Ok(mut f) = on_game.lock() {
                            f(r);
                        }
                    };
                    play_games_on(&share, &mut evaluator, work, on_game)
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    stats
        .into_iter()
        .fold(SelfPlayStats::default(), |mut a, s| {
            a.merge(s);
            a
        })
}
