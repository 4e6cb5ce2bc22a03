//! Player specs on the command line and the factories that build one
//! player per game from them.
//!
//! | spec | player |
//! |---|---|
//! | `bundle:PATH` | the bundle's network with PUCT search ([`bot::GameBot`], the one bundle player), the match's `--nodes` / `--movetime` per move |
//! | `bundle:PATH:N` | … `N` root visits per move |
//! | `bundle:PATH:250ms`, `bundle:PATH:2s` | … searching for that wall time per move |
//! | `bundle:PATH:int8`, `bundle:PATH:200:int8`, `bundle:PATH:fp32` | … with its network in that [`model::Precision`] (default: the match's `--precision`, [`FactoryContext::precision`], int8) |
//! | `bundle:PATH:1s:full`, `bundle:PATH:full:int8` | … thinking for the whole time it is given, without smart pruning ([`search::Budget::full_time`]) |
//! | `bundle:PATH:noextend` | … at a time control (`--tc`), never thinking past its share of the clock, even when its root is unclear ([`search::Budget::time_max`]) |
//! | `bundle:PATH:int8:1s:full` | the suffixes after a bundle's path come in any order, each at most once |
//! | `random` | uniformly random legal actions |
//! | `greedy` | one-ply greedy ([`crate::greedy`]) |
//! | `uct:N` | knowledge-free search: `N` root visits per move, uniform priors, each leaf valued by one random playout ([`search::RolloutEvaluator`]) |
//! | `uct:250ms`, `uct:1s` | … searching for that wall time per move (equal-time comparisons) |
//! | `uci:PATH` | external UCI engine playing the variant it offers as `UCI_Variant` (Fairy-Stockfish's viking through its variant file), `go nodes` / `go movetime` from the match's budget |
//! | `uci:PATH:N`, `uci:PATH:dN`, `uci:PATH:500ms`, `uci:PATH:1s` | … `go nodes N`, `go depth N`, `go movetime 500`, `go movetime 1000` |
//! | `htp:PATH` | `copenhagen` only: the engine `hnefatafl-text-protocol` ([`crate::htp_client`]) with its alpha-beta AI at its default depth 4 |
//! | `htp:PATH:depthN` (or `:dN`), `htp:PATH:Ns` | … alpha-beta to depth `N`; its Monte-Carlo AI for `N` whole seconds per move |

use std::path::{Path, PathBuf};
use std::time::Duration;

use bot::{GameBot, ROLLOUT_MAX_PLIES};
use burn::tensor::Device;
use encoding::Encode;
use model::{Net, Precision};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rules::VariantId;
use search::{Budget, RolloutEvaluator, SearchConfig};

use crate::greedy::{GreedyPlayer, Heuristic};
use crate::htp_client::{HtpAi, HtpConfig, HtpPlayer};
use crate::player::{Contestant, RandomPlayer, SearchPlayer};
use crate::uci_client::{FenDialect, UciConfig, UciEngine, UciPlayer};

/// A parsed player spec (module docs).
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// A bundle folder with a search budget (`None`: the default nodes).
    Bundle {
        /// Bundle folder.
        path: PathBuf,
        /// Budget per action.
        budget: Option<Budget>,
        /// Precision of its network (`None`: the context's).
        precision: Option<Precision>,
        /// Think for the whole time: no smart pruning
        /// ([`search::Budget::full_time`]).
        full_time: bool,
        /// At a time control, think past its share of the clock while the
        /// root is unclear ([`search::Budget::time_max`]); `false` with
        /// `:noextend`.
        extend: bool,
    },
    /// Uniformly random.
    Random,
    /// One-ply greedy.
    Greedy,
    /// Knowledge-free search with random playouts and this budget per action.
    Uct(Budget),
    /// External UCI engine.
    Uci {
        /// Executable.
        path: PathBuf,
        /// `go` line (`None`: `go nodes <default nodes>`).
        go: Option<String>,
    },
    /// The Copenhagen engine `hnefatafl-text-protocol`.
    Htp {
        /// Executable.
        path: PathBuf,
        /// Its AI and strength.
        ai: HtpAi,
    },
}

/// A spec that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// Unknown or malformed spec text.
    #[error("bad player spec {0:?}: expected bundle:PATH[:N|:Nms|:Ns][:full][:noextend][:int8|:fp32] (its suffixes in any order), random, greedy, uct:N|Nms|Ns, uci:PATH[:N|:dN|:Nms|:Ns] or htp:PATH[:depthN|:dN|:Ns]")]
    Syntax(String),
    /// A bundle spec naming a budget, a precision, `full` or `noextend`
    /// twice (`bundle:m:int8:fp32`, `bundle:m:200:300`).
    #[error("bad player spec {spec:?}: {what} given twice (a bundle spec takes at most one budget, one precision, one full and one noextend)")]
    RepeatedSuffix {
        /// The spec.
        spec: String,
        /// What was repeated: `a budget`, `a precision`, `full`, `noextend`.
        what: &'static str,
    },
    /// A spec whose search budget is malformed (`uct:abc`, `bundle:m:0`).
    #[error("bad player spec {spec:?}: {source}")]
    Budget {
        /// The spec.
        spec: String,
        /// What is wrong with its budget text.
        source: search::BudgetError,
    },
    /// An `htp:` or `uci:` spec whose last part reads as a budget but is
    /// not one the engine takes (`htp:PATH:depth0`, `uci:PATH:+32`).
    #[error("bad player spec {spec:?}: budget `{budget}`: expected {expected}")]
    EngineBudget {
        /// The spec.
        spec: String,
        /// Its budget part.
        budget: String,
        /// The forms the engine's budget takes.
        expected: &'static str,
    },
    /// The bundle could not be loaded.
    #[error("player {spec:?}: {source}")]
    Bundle {
        /// The spec.
        spec: String,
        /// Why.
        source: model::BundleError,
    },
    /// `bundle:PATH:TAIL` where no `PATH:TAIL` exists but `PATH` does:
    /// `TAIL` is no suffix a bundle spec knows.
    #[error("player {spec:?}: {tail:?} is not a bundle suffix (N, Nms, Ns, full, noextend, int8 or fp32) and {path:?} does not exist")]
    BundleSuffix {
        /// The spec.
        spec: String,
        /// The unknown suffix.
        tail: String,
        /// The whole path the spec was read as.
        path: PathBuf,
    },
    /// The UCI engine does not offer this variant.
    #[error("player {spec:?}: the engine does not offer variant {variant} (its UCI_Variant values: {offered}); Fairy-Stockfish plays losers and, through the project's variant file, viking")]
    UciVariant {
        /// The spec.
        spec: String,
        /// The variant.
        variant: VariantId,
        /// The `UCI_Variant` values the engine declared, comma separated
        /// (`none` when it declared no such option).
        offered: String,
    },
    /// The UCI engine could not be started or failed its handshake (checked
    /// once before any game, so a match never scores a missing engine's
    /// games as forfeits).
    #[error("player {spec:?}: {source}")]
    UciStart {
        /// The spec.
        spec: String,
        /// Why.
        source: crate::uci_client::UciError,
    },
    /// `htp:` names an engine for another variant than `copenhagen`.
    #[error("player {spec:?}: hnefatafl-text-protocol plays copenhagen only, not {variant}")]
    HtpVariant {
        /// The spec.
        spec: String,
        /// The variant asked for.
        variant: VariantId,
    },
    /// The `htp:` engine does not run.
    #[error("player {spec:?}: {source}")]
    HtpStart {
        /// The spec.
        spec: String,
        /// Why.
        source: crate::htp_client::HtpError,
    },
    /// The viking variant file for Fairy-Stockfish is missing or could not
    /// be written.
    #[error("player {spec:?}: {source}")]
    VariantFile {
        /// The spec.
        spec: String,
        /// Why.
        source: crate::fairy_stockfish::VikingIniError,
    },
}

fn parse_budget(text: &str) -> Option<Budget> {
    text.parse().ok()
}

/// Whether the last `:`-part of an `htp:` or `uci:` spec is meant as a
/// budget rather than as the end of the engine's path: it starts with a
/// digit, a sign or a point, or is `d`/`depth` followed by one. Such a
/// tail must then parse, or the spec is refused.
fn budget_like(tail: &str) -> bool {
    let numeric = |t: &str| t.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c));
    numeric(tail)
        || tail.strip_prefix("depth").is_some_and(numeric)
        || tail.strip_prefix('d').is_some_and(numeric)
}

/// A whole number of at least 1 in plain digits that fits `T`.
fn positive<T: TryFrom<u64>>(text: &str) -> Option<T> {
    search::parse_plain_u64(text)
        .filter(|&n| n >= 1)
        .and_then(|n| T::try_from(n).ok())
}

/// An `htp:` tail: `Some(Some(ai))` for `depthN`/`dN` (1..=255) or `Ns`
/// (whole seconds, at least 1), `Some(None)` for a malformed budget,
/// `None` when the tail is part of the path.
fn htp_budget(tail: &str) -> Option<Option<HtpAi>> {
    if !budget_like(tail) {
        return None;
    }
    let depth = tail
        .strip_prefix("depth")
        .or_else(|| tail.strip_prefix('d'));
    Some(match depth {
        Some(d) => positive(d).map(|depth| HtpAi::Basic { depth }),
        None => tail
            .strip_suffix('s')
            .and_then(positive)
            .map(|seconds| HtpAi::MonteCarlo { seconds }),
    })
}

/// A `uci:` tail as the engine's `go` line: `Some(Some(go))` for `N`
/// nodes, `Nms`/`Ns` (read as budgets are) or `dN` (depth, at least 1),
/// `Some(None)` for a malformed budget, `None` when the tail is part of
/// the path.
fn uci_budget(tail: &str) -> Option<Option<String>> {
    if !budget_like(tail) {
        return None;
    }
    if let Some(d) = tail.strip_prefix('d') {
        return Some(positive::<u32>(d).map(|d| format!("go depth {d}")));
    }
    Some(parse_budget(tail).map(|b| match b.time {
        Some(time) => format!("go movetime {}", time.as_millis().max(1)),
        None => format!("go nodes {}", b.node_target()),
    }))
}

impl PlayerSpec {
    /// Parse a spec (module docs).
    ///
    /// # Errors
    /// [`SpecError::Syntax`], or [`SpecError::Budget`] for a malformed
    /// search budget.
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        let bad = || SpecError::Syntax(text.to_string());
        let t = text.trim();
        match t {
            "random" => return Ok(PlayerSpec::Random),
            "greedy" => return Ok(PlayerSpec::Greedy),
            _ => {}
        }
        if let Some(n) = t.strip_prefix("uct:") {
            return n
                .parse()
                .map(PlayerSpec::Uct)
                .map_err(|source| SpecError::Budget {
                    spec: text.to_string(),
                    source,
                });
        }
        if let Some(rest) = t.strip_prefix("bundle:") {
            // After the path, in any order, each at most once: a budget,
            // `:int8` / `:fp32` (the network's precision), `:full` (the
            // whole time, no smart pruning) and `:noextend` (no thinking
            // past the clock's share).
            let (mut rest, mut budget, mut precision) = (rest, None, None);
            let (mut full_time, mut extend) = (false, true);
            let twice = |what| SpecError::RepeatedSuffix {
                spec: text.to_string(),
                what,
            };
            while let Some((head, tail)) = rest.rsplit_once(':') {
                match tail {
                    "int8" | "fp32" if precision.is_some() => return Err(twice("a precision")),
                    "int8" => precision = Some(Precision::Int8),
                    "fp32" => precision = Some(Precision::Fp32),
                    "full" if full_time => return Err(twice("full")),
                    "full" => full_time = true,
                    "noextend" if !extend => return Err(twice("noextend")),
                    "noextend" => extend = false,
                    _ => match parse_budget(tail) {
                        Some(b) if budget.is_none() => budget = Some(b),
                        Some(_) => return Err(twice("a budget")),
                        // A number-like tail that is no budget (`:0`, `:-5`,
                        // `:0ms`) is a mistake, not part of the folder name.
                        None if tail
                            .starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') =>
                        {
                            return Err(SpecError::Budget {
                                spec: text.to_string(),
                                source: search::BudgetError(tail.to_string()),
                            });
                        }
                        _ => break,
                    },
                }
                rest = head;
            }
            if rest.is_empty() {
                return Err(bad());
            }
            return Ok(PlayerSpec::Bundle {
                path: rest.into(),
                budget,
                precision,
                full_time,
                extend,
            });
        }
        if let Some(rest) = t.strip_prefix("htp:") {
            if rest.is_empty() {
                return Err(bad());
            }
            if let Some((path, tail)) = rest.rsplit_once(':') {
                if let Some(ai) = htp_budget(tail) {
                    let ai = ai.ok_or_else(|| SpecError::EngineBudget {
                        spec: text.to_string(),
                        budget: tail.to_string(),
                        expected: "depthN or dN (1 to 255) or Ns (whole seconds, at least 1)",
                    })?;
                    return Ok(PlayerSpec::Htp {
                        path: path.into(),
                        ai,
                    });
                }
            }
            return Ok(PlayerSpec::Htp {
                path: rest.into(),
                ai: HtpAi::DEFAULT,
            });
        }
        if let Some(rest) = t.strip_prefix("uci:") {
            if rest.is_empty() {
                return Err(bad());
            }
            if let Some((path, tail)) = rest.rsplit_once(':') {
                if let Some(go) = uci_budget(tail) {
                    let go = go.ok_or_else(|| SpecError::EngineBudget {
                        spec: text.to_string(),
                        budget: tail.to_string(),
                        expected: "N (nodes), Nms, Ns or dN (depth), in plain digits, above 0",
                    })?;
                    return Ok(PlayerSpec::Uci {
                        path: path.into(),
                        go: Some(go),
                    });
                }
            }
            return Ok(PlayerSpec::Uci {
                path: rest.into(),
                go: None,
            });
        }
        Err(bad())
    }
}

/// What every factory needs besides its spec.
#[derive(Clone, Debug)]
pub struct FactoryContext {
    /// Backend device for bundles.
    pub device: Device,
    /// Budget per move of bundle players (and the UCI engines' `go`) when
    /// the spec states none.
    pub default_budget: Budget,
    /// Search settings for bundle and UCT players (root noise is switched off).
    pub search: SearchConfig,
    /// Ply cap of random playouts (UCT players, and bundles with `rollout_mix`).
    pub rollout_max_plies: u32,
    /// Weight `lambda` of random playouts in a bundle's leaf values
    /// ([`bot::GameBot::set_rollout_mix`], AlphaGo's mixed evaluation), in
    /// `[0, 1]`; 0 (the default) = the network alone.
    pub rollout_mix: f32,
    /// Fairy-Stockfish variant file for `viking`; `None` = the definition
    /// shipped with the project, built in
    /// ([`crate::fairy_stockfish::VIKING_INI`]).
    pub viking_ini: Option<PathBuf>,
    /// Limit for one UCI `bestmove` (beyond it the engine forfeits).
    pub uci_move_timeout: Duration,
    /// Limit for one move of an `htp:` engine (beyond it the engine
    /// forfeits): longer than the UCI one by default, since its
    /// alpha-beta has no time control and takes from seconds to minutes a
    /// move at depth 4.
    pub htp_move_timeout: Duration,
    /// Whether bundle and UCT players keep their search tree from one
    /// move to the next ([`bot::GameBot::set_tree_reuse`]; on by default).
    pub tree_reuse: bool,
    /// Precision of bundle players' networks unless their spec names one
    /// ([`bot::GameBot::set_precision`]; by default the play default,
    /// [`Precision::default`]: int8 where the CPU has a fast int8 kernel).
    pub precision: Precision,
}

impl FactoryContext {
    /// The play defaults on `device`: [`search::PLAY_NODES`] root visits
    /// per move, [`SearchConfig::for_play`], [`ROLLOUT_MAX_PLIES`]-ply
    /// playouts, the shipped viking definition, 30 s per UCI move and 300 s
    /// per `htp:` move, tree reuse on.
    pub fn new(device: Device) -> Self {
        FactoryContext {
            device,
            default_budget: Budget::nodes(search::PLAY_NODES),
            search: SearchConfig::for_play(),
            rollout_max_plies: ROLLOUT_MAX_PLIES,
            rollout_mix: 0.0,
            viking_ini: None,
            uci_move_timeout: Duration::from_secs(30),
            htp_move_timeout: Duration::from_secs(300),
            tree_reuse: true,
            precision: Precision::default(),
        }
    }
}

enum Built {
    /// The network, its budget per move, precision, and whether it thinks
    /// longer on unclear roots at a time control.
    Bundle(Box<Net>, Budget, Precision, bool),
    Random,
    Greedy,
    Uct(Budget),
    Uci(UciConfig),
    Htp(HtpConfig),
}

/// Builds a fresh player of one spec for each game (a bundle is loaded
/// once). Shareable across the match threads.
pub struct PlayerFactory<G: Encode + Heuristic> {
    name: String,
    /// The player without its budget, as it plays ([`Self::played_as`]).
    played_as: String,
    /// A bundle player's weights, the sha256 of its `model.safetensors`
    /// in hex ([`Self::weights_sha256`]).
    weights_sha256: Option<String>,
    built: Built,
    device: Device,
    search: SearchConfig,
    rollout_max_plies: u32,
    rollout_mix: f32,
    tree_reuse: bool,
    _game: std::marker::PhantomData<fn() -> G>,
}

/// The UCI options and position dialect for `variant` with the engine
/// `offered` says it is (the `UCI_Variant` values of its `uci` reply): an
/// engine that offers the variant's id plays it on the project's position
/// text (`lokizero uci` offers all six; Fairy-Stockfish offers `losers`);
/// viking otherwise goes through Fairy-Stockfish's variant file
/// (`viking_ini` as [`FactoryContext::viking_ini`]).
///
/// # Errors
/// [`SpecError::UciVariant`] for a variant the engine does not offer,
/// [`SpecError::VariantFile`] when the viking file is missing or cannot be
/// written.
pub fn uci_setup(
    spec: &str,
    variant: VariantId,
    offered: &[String],
    viking_ini: Option<&Path>,
) -> Result<(Vec<(String, String)>, FenDialect), SpecError> {
    if offered.iter().any(|v| v == variant.as_str()) {
        return Ok((
            vec![("UCI_Variant".into(), variant.as_str().into())],
            FenDialect::Same,
        ));
    }
    match variant {
        VariantId::Viking => {
            let ini = crate::fairy_stockfish::viking_ini_path(viking_ini).map_err(|source| {
                SpecError::VariantFile {
                    spec: spec.to_string(),
                    source,
                }
            })?;
            Ok((
                vec![
                    ("VariantPath".into(), ini.display().to_string()),
                    ("UCI_Variant".into(), "viking".into()),
                ],
                FenDialect::VikingBlackPawnO,
            ))
        }
        _ => Err(SpecError::UciVariant {
            spec: spec.to_string(),
            variant,
            offered: if offered.is_empty() {
                "none".into()
            } else {
                offered.join(", ")
            },
        }),
    }
}

/// The bundle `path` of the spec `spec_text`, as a folder: a path that
/// does not exist while a part of it before a `:` does
/// (`models/losers:abc`, `models/losers:int8:abc`) has a typo in a
/// suffix, not a folder name; the first segment after the existing folder
/// that is no suffix is named.
///
/// # Errors
/// [`SpecError::BundleSuffix`] naming the suffix.
pub fn check_bundle_suffix(spec_text: &str, path: &Path) -> Result<(), SpecError> {
    if path.exists() {
        return Ok(());
    }
    let text = path.to_string_lossy();
    let found = text
        .match_indices(':')
        .rev()
        .map(|(at, _)| (&text[..at], &text[at + 1..]))
        .find(|(head, _)| Path::new(head).exists());
    match found {
        Some((_, tails)) => {
            let tail = tails
                .split(':')
                .find(|t| !is_bundle_suffix(t))
                .unwrap_or(tails);
            Err(SpecError::BundleSuffix {
                spec: spec_text.to_string(),
                tail: tail.to_string(),
                path: path.to_path_buf(),
            })
        }
        None => Ok(()),
    }
}

/// Whether `tail` is one of a bundle spec's suffixes: a budget, `int8`,
/// `fp32`, `full` or `noextend`.
fn is_bundle_suffix(tail: &str) -> bool {
    matches!(tail, "int8" | "fp32" | "full" | "noextend") || parse_budget(tail).is_some()
}

impl<G: Encode + Heuristic> PlayerFactory<G> {
    /// Prepare `spec` (loads a bundle; checks a UCI engine has a setup for
    /// the variant and starts it once through its handshake).
    /// `spec_text` becomes the player's display name.
    ///
    /// # Errors
    /// [`SpecError`].
    pub fn new(spec_text: &str, ctx: &FactoryContext) -> Result<Self, SpecError> {
        let spec = PlayerSpec::parse(spec_text)?;
        let mut weights_sha256 = None;
        let mut played_as = match &spec {
            // Named by its weights once loaded (below).
            PlayerSpec::Bundle { .. } => String::new(),
            PlayerSpec::Random => "random".into(),
            PlayerSpec::Greedy => "greedy".into(),
            PlayerSpec::Uct(_) => "uct".into(),
            PlayerSpec::Uci { path, .. } => format!("uci:{}", path.display()),
            PlayerSpec::Htp { path, .. } => format!("htp:{}", path.display()),
        };
        let built = match spec {
            PlayerSpec::Bundle {
                path,
                budget,
                precision,
                full_time,
                extend,
            } => {
                check_bundle_suffix(spec_text, &path)?;
                let (net, meta) =
                    model::load_bundle::<G>(&path, &ctx.device).map_err(|source| {
                        SpecError::Bundle {
                            spec: spec_text.to_string(),
                            source,
                        }
                    })?;
                // The weights, not the path: another spelling of the path
                // is the same player, other weights at the same path not.
                played_as = format!(
                    "bundle with weights {}:{}{}",
                    meta.weights_sha256
                        .get(..16)
                        .unwrap_or(&meta.weights_sha256),
                    precision.unwrap_or(ctx.precision).on_this_cpu(),
                    if extend { "" } else { ":noextend" }
                );
                weights_sha256 = Some(meta.weights_sha256.clone());
                let budget = budget.unwrap_or_else(|| ctx.default_budget.clone());
                Built::Bundle(
                    Box::new(net),
                    Budget {
                        full_time,
                        ..budget
                    },
                    precision.unwrap_or(ctx.precision),
                    extend,
                )
            }
            PlayerSpec::Random => Built::Random,
            PlayerSpec::Greedy => Built::Greedy,
            PlayerSpec::Uct(n) => Built::Uct(n),
            PlayerSpec::Uci { path, go } => {
                // Generous: a WebAssembly engine under Node compiles its
                // module first (seconds on a busy 2-core machine).
                let handshake_timeout = Duration::from_secs(60);
                let start = |options: &[(String, String)]| {
                    UciEngine::start(&path, options, handshake_timeout).map_err(|source| {
                        SpecError::UciStart {
                            spec: spec_text.to_string(),
                            source,
                        }
                    })
                };
                // Start it once bare to read the variants it offers, then
                // once set up: a missing or broken engine is the caller's
                // error, not a match won by forfeits.
                let offered = start(&[])?.variants.clone();
                let (options, dialect) =
                    uci_setup(spec_text, G::VARIANT, &offered, ctx.viking_ini.as_deref())?;
                start(&options)?;
                Built::Uci(UciConfig {
                    path,
                    options,
                    go: go.unwrap_or_else(|| go_command(&ctx.default_budget)),
                    handshake_timeout,
                    move_timeout: ctx.uci_move_timeout,
                    dialect,
                })
            }
            PlayerSpec::Htp { path, ai } => {
                if G::VARIANT != VariantId::Copenhagen {
                    return Err(SpecError::HtpVariant {
                        spec: spec_text.to_string(),
                        variant: G::VARIANT,
                    });
                }
                let config = HtpConfig {
                    path,
                    ai,
                    connect_timeout: Duration::from_secs(30),
                    move_timeout: ctx.htp_move_timeout,
                };
                config.check().map_err(|source| SpecError::HtpStart {
                    spec: spec_text.to_string(),
                    source,
                })?;
                Built::Htp(config)
            }
        };
        Ok(PlayerFactory {
            name: spec_text.trim().to_string(),
            played_as,
            weights_sha256,
            built,
            device: ctx.device.clone(),
            search: ctx.search.clone(),
            rollout_max_plies: ctx.rollout_max_plies,
            rollout_mix: ctx.rollout_mix,
            tree_reuse: ctx.tree_reuse,
            _game: std::marker::PhantomData,
        })
    }

    /// A factory for an already loaded network (the training hook),
    /// playing `budget` per move.
    pub fn from_net(name: &str, net: Net, budget: Budget, ctx: &FactoryContext) -> Self {
        PlayerFactory {
            name: name.to_string(),
            played_as: format!("{name}:{}", ctx.precision),
            weights_sha256: None,
            built: Built::Bundle(Box::new(net), budget, ctx.precision, true),
            device: ctx.device.clone(),
            search: ctx.search.clone(),
            rollout_max_plies: ctx.rollout_max_plies,
            rollout_mix: ctx.rollout_mix,
            tree_reuse: ctx.tree_reuse,
            _game: std::marker::PhantomData,
        }
    }

    /// Display name (the spec text).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The player as it plays, without its budget ([`Self::budget_text`]
    /// gives that): the kind, the bundle's weights (the first 16 hex
    /// digits of their sha256, whatever the path's spelling) or the
    /// engine's path, and the precision and flags its spec resolved to
    /// (`bundle with weights 09d7695fe0261624:int8`, `uct`, `htp:PATH`), so
    /// specs that spell the same player differently (`bundle:m` with
    /// `--nodes 20`, `bundle:./m/:20`) are one player. A match journal keys
    /// on it.
    pub fn played_as(&self) -> &str {
        &self.played_as
    }

    /// The weights a bundle player loaded (the sha256 of its
    /// `model.safetensors`, 64 hex digits, as its `model.json` states it):
    /// what played, wherever its folder is and whatever it holds later.
    /// `None` for players without a bundle, and for a network handed over
    /// by the training hook ([`Self::from_net`]).
    pub fn weights_sha256(&self) -> Option<&str> {
        self.weights_sha256.as_deref()
    }

    /// The precision a bundle player's network runs in on this CPU (its
    /// spec's suffix, else the match's, [`Precision::on_this_cpu`]); `None`
    /// for players without a network.
    pub fn precision(&self) -> Option<Precision> {
        match &self.built {
            Built::Bundle(_, _, precision, _) => Some(precision.on_this_cpu()),
            _ => None,
        }
    }

    /// The budget this player searches per move, as text (`200`, `100ms`,
    /// a UCI engine's `go` line); `None` for players without one (random,
    /// greedy).
    pub fn budget_text(&self) -> Option<String> {
        match &self.built {
            Built::Bundle(_, budget, _, _) | Built::Uct(budget) => Some(budget.to_string()),
            Built::Uci(config) => Some(config.go.clone()),
            Built::Htp(config) => Some(config.ai.to_string()),
            Built::Random | Built::Greedy => None,
        }
    }

    /// Whether this player can play only one game at a time on a machine
    /// and only from the variant's start position (the `htp:` engine,
    /// whose game port is fixed and which cannot be given a position).
    pub fn start_position_only_one_at_a_time(&self) -> bool {
        matches!(self.built, Built::Htp(_))
    }

    /// A fresh player for one game; `seed` drives its randomness.
    pub fn make(&self, seed: u64) -> Box<dyn Contestant<G>> {
        let mut search = self.search.clone();
        search.dirichlet_epsilon = 0.0;
        match &self.built {
            Built::Bundle(net, budget, precision, extend) => {
                let mut bot = GameBot::<G>::from_net((**net).clone(), None, &self.device);
                // Where int8 is not available the bot keeps fp32.
                bot.set_precision(*precision);
                // The settings were checked when the context was built;
                // a failure here would leave the play defaults.
                let _ = bot.set_search_config(search);
                let _ = bot.set_rollout_mix(self.rollout_mix, seed);
                bot.set_tree_reuse(self.tree_reuse);
                bot.set_seed(seed);
                Box::new(
                    SearchPlayer::new(self.name.clone(), bot, budget.clone()).extending(*extend),
                )
            }
            Built::Random => Box::new(RandomPlayer::new(seed)),
            Built::Greedy => Box::new(GreedyPlayer::new(seed)),
            Built::Uct(budget) => {
                let playouts = RolloutEvaluator::new(
                    1,
                    self.rollout_max_plies,
                    SmallRng::seed_from_u64(seed ^ 0x5EED),
                );
                let mut bot = GameBot::<G, _>::with_evaluator(playouts, search);
                bot.set_tree_reuse(self.tree_reuse);
                bot.set_seed(seed);
                Box::new(SearchPlayer::new(self.name.clone(), bot, budget.clone()))
            }
            Built::Uci(config) => Box::new(UciPlayer::<G>::new(config.clone())),
            Built::Htp(config) => Box::new(HtpPlayer::<G>::new(config.clone())),
        }
    }
}

/// The UCI `go` line of `budget`: `go nodes N`, `go movetime MS`, or both
/// (`go nodes 1`... when it has neither, which budgets from specs never do).
pub fn go_command(budget: &Budget) -> String {
    let mut go = "go".to_string();
    if let Some(n) = budget.nodes {
        go.push_str(&format!(" nodes {n}"));
    }
    if let Some(t) = budget.time {
        go.push_str(&format!(" movetime {}", t.as_millis().max(1)));
    }
    if go == "go" {
        go.push_str(" nodes 1");
    }
    go
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_specs() {
        assert_eq!(PlayerSpec::parse("random").unwrap(), PlayerSpec::Random);
        let htp = |path: &str, ai| PlayerSpec::Htp {
            path: path.into(),
            ai,
        };
        assert_eq!(
            PlayerSpec::parse("htp:/opt/htp").unwrap(),
            htp("/opt/htp", HtpAi::Basic { depth: 4 })
        );
        assert_eq!(
            PlayerSpec::parse("htp:/opt/htp:depth3").unwrap(),
            htp("/opt/htp", HtpAi::Basic { depth: 3 })
        );
        assert_eq!(
            PlayerSpec::parse("htp:/opt/htp:d5").unwrap(),
            htp("/opt/htp", HtpAi::Basic { depth: 5 })
        );
        assert_eq!(
            PlayerSpec::parse("htp:/opt/htp:2s").unwrap(),
            htp("/opt/htp", HtpAi::MonteCarlo { seconds: 2 })
        );
        assert!(PlayerSpec::parse("htp:").is_err());
        // A tail that reads as a budget must be one: no sign, zero, point
        // or exponent (refused, not taken as part of the path).
        for bad in [
            "htp:/opt/htp:depth0",
            "htp:/opt/htp:depth+3",
            "htp:/opt/htp:d256",
            "htp:/opt/htp:+1s",
            "htp:/opt/htp:0s",
            "htp:/opt/htp:1.5s",
            "uci:/opt/fs:+32",
            "uci:/opt/fs:0",
            "uci:/opt/fs:0ms",
            "uci:/opt/fs:d0",
            "uci:/opt/fs:d+1",
            "uci:/opt/fs:1e3ms",
            "uci:/opt/fs:.5s",
            "uci:/opt/fs:4294967296",
        ] {
            let e = PlayerSpec::parse(bad).unwrap_err();
            assert!(matches!(e, SpecError::EngineBudget { .. }), "{bad}: {e}");
        }
        // A last part that is no budget is the path's.
        assert_eq!(
            PlayerSpec::parse("uci:/opt/fs:dev").unwrap(),
            PlayerSpec::Uci {
                path: "/opt/fs:dev".into(),
                go: None
            }
        );
        assert_eq!(PlayerSpec::parse("greedy").unwrap(), PlayerSpec::Greedy);
        assert_eq!(
            PlayerSpec::parse("uct:100").unwrap(),
            PlayerSpec::Uct(Budget::nodes(100))
        );
        assert_eq!(
            PlayerSpec::parse("uct:250ms").unwrap(),
            PlayerSpec::Uct(Budget::time(Duration::from_millis(250)))
        );
        assert_eq!(
            PlayerSpec::parse("uct:1s").unwrap(),
            PlayerSpec::Uct(Budget::time(Duration::from_secs(1)))
        );
        assert_eq!(
            PlayerSpec::parse("uci:/usr/games/fairy-stockfish:500ms").unwrap(),
            PlayerSpec::Uci {
                path: "/usr/games/fairy-stockfish".into(),
                go: Some("go movetime 500".into())
            }
        );
        assert_eq!(
            PlayerSpec::parse("uci:/usr/games/fairy-stockfish:1s").unwrap(),
            PlayerSpec::Uci {
                path: "/usr/games/fairy-stockfish".into(),
                go: Some("go movetime 1000".into())
            }
        );
        assert_eq!(
            PlayerSpec::parse("bundle:models/shakti:800").unwrap(),
            PlayerSpec::Bundle {
                path: "models/shakti".into(),
                budget: Some(Budget::nodes(800)),
                precision: None,
                full_time: false,
                extend: true,
            }
        );
        assert_eq!(
            PlayerSpec::parse("bundle:models/shakti:250ms").unwrap(),
            PlayerSpec::Bundle {
                path: "models/shakti".into(),
                budget: Some(Budget::time(Duration::from_millis(250))),
                precision: None,
                full_time: false,
                extend: true,
            }
        );
        assert_eq!(
            PlayerSpec::parse("bundle:models/shakti").unwrap(),
            PlayerSpec::Bundle {
                path: "models/shakti".into(),
                budget: None,
                precision: None,
                full_time: false,
                extend: true,
            }
        );
        assert_eq!(
            PlayerSpec::parse("bundle:models/losers:200:int8").unwrap(),
            PlayerSpec::Bundle {
                path: "models/losers".into(),
                budget: Some(Budget::nodes(200)),
                precision: Some(Precision::Int8),
                full_time: false,
                extend: true,
            }
        );
        assert_eq!(
            PlayerSpec::parse("bundle:models/losers:fp32").unwrap(),
            PlayerSpec::Bundle {
                path: "models/losers".into(),
                budget: None,
                precision: Some(Precision::Fp32),
                full_time: false,
                extend: true,
            }
        );
        assert_eq!(
            PlayerSpec::parse("bundle:models/losers:1s:full:int8").unwrap(),
            PlayerSpec::Bundle {
                path: "models/losers".into(),
                budget: Some(Budget::time(Duration::from_secs(1))),
                precision: Some(Precision::Int8),
                full_time: true,
                extend: true,
            }
        );
        // Suffixes in any order.
        for text in [
            "bundle:models/losers:int8:1s:full",
            "bundle:models/losers:full:int8:1s",
            "bundle:models/losers:1s:int8:full",
        ] {
            assert_eq!(
                PlayerSpec::parse(text).unwrap(),
                PlayerSpec::parse("bundle:models/losers:1s:full:int8").unwrap(),
                "{text}"
            );
        }
        assert_eq!(
            PlayerSpec::parse("bundle:models/losers:full").unwrap(),
            PlayerSpec::Bundle {
                path: "models/losers".into(),
                budget: None,
                precision: None,
                full_time: true,
                extend: true,
            }
        );
        for text in [
            "bundle:models/losers:noextend:int8",
            "bundle:models/losers:full:noextend:int8",
            "bundle:models/losers:noextend:full:int8",
        ] {
            assert_eq!(
                PlayerSpec::parse(text).unwrap(),
                PlayerSpec::Bundle {
                    path: "models/losers".into(),
                    budget: None,
                    precision: Some(Precision::Int8),
                    full_time: text.contains("full"),
                    extend: false,
                },
                "{text}"
            );
        }
        assert_eq!(
            PlayerSpec::parse("uci:/usr/games/fairy-stockfish:d1").unwrap(),
            PlayerSpec::Uci {
                path: "/usr/games/fairy-stockfish".into(),
                go: Some("go depth 1".into())
            }
        );
        assert_eq!(
            PlayerSpec::parse("uci:/usr/games/fairy-stockfish:500").unwrap(),
            PlayerSpec::Uci {
                path: "/usr/games/fairy-stockfish".into(),
                go: Some("go nodes 500".into())
            }
        );
        for bad in [
            "",
            "uct:",
            "uct:0",
            "uct:0ms",
            "uct:x",
            "bundle:",
            "bundle:m:0",
            "bundle:m:0ms",
            "bundle:m:-5",
            "bundle::int8",
            "bundle:m:0:int8",
            "bundle:m:int8:0",
            "bundle:m:200:1s",
            "bundle:m:int8:fp32",
            "bundle:m:full:int8:full",
            "bundle:m:noextend:noextend",
            "uci:",
            "stockfish",
        ] {
            assert!(PlayerSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_repeated_suffix_is_named() {
        for (spec, what) in [
            ("bundle:m:int8:fp32", "a precision given twice"),
            ("bundle:m:200:int8:300", "a budget given twice"),
            ("bundle:m:full:1s:full", "full given twice"),
        ] {
            let text = PlayerSpec::parse(spec).unwrap_err().to_string();
            assert!(text.contains(what), "{spec}: {text}");
        }
    }

    #[test]
    fn a_bad_budget_is_named_after_the_quoted_spec() {
        let expected = "expected N > 0 nodes, Nms or Ns (for example 800, 250ms, 2s)";
        assert_eq!(
            PlayerSpec::parse("uct:abc").unwrap_err().to_string(),
            format!("bad player spec \"uct:abc\": bad search budget `abc`: {expected}")
        );
        assert_eq!(
            PlayerSpec::parse("bundle:models/shakti:0ms")
                .unwrap_err()
                .to_string(),
            format!(
                "bad player spec \"bundle:models/shakti:0ms\": bad search budget `0ms`: {expected}"
            )
        );
    }

    #[test]
    fn viking_fen_dialect() {
        let ours = "12/12/12/12/1PPPP2pppp1/RPNNPPppnnpr/RBKQBPpbqkbr w - - 0 1";
        assert_eq!(
            FenDialect::VikingBlackPawnO.convert(ours),
            "12/12/12/12/1PPPP2oooo1/RPNNPPoonnor/RBKQBPobqkbr w - - 0 1"
        );
    }

    #[test]
    fn an_unknown_bundle_suffix_is_named() {
        let models = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/losers");
        let ctx = FactoryContext::new(Device::flex());
        // Alone, or after a valid suffix: the unknown one is named.
        for tail in ["abc", "int8:abc:250ms"] {
            let spec = format!("bundle:{models}:{tail}");
            match PlayerFactory::<rules::Losers>::new(&spec, &ctx) {
                Err(e @ SpecError::BundleSuffix { .. }) => {
                    let text = e.to_string();
                    assert!(text.contains("\"abc\" is not a bundle suffix"), "{text}");
                }
                Err(e) => panic!("expected BundleSuffix, got {e}"),
                Ok(_) => panic!("{spec} loaded"),
            }
        }
        // A folder that does not exist at all stays a bundle error.
        let missing = "bundle:/nonexistent/lokizero/bundle:abc";
        assert!(matches!(
            PlayerFactory::<rules::Losers>::new(missing, &ctx),
            Err(SpecError::Bundle { .. })
        ));
    }
}
