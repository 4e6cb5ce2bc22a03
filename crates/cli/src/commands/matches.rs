//! `lokizero match A B`: a match between two player specs with Elo, 95 %
//! interval, optional SPRT and game records.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use arena::greedy::Heuristic;
use arena::journal::{check_games, read_journal, write_journal};
use arena::matches::run_match_resuming;
use arena::records::{termination, uses_pgn, write_records};
use arena::spec::{FactoryContext, PlayerFactory, PlayerSpec};
use arena::{MatchSettings, SprtConfig};
use clap::Args;
use encoding::Encode;
use rules::VariantId;
use search::Budget;

pub use super::search_args::{BudgetArgs, PlaySearchArgs};

/// Arguments of `lokizero match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Player A: bundle:PATH[:N|:Nms|:Ns], random, greedy, uct:N|Nms|Ns,
    /// uci:PATH[:N|:dN|:Nms|:Ns] (e.g. uci:/usr/games/fairy-stockfish:d1;
    /// a time sends `go movetime`), or for copenhagen
    /// htp:PATH[:depthN|:dN|:Ns] (hnefatafl.org's engine, alpha-beta to depth
    /// N, default 4, or its Monte-Carlo AI for N seconds a move). A budget
    /// in the spec is per move and wins over --nodes / --movetime (under
    /// --tc the clock wins over it, except for htp). A
    /// bundle spec may end in :int8 or :fp32, its network's precision
    /// (over --precision); :full spends every timed move's whole time (no
    /// early stop when the move cannot change), :noextend never thinks
    /// longer on an unclear root.
    pub a: String,
    /// Player B (same forms).
    pub b: String,
    #[command(flatten)]
    pub options: MatchOptions,
}

/// The options of a match (`lokizero match`, and `lokizero play`, its
/// short form).
#[derive(Args, Debug)]
pub struct MatchOptions {
    /// Maximum games, 1 to 1000000 (rounded up to colour-swapped pairs).
    #[arg(long, default_value_t = 100, value_parser = super::plain_int::<usize>)]
    pub games: usize,
    /// Games played in parallel (at least 1), each on one thread: a
    /// bundle's search uses its game's thread only. An engine is a
    /// process of its own; give each game a core at time budgets.
    #[arg(long, default_value_t = 2, value_parser = super::plain_int::<usize>)]
    pub concurrency: usize,
    /// SPRT `elo0,elo1,alpha,beta` with elo0 < elo1 (e.g. 0,10,0.05,0.05):
    /// stop as soon as it decides. It is checked after each batch of
    /// `--concurrency` games (rounded up to colour pairs), so where it
    /// stops can depend on the concurrency; at 1 or 2, after every pair.
    /// A negative elo0 is written `--sprt=-10,10,0.05,0.05`.
    #[arg(long)]
    pub sprt: Option<String>,
    /// Random plies from the start before the players take over (the two
    /// games of a pair share the opening).
    #[arg(long, default_value_t = 4, value_parser = super::plain_int::<u32>)]
    pub openings_random_plies: u32,
    /// Opening book: a file of position texts, one per line (`#` comments);
    /// pair k starts from line k (cycling), then --openings-random-plies
    /// random plies (set 0 to play the positions as they are).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Game records file (PGN for losers/viking, one text line per game otherwise).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Keep the match's finished games in this file (JSON lines, rewritten
    /// after every batch) and, when it exists, resume the match from it:
    /// its games count and are not played again. It must be the same match
    /// (players, variant, budgets, seed, openings, ply cap, time control
    /// and search settings; --games, --concurrency and --sprt may change).
    /// For long matches that outlive a session or a crash.
    #[arg(long)]
    pub journal: Option<PathBuf>,
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// A real time control, `BASE+INC` in seconds (e.g. `60+0.6`; `BASE`
    /// alone for no increment), instead of `--nodes`/`--movetime` and of
    /// the budget a player spec names (htp keeps its own): each
    /// side has a clock of BASE, gains INC after each of its turns and
    /// loses when it runs out; players think by their clock (bundle and
    /// uct players spend a share of their time plus most of the increment,
    /// stopping early when their move cannot change; UCI engines get `go
    /// wtime .. btime .. winc .. binc ..`) instead of a budget per move.
    #[arg(long)]
    pub tc: Option<arena::TimeControl>,
    /// Plies played by the players (after the random opening plies) after
    /// which a game is adjudicated a draw.
    #[arg(long, default_value_t = 300, value_parser = super::plain_int::<u32>)]
    pub ply_cap: u32,
    /// Variant (needed when neither player is a bundle).
    #[arg(long)]
    pub variant: Option<VariantId>,
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
    /// Print a JSON summary on stdout instead of text (the tally after each
    /// game still goes to stderr).
    #[arg(long)]
    pub json: bool,
}

/// The variant of a match: from the bundles among `specs` and `--variant`,
/// which must agree.
pub fn resolve_variant(specs: &[&str], flag: Option<VariantId>) -> Result<VariantId> {
    let mut found = flag;
    for spec in specs {
        if let PlayerSpec::Bundle { path, .. } = PlayerSpec::parse(spec)? {
            arena::spec::check_bundle_suffix(spec, &path)?;
            let v = model::bundle::peek_variant(&path)
                .with_context(|| format!("reading bundle {}", path.display()))?;
            match found {
                Some(f) if f != v => {
                    bail!("variant mismatch: {spec} is a {v} bundle but the match is {f}")
                }
                _ => found = Some(v),
            }
        }
    }
    found.ok_or_else(|| anyhow!("no bundle among the players: give --variant"))
}

/// The factory context from common flags: bundle players (and UCI
/// engines, as `go nodes` / `go movetime`) think `budget` per move unless
/// their spec says otherwise.
pub fn context(
    device: model::Backend,
    budget: Budget,
    ply_cap: u32,
    viking_ini: Option<&Path>,
    uci_timeout: Option<f64>,
    search: &PlaySearchArgs,
) -> Result<FactoryContext> {
    let device = device.device()?;
    if uci_timeout.is_some_and(|t| !(t.is_finite() && t > 0.0)) {
        bail!("--uci-timeout must be a positive number of seconds");
    }
    let mut ctx = FactoryContext::new(device);
    ctx.default_budget = budget;
    ctx.rollout_max_plies = ply_cap.max(1);
    ctx.viking_ini = viking_ini.map(Path::to_path_buf);
    if let Some(t) = uci_timeout {
        ctx.uci_move_timeout = Duration::from_secs_f64(t);
        ctx.htp_move_timeout = ctx.uci_move_timeout;
    }
    ctx.search = search.search_config()?;
    ctx.rollout_mix = search.rollout_mix()?;
    ctx.tree_reuse = !search.no_tree_reuse;
    ctx.precision = search.precision;
    Ok(ctx)
}

/// The most games one match (or ladder pair) plays: a list of their
/// indices is kept.
pub const MAX_GAMES: usize = 1_000_000;

/// Run the match.
pub fn run(match_args: MatchArgs) -> Result<()> {
    let (a, b, args) = (match_args.a, match_args.b, match_args.options);
    if args.games == 0 || args.games > MAX_GAMES {
        bail!("--games must be 1 to {MAX_GAMES}");
    }
    if args.ply_cap == 0 {
        bail!("--ply-cap must be at least 1");
    }
    if args.concurrency == 0 {
        bail!("--concurrency must be at least 1");
    }
    if args.tc.is_some() && (args.budget.nodes.is_some() || args.budget.movetime.is_some()) {
        bail!("--tc replaces a budget per move: give --tc or --nodes/--movetime, not both");
    }
    if let Some(path) = &args.pgn {
        super::check_output_file(path, "--pgn")?;
    }
    if let Some(path) = &args.journal {
        super::check_output_file(path, "--journal")?;
        // The same file under two spellings (`a.jsonl`, `./x/../a.jsonl`):
        // the folders exist (checked above), so they resolve.
        // An existing file resolves whole (a link to the other file).
        let resolved = |p: &Path| {
            let folder = p.parent().filter(|d| !d.as_os_str().is_empty());
            std::fs::canonicalize(p).ok().or_else(|| {
                std::fs::canonicalize(folder.unwrap_or(Path::new(".")))
                    .ok()
                    .map(|d| d.join(p.file_name().unwrap_or_default()))
            })
        };
        let same_file = args.pgn.as_deref().is_some_and(|pgn| {
            pgn == path.as_path() || resolved(pgn).is_some_and(|p| Some(p) == resolved(path))
        });
        if same_file {
            bail!(
                "--journal and --pgn name the same file {}: give two",
                path.display()
            );
        }
    }
    let variant = resolve_variant(&[&a, &b], args.variant)?;
    rules::with_variant!(variant, G => run_for::<G>(&a, &b, &args))
}

fn run_for<G: Encode + Heuristic>(a: &str, b: &str, args: &MatchOptions) -> Result<()> {
    let sprt = args.sprt.as_deref().map(SprtConfig::parse).transpose()?;
    let ctx = context(
        args.device,
        args.budget.budget(),
        args.ply_cap,
        args.viking_ini.as_deref(),
        args.uci_timeout,
        &args.search,
    )?;
    let pa = PlayerFactory::<G>::new(a, &ctx)?;
    let pb = PlayerFactory::<G>::new(b, &ctx)?;
    let settings = MatchSettings {
        games: args.games,
        concurrency: args.concurrency,
        ply_cap: args.ply_cap,
        time_control: args.tc,
        opening_plies: args.openings_random_plies,
        seed: args.seed,
        sprt,
    };
    let book: Vec<G> = match &args.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading --openings {}", path.display()))?;
            rules::book::parse_book(&text)
                .with_context(|| format!("--openings {}", path.display()))?
        }
        None => Vec::new(),
    };
    let mut settings = settings;
    for p in [&pa, &pb] {
        if p.start_position_only_one_at_a_time() {
            if !book.is_empty() {
                bail!(
                    "{} starts only from the start position: drop --openings (random opening plies are fine)",
                    p.name()
                );
            }
            if settings.concurrency > 1 {
                eprintln!(
                    "{} plays one game at a time on a machine (its game port is fixed): playing with --concurrency 1",
                    p.name()
                );
                settings.concurrency = 1;
            }
        }
    }
    // What makes two runs the same match (a journal's header); the JSON
    // summary is this plus the results.
    let mut identity = serde_json::json!({
        "variant": G::VARIANT.as_str(), "a": pa.name(), "b": pb.name(),
        "budget_a": args.tc.map_or_else(|| pa.budget_text(), |_| None),
        "budget_b": args.tc.map_or_else(|| pb.budget_text(), |_| None),
        "ply_cap": args.ply_cap,
        "tc": args.tc.map(|tc| tc.to_string()),
        "openings_random_plies": args.openings_random_plies, "seed": args.seed,
        "openings": args.openings,
    });
    if let Some(map) = identity.as_object_mut() {
        map.extend(args.search.json_fields());
    }
    // A journal keys on the players as they play, so two spellings of one
    // player (`bundle:m` with `--nodes 20`, `bundle:m:20`) resume it.
    let mut journal_key = identity.clone();
    journal_key["a"] = pa.played_as().into();
    journal_key["b"] = pb.played_as().into();
    // `--precision` is in the players as they play (bundles only).
    if let Some(map) = journal_key.as_object_mut() {
        map.remove("precision");
    }
    let done = match &args.journal {
        Some(path) => {
            let done = read_journal(path, &journal_key).map_err(|e| anyhow!("--journal {e}"))?;
            // Written once before the first game, so a journal that cannot
            // be written stops the match now, not after it is played.
            write_journal(path, &journal_key, &done).with_context(|| {
                format!(
                    "writing the journal {} before the first game",
                    path.display()
                )
            })?;
            done
        }
        None => Vec::new(),
    };
    if let Some(path) = &args.journal {
        let total = settings.games.div_ceil(2).saturating_mul(2);
        check_games(path, &done, total).map_err(|e| anyhow!("--journal {e}"))?;
    }
    if !done.is_empty() {
        eprintln!("resuming: {} games already played", done.len());
    }
    let start = G::start().to_text();
    let mut write_error = None;
    let seed = args.seed;
    let report = run_match_resuming::<G, _, _>(
        &settings,
        &book,
        done,
        |i| pa.make(rules::zobrist::key(seed, i as u64)),
        |i| pb.make(rules::zobrist::key(seed.wrapping_mul(31), i as u64)),
        |r| {
            if let Some(path) = &args.pgn {
                if let Err(e) =
                    write_records(path, G::VARIANT, &start, pa.name(), pb.name(), &r.games)
                {
                    write_error = Some(anyhow!("writing records {}: {e}", path.display()));
                }
            }
            if let Some(path) = &args.journal {
                if let Err(e) = write_journal(path, &journal_key, &r.games) {
                    write_error = Some(anyhow!("writing the journal {}: {e}", path.display()));
                }
            }
            // The tally after each game, on stderr (also with --json, whose
            // summary goes to stdout).
            let sprt = r
                .sprt
                .map(|s| format!(", LLR {:.2} [{:.2}, {:.2}]", s.llr, s.lower, s.upper))
                .unwrap_or_default();
            eprintln!(
                "{} games: +{} ={} -{}{sprt}",
                r.wdl.games(),
                r.wdl.wins,
                r.wdl.draws,
                r.wdl.losses
            );
        },
    );
    let failures: Vec<String> = report
        .games
        .iter()
        .filter(|g| g.result.forfeit.is_some())
        .map(|g| format!("game {}: {}", g.index, termination(g)))
        .collect();
    // Tafl and loki sides differ: the total can hide a side that loses.
    let (as_first, as_second) = arena::matches::tally_by_side(&report.games);
    if args.json {
        // The SPRT's state with its settings, so a reader can run it again.
        let sprt_record = match (sprt, report.sprt) {
            (Some(config), Some(state)) => {
                let mut record = serde_json::json!(state);
                if let (Some(map), serde_json::Value::Object(settings)) =
                    (record.as_object_mut(), serde_json::json!(config))
                {
                    map.extend(settings);
                }
                record
            }
            _ => serde_json::Value::Null,
        };
        let mut summary = identity;
        if let (Some(map), serde_json::Value::Object(results)) = (
            summary.as_object_mut(),
            serde_json::json!({
                "as_first": as_first, "as_second": as_second,
                "games": report.wdl.games(), "wins": report.wdl.wins, "draws": report.wdl.draws,
                "losses": report.wdl.losses, "elo": report.elo, "sprt": sprt_record,
                "stopped_early": report.stopped_early, "forfeits": failures,
                "precision_a": pa.precision().map(|p| p.to_string()),
                "precision_b": pb.precision().map(|p| p.to_string()),
                "weights_a": pa.weights_sha256(), "weights_b": pb.weights_sha256(),
            }),
        ) {
            map.extend(results);
        }
        println!("{summary}");
        // After the summary, so a failed write loses no result.
        return write_error.map_or(Ok(()), Err);
    }
    println!(
        "{} vs {} ({}): +{} ={} -{} ({} games)",
        pa.name(),
        pb.name(),
        G::VARIANT,
        report.wdl.wins,
        report.wdl.draws,
        report.wdl.losses,
        report.wdl.games()
    );
    println!(
        "{} moving first: +{} ={} -{}; moving second: +{} ={} -{}",
        pa.name(),
        as_first.wins,
        as_first.draws,
        as_first.losses,
        as_second.wins,
        as_second.draws,
        as_second.losses
    );
    println!("{}", report.elo.describe());
    if let (Some(c), Some(s)) = (sprt, report.sprt) {
        let verdict = match s.decision {
            arena::SprtDecision::H1 => format!("H1 accepted (elo >= {})", c.elo1),
            arena::SprtDecision::H0 => format!("H0 accepted (elo <= {})", c.elo0),
            arena::SprtDecision::Continue => "undecided (game limit reached)".to_string(),
        };
        println!(
            "SPRT [{}, {}] alpha {} beta {}: LLR {:.3} (bounds {:.3}, {:.3}): {verdict}",
            c.elo0, c.elo1, c.alpha, c.beta, s.llr, s.lower, s.upper
        );
    }
    if !failures.is_empty() {
        println!("{} games lost by forfeit:", failures.len());
        for f in failures.iter().take(10) {
            println!("  {f}");
        }
    }
    // After the summary, so a failed write loses no result.
    if let Some(e) = write_error {
        return Err(e);
    }
    if let Some(path) = &args.pgn {
        println!(
            "records: {} ({})",
            path.display(),
            if uses_pgn(G::VARIANT) {
                "PGN, SAN moves"
            } else {
                "text, one line per game"
            }
        );
    }
    Ok(())
}
