//! Playing one game between two players.

use rules::{Game, Outcome, Player as Side};

use crate::player::Player;

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    /// Winner by side (`None` = draw).
    pub winner: Option<Side>,
    /// The rules' outcome, or `None` when adjudicated by the ply cap.
    pub outcome: Option<Outcome>,
    /// Action texts played, in order.
    pub actions: Vec<String>,
}

/// Play `start` to the end (or `ply_cap` actions: a draw by adjudication)
/// with `first` moving for [`Side::First`] and `second` for
/// [`Side::Second`].
pub fn play_game<G: Game>(
    start: &G,
    first: &mut dyn Player<G>,
    second: &mut dyn Player<G>,
    ply_cap: u32,
) -> GameResult {
    let mut game = start.clone();
    first.new_game();
    second.new_game();
    let mut actions = Vec::new();
    while game.outcome().is_none() && (actions.len() as u32) < ply_cap {
        let player: &mut dyn Player<G> = match game.side_to_move() {
            Side::First => first,
            Side::Second => second,
        };
        let Some(action) = player.choose(&game) else {
            break;
        };
        actions.push(game.action_to_text(action));
        game.play(action);
    }
    let outcome = game.outcome();
    GameResult {
        winner: outcome.and_then(|o| o.winner),
        outcome,
        actions,
    }
}
