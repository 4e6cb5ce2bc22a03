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
pub struct MctsPlayer<G: Game, E: Evaluator<G>> {
    name: String,
    evaluator: E,
    config: SearchConfig,
    budget: Budget,
    rng: SmallRng,
    _game: std::marker::PhantomData<fn() -> G>,
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
            _game: std::marker::PhantomData,
        }
    }
}

impl<G: Game, E: Evaluator<G> + Send> Contestant<G> for MctsPlayer<G, E> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, game: &G) -> Option<G::Action> {
        let legal = game.legal_vec();
        match legal.len() {
            0 => None,
            1 => Some(legal[0]),
            _ => {
                let limit = self.budget.limit();
                let mut trees = [Mcts::new(game.clone(), &self.config)];
                let mut batch = Batch::new(self.config.leaves_per_batch);
                let (evaluator, rng) = (&mut self.evaluator, &mut self.rng);
                batch.run(&mut trees, evaluator, &limit, rng, |_| false);
                trees[0].choose_action(0.0, &mut self.rng)
            }
        }
    }
}
