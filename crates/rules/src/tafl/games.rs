//! The tafl games behind [`crate::Game`]: [`Hnefatafl`]
//! (`docs/rules.md` §3), [`Loki`] (§4) and [`Copenhagen`] (§6), thin
//! wrappers over one [`Tafl`] state.

use super::action::TaflAction;
use super::state::{Pending, Tafl};
use super::turn::Turn;
use crate::{ActionError, Game, NotationError, Outcome, Player, PositionError};

/// `hnefatafl` start position (`docs/rules.md` §3).
pub const HNEFATAFL_START: &str =
    "3sssss3/5s5/11/s4S4s/s3SSS3s/ss1SSKSS1ss/s3SSS3s/s4S4s/11/5s5/3sssss3 a";

/// `loki` default start position (`docs/rules.md` §4); the setup is data:
/// any position text with special pieces and power counts is accepted.
pub const LOKI_START: &str =
    "3sssss3/5w5/11/s4W4s/s3SSS3s/st1TSKSH1hs/s3SSS3s/s4G4s/11/5g5/3sssss3 a 3333/3333 -";

/// `copenhagen` start position (`docs/rules.md` §6): the `hnefatafl` one.
pub const COPENHAGEN_START: &str = HNEFATAFL_START;

macro_rules! tafl_game {
    ($name:ident, $start:expr, $loki:expr, $copenhagen:expr, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Debug)]
        pub struct $name(pub Tafl);

        impl $name {
            /// The shared tafl state.
            pub fn state(&self) -> &Tafl {
                &self.0
            }

            /// Every legal full turn (see [`Tafl::legal_turns`]).
            pub fn legal_turns(&self) -> Vec<Turn> {
                self.0.legal_turns()
            }

            /// Play one legal full turn directly (see [`Tafl::play_turn`]).
            pub fn play_turn(&mut self, turn: Turn) {
                self.0.play_turn(turn)
            }
        }

        impl Game for $name {
            type Action = TaflAction;
            const MULTI_ACTION_MOVES: bool = $loki;

            fn start() -> Self {
                // The constant start text is known to parse.
                match Tafl::parse_rules($start, $loki, $copenhagen) {
                    Ok(t) => $name(t),
                    Err(e) => unreachable!("start position: {e}"),
                }
            }

            fn from_text(text: &str) -> Result<Self, PositionError> {
                Tafl::parse_rules(text, $loki, $copenhagen).map($name)
            }

            fn to_text(&self) -> String {
                self.0.text($loki)
            }

            fn side_to_move(&self) -> Player {
                self.0.side
            }

            fn legal_actions(&self, out: &mut Vec<TaflAction>) {
                self.0.legal_actions(out)
            }

            fn play(&mut self, action: TaflAction) {
                self.0.play(action)
            }

            fn outcome(&self) -> Option<Outcome> {
                self.0.outcome
            }

            fn win_candidates(&self, legal: &[TaflAction], out: &mut Vec<bool>) {
                self.0.win_candidates(legal, out)
            }

            fn position_hash(&self) -> u64 {
                self.0.hash()
            }

            fn ply(&self) -> u32 {
                self.0.ply
            }

            fn action_to_text(&self, action: TaflAction) -> String {
                action.to_string()
            }

            fn parse_move(&self, text: &str) -> Result<Vec<TaflAction>, ActionError> {
                self.0.parse_move(text)
            }

            fn move_text(&self, actions: &[TaflAction]) -> String {
                super::action::turn_text(actions)
            }

            fn mid_turn(&self) -> bool {
                self.0.pending != Pending::None
            }

            /// Plain tafl ([`Tafl::material`]); `None` for Loki, whose
            /// special pieces have no agreed value.
            fn material(&self) -> Option<f32> {
                (!$loki).then(|| self.0.material())
            }

            fn static_value(&self) -> f32 {
                self.0.static_value()
            }
        }
    };
}

tafl_game!(
    Hnefatafl,
    HNEFATAFL_START,
    false,
    false,
    "Hnefatafl (`docs/rules.md` §3): every action is a whole plain move."
);
tafl_game!(
    Loki,
    LOKI_START,
    true,
    false,
    "Loki Chess (`docs/rules.md` §4): hnefatafl plus special pieces and powers; exchanges and commands are split into atomic actions (see [`TaflAction`])."
);
tafl_game!(
    Copenhagen,
    COPENHAGEN_START,
    false,
    true,
    "Copenhagen Hnefatafl (`docs/rules.md` §6): the `hnefatafl` board and notation under the Copenhagen rulings; every action is a whole plain move."
);

impl Tafl {
    /// Parse one move token into its atomic actions. At a turn boundary the
    /// token is a full turn (`d1d3`, `h:d1d3`, `f:e5`, `x:e5d4`,
    /// `g:d4d6d6f6`, `g:d4d6`); in the middle of a split turn it is the
    /// continuation's atomic text (`x>d4`, `g>d6f6`).
    ///
    /// # Errors
    /// [`ActionError::Malformed`] outside the notation,
    /// [`ActionError::GameOver`] after the end, [`ActionError::Illegal`]
    /// when not legal here (the repetition ban included).
    pub fn parse_move(&self, text: &str) -> Result<Vec<TaflAction>, ActionError> {
        let text = text.trim();
        let malformed = |reason: NotationError| ActionError::Malformed {
            text: text.to_string(),
            reason,
        };
        if self.pending != Pending::None {
            if self.outcome.is_some() {
                return Err(ActionError::GameOver);
            }
            let mut legal = Vec::new();
            self.legal_actions(&mut legal);
            return legal
                .into_iter()
                .find(|a| a.to_string() == text)
                .map(|a| vec![a])
                .ok_or_else(|| ActionError::Illegal {
                    text: text.to_string(),
                });
        }
        let turn = Turn::parse(text).map_err(malformed)?;
        if self.outcome.is_some() {
            return Err(ActionError::GameOver);
        }
        if !self.legal_turns().contains(&turn) {
            return Err(ActionError::Illegal {
                text: text.to_string(),
            });
        }
        Ok(match turn {
            Turn::Move { from, to } => vec![TaflAction::Move { from, to }],
            Turn::Hop { from, to } => vec![TaflAction::Hop { from, to }],
            Turn::Freeze { target } => vec![TaflAction::Freeze(target)],
            Turn::Exchange { enemy, own } => vec![
                TaflAction::ExchangeTarget(enemy),
                TaflAction::ExchangePartner(own),
            ],
            Turn::Command { from, mid, to } => {
                let first = TaflAction::CommandFirst { from, to: mid };
                match to {
                    None => vec![first],
                    Some(to) => vec![first, TaflAction::CommandSecond { from: mid, to }],
                }
            }
        })
    }
}
