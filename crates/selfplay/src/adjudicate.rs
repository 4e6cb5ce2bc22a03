//! Results of self-play games the rules leave open at the ply cap:
//! material adjudication and the configured winner of a stalled game.
//! Only self-play records use them; matches and the rules never do.

use rules::{Game, Outcome, Player};

use crate::config::SelfPlayConfig;
use crate::record::stored_result;

/// The winner of a ply-capped game by [`SelfPlayConfig::adjudicate_material`]
/// (`margin` 0 or no material measure: none, a draw).
pub fn adjudicate<G: Game>(game: &G, margin: f32) -> Option<Player> {
    let balance = game.material().filter(|_| margin > 0.0)?;
    if balance >= margin {
        Some(Player::First)
    } else if balance <= -margin {
        Some(Player::Second)
    } else {
        None
    }
}

/// The recorded result of a game that just ended by its `outcome` or by
/// reaching the ply cap (`outcome` `None`): `(winner, ply_capped)`. A
/// ply-capped game is adjudicated on material, else scored as
/// [`SelfPlayConfig::ply_cap_winner`] says.
pub(crate) fn final_result<G: Game>(
    game: &G,
    outcome: Option<Outcome>,
    config: &SelfPlayConfig,
) -> (Option<Player>, bool) {
    let (winner, ply_capped) = stored_result(outcome);
    if !ply_capped {
        return (winner, false);
    }
    let adjudicated = adjudicate(game, config.adjudicate_material);
    (adjudicated.or(config.ply_cap_winner.player()), true)
}
