//! Results of self-play games the rules leave open at the ply cap:
//! material adjudication and the configured winner of a stalled game.
//! Only self-play records use them; matches and the rules never do.

use rules::{Game, Outcome, Player};
use serde::{Deserialize, Serialize};

use crate::config::SelfPlayConfig;
use crate::record::stored_result;

/// [`SelfPlayConfig::ply_cap_winner`]: the recorded result of a ply-capped
/// game that material did not decide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum PlyCapWinner {
    /// A draw, as the rules say (the default).
    #[default]
    Draw,
    /// A win for the player who moves first.
    First,
    /// A win for the player who moves second.
    Second,
}

impl TryFrom<String> for PlyCapWinner {
    type Error = String;

    /// `"draw"`, `"first"` or `"second"`; anything else names the choices
    /// (so does a value that is not a string, through serde).
    fn try_from(text: String) -> Result<Self, String> {
        match text.as_str() {
            "draw" => Ok(PlyCapWinner::Draw),
            "first" => Ok(PlyCapWinner::First),
            "second" => Ok(PlyCapWinner::Second),
            _ => Err(format!(
                "ply_cap_winner must be \"draw\", \"first\" or \"second\", not {text:?}"
            )),
        }
    }
}

impl PlyCapWinner {
    /// The winner this setting records (`None` = a draw).
    pub fn player(self) -> Option<Player> {
        match self {
            PlyCapWinner::Draw => None,
            PlyCapWinner::First => Some(Player::First),
            PlyCapWinner::Second => Some(Player::Second),
        }
    }
}

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
