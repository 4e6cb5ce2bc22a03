//! Search configuration: PUCT constant, first-play urgency, root noise,
//! virtual loss, batch size, the root policy (PUCT or Gumbel), forced
//! playouts, and the temperature schedule for move choice.

use serde::{Deserialize, Serialize};

/// Parameters of one PUCT search (AlphaZero, Silver et al. 2018, "A general
/// reinforcement learning algorithm that masters chess, shogi, and Go through
/// self-play", Science 362:1140; supplementary "Methods").
///
/// Deserialises from a TOML/JSON table with unknown keys rejected; every
/// missing key takes its [`Default`] value. Call [`SearchConfig::validate`]
/// on anything read from a file: [`crate::Mcts::new`] does not validate, and
/// out-of-range values give a meaningless (though memory-safe) search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Exploration constant `c_puct` in `Q + c_puct * P * sqrt(N_parent) / (1 + N)`.
    /// Dimensionless, `> 0`, finite. Default 1.25 (the paper's `c_init`).
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at the parent's Q
    /// minus this reduction (Leela Chess Zero / KataGo practice), in value
    /// units (`W - L`, range `[-1, 1]`). `>= 0`, finite. Default 0.25.
    pub fpu_reduction: f32,
    /// Concentration `alpha` of the Dirichlet noise mixed into the root
    /// priors. `> 0`, finite. Default 0.3 (the paper's value for chess).
    pub dirichlet_alpha: f32,
    /// Weight `epsilon` of the root noise: `P' = (1 - epsilon) P + epsilon * eta`,
    /// `eta ~ Dir(alpha)`. In `[0, 1]`; 0 disables noise (evaluation, UCI
    /// play). Default 0.25 (the paper's value).
    pub dirichlet_epsilon: f32,
    /// Virtual loss per in-flight descent: while a leaf below a child awaits
    /// evaluation, the child counts `virtual_loss` extra visits, each a loss
    /// for the player choosing it. `>= 0`, finite; 0 disables it (then a
    /// batch mostly collides on one leaf). Default 1.0.
    pub virtual_loss: f32,
    /// Leaves collected per tree per network batch. `>= 1`. Default 8.
    pub leaves_per_batch: usize,
    /// Contempt (chess engines' contempt factor): a drawn terminal position
    /// is worth `-contempt` to the player to move at the root and
    /// `+contempt` to the opponent, in value units (`W - L`). In `[0, 1)`;
    /// 0 (the default) keeps the search zero-sum, as self-play needs. A
    /// small positive value makes a bot avoid repetition draws against a
    /// weaker opponent instead of being indifferent to them.
    pub contempt: f32,
    /// How the root chooses the child to descend into: `"puct"` (AlphaZero)
    /// or `"gumbel"` (Gumbel AlphaZero: Gumbel-top-k sampling and sequential
    /// halving, Danihelka et al. 2022; see [`crate::RootSelection::Gumbel`]).
    /// Inner nodes always use PUCT. Default `"puct"`.
    pub root: RootKind,
    /// Gumbel root: the number `m` of actions sampled without replacement
    /// (Gumbel-top-k) and then narrowed by sequential halving; fewer when
    /// the root has fewer legal actions. `>= 1`. Default 16 (the paper's
    /// value for chess and Go; mctx `max_num_considered_actions`).
    pub gumbel_m: u32,
    /// Gumbel root: `c_visit` in `sigma(q) = (c_visit + max_b N(b)) * c_scale * q`
    /// (Danihelka et al. 2022, eq. 8). `>= 0`, finite. Default 50 (the paper's value).
    pub gumbel_c_visit: f32,
    /// Gumbel root: `c_scale` in `sigma`. `>= 0`, finite. Default 1.0 (the
    /// paper's value; mctx's default `value_scale` is 0.1).
    pub gumbel_c_scale: f32,
    /// Gumbel root: normalise the completed Q-values to `[0, 1]` by their
    /// min and max over the root's children before `sigma` (mctx
    /// `qtransform_completed_by_mix_value(rescale_values=True)`, its
    /// default). When false, `q` in `[-1, 1]` is mapped linearly to
    /// `(q + 1) / 2` instead. Default true.
    pub gumbel_rescale_q: bool,
    /// KataGo forced playouts (Wu 2019, "Accelerating Self-Play Learning in
    /// Go", section 3.1), PUCT root only: while root noise is on, a root
    /// child visited at least once with fewer than
    /// `n_forced(c) = sqrt(k * P(c) * sum_b N(b))` visits is chosen
    /// outright; [`crate::Mcts::policy_target`] then prunes the forced
    /// visits from the target. Default false.
    pub forced_playouts: bool,
    /// The constant `k` of `n_forced`. `> 0`, finite. Default 2 (the paper's value).
    pub forced_playouts_k: f32,
    /// Decisive moves (Teytaud & Teytaud 2010, "On the huge benefit of
    /// decisive moves in Monte-Carlo Tree Search algorithms", IEEE CIG):
    /// when a leaf is reached, each legal action is tried, and if one ends
    /// the game with a win for the side to move the leaf is scored as an
    /// exact win without a network call and expanded with its prior spread
    /// over the winning actions only. Costs one `play` + `outcome` per
    /// legal action of each new leaf; finds every win in one action at any
    /// depth of the tree, which a small budget over a wide action set (tafl:
    /// 100+ actions) otherwise misses. Default true.
    pub decisive_moves: bool,
    /// Two-fold repetition draws (Leela Chess Zero's `--two-fold-draws`):
    /// a position below the root that already occurred earlier in the game
    /// ([`rules::Game::repeats_earlier`]) is scored as a drawn terminal
    /// (shifted by [`SearchConfig::contempt`]) instead of being evaluated,
    /// since the player who steered back into it can repeat again. The
    /// search then sees a shuttle as the draw it leads to one move deep,
    /// not two repetitions deep; with contempt, a side ahead avoids it.
    /// The root itself is never scored so. Variants without a repetition
    /// rule are unaffected. Default true.
    pub two_fold_draws: bool,
    /// Forced wins in two proven at the root (see the `proof` module):
    /// once the root is expanded, each root action after which every reply
    /// of the opponent leaves the side to move an immediately winning
    /// action is marked a proven win, so the search piles its visits there
    /// (and the policy target names it). Extends
    /// [`SearchConfig::decisive_moves`] by one turn at the root only; costs
    /// at most `PROOF_BUDGET` (20 000) plays per root, usually far fewer.
    /// Default true.
    pub win_in_two: bool,
    /// Forcing lines proven at the root (the `forcing` module: proof-number
    /// search, Allis et al. 1994, through lines where every opponent turn
    /// has at most three moves that do not lose at once, as chess engines'
    /// mate searches follow checks): the longest win looked for, in the
    /// winner's turns. A root action that wins so is marked a proven win;
    /// one after which the opponent wins so is marked a proven loss (the
    /// search then passes over it). In losers a piece offered to a lone
    /// king, or a sacrifice that must be taken, leaves one reply; in tafl
    /// a king's open road to a corner leaves only the blocks. Exact but
    /// incomplete; costs at most `FORCING_BUDGET` (10 000) plays per root.
    /// 0 = off; at most [`MAX_FORCING_DEPTH`]. Default 0 (self-play's
    /// recipes were tuned without it); [`PLAY_FORCING_DEPTH`] in play
    /// ([`SearchConfig::for_play`]).
    pub forcing_depth: u32,
    /// MCTS-Solver (Winands, Björnsson & Saito 2008, "Monte-Carlo Tree
    /// Search Solver", Computers and Games): wins and losses proven in the
    /// tree (game ends, decisive moves, wins in two) are backed up as
    /// proofs: a node with a child proven won for its side to move is
    /// itself proven won, one whose children are all proven won for the
    /// other side proven lost. A descent reaching a proven node backs up
    /// its exact value; PUCT takes a proven-won child outright and passes
    /// over proven-lost ones; the move choice plays a proven win and
    /// avoids a proven loss while an open move remains
    /// ([`crate::Mcts::choose_action`]). Draws are not propagated.
    /// Default false (self-play: its effect on learning is not measured
    /// yet); on in play ([`SearchConfig::for_play`]: bots, matches,
    /// evaluation), where its A/B was neutral (`docs/experiments.md`).
    pub solver: bool,
    /// Forced moves played through: a new leaf below the root with a
    /// single legal action is not sent to the network; it is expanded at
    /// once with that action (prior 1) and the descent goes on to its
    /// child, up to `FORCED_CHAIN_LIMIT` (32) forced plies in a row. The
    /// forced node's value is then its child's, which is a ply better
    /// informed, and every evaluation lands where a choice exists: in
    /// losers, where captures are compulsory, a large share of the tree's
    /// positions have one legal move (`docs/experiments.md`).
    /// A simulation still costs one network evaluation, so node budgets
    /// keep their meaning. Default false (self-play's recipes were tuned
    /// without it); on in play ([`SearchConfig::for_play`]).
    pub collapse_forced: bool,
    /// Policy softmax temperature `T` (Leela Chess Zero's
    /// `PolicySoftmaxTemp`): a new node's priors are `p_i^(1/T)`
    /// renormalised, so `T > 1` flattens a sharp prior and lets the search
    /// look at actions the network under-rates. `> 0`, finite. Default 1.0
    /// (the network's own priors, as self-play's policy targets assume).
    pub policy_temperature: f32,
}

/// The root policy named in a config file (`root = "puct"` or `"gumbel"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RootKind {
    /// PUCT at the root, as at every inner node (AlphaZero).
    #[default]
    Puct,
    /// Gumbel AlphaZero root search with the `gumbel_*` parameters.
    Gumbel,
}

/// The policy softmax temperature of play (bots, matches, evaluation; not
/// self-play): [`SearchConfig::policy_temperature`] in
/// [`SearchConfig::for_play`]. Measured in `docs/experiments.md` ("Policy
/// temperature at play time"): against random play it turned the shipped
/// viking bundle's shuffles into mates (200 simulations, contempt 0.3:
/// +17 =3 at 1.0, +20 =0 at 1.6 over 20 games); Leela Chess Zero plays
/// with a value in the same range (`PolicySoftmaxTemp`).
pub const PLAY_POLICY_TEMPERATURE: f32 = 1.6;

/// The largest [`SearchConfig::forcing_depth`] accepted.
pub const MAX_FORCING_DEPTH: u32 = 32;

/// Root visits per move of every bundle player when no budget is named:
/// matches, ladders, `lokizero play`, analysis and the web lab's default
/// (the budget the strength tables state).
pub const PLAY_NODES: u32 = 200;

/// [`SearchConfig::forcing_depth`] in play ([`SearchConfig::for_play`]),
/// measured in `docs/experiments.md` ("Forcing lines at the root").
pub const PLAY_FORCING_DEPTH: u32 = 10;

impl SearchConfig {
    /// The defaults for play rather than self-play: no root noise, the
    /// priors flattened by [`PLAY_POLICY_TEMPERATURE`] and MCTS-Solver on
    /// ([`SearchConfig::solver`]), forced moves played through
    /// ([`SearchConfig::collapse_forced`]), forcing lines proven at the root
    /// ([`PLAY_FORCING_DEPTH`]).
    pub fn for_play() -> Self {
        SearchConfig {
            dirichlet_epsilon: 0.0,
            policy_temperature: PLAY_POLICY_TEMPERATURE,
            solver: true,
            collapse_forced: true,
            forcing_depth: PLAY_FORCING_DEPTH,
            ..SearchConfig::default()
        }
    }
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            c_puct: 1.25,
            fpu_reduction: 0.25,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            virtual_loss: 1.0,
            leaves_per_batch: 8,
            contempt: 0.0,
            root: RootKind::Puct,
            gumbel_m: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 1.0,
            gumbel_rescale_q: true,
            forced_playouts: false,
            forced_playouts_k: 2.0,
            decisive_moves: true,
            two_fold_draws: true,
            win_in_two: true,
            forcing_depth: 0,
            solver: false,
            collapse_forced: false,
            policy_temperature: 1.0,
        }
    }
}

/// A setting outside its allowed range, or settings that contradict each
/// other: the one validation error of every config section of the project
/// (search, self-play, training, evaluation, the web service). The message
/// is `<field> <reason>`, e.g. `selfplay.ply_cap must be >= 1`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field} {reason}")]
pub struct InvalidSetting {
    /// The key as written in the config file, with its section once the
    /// section is known (`c_puct`, then `search.c_puct`).
    pub field: String,
    /// What the value must be, and the value given where one number says
    /// it (`must be in [0, 1), got 1.5`).
    pub reason: String,
}

impl InvalidSetting {
    /// The error for `field` with `reason`.
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        InvalidSetting {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// The same error with the field inside `section` (`c_puct` in
    /// `search` becomes `search.c_puct`).
    #[must_use]
    pub fn in_section(mut self, section: &str) -> Self {
        self.field = format!("{section}.{}", self.field);
        self
    }

    /// `Ok` when `ok`, else the error for `field` with `reason`: one
    /// range check of a `validate` method.
    ///
    /// # Errors
    /// The [`InvalidSetting`] when `ok` is false.
    pub fn check(ok: bool, field: &str, reason: &str) -> Result<(), InvalidSetting> {
        if ok {
            Ok(())
        } else {
            Err(InvalidSetting::new(field, reason))
        }
    }
}

fn check(
    field: &'static str,
    value: f32,
    ok: bool,
    expected: &'static str,
) -> Result<(), InvalidSetting> {
    if value.is_finite() && ok {
        Ok(())
    } else {
        Err(InvalidSetting::new(
            field,
            format!("must be {expected}, got {value}"),
        ))
    }
}

impl SearchConfig {
    /// Check every field against its documented range.
    ///
    /// # Errors
    /// [`InvalidSetting`] for the first field out of range.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        check("c_puct", self.c_puct, self.c_puct > 0.0, "finite and > 0")?;
        check(
            "fpu_reduction",
            self.fpu_reduction,
            self.fpu_reduction >= 0.0,
            "finite and >= 0",
        )?;
        check(
            "dirichlet_alpha",
            self.dirichlet_alpha,
            self.dirichlet_alpha > 0.0,
            "finite and > 0",
        )?;
        check(
            "dirichlet_epsilon",
            self.dirichlet_epsilon,
            (0.0..=1.0).contains(&self.dirichlet_epsilon),
            "in [0, 1]",
        )?;
        check(
            "virtual_loss",
            self.virtual_loss,
            self.virtual_loss >= 0.0,
            "finite and >= 0",
        )?;
        check(
            "contempt",
            self.contempt,
            (0.0..1.0).contains(&self.contempt),
            "in [0, 1)",
        )?;
        check(
            "policy_temperature",
            self.policy_temperature,
            self.policy_temperature > 0.0,
            "finite and > 0",
        )?;
        if self.leaves_per_batch == 0 {
            return Err(InvalidSetting::new(
                "leaves_per_batch",
                "must be >= 1, got 0",
            ));
        }
        if self.forcing_depth > MAX_FORCING_DEPTH {
            return Err(InvalidSetting::new(
                "forcing_depth",
                format!("must be <= {MAX_FORCING_DEPTH}, got {}", self.forcing_depth),
            ));
        }
        if self.gumbel_m == 0 {
            return Err(InvalidSetting::new("gumbel_m", "must be >= 1, got 0"));
        }
        check(
            "gumbel_c_visit",
            self.gumbel_c_visit,
            self.gumbel_c_visit >= 0.0,
            "finite and >= 0",
        )?;
        check(
            "gumbel_c_scale",
            self.gumbel_c_scale,
            self.gumbel_c_scale >= 0.0,
            "finite and >= 0",
        )?;
        check(
            "forced_playouts_k",
            self.forced_playouts_k,
            self.forced_playouts_k > 0.0,
            "finite and > 0",
        )?;
        Ok(())
    }

    /// Whether root exploration noise is on (`dirichlet_epsilon > 0`): the
    /// Dirichlet noise of a PUCT root, or the Gumbel noise of a Gumbel root
    /// (which then ignores the value of `dirichlet_epsilon`). Off for
    /// evaluation play, where a Gumbel root uses `g = 0` (mctx
    /// `gumbel_scale = 0`). Forced playouts also run only while it is on.
    pub fn noise_enabled(&self) -> bool {
        self.dirichlet_epsilon > 0.0
    }

    /// The root policy these settings describe.
    pub fn root_selection(&self) -> crate::RootSelection {
        match self.root {
            RootKind::Puct => crate::RootSelection::Puct,
            RootKind::Gumbel => crate::RootSelection::Gumbel {
                m: self.gumbel_m,
                c_visit: self.gumbel_c_visit,
                c_scale: self.gumbel_c_scale,
                rescale_q: self.gumbel_rescale_q,
            },
        }
    }
}

/// Temperature for choosing the move actually played from the root visit
/// counts (AlphaZero: `pi(a) ~ N(a)^(1/t)`; temperature 1 for the first
/// plies of self-play, then greedy).
///
/// [`TemperatureSchedule::at`] gives `initial` for plies `0..plies` and
/// `final_temperature` afterwards; a temperature of 0 means argmax (see
/// [`crate::Mcts::choose_action`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TemperatureSchedule {
    /// Temperature for the opening plies. `>= 0`, finite. Default 1.0.
    pub initial: f32,
    /// Number of plies (game actions, [`rules::Game::ply`]) that use `initial`. Default 30.
    pub plies: u32,
    /// Temperature from ply `plies` on; 0 = argmax. `>= 0`, finite. Default 0.0.
    pub final_temperature: f32,
}

impl Default for TemperatureSchedule {
    fn default() -> Self {
        TemperatureSchedule {
            initial: 1.0,
            plies: 30,
            final_temperature: 0.0,
        }
    }
}

impl TemperatureSchedule {
    /// The temperature to use at game ply `ply` (0-based).
    pub fn at(&self, ply: u32) -> f32 {
        if ply < self.plies {
            self.initial
        } else {
            self.final_temperature
        }
    }

    /// Check both temperatures are finite and `>= 0`.
    ///
    /// # Errors
    /// [`InvalidSetting`] naming the field.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        check(
            "initial",
            self.initial,
            self.initial >= 0.0,
            "finite and >= 0",
        )?;
        check(
            "final_temperature",
            self.final_temperature,
            self.final_temperature >= 0.0,
            "finite and >= 0",
        )
    }
}
