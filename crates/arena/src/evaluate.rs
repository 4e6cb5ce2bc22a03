//! The training loop's evaluation hook: play a new generation against the
//! previous one (with an SPRT) and against fixed baselines, and return a
//! JSON-serialisable summary for `metrics.jsonl`, including whether to
//! promote the new generation.

use std::time::Instant;

use burn::tensor::Device;
use encoding::Encode;
use model::Net;
use serde::{Deserialize, Serialize};

use crate::greedy::Heuristic;
use crate::matches::{run_match, MatchReport, MatchSettings};
use crate::spec::{FactoryContext, PlayerFactory};
use crate::sprt::{SprtConfig, SprtDecision, SprtState};
use search::{Budget, InvalidSetting};

/// The `[eval]` table of a run config. Off by default (it costs games).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvalConfig {
    /// Run the evaluation after generations (see `every`).
    pub enabled: bool,
    /// Evaluate every `every`-th generation only (generations divisible by
    /// it): on long-game variants an evaluation can cost as much as the
    /// generation, and a learning curve needs a point every few
    /// generations, not every one. 1 (the default) = every generation;
    /// more than 1 needs `gate = false` and `games_vs_previous = 0` (a
    /// skipped generation is promoted unevaluated, and has no Elo to chain
    /// the next one's on).
    pub every: u32,
    /// Maximum games against the previous generation (SPRT may stop earlier;
    /// rounded up to colour-swapped pairs); 0 skips.
    pub games_vs_previous: usize,
    /// Games against the uniformly random player; 0 skips.
    pub games_vs_random: usize,
    /// Games against the one-ply greedy player; 0 skips.
    pub games_vs_greedy: usize,
    /// Fixed anchors of the learning curve: player specs
    /// ([`crate::spec`]), e.g. `["uct:64", "uct:256",
    /// "uci:/usr/games/fairy-stockfish:d1"]`. Each generation plays
    /// `games_vs_anchors` games against each; the run's chart draws the
    /// Elo difference to each anchor against CPU-hours. Empty (the
    /// default) = none.
    pub anchors: Vec<String>,
    /// Games against each anchor (colour-swapped pairs).
    pub games_vs_anchors: usize,
    /// MCTS simulations per action for both generations.
    pub simulations: u32,
    /// Contempt of both bundle players (`search::SearchConfig::contempt`):
    /// each treats a draw as a small loss, so evaluation games between
    /// close generations end decisively more often instead of in
    /// repetition draws. In `[0, 1)`; 0 = plain zero-sum search.
    pub contempt: f32,
    /// Games in parallel.
    pub concurrency: usize,
    /// Ply cap (adjudicated draw).
    pub ply_cap: u32,
    /// Random opening plies per game pair.
    pub opening_plies: u32,
    /// SPRT of new vs previous.
    pub sprt: SprtConfig,
    /// Promote the new generation only if the SPRT accepts H1 (an all-draw
    /// or undecided match never promotes). `false`: always promote.
    pub gate: bool,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            enabled: false,
            every: 1,
            games_vs_previous: 40,
            games_vs_random: 20,
            games_vs_greedy: 0,
            anchors: Vec::new(),
            games_vs_anchors: 10,
            simulations: 64,
            contempt: 0.0,
            concurrency: 2,
            ply_cap: 300,
            opening_plies: 4,
            sprt: SprtConfig::default(),
            gate: false,
        }
    }
}

impl EvalConfig {
    /// Check the ranges; the error names the key (`eval.*`).
    ///
    /// # Errors
    /// The [`InvalidSetting`] of the first out-of-range key.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        let checks = [
            (
                self.simulations >= 1 && self.simulations <= 1_000_000,
                "eval.simulations",
                "must be in 1..=1000000",
            ),
            (
                (0.0..1.0).contains(&self.contempt),
                "eval.contempt",
                "must be in [0, 1)",
            ),
            (
                self.concurrency >= 1 && self.concurrency <= 256,
                "eval.concurrency",
                "must be in 1..=256",
            ),
            (self.every >= 1, "eval.every", "must be at least 1"),
            (
                self.every <= 1 || self.games_vs_previous == 0,
                "eval.every",
                "> 1 needs eval.games_vs_previous = 0 (the Elo chain compares each generation \
                 with an evaluated previous one)",
            ),
            (
                !self.gate || self.every <= 1,
                "eval.gate",
                "= true needs eval.every = 1 (a skipped generation could not be gated)",
            ),
            (
                !self.gate || self.games_vs_previous >= 1,
                "eval.gate",
                "= true needs eval.games_vs_previous >= 1 (gating decides on that match)",
            ),
        ];
        for (ok, field, reason) in checks {
            InvalidSetting::check(ok, field, reason)?;
        }
        for anchor in &self.anchors {
            crate::spec::PlayerSpec::parse(anchor)
                .map_err(|e| InvalidSetting::new("eval.anchors", e.to_string()))?;
        }
        self.sprt
            .validate()
            .map_err(|e| InvalidSetting::new("eval.sprt", e.to_string()))
    }
}

/// One match of the evaluation, from the new generation's view.
#[derive(Clone, Debug, Serialize)]
pub struct MatchSummary {
    /// Opponent name.
    pub opponent: String,
    /// Games played.
    pub games: u32,
    /// Wins of the new generation.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Score in `[0, 1]`.
    pub score: f64,
    /// Elo difference (null in JSON when infinite).
    pub elo: f64,
    /// Lower end of the 95 % interval.
    pub elo_lower: f64,
    /// Upper end of the 95 % interval.
    pub elo_upper: f64,
    /// SPRT state (vs previous only).
    pub sprt: Option<SprtState>,
    /// Whether the SPRT stopped the match early.
    pub stopped_early: bool,
}

impl MatchSummary {
    fn from_report(opponent: &str, r: &MatchReport) -> Self {
        MatchSummary {
            opponent: opponent.to_string(),
            games: r.wdl.games(),
            wins: r.wdl.wins,
            draws: r.wdl.draws,
            losses: r.wdl.losses,
            score: r.elo.score,
            elo: r.elo.elo,
            elo_lower: r.elo.lower,
            elo_upper: r.elo.upper,
            sprt: r.sprt,
            stopped_early: r.stopped_early,
        }
    }
}

/// What [`evaluate_generation`] found.
#[derive(Clone, Debug, Serialize)]
pub struct EvalSummary {
    /// The evaluated generation.
    pub generation: u32,
    /// New vs previous generation (absent for the first generation).
    pub vs_previous: Option<MatchSummary>,
    /// New vs each baseline.
    pub baselines: Vec<MatchSummary>,
    /// Whether the new generation should become the current best.
    pub promote: bool,
    /// Wall time, seconds.
    pub seconds: f64,
}

impl EvalSummary {
    /// As a JSON value (one `metrics.jsonl` field).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

/// Play `new` (generation `generation`) against `previous` (its network
/// and generation number: the current best, which is the previous
/// generation unless gating rejected it; SPRT per `cfg.sprt`) and against
/// the random and greedy baselines, as configured; decide promotion (see
/// [`EvalConfig::gate`]).
pub fn evaluate_generation<G: Encode + Heuristic>(
    new: &Net,
    previous: Option<(&Net, u32)>,
    device: &Device,
    cfg: &EvalConfig,
    generation: u32,
    seed: u64,
) -> EvalSummary {
    let started = Instant::now();
    let mut ctx = FactoryContext::new(device.clone());
    ctx.search.contempt = cfg.contempt;
    let budget = Budget::nodes(cfg.simulations);
    let new_name = format!("gen-{generation:06}");
    let new_p = PlayerFactory::<G>::from_net(&new_name, new.clone(), budget.clone(), &ctx);
    let settings = |games: usize, sprt: Option<SprtConfig>, salt: u64| MatchSettings {
        games,
        concurrency: cfg.concurrency,
        ply_cap: cfg.ply_cap,
        time_control: None,
        opening_plies: cfg.opening_plies,
        seed: seed ^ salt,
        sprt,
    };
    let play = |opp: &PlayerFactory<G>, s: &MatchSettings| {
        run_match::<G, _, _>(
            s,
            |i| new_p.make(seed ^ i as u64),
            |i| opp.make(seed ^ (i as u64) << 32 ^ 0xA5),
            |_| {},
        )
    };
    let mut vs_previous = None;
    if let (Some((prev, prev_gen)), true) = (previous, cfg.games_vs_previous > 0) {
        let prev_name = format!("gen-{prev_gen:06}");
        let prev_p = PlayerFactory::<G>::from_net(&prev_name, prev.clone(), budget.clone(), &ctx);
        let r = play(&prev_p, &settings(cfg.games_vs_previous, Some(cfg.sprt), 1));
        vs_previous = Some(MatchSummary::from_report(&prev_name, &r));
    }
    let mut baselines = Vec::new();
    let fixed = [
        ("random", cfg.games_vs_random),
        ("greedy", cfg.games_vs_greedy),
    ];
    let anchors = cfg
        .anchors
        .iter()
        .map(|a| (a.as_str(), cfg.games_vs_anchors));
    for (salt, (spec, games)) in (2u64..).zip(fixed.into_iter().chain(anchors)) {
        if games == 0 {
            continue;
        }
        match PlayerFactory::<G>::new(spec, &ctx) {
            Ok(opp) => {
                let r = play(&opp, &settings(games, None, salt));
                baselines.push(MatchSummary::from_report(spec, &r));
            }
            // An anchor that cannot be built here (an engine not
            // installed) is left out of this generation, not fatal.
            Err(e) => eprintln!("warning: eval anchor skipped: {e}"),
        }
    }
    let promote = !cfg.gate
        || match &vs_previous {
            None => previous.is_none(),
            Some(m) => m.sprt.is_some_and(|s| s.decision == SprtDecision::H1),
        };
    EvalSummary {
        generation,
        vs_previous,
        baselines,
        promote,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// [`evaluate_generation`] for a variant known at run time (the networks
/// are untyped), so a caller generic only over `Encode` can use it.
pub fn evaluate_generation_for(
    variant: rules::VariantId,
    new: &Net,
    previous: Option<(&Net, u32)>,
    device: &Device,
    cfg: &EvalConfig,
    generation: u32,
    seed: u64,
) -> EvalSummary {
    rules::with_variant!(variant, G => evaluate_generation::<G>(new, previous, device, cfg, generation, seed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::NetShape;

    fn tiny_net(device: &Device) -> Net {
        use encoding::Encode as _;
        type G = rules::Shakti;
        let shape = NetShape {
            input_planes: G::INPUT_PLANES,
            policy_planes: G::POLICY_PLANES,
            height: G::HEIGHT,
            width: G::WIDTH,
            blocks: 1,
            filters: 4,
            value_hidden: 4,
            moves_left: false,
        };
        Net::new(&shape, device)
    }

    #[test]
    fn validation_names_the_key() {
        assert_eq!(EvalConfig::default().validate(), Ok(()));
        let bad = |c: EvalConfig| c.validate().unwrap_err().to_string();
        assert!(bad(EvalConfig {
            simulations: 0,
            ..EvalConfig::default()
        })
        .contains("eval.simulations"));
        assert!(bad(EvalConfig {
            contempt: 1.0,
            ..EvalConfig::default()
        })
        .contains("eval.contempt"));
        assert!(bad(EvalConfig {
            gate: true,
            games_vs_previous: 0,
            ..EvalConfig::default()
        })
        .contains("eval.games_vs_previous"));
        let sprt = SprtConfig {
            elo1: 0.0,
            ..SprtConfig::default()
        };
        assert!(bad(EvalConfig {
            sprt,
            ..EvalConfig::default()
        })
        .starts_with("eval.sprt"));
    }

    #[test]
    fn all_draws_never_promote_under_gating() {
        let device = model::device_from_name("cpu").unwrap();
        let (a, b) = (tiny_net(&device), tiny_net(&device));
        // Ply cap 0: every game is an immediate adjudicated draw.
        let mut cfg = EvalConfig {
            enabled: true,
            games_vs_previous: 6,
            games_vs_random: 2,
            games_vs_greedy: 2,
            simulations: 2,
            concurrency: 1,
            ply_cap: 0,
            opening_plies: 0,
            gate: true,
            ..EvalConfig::default()
        };
        let s = evaluate_generation_for(
            rules::VariantId::Shakti,
            &a,
            Some((&b, 2)),
            &device,
            &cfg,
            3,
            1,
        );
        let prev = s.vs_previous.as_ref().unwrap();
        assert_eq!((prev.games, prev.draws), (6, 6));
        assert_eq!(prev.opponent, "gen-000002");
        assert_eq!(prev.sprt.unwrap().llr, 0.0);
        assert!(!s.promote);
        assert_eq!(s.baselines.len(), 2);
        let json = s.to_json();
        assert_eq!(json["vs_previous"]["sprt"]["decision"], "continue");
        assert_eq!(json["promote"], false);
        assert_eq!(json["baselines"][1]["opponent"], "greedy");
        // Without gating it promotes; the first generation always does.
        cfg.gate = false;
        // (Against generation 1: gating had rejected generation 2.)
        assert!(
            evaluate_generation_for(
                rules::VariantId::Shakti,
                &a,
                Some((&b, 1)),
                &device,
                &cfg,
                3,
                1
            )
            .promote
        );
        cfg.gate = true;
        assert!(
            evaluate_generation_for(rules::VariantId::Shakti, &a, None, &device, &cfg, 0, 1)
                .promote
        );
    }
}
