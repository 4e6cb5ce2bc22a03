//! [`GameBot`]: a network and a search for one variant, with a current
//! position.

use std::path::Path;
use std::time::{Duration, Instant};

use burn::tensor::Device;
use model::{load_bundle, BundleMeta, Net, NetEvaluator};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rules::{Game, Outcome};
use search::{Batch, Evaluator, Mcts, SearchConfig, SearchLimit, Wdl};

use crate::analysis::{ActionInfo, Analysis, RootInfo, SearchInfo};
use crate::error::BotError;
use crate::limits::{Limits, Strength};
use crate::move_text::{moves_of_line, BotGame};

/// How often a running search reports progress.
pub const INFO_INTERVAL: Duration = Duration::from_secs(1);

/// Longest principal variation reported, in atomic actions.
pub const MAX_PV: usize = 32;

/// The move a bot chose.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveChoice {
    /// The move token (`docs/rules.md` notation; one UCI `moves` token).
    pub mv: String,
    /// The atomic actions of the move, in order (one for every variant but
    /// Loki's exchange and command).
    pub actions: Vec<String>,
    /// The search of the move's first action: its root value and principal
    /// variation; `nodes` and `time_ms` count the whole move.
    pub info: SearchInfo,
}

/// Describe an outcome for messages: `first wins (Checkmate)`.
pub fn describe_outcome(outcome: &Outcome) -> String {
    match outcome.winner {
        Some(rules::Player::First) => format!("first player wins ({:?})", outcome.reason),
        Some(rules::Player::Second) => format!("second player wins ({:?})", outcome.reason),
        None => format!("draw ({:?})", outcome.reason),
    }
}

/// Parse `position` (`None` or `"startpos"` = the variant's start) and play
/// the move tokens `moves` on it (`Game::parse_move`, so a Loki token may be
/// several actions).
///
/// # Errors
/// [`BotError::Position`] for a bad position text, [`BotError::Move`]
/// naming the first malformed or illegal move.
pub fn parse_position<G: Game, S: AsRef<str>>(
    position: Option<&str>,
    moves: &[S],
) -> Result<G, BotError> {
    let mut game = match position.map(str::trim) {
        None | Some("startpos") | Some("") => G::start(),
        Some(text) => G::from_text(text)?,
    };
    for (index, token) in moves.iter().enumerate() {
        let token = token.as_ref();
        let actions = game.parse_move(token).map_err(|source| BotError::Move {
            index,
            text: token.to_string(),
            source,
        })?;
        for action in actions {
            game.play(action);
        }
    }
    Ok(game)
}

/// A bot for variant `G`: the network of a bundle, PUCT search without root
/// noise, a strength setting and the current position.
pub struct GameBot<G: BotGame> {
    evaluator: NetEvaluator<G>,
    meta: BundleMeta,
    config: SearchConfig,
    strength: Strength,
    game: G,
    rng: StdRng,
}

impl<G: BotGame> GameBot<G> {
    /// Load the bundle at `dir` onto `device` (all checks of
    /// [`model::load_bundle`]: variant, versions, shape, checksum).
    ///
    /// # Errors
    /// [`BotError::Bundle`] naming the problem.
    pub fn from_bundle(dir: &Path, device: &Device) -> Result<Self, BotError> {
        let (net, meta) = load_bundle::<G>(dir, device)?;
        Ok(Self::from_net(net, meta, device))
    }

    /// A bot around an already loaded network (start position, full
    /// strength, [`SearchConfig::for_play`], seed 0).
    pub fn from_net(net: Net, meta: BundleMeta, device: &Device) -> Self {
        let config = SearchConfig::for_play();
        GameBot {
            evaluator: NetEvaluator::new(net, device.clone()),
            meta,
            config,
            strength: Strength::default(),
            game: G::start(),
            rng: StdRng::seed_from_u64(0),
        }
    }

    /// The bundle's metadata.
    pub fn meta(&self) -> &BundleMeta {
        &self.meta
    }

    /// The current position.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// Set the current position (see [`parse_position`]); on error the
    /// position is unchanged.
    ///
    /// # Errors
    /// As [`parse_position`].
    pub fn set_position<S: AsRef<str>>(
        &mut self,
        position: Option<&str>,
        moves: &[S],
    ) -> Result<(), BotError> {
        self.game = parse_position::<G, S>(position, moves)?;
        Ok(())
    }

    /// The playing strength.
    pub fn strength(&self) -> &Strength {
        &self.strength
    }

    /// Change the playing strength.
    ///
    /// # Errors
    /// [`BotError::Setting`] for an out-of-range value (unchanged then).
    pub fn set_strength(&mut self, strength: Strength) -> Result<(), BotError> {
        strength.validate()?;
        self.strength = strength;
        Ok(())
    }

    /// Replace the search settings (root noise is allowed but unusual for play).
    ///
    /// # Errors
    /// [`BotError::Setting`] if `config` fails [`SearchConfig::validate`].
    pub fn set_search_config(&mut self, config: SearchConfig) -> Result<(), BotError> {
        config
            .validate()
            .map_err(|e| BotError::Setting(e.to_string()))?;
        self.config = config;
        Ok(())
    }

    /// Reseed the random choices (temperature sampling).
    pub fn set_seed(&mut self, seed: u64) {
        self.rng = StdRng::seed_from_u64(seed);
    }

    /// Search `tree` until `limit` stops it ([`search::Batch::run`]: at
    /// least one root evaluation unless stopped first, no batch started
    /// that would overrun the deadline). Calls `on_info` every
    /// [`INFO_INTERVAL`] counted from `started`.
    fn run_search(
        &mut self,
        tree: &mut Mcts<G>,
        limit: &SearchLimit,
        started: Instant,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) {
        let mut next_report = started + INFO_INTERVAL;
        let trees = std::slice::from_mut(tree);
        let mut batch = Batch::new(self.config.leaves_per_batch);
        let (evaluator, rng) = (&mut self.evaluator, &mut self.rng);
        batch.run(trees, evaluator, limit, rng, |trees| {
            let tree = &trees[0];
            if tree.visits() > 0 && Instant::now() >= next_report {
                on_info(&search_info(tree, started));
                next_report += INFO_INTERVAL;
            }
            false
        });
    }

    /// One network evaluation of `game`: priors over `legal` and the WDL.
    fn evaluate(&mut self, game: &G, legal: &[G::Action]) -> (Vec<f32>, Wdl) {
        let mut priors = vec![0.0; legal.len()];
        let mut wdl = [[0.0; 3]];
        self.evaluator
            .evaluate(&[game], &[legal], &mut priors, &mut wdl);
        (priors, wdl[0])
    }

    /// Policy-only choice: argmax of the prior (temperature 0) or a sample
    /// with probability proportional to `P(a)^(1/t)`.
    fn policy_choice(&mut self, game: &G, legal: &[G::Action]) -> (G::Action, Wdl) {
        let (priors, wdl) = self.evaluate(game, legal);
        let t = self.strength.temperature;
        let mut best = 0;
        for (i, p) in priors.iter().enumerate() {
            if *p > priors[best] {
                best = i;
            }
        }
        if t <= 0.0 || t.is_nan() {
            return (legal[best], wdl);
        }
        // Weights (P / P_max)^(1/t), in logs to avoid underflow at small t.
        let ln_max = f64::from(priors[best].max(f32::MIN_POSITIVE)).ln();
        let weights: Vec<f64> = priors
            .iter()
            .map(|&p| {
                if p > 0.0 && p.is_finite() {
                    ((f64::from(p).ln() - ln_max) / f64::from(t)).exp()
                } else {
                    0.0
                }
            })
            .collect();
        let total: f64 = weights.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            return (legal[best], wdl);
        }
        let mut x = self.rng.random::<f64>() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return (legal[i], wdl);
            }
            x -= w;
        }
        (legal[best], wdl)
    }

    /// Choose the move to play in the current position (the position is
    /// not changed). A Loki move of several actions searches each action in
    /// turn, keeping the subtree; the first action gets 3/5 of the time.
    /// A forced action (the only legal one) gets a single evaluation.
    /// `on_info` is called about every [`INFO_INTERVAL`] while searching.
    ///
    /// # Errors
    /// [`BotError::GameOver`] when the game is over, [`BotError::Setting`]
    /// when `limits` give no bound.
    pub fn choose_move(
        &mut self,
        limits: &Limits,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Result<MoveChoice, BotError> {
        if let Some(outcome) = self.game.outcome() {
            return Err(BotError::GameOver(describe_outcome(&outcome)));
        }
        let started = Instant::now();
        let limit = limits.search_limit(started, self.strength.max_nodes)?;
        let side = self.game.side_to_move();
        let mut game = self.game.clone();
        let mut actions: Vec<G::Action> = Vec::new();
        let mut nodes = 0u32;
        let mut first: Option<SearchInfo> = None;
        let mut tree: Option<Mcts<G>> = None;
        loop {
            let legal = game.legal_vec();
            if legal.is_empty() {
                break;
            }
            let action = if self.strength.policy_only {
                let (action, wdl) = self.policy_choice(&game, &legal);
                nodes = nodes.saturating_add(1);
                first.get_or_insert_with(|| SearchInfo {
                    nodes: 1,
                    time_ms: 0,
                    wdl,
                    pv: vec![],
                });
                action
            } else {
                let mut t = tree
                    .take()
                    .unwrap_or_else(|| Mcts::new(game.clone(), &self.config));
                let before = t.visits();
                let part =
                    action_limit::<G>(&limit, started, before, legal.len(), actions.is_empty());
                self.run_search(&mut t, &part, started, on_info);
                nodes = nodes.saturating_add(t.visits().saturating_sub(before));
                if first.is_none() {
                    first = Some(search_info(&t, started));
                }
                let action = t
                    .choose_action(self.strength.temperature, &mut self.rng)
                    .unwrap_or(legal[0]);
                if t.advance(action).is_ok() {
                    tree = Some(t);
                }
                action
            };
            actions.push(action);
            game.play(action);
            if !game.mid_turn() || game.outcome().is_some() || game.side_to_move() != side {
                break;
            }
        }
        let mut info = first.unwrap_or(SearchInfo {
            nodes: 0,
            time_ms: 0,
            wdl: search::DRAW_WDL,
            pv: vec![],
        });
        let mv = self.game.move_text(&actions);
        info.nodes = nodes;
        info.time_ms = started.elapsed().as_millis() as u64;
        if info.pv.first() != Some(&mv) {
            // Temperature or policy-only play chose off the principal line.
            info.pv = vec![mv.clone()];
        }
        let mut walk = self.game.clone();
        let texts = actions
            .iter()
            .map(|&a| {
                let text = walk.action_to_text(a);
                walk.play(a);
                text
            })
            .collect();
        Ok(MoveChoice {
            mv,
            actions: texts,
            info,
        })
    }

    /// Search the current position and report the `top` best root actions
    /// (0 = all) with visits, prior, Q, WDL and principal variation.
    /// Strength settings do not apply (analysis is always full search);
    /// a finished game gives no actions and the exact root WDL.
    ///
    /// # Errors
    /// [`BotError::Setting`] when `limits` give no bound.
    pub fn analyse(&mut self, limits: &Limits, top: usize) -> Result<Analysis, BotError> {
        let started = Instant::now();
        let limit = limits.search_limit(started, None)?;
        let mut tree = Mcts::new(self.game.clone(), &self.config);
        if !tree.is_terminal() {
            self.run_search(&mut tree, &limit, started, &mut |_| {});
        }
        let mut children = tree.root_children();
        children.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.prior.total_cmp(&a.prior)));
        if top > 0 {
            children.truncate(top);
        }
        let actions = children
            .iter()
            .map(|c| {
                let mut line = vec![c.action];
                let mut sub = tree.clone();
                if sub.advance(c.action).is_ok() {
                    line.extend(sub.principal_variation(MAX_PV - 1));
                }
                let mut walk = self.game.clone();
                let pv = line
                    .iter()
                    .map(|&a| {
                        let text = walk.action_to_text(a);
                        walk.play(a);
                        text
                    })
                    .collect();
                ActionInfo {
                    action: self.game.action_to_text(c.action),
                    visits: c.visits,
                    prior: c.prior,
                    q: c.q,
                    wdl: c.wdl,
                    pv,
                }
            })
            .collect();
        Ok(Analysis {
            actions,
            root: RootInfo {
                wdl: tree.root_wdl(),
                visits: tree.visits(),
            },
            time_ms: started.elapsed().as_millis() as u64,
        })
    }
}

/// Progress of `tree` for reporting, searched since `started`.
fn search_info<G: BotGame>(tree: &Mcts<G>, started: Instant) -> SearchInfo {
    SearchInfo {
        nodes: tree.visits(),
        time_ms: started.elapsed().as_millis() as u64,
        wdl: tree.root_wdl(),
        pv: moves_of_line(tree.root_state(), &tree.principal_variation(MAX_PV)),
    }
}

/// The limit of one action's search within a move searched under `limit`
/// since `started`, from a tree with `visits` root visits and `legal`
/// legal actions: a forced action (the only legal one) gets one more
/// visit; the first action of a move of several (Loki) gets 3/5 of the
/// time, leaving the rest for the actions after it.
fn action_limit<G: BotGame>(
    limit: &SearchLimit,
    started: Instant,
    visits: u32,
    legal: usize,
    first: bool,
) -> SearchLimit {
    let mut part = limit.clone();
    if legal == 1 {
        part.nodes = visits.saturating_add(1);
    }
    if G::MULTI_ACTION_MOVES && first {
        part.deadline = limit.deadline.map(|d| started + (d - started) * 3 / 5);
    }
    part
}
