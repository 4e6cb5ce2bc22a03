//! The search budget every command speaks (`--nodes`, `--movetime`), and
//! the play-time search settings of bundle players shared by `play`,
//! `match` and `ladder`.

use std::time::Duration;

use anyhow::{anyhow, Result};
use clap::Args;
use search::{Budget, SearchConfig, PLAY_POLICY_TEMPERATURE};

/// How long a bot thinks per move, in the vocabulary every command
/// shares: `--nodes N` and/or `--movetime T` (a search stops at the first
/// bound reached). A player spec's own `:N` / `:250ms` wins over these.
#[derive(Args, Debug, Clone, Default)]
pub struct BudgetArgs {
    /// Root visits per move (network evaluations and terminal scorings; the
    /// visits a kept subtree brought count, as lc0's `go nodes`); > 0.
    /// Without --nodes and --movetime: 200 root visits (for `uci`, a bare
    /// `go` then searches until `stop`; for `analyse` and `serve` these
    /// flags set the budget of requests that name none).
    #[arg(long, value_parser = parse_nodes)]
    pub nodes: Option<u32>,
    /// Wall time per move: `250ms`, `1s`, `1.5s` (the search stops before a
    /// batch that would overrun it; the root is always evaluated).
    #[arg(long, value_parser = parse_movetime)]
    pub movetime: Option<Duration>,
}

/// `--nodes` text: a node budget as player specs write it (plain digits,
/// above zero).
fn parse_nodes(text: &str) -> Result<u32> {
    let budget: Budget = text.parse()?;
    budget.nodes.ok_or_else(|| {
        anyhow::anyhow!(
            "--nodes wants a number of root visits such as 800, got {text:?} (a time goes to --movetime)"
        )
    })
}

/// `--movetime` text: a time budget as player specs write it.
fn parse_movetime(text: &str) -> Result<Duration> {
    let budget: Budget = text.parse()?;
    budget.time.ok_or_else(|| {
        anyhow::anyhow!(
            "--movetime wants a time such as 250ms or 1s, got {text:?} (a node count goes to --nodes)"
        )
    })
}

impl BudgetArgs {
    /// The budget these flags state, or `default` when they state none.
    pub fn budget_or(&self, default: Budget) -> Budget {
        if self.nodes.is_none() && self.movetime.is_none() {
            return default;
        }
        Budget {
            nodes: self.nodes,
            time: self.movetime,
            ..Budget::default()
        }
    }

    /// The budget these flags state, if they state one.
    pub fn given(&self) -> Option<Budget> {
        (self.nodes.is_some() || self.movetime.is_some()).then(|| self.budget())
    }

    /// The budget these flags state, [`search::PLAY_NODES`] root visits
    /// when they state none.
    pub fn budget(&self) -> Budget {
        self.budget_or(Budget::nodes(search::PLAY_NODES))
    }
}

/// Play-time search options of bundle players (root noise stays off).
#[derive(Args, Debug, Clone)]
pub struct PlaySearchArgs {
    /// Contempt of bundle players: a draw is worth -C to the player to move,
    /// in [0, 1) (0 = plain zero-sum search; see search::SearchConfig::contempt).
    #[arg(long, default_value_t = SearchConfig::for_play().contempt, allow_hyphen_values = true)]
    pub contempt: f32,
    /// Policy softmax temperature of bundle players (> 0): priors become
    /// p^(1/T) renormalised, so T > 1 lets the search look past a sharp,
    /// under-trained policy (Leela Chess Zero's PolicySoftmaxTemp; 1 = the
    /// network's own priors).
    #[arg(long, default_value_t = PLAY_POLICY_TEMPERATURE, allow_hyphen_values = true)]
    pub policy_temperature: f32,
    /// Weight lambda in [0, 1] of one random playout per leaf in bundle
    /// players' leaf values: (1 - lambda) * network + lambda * playout
    /// (AlphaGo's mixed evaluation; 0 = the network alone). Playouts stop
    /// at --ply-cap plies.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub rollout_mix: f32,
    /// PUCT exploration constant of bundle players (> 0; AlphaZero's
    /// c_puct) [default: 1.25].
    #[arg(long, allow_hyphen_values = true)]
    pub c_puct: Option<f32>,
    /// First-play urgency reduction of bundle players (>= 0): an
    /// unvisited child is valued at its parent's value minus this (Leela
    /// Chess Zero's FPU; 0 = the parent's value) [default: 0.25].
    #[arg(long, allow_hyphen_values = true)]
    pub fpu_reduction: Option<f32>,
    /// Search bundle players without MCTS-Solver (on by default: wins and
    /// losses proven in the tree are backed up as proofs; see
    /// search::SearchConfig::solver). For measuring what it adds.
    #[arg(long)]
    pub no_solver: bool,
    /// Search bundle players without playing forced moves through (on by
    /// default: a position below the root with one legal move is not
    /// evaluated, its move is played at once; see
    /// search::SearchConfig::collapse_forced). For measuring what it adds.
    #[arg(long)]
    pub no_collapse_forced: bool,
    /// The longest forced win, in the winner's turns, that bundle and UCT
    /// players prove at the root through forcing lines (opponent turns of
    /// at most three moves that do not lose at once; 0 = off, at most 32; see
    /// search::SearchConfig::forcing_depth) [default: 10].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=i64::from(search::MAX_FORCING_DEPTH)))]
    pub forcing_depth: Option<u32>,
    /// Search every action of bundle and UCT players from an empty tree
    /// (by default a player keeps the subtree of its move and searches on
    /// from the opponent's reply in it; a node budget counts the kept
    /// visits; see bot::GameBot). For measuring what reuse adds.
    #[arg(long)]
    pub no_tree_reuse: bool,
    /// Precision of bundle players' networks: int8 (the default: the
    /// trunk's 3x3 convolutions on 8-bit integers, model::quant; used only
    /// on the CPU with AVX2 or VNNI, fp32 elsewhere) or fp32 (the
    /// reference). A spec's `:int8` / `:fp32` suffix wins
    /// (bundle:models/losers:fp32).
    #[arg(long, default_value_t = model::Precision::default())]
    pub precision: model::Precision,
}

impl PlaySearchArgs {
    /// [`SearchConfig::for_play`] with these options.
    ///
    /// # Errors
    /// An option outside its range, named as on the command line.
    pub fn search_config(&self) -> Result<SearchConfig> {
        let play = SearchConfig::for_play();
        let config = SearchConfig {
            contempt: self.contempt,
            policy_temperature: self.policy_temperature,
            c_puct: self.c_puct.unwrap_or(play.c_puct),
            fpu_reduction: self.fpu_reduction.unwrap_or(play.fpu_reduction),
            solver: !self.no_solver,
            collapse_forced: !self.no_collapse_forced,
            forcing_depth: self.forcing_depth.unwrap_or(play.forcing_depth),
            ..play
        };
        config.validate().map_err(|e| {
            anyhow!("{e}").context(
                "--contempt / --policy-temperature / --c-puct / --fpu-reduction / --forcing-depth: bad play search option",
            )
        })?;
        Ok(config)
    }

    /// The options as JSON fields (`contempt`, `policy_temperature`,
    /// `rollout_mix`, `c_puct`, `fpu_reduction`; the last two as used,
    /// defaults included), each printed as typed (0.3, not f32's
    /// 0.30000001), `solver` (true unless `--no-solver`) and
    /// `collapse_forced` (true unless `--no-collapse-forced`),
    /// `tree_reuse` (true unless `--no-tree-reuse`) and `forcing_depth`
    /// (as used), `precision` (`--precision` as this CPU runs it,
    /// [`model::Precision::on_this_cpu`]: `int8` by default, `fp32`
    /// without a fast int8 kernel; a spec's `:int8` / `:fp32` suffix,
    /// kept in the player's name, overrides it).
    pub fn json_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut fields = self.numeric_fields();
        fields.insert("solver".into(), (!self.no_solver).into());
        fields.insert("collapse_forced".into(), (!self.no_collapse_forced).into());
        fields.insert("tree_reuse".into(), (!self.no_tree_reuse).into());
        let forcing = self
            .forcing_depth
            .unwrap_or(SearchConfig::for_play().forcing_depth);
        fields.insert("forcing_depth".into(), forcing.into());
        let precision = self.precision.on_this_cpu();
        fields.insert("precision".into(), precision.to_string().into());
        fields
    }

    /// The numeric options of [`Self::json_fields`].
    fn numeric_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let short =
            |v: f32| serde_json::Value::from(format!("{v}").parse::<f64>().unwrap_or(f64::NAN));
        let play = SearchConfig::for_play();
        [
            ("contempt", self.contempt),
            ("policy_temperature", self.policy_temperature),
            ("rollout_mix", self.rollout_mix),
            ("c_puct", self.c_puct.unwrap_or(play.c_puct)),
            (
                "fpu_reduction",
                self.fpu_reduction.unwrap_or(play.fpu_reduction),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), short(v)))
        .collect()
    }

    /// `--rollout-mix`, checked.
    ///
    /// # Errors
    /// A value outside `[0, 1]`.
    pub fn rollout_mix(&self) -> Result<f32> {
        if (0.0..=1.0).contains(&self.rollout_mix) {
            Ok(self.rollout_mix)
        } else {
            Err(anyhow!(
                "--rollout-mix must be in [0, 1], got {}",
                self.rollout_mix
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct BudgetCli {
        #[command(flatten)]
        budget: BudgetArgs,
    }

    #[test]
    fn budget_flags_state_nodes_time_or_both() {
        let parse = |args: &[&str]| {
            BudgetCli::try_parse_from(std::iter::once("x").chain(args.iter().copied()))
                .map(|c| c.budget.budget())
        };
        assert_eq!(parse(&[]).unwrap(), Budget::nodes(search::PLAY_NODES));
        assert_eq!(parse(&["--nodes", "800"]).unwrap(), Budget::nodes(800));
        assert_eq!(
            parse(&["--movetime", "250ms"]).unwrap(),
            Budget::time(Duration::from_millis(250))
        );
        let both = parse(&["--nodes", "50", "--movetime", "1s"]).unwrap();
        assert_eq!(
            (both.nodes, both.time),
            (Some(50), Some(Duration::from_secs(1)))
        );
        for bad in [
            &["--nodes", "0"][..],
            &["--nodes", "+5"],
            &["--nodes", "250ms"],
            &["--movetime", "0ms"],
            &["--movetime", "400"],
            &["--movetime", "+250ms"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        search: PlaySearchArgs,
    }

    fn parse(args: &[&str]) -> PlaySearchArgs {
        Cli::parse_from(std::iter::once("x").chain(args.iter().copied())).search
    }

    #[test]
    fn exploration_options_override_the_play_defaults() {
        let play = SearchConfig::for_play();
        // The defaults the --help text states.
        assert_eq!((play.c_puct, play.fpu_reduction), (1.25, 0.25));
        let default = parse(&[]).search_config().unwrap();
        assert_eq!(
            (default.c_puct, default.fpu_reduction),
            (play.c_puct, play.fpu_reduction)
        );
        let args = parse(&["--c-puct", "2.5", "--fpu-reduction", "0"]);
        let set = args.search_config().unwrap();
        assert_eq!((set.c_puct, set.fpu_reduction), (2.5, 0.0));
        let json = args.json_fields();
        assert_eq!(json["c_puct"], serde_json::json!(2.5));
        assert_eq!(json["fpu_reduction"], serde_json::json!(0.0));
        // The solver is on unless --no-solver.
        assert!(default.solver && json["solver"] == serde_json::json!(true));
        let off = parse(&["--no-solver"]);
        assert!(!off.search_config().unwrap().solver);
        assert_eq!(off.json_fields()["solver"], serde_json::json!(false));
        // Forced moves are played through unless --no-collapse-forced.
        assert!(default.collapse_forced && json["collapse_forced"] == serde_json::json!(true));
        let off = parse(&["--no-collapse-forced"]);
        assert!(!off.search_config().unwrap().collapse_forced);
        assert_eq!(
            off.json_fields()["collapse_forced"],
            serde_json::json!(false)
        );
        // Trees are kept between actions unless --no-tree-reuse.
        assert_eq!(json["tree_reuse"], serde_json::json!(true));
        let off = parse(&["--no-tree-reuse"]);
        assert_eq!(off.json_fields()["tree_reuse"], serde_json::json!(false));
        // Forcing lines to the play default unless --forcing-depth.
        assert_eq!(default.forcing_depth, search::PLAY_FORCING_DEPTH);
        assert_eq!(
            json["forcing_depth"],
            serde_json::json!(search::PLAY_FORCING_DEPTH)
        );
        let off = parse(&["--forcing-depth", "0"]);
        assert_eq!(off.search_config().unwrap().forcing_depth, 0);
        assert_eq!(off.json_fields()["forcing_depth"], serde_json::json!(0));
        // int8 networks unless --precision fp32 (fp32 on a CPU without
        // a fast int8 kernel, and the record says so).
        assert_eq!(parse(&[]).precision, model::Precision::Int8);
        let here = model::Precision::Int8.on_this_cpu().to_string();
        assert_eq!(json["precision"], serde_json::json!(here));
        let fp32 = parse(&["--precision", "fp32"]);
        assert_eq!(fp32.precision, model::Precision::Fp32);
        assert_eq!(fp32.json_fields()["precision"], serde_json::json!("fp32"));
        assert!(
            Cli::try_parse_from(["x", "--precision", "int4"]).is_err(),
            "an unknown precision is refused"
        );
        for bad in [
            ["--c-puct", "0"],
            ["--c-puct", "-1"],
            ["--fpu-reduction", "-0.1"],
        ] {
            let err = parse(&bad).search_config().unwrap_err();
            assert!(
                format!("{err:#}").contains("--c-puct / --fpu-reduction"),
                "{bad:?}"
            );
        }
        // A forcing depth out of range is refused while parsing, by its
        // range (not clap's "too large for u32" above u32::MAX).
        for bad in ["33", "99999999999"] {
            let args = ["x", "--forcing-depth", bad];
            let Err(err) = Cli::try_parse_from(args) else {
                panic!("{bad} was accepted");
            };
            let err = err.to_string();
            assert!(err.contains("0..=32"), "{bad}: {err}");
        }
    }
}
