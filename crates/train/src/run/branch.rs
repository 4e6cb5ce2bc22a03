//! Start positions for branched self-play games
//! ([`selfplay::SelfPlayConfig::branch_fraction`]): positions drawn
//! uniformly from the previous generation's self-play games, or the
//! positions of a book file ([`selfplay::SelfPlayConfig::branch_book`]).

use std::path::Path;

use encoding::Encode;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules::Game;
use selfplay::read_chunk;
use selfplay::replay::list_chunks;

use super::RunContext;
use crate::error::{Result, TrainError};

/// Most positions kept per games of the generation: enough that branched
/// games rarely share a start.
const POOL_PER_GAME: usize = 4;

/// Up to `POOL_PER_GAME x games_per_generation` positions of generation
/// `g - 1`'s games, drawn uniformly (reservoir sampling, seeded by `seed`)
/// from the plies after the first that have a search target, are not
/// over and, when `branch_last_plies` is set, lie within that many plies of
/// the record's end. A position
/// is kept as its position text reads back, and only if that text
/// round-trips: a branched game's record starts from that text, and
/// training replays it from there (repetition history is not carried,
/// as in any game started from a position text). Empty when branching is
/// off or there is no earlier generation.
///
/// # Errors
/// An unreadable replay chunk of generation `g - 1`.
pub(super) fn branch_starts<E: Encode>(
    ctx: &RunContext<'_, E>,
    g: u32,
    seed: u64,
) -> Result<Vec<E>> {
    let sp = &ctx.config.selfplay;
    if sp.branch_fraction <= 0.0 {
        return Ok(Vec::new());
    }
    if let Some(book) = &sp.branch_book {
        return read_book(book);
    }
    if g <= 1 {
        return Ok(Vec::new());
    }
    let mut pool = BranchPool::new(sp, seed);
    let replay = ctx.dir.replay();
    for (gen, _, path) in list_chunks(&replay).map_err(TrainError::io("list", &replay))? {
        if gen + 1 != g {
            continue;
        }
        for record in &read_chunk::<E>(&path)?.games {
            pool.add(record);
        }
    }
    Ok(pool.starts())
}

/// The pool of branch starts drawn from one generation's games, fed one
/// record at a time in a fixed order (the same order gives the same pool).
/// Shared by the run directory's self-play and the workers of a run in a
/// store.
pub(crate) struct BranchPool<E> {
    pool: Reservoir<E>,
    last_plies: u32,
}

impl<E: Encode> BranchPool<E> {
    /// An empty pool for `sp`'s generation size, seeded by `seed`.
    pub(crate) fn new(sp: &selfplay::SelfPlayConfig, seed: u64) -> Self {
        BranchPool {
            pool: Reservoir::new(POOL_PER_GAME * sp.games_per_generation, seed),
            last_plies: sp.branch_last_plies,
        }
    }

    /// Offer the positions of `record`.
    pub(crate) fn add(&mut self, record: &selfplay::GameRecord) {
        let first = first_branch_ply(record.actions.len(), self.last_plies);
        // A record that does not replay was refused when training on it
        // already; here it only gives no starts.
        let mut ply = 0;
        let pool = &mut self.pool;
        let _ = record.replay::<E>(|game, _, target| {
            if ply >= first && target.is_some() && game.outcome().is_none() {
                pool.offer(|| round_trip(game));
            }
            ply += 1;
        });
    }

    /// The positions kept.
    pub(crate) fn starts(self) -> Vec<E> {
        self.pool.items
    }
}

/// Every position of the book file at `path` ([`rules::book::parse_book`]).
///
/// # Errors
/// The file cannot be read ([`TrainError::Io`]) or is not a book of the
/// variant ([`TrainError::BranchBook`]).
fn read_book<G: Game>(path: &Path) -> Result<Vec<G>> {
    // Named absolute in errors: a relative path is read from the working
    // directory, which a resumed run may not share.
    let shown = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let text = std::fs::read_to_string(path).map_err(TrainError::io("read branch book", &shown))?;
    rules::book::parse_book(&text).map_err(|source| TrainError::BranchBook {
        path: shown,
        source,
    })
}

/// The first ply of a record of `plies` plies that may start a branch:
/// never the record's own start (a branch must move on), and with
/// `last_plies` > 0 none before the last `last_plies` plies.
fn first_branch_ply(plies: usize, last_plies: u32) -> usize {
    match last_plies {
        0 => 1,
        n => plies.saturating_sub(n as usize).max(1),
    }
}

/// `game` as read back from its position text, if the text round-trips.
fn round_trip<G: Game>(game: &G) -> Option<G> {
    let text = game.to_text();
    G::from_text(&text)
        .ok()
        .filter(|back| back.to_text() == text)
}

/// Uniform sample of at most `capacity` items from a stream (Vitter's
/// algorithm R); items are built only when kept.
struct Reservoir<T> {
    items: Vec<T>,
    capacity: usize,
    seen: usize,
    rng: SmallRng,
}

impl<T> Reservoir<T> {
    fn new(capacity: usize, seed: u64) -> Self {
        Reservoir {
            items: Vec::with_capacity(capacity),
            capacity,
            seen: 0,
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// Offer the next item of the stream; `make` returns `None` for an
    /// item that cannot be kept after all.
    fn offer(&mut self, make: impl FnOnce() -> Option<T>) {
        self.seen += 1;
        if self.items.len() < self.capacity {
            self.items.extend(make());
            return;
        }
        let j = self.rng.random_range(0..self.seen);
        if j < self.capacity {
            if let Some(item) = make() {
                self.items[j] = item;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reservoir_keeps_a_uniform_sample() {
        // 10 of 100 items, many seeds: every item kept about 10 % of the time.
        let mut kept = [0u32; 100];
        for seed in 0..2000 {
            let mut r = Reservoir::new(10, seed);
            for i in 0..100 {
                r.offer(|| Some(i));
            }
            assert_eq!(r.items.len(), 10);
            for &i in &r.items {
                kept[i] += 1;
            }
        }
        // Expected 200 each; 5 standard deviations is about 67.
        assert!(kept.iter().all(|&k| (130..=270).contains(&k)), "{kept:?}");
    }

    #[test]
    fn branches_start_late_only_when_asked() {
        assert_eq!(first_branch_ply(80, 0), 1);
        assert_eq!(first_branch_ply(80, 30), 50);
        assert_eq!(first_branch_ply(20, 30), 1);
        assert_eq!(first_branch_ply(0, 30), 1);
    }

    /// A book file holding `text`, in a fresh temporary folder.
    fn book(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.txt");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    type Losers = rules::Losers;

    #[test]
    fn a_book_gives_its_positions_in_order() {
        let fens = [
            "5K2/8/8/1k2p3/4P3/8/7R/2R5 w - - 0 1",
            "8/8/k7/4p3/4P3/3P4/8/6K1 b - - 0 1",
        ];
        let (_dir, path) = book(&format!("# endgames\n{}\n\n{}\n", fens[0], fens[1]));
        let got: Vec<Losers> = read_book(&path).unwrap();
        let texts: Vec<String> = got.iter().map(|g| g.to_text()).collect();
        assert_eq!(texts, fens);
    }

    #[test]
    fn a_bad_book_is_refused_naming_the_line() {
        let cases = [
            (
                "5K2/8/8/1k2p3/4P3/8/7R/2R5 w - - 0 1\nnot a fen\n",
                "line 2:",
            ),
            // White has a bare king: the game is over.
            (
                "5K2/8/8/1k2p3/8/8/8/8 w - - 0 1\n",
                "line 1: the game is already over",
            ),
            ("# nothing\n\n", "no positions in the book"),
        ];
        for (text, want) in cases {
            let (_dir, path) = book(text);
            let err = read_book::<Losers>(&path).unwrap_err().to_string();
            assert!(err.contains(want), "{text:?}: {err}");
            assert!(err.contains("book.txt"), "{err}");
        }
        let missing = read_book::<Losers>(Path::new("/nonexistent/book.txt")).unwrap_err();
        assert!(
            missing.to_string().contains("/nonexistent/book.txt"),
            "{missing}"
        );
    }

    #[test]
    fn a_short_stream_is_kept_whole() {
        let mut r = Reservoir::new(10, 1);
        for i in 0..4 {
            r.offer(|| Some(i));
        }
        r.offer(|| None);
        assert_eq!(r.items, vec![0, 1, 2, 3]);
    }
}
