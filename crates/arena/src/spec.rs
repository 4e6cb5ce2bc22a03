//! Player specs on the command line and the factories that build one
//! player per game from them.
//!
//! | spec | player |
//! |---|---|
//! | `bundle:PATH` | the bundle's network with PUCT search, `--nodes` simulations per action |
//! | `bundle:PATH:N` | … `N` simulations per action |
//! | `bundle:PATH:250ms`, `bundle:PATH:2s` | … searching for that wall time per action |
//! | `random` | uniformly random legal actions |
//! | `greedy` | one-ply greedy ([`crate::greedy`]) |
//! | `uct:N` | knowledge-free search: `N` simulations per action, uniform priors, each leaf valued by one random playout ([`search::RolloutEvaluator`]) |
//! | `uct:250ms`, `uct:1s` | … searching for that wall time per action (equal-time comparisons) |
//! | `uci:PATH` | external UCI engine, `go nodes <--nodes>` |
//! | `uci:PATH:N`, `uci:PATH:dN`, `uci:PATH:500ms`, `uci:PATH:1s` | … `go nodes N`, `go depth N`, `go movetime 500`, `go movetime 1000` |

use std::path::{Path, PathBuf};
use std::time::Duration;

use burn::tensor::Device;
use encoding::Encode;
use model::{Net, NetEvaluator};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rules::VariantId;
use search::{RolloutEvaluator, RolloutMix, SearchConfig};

use crate::greedy::{GreedyPlayer, Heuristic};
use crate::player::{Budget, Contestant, MctsPlayer, RandomPlayer};
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
}

/// A spec that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// Unknown or malformed spec text.
    #[error("bad player spec {0:?}: expected bundle:PATH[:N|:Nms|:Ns], random, greedy, uct:N|Nms|Ns or uci:PATH[:N|:dN|:Nms|:Ns]")]
    Syntax(String),
    /// A spec whose search budget is malformed (`uct:abc`, `bundle:m:0`).
    #[error("bad player spec {spec:?}: bad search budget `{budget}`: expected N > 0 simulations, Nms or Ns")]
    Budget {
        /// The spec.
        spec: String,
        /// Its budget text.
        budget: String,
    },
    /// The bundle could not be loaded.
    #[error("player {spec:?}: {source}")]
    Bundle {
        /// The spec.
        spec: String,
        /// Why.
        source: model::BundleError,
    },
    /// No UCI engine setup for this variant.
    #[error("player {spec:?}: no UCI engine setup for variant {variant} (only losers and viking, via Fairy-Stockfish)")]
    UciVariant {
        /// The spec.
        spec: String,
        /// The variant.
        variant: VariantId,
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
    /// The viking variant file for Fairy-Stockfish is missing or could not
    /// be written.
    #[error("player {spec:?}: {reason}")]
    VariantFile {
        /// The spec.
        spec: String,
        /// Why.
        reason: String,
    },
}

fn parse_budget(text: &str) -> Option<Budget> {
    if let Some(ms) = text.strip_suffix("ms") {
        return ms
            .parse()
            .ok()
            .filter(|&m| m > 0)
            .map(|m| Budget::Time(Duration::from_millis(m)));
    }
    if let Some(s) = text.strip_suffix('s') {
        return s
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e6)
            .map(|s| Budget::Time(Duration::from_secs_f64(s)));
    }
    text.parse::<u32>()
        .ok()
        .filter(|&n| n > 0)
        .map(Budget::Nodes)
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
            return parse_budget(n)
                .map(PlayerSpec::Uct)
                .ok_or_else(|| SpecError::Budget {
                    spec: text.to_string(),
                    budget: n.to_string(),
                });
        }
        if let Some(rest) = t.strip_prefix("bundle:") {
            if rest.is_empty() {
                return Err(bad());
            }
            if let Some((path, tail)) = rest.rsplit_once(':') {
                if let Some(b) = parse_budget(tail) {
                    return Ok(PlayerSpec::Bundle {
                        path: path.into(),
                        budget: Some(b),
                    });
                }
                // A number-like tail that is no budget (`:0`, `:-5`, `:0ms`)
                // is a mistake, not part of the folder name.
                if tail.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') {
                    return Err(SpecError::Budget {
                        spec: text.to_string(),
                        budget: tail.to_string(),
                    });
                }
            }
            return Ok(PlayerSpec::Bundle {
                path: rest.into(),
                budget: None,
            });
        }
        if let Some(rest) = t.strip_prefix("uci:") {
            if rest.is_empty() {
                return Err(bad());
            }
            if let Some((path, tail)) = rest.rsplit_once(':') {
                if let Some(ms) = tail.strip_suffix("ms").and_then(|m| m.parse::<u32>().ok()) {
                    return Ok(PlayerSpec::Uci {
                        path: path.into(),
                        go: Some(format!("go movetime {}", ms.max(1))),
                    });
                }
                // `Ns` (seconds, as bundle and uct budgets take them).
                if let Some(Budget::Time(s)) =
                    tail.ends_with('s').then(|| parse_budget(tail)).flatten()
                {
                    return Ok(PlayerSpec::Uci {
                        path: path.into(),
                        go: Some(format!("go movetime {}", s.as_millis().max(1))),
                    });
                }
                if let Some(d) = tail.strip_prefix('d').and_then(|d| d.parse::<u32>().ok()) {
                    return Ok(PlayerSpec::Uci {
                        path: path.into(),
                        go: Some(format!("go depth {}", d.max(1))),
                    });
                }
                if let Ok(n) = tail.parse::<u32>() {
                    return Ok(PlayerSpec::Uci {
                        path: path.into(),
                        go: Some(format!("go nodes {}", n.max(1))),
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
    /// Simulations (bundles) / `go nodes` (UCI) when the spec has no budget.
    pub default_nodes: u32,
    /// Search settings for bundle and UCT players (root noise is switched off).
    pub search: SearchConfig,
    /// Ply cap of random playouts (UCT players, and bundles with `rollout_mix`).
    pub rollout_max_plies: u32,
    /// Weight `lambda` of random playouts in a bundle's leaf values
    /// ([`search::RolloutMix`], AlphaGo's mixed evaluation), in `[0, 1]`;
    /// 0 (the default) = the network alone.
    pub rollout_mix: f32,
    /// Fairy-Stockfish variant file for `viking`; `None` = the definition
    /// shipped with the project, built in
    /// ([`crate::fairy_stockfish::VIKING_INI`]).
    pub viking_ini: Option<PathBuf>,
    /// Limit for one UCI `bestmove` (beyond it the engine forfeits).
    pub uci_move_timeout: Duration,
    /// Whether bundle and UCT players keep their search tree from one
    /// action to the next ([`MctsPlayer::with_tree_reuse`]; on by default).
    pub tree_reuse: bool,
}

impl FactoryContext {
    /// Defaults on `device`: 100 nodes, [`SearchConfig::for_play`], 300-ply playouts,
    /// the shipped viking definition, 30 s per UCI move, tree reuse on.
    pub fn new(device: Device) -> Self {
        FactoryContext {
            device,
            default_nodes: 100,
            search: SearchConfig::for_play(),
            rollout_max_plies: 300,
            rollout_mix: 0.0,
            viking_ini: None,
            uci_move_timeout: Duration::from_secs(30),
            tree_reuse: true,
        }
    }
}

enum Built {
    Bundle(Box<Net>, Budget),
    Random,
    Greedy,
    Uct(Budget),
    Uci(UciConfig),
}

/// Builds a fresh player of one spec for each game (a bundle is loaded
/// once). Shareable across the match threads.
pub struct PlayerFactory<G: Encode + Heuristic> {
    name: String,
    built: Built,
    device: Device,
    search: SearchConfig,
    rollout_max_plies: u32,
    rollout_mix: f32,
    tree_reuse: bool,
    _game: std::marker::PhantomData<fn() -> G>,
}

/// The leaf evaluator of a bundle player: the network, mixed with random
/// playouts ([`RolloutMix`]).
pub type NetPlayoutEvaluator<G> = RolloutMix<NetEvaluator<G>, SmallRng>;

/// A search player on `net`: PUCT with `search` (root noise off) and
/// `budget` per action, tree reuse on ([`MctsPlayer::with_tree_reuse`]);
/// `(lambda, max_plies)` mixes random playouts of up to `max_plies` plies
/// into the leaf values ([`RolloutMix`]; `lambda` 0 = the network alone).
/// `seed` drives the player's and the playouts' randomness.
pub fn net_player<G: Encode>(
    name: &str,
    net: Net,
    device: &Device,
    search: &SearchConfig,
    budget: Budget,
    (lambda, max_plies): (f32, u32),
    seed: u64,
) -> MctsPlayer<G, NetPlayoutEvaluator<G>> {
    let playouts = RolloutEvaluator::new(1, max_plies, SmallRng::seed_from_u64(seed ^ 0x5EED));
    let eval = RolloutMix::new(
        NetEvaluator::<G>::new(net, device.clone()),
        playouts,
        lambda,
    );
    MctsPlayer::with_budget(name, eval, search, budget, seed)
}

/// The UCI options and position dialect for `variant` with Fairy-Stockfish
/// for the player `spec`; `viking_ini` as [`FactoryContext::viking_ini`].
///
/// # Errors
/// [`SpecError::UciVariant`] for variants Fairy-Stockfish does not play,
/// [`SpecError::VariantFile`] when the viking file is missing or cannot be
/// written.
pub fn fairy_stockfish_setup(
    spec: &str,
    variant: VariantId,
    viking_ini: Option<&Path>,
) -> Result<(Vec<(String, String)>, FenDialect), SpecError> {
    match variant {
        VariantId::Losers => Ok((
            vec![("UCI_Variant".into(), "losers".into())],
            FenDialect::Same,
        )),
        VariantId::Viking => {
            let ini = crate::fairy_stockfish::viking_ini_path(viking_ini).map_err(|reason| {
                SpecError::VariantFile {
                    spec: spec.to_string(),
                    reason,
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
        VariantId::Hnefatafl | VariantId::Loki | VariantId::Shakti => Err(SpecError::UciVariant {
            spec: spec.to_string(),
            variant,
        }),
    }
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
        let built = match spec {
            PlayerSpec::Bundle { path, budget } => {
                let (net, _) = model::load_bundle::<G>(&path, &ctx.device).map_err(|source| {
                    SpecError::Bundle {
                        spec: spec_text.to_string(),
                        source,
                    }
                })?;
                Built::Bundle(
                    Box::new(net),
                    budget.unwrap_or(Budget::Nodes(ctx.default_nodes)),
                )
            }
            PlayerSpec::Random => Built::Random,
            PlayerSpec::Greedy => Built::Greedy,
            PlayerSpec::Uct(n) => Built::Uct(n),
            PlayerSpec::Uci { path, go } => {
                let (options, dialect) =
                    fairy_stockfish_setup(spec_text, G::VARIANT, ctx.viking_ini.as_deref())?;
                // Generous: a WebAssembly engine under Node compiles its
                // module first (seconds on a busy 2-core machine).
                let handshake_timeout = Duration::from_secs(60);
                // Start it once now: a missing or broken engine is the
                // caller's error, not a match won by forfeits.
                UciEngine::start(&path, &options, handshake_timeout).map_err(|source| {
                    SpecError::UciStart {
                        spec: spec_text.to_string(),
                        source,
                    }
                })?;
                Built::Uci(UciConfig {
                    path,
                    options,
                    go: go.unwrap_or_else(|| format!("go nodes {}", ctx.default_nodes.max(1))),
                    handshake_timeout,
                    move_timeout: ctx.uci_move_timeout,
                    dialect,
                })
            }
        };
        Ok(PlayerFactory {
            name: spec_text.trim().to_string(),
            built,
            device: ctx.device.clone(),
            search: ctx.search.clone(),
            rollout_max_plies: ctx.rollout_max_plies,
            rollout_mix: ctx.rollout_mix,
            tree_reuse: ctx.tree_reuse,
            _game: std::marker::PhantomData,
        })
    }

    /// A factory for an already loaded network (the training hook).
    pub fn from_net(name: &str, net: Net, budget: Budget, ctx: &FactoryContext) -> Self {
        PlayerFactory {
            name: name.to_string(),
            built: Built::Bundle(Box::new(net), budget),
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

    /// A fresh player for one game; `seed` drives its randomness.
    pub fn make(&self, seed: u64) -> Box<dyn Contestant<G>> {
        match &self.built {
            Built::Bundle(net, budget) => Box::new(
                net_player(
                    &self.name,
                    (**net).clone(),
                    &self.device,
                    &self.search,
                    *budget,
                    (self.rollout_mix, self.rollout_max_plies),
                    seed,
                )
                .with_tree_reuse(self.tree_reuse),
            ),
            Built::Random => Box::new(RandomPlayer::new(seed)),
            Built::Greedy => Box::new(GreedyPlayer::new(seed)),
            Built::Uct(budget) => {
                let eval = RolloutEvaluator::new(
                    1,
                    self.rollout_max_plies,
                    SmallRng::seed_from_u64(seed ^ 0x5EED),
                );
                Box::new(
                    MctsPlayer::with_budget(self.name.clone(), eval, &self.search, *budget, seed)
                        .with_tree_reuse(self.tree_reuse),
                )
            }
            Built::Uci(config) => Box::new(UciPlayer::<G>::new(config.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_specs() {
        assert_eq!(PlayerSpec::parse("random").unwrap(), PlayerSpec::Random);
        assert_eq!(PlayerSpec::parse("greedy").unwrap(), PlayerSpec::Greedy);
        assert_eq!(
            PlayerSpec::parse("uct:100").unwrap(),
            PlayerSpec::Uct(Budget::Nodes(100))
        );
        assert_eq!(
            PlayerSpec::parse("uct:250ms").unwrap(),
            PlayerSpec::Uct(Budget::Time(Duration::from_millis(250)))
        );
        assert_eq!(
            PlayerSpec::parse("uct:1s").unwrap(),
            PlayerSpec::Uct(Budget::Time(Duration::from_secs(1)))
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
                budget: Some(Budget::Nodes(800))
            }
        );
        assert_eq!(
            PlayerSpec::parse("bundle:models/shakti:250ms").unwrap(),
            PlayerSpec::Bundle {
                path: "models/shakti".into(),
                budget: Some(Budget::Time(Duration::from_millis(250)))
            }
        );
        assert_eq!(
            PlayerSpec::parse("bundle:models/shakti").unwrap(),
            PlayerSpec::Bundle {
                path: "models/shakti".into(),
                budget: None
            }
        );
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
            "uci:",
            "stockfish",
        ] {
            assert!(PlayerSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bad_budget_is_named_after_the_quoted_spec() {
        let expected = "expected N > 0 simulations, Nms or Ns";
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
}
