//! `lokizero ladder PLAYERS...`: round robin, Bradley–Terry ratings with
//! 95 % intervals, `ladder.md` + `ladder.png` + records and a journal per
//! pair (resumable) in `--out`.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use arena::greedy::Heuristic;
use arena::ladder::{run_ladder, LadderSettings};
use arena::spec::PlayerFactory;
use clap::Args;
use encoding::Encode;

use super::matches::{context, resolve_variant, BudgetArgs, PlaySearchArgs};

/// Arguments of `lokizero ladder`.
#[derive(Args, Debug)]
pub struct LadderArgs {
    /// Player specs (as for `lokizero match`), at least two.
    #[arg(required = true, num_args = 2..)]
    pub players: Vec<String>,
    /// Games per pair (both colours).
    #[arg(long, default_value_t = 20, value_parser = super::plain_int::<usize>)]
    pub games: usize,
    /// Variant (needed when no player is a bundle; must match the bundles).
    #[arg(long)]
    pub variant: Option<rules::VariantId>,
    /// Output folder (ladder.md, ladder.png, ladder.json, games/). Each
    /// pair keeps a match journal in games/ (pair-HASH.jsonl), so the same
    /// command run again into this folder plays only the games it lacks:
    /// a stopped ladder resumes, and added players play only their pairs.
    #[arg(long)]
    pub out: PathBuf,
    /// Games played in parallel.
    #[arg(long, default_value_t = 2, value_parser = super::plain_int::<usize>)]
    pub concurrency: usize,
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// Plies played by the players (after the random opening plies) after
    /// which a game is adjudicated a draw.
    #[arg(long, default_value_t = 300, value_parser = super::plain_int::<u32>)]
    pub ply_cap: u32,
    /// Random opening plies (shared by the two games of a pair).
    #[arg(long, default_value_t = 4, value_parser = super::plain_int::<u32>)]
    pub openings_random_plies: u32,
    /// Player (spec text) rated 0; default: `random` if present, else with
    /// --fixed the first player, else the mean is 0.
    #[arg(long)]
    pub anchor: Option<String>,
    /// The first N players are a fixed ladder: they play each other and
    /// every other player, the others play only them (a gauntlet, for
    /// measuring a run's generations against the same opponents). When
    /// every other player is a bundle, `curve.png` draws their Elo against
    /// the CPU-hours of their lineage, a learning curve. Default: a round
    /// robin.
    #[arg(long, allow_negative_numbers = true, value_parser = super::plain_int::<usize>)]
    pub fixed: Option<usize>,
    /// Virtual draws added per pair that met (keeps 100 % scores finite; 0 = plain MLE).
    #[arg(long, default_value_t = 1.0, value_parser = super::plain_f64)]
    pub prior_draws: f64,
    /// Random seed.
    #[arg(long, default_value_t = 1, value_parser = super::plain_int::<u64>)]
    pub seed: u64,
    /// Backend for bundles: cpu (default), wgpu or cuda (GPU builds: --features wgpu / cuda).
    #[arg(long, default_value = "cpu")]
    pub device: model::Backend,
    /// Fairy-Stockfish variant file for viking (default: the project's
    /// configs/fairy-stockfish/viking.ini, built into lokizero).
    #[arg(long)]
    pub viking_ini: Option<PathBuf>,
    /// Seconds an outside engine may take for one move before it forfeits
    /// the game [default: 30 for a uci: engine, 300 for an htp: engine].
    #[arg(long, value_parser = super::plain_f64)]
    pub uci_timeout: Option<f64>,
    #[command(flatten)]
    pub search: PlaySearchArgs,
}

/// Run the ladder and print the table.
pub fn run(args: LadderArgs) -> Result<()> {
    if args.games == 0 || args.games > super::matches::MAX_GAMES {
        bail!("--games must be 1 to {}", super::matches::MAX_GAMES);
    }
    if args.ply_cap == 0 {
        bail!("--ply-cap must be at least 1");
    }
    let specs: Vec<&str> = args.players.iter().map(String::as_str).collect();
    // Two rows for one player would split its games and its rating.
    if let Some(twice) = specs
        .iter()
        .enumerate()
        .find_map(|(i, s)| specs[..i].iter().any(|p| p.trim() == s.trim()).then_some(s))
    {
        bail!("player {twice:?} is named twice; a ladder rates each player once");
    }
    let variant = resolve_variant(&specs, args.variant)?;
    rules::with_variant!(variant, G => run_for::<G>(&args))
}

fn run_for<G: Encode + Heuristic>(args: &LadderArgs) -> Result<()> {
    let ctx = context(
        args.device,
        args.budget.budget(),
        args.ply_cap,
        args.viking_ini.as_deref(),
        args.uci_timeout,
        &args.search,
    )?;
    let players = args
        .players
        .iter()
        .map(|s| PlayerFactory::<G>::new(s, &ctx))
        .collect::<Result<Vec<_>, _>>()?;
    // One player under two spellings (two paths to the same weights) would
    // split its rating and share one journal.
    for (i, p) in players.iter().enumerate() {
        let same = |q: &PlayerFactory<G>| {
            q.played_as() == p.played_as() && q.budget_text() == p.budget_text()
        };
        if let Some(q) = players[..i].iter().find(|q| same(q)) {
            bail!(
                "players {:?} and {:?} are one player ({} with the same budget); a ladder rates each player once",
                q.name(),
                p.name(),
                p.played_as()
            );
        }
    }
    let anchor = match &args.anchor {
        Some(name) => Some(
            args.players
                .iter()
                .position(|p| p.trim() == name.trim())
                .ok_or_else(|| anyhow!("--anchor {name:?} is not one of the players"))?,
        ),
        None => args
            .players
            .iter()
            .position(|p| p.trim() == "random")
            .or(args.fixed.map(|_| 0)),
    };
    let settings = LadderSettings {
        games_per_pair: args.games,
        concurrency: args.concurrency,
        ply_cap: args.ply_cap,
        opening_plies: args.openings_random_plies,
        seed: args.seed,
        prior_draws: args.prior_draws,
        anchor,
        fixed: args.fixed,
        player_settings: format!(
            "bundles search {} per move (root visits, or a time) unless their spec says otherwise, \
             contempt {}, policy temperature {}, rollout mix {}, solver {}, precision {}",
            args.budget.budget(),
            args.search.contempt,
            args.search.policy_temperature,
            args.search.rollout_mix,
            if args.search.no_solver { "off" } else { "on" },
            args.search.precision
        ),
        // The precision is in each bundle player's `played_as`.
        search_settings: {
            let mut fields = args.search.json_fields();
            fields.remove("precision");
            fields.into()
        },
    };
    // Refused before any game is played.
    arena::ladder::ladder_pairs(players.len(), args.fixed)?;
    let curve = match args.fixed {
        Some(k) => lineage_points::<G>(&args.players[k.min(args.players.len())..])?,
        None => None,
    };
    let result = run_ladder(&players, &settings, &args.out, |line| eprintln!("{line}"))?;
    print!("{}", arena::ladder::markdown(&result, &settings));
    let mut wrote = "ladder.png, ladder.json, games/".to_string();
    // A curve from an earlier ladder in the same folder would be stale.
    let curve_path = args.out.join("curve.png");
    if curve_path.exists() {
        std::fs::remove_file(&curve_path)
            .with_context(|| format!("removing the old {}", curve_path.display()))?;
    }
    if args.fixed.is_some_and(|k| k < players.len()) && curve.is_none() {
        eprintln!("no curve.png: it needs every player after the fixed ones to be a bundle whose lineage records its CPU-hours");
    }
    if let (Some(k), Some(points)) = (args.fixed, curve) {
        let zero = anchor.map_or("the mean".to_string(), |i| result.names[i].clone());
        let series = arena::chart::CurveSeries {
            name: format!(
                "the fixed ladder ({}); Elo 0 = {zero}",
                result.names[..k].join(", ")
            ),
            points: points
                .into_iter()
                .zip(&result.ratings[k..])
                .map(|((generation, cpu_hours), r)| arena::chart::CurvePoint {
                    generation,
                    cpu_hours,
                    elo: r.elo,
                    lower: r.lower,
                    upper: r.upper,
                })
                .collect(),
        };
        let title = format!("{}: Bradley-Terry Elo vs CPU-hours", result.variant);
        arena::chart::draw_learning_curve(&curve_path, &title, &[series], 800, 480)?;
        wrote.push_str(", curve.png");
    }
    println!("\nwrote {}, {wrote}", args.out.join("ladder.md").display());
    Ok(())
}

/// The generation and lineage CPU-hours of each of `specs` when every one
/// is a bundle whose lineage records its CPU time (the points of a
/// learning curve); `None` otherwise.
///
/// # Errors
/// A bundle's `model.json` cannot be read.
fn lineage_points<G: Encode>(specs: &[String]) -> Result<Option<Vec<(u32, f64)>>> {
    let mut points = Vec::with_capacity(specs.len());
    for spec in specs {
        let Ok(arena::spec::PlayerSpec::Bundle { path, .. }) = arena::spec::PlayerSpec::parse(spec)
        else {
            return Ok(None);
        };
        let meta = model::bundle::read_meta::<G>(&path)?;
        match meta.lineage.and_then(|l| l.cpu_hours) {
            Some(hours) => points.push((meta.generation, hours)),
            None => return Ok(None),
        }
    }
    Ok((!points.is_empty()).then_some(points))
}
