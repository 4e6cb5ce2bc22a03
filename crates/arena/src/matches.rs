//! Matches: `n` games between two players, alternating colours, games in
//! parallel.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rules::{Game, Player as Side};

use crate::elo::EloEstimate;
use crate::opening::{opening_seed, random_opening_from, Opening};
use crate::player::Contestant;
use crate::single_game::{play_game, GameResult};
use crate::sprt::{SprtConfig, SprtDecision, SprtState};
use crate::wdl::WdlCounts;

/// One finished game of a match (a line of a match journal, see
/// [`run_match_resuming`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MatchGame {
    /// Game number (0-based); even games A plays first.
    pub index: usize,
    /// Whether A moved first.
    pub a_first: bool,
    /// The game.
    pub result: GameResult,
}

/// Play the games with the given indices, `settings.concurrency` at a
/// time, results in index order: game `i` has A moving first when `i` is
/// even; `make_a`/`make_b` build a fresh player per game (from the game
/// index, e.g. as a seed); `opening(i)` gives each game's start (varied
/// openings).
///
/// Each game runs on a thread of its own inside a one-thread rayon pool:
/// a player's parallel work (a network splitting its batch over
/// [`rayon::current_num_threads`]) stays on its game's thread. In a
/// shared pool a bundle could take the core of a game beside it while
/// that game waits for an engine's move, and a thread waiting inside a
/// parallel call could pick up a whole other game; either would give a
/// player more than one core, or another game's time, at a time budget.
pub fn play_games<G, A, B, O>(
    indices: std::ops::Range<usize>,
    settings: &MatchSettings,
    opening: &O,
    make_a: &A,
    make_b: &B,
) -> Vec<MatchGame>
where
    G: Game,
    O: Fn(usize) -> Opening<G> + Sync,
    A: Fn(usize) -> Box<dyn Contestant<G>> + Sync,
    B: Fn(usize) -> Box<dyn Contestant<G>> + Sync,
{
    let (ply_cap, time_control) = (settings.ply_cap, settings.time_control);
    let play = |i: usize| {
        let (mut a, mut b) = (make_a(i), make_b(i));
        let a_first = i.is_multiple_of(2);
        let start = opening(i);
        let result = if a_first {
            play_game(&start, a.as_mut(), b.as_mut(), ply_cap, time_control)
        } else {
            play_game(&start, b.as_mut(), a.as_mut(), ply_cap, time_control)
        };
        MatchGame {
            index: i,
            a_first,
            result,
        }
    };
    let workers = settings.concurrency.clamp(1, indices.len().max(1));
    let next = AtomicUsize::new(indices.start);
    let games = Mutex::new(Vec::with_capacity(indices.len()));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= indices.end {
                        break;
                    }
                    let game = match &pool {
                        Ok(pool) => pool.install(|| play(i)),
                        Err(_) => play(i),
                    };
                    games.lock().unwrap_or_else(|e| e.into_inner()).push(game);
                }
            });
        }
    });
    let mut games = games.into_inner().unwrap_or_else(|e| e.into_inner());
    games.sort_by_key(|g| g.index);
    games
}

/// W/D/L of A over finished games.
pub fn tally(played: &[MatchGame]) -> WdlCounts {
    let mut wdl = WdlCounts::default();
    for g in played {
        let a_side = if g.a_first { Side::First } else { Side::Second };
        match g.result.winner {
            None => wdl.draws += 1,
            Some(w) if w == a_side => wdl.wins += 1,
            Some(_) => wdl.losses += 1,
        }
    }
    wdl
}

/// W/D/L of A split by side: (games A moved first, games A moved second).
/// A variant whose sides differ (tafl attackers and defenders) can be
/// strong as one and weak as the other; the total hides it.
pub fn tally_by_side(played: &[MatchGame]) -> (WdlCounts, WdlCounts) {
    let (first, second): (Vec<MatchGame>, Vec<MatchGame>) =
        played.iter().cloned().partition(|g| g.a_first);
    (tally(&first), tally(&second))
}

/// Settings of [`run_match`].
#[derive(Clone, Debug)]
pub struct MatchSettings {
    /// Maximum games (rounded up to whole colour-swapped pairs).
    pub games: usize,
    /// Games in parallel.
    pub concurrency: usize,
    /// Plies after which a game is adjudicated a draw.
    pub ply_cap: u32,
    /// A real time control (each side's clock, [`crate::single_game::play_game`])
    /// instead of the players' per-move budgets; `None` = per-move budgets.
    pub time_control: Option<crate::clock::TimeControl>,
    /// Random plies from the start before the players take over; both
    /// games of a pair (`2k`, `2k+1`) share the opening. 0 = standard start.
    pub opening_plies: u32,
    /// Seed of the openings.
    pub seed: u64,
    /// Stop as soon as this SPRT decides.
    pub sprt: Option<SprtConfig>,
}

/// Everything a match produced.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// W/D/L from A's view.
    pub wdl: WdlCounts,
    /// Elo of A − B with a 95 % interval.
    pub elo: EloEstimate,
    /// SPRT state at the end, if one ran.
    pub sprt: Option<SprtState>,
    /// Whether the SPRT stopped the match before `games`.
    pub stopped_early: bool,
    /// Games lost by forfeit (engine failures), by either side.
    pub forfeits: usize,
    /// The games in index order.
    pub games: Vec<MatchGame>,
}

/// Play A against B in batches of colour-swapped pairs (`concurrency`
/// games at a time, at least one pair), calling `after_batch` with all
/// games so far (e.g. to write records, so nothing is lost if the process
/// dies), and stopping early once the SPRT decides.
pub fn run_match<G, A, B>(
    settings: &MatchSettings,
    make_a: A,
    make_b: B,
    after_batch: impl FnMut(&MatchReport),
) -> MatchReport
where
    G: Game,
    A: Fn(usize) -> Box<dyn Contestant<G>> + Sync,
    B: Fn(usize) -> Box<dyn Contestant<G>> + Sync,
{
    run_match_from(settings, &[], make_a, make_b, after_batch)
}

/// [`run_match`] with the pairs starting from the positions of `book`
/// (an opening book, as cutechess-cli's `-openings`): pair `k` starts
/// from `book[k % book.len()]`, then `settings.opening_plies` random plies
/// from there. An empty book = the standard start.
pub fn run_match_from<G, A, B>(
    settings: &MatchSettings,
    book: &[G],
    make_a: A,
    make_b: B,
    after_batch: impl FnMut(&MatchReport),
) -> MatchReport
where
    G: Game,
    A: Fn(usize) -> Box<dyn Contestant<G>> + Sync,
    B: Fn(usize) -> Box<dyn Contestant<G>> + Sync,
{
    run_match_resuming(settings, book, Vec::new(), make_a, make_b, after_batch)
}

/// [`run_match_from`] continuing a match that already has the games
/// `done` (as an earlier run of the same match reported them, e.g. read
/// back from a journal): their indices are not played again, and the
/// report, the SPRT and `after_batch` count them with the new ones. Each
/// game depends only on its index (its opening and the players made for
/// it), so a match resumed this way plays the games the whole match would
/// have played. A game of `done` at an index past `settings.games` is
/// kept.
pub fn run_match_resuming<G, A, B>(
    settings: &MatchSettings,
    book: &[G],
    done: Vec<MatchGame>,
    make_a: A,
    make_b: B,
    mut after_batch: impl FnMut(&MatchReport),
) -> MatchReport
where
    G: Game,
    A: Fn(usize) -> Box<dyn Contestant<G>> + Sync,
    B: Fn(usize) -> Box<dyn Contestant<G>> + Sync,
{
    let total = settings.games.div_ceil(2).saturating_mul(2);
    // Whole pairs, no more games at once than the match has.
    let batch = settings
        .concurrency
        .clamp(2, total.max(2))
        .div_ceil(2)
        .saturating_mul(2);
    let plies = settings.opening_plies;
    let seed = settings.seed;
    let standard = [G::start()];
    let book = if book.is_empty() { &standard[..] } else { book };
    let opening = move |i: usize| {
        let start = &book[(i / 2) % book.len()];
        if plies == 0 {
            Opening::at(start.clone())
        } else {
            random_opening_from::<G>(start, plies, opening_seed(seed, i / 2))
        }
    };
    let played: std::collections::BTreeSet<usize> = done.iter().map(|g| g.index).collect();
    let todo: Vec<usize> = (0..total).filter(|i| !played.contains(i)).collect();
    let mut report = MatchReport {
        wdl: WdlCounts::default(),
        elo: EloEstimate::from_wdl(&WdlCounts::default()),
        sprt: None,
        stopped_early: false,
        forfeits: 0,
        games: done,
    };
    // Indices left to play, in runs of consecutive ones (all of them in a
    // fresh match), a batch at a time.
    let mut batches = Vec::new();
    for run in todo.chunk_by(|a, b| b == &(a + 1)) {
        for part in run.chunks(batch) {
            batches.push(part[0]..part[part.len() - 1] + 1);
        }
    }
    // The games done count as the first batch: a match they already
    // decide (its SPRT) or complete plays nothing more.
    let decided = |report: &mut MatchReport| -> bool {
        report.games.sort_by_key(|g| g.index);
        report.wdl = tally(&report.games);
        report.elo = EloEstimate::from_wdl(&report.wdl);
        report.forfeits = report
            .games
            .iter()
            .filter(|g| g.result.forfeit.is_some())
            .count();
        let state = settings.sprt.map(|c| c.state(&report.wdl));
        report.sprt = state;
        state.is_some_and(|s| s.decision != SprtDecision::Continue)
    };
    if !report.games.is_empty() && (decided(&mut report) || batches.is_empty()) {
        report.stopped_early = !batches.is_empty();
        after_batch(&report);
        return report;
    }
    let count = batches.len();
    for (k, range) in batches.into_iter().enumerate() {
        let played = play_games(range, settings, &opening, &make_a, &make_b);
        report.games.extend(played);
        if decided(&mut report) {
            report.stopped_early = k + 1 < count;
            after_batch(&report);
            break;
        }
        after_batch(&report);
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Losers;

    /// A random player seeded by the game's index.
    fn random(i: usize) -> Box<dyn Contestant<Losers>> {
        Box::new(crate::player::RandomPlayer::new(i as u64))
    }

    /// Two games at a time, per-move budgets, no SPRT.
    fn settings(games: usize, ply_cap: u32, opening_plies: u32, seed: u64) -> MatchSettings {
        MatchSettings {
            games,
            concurrency: 2,
            ply_cap,
            time_control: None,
            opening_plies,
            seed,
            sprt: None,
        }
    }

    /// A random player that notes the rayon threads open to it and the
    /// thread it moves on.
    struct Watched {
        inner: crate::player::RandomPlayer,
        seen: std::sync::Arc<Mutex<(usize, std::collections::HashSet<std::thread::ThreadId>)>>,
    }

    impl Contestant<Losers> for Watched {
        fn name(&self) -> String {
            "watched".into()
        }
        fn choose(&mut self, game: &Losers) -> Option<<Losers as Game>::Action> {
            let mut seen = self.seen.lock().unwrap();
            seen.0 = seen.0.max(rayon::current_num_threads());
            seen.1.insert(std::thread::current().id());
            drop(seen);
            self.inner.choose(game)
        }
    }

    #[test]
    fn each_game_has_one_rayon_thread_at_any_concurrency() {
        let seen = std::sync::Arc::default();
        let watched = |i: usize| -> Box<dyn Contestant<Losers>> {
            Box::new(Watched {
                inner: crate::player::RandomPlayer::new(i as u64),
                seen: std::sync::Arc::clone(&seen),
            })
        };
        let four = MatchSettings {
            concurrency: 4,
            ..settings(8, 40, 2, 3)
        };
        let report = run_match_from(&four, &[], watched, random, |_| {});
        let (threads, movers) = seen.lock().unwrap().clone();
        // Each game alone in its pool, the games on several threads.
        assert_eq!(threads, 1);
        assert!(movers.len() > 1, "{movers:?}");
        // And the same games as one at a time.
        let one = MatchSettings {
            concurrency: 1,
            ..four
        };
        assert_eq!(
            run_match_from(&one, &[], random, random, |_| {}).games,
            report.games
        );
    }

    #[test]
    fn book_openings_start_pairs_in_book_order() {
        let book: Vec<Losers> = rules::book::parse_book(
            "8/8/k7/4p3/4P3/3P4/8/6K1 w - - 0 1\n5K2/8/8/1k2p3/4P3/8/7R/2R5 b - - 0 1\n",
        )
        .unwrap();
        let settings = settings(6, 2, 0, 1);
        // The start position of every game of a match with `settings`.
        let starts = |settings: &MatchSettings| -> Vec<String> {
            let report = run_match_from(settings, &book, random, random, |_| {});
            report.games.into_iter().map(|g| g.result.start).collect()
        };
        let (a, b) = (book[0].to_text(), book[1].to_text());
        assert_eq!(
            starts(&settings),
            [&a, &a, &b, &b, &a, &a].map(String::clone)
        );
        // With random plies each pair's two games still share their start,
        // now a few plies on from the book position.
        let settings = MatchSettings {
            opening_plies: 2,
            ..settings
        };
        let starts = starts(&settings);
        assert_eq!(starts[0], starts[1]);
        assert_ne!(starts[0], a);
    }

    #[test]
    fn a_resumed_match_plays_the_games_the_whole_match_plays() {
        let settings = settings(8, 30, 2, 5);
        let whole = run_match_from(&settings, &[], random, random, |_| {});
        assert_eq!(whole.games.len(), 8);
        // Games 0, 1, 2 and 5 done (a batch and a half, then one out of
        // order): the rest are played, nothing twice.
        let done: Vec<MatchGame> = [0, 1, 2, 5]
            .iter()
            .map(|&i| whole.games[i].clone())
            .collect();
        let mut batches = Vec::new();
        let resumed = run_match_resuming(&settings, &[], done, random, random, |r| {
            batches.push(r.games.len())
        });
        assert_eq!(resumed.games, whole.games);
        assert_eq!(resumed.wdl, whole.wdl);
        // Indices 3-4 and 6-7 left: two batches, each report counting
        // the done games too.
        assert_eq!(batches, [6, 8]);
        // All done: nothing is played, the report is the whole match's.
        let mut calls = 0;
        let again = run_match_resuming(&settings, &[], whole.games.clone(), random, random, |_| {
            calls += 1
        });
        assert_eq!(
            (again.games, again.wdl, calls),
            (whole.games.clone(), whole.wdl, 1)
        );
        // A match its SPRT decided, run again: no game more.
        let sprt = MatchSettings {
            games: 200,
            sprt: Some(SprtConfig::parse("0,400,0.2,0.2").unwrap()),
            ..settings
        };
        let first = run_match_from(&sprt, &[], random, random, |_| {});
        assert!(first.stopped_early, "{:?}", first.sprt);
        let again = run_match_resuming(&sprt, &[], first.games.clone(), random, random, |_| {});
        assert_eq!((again.games, again.sprt), (first.games, first.sprt));
        assert!(again.stopped_early);
    }
}
