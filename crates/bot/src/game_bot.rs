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
    /// that would overrun the deadline). Before each batch, once the root
    /// has a visit and `next_report` has come, calls `report` with the tree
    /// and moves `next_report` on by `interval`.
    fn run_search(
        &mut self,
        tree: &mut Mcts<G>,
        limit: &SearchLimit,
        next_report: &mut Instant,
        interval: Duration,
        report: &mut dyn FnMut(&Mcts<G>),
    ) {
        let trees = std::slice::from_mut(tree);
        let mut batch = Batch::new(self.config.leaves_per_batch);
        let (evaluator, rng) = (&mut self.evaluator, &mut self.rng);
        batch.run(trees, evaluator, limit, rng, |trees| {
            let tree = &trees[0];
            if tree.visits() > 0 && Instant::now() >= *next_report {
                report(tree);
                *next_report += interval;
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
    /// not changed). The budget of `limits` is the whole move's: a Loki
    /// move of several actions searches each action in turn, keeping the
    /// subtree, and every action's search stops at the move's bounds (see
    /// `action_limit`): the node budget counts the nodes of all its
    /// actions (an action's search gets what the actions before it left,
    /// so after a first action that spent it all the next is chosen from
    /// the visits its subtree already has), and the first action gets 3/5
    /// of the time, the actions after it the rest. A forced action (the
    /// only legal one) gets at most one more visit, and a position not
    /// yet evaluated (the root, or a subtree without visits) gets one
    /// evaluation even past the node budget, so `go nodes 1` may count 2
    /// in Loki. `on_info` is called about every [`INFO_INTERVAL`] while
    /// searching, with the move's nodes so far and a principal variation
    /// from the current position (the actions already chosen, then the
    /// search's line) in whole moves.
    ///
    /// # Errors
    /// [`BotError::GameOver`] when the game is over, [`BotError::Setting`]
    /// when `limits` give no bound.
    pub fn choose_move(
        &mut self,
        limits: &Limits,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Result<MoveChoice, BotError> {
        self.choose_move_reporting(limits, INFO_INTERVAL, on_info)
    }

    /// [`GameBot::choose_move`] reporting every `interval` (zero: before
    /// every batch once the root has a visit).
    fn choose_move_reporting(
        &mut self,
        limits: &Limits,
        interval: Duration,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Result<MoveChoice, BotError> {
        if let Some(outcome) = self.game.outcome() {
            return Err(BotError::GameOver(describe_outcome(&outcome)));
        }
        let started = Instant::now();
        let limit = limits.search_limit(started, self.strength.max_nodes)?;
        let start = self.game.clone();
        let side = start.side_to_move();
        let mut game = start.clone();
        let mut actions: Vec<G::Action> = Vec::new();
        // Nodes spent by the move so far, and the latest root value.
        let mut nodes = 0u32;
        let mut wdl: Option<Wdl> = None;
        let mut tree: Option<Mcts<G>> = None;
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
            } else {
                let mut t = tree
                    .take()
                    .unwrap_or_else(|| Mcts::new(game.clone(), &self.config));
                let before = t.visits();
                let part = action_limit::<G>(
                    &limit,
                    started,
                    before,
                    nodes,
                    legal.len(),
                    actions.is_empty(),
                );
                let spent = nodes;
                self.run_search(&mut t, &part, &mut next_report, interval, &mut |t| {
                    let now = spent.saturating_add(t.visits().saturating_sub(before));
                    on_info(&turn_info(&start, &actions, now, t, started));
                });
                nodes = nodes.saturating_add(t.visits().saturating_sub(before));
                if t.visits() > 0 {
                    wdl = Some(t.root_wdl());
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
        let mv = start.move_text(&actions);
        // The move, then the line its search expects after it.
        let mut pv = vec![mv.clone()];
        if let Some(t) = &tree {
            let after = t.principal_variation(MAX_PV.saturating_sub(actions.len()));
            pv.extend(moves_of_line(&game, &after));
        }
        let info = SearchInfo {
            nodes,
            time_ms: started.elapsed().as_millis() as u64,
            wdl: wdl.unwrap_or(search::DRAW_WDL),
            pv,
        };
        let mut walk = start;
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
            let mut next_report = started + INFO_INTERVAL;
            self.run_search(
                &mut tree,
                &limit,
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

/// The limit of one action's search within a move searched under `limit`
/// since `started`, from a tree with `visits` root visits, after the
/// move's earlier actions spent `spent` nodes, with `legal` legal
/// actions:
/// - the node bound is what the move's budget has left, on top of the
///   visits the tree already has;
/// - a forced action (the only legal one) gets at most one more visit;
/// - a tree without visits gets at least its root evaluation, past the
///   budget if need be, so that the action is chosen from the network's
///   priors (only the stop flag still ends the search before it);
/// - the first action of a move of several (Loki) gets 3/5 of the time,
///   leaving the rest for the actions after it.
fn action_limit<G: BotGame>(
    limit: &SearchLimit,
    started: Instant,
    visits: u32,
    spent: u32,
    legal: usize,
    first: bool,
) -> SearchLimit {
    let mut part = limit.clone();
    if limit.nodes != SearchLimit::NO_NODE_LIMIT {
        part.nodes = visits.saturating_add(limit.nodes.saturating_sub(spent));
    }
    if legal == 1 {
        part.nodes = part.nodes.min(visits.saturating_add(1));
    }
    part.nodes = part.nodes.max(1);
    if G::MULTI_ACTION_MOVES && first {
        part.deadline = limit.deadline.map(|d| started + (d - started) * 3 / 5);
    }
    part
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
        for (position, first) in [(TWO_TARGETS, "x:"), (ONE_TARGET, "x:h9")] {
            let (_tmp, mut bot) = loki_bot(position);
            for nodes in [2, 10, 37, 100] {
                let choice = bot.choose_move(&Limits::nodes(nodes), &mut |_| {}).unwrap();
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
            let choice = bot.choose_move(&Limits::nodes(500), &mut |_| {}).unwrap();
            assert_eq!(choice.info.nodes, 12, "{choice:?}");
        }
    }

    #[test]
    fn reports_during_a_loki_move_count_the_whole_move() {
        // The forced first action takes one node; the second action's
        // search then reports before each batch (interval 0).
        let (_tmp, mut bot) = loki_bot(ONE_TARGET);
        let mut infos: Vec<SearchInfo> = Vec::new();
        let limits = Limits::nodes(40);
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

    #[test]
    fn loki_analysis_lines_are_whole_moves() {
        let (_tmp, mut bot) = loki_bot(TWO_TARGETS);
        let analysis = bot.analyse(&Limits::nodes(50), 0).unwrap();
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
    fn action_limits_share_the_move_budget() {
        let started = Instant::now();
        let limit = SearchLimit {
            deadline: Some(started + Duration::from_millis(1000)),
            ..SearchLimit::nodes(100)
        };
        let nodes = |visits, spent, legal, first| {
            action_limit::<Loki>(&limit, started, visits, spent, legal, first).nodes
        };
        assert_eq!(nodes(0, 0, 30, true), 100);
        // After a first action that spent 100, the next keeps its 7 visits.
        assert_eq!(nodes(7, 100, 30, false), 7);
        // After a forced first action (1 node), the next gets the 99 left.
        assert_eq!(nodes(0, 1, 1, true), 1);
        assert_eq!(nodes(3, 1, 30, false), 102);
        // A subtree without visits is evaluated once, past the budget.
        assert_eq!(nodes(0, 100, 30, false), 1);
        assert_eq!(nodes(5, 40, 1, false), 6);
        let deadline = |first| {
            action_limit::<Loki>(&limit, started, 0, 0, 30, first)
                .deadline
                .unwrap()
        };
        assert_eq!(deadline(true), started + Duration::from_millis(600));
        assert_eq!(deadline(false), started + Duration::from_millis(1000));
        let losers = action_limit::<Losers>(&limit, started, 0, 0, 20, true);
        assert_eq!(losers.deadline, limit.deadline);
        let open = SearchLimit::time(Duration::from_secs(1));
        let part = action_limit::<Loki>(&open, started, 4, 9, 30, false);
        assert_eq!(part.nodes, SearchLimit::NO_NODE_LIMIT);
        let forced = action_limit::<Loki>(&open, started, 4, 9, 1, false);
        assert_eq!(forced.nodes, 5);
    }
}
