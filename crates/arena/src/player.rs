//! Players behind one interface, the [`Contestant`] trait: anything that
//! picks an action for the side to move.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules::Game;
use search::{Batch, Evaluator, Mcts, SearchConfig, SearchLimit};

/// A contestant of a game or match (a player in the everyday sense, which
/// is what the implementors' names say: [`RandomPlayer`], [`MctsPlayer`],
/// `GreedyPlayer`, `UciPlayer`): picks an action for the side to move of a
/// non-terminal position. Called once per action (also mid-turn for
/// variants that split turns). Not to be confused with [`rules::Player`],
/// a side of the board (first or second).
pub trait Contestant<G: Game>: Send {
    /// Display name (used in results and game records).
    fn name(&self) -> String;
    /// Choose a legal action; `None` only if there is none.
    fn choose(&mut self, game: &G) -> Option<G::Action>;
    /// Called when a new game starts (clear per-game state).
    fn new_game(&mut self) {}
    /// Why the last [`Contestant::choose`] returned `None` although legal
    /// actions existed (an engine that crashed, hung or sent garbage).
    /// The game is then scored as a loss for this player (a forfeit).
    fn take_error(&mut self) -> Option<String> {
        None
    }
}

/// How much a search player may think per action, as a player spec
/// states it (`uct:800`, `bundle:PATH:250ms`); each action's
/// [`SearchLimit`] comes from it ([`Budget::limit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// This many simulations (root visits) per action.
    Nodes(u32),
    /// This much wall time per action, under the search's time policy
    /// ([`search::Stopper`]: the root is always evaluated, and no batch of
    /// leaves is started that would end past the time).
    Time(std::time::Duration),
}

impl Budget {
    /// The limit of one action's search, starting now.
    pub fn limit(self) -> SearchLimit {
        match self {
            Budget::Nodes(n) => SearchLimit::nodes(n),
            Budget::Time(t) => SearchLimit::time(t),
        }
    }
}

/// Uniformly random legal actions.
pub struct RandomPlayer {
    rng: SmallRng,
}

impl RandomPlayer {
    /// A random player with its own seed.
    pub fn new(seed: u64) -> Self {
        RandomPlayer {
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

impl<G: Game> Contestant<G> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, game: &G) -> Option<G::Action> {
        let legal = game.legal_vec();
        (!legal.is_empty()).then(|| legal[self.rng.random_range(0..legal.len())])
    }
}

/// MCTS with a node or time budget per action and any evaluator
/// (a network, uniform priors, or random rollouts for pure UCT). Plays the
/// most visited action (no noise, temperature 0) — deterministic for a
/// deterministic evaluator.
///
/// With tree reuse (the default, [`MctsPlayer::with_tree_reuse`]) the
/// player keeps the subtree of its move and, when the opponent's reply is
/// one action it finds under it, searches on from that subtree instead of
/// an empty tree, as AlphaZero (Silver et al. 2017, "the subtree below
/// this child is retained"), Leela Chess Zero and KataGo do. A node budget
/// then counts the kept visits too ([`SearchLimit::nodes`], lc0's
/// `go nodes`): fewer new evaluations for the same root visits; a time
/// budget searches on top of them.
pub struct MctsPlayer<G: Game, E: Evaluator<G>> {
    name: String,
    evaluator: E,
    config: SearchConfig,
    budget: Budget,
    rng: SmallRng,
    tree_reuse: bool,
    /// The subtree under this player's last action (with tree reuse).
    tree: Option<Mcts<G>>,
}

impl<G: Game, E: Evaluator<G> + Send> MctsPlayer<G, E> {
    /// A search player with `simulations` per action. `config`'s root
    /// noise is switched off.
    pub fn new(
        name: impl Into<String>,
        evaluator: E,
        config: &SearchConfig,
        simulations: u32,
        seed: u64,
    ) -> Self {
        Self::with_budget(name, evaluator, config, Budget::Nodes(simulations), seed)
    }

    /// A search player with any [`Budget`]. `config`'s root noise is
    /// switched off.
    pub fn with_budget(
        name: impl Into<String>,
        evaluator: E,
        config: &SearchConfig,
        budget: Budget,
        seed: u64,
    ) -> Self {
        let budget = match budget {
            Budget::Nodes(n) => Budget::Nodes(n.max(1)),
            t => t,
        };
        let mut config = config.clone();
        config.dirichlet_epsilon = 0.0;
        MctsPlayer {
            name: name.into(),
            evaluator,
            config,
            budget,
            rng: SmallRng::seed_from_u64(seed),
            tree_reuse: true,
            tree: None,
        }
    }

    /// The same player with tree reuse on or off (on by default; off
    /// searches every action from an empty tree, for measuring what reuse
    /// adds).
    pub fn with_tree_reuse(mut self, on: bool) -> Self {
        self.tree_reuse = on;
        self.tree = None;
        self
    }

    /// The tree to search `game` from: the kept subtree when `game` is its
    /// root or one action past it, an empty tree otherwise.
    fn tree_for(&mut self, game: &G) -> Mcts<G> {
        if let Some(mut tree) = self.tree.take() {
            if let Some(reply) = reply_to(tree.root_state(), game) {
                if reply.is_none_or(|a| tree.advance(a).is_ok()) {
                    return tree;
                }
            }
        }
        Mcts::new(game.clone(), &self.config)
    }

    /// Keep `tree` after playing `action` at its root (with tree reuse).
    fn keep(&mut self, mut tree: Mcts<G>, action: G::Action) {
        if self.tree_reuse && tree.advance(action).is_ok() {
            self.tree = Some(tree);
        }
    }
}

/// How `to` follows from `from`: `Some(None)` when it is the same
/// position, `Some(Some(a))` when it is `from` after the one legal action
/// `a`, `None` otherwise (an opponent's turn of several actions included:
/// the tree is then rebuilt). Positions are the same when their ply,
/// repetition hash and text agree.
fn reply_to<G: Game>(from: &G, to: &G) -> Option<Option<G::Action>> {
    let same = |a: &G| {
        a.ply() == to.ply()
            && a.position_hash() == to.position_hash()
            && a.to_text() == to.to_text()
    };
    if same(from) {
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
            same(&next)
        })
        .map(Some)
}

impl<G: Game, E: Evaluator<G> + Send> Contestant<G> for MctsPlayer<G, E> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, game: &G) -> Option<G::Action> {
        let legal = game.legal_vec();
        let action = match legal.len() {
            0 => return None,
            1 => legal[0],
            _ => {
                let limit = self.budget.limit();
                let mut trees = [self.tree_for(game)];
                let mut batch = Batch::new(self.config.leaves_per_batch);
                let (evaluator, rng) = (&mut self.evaluator, &mut self.rng);
                batch.run(&mut trees, evaluator, &limit, rng, |_| false);
                let [tree] = trees;
                let action = tree.choose_action(0.0, &mut self.rng)?;
                self.keep(tree, action);
                return Some(action);
            }
        };
        // A forced action is played without a search; a kept tree follows it.
        if self.tree.is_some() {
            let tree = self.tree_for(game);
            self.keep(tree, action);
        }
        Some(action)
    }

    fn new_game(&mut self) {
        self.tree = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Losers;
    use search::{UniformEvaluator, Wdl};

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

    /// Network evaluations of two successive actions of one player at
    /// 400 root visits, the opponent replying with the first legal action.
    fn evaluations(tree_reuse: bool) -> (usize, usize) {
        let mut player =
            MctsPlayer::new("p", Counting::default(), &SearchConfig::for_play(), 400, 7)
                .with_tree_reuse(tree_reuse);
        let mut game = Losers::start();
        game.play(player.choose(&game).unwrap());
        let first = player.evaluator.0;
        game.play(game.legal_vec()[0]);
        game.play(player.choose(&game).unwrap());
        (first, player.evaluator.0 - first)
    }

    #[test]
    fn a_kept_subtree_counts_toward_the_node_budget() {
        let (first, second) = evaluations(false);
        assert!(first > 300 && second > 300, "{first} {second}");
        let (first_kept, second_kept) = evaluations(true);
        // The first search is the same; the second starts from the visits
        // the reply's subtree kept, so it needs fewer evaluations.
        assert_eq!(first_kept, first);
        assert!(second_kept < second, "{second_kept} >= {second}");
        // The kept tree follows the game: its root is the position searched.
        let mut player =
            MctsPlayer::new("p", Counting::default(), &SearchConfig::for_play(), 50, 7);
        let mut game = Losers::start();
        let action = player.choose(&game).unwrap();
        game.play(action);
        let reply = game.legal_vec()[3];
        game.play(reply);
        let tree = player.tree_for(&game);
        assert_eq!(tree.root_state().to_text(), game.to_text());
    }

    #[test]
    fn an_unrelated_position_or_a_new_game_gets_a_fresh_tree() {
        let mut player =
            MctsPlayer::new("p", Counting::default(), &SearchConfig::for_play(), 50, 7);
        let game = Losers::start();
        player.choose(&game).unwrap();
        // Two plies past the kept root: not one reply away, so no reuse.
        let mut far = game.clone();
        for _ in 0..3 {
            far.play(far.legal_vec()[0]);
        }
        assert_eq!(player.tree_for(&far).visits(), 0);
        player.choose(&game).unwrap();
        player.new_game();
        assert!(player.tree.is_none());
    }
}
