//! Playing one game between two players.

use rules::{Game, Outcome, Player as Side};

use crate::player::Contestant;

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
pub struct Forfeit {
    /// The side that failed.
    pub side: Side,
    /// Player name and reason.
    pub reason: String,
}

/// Play `start` to the end (or `ply_cap` actions: a draw by adjudication)
/// with `first` moving for [`Side::First`] and `second` for
/// [`Side::Second`]. A player that returns no action although legal ones
/// exist, or an illegal one, forfeits: the game is scored as its loss and
/// [`GameResult::forfeit`] says why.
pub fn play_game<G: Game>(
    start: &G,
    first: &mut dyn Contestant<G>,
    second: &mut dyn Contestant<G>,
    ply_cap: u32,
) -> GameResult {
    let mut game = start.clone();
    first.new_game();
    second.new_game();
    let mut actions = Vec::new();
    let mut forfeit = None;
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
        let reason = match player.choose(&game) {
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
