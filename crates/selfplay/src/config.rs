//! Self-play settings, the `[selfplay]` table of a config, and their
//! range checks.

use rules::Player;
use search::InvalidSetting;
use serde::{Deserialize, Serialize};

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
    /// Root visits of the second player's full searches (black, the tafl
    /// defenders); 0 (the default) = `simulations`, as the first player's.
    /// A search handicap for self-play that drifts to one side (loki's
    /// attackers won 95-100 % of generations 11-18 at 96 simulations,
    /// `docs/experiments.md`): the losing side searches deeper, so its policy targets
    /// come from stronger play and more games are decided both ways, as
    /// handicap games balance a stronger and a weaker player. Fast
    /// searches (playout cap randomisation) keep `fast_simulations`.
    pub second_player_simulations: u32,
    /// Playout cap randomisation (KataGo, Wu 2019, section 3.1): the
    /// probability `p` that a searched move gets a full search and is
    /// recorded as a training target; otherwise it gets a fast search of
    /// `fast_simulations`, without root exploration, and is not recorded.
    /// In `[0, 1]`; 1 (the default) = every move full (off).
    pub full_search_prob: f32,
    /// Root visits of a fast search (KataGo's `n`). `1..=simulations`, and
    /// at most `second_player_simulations` when that is set, when
    /// `full_search_prob < 1`: a fast search is never deeper than either
    /// player's full search. Default 16.
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
    /// ply-capped draws. Only self-play records: matches and
    /// the rules never adjudicate by material.
    pub adjudicate_material: f32,
    /// Who wins a ply-capped game that [`Self::adjudicate_material`] left
    /// undecided, in the self-play records only: `"draw"` (the default,
    /// the rules' result), `"first"` or `"second"`. For games where one
    /// side must make progress and stalling is its failure: in tafl the
    /// defenders must bring the king out, and a run scoring the 200-ply
    /// stalls as draws taught the defenders to shuffle
    /// (`docs/experiments.md`); scoring them as the attackers' wins
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
    /// Fraction in `[0, 1]` of the games that start from a position of an
    /// earlier generation's self-play instead of the variant's start
    /// ([`crate::Games::branch_starts`]; KataGo starts part of its games
    /// from positions of earlier games, Wu 2019, "Accelerating Self-Play
    /// Learning in Go"). In long games whose self-play rarely reaches an
    /// end (tafl, loki) more games then reach and decide their endgames.
    /// 0 (the default) = every game from the start.
    pub branch_fraction: f32,
    /// Branched games start only from the last this-many plies of an
    /// earlier game, so they begin in endgames, where a game is won or
    /// drawn by converting an advantage, and in the shuffling stretches of
    /// games stopped by the ply cap (the plies a network that cannot
    /// convert needs most). 0 (the default) = any ply after the first.
    pub branch_last_plies: u32,
    /// A file of position texts, one per line (blank lines and lines
    /// starting with `#` skipped), relative to the working directory of
    /// the run. When set, branched games start from its positions instead
    /// of earlier games', from the first generation on: a curriculum of
    /// chosen positions, such as endgames self-play seldom reaches (Lc0
    /// and KataGo train from books of start positions the same way).
    /// `None` (the default) = earlier games' positions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch_book: Option<std::path::PathBuf>,
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
            second_player_simulations: 0,
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
            branch_fraction: 0.0,
            branch_last_plies: 0,
            branch_book: None,
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

    /// Root visits of a full search by `side`:
    /// [`Self::second_player_simulations`] for the second player when set,
    /// else [`Self::simulations`].
    pub fn full_simulations(&self, side: Player) -> u32 {
        match side {
            Player::Second if self.second_player_simulations > 0 => self.second_player_simulations,
            _ => self.simulations,
        }
    }

    /// Check ranges; the message names the offending key (the first
    /// failing check of the general, playout cap (with the second player's
    /// budget) and resignation checks, in that order).
    ///
    /// # Errors
    /// The [`InvalidSetting`] of the first failing check.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        let first_failing = |checks: &[(bool, &'static str, &'static str)]| {
            checks
                .iter()
                .try_for_each(|&(ok, field, reason)| InvalidSetting::check(ok, field, reason))
        };
        first_failing(&self.general_checks())?;
        first_failing(&self.cap_checks())?;
        self.second_player_cap_check()?;
        first_failing(&self.resign_checks())
    }

    /// With playout cap randomisation on and a second player's budget set,
    /// `fast_simulations` must not exceed that budget either (the first
    /// player's, `simulations`, is in [`Self::cap_checks`]).
    fn second_player_cap_check(&self) -> Result<(), InvalidSetting> {
        let second = self.full_simulations(Player::Second);
        if self.full_search_prob < 1.0
            && self.second_player_simulations > 0
            && self.fast_simulations > second
        {
            return Err(InvalidSetting::new(
                "selfplay.fast_simulations",
                format!(
                    "must be in 1..=selfplay.second_player_simulations ({second}) when \
                     full_search_prob < 1, got {}",
                    self.fast_simulations
                ),
            ));
        }
        Ok(())
    }

    /// Sizes, budgets, temperatures, the ply cap and its adjudication.
    fn general_checks(&self) -> [(bool, &'static str, &'static str); 13] {
        [
            (
                self.workers >= 1 && self.workers <= 64,
                "selfplay.workers",
                "must be in 1..=64",
            ),
            (
                self.games_per_generation >= 1,
                "selfplay.games_per_generation",
                "must be >= 1",
            ),
            (
                self.concurrent_games >= 1 && self.concurrent_games <= 4096,
                "selfplay.concurrent_games",
                "must be in 1..=4096",
            ),
            (
                self.simulations >= 1 && self.simulations <= 1_000_000,
                "selfplay.simulations",
                "must be in 1..=1000000",
            ),
            (
                self.second_player_simulations <= 1_000_000,
                "selfplay.second_player_simulations",
                "must be in 0..=1000000 (0 = simulations)",
            ),
            (
                self.leaves_per_tree >= 1 && self.leaves_per_tree <= 256,
                "selfplay.leaves_per_tree",
                "must be in 1..=256",
            ),
            (
                self.temperature.is_finite()
                    && self.temperature >= 0.0
                    && self.final_temperature.is_finite()
                    && self.final_temperature >= 0.0,
                "selfplay.temperature",
                "and selfplay.final_temperature must be finite and >= 0",
            ),
            (self.ply_cap >= 1, "selfplay.ply_cap", "must be >= 1"),
            (
                self.adjudicate_material.is_finite() && self.adjudicate_material >= 0.0,
                "selfplay.adjudicate_material",
                "must be finite and >= 0",
            ),
            (
                (0.0..=1.0).contains(&self.rollout_mix),
                "selfplay.rollout_mix",
                "must be in [0, 1]",
            ),
            (
                (0.0..=1.0).contains(&self.branch_fraction),
                "selfplay.branch_fraction",
                "must be in [0, 1]",
            ),
            (
                self.branch_book.is_none() || self.branch_fraction > 0.0,
                "selfplay.branch_book",
                "is set but selfplay.branch_fraction is 0: no game would start from it",
            ),
            (
                self.games_per_chunk >= 1,
                "selfplay.games_per_chunk",
                "must be >= 1",
            ),
        ]
    }

    /// Playout cap randomisation.
    fn cap_checks(&self) -> [(bool, &'static str, &'static str); 2] {
        [
            (
                (0.0..=1.0).contains(&self.full_search_prob),
                "selfplay.full_search_prob",
                "must be in [0, 1]",
            ),
            (
                self.full_search_prob >= 1.0
                    || (self.fast_simulations >= 1 && self.fast_simulations <= self.simulations),
                "selfplay.fast_simulations",
                "must be in 1..=simulations when full_search_prob < 1",
            ),
        ]
    }

    /// Resignation.
    fn resign_checks(&self) -> [(bool, &'static str, &'static str); 6] {
        [
            (
                (-1.0..=1.0).contains(&self.resign_threshold),
                "selfplay.resign_threshold",
                "must be in [-1, 1]",
            ),
            (
                (-1.0..=1.0).contains(&self.resign_threshold_max),
                "selfplay.resign_threshold_max",
                "must be in [-1, 1]",
            ),
            (
                self.resign_threshold <= self.resign_threshold_max,
                "selfplay.resign_threshold",
                "must be <= selfplay.resign_threshold_max",
            ),
            (
                self.resign_consecutive >= 1,
                "selfplay.resign_consecutive",
                "must be >= 1",
            ),
            (
                (0.0..=1.0).contains(&self.resign_playout_fraction),
                "selfplay.resign_playout_fraction",
                "must be in [0, 1]",
            ),
            (
                (0.0..=1.0).contains(&self.resign_fp_target),
                "selfplay.resign_fp_target",
                "must be in [0, 1]",
            ),
        ]
    }
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
    type Error = InvalidSetting;

    /// `"draw"`, `"first"` or `"second"`; anything else names the choices
    /// (so does a value that is not a string, through serde).
    fn try_from(text: String) -> Result<Self, InvalidSetting> {
        match text.as_str() {
            "draw" => Ok(PlyCapWinner::Draw),
            "first" => Ok(PlyCapWinner::First),
            "second" => Ok(PlyCapWinner::Second),
            _ => Err(InvalidSetting::new(
                "ply_cap_winner",
                format!("must be \"draw\", \"first\" or \"second\", not {text:?}"),
            )),
        }
    }
}

impl PlyCapWinner {
    /// The winner this setting records (`None` = a draw).
    pub fn player(self) -> Option<Player> {
        match self {
            PlyCapWinner::Draw => None,
            PlyCapWinner::First => Some(Player::First),
            PlyCapWinner::Second => Some(Player::Second),
        }
    }
}
