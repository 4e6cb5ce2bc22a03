//! Playing one game between two players.

use rules::{Game, Outcome, Player as Side};

use std::time::Instant;

use crate::clock::{GameClock, TimeControl};
use crate::opening::Opening;
use crate::player::Contestant;

/// How a game ended.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameResult {
    /// Winner by side (`None` = draw).
    pub winner: Option<Side>,
    /// The rules' outcome, or `None` when adjudicated by the ply cap.
    pub outcome: Option<Outcome>,
    /// Action texts played, in order.
    pub actions: Vec<String>,
    /// Position text of the start position.
    pub start: String,
    /// Set when a player failed to move (crashed or hung engine, garbage or
    /// an illegal move): the game is lost by that side; the text says why.
    pub forfeit: Option<Forfeit>,
}

/// A game lost by a player that failed to produce a legal action.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Forfeit {
    /// The side that failed.
    pub side: Side,
    /// Player name and reason.
    pub reason: String,
}

/// Play from `opening.position` to the end (or `ply_cap` actions: a draw by adjudication)
/// with `first` moving for [`Side::First`] and `second` for
/// [`Side::Second`]. A player that returns no action although legal ones
/// exist, or an illegal one, forfeits: the game is scored as its loss and
/// [`GameResult::forfeit`] says why. With a `time_control` each side has a
/// clock: a player is told both clocks before it moves
/// ([`Contestant::set_clock`]), its wall time is taken off its clock, the
/// increment added when its turn ends, and a player whose clock runs out
/// loses on time (a forfeit).
pub fn play_game<G: Game>(
    opening: &Opening<G>,
    first: &mut dyn Contestant<G>,
    second: &mut dyn Contestant<G>,
    ply_cap: u32,
    time_control: Option<TimeControl>,
) -> GameResult {
    let start = &opening.position;
    let mut game = start.clone();
    first.new_game(opening);
    second.new_game(opening);
    let mut actions = Vec::new();
    let mut forfeit = None;
    let mut remaining = time_control.map(|tc| [tc.base; 2]);
    while game.outcome().is_none() && (actions.len() as u32) < ply_cap {
        let side = game.side_to_move();
        let player: &mut dyn Contestant<G> = match side {
            Side::First => &mut *first,
            Side::Second => &mut *second,
        };
        let legal = game.legal_vec();
        if legal.is_empty() {
            break;
        }
        if let (Some(tc), Some(left)) = (time_control, remaining) {
            player.set_clock(&GameClock {
                remaining: left,
                increment: tc.increment,
                to_move: side,
            });
        }
        let thinking = Instant::now();
        let chosen = player.choose(&game);
        if let (Some(tc), Some(left)) = (time_control, remaining.as_mut()) {
            let clock = &mut left[side.index()];
            let took = thinking.elapsed();
            if took > *clock {
                forfeit = Some(Forfeit {
                    side,
                    reason: format!(
                        "{}: lost on time ({:.3} s for a move with {:.3} s left)",
                        player.name(),
                        took.as_secs_f64(),
                        clock.as_secs_f64()
                    ),
                });
                break;
            }
            *clock -= took;
            if let Some(action) = chosen.filter(|a| legal.contains(a)) {
                let mut after = game.clone();
                after.play(action);
                if after.side_to_move() != side {
                    *clock += tc.increment;
                }
            }
        }
        let reason = match chosen {
            Some(action) if legal.contains(&action) => {
                actions.push(game.action_to_text(action));
                game.play(action);
                continue;
            }
            Some(action) => format!("illegal action {:?}", action),
            None => player
                .take_error()
                .unwrap_or_else(|| "returned no action".to_string()),
        };
        forfeit = Some(Forfeit {
            side,
            reason: format!("{}: {reason}", player.name()),
        });
        break;
    }
    let outcome = game.outcome();
    let winner = match &forfeit {
        Some(f) => Some(f.side.opponent()),
        None => outcome.and_then(|o| o.winner),
    };
    GameResult {
        winner,
        outcome: if forfeit.is_some() { None } else { outcome },
        actions,
        start: start.to_text(),
        forfeit,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rules::Losers;

    use super::*;
    use crate::player::RandomPlayer;

    /// Random moves after `delay` of thought, remembering the clocks told.
    struct Slow {
        delay: Duration,
        random: RandomPlayer,
        told: Vec<GameClock>,
    }

    impl Contestant<Losers> for Slow {
        fn name(&self) -> String {
            "slow".into()
        }
        fn choose(&mut self, game: &Losers) -> Option<rules::chess::Move> {
            std::thread::sleep(self.delay);
            self.random.choose(game)
        }
        fn set_clock(&mut self, clock: &GameClock) {
            self.told.push(*clock);
        }
    }

    fn slow(ms: u64) -> Slow {
        Slow {
            delay: Duration::from_millis(ms),
            random: RandomPlayer::new(ms),
            told: Vec::new(),
        }
    }

    #[test]
    fn a_player_whose_clock_runs_out_loses_on_time() {
        let tc = TimeControl {
            base: Duration::from_millis(200),
            increment: Duration::from_millis(10),
        };
        let (mut fast, mut sluggish) = (slow(0), slow(60));
        let opening = Opening::at(Losers::start());
        let result = play_game(&opening, &mut fast, &mut sluggish, 300, Some(tc));
        let forfeit = result.forfeit.expect("the slow side flags");
        assert_eq!(forfeit.side, Side::Second);
        assert!(
            forfeit.reason.contains("lost on time"),
            "{}",
            forfeit.reason
        );
        assert_eq!(result.winner, Some(Side::First));
        // Each clock was told before each move; the slow side's went down
        // by about 50 ms a move (60 ms thought, 10 ms increment).
        assert!(sluggish.told.len() >= 3, "{}", sluggish.told.len());
        let left = |c: &GameClock| c.remaining[Side::Second.index()];
        assert!(sluggish.told.windows(2).all(|w| left(&w[1]) < left(&w[0])));
        assert!(sluggish.told.iter().all(|c| c.to_move == Side::Second));
        assert!(fast.told.iter().all(|c| c.to_move == Side::First));
        // Without a time control nobody is told a clock and nobody flags.
        let (mut a, mut b) = (slow(0), slow(1));
        let result = play_game(&opening, &mut a, &mut b, 6, None);
        assert!(result.forfeit.is_none() && a.told.is_empty() && b.told.is_empty());
    }
}
