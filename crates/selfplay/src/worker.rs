//! The self-play worker: many games in flight at once, their search leaves
//! evaluated together in one network batch per step (AlphaZero self-play,
//! batched as in KataGo/Leela: a single evaluator call serves every game).
//!
//! Tree work (selection, expansion, backup) for the games of one step runs
//! in parallel with rayon; the network call in between is the batch.
//!
//! Playout cap randomisation (KataGo, Wu 2019, "Accelerating Self-Play
//! Learning in Go", section 3.1): with `full_search_prob < 1`, each searched
//! move is a full search (`simulations` visits, root exploration on,
//! recorded as a training target) with that probability, otherwise a fast
//! search (`fast_simulations` visits, no root noise or forced playouts, not
//! recorded).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use rules::Game;
use search::{Evaluator, Mcts, SearchConfig, Wdl};
use serde::{Deserialize, Serialize};

use crate::record::{stored_result, GameRecord, SearchTarget};
use crate::resign::{ResignSample, ResignTracker};

/// Self-play settings (the `[selfplay]` table of a config).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Games played per generation.
    pub games_per_generation: usize,
    /// Games in flight at once (their leaves share one network batch).
    pub concurrent_games: usize,
    /// MCTS simulations (root visits) per move; with playout cap
    /// randomisation, those of a full search (KataGo's `N`). Also accepted
    /// as `full_simulations`.
    #[serde(alias = "full_simulations")]
    pub simulations: u32,
    /// Playout cap randomisation (KataGo, Wu 2019, section 3.1): the
    /// probability `p` that a searched move gets a full search and is
    /// recorded as a training target; otherwise it gets a fast search of
    /// `fast_simulations`, without root exploration, and is not recorded.
    /// In `[0, 1]`; 1 (the default) = every move full (off).
    pub full_search_prob: f32,
    /// Root visits of a fast search (KataGo's `n`). `1..=simulations` when
    /// `full_search_prob < 1`. Default 16.
    pub fast_simulations: u32,
    /// Leaves collected per tree per batch step (virtual loss spreads them).
    /// Self-play reads this key only: the `search` settings' own
    /// `leaves_per_batch` (`search::SearchConfig::leaves_per_batch`, used
    /// by the one-tree searches of matches and bots) is ignored here, and
    /// a run config that sets `[search] leaves_per_batch` to anything but
    /// its default is rejected (`train::config`), so a config never seems
    /// to set what self-play does not use.
    pub leaves_per_tree: usize,
    /// Plies played with temperature `temperature` (then the most visited
    /// action), for opening diversity.
    pub temperature_plies: u32,
    /// Temperature of the early plies.
    pub temperature: f32,
    /// Temperature after `temperature_plies` (0 = always the most visited
    /// action). A small positive value keeps self-play from locking into
    /// deterministic repetition draws (seen on Shakti: with 0, 88 % of
    /// generation-8 games ended by threefold repetition).
    pub final_temperature: f32,
    /// Games longer than this many plies end as a draw (adjudication, not a
    /// rule: `docs/rules.md`, conventions shared by all variants).
    pub ply_cap: u32,
    /// Material adjudication at the ply cap, in pawn units (0 = off, the
    /// default): a game stopped by `ply_cap` where one side is ahead by at
    /// least this much material ([`rules::Game::material`]; variants
    /// without a material measure are never adjudicated) is recorded as
    /// won by that side, so its positions teach the value head that
    /// material is progress instead of a draw. Engine tournaments
    /// adjudicate long games on the evaluation in the same spirit (TCEC);
    /// self-play from scratch on Viking otherwise ended mostly in
    /// ply-capped draws (issue #4). Only self-play records: matches and
    /// the rules never adjudicate by material.
    pub adjudicate_material: f32,
    /// Who wins a ply-capped game that [`Self::adjudicate_material`] left
    /// undecided, in the self-play records only: `"draw"` (the default,
    /// the rules' result), `"first"` or `"second"`. For games where one
    /// side must make progress and stalling is its failure: in tafl the
    /// defenders must bring the king out, and a run scoring the 200-ply
    /// stalls as draws taught the defenders to shuffle (issue #5,
    /// `docs/experiments.md`); scoring them as the attackers' wins
    /// (`"first"`) makes a stall a loss in the defenders' value targets,
    /// as the tafl rule sets that forbid the defenders to stall do
    /// (e.g. Copenhagen's perpetual-repetition loss for the king's side).
    /// Matches and the rules never use it.
    pub ply_cap_winner: PlyCapWinner,
    /// Weight `lambda` in `[0, 1]` of one random playout (up to `ply_cap`
    /// plies) in every leaf value of the self-play search
    /// ([`search::RolloutMix`], AlphaGo's mixed evaluation); 0 (the
    /// default) = the network alone. For bootstrapping a run whose
    /// self-play collapsed into draws (a flat value head): the playouts
    /// make the search, and so the recorded games, see wins the network
    /// does not yet value. Costs a random game per leaf.
    pub rollout_mix: f32,
    /// Expert Iteration warm start (Anthony, Tian & Barber 2017): the first
    /// this many generations' self-play values every leaf by random
    /// playouts alone (`rollout_mix` 1, a knowledge-free search that
    /// already wins games), so the value head's first targets come from
    /// decisive games instead of the draws of an untrained network's
    /// self-play; the network's priors still guide the search. 0 (the
    /// default) = off.
    pub warm_start_generations: u32,
    /// Games per replay chunk file (a killed run loses at most one part).
    pub games_per_chunk: usize,
    /// Self-play threads, each with its own network copy and share of the
    /// concurrent games (2 keeps both cores of a 2-core machine busy).
    pub workers: usize,
    /// Resignation (AlphaGo Zero; see [`crate::resign`]): a player resigns
    /// after `resign_consecutive` own searches in a row with root value
    /// `W - L <= resign_threshold`. Off by default.
    pub resign: bool,
    /// The resignation threshold on the root value `W - L` (in `[-1, 1]`).
    /// The main job starts from this value and then recalibrates it every
    /// generation from the played-out games (never above
    /// `resign_threshold_max`).
    pub resign_threshold: f32,
    /// Highest threshold the calibration may choose.
    pub resign_threshold_max: f32,
    /// Own searched moves in a row at or below the threshold before
    /// resigning (>= 1).
    pub resign_consecutive: u32,
    /// Fraction of games with resignation disabled, played out to measure
    /// the false-positive rate (AlphaGo Zero: 10 %).
    pub resign_playout_fraction: f32,
    /// Highest acceptable false-positive rate (AlphaGo Zero: 5 %): the
    /// fraction of would-be resignations, in played-out games, that did not
    /// lose.
    pub resign_fp_target: f32,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            games_per_generation: 200,
            concurrent_games: 64,
            simulations: 64,
            full_search_prob: 1.0,
            fast_simulations: 16,
            leaves_per_tree: 4,
            temperature_plies: 12,
            temperature: 1.0,
            final_temperature: 0.0,
            ply_cap: 200,
            adjudicate_material: 0.0,
            ply_cap_winner: PlyCapWinner::Draw,
            rollout_mix: 0.0,
            warm_start_generations: 0,
            games_per_chunk: 50,
            workers: 2,
            resign: false,
            resign_threshold: -0.9,
            resign_threshold_max: -0.5,
            resign_consecutive: 3,
            resign_playout_fraction: 0.1,
            resign_fp_target: 0.05,
        }
    }
}

impl SelfPlayConfig {
    /// The rollout mix of generation `g`'s self-play: 1 during the warm
    /// start ([`Self::warm_start_generations`]), `rollout_mix` after it.
    pub fn rollout_mix_at(&self, g: u32) -> f32 {
        if g <= self.warm_start_generations {
            1.0
        } else {
            self.rollout_mix
        }
    }

    /// Check ranges; the message names the offending key.
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(bool, &str); 10] = [
            (
                self.workers >= 1 && self.workers <= 64,
                "selfplay.workers must be in 1..=64",
            ),
            (
                self.games_per_generation >= 1,
                "selfplay.games_per_generation must be >= 1",
            ),
            (
                self.concurrent_games >= 1 && self.concurrent_games <= 4096,
                "selfplay.concurrent_games must be in 1..=4096",
            ),
            (
                self.simulations >= 1 && self.simulations <= 1_000_000,
                "selfplay.simulations must be in 1..=1000000",
            ),
            (
                self.leaves_per_tree >= 1 && self.leaves_per_tree <= 256,
                "selfplay.leaves_per_tree must be in 1..=256",
            ),
            (
                self.temperature.is_finite()
                    && self.temperature >= 0.0
                    && self.final_temperature.is_finite()
                    && self.final_temperature >= 0.0,
                "selfplay.temperature and selfplay.final_temperature must be finite and >= 0",
            ),
            (self.ply_cap >= 1, "selfplay.ply_cap must be >= 1"),
            (
                self.adjudicate_material.is_finite() && self.adjudicate_material >= 0.0,
                "selfplay.adjudicate_material must be finite and >= 0",
            ),
            (
                (0.0..=1.0).contains(&self.rollout_mix),
                "selfplay.rollout_mix must be in [0, 1]",
            ),
            (
                self.games_per_chunk >= 1,
                "selfplay.games_per_chunk must be >= 1",
            ),
        ];
        let resign_checks: [(bool, &str); 6] = [
            (
                (-1.0..=1.0).contains(&self.resign_threshold),
                "selfplay.resign_threshold must be in [-1, 1]",
            ),
            (
                (-1.0..=1.0).contains(&self.resign_threshold_max),
                "selfplay.resign_threshold_max must be in [-1, 1]",
            ),
            (
                self.resign_threshold <= self.resign_threshold_max,
                "selfplay.resign_threshold must be <= selfplay.resign_threshold_max",
            ),
            (
                self.resign_consecutive >= 1,
                "selfplay.resign_consecutive must be >= 1",
            ),
            (
                (0.0..=1.0).contains(&self.resign_playout_fraction),
                "selfplay.resign_playout_fraction must be in [0, 1]",
            ),
            (
                (0.0..=1.0).contains(&self.resign_fp_target),
                "selfplay.resign_fp_target must be in [0, 1]",
            ),
        ];
        let cap_checks: [(bool, &str); 2] = [
            (
                (0.0..=1.0).contains(&self.full_search_prob),
                "selfplay.full_search_prob must be in [0, 1]",
            ),
            (
                self.full_search_prob >= 1.0
                    || (self.fast_simulations >= 1 && self.fast_simulations <= self.simulations),
                "selfplay.fast_simulations must be in 1..=simulations when full_search_prob < 1",
            ),
        ];
        checks
            .iter()
            .chain(&cap_checks)
            .chain(&resign_checks)
            .find(|(ok, _)| !ok)
            .map_or(Ok(()), |(_, msg)| Err(msg.to_string()))
    }
}

/// One game in flight.
struct Slot<G: Game> {
    game: G,
    tree: Mcts<G>,
    record: GameRecord,
    rng: SmallRng,
    /// Draws full or fast search per move (playout cap randomisation), a
    /// stream of its own so the draws do not depend on the search.
    cap_rng: SmallRng,
    /// Only one legal action: play it without searching.
    forced: bool,
    /// The current move gets a full search (recorded).
    full: bool,
    /// Root visits the current move's search runs to.
    target: u32,
    /// Resignation state of this game.
    resign: ResignTracker,
}

/// Mixed into a slot's seed for its playout-cap stream.
const CAP_SEED_SALT: u64 = 0x9e37_79b9_7f4a_7c15;

impl<G: Game> Slot<G> {
    fn new(start: &G, search: &SearchConfig, config: &SelfPlayConfig, seed: u64) -> Self {
        let mut cap_rng = SmallRng::seed_from_u64(seed ^ CAP_SEED_SALT);
        // Drawn from `cap_rng` only when resignation is on, so runs without
        // it keep their playout-cap draws.
        let played_out = !config.resign || cap_rng.random::<f32>() < config.resign_playout_fraction;
        let mut slot = Slot {
            game: start.clone(),
            tree: Mcts::new(start.clone(), search),
            record: GameRecord {
                start: start.to_text(),
                actions: Vec::new(),
                targets: Vec::new(),
                winner: None,
                ply_capped: false,
            },
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

    /// Set up the search of the next move: full or fast (one draw from
    /// `cap_rng` per searched move, none when `full_search_prob >= 1`).
    fn begin_move(&mut self, config: &SelfPlayConfig) {
        if self.forced {
            return;
        }
        self.full = config.full_search_prob >= 1.0
            || self.cap_rng.random::<f32>() < config.full_search_prob;
        self.target = if self.full {
            config.simulations
        } else {
            config.fast_simulations.max(1)
        };
        self.tree.set_exploration(self.full);
        self.tree.set_simulations(self.target);
    }
}

/// Statistics of a self-play call.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SelfPlayStats {
    /// Games finished.
    pub games: usize,
    /// Positions with a recorded search target.
    pub positions: usize,
    /// Plies played (all moves, recorded or not).
    pub plies: usize,
    /// Network evaluations requested.
    pub evaluations: u64,
    /// Moves searched with the full budget (recorded unless the position
    /// had a single legal action, which is never searched).
    #[serde(default)]
    pub full_searches: usize,
    /// Moves searched with the fast budget (playout cap randomisation; not recorded).
    #[serde(default)]
    pub fast_searches: usize,
    /// Of `games`, those read back from disk (a resumed generation), not
    /// played by this call; `reused_plies` likewise.
    #[serde(default)]
    pub reused_games: usize,
    /// Plies of the reused games.
    #[serde(default)]
    pub reused_plies: usize,
    /// Resignation was on (`SelfPlayConfig::resign`).
    #[serde(default)]
    pub resign_on: bool,
    /// Games ended by a resignation.
    #[serde(default)]
    pub resigned: usize,
    /// Games with resignation disabled and played out (resignation on).
    #[serde(default)]
    pub played_out: usize,
    /// Would-be resignations of the played-out games, for the
    /// false-positive rate ([`crate::resign::false_positive_rate`]).
    #[serde(default)]
    pub resign_samples: Vec<ResignSample>,
}

impl SelfPlayStats {
    /// Add `other`'s counts to these.
    pub fn merge(&mut self, other: SelfPlayStats) {
        self.games += other.games;
        self.positions += other.positions;
        self.plies += other.plies;
        self.evaluations += other.evaluations;
        self.full_searches += other.full_searches;
        self.fast_searches += other.fast_searches;
        self.reused_games += other.reused_games;
        self.reused_plies += other.reused_plies;
        self.resign_on |= other.resign_on;
        self.resigned += other.resigned;
        self.played_out += other.played_out;
        self.resign_samples.extend(other.resign_samples);
    }
}

/// Play `games` games from `start` with `evaluator`, calling `on_game` for
/// each finished game (in completion order). `seed` makes the run
/// reproducible for a deterministic evaluator. Every field of `search`
/// applies except `leaves_per_batch`: the leaves per tree of a batch step
/// are [`SelfPlayConfig::leaves_per_tree`].
pub fn play_games<G: Game, E: Evaluator<G>>(
    start: &G,
    evaluator: &mut E,
    search: &SearchConfig,
    config: &SelfPlayConfig,
    games: usize,
    seed: u64,
    on_game: impl FnMut(GameRecord),
) -> SelfPlayStats {
    let work = TreeWork::Parallel;
    play_games_on(start, evaluator, search, config, games, seed, work, on_game)
}

/// Where a worker does its tree work (leaf selection, expansion).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TreeWork {
    /// Spread over the rayon pool: best for a lone worker, which otherwise
    /// leaves the other cores idle between network calls.
    Parallel,
    /// On the worker's own thread: with several workers the pool is busy
    /// with another worker's network batch, and tree jobs queued behind it
    /// would stall this worker (measured in docs/benchmarks.md, "Self-play
    /// and the time outside the network").
    OwnThread,
}

/// [`play_games`] with the tree work done as `work` says.
#[allow(clippy::too_many_arguments)]
fn play_games_on<G: Game, E: Evaluator<G>>(
    start: &G,
    evaluator: &mut E,
    search: &SearchConfig,
    config: &SelfPlayConfig,
    games: usize,
    seed: u64,
    work: TreeWork,
    mut on_game: impl FnMut(GameRecord),
) -> SelfPlayStats {
    let mut stats = SelfPlayStats {
        resign_on: config.resign,
        ..SelfPlayStats::default()
    };
    let mut seeds = SmallRng::seed_from_u64(seed);
    let mut started = 0usize;
    let mut slots: Vec<Slot<G>> = Vec::new();
    while started < games && slots.len() < config.concurrent_games {
        slots.push(Slot::new(start, search, config, seeds.random()));
        started += 1;
    }
    let mut priors = Vec::new();
    let mut wdl: Vec<Wdl> = Vec::new();
    while !slots.is_empty() {
        stats.evaluations +=
            search_step(&mut slots, evaluator, config, work, &mut priors, &mut wdl);
        let mut i = 0;
        while i < slots.len() {
            if slots[i].forced || slots[i].tree.visits() >= slots[i].target {
                if let Some(record) = advance_slot(&mut slots[i], config, &mut stats) {
                    on_game(record);
                    stats.games += 1;
                    if started < games {
                        slots[i] = Slot::new(start, search, config, seeds.random());
                        started += 1;
                    } else {
                        slots.swap_remove(i);
                        continue;
                    }
                }
            }
            i += 1;
        }
    }
    stats
}

/// One batched step: every slot selects leaves, all leaves go to the
/// evaluator in one call, results are applied; the tree work (before and
/// after the call) runs where `work` says.
fn search_step<G: Game, E: Evaluator<G>>(
    slots: &mut [Slot<G>],
    evaluator: &mut E,
    config: &SelfPlayConfig,
    work: TreeWork,
    priors: &mut Vec<f32>,
    wdl: &mut Vec<Wdl>,
) -> u64 {
    let select = |s: &mut Slot<G>| {
        if !s.forced && s.tree.visits() < s.target {
            let want = config
                .leaves_per_tree
                .min((s.target - s.tree.visits()) as usize)
                .max(1);
            s.tree.select_leaves(want, &mut s.rng);
        }
    };
    match work {
        TreeWork::Parallel => slots.par_iter_mut().for_each(select),
        TreeWork::OwnThread => slots.iter_mut().for_each(select),
    }
    let mut positions: Vec<&G> = Vec::new();
    let mut legal: Vec<&[G::Action]> = Vec::new();
    let mut spans = Vec::with_capacity(slots.len());
    for s in slots.iter() {
        let (ps, ls) = s.tree.pending_leaves();
        let n_priors: usize = ls.iter().map(|l| l.len()).sum();
        spans.push((ps.len(), n_priors));
        positions.extend(ps.iter());
        legal.extend(ls.iter().map(|l| l.as_slice()));
    }
    let total: usize = legal.iter().map(|l| l.len()).sum();
    priors.resize(total, 0.0);
    wdl.resize(positions.len(), search::DRAW_WDL);
    if !positions.is_empty() {
        evaluator.evaluate(&positions, &legal, priors, wdl);
    }
    let evaluated = positions.len() as u64;
    drop(positions);
    drop(legal);
    // Split the batch results back per slot and apply them in parallel.
    let mut results = Vec::with_capacity(slots.len());
    let (mut p_rest, mut w_rest) = (&priors[..], &wdl[..]);
    for (s, &(n_pos, n_priors)) in slots.iter_mut().zip(&spans) {
        let (p, pr) = p_rest.split_at(n_priors);
        let (w, wr) = w_rest.split_at(n_pos);
        (p_rest, w_rest) = (pr, wr);
        results.push((s, p, w));
    }
    let apply = |(s, p, w): (&mut Slot<G>, &[f32], &[Wdl])| {
        if !w.is_empty() {
            let applied = s.tree.apply_evaluations(p, w);
            debug_assert!(applied.is_ok(), "batch split must match the pending leaves");
        }
    };
    match work {
        TreeWork::Parallel => results.into_par_iter().for_each(apply),
        TreeWork::OwnThread => results.into_iter().for_each(apply),
    }
    evaluated
}

/// The slot's search is done: record the target, play the chosen action.
/// Returns the finished record when the game ended.
fn advance_slot<G: Game>(
    slot: &mut Slot<G>,
    config: &SelfPlayConfig,
    stats: &mut SelfPlayStats,
) -> Option<GameRecord> {
    let legal = slot.game.legal_vec();
    if !slot.forced {
        if slot.full {
            stats.full_searches += 1;
        } else {
            stats.fast_searches += 1;
        }
    }
    let target = (legal.len() > 1 && slot.full).then(|| {
        let policy = align_policy(&legal, slot.tree.policy_target());
        SearchTarget {
            policy,
            root_wdl: slot.tree.root_wdl(),
        }
    });
    if !slot.forced && resigns(slot, config) {
        stats.resigned += 1;
        let loser = slot.game.side_to_move();
        return Some(finish_record(slot, Some(loser.opponent()), false, stats));
    }
    let temperature = if slot.game.ply() < config.temperature_plies {
        config.temperature
    } else {
        config.final_temperature
    };
    // `legal` is non-empty: a finished game never reaches here.
    let action = slot
        .tree
        .choose_action(temperature, &mut slot.rng)
        .or(legal.first().copied())?;
    let index = legal.iter().position(|&a| a == action).unwrap_or(0);
    stats.positions += target.is_some() as usize;
    stats.plies += 1;
    slot.record.actions.push(index as u16);
    slot.record.targets.push(target);
    slot.game.play(action);
    let outcome = slot.game.outcome();
    if outcome.is_some() || slot.game.ply() >= config.ply_cap {
        let (mut winner, ply_capped) = stored_result(outcome);
        if ply_capped {
            winner = adjudicate(&slot.game, config.adjudicate_material)
                .or(config.ply_cap_winner.player());
        }
        return Some(finish_record(slot, winner, ply_capped, stats));
    }
    slot.forced = slot.game.legal_vec().len() == 1;
    if slot.tree.advance(action).is_err() {
        // Cannot happen for an action the tree offered; start afresh to be safe.
        slot.tree = Mcts::new(slot.game.clone(), slot.tree.config());
    }
    slot.begin_move(config);
    None
}

/// The policy target `(action, p)` as one probability per action of
/// `legal`, in that order (0 for actions the target lacks). The search's
/// root children are in legal order, so this is one pass; a target in
/// another order (never produced here) falls back to a lookup per action
/// rather than misplacing probabilities.
fn align_policy<A: PartialEq + Copy>(legal: &[A], target: Vec<(A, f32)>) -> Vec<f32> {
    let aligned = target.len() == legal.len() && target.iter().zip(legal).all(|((a, _), b)| a == b);
    if aligned {
        return target.into_iter().map(|(_, p)| p).collect();
    }
    let mut policy = vec![0.0; legal.len()];
    for (action, p) in target {
        if let Some(i) = legal.iter().position(|&a| a == action) {
            policy[i] = p;
        }
    }
    policy
}

/// [`SelfPlayConfig::ply_cap_winner`]: the recorded result of a ply-capped
/// game that material did not decide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum PlyCapWinner {
    /// A draw, as the rules say (the default).
    #[default]
    Draw,
    /// A win for the player who moves first.
    First,
    /// A win for the player who moves second.
    Second,
}

impl TryFrom<String> for PlyCapWinner {
    type Error = String;

    /// `"draw"`, `"first"` or `"second"`; anything else names the choices
    /// (so does a value that is not a string, through serde).
    fn try_from(text: String) -> Result<Self, String> {
        match text.as_str() {
            "draw" => Ok(PlyCapWinner::Draw),
            "first" => Ok(PlyCapWinner::First),
            "second" => Ok(PlyCapWinner::Second),
            _ => Err(format!(
                "ply_cap_winner must be \"draw\", \"first\" or \"second\", not {text:?}"
            )),
        }
    }
}

impl PlyCapWinner {
    /// The winner this setting records (`None` = a draw).
    pub fn player(self) -> Option<rules::Player> {
        match self {
            PlyCapWinner::Draw => None,
            PlyCapWinner::First => Some(rules::Player::First),
            PlyCapWinner::Second => Some(rules::Player::Second),
        }
    }
}

/// The winner of a ply-capped game by [`SelfPlayConfig::adjudicate_material`]
/// (`margin` 0 or no material measure: none, a draw).
pub fn adjudicate<G: Game>(game: &G, margin: f32) -> Option<rules::Player> {
    let balance = game.material().filter(|_| margin > 0.0)?;
    if balance >= margin {
        Some(rules::Player::First)
    } else if balance <= -margin {
        Some(rules::Player::Second)
    } else {
        None
    }
}

/// Feed the finished search's root value to the resignation tracker;
/// whether the side to move resigns.
fn resigns<G: Game>(slot: &mut Slot<G>, config: &SelfPlayConfig) -> bool {
    let [w, _, l] = slot.tree.root_wdl();
    let player = slot.game.side_to_move();
    slot.resign.observe(player, w - l, config.resign_threshold)
}

/// End the slot's game with this result; collects the resignation samples
/// of a played-out game (when resignation is on). Returns the record.
fn finish_record<G: Game>(
    slot: &mut Slot<G>,
    winner: Option<rules::Player>,
    ply_capped: bool,
    stats: &mut SelfPlayStats,
) -> GameRecord {
    if !slot.resign.enabled() && stats.resign_on {
        stats.played_out += 1;
        stats.resign_samples.extend(slot.resign.samples(winner));
    }
    slot.record.winner = winner;
    slot.record.ply_capped = ply_capped;
    std::mem::replace(
        &mut slot.record,
        GameRecord {
            start: String::new(),
            actions: vec![],
            targets: vec![],
            winner: None,
            ply_capped: false,
        },
    )
}

/// [`play_games`] on `workers` threads, each with its own evaluator from
/// `make_evaluator(worker)`, its share of the games and its share of
/// `config.concurrent_games` (the total over all workers, rounded up per
/// worker). Two workers keep both cores of a small machine busy: while one
/// does tree work on its own thread, the other runs its network batch on
/// the rayon pool. `on_game` is called under a lock.
#[allow(clippy::too_many_arguments)]
pub fn play_games_parallel<G: Game, E: Evaluator<G>>(
    start: &G,
    make_evaluator: impl Fn(usize) -> E + Sync,
    search: &SearchConfig,
    config: &SelfPlayConfig,
    games: usize,
    workers: usize,
    seed: u64,
    on_game: impl FnMut(GameRecord) + Send,
) -> SelfPlayStats {
    let workers = workers.clamp(1, games.max(1));
    let config = &SelfPlayConfig {
        concurrent_games: config.concurrent_games.div_ceil(workers),
        ..config.clone()
    };
    let work = if workers == 1 {
        TreeWork::Parallel
    } else {
        TreeWork::OwnThread
    };
    let on_game = std::sync::Mutex::new(on_game);
    let per_worker: Vec<usize> = (0..workers)
        .map(|w| games / workers + usize::from(w < games % workers))
        .collect();
    let stats: Vec<SelfPlayStats> = std::thread::scope(|scope| {
        let handles: Vec<_> = per_worker
            .iter()
            .enumerate()
            .map(|(w, &n)| {
                let (make_evaluator, on_game) = (&make_evaluator, &on_game);
                scope.spawn(move || {
                    let mut evaluator = make_evaluator(w);
                    let seed = seed ^ (w as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    let on_game = |r| {
                        if let Ok(mut f) = on_game.lock() {
                            f(r);
                        }
                    };
                    play_games_on(
                        start,
                        &mut evaluator,
                        search,
                        config,
                        n,
                        seed,
                        work,
                        on_game,
                    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Shakti;
    use search::{RootKind, UniformEvaluator};

    fn config(p: f32) -> SelfPlayConfig {
        SelfPlayConfig {
            games_per_generation: 3,
            concurrent_games: 1,
            simulations: 8,
            full_search_prob: p,
            fast_simulations: 2,
            leaves_per_tree: 2,
            temperature_plies: 4,
            ply_cap: 24,
            ..SelfPlayConfig::default()
        }
    }

    fn play(
        search: &SearchConfig,
        config: &SelfPlayConfig,
        seed: u64,
    ) -> (Vec<GameRecord>, SelfPlayStats) {
        let mut records = Vec::new();
        let stats = play_games(
            &Shakti::start(),
            &mut UniformEvaluator,
            search,
            config,
            config.games_per_generation,
            seed,
            |r| records.push(r),
        );
        (records, stats)
    }

    /// Per ply of `record`, whether the position had more than one legal
    /// action (was searched).
    fn searched_plies(record: &GameRecord) -> Vec<bool> {
        let mut searched = Vec::new();
        record
            .replay::<Shakti>(|_, legal, _| searched.push(legal.len() > 1))
            .unwrap();
        searched
    }

    /// Where the tree work runs (pool or worker thread) is a scheduling
    /// choice only: the same seed gives the same games either way.
    #[test]
    fn tree_work_placement_does_not_change_the_games() {
        let cfg = SelfPlayConfig {
            concurrent_games: 3,
            ..config(1.0)
        };
        let search = SearchConfig::default();
        let games = |work| {
            let mut records = Vec::new();
            let start = Shakti::start();
            let eval = &mut UniformEvaluator;
            play_games_on(&start, eval, &search, &cfg, 4, 9, work, |r| records.push(r));
            records
        };
        let parallel = games(TreeWork::Parallel);
        assert_eq!(parallel.len(), 4);
        assert_eq!(parallel, games(TreeWork::OwnThread));
    }

    #[test]
    fn playout_cap_randomisation_records_only_full_searches() {
        let seed = 5;
        let cfg = config(0.25);
        assert_eq!(cfg.validate(), Ok(()));
        let (records, stats) = play(&SearchConfig::default(), &cfg, seed);
        assert_eq!(records.len(), 3);
        // With one game at a time, game k gets the k-th seed of the stream;
        // its j-th searched move is full iff the j-th draw of its cap
        // stream is < p. Predict every move exactly.
        let mut seeds = SmallRng::seed_from_u64(seed);
        let (mut full, mut fast) = (0, 0);
        for record in &records {
            let mut cap = SmallRng::seed_from_u64(seeds.random::<u64>() ^ CAP_SEED_SALT);
            for (ply, searched) in searched_plies(record).into_iter().enumerate() {
                let want_target = searched && cap.random::<f32>() < 0.25;
                assert_eq!(record.targets[ply].is_some(), want_target, "ply {ply}");
                full += want_target as usize;
                fast += (searched && !want_target) as usize;
            }
        }
        assert_eq!(stats.full_searches, full);
        assert_eq!(stats.fast_searches, fast);
        assert_eq!(stats.positions, full);
        assert_eq!(
            records.iter().map(GameRecord::recorded).sum::<usize>(),
            full
        );
        // The seeded run (default search, root proofs on): 64 plies (games
        // end before the cap of 24), 63 of them searched: 15 full, 48 fast.
        assert_eq!(stats.plies, 64);
        assert_eq!((full, fast), (15, 48));
    }

    #[test]
    fn policy_targets_align_with_legal_order() {
        let legal = [3u8, 7, 9];
        assert_eq!(
            align_policy(&legal, vec![(3, 0.5), (7, 0.25), (9, 0.25)]),
            vec![0.5, 0.25, 0.25]
        );
        assert_eq!(
            align_policy(&legal, vec![(9, 0.75), (3, 0.25)]),
            vec![0.25, 0.0, 0.75],
            "another order or missing actions: looked up"
        );
    }

    #[test]
    fn ply_cap_winner_scores_undecided_ply_capped_games() {
        let start = rules::Hnefatafl::start();
        let search = SearchConfig::default();
        for (setting, expected) in [
            (PlyCapWinner::Draw, None),
            (PlyCapWinner::First, Some(rules::Player::First)),
            (PlyCapWinner::Second, Some(rules::Player::Second)),
        ] {
            let cfg = SelfPlayConfig {
                games_per_generation: 2,
                concurrent_games: 2,
                simulations: 4,
                ply_cap: 4,
                ply_cap_winner: setting,
                ..SelfPlayConfig::default()
            };
            let mut records = Vec::new();
            play_games(&start, &mut UniformEvaluator, &search, &cfg, 2, 5, |r| {
                records.push(r)
            });
            assert_eq!(records.len(), 2);
            for r in &records {
                // Four plies from the start cannot end a tafl game.
                assert!(r.ply_capped && r.actions.len() == 4, "{setting:?}");
                assert_eq!(r.winner, expected, "{setting:?}");
            }
        }
        let parsed: SelfPlayConfig = toml::from_str("ply_cap_winner = \"first\"").unwrap();
        assert_eq!(parsed.ply_cap_winner, PlyCapWinner::First);
        for bad in ["ply_cap_winner = \"attackers\"", "ply_cap_winner = 1"] {
            let err = toml::from_str::<SelfPlayConfig>(bad)
                .unwrap_err()
                .to_string();
            assert!(err.contains("ply_cap_winner"), "{err}");
        }
        let err = toml::from_str::<SelfPlayConfig>("ply_cap_winner = \"attackers\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"draw\", \"first\" or \"second\""), "{err}");
    }

    #[test]
    fn material_adjudication_scores_ply_capped_games_only() {
        use rules::Viking;
        // The Viking start without Black's queen and king's rook: White +14.
        let ahead =
            Viking::from_text("12/12/12/12/1PPPP2pppp1/RPNNPPppnnpr/RBKQBPpb1kb1 w - - 0 1")
                .unwrap();
        assert_eq!(ahead.material(), Some(14.0));
        assert_eq!(adjudicate(&ahead, 3.0), Some(rules::Player::First));
        assert_eq!(adjudicate(&ahead, 14.5), None);
        assert_eq!(adjudicate(&ahead, 0.0), None, "0 turns adjudication off");
        assert_eq!(adjudicate(&Viking::start(), 3.0), None);
        assert_eq!(
            adjudicate(&Shakti::start(), 3.0),
            None,
            "no material measure"
        );
        let cfg = SelfPlayConfig {
            games_per_generation: 2,
            concurrent_games: 2,
            simulations: 4,
            ply_cap: 4,
            adjudicate_material: 3.0,
            ..SelfPlayConfig::default()
        };
        assert_eq!(cfg.validate(), Ok(()));
        let mut records = Vec::new();
        let search = SearchConfig::default();
        play_games(&ahead, &mut UniformEvaluator, &search, &cfg, 2, 3, |r| {
            records.push(r)
        });
        assert_eq!(records.len(), 2);
        for r in &records {
            assert!(r.ply_capped);
            let end = r.replay::<Viking>(|_, _, _| {}).unwrap();
            assert_eq!(
                r.winner,
                adjudicate(&end, 3.0),
                "final material {:?}",
                end.material()
            );
        }
        let off = SelfPlayConfig {
            adjudicate_material: 0.0,
            ..cfg
        };
        records.clear();
        play_games(&ahead, &mut UniformEvaluator, &search, &off, 2, 3, |r| {
            records.push(r)
        });
        assert!(records.iter().all(|r| r.ply_capped && r.winner.is_none()));
        let bad = SelfPlayConfig {
            adjudicate_material: f32::NAN,
            ..off
        };
        assert!(bad.validate().unwrap_err().contains("adjudicate_material"));
        for mix in [-0.1, 1.5, f32::NAN] {
            let bad = SelfPlayConfig {
                rollout_mix: mix,
                ..SelfPlayConfig::default()
            };
            assert!(bad.validate().unwrap_err().contains("rollout_mix"), "{mix}");
        }
    }

    #[test]
    fn playout_cap_extremes() {
        // p = 1: every searched move full and recorded (the old behaviour).
        let (records, stats) = play(&SearchConfig::default(), &config(1.0), 9);
        let searched: usize = records
            .iter()
            .map(|r| searched_plies(r).iter().filter(|s| **s).count())
            .sum();
        assert_eq!(stats.fast_searches, 0);
        assert_eq!(stats.full_searches, searched);
        assert_eq!(stats.positions, searched);
        // p = 0: nothing recorded, every search fast (2 root visits: the
        // root plus at most one more evaluation per move, fewer with reuse).
        let (records, stats) = play(&SearchConfig::default(), &config(0.0), 9);
        assert_eq!(stats.full_searches, 0);
        assert_eq!(stats.positions, 0);
        assert!(records.iter().all(|r| r.recorded() == 0));
        assert!(stats.evaluations <= 2 * stats.fast_searches as u64);
    }

    #[test]
    fn resignation_ends_games_and_played_out_games_give_samples() {
        // Threshold 1: every searched position is "lost enough", so with
        // one search in a row required, the first player resigns at once.
        let resign_all = SelfPlayConfig {
            resign: true,
            resign_threshold: 1.0,
            resign_threshold_max: 1.0,
            resign_consecutive: 1,
            resign_playout_fraction: 0.0,
            ..config(1.0)
        };
        assert_eq!(resign_all.validate(), Ok(()));
        let (records, stats) = play(&SearchConfig::default(), &resign_all, 2);
        assert_eq!(stats.resigned, 3);
        assert_eq!(stats.played_out, 0);
        for r in &records {
            assert!(r.actions.is_empty() && r.targets.is_empty());
            assert_eq!(r.winner, Some(rules::Player::Second));
            assert!(!r.ply_capped);
        }
        // Every game played out: no resignation, one sample per player and
        // game (both search at least twice before the ply cap of 24).
        let play_out_all = SelfPlayConfig {
            resign_consecutive: 2,
            resign_playout_fraction: 1.0,
            ..resign_all
        };
        let (records, stats) = play(&SearchConfig::default(), &play_out_all, 2);
        assert_eq!(stats.resigned, 0);
        assert_eq!(stats.played_out, 3);
        assert_eq!(stats.resign_samples.len(), 6);
        assert!(records.iter().all(|r| r.actions.len() >= 4));
        // Resignation off: nothing measured, nothing resigned.
        let (_, stats) = play(&SearchConfig::default(), &config(1.0), 2);
        assert_eq!((stats.resigned, stats.played_out), (0, 0));
        assert!(stats.resign_samples.is_empty());
    }

    #[test]
    fn config_checks_the_playout_cap_keys() {
        let bad_p = SelfPlayConfig {
            full_search_prob: 1.5,
            ..SelfPlayConfig::default()
        };
        assert!(bad_p.validate().unwrap_err().contains("full_search_prob"));
        let bad_fast = SelfPlayConfig {
            full_search_prob: 0.5,
            fast_simulations: 100,
            simulations: 64,
            ..SelfPlayConfig::default()
        };
        assert!(bad_fast
            .validate()
            .unwrap_err()
            .contains("fast_simulations"));
        // `full_simulations` is another name for `simulations`.
        let parsed: SelfPlayConfig = toml::from_str(
            "full_simulations = 100\nfull_search_prob = 0.25\nfast_simulations = 20\n",
        )
        .unwrap();
        assert_eq!(parsed.simulations, 100);
        assert_eq!(parsed.validate(), Ok(()));
    }

    #[test]
    fn gumbel_self_play_records_improved_policies() {
        // Without decisive moves: a position with a win in one action gets
        // a target on the winning actions only (their priors are the only
        // non-zero ones); this test checks the dense improved policy.
        let search = SearchConfig {
            root: RootKind::Gumbel,
            gumbel_m: 4,
            decisive_moves: false,
            ..SearchConfig::default()
        };
        let cfg = SelfPlayConfig {
            concurrent_games: 2,
            ..config(0.5)
        };
        let (records, stats) = play(&search, &cfg, 3);
        assert_eq!(records.len(), 3);
        assert!(stats.positions > 0);
        for record in &records {
            for target in record.targets.iter().flatten() {
                let sum: f32 = target.policy.iter().sum();
                assert!((sum - 1.0).abs() < 1e-4, "{sum}");
                // Improved policies are dense: every legal action gets mass.
                assert!(target.policy.iter().all(|p| *p > 0.0));
            }
        }
    }
}
