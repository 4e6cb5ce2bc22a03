//! Players behind one interface, the [`Contestant`] trait: anything that
//! picks an action for the side to move.

use bot::{BotGame, GameBot};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules::Game;
use search::{Budget, Evaluator};

use crate::clock::GameClock;
use crate::opening::Opening;

/// A contestant of a game or match (a player in the everyday sense, which
/// is what the implementors' names say: [`RandomPlayer`], [`SearchPlayer`],
/// `GreedyPlayer`, `UciPlayer`): picks an action for the side to move of a
/// non-terminal position. Called once per action (also mid-turn for
/// variants that split turns). Not to be confused with [`rules::Player`],
/// a side of the board (first or second).
pub trait Contestant<G: Game>: Send {
    /// Display name (used in results and game records).
    fn name(&self) -> String;
    /// Choose a legal action; `None` only if there is none.
    fn choose(&mut self, game: &G) -> Option<G::Action>;
    /// Called when a new game starts (clear per-game state); `opening` is
    /// where it starts and the line that led there.
    fn new_game(&mut self, opening: &Opening<G>) {
        let _ = opening;
    }
    /// The clocks of a game at a time control, told before each
    /// [`Contestant::choose`]; a player with a budget of its own thinks by
    /// the clock instead from then on. Ignored by players without a clock
    /// (random, greedy).
    fn set_clock(&mut self, clock: &GameClock) {
        let _ = clock;
    }
    /// Why the last [`Contestant::choose`] returned `None` although legal
    /// actions existed (an engine that crashed, hung or sent garbage).
    /// The game is then scored as a loss for this player (a forfeit).
    fn take_error(&mut self) -> Option<String> {
        None
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

/// A search player of a match: the one search player, [`bot::GameBot`]
/// (a bundle's network for `bundle:` specs, random playouts for `uct:`),
/// with a display name and a [`Budget`] per move. It plays the most
/// visited action (no root noise, temperature 0 unless the bot's
/// [`bot::Strength`] says otherwise), keeps its tree across moves (the
/// bot's tree reuse), and hands out a move of several actions (a Loki
/// exchange or command) action by action after one search
/// ([`GameBot::next_action`]).
pub struct SearchPlayer<G: BotGame, E: Evaluator<G>> {
    name: String,
    bot: GameBot<G, E>,
    budget: Budget,
    /// The clocks at a time control ([`Contestant::set_clock`]).
    clock: Option<GameClock>,
    /// At a time control, think past the clock's share of a move while the
    /// root is unclear (up to [`bot::Clock::extended`]).
    extend: bool,
    error: Option<String>,
}

/// Time a search player keeps in reserve on its clock for the work around
/// a search (the match runner's bookkeeping, a UCI GUI's delay).
pub const MOVE_OVERHEAD: std::time::Duration = std::time::Duration::from_millis(30);

impl<G: BotGame, E: Evaluator<G> + Send> SearchPlayer<G, E> {
    /// `bot` under `name`, thinking `budget` per move.
    pub fn new(name: impl Into<String>, bot: GameBot<G, E>, budget: Budget) -> Self {
        SearchPlayer {
            name: name.into(),
            bot,
            budget,
            clock: None,
            extend: true,
            error: None,
        }
    }

    /// The same player, thinking longer on unclear roots at a time control
    /// (`extend`, the default) or never past the clock's share of a move.
    pub fn extending(mut self, extend: bool) -> Self {
        self.extend = extend;
        self
    }

    /// The bot.
    pub fn bot(&self) -> &GameBot<G, E> {
        &self.bot
    }
}

impl<G: BotGame, E: Evaluator<G> + Send> Contestant<G> for SearchPlayer<G, E> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, game: &G) -> Option<G::Action> {
        let budget = match &self.clock {
            Some(clock) => {
                let own = clock.own();
                let budget = Budget {
                    full_time: self.budget.full_time,
                    ..Budget::time(own.budget(MOVE_OVERHEAD))
                };
                if self.extend {
                    budget.extended_to(own.extended(MOVE_OVERHEAD))
                } else {
                    budget
                }
            }
            None => self.budget.clone(),
        };
        match self.bot.next_action(game, &budget) {
            Ok(action) => action,
            Err(e) => {
                self.error = Some(e.to_string());
                None
            }
        }
    }
    fn set_clock(&mut self, clock: &GameClock) {
        self.clock = Some(*clock);
    }
    fn new_game(&mut self, _opening: &Opening<G>) {
        self.clock = None;
        self.bot.new_game();
    }
    fn take_error(&mut self) -> Option<String> {
        self.error.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Losers;
    use search::{SearchConfig, UniformEvaluator};

    #[test]
    fn a_search_player_plays_legal_actions_and_reports_no_error() {
        let bot = GameBot::<Losers, UniformEvaluator>::with_evaluator(
            UniformEvaluator,
            SearchConfig::for_play(),
        );
        let mut player = SearchPlayer::new("p", bot, Budget::nodes(20));
        let mut game = Losers::start();
        for _ in 0..6 {
            let action = player.choose(&game).unwrap();
            assert!(game.legal_vec().contains(&action));
            game.play(action);
        }
        assert!(player.take_error().is_none());
        // A budget without a bound is a forfeit with a reason, not a hang.
        let bot = GameBot::<Losers, UniformEvaluator>::with_evaluator(
            UniformEvaluator,
            SearchConfig::for_play(),
        );
        let mut unbounded = SearchPlayer::new("u", bot, Budget::default());
        assert!(unbounded.choose(&Losers::start()).is_none());
        assert!(unbounded.take_error().unwrap().contains("no search budget"));
    }
}
