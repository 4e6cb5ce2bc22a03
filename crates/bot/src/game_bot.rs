//! [`GameBot`]: a network and a search for one variant, with a current
//! position.

use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use burn::tensor::Device;
use model::{load_bundle, BundleMeta, Net, NetEvaluator, Precision};
use rand::rngs::{SmallRng, StdRng};
use rand::{Rng, SeedableRng};
use rules::{Game, Outcome};
use search::{Batch, Budget, Evaluator, Mcts, RolloutEvaluator, RolloutMix, SearchConfig, Wdl};

use crate::analysis::{ActionInfo, Analysis, RootInfo, SearchInfo};
use crate::error::BotError;
use crate::limits::Strength;
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
    /// The move's search: `nodes` and `time_ms` count the whole move (all
    /// its actions), `wdl` is the root value of its last action searched
    /// (the side to move stays the same within a move), and `pv` is `mv`
    /// then the line expected after it, in whole moves.
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

/// The leaf evaluator of a bundle player: the network, mixed with random
/// playouts ([`RolloutMix`]; weight 0, the default, is the network alone).
pub type NetPlayoutEvaluator<G> = RolloutMix<NetEvaluator<G>, SmallRng>;

/// Ply cap of the random playouts a bundle player mixes into its leaf
/// values ([`GameBot::set_rollout_mix`]) and of the knowledge-free `uct`
/// player's playouts.
pub const ROLLOUT_MAX_PLIES: u32 = 300;

/// The one search player: a leaf evaluator (a bundle's network by
/// default, random playouts for the knowledge-free `uct` player), PUCT
/// search without root noise under the play settings
/// ([`SearchConfig::for_play`]), a [`Strength`], and the current position.
/// Every command that plays a bundle plays this type: matches, ladders,
/// training evaluations and SPRT gates (through `arena`'s player trait),
/// `lokizero uci`, `lokizero analyse` and the web lab (through [`crate::Bot`]).
///
/// With tree reuse (on by default, [`GameBot::set_tree_reuse`]) the bot
/// keeps the subtree under its last move and, when the next position it
/// is asked about is that move's position or one opponent action past it,
/// searches on from there instead of from an empty tree, as AlphaZero
/// (Silver et al. 2017, "the subtree below this child is retained"),
/// Leela Chess Zero and KataGo do. A node budget then counts the kept
/// visits too (lc0's `go nodes`): fewer new evaluations for the same
/// root visits; a time budget searches on top of them.
pub struct GameBot<G: BotGame, E: Evaluator<G> = NetPlayoutEvaluator<G>> {
    evaluator: E,
    meta: Option<BundleMeta>,
    config: SearchConfig,
    strength: Strength,
    tree_reuse: bool,
    /// Pipelined search steps ([`GameBot::set_pipeline`]).
    pipeline: bool,
    game: G,
    rng: StdRng,
    /// The tree of this bot's last move (with tree reuse): its subtree
    /// after the move once [`GameBot::settle_tree`] played `kept_advance`
    /// in it.
    kept: Option<Mcts<G>>,
    /// The last actions of the last move, not yet played in `kept`: the
    /// subtree is cut out after the move is answered, off the clock.
    kept_advance: Vec<G::Action>,
    /// The actions of the last chosen move not yet handed out by
    /// [`GameBot::next_action`], and the position they start from.
    pending: Option<(G, Vec<G::Action>)>,
}

impl<G: BotGame> GameBot<G> {
    /// Load the bundle at `dir` onto `device` (all checks of
    /// [`model::load_bundle`]: variant, versions, shape, checksum).
    ///
    /// # Errors
    /// [`BotError::Bundle`] naming the problem.
    pub fn from_bundle(dir: &Path, device: &Device) -> Result<Self, BotError> {
        let (net, meta) = load_bundle::<G>(dir, device)?;
        Ok(Self::from_net(net, Some(meta), device))
    }

    /// A bot around an already loaded network (start position, full
    /// strength, [`SearchConfig::for_play`], no playouts mixed in, tree
    /// reuse on, seed 0, the network in the play default precision,
    /// [`Precision::default`]: int8 on a CPU with a fast int8 kernel,
    /// `fp32` elsewhere and off the CPU); `meta` is the bundle's when it
    /// came from one.
    pub fn from_net(net: Net, meta: Option<BundleMeta>, device: &Device) -> Self {
        let playouts = RolloutEvaluator::new(1, ROLLOUT_MAX_PLIES, SmallRng::seed_from_u64(0x5EED));
        let net_eval = NetEvaluator::new(net, device.clone()).with_precision(Precision::default());
        let evaluator = RolloutMix::new(net_eval, playouts, 0.0);
        let mut bot = Self::with_evaluator(evaluator, SearchConfig::for_play());
        bot.meta = meta;
        bot
    }

    /// Mix one random playout per leaf, of at most [`ROLLOUT_MAX_PLIES`]
    /// plies, into the network's leaf values with weight `lambda`
    /// ([`RolloutMix`], AlphaGo's mixed evaluation; 0 = the network
    /// alone); `seed` drives the playouts.
    ///
    /// # Errors
    /// [`BotError::Setting`] for `lambda` outside `[0, 1]`.
    pub fn set_rollout_mix(&mut self, lambda: f32, seed: u64) -> Result<(), BotError> {
        if !(0.0..=1.0).contains(&lambda) {
            return Err(BotError::Setting(format!(
                "rollout mix {lambda} is out of range (expected a weight in [0, 1])"
            )));
        }
        let playouts =
            RolloutEvaluator::new(1, ROLLOUT_MAX_PLIES, SmallRng::seed_from_u64(seed ^ 0x5EED));
        self.evaluator.set_mix(playouts, lambda);
        Ok(())
    }

    /// Run the network in `precision` ([`NetEvaluator::set_precision`]:
    /// int8 only on the CPU path of a CPU with AVX2 or VNNI, `fp32`
    /// otherwise; int8 is the default, [`Precision::default`]). Returns the
    /// precision in effect.
    pub fn set_precision(&mut self, precision: Precision) -> Precision {
        self.evaluator.inner_mut().set_precision(precision)
    }
}

impl<G: BotGame, E: Evaluator<G> + Send> GameBot<G, E> {
    /// A bot on any leaf evaluator with the search settings `config` (start
    /// position, full strength, tree reuse on, seed 0, no bundle): with a
    /// [`search::RolloutEvaluator`] it is the knowledge-free `uct` player.
    pub fn with_evaluator(evaluator: E, config: SearchConfig) -> Self {
        GameBot {
            evaluator,
            meta: None,
            config,
            strength: Strength::default(),
            tree_reuse: true,
            pipeline: false,
            game: G::start(),
            rng: StdRng::seed_from_u64(0),
            kept: None,
            kept_advance: Vec::new(),
            pending: None,
        }
    }

    /// The bundle's metadata (`None` for a bot not made from a bundle).
    pub fn meta(&self) -> Option<&BundleMeta> {
        self.meta.as_ref()
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

    /// Set the current position to `game`.
    pub fn set_game(&mut self, game: G) {
        self.game = game;
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

    /// The search settings.
    pub fn search_config(&self) -> &SearchConfig {
        &self.config
    }

    /// Replace the search settings (root noise is allowed but unusual for
    /// play); the kept tree, searched under the old ones, is dropped.
    ///
    /// # Errors
    /// [`BotError::Setting`] if `config` fails [`SearchConfig::validate`].
    pub fn set_search_config(&mut self, config: SearchConfig) -> Result<(), BotError> {
        config
            .validate()
            .map_err(|e| BotError::Setting(e.to_string()))?;
        if config != self.config {
            self.kept = None;
        }
        self.config = config;
        Ok(())
    }

    /// Keep the search tree from one move to the next (on by default;
    /// off searches every move from an empty tree, for measuring what
    /// reuse adds).
    pub fn set_tree_reuse(&mut self, on: bool) {
        self.tree_reuse = on;
        self.kept = None;
    }

    /// Search with two batches of leaves in flight, each evaluated whole
    /// on a thread of its own ([`search::Batch::run_pipelined`], with an
    /// [`Evaluator::fork`] of this bot's evaluator; off by default, and
    /// without effect for an evaluator that has no fork): for a bot that
    /// has a rayon pool of two or more threads to itself, as the UCI
    /// engine with `Threads` 2 or more and `analyse --threads`
    /// (`docs/benchmarks.md`, "Two threads"). On or off, a search does not
    /// depend on the pool it runs in: a match's games are the same at any
    /// `--concurrency`.
    pub fn set_pipeline(&mut self, on: bool) {
        self.pipeline = on;
    }

    /// Forget the kept tree and any half-handed-out move (a new game).
    pub fn new_game(&mut self) {
        self.kept = None;
        self.pending = None;
    }

    /// Reseed the random choices (temperature sampling).
    pub fn set_seed(&mut self, seed: u64) {
        self.rng = StdRng::seed_from_u64(seed);
    }

    /// Cut the kept tree down to the subtree after the last move (tree
    /// reuse): a copy of that subtree, which after a long search or a
    /// ponder can take a good part of a second, so a frontend calls it
    /// once the move is answered (the UCI engine after `bestmove`); the
    /// next search does it otherwise. Nothing to do without a kept tree.
    pub fn settle_tree(&mut self) {
        let path = std::mem::take(&mut self.kept_advance);
        if let Some(tree) = self.kept.as_mut() {
            if path.into_iter().any(|action| tree.advance(action).is_err()) {
                self.kept = None;
            }
        }
    }

    /// Bytes the nodes of the tree kept from the last search take
    /// ([`search::Mcts::memory_bytes`], what a
    /// [`search::Budget::tree_bytes`] bound is checked against); `None`
    /// without a kept tree (tree reuse off, or no search yet).
    pub fn kept_tree_bytes(&self) -> Option<u64> {
        self.kept.as_ref().map(Mcts::memory_bytes)
    }

    /// The tree to search `game` from: the kept subtree when `game` is its
    /// root or one action past it, an empty tree otherwise.
    fn tree_for(&mut self, game: &G) -> Mcts<G> {
        self.settle_tree();
        if let Some(mut tree) = self.kept.take() {
            if let Some(reply) = reply_to(tree.root_state(), game) {
                if reply.is_none_or(|a| tree.advance(a).is_ok()) {
                    return tree;
                }
            }
        }
        Mcts::new(game.clone(), &self.config)
    }

    /// The next action to play in `game` under `budget` (for players that
    /// are asked once per action, as a match's are): the first action of
    /// the move [`GameBot::choose_move`] would choose there, and then,
    /// while `game` is the position after the actions handed out so far,
    /// the rest of that move without a new search. `None` when `game` has
    /// no legal action.
    ///
    /// # Errors
    /// [`BotError::Setting`] when `budget` has no bound.
    pub fn next_action(
        &mut self,
        game: &G,
        budget: &Budget,
    ) -> Result<Option<G::Action>, BotError> {
        if let Some((at, mut rest)) = self.pending.take() {
            if !rest.is_empty() && same_position(&at, game) {
                let action = rest.remove(0);
                let mut next = at;
                next.play(action);
                self.pending = Some((next, rest));
                return Ok(Some(action));
            }
        }
        if game.outcome().is_some() || game.legal_vec().is_empty() {
            return Ok(None);
        }
        self.game = game.clone();
        let (actions, _) = self.search_move(budget, INFO_INTERVAL, &mut |_| {})?;
        let mut rest = actions;
        if rest.is_empty() {
            return Ok(None);
        }
        let first = rest.remove(0);
        let mut next = game.clone();
        next.play(first);
        self.pending = Some((next, rest));
        Ok(Some(first))
    }

    /// Search `tree` within `budget` ([`search::Batch::run`]: at least one
    /// root evaluation unless stopped first, no batch started that would
    /// overrun the time). Before each batch, once the root has a visit and
    /// `next_report` has come, calls `report` with the tree and moves
    /// `next_report` on by `interval`.
    fn run_search(
        &mut self,
        tree: &mut Mcts<G>,
        budget: &Budget,
        next_report: &mut Instant,
        interval: Duration,
        report: &mut dyn FnMut(&Mcts<G>),
    ) {
        let trees = std::slice::from_mut(tree);
        let mut batch = Batch::new(self.config.leaves_per_batch);
        let progress = |trees: &[Mcts<G>]| {
            let tree = &trees[0];
            if tree.visits() > 0 && Instant::now() >= *next_report {
                report(tree);
                *next_report += interval;
            }
            false
        };
        let helper = if self.pipeline {
            self.evaluator.fork()
        } else {
            None
        };
        let (evaluator, rng) = (&mut self.evaluator, &mut self.rng);
        match helper {
            Some(mut helper) => {
                batch.run_pipelined(trees, [evaluator, &mut helper], budget, rng, progress)
            }
            None => batch.run(trees, evaluator, budget, rng, progress),
        };
    }

    /// One evaluation of `game`: priors over `legal` and the WDL.
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
    /// not changed). The budget is the whole move's: a Loki move of
    /// several actions searches each action in turn, keeping the subtree,
    /// and every action's search stops at the move's bounds (see
    /// `action_budget`): the first action searches to the node budget in
    /// root visits (a kept subtree's visits count), the actions after it
    /// get what it left, and the first action gets 3/5 of the time, the
    /// actions after it the rest. A forced action (the only legal one)
    /// gets at most one more visit, and a position not yet evaluated (the
    /// root, or a subtree without visits) gets one evaluation even past
    /// the node budget, so `go nodes 1` may count 2 in Loki. The
    /// [`Strength`] node cap lowers the budget. `on_info` is called about
    /// every [`INFO_INTERVAL`] while searching, with the move's new nodes
    /// so far and a principal variation from the current position (the
    /// actions already chosen, then the search's line) in whole moves.
    ///
    /// # Errors
    /// [`BotError::GameOver`] when the game is over, [`BotError::Setting`]
    /// when `budget` gives no bound.
    pub fn choose_move(
        &mut self,
        budget: &Budget,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Result<MoveChoice, BotError> {
        self.choose_move_reporting(budget, INFO_INTERVAL, on_info)
    }

    /// [`GameBot::choose_move`] reporting every `interval` (zero: before
    /// every batch once the root has a visit).
    fn choose_move_reporting(
        &mut self,
        budget: &Budget,
        interval: Duration,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Result<MoveChoice, BotError> {
        if let Some(outcome) = self.game.outcome() {
            return Err(BotError::GameOver(describe_outcome(&outcome)));
        }
        let start = self.game.clone();
        let (actions, info) = self.search_move(budget, interval, on_info)?;
        let mut walk = start.clone();
        let texts = actions
            .iter()
            .map(|&a| {
                let text = walk.action_to_text(a);
                walk.play(a);
                text
            })
            .collect();
        Ok(MoveChoice {
            mv: start.move_text(&actions),
            actions: texts,
            info,
        })
    }

    /// The actions of the move chosen in the current position and its
    /// search report (see [`GameBot::choose_move`]); keeps the subtree
    /// after the move when tree reuse is on.
    fn search_move(
        &mut self,
        budget: &Budget,
        interval: Duration,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Result<(Vec<G::Action>, SearchInfo), BotError> {
        let started = Instant::now();
        let budget = budget.clone().capped(self.strength.max_nodes);
        if !budget.is_bounded() {
            return Err(BotError::Setting(
                "no search budget: give nodes, a time or a stop flag".into(),
            ));
        }
        self.pending = None;
        let start = self.game.clone();
        let side = start.side_to_move();
        let mut game = start.clone();
        let mut actions: Vec<G::Action> = Vec::new();
        // New nodes of the move so far (policy-only play reports them),
        // the part of the node budget used (the first action's root
        // visits, kept ones included, then the new nodes of the actions
        // after it: what a search reports as its nodes), and the latest
        // root value.
        let mut nodes = 0u32;
        let mut used = 0u32;
        let mut wdl: Option<Wdl> = None;
        let mut tree: Option<Mcts<G>> = None;
        // The actions of this turn chosen but not yet played in `tree`:
        // the last one searched, and those taken after it from the tree's
        // line when cutting the subtree out would eat the time left.
        let mut path: Vec<G::Action> = Vec::new();
        let mut next_report = started + interval;
        loop {
            let legal = game.legal_vec();
            if legal.is_empty() {
                break;
            }
            let action = if self.strength.policy_only {
                let (action, first_wdl) = self.policy_choice(&game, &legal);
                nodes = nodes.saturating_add(1);
                wdl.get_or_insert(first_wdl);
                action
            } else if let Some(next) = tree
                .as_ref()
                .filter(|_| !path.is_empty())
                .and_then(|t| t.principal_variation_after(&path, 1).first().copied())
            {
                path.push(next);
                next
            } else {
                if !path.is_empty() {
                    // Nothing searched below the path: a fresh tree.
                    if let Some(t) = tree.take() {
                        t.release();
                    }
                    path.clear();
                }
                let mut t = match tree.take() {
                    Some(t) => t,
                    None => self.tree_for(&game),
                };
                let before = t.visits();
                let first = actions.is_empty();
                let part = action_budget::<G>(&budget, started, before, used, legal.len(), first);
                // Reported nodes count as the budget does: the first
                // action's root visits (kept ones included), then the new
                // nodes of the actions after it.
                let counted = |t: &Mcts<G>| {
                    if first {
                        t.visits()
                    } else {
                        used.saturating_add(t.visits().saturating_sub(before))
                    }
                };
                self.run_search(&mut t, &part, &mut next_report, interval, &mut |t| {
                    on_info(&turn_info(&start, &actions, counted(t), t, started));
                });
                nodes = nodes.saturating_add(t.visits().saturating_sub(before));
                used = counted(&t);
                if t.visits() > 0 {
                    wdl = Some(t.root_wdl());
                }
                let action = t
                    .choose_action(self.strength.temperature, &mut self.rng)
                    .unwrap_or(legal[0]);
                tree = Some(t);
                path = vec![action];
                action
            };
            actions.push(action);
            game.play(action);
            if !game.mid_turn() || game.outcome().is_some() || game.side_to_move() != side {
                break;
            }
            // The turn goes on after a search: its next action searches
            // the subtree, cut out of the tree, unless the copy would eat
            // the move's time; then the turn's next actions are the tree's
            // line below the path.
            if let [action] = path[..] {
                let left = budget
                    .time
                    .map(|time| time.saturating_sub(clock_elapsed(&budget, started)));
                let dear = tree
                    .as_ref()
                    .is_some_and(|t| left.is_some_and(|left| reroot_estimate(t) > left / 4));
                if !dear {
                    path.clear();
                    if let Some(t) = tree.as_mut() {
                        if t.advance(action).is_err() {
                            tree = None;
                        }
                    }
                }
            }
        }
        // The move, then the line its search expects after it.
        let mut pv = vec![start.move_text(&actions)];
        if let Some(t) = &tree {
            let after = t.principal_variation_after(&path, MAX_PV.saturating_sub(actions.len()));
            pv.extend(moves_of_line(&game, &after));
        }
        (self.kept, self.kept_advance) = if self.tree_reuse {
            (tree, path)
        } else {
            (None, Vec::new())
        };
        let info = SearchInfo {
            nodes: if self.strength.policy_only {
                nodes
            } else {
                used
            },
            time_ms: started.elapsed().as_millis() as u64,
            wdl: wdl.unwrap_or(search::DRAW_WDL),
            pv,
        };
        Ok((actions, info))
    }

    /// Search the current position and report the `top` best root actions
    /// (0 = all) with visits, prior, Q, WDL and principal variation.
    /// Strength settings do not apply (analysis is always full search);
    /// a finished game gives no actions and the exact root WDL.
    ///
    /// # Errors
    /// [`BotError::Setting`] when `budget` gives no bound.
    pub fn analyse(&mut self, budget: &Budget, top: usize) -> Result<Analysis, BotError> {
        let started = Instant::now();
        if !budget.is_bounded() {
            return Err(BotError::Setting(
                "no search budget: give nodes, a time or a stop flag".into(),
            ));
        }
        let mut tree = Mcts::new(self.game.clone(), &self.config);
        if !tree.is_terminal() {
            let mut next_report = started + INFO_INTERVAL;
            self.run_search(
                &mut tree,
                budget,
                &mut next_report,
                INFO_INTERVAL,
                &mut |_| {},
            );
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
                ActionInfo {
                    action: self.game.action_to_text(c.action),
                    visits: c.visits,
                    prior: c.prior,
                    q: c.q,
                    wdl: c.wdl,
                    pv: moves_of_line(&self.game, &line),
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

/// Progress of a move being chosen from `start`, for reporting: `actions`
/// of the move are chosen, `nodes` were spent on it so far, and `tree` is
/// the search of the next action (rooted after `actions`). The principal
/// variation is `actions`, then the tree's line, in whole moves from
/// `start` (at most [`MAX_PV`] actions; a trailing incomplete move left
/// out); the WDL is the tree's root value.
fn turn_info<G: BotGame>(
    start: &G,
    actions: &[G::Action],
    nodes: u32,
    tree: &Mcts<G>,
    started: Instant,
) -> SearchInfo {
    let mut line = actions.to_vec();
    line.extend(tree.principal_variation(MAX_PV.saturating_sub(actions.len())));
    SearchInfo {
        nodes,
        time_ms: started.elapsed().as_millis() as u64,
        wdl: tree.root_wdl(),
        pv: moves_of_line(start, &line),
    }
}

/// The budget of one action's search within a move searched under
/// `budget` since `started`, from a tree with `visits` root visits, after
/// the move's earlier actions used `used` of the node budget:
/// - the first action searches to the node budget in root visits (the
///   visits a kept subtree brought count); an action after it gets what
///   the move's budget has left, on top of the visits its tree has;
/// - a forced action (the only legal one) gets at most one more visit,
///   unless its time is free (a ponder before its clock starts, a search
///   until `stop` alone);
/// - a tree without visits gets at least its root evaluation, past the
///   budget if need be, so that the action is chosen from the network's
///   priors (only the stop flag still ends the search before it);
/// - the time is what is left of the move's; the first action of a move
///   of several (Loki) gets 3/5 of it, leaving the rest for the actions
///   after it.
fn action_budget<G: BotGame>(
    budget: &Budget,
    started: Instant,
    visits: u32,
    used: u32,
    legal: usize,
    first: bool,
) -> Budget {
    let mut part = budget.clone();
    if let Some(n) = budget.nodes {
        part.nodes = Some(if first {
            n
        } else {
            visits.saturating_add(n.saturating_sub(used))
        });
    }
    // A forced action is played at once, unless the time is free: a
    // ponder whose clock has not started, or a search until `stop`; those
    // search on below it (the Stopper ends a forced move at once when a
    // clock runs).
    let pondering = budget
        .clock_start
        .as_deref()
        .is_some_and(|clock| clock.get().is_none());
    let free_time = pondering || (budget.nodes.is_none() && budget.time.is_none());
    if legal == 1 && !free_time {
        part.nodes = Some(part.node_target().min(visits.saturating_add(1)));
    }
    if let Some(n) = part.nodes {
        part.nodes = Some(n.max(1));
    }
    if let Some(time) = budget.time {
        let share = if G::MULTI_ACTION_MOVES && first {
            time * 3 / 5
        } else {
            time
        };
        // A pondering move's time counts from its clock start: in full
        // while that has not come (the action keeps waiting for it), and
        // once it has, what is left from there.
        if budget
            .clock_start
            .as_deref()
            .and_then(OnceLock::get)
            .is_some()
        {
            part.clock_start = None;
        }
        part.time = Some(share.saturating_sub(clock_elapsed(budget, started)));
    }
    part
}

/// The time a move searched under `budget` since `started` has used: from
/// `started`, or for a pondering move from its clock start (zero while
/// that has not come).
fn clock_elapsed(budget: &Budget, started: Instant) -> Duration {
    match budget.clock_start.as_deref().map(OnceLock::get) {
        None => started.elapsed(),
        Some(None) => Duration::ZERO,
        Some(Some(at)) => at.elapsed(),
    }
}

/// Bytes of tree a reroot copies per millisecond, about (a 250 MB Loki
/// tree took 250 ms on a 2-core EPYC): what [`reroot_estimate`] assumes.
const REROOT_BYTES_PER_MS: u64 = 1 << 20;

/// An upper estimate of what [`Mcts::advance`] takes on `tree` (it copies
/// the played action's subtree, at most the whole tree).
fn reroot_estimate<G: Game>(tree: &Mcts<G>) -> Duration {
    Duration::from_millis(tree.memory_bytes() / REROOT_BYTES_PER_MS)
}

/// Whether `a` and `b` are the same position: their ply, repetition hash
/// and text agree (how a player that is handed positions recognises the
/// game it is following).
pub fn same_position<G: Game>(a: &G, b: &G) -> bool {
    a.ply() == b.ply() && a.position_hash() == b.position_hash() && a.to_text() == b.to_text()
}

/// How `to` follows from `from`: `Some(None)` when it is the same
/// position, `Some(Some(a))` when it is `from` after the one legal action
/// `a`, `None` otherwise (an opponent's turn of several actions included:
/// the tree is then rebuilt).
fn reply_to<G: Game>(from: &G, to: &G) -> Option<Option<G::Action>> {
    if same_position(from, to) {
        return Some(None);
    }
    if from.ply() + 1 != to.ply() {
        return None;
    }
    from.legal_vec()
        .into_iter()
        .find(|&a| {
            let mut next = from.clone();
            next.play(a);
            same_position(&next, to)
        })
        .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rules::{Loki, Losers};
    use search::UniformEvaluator;

    /// Whether every token of `moves` is one whole move played in turn
    /// from `position` (a fragment such as `x:e6` leaves the turn open).
    fn whole_moves<G: BotGame>(position: &G, moves: &[String]) -> bool {
        let mut game = position.clone();
        moves.iter().all(|token| match game.parse_move(token) {
            Ok(actions) => {
                for action in actions {
                    game.play(action);
                }
                !game.mid_turn() || game.outcome().is_some()
            }
            Err(_) => false,
        })
    }

    /// Loki, attackers to move with one power use left, an Exchange: their
    /// Trickster a2 and soldier b1 are boxed in, and the defenders' only
    /// pieces that can be picked are the soldiers c9 and h9 (their king
    /// and Tricksters cannot be), so every move is an exchange of two
    /// actions: `x:c9a2`, `x:c9b1`, `x:h9a2`, `x:h9b1`.
    const TWO_TARGETS: &str = "11/11/2S4S3/11/11/5K5/11/11/T10/tT9/1sT8 a 1000/0000 -";
    /// As [`TWO_TARGETS`] with h9 the only target: the first action
    /// (`x:h9`) is forced, the second (`x>a2` or `x>b1`) is not.
    const ONE_TARGET: &str = "11/11/7S3/11/11/5K5/11/11/T10/tT9/1sT8 a 1000/0000 -";

    /// A Loki bot on a tiny untrained bundle, at `position`.
    fn loki_bot(position: &str) -> (tempfile::TempDir, GameBot<Loki>) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("loki");
        let device = Device::flex();
        crate::write_untrained_bundle(&dir, rules::VariantId::Loki, 1, 8, 16, &device).unwrap();
        let mut bot = GameBot::<Loki>::from_bundle(&dir, &device).unwrap();
        bot.set_position(Some(position), &[] as &[&str]).unwrap();
        (tmp, bot)
    }

    #[test]
    fn a_loki_move_spends_its_node_budget_once() {
        // In turn and pipelined alike.
        let cases = [(TWO_TARGETS, "x:"), (ONE_TARGET, "x:h9")];
        for ((position, first), pipeline) in cases.into_iter().flat_map(|c| [(c, false), (c, true)])
        {
            let (_tmp, mut bot) = loki_bot(position);
            bot.set_pipeline(pipeline);
            for nodes in [2, 10, 37, 100] {
                let choice = bot.choose_move(&Budget::nodes(nodes), &mut |_| {}).unwrap();
                assert_eq!(choice.info.nodes, nodes, "{position}: {choice:?}");
                assert_eq!(choice.actions.len(), 2, "{choice:?}");
                assert!(choice.mv.starts_with(first), "{choice:?}");
                assert_eq!(choice.info.pv[0], choice.mv);
                assert!(whole_moves(bot.game(), &choice.info.pv), "{choice:?}");
            }
            // The strength cap is a budget for the whole move as well.
            bot.set_strength(Strength {
                max_nodes: Some(12),
                ..Strength::default()
            })
            .unwrap();
            let choice = bot.choose_move(&Budget::nodes(500), &mut |_| {}).unwrap();
            assert_eq!(choice.info.nodes, 12, "{choice:?}");
        }
    }

    #[test]
    fn reports_during_a_loki_move_count_the_whole_move() {
        // In turn and pipelined alike.
        for pipeline in [false, true] {
            // The forced first action takes one node; the second action's
            // search then reports before each batch (interval 0).
            let (_tmp, mut bot) = loki_bot(ONE_TARGET);
            bot.set_pipeline(pipeline);
            let mut infos: Vec<SearchInfo> = Vec::new();
            let limits = Budget::nodes(40);
            let choice = bot
                .choose_move_reporting(&limits, Duration::ZERO, &mut |i| infos.push(i.clone()))
                .unwrap();
            assert_eq!(choice.info.nodes, 40);
            // The first report comes after the second action's root evaluation:
            // the first action's node and that one.
            assert_eq!(infos[0].nodes, 2, "{infos:?}");
            for pair in infos.windows(2) {
                assert!(pair[0].nodes <= pair[1].nodes, "{infos:?}");
            }
            assert!(infos.last().unwrap().nodes < 40, "{infos:?}");
            for info in &infos {
                assert!(whole_moves(bot.game(), &info.pv), "{info:?}");
                if let Some(first) = info.pv.first() {
                    assert!(first == "x:h9a2" || first == "x:h9b1", "{info:?}");
                }
            }
            assert!(infos.iter().any(|i| !i.pv.is_empty()), "{infos:?}");
        }
    }

    #[test]
    fn loki_analysis_lines_are_whole_moves() {
        let (_tmp, mut bot) = loki_bot(TWO_TARGETS);
        let analysis = bot.analyse(&Budget::nodes(50), 0).unwrap();
        let actions: Vec<&str> = analysis.actions.iter().map(|a| a.action.as_str()).collect();
        assert_eq!(actions.len(), 2);
        assert!(
            actions.contains(&"x:c9") && actions.contains(&"x:h9"),
            "{actions:?}"
        );
        assert!(analysis.actions[0].visits >= 2, "{analysis:?}");
        for a in &analysis.actions {
            assert!(whole_moves(bot.game(), &a.pv), "{a:?}");
            // Past one visit the second action has been searched.
            if a.visits >= 2 {
                let whole = [format!("{}a2", a.action), format!("{}b1", a.action)];
                assert!(whole.contains(&a.pv[0]), "{a:?}");
            }
        }
    }

    #[test]
    fn the_report_after_a_first_action_starts_with_the_move() {
        let start = Loki::start();
        let config = SearchConfig::for_play();
        let mut rng = StdRng::seed_from_u64(3);
        let tree = search::search(&start, &mut UniformEvaluator, &config, 400, &mut rng);
        // A searched first action of an exchange or a command.
        let child = tree
            .root_children()
            .into_iter()
            .filter(|c| c.visits > 1)
            .find(|c| {
                let mut g = start.clone();
                g.play(c.action);
                g.mid_turn()
            })
            .expect("a searched two-action move");
        let mut sub = tree.clone();
        sub.advance(child.action).unwrap();
        let info = turn_info(&start, &[child.action], 400, &sub, Instant::now());
        assert_eq!(info.nodes, 400);
        assert!(
            !info.pv.is_empty() && whole_moves(&start, &info.pv),
            "{info:?}"
        );
        assert!(info.pv[0].starts_with(&start.action_to_text(child.action)));
        let first = start.parse_move(&info.pv[0]).unwrap();
        assert_eq!(first[0], child.action);
        assert_eq!(first[1], sub.principal_variation(1)[0]);
    }

    #[test]
    fn action_budgets_share_the_move_budget() {
        let started = Instant::now();
        let budget = Budget {
            time: Some(Duration::from_millis(1000)),
            ..Budget::nodes(100)
        };
        let nodes = |visits, used, legal, first| {
            action_budget::<Loki>(&budget, started, visits, used, legal, first)
                .nodes
                .unwrap()
        };
        assert_eq!(nodes(0, 0, 30, true), 100);
        // A kept subtree's visits count toward the first action's budget.
        assert_eq!(nodes(60, 0, 30, true), 100);
        // After a first action that used 100, the next keeps its 7 visits.
        assert_eq!(nodes(7, 100, 30, false), 7);
        // After a forced first action (1 node), the next gets the 99 left.
        assert_eq!(nodes(0, 1, 1, true), 1);
        assert_eq!(nodes(3, 1, 30, false), 102);
        // A subtree without visits is evaluated once, past the budget.
        assert_eq!(nodes(0, 100, 30, false), 1);
        assert_eq!(nodes(5, 40, 1, false), 6);
        let time = |first| {
            action_budget::<Loki>(&budget, started, 0, 0, 30, first)
                .time
                .unwrap()
        };
        assert!(time(true) <= Duration::from_millis(600));
        assert!(time(true) > Duration::from_millis(300));
        assert!(time(false) > Duration::from_millis(600));
        let losers = action_budget::<Losers>(&budget, started, 0, 0, 20, true);
        assert!(losers.time.unwrap() > Duration::from_millis(600));
        let open = Budget::time(Duration::from_secs(1));
        let part = action_budget::<Loki>(&open, started, 4, 9, 30, false);
        assert_eq!(part.nodes, None);
        let forced = action_budget::<Loki>(&open, started, 4, 9, 1, false);
        assert_eq!(forced.nodes, Some(5));
    }

    /// Uniform priors and draw values, counting the positions evaluated.
    #[derive(Default)]
    struct Counting(usize);

    impl<G: Game> Evaluator<G> for Counting {
        fn evaluate(
            &mut self,
            positions: &[&G],
            legal: &[&[G::Action]],
            priors: &mut [f32],
            wdl: &mut [Wdl],
        ) {
            self.0 += positions.len();
            UniformEvaluator.evaluate(positions, legal, priors, wdl);
        }
    }

    #[test]
    fn a_kept_subtree_counts_toward_the_node_budget() {
        // Two successive moves of one bot at 400 root visits, the opponent
        // replying with its first legal action: with reuse the second
        // search starts from the reply's subtree and needs fewer new nodes.
        let run = |reuse: bool| {
            let mut bot = GameBot::<Losers, Counting>::with_evaluator(
                Counting::default(),
                SearchConfig::for_play(),
            );
            bot.set_tree_reuse(reuse);
            let mut game = Losers::start();
            let a = bot
                .next_action(&game, &Budget::nodes(400))
                .unwrap()
                .unwrap();
            game.play(a);
            game.play(game.legal_vec()[0]);
            bot.set_game(game.clone());
            let before = bot.evaluator.0;
            let second = bot.choose_move(&Budget::nodes(400), &mut |_| {}).unwrap();
            // The search reports the root visits the budget counts.
            assert_eq!(second.info.nodes, 400);
            bot.evaluator.0 - before
        };
        let (fresh, kept) = (run(false), run(true));
        assert!(fresh >= 300, "{fresh}");
        assert!(kept < fresh, "{kept} >= {fresh}");
    }

    #[test]
    fn next_action_hands_out_a_loki_move_action_by_action() {
        let (_tmp, mut bot) = loki_bot(TWO_TARGETS);
        let game = bot.game().clone();
        let first = bot.next_action(&game, &Budget::nodes(30)).unwrap().unwrap();
        let mut mid = game.clone();
        mid.play(first);
        assert!(mid.mid_turn());
        let second = bot.next_action(&mid, &Budget::nodes(30)).unwrap().unwrap();
        let mut after = mid.clone();
        after.play(second);
        assert!(!after.mid_turn());
        // An unrelated position gets a search of its own, never a stale action.
        let fresh = Loki::start();
        let action = bot.next_action(&fresh, &Budget::nodes(8)).unwrap().unwrap();
        assert!(fresh.legal_vec().contains(&action));
    }
}
