//! How much a search may think, and when it stops: the one [`Budget`]
//! (root visits, wall time, a stop flag) that every command, player and
//! self-play worker states its thinking in, and the [`Stopper`] made from
//! it, checked between batched steps (in the manner of lc0's `stoppers/`
//! and kZero's stop closure).

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use rules::Game;

use crate::tree::Mcts;

/// The bounds of one search; it stops at the first one reached. Self-play
/// (a node target per move), matches, ladders, evaluations, the UCI bot
/// (`go nodes`, `movetime`, clocks, `infinite` with `stop`), analysis and
/// the web lab all state their budget as one of these; on the command line
/// it is `--nodes N` and/or `--movetime T`, in a player spec `:N`, `:250ms`
/// or `:2s` ([`Budget::from_str`]).
///
/// A budget with no bound at all ([`Budget::is_bounded`] false) never
/// stops; frontends refuse it.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// Root visits each tree searches to: network evaluations and terminal
    /// scorings, counting the visits a reused subtree kept (lc0's
    /// `go nodes`). `None` = no node bound; never `Some(0)` when built by
    /// [`Budget::nodes`] or parsed (a zero is refused or raised to 1).
    pub nodes: Option<u32>,
    /// Wall time from the start of the search ([`crate::Batch::run`]).
    /// The clock is read between batched steps, and a step is not started
    /// when the recent steps' duration says it would end past the time
    /// (see [`Stopper`]); the root's first evaluation is always made.
    pub time: Option<Duration>,
    /// Set to `true` from another thread to stop (UCI `stop`, a web
    /// request cancelled); checked between steps, before anything else,
    /// even before the first step.
    pub stop: Option<Arc<AtomicBool>>,
    /// Think for the whole time: no smart pruning (see [`Stopper`]), so a
    /// timed search stops only at its deadline, node bound or stop flag.
    /// Off (`false`) by default: time-limited searches stop once their
    /// move cannot change. For comparisons of the time policy
    /// (`bundle:PATH:full` in a match).
    pub full_time: bool,
    /// The latest a timed search may go on past [`Budget::time`] while
    /// its root is unclear ([`Mcts::root_unclear`]): at `time` it stops
    /// only when the choice is clear, and at `time_max` in any case. Set
    /// by a clock's time manager (`bot::Clock::extended`), which keeps it
    /// within the time left; `None` (the default): a search stops at
    /// `time`.
    pub time_max: Option<Duration>,
    /// A pondering search's clock (UCI `go ponder`): its [`Budget::time`]
    /// and [`Budget::time_max`] count from the instant set here (at
    /// `ponderhit`), not from the search's start. Until it is set no
    /// deadline applies and there is no smart pruning, so the search goes
    /// on to its node bound or its stop flag; from then on the time policy
    /// is that of any timed search, with the visits gained since then as
    /// its rate. `None` (the default): the time counts from the start.
    pub clock_start: Option<Arc<OnceLock<Instant>>>,
    /// The most bytes the searched trees' nodes may take together
    /// ([`Mcts::memory_bytes`]; lc0's `RamLimitMb`): the search stops once
    /// they reach it, as if at a node bound. The arenas grow by doubling up
    /// to it and then by what each step needs ([`Mcts::bound_memory`]), so
    /// they hold about this much when the search stops. A search without a node or time bound (UCI `go infinite`,
    /// `go ponder`) grows its tree by about 32 bytes per child of every
    /// position it evaluates (1-5 KB per visit on these boards) and would
    /// otherwise run out of memory. `None` (the default): no bound.
    pub tree_bytes: Option<u64>,
}

/// A budget text that is not `N`, `Nms` or `Ns` with a value above zero.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad search budget `{0}`: expected N > 0 nodes, Nms or Ns (for example 800, 250ms, 2s)")]
pub struct BudgetError(pub String);

impl Budget {
    /// Largest time a budget may state (a million seconds): beyond it
    /// [`Instant`] arithmetic may overflow.
    pub const MAX_TIME: Duration = Duration::from_secs(1_000_000);

    /// A node budget only: `nodes` root visits per tree (at least 1).
    pub fn nodes(nodes: u32) -> Self {
        Budget {
            nodes: Some(nodes.max(1)),
            ..Budget::default()
        }
    }

    /// A time budget only: `time` of wall time per search (at most
    /// [`Budget::MAX_TIME`]).
    pub fn time(time: Duration) -> Self {
        Budget {
            time: Some(time.min(Self::MAX_TIME)),
            ..Budget::default()
        }
    }

    /// The same budget allowed to think on up to `time_max` while its
    /// root is unclear ([`Budget::time_max`]; at most [`Budget::MAX_TIME`],
    /// and never below `time`).
    pub fn extended_to(mut self, time_max: Duration) -> Self {
        let floor = self.time.unwrap_or_default();
        self.time_max = Some(time_max.min(Self::MAX_TIME).max(floor));
        self
    }

    /// The same budget with `stop` as its stop flag.
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> Self {
        self.stop = Some(stop);
        self
    }

    /// The same budget with its time counted from the instant `start` is
    /// set to (see [`Budget::clock_start`]): a pondering search.
    pub fn with_clock_start(mut self, start: Arc<OnceLock<Instant>>) -> Self {
        self.clock_start = Some(start);
        self
    }

    /// The same budget with its node bound lowered to `cap` (at least 1),
    /// or set to it when there was none: a strength cap.
    pub fn capped(mut self, cap: Option<u32>) -> Self {
        if let Some(cap) = cap {
            self.nodes = Some(self.nodes.map_or(cap, |n| n.min(cap)).max(1));
        }
        self
    }

    /// Whether some bound is given (a search without one never ends).
    pub fn is_bounded(&self) -> bool {
        self.nodes.is_some() || self.time.is_some() || self.stop.is_some()
    }

    /// The node bound as the batched step counts it (`u32::MAX` = none).
    pub fn node_target(&self) -> u32 {
        self.nodes.unwrap_or(u32::MAX)
    }

    /// Whether the stop flag is set.
    pub fn stopped(&self) -> bool {
        self.stop
            .as_deref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// The running check of this budget over one search that started at
    /// `started` (its time policy).
    /// With a [`Budget::clock_start`] the time counts from that instant
    /// once it is set.
    pub fn stopper(&self, started: Instant) -> Stopper<'_> {
        let mut stopper = Stopper {
            budget: self,
            started,
            first_visits: None,
            deadline: None,
            deadline_max: None,
            clock_waits: self.clock_start.is_some(),
            last: None,
            step: Duration::ZERO,
        };
        if !stopper.clock_waits {
            stopper.start_clock(started);
        }
        stopper
    }
}

/// Plain decimal digits (`0`-`9`, at least one): Rust's number parsers
/// also take `+5`, `1e1`, `inf` and `.5`, which a number typed by hand
/// (a budget, a UCI option, a time control) should not be.
fn is_plain_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// A whole number in plain decimal digits (`800`), or `None` for anything
/// else: a sign, an exponent, spaces, or a value above `u64::MAX`. The one
/// number reader of budgets, UCI commands and options.
///
/// ```
/// assert_eq!(search::parse_plain_u64("800"), Some(800));
/// assert_eq!(search::parse_plain_u64("+5"), None);
/// ```
pub fn parse_plain_u64(text: &str) -> Option<u64> {
    is_plain_digits(text).then(|| text.parse().ok()).flatten()
}

/// Seconds in plain decimal digits with an optional fraction (`2`,
/// `0.25`), or `None` for anything else: a sign, an
/// exponent, `inf`, `.5`, `1.`. The one reader of seconds in budgets
/// (`2.5s`) and time controls (`60+0.6`).
///
/// ```
/// assert_eq!(search::parse_plain_seconds("0.25"), Some(0.25));
/// assert_eq!(search::parse_plain_seconds("1e1"), None);
/// ```
pub fn parse_plain_seconds(text: &str) -> Option<f64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, "0"));
    (is_plain_digits(whole) && is_plain_digits(fraction))
        .then(|| text.parse().ok())
        .flatten()
}

impl FromStr for Budget {
    type Err = BudgetError;

    /// `N` (root visits), `Nms` (milliseconds) or `Ns` (seconds, a decimal
    /// allowed), in plain digits; nodes above zero, times from 1 ms to
    /// [`Budget::MAX_TIME`].
    ///
    /// ```
    /// use std::time::Duration;
    /// let b: search::Budget = "250ms".parse().unwrap();
    /// assert_eq!(b.time, Some(Duration::from_millis(250)));
    /// assert_eq!("800".parse::<search::Budget>().unwrap().nodes, Some(800));
    /// assert!("0".parse::<search::Budget>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Self, BudgetError> {
        let bad = || BudgetError(text.to_string());
        let t = text.trim();
        let time = |secs: f64| {
            (secs.is_finite() && secs >= 0.001 && secs <= Self::MAX_TIME.as_secs_f64())
                .then(|| Budget::time(Duration::from_secs_f64(secs)))
                .ok_or_else(bad)
        };
        if let Some(ms) = t.strip_suffix("ms") {
            return match parse_plain_u64(ms) {
                Some(ms) if ms > 0 && Duration::from_millis(ms) <= Self::MAX_TIME => {
                    Ok(Budget::time(Duration::from_millis(ms)))
                }
                _ => Err(bad()),
            };
        }
        if let Some(s) = t.strip_suffix('s') {
            return time(parse_plain_seconds(s).ok_or_else(bad)?);
        }
        match parse_plain_u64(t).map(u32::try_from) {
            Some(Ok(n)) if n > 0 => Ok(Budget::nodes(n)),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Budget {
    /// The budget as a player spec's tail states it: `800`, `250ms`, `2s`,
    /// or both as `800+250ms`; `unbounded` when it has neither.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let time = |t: Duration| {
            if t.subsec_millis() == 0 && t.as_secs() > 0 && t.subsec_nanos() == 0 {
                format!("{}s", t.as_secs())
            } else {
                format!("{}ms", t.as_millis())
            }
        };
        match (self.nodes, self.time) {
            (Some(n), None) => write!(f, "{n}"),
            (None, Some(t)) => f.write_str(&time(t)),
            (Some(n), Some(t)) => write!(f, "{n}+{}", time(t)),
            (None, None) => f.write_str("unbounded"),
        }?;
        if let Some(t) = self.time_max {
            write!(f, " (up to {} when unclear)", time(t))?;
        }
        if self.full_time {
            f.write_str(" (full time)")?;
        }
        if self.clock_start.is_some() {
            f.write_str(" (pondering: the clock starts at ponderhit)")?;
        }
        Ok(())
    }
}

impl PartialEq for Budget {
    /// Equal bounds; stop flags (and pondering clocks) are equal when both
    /// are absent or both are the same flag.
    fn eq(&self, other: &Self) -> bool {
        let same_stop = match (&self.stop, &other.stop) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        let same_clock = match (&self.clock_start, &other.clock_start) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        self.nodes == other.nodes
            && self.time == other.time
            && self.full_time == other.full_time
            && self.time_max == other.time_max
            && self.tree_bytes == other.tree_bytes
            && same_stop
            && same_clock
    }
}

impl<G: Game> Mcts<G> {
    /// Whether this tree is done with a search to `nodes` root visits: it
    /// has them, or its root is terminal (nothing to search).
    pub fn reached(&self, nodes: u32) -> bool {
        self.is_terminal() || self.visits() >= nodes
    }
}

/// A [`Budget`] applied to one search, asked before every batched step
/// whether to stop. Time policy: the duration of the next step is
/// predicted as a decaying maximum of the recent steps' durations (each
/// step's maximum with 3/4 of the previous prediction), and no step starts
/// that would end past the deadline, so a clock is not overrun by the
/// step in flight. Until every tree's root is evaluated the deadline does
/// not apply (a move is never chosen blind), and that first step is left
/// out of the prediction.
///
/// Smart pruning (Leela Chess Zero's `SmartPruningStopper`): a timed
/// search of one tree stops early once the most visited root child leads
/// the second by more visits than the rest of the time can bring (the
/// visits per second of this search so far times the time left, and at
/// most the nodes left): the move played, the most visited child, can no
/// longer change, so the time saved stays on the clock. Searches by nodes
/// alone (self-play, node-budget matches) are never cut short, so their
/// results do not depend on the machine's speed.
///
/// Thinking longer: with [`Budget::time_max`], a search of one tree that
/// reaches its time with an unclear root ([`Mcts::root_unclear`]) goes on,
/// step by step, until the root is clear or `time_max` comes (the same
/// step prediction keeps it from overrunning `time_max`).
///
/// Pondering: with a [`Budget::clock_start`] all of the above counts from
/// the instant it is set. A search that pondered on the expected reply
/// then keeps its tree, and smart pruning may end it at once when that
/// tree already settles the move.
pub struct Stopper<'a> {
    budget: &'a Budget,
    /// When the search's clock started (its start, or a pondering
    /// search's [`Budget::clock_start`]).
    started: Instant,
    /// The root's visits at the first check (a reused subtree's).
    first_visits: Option<u32>,
    /// When the time runs out.
    deadline: Option<Instant>,
    /// When the time runs out for a search whose root is unclear
    /// ([`Budget::time_max`]); at or after `deadline`.
    deadline_max: Option<Instant>,
    /// A pondering search whose clock has not started: no deadline yet.
    clock_waits: bool,
    /// When the previous check ran; `None` when the step since then is
    /// not measured (before the first check, after the root evaluation).
    last: Option<Instant>,
    /// Predicted duration of the next step.
    step: Duration,
}

impl Stopper<'_> {
    /// Whether the search of `trees` stops now: every tree reached the node
    /// bound, the stop flag is set, the trees reached
    /// [`Budget::tree_bytes`], or the next step would overrun the
    /// deadline. A tree whose root is not evaluated yet keeps the search
    /// going for that one step, stop flag and deadline notwithstanding.
    pub fn should_stop<G: Game>(&mut self, trees: &[Mcts<G>]) -> bool {
        let nodes = self.budget.node_target();
        if trees.iter().all(|t| t.reached(nodes)) {
            return true;
        }
        // A root not yet evaluated is, whatever the time or the stop flag
        // say (`go infinite` then `stop`): the move played is then the
        // network's choice, not the first legal one.
        if trees.iter().any(|t| !t.reached(nodes) && t.visits() == 0) {
            self.last = None;
            return false;
        }
        if self.budget.stopped() {
            return true;
        }
        if let Some(max) = self.budget.tree_bytes {
            if trees.iter().map(Mcts::memory_bytes).sum::<u64>() >= max {
                return true;
            }
        }
        // A pondering search: no deadline until its clock starts.
        if self.clock_waits {
            match self.budget.clock_start.as_deref().and_then(OnceLock::get) {
                Some(&at) => self.start_clock(at),
                None => return false,
            }
        }
        // Without a deadline the clock is not read at all.
        let Some(deadline) = self.deadline else {
            return false;
        };
        let now = Instant::now();
        let took = self.last.map_or(Duration::ZERO, |last| now - last);
        self.step = took.max(self.step * 3 / 4);
        self.last = Some(now);
        if now + self.step >= deadline {
            // Past the time: think on only while the root is unclear, up
            // to the later deadline.
            return match self.deadline_max {
                Some(max) if now + self.step < max => !Self::unclear(trees),
                _ => true,
            };
        }
        !self.budget.full_time && self.move_is_settled(trees, now, deadline)
    }

    /// Count the time from `at`: the deadlines, and the rate of visits
    /// smart pruning uses, measured from there.
    fn start_clock(&mut self, at: Instant) {
        self.clock_waits = false;
        self.started = at;
        self.first_visits = None;
        self.last = None;
        self.deadline = self.budget.time.map(|t| at + t);
        self.deadline_max = self
            .budget
            .time
            .zip(self.budget.time_max)
            .map(|(t, max)| at + max.max(t));
    }

    /// One tree whose root's choice is unclear ([`Mcts::root_unclear`]).
    fn unclear<G: Game>(trees: &[Mcts<G>]) -> bool {
        matches!(trees, [tree] if tree.root_unclear())
    }

    /// Smart pruning (see [`Stopper`]): one tree, and its leading root
    /// child out of reach of the visits the remaining time can bring.
    fn move_is_settled<G: Game>(
        &mut self,
        trees: &[Mcts<G>],
        now: Instant,
        deadline: Instant,
    ) -> bool {
        let [tree] = trees else {
            return false;
        };
        let visits = tree.visits();
        let first = *self.first_visits.get_or_insert(visits);
        let gained = visits.saturating_sub(first);
        let elapsed = now.saturating_duration_since(self.started).as_secs_f64();
        // Too few visits yet to know the rate.
        if gained < MIN_VISITS_FOR_RATE || elapsed <= 0.0 {
            return false;
        }
        let Some(lead) = tree.root_visit_lead() else {
            return false;
        };
        let rate = f64::from(gained) / elapsed;
        let mut reachable = rate * deadline.saturating_duration_since(now).as_secs_f64();
        if let Some(nodes) = self.budget.nodes {
            reachable = reachable.min(f64::from(nodes.saturating_sub(visits)));
        }
        f64::from(lead) > reachable
    }
}

/// Visits a timed search makes before [`Stopper`] trusts its rate for
/// smart pruning.
const MIN_VISITS_FOR_RATE: u32 = 32;
#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use rand::rngs::StdRng;
    use rand::SeedableRng;

    use super::*;
    use crate::toy::TicTacToe;
    use crate::{Batch, SearchConfig, UniformEvaluator, NODE_BYTES};

    /// Run `limit` on a fresh tic-tac-toe tree (8 leaves per step);
    /// `(steps, root visits)`.
    fn run(limit: &Budget, tree: &mut Mcts<TicTacToe>) -> (usize, u32) {
        let mut rng = StdRng::seed_from_u64(1);
        let trees = std::slice::from_mut(tree);
        let steps = Batch::new(8).run(trees, &mut UniformEvaluator, limit, &mut rng, |_| false);
        (steps, trees[0].visits())
    }

    fn fresh() -> Mcts<TicTacToe> {
        Mcts::new(TicTacToe::start(), &SearchConfig::default())
    }

    #[test]
    fn a_timed_search_stops_once_its_move_cannot_change() {
        use crate::toy::Subtract;
        // Pile 9: taking 1 wins (8 left), the other moves lose; the
        // winner's lead soon exceeds the nodes left, well within the time.
        let search = |budget: &Budget| {
            let mut tree = Mcts::new(Subtract::new(9), &SearchConfig::default());
            let mut rng = StdRng::seed_from_u64(3);
            let trees = std::slice::from_mut(&mut tree);
            Batch::new(8).run(trees, &mut UniformEvaluator, budget, &mut rng, |_| false);
            (tree.visits(), tree.root_visit_lead())
        };
        let timed = Budget {
            time: Some(Duration::from_secs(60)),
            ..Budget::nodes(4000)
        };
        let (visits, lead) = search(&timed);
        let lead = lead.expect("three root children");
        assert!(visits < 4000, "not cut short: {visits}");
        assert!(lead > 4000 - visits, "lead {lead}, {visits} visits");
        // By nodes alone the search is never cut short.
        assert_eq!(search(&Budget::nodes(4000)).0, 4000);
        // Nor with the whole time asked for: it reaches its node bound.
        let full = Budget {
            full_time: true,
            ..timed
        };
        assert_eq!(search(&full).0, 4000);
    }

    #[test]
    fn a_pondering_search_counts_its_time_from_the_clock_start() {
        use crate::toy::Subtract;
        // `start_after`: when the clock starts (`None`: never). Returns the
        // search's duration, its root visits, and the visits it made after
        // it saw the clock started.
        let search = |budget: Budget, start_after: Option<Duration>| {
            let clock = Arc::new(OnceLock::new());
            let budget = budget.with_clock_start(clock.clone());
            let setter = clock.clone();
            let hit = std::thread::spawn(move || {
                if let Some(after) = start_after {
                    std::thread::sleep(after);
                    let _ = setter.set(Instant::now());
                }
            });
            let mut tree = Mcts::new(Subtract::new(9), &SearchConfig::default());
            let mut rng = StdRng::seed_from_u64(3);
            let started = Instant::now();
            let trees = std::slice::from_mut(&mut tree);
            let mut at_start = None;
            Batch::new(8).run(trees, &mut UniformEvaluator, &budget, &mut rng, |t| {
                if clock.get().is_some() {
                    at_start.get_or_insert(t[0].visits());
                }
                false
            });
            hit.join().unwrap();
            let after = tree.visits() - at_start.unwrap_or(tree.visits());
            (started.elapsed(), tree.visits(), after)
        };
        let wait = Duration::from_millis(400);
        let time = Duration::from_millis(40);
        // The whole time (no smart pruning): it runs its time from the
        // clock start, however long it pondered before.
        let full = Budget {
            full_time: true,
            ..Budget::time(time)
        };
        let (took, _, _) = search(full, Some(wait));
        assert!(took >= wait + time / 2, "stopped before its time: {took:?}");
        assert!(took < Duration::from_secs(10), "{took:?}");
        // Smart pruning after the clock start: the tree pondering grew on
        // pile 9 settles the move (the winning take leads by more visits
        // than 40 ms can bring), so the search ends a few steps after the
        // clock starts instead of running its time.
        let (took, visits, after) = search(Budget::time(time), Some(wait));
        assert!(took >= wait, "stopped before its clock started: {took:?}");
        assert!(
            after < 2000,
            "not cut short: {after} of {visits} visits after the clock start"
        );
        // A node bound ends it while it ponders.
        let (_, visits, _) = search(
            Budget {
                nodes: Some(50),
                ..Budget::time(Duration::from_secs(60))
            },
            None,
        );
        assert_eq!(visits, 50);
    }

    #[test]
    fn a_search_stops_at_its_memory_bound() {
        // A bound where an arena growing by doubling would hold almost
        // twice it (320 nodes' room for 165).
        let bound = (165 * (NODE_BYTES + 1)) as u64;
        let mut tree = Mcts::new(TicTacToe::start(), &SearchConfig::default());
        let budget = Budget {
            tree_bytes: Some(bound),
            ..Budget::nodes(100_000)
        };
        let (_, visits) = run(&budget, &mut tree);
        assert!(
            visits < 100_000,
            "not stopped by its memory: {visits} visits"
        );
        assert!(tree.memory_bytes() >= bound);
        // One step before it, the tree was below the bound: a step adds
        // at most 8 expansions of 9 children.
        let step = (8 * 9 * (NODE_BYTES + 1)) as u64;
        assert!(
            tree.memory_bytes() < bound + step,
            "{}",
            tree.memory_bytes()
        );
        // And the arena stopped doubling at the bound.
        assert!(
            tree.held_bytes() < bound + step,
            "{} held",
            tree.held_bytes()
        );
    }

    #[test]
    fn an_unclear_root_thinks_on_up_to_the_later_deadline() {
        use crate::toy::Subtract;
        let (time, time_max) = (Duration::from_millis(30), Duration::from_millis(400));
        // The whole time (no smart pruning), so it reaches its time.
        let budget = Budget {
            full_time: true,
            ..Budget::time(time).extended_to(time_max)
        };
        assert_eq!(budget.time_max, Some(time_max));
        // Two moves to the same draw: the choice never clears, so the
        // search goes on to the later deadline (less a step).
        use crate::toy::{Spec, TableGame};
        use rules::Player;
        static TWINS: [Spec; 3] = [
            Spec::Move {
                to_move: Player::First,
                children: &[1, 2],
            },
            Spec::End {
                to_move: Player::Second,
                winner: None,
            },
            Spec::End {
                to_move: Player::Second,
                winner: None,
            },
        ];
        // No root noise: the twins keep equal priors.
        let config = SearchConfig {
            dirichlet_epsilon: 0.0,
            ..SearchConfig::default()
        };
        let mut tree = Mcts::new(TableGame::new(&TWINS), &config);
        let mut rng = StdRng::seed_from_u64(1);
        let started = Instant::now();
        let trees = std::slice::from_mut(&mut tree);
        Batch::new(8).run(trees, &mut UniformEvaluator, &budget, &mut rng, |_| false);
        let took = started.elapsed();
        assert!(
            tree.root_unclear(),
            "the twins are close: {:?}",
            tree.root_children()
        );
        assert!(took >= time_max / 2, "stopped unclear at {took:?}");
        assert!(
            took < time_max + Duration::from_secs(1),
            "overran: {took:?}"
        );
        // Without the extension it stops at its time.
        let started = Instant::now();
        let trees = std::slice::from_mut(&mut tree);
        let plain = Budget {
            full_time: true,
            ..Budget::time(time)
        };
        Batch::new(8).run(trees, &mut UniformEvaluator, &plain, &mut rng, |_| false);
        assert!(started.elapsed() < time_max / 2, "no extension asked for");
        // Pile 9: the winning move soon leads clearly; no extension.
        let mut tree = Mcts::new(Subtract::new(9), &SearchConfig::default());
        let mut rng = StdRng::seed_from_u64(3);
        let long = Budget::time(time).extended_to(Duration::from_secs(20));
        let started = Instant::now();
        let trees = std::slice::from_mut(&mut tree);
        Batch::new(8).run(trees, &mut UniformEvaluator, &long, &mut rng, |_| false);
        assert!(!tree.root_unclear());
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "a clear root thought on"
        );
        // Never below the time.
        assert_eq!(
            Budget::time(time).extended_to(Duration::ZERO).time_max,
            Some(time)
        );
    }

    #[test]
    fn nodes_bound_each_tree() {
        assert_eq!(run(&Budget::nodes(17), &mut fresh()), (3, 17));
        assert!(Budget::nodes(17).is_bounded());
        assert!(!Budget::default().is_bounded());
    }

    #[test]
    fn a_set_stop_flag_still_evaluates_the_root_once() {
        let flag = Arc::new(AtomicBool::new(true));
        let limit = Budget::default().with_stop(flag);
        assert!(limit.is_bounded() && limit.stopped());
        let mut tree = fresh();
        assert_eq!(run(&limit, &mut tree), (1, 1));
        // The root has its priors, so the move is the policy's choice.
        assert_eq!(tree.root_children().len(), 9);
        assert_eq!(run(&limit, &mut tree), (0, 1));
    }

    #[test]
    fn a_past_deadline_still_evaluates_the_root_once() {
        let past = Budget {
            time: Some(Duration::ZERO),
            ..Budget::nodes(1000)
        };
        let mut tree = fresh();
        assert_eq!(run(&past, &mut tree), (1, 1));
        // An evaluated root: the deadline applies before the first step.
        assert_eq!(run(&past, &mut tree), (0, 1));
    }

    #[test]
    fn a_time_budget_ends_the_search() {
        let limit = Budget::time(Duration::from_millis(30));
        let started = Instant::now();
        let (steps, visits) = run(&limit, &mut fresh());
        assert!(steps >= 1 && visits >= 1);
        // Stopped before the deadline by the predicted step, or just after
        // it by a slow step on a loaded machine, never much later.
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn budgets_parse_print_and_cap() {
        let parse = |t: &str| t.parse::<Budget>();
        assert_eq!(parse("800").unwrap(), Budget::nodes(800));
        assert_eq!(
            parse("250ms").unwrap(),
            Budget::time(Duration::from_millis(250))
        );
        assert_eq!(
            parse("1.5s").unwrap(),
            Budget::time(Duration::from_millis(1500))
        );
        for bad in [
            "",
            "0",
            "0ms",
            "0s",
            "-5",
            "x",
            "5m",
            "1e9s",
            "nan s",
            "ms",
            "s",
            "+5",
            "1e1s",
            "+250ms",
            "infs",
            ".5s",
            "1.s",
            "1.5.2s",
            "0.0004s",
            "0.0000000001s",
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.to_string().contains("expected N > 0 nodes"), "{bad}");
        }
        for text in ["800", "250ms", "2s"] {
            assert_eq!(parse(text).unwrap().to_string(), text);
        }
        let both = Budget {
            time: Some(Duration::from_millis(250)),
            ..Budget::nodes(800)
        };
        assert_eq!(both.to_string(), "800+250ms");
        assert_eq!(Budget::nodes(400).capped(Some(50)).nodes, Some(50));
        assert_eq!(Budget::nodes(40).capped(Some(50)).nodes, Some(40));
        assert_eq!(
            Budget::time(Duration::from_secs(1)).capped(Some(0)).nodes,
            Some(1)
        );
        assert_eq!(Budget::nodes(0).nodes, Some(1), "at least one node");
    }
}
