//! Game records: what self-play stores for training.
//!
//! Actions are stored as their index in [`rules::Game::legal_actions`]
//! order (stable for a given `Game::RULES_VERSION`, which every replay
//! chunk records), so a record is independent of the network encoding:
//! training replays the game and re-encodes each position.

use rules::{Game, Outcome, Player};
use serde::{Deserialize, Serialize};

/// The search result recorded at one ply, used as a training target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchTarget {
    /// Policy target over the legal actions of the position, in
    /// legal-action order (normalised visit counts; sums to 1).
    pub policy: Vec<f32>,
    /// Root WDL estimate of the search, from the side to move.
    pub root_wdl: [f32; 3],
}

/// A game's actions grouped into whole turns, in the order played.
pub type Turns<G> = Vec<Vec<<G as Game>::Action>>;

/// One self-play game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Position text of the start position.
    pub start: String,
    /// Index of the action played at each ply in the legal-action list.
    pub actions: Vec<u16>,
    /// Training target per ply (`None`: not recorded, e.g. a forced action).
    pub targets: Vec<Option<SearchTarget>>,
    /// Winner (`None` for a draw, including the ply cap).
    pub winner: Option<Player>,
    /// Whether the game ended by the ply cap rather than by the rules.
    pub ply_capped: bool,
}

impl GameRecord {
    /// The empty record of a game from the position text `start`: no
    /// actions yet, no result.
    pub fn new(start: String) -> Self {
        GameRecord {
            start,
            actions: Vec::new(),
            targets: Vec::new(),
            winner: None,
            ply_capped: false,
        }
    }

    /// Final score from `player`'s view: 1 win, 0 draw, -1 loss.
    pub fn score_for(&self, player: Player) -> f32 {
        match self.winner {
            None => 0.0,
            Some(w) if w == player => 1.0,
            Some(_) => -1.0,
        }
    }

    /// Number of recorded training positions.
    pub fn recorded(&self) -> usize {
        self.targets.iter().filter(|t| t.is_some()).count()
    }

    /// Replay the game, calling `visit(position, legal actions, target)` at
    /// every ply before its action is played.
    ///
    /// # Errors
    /// [`RecordError`] if the start text does not parse, an action index is
    /// out of range or a policy target has the wrong length (a record from
    /// other rules).
    pub fn replay<G: Game>(
        &self,
        mut visit: impl FnMut(&G, &[G::Action], Option<&SearchTarget>),
    ) -> Result<G, RecordError> {
        let mut game = G::from_text(&self.start)?;
        let mut legal = Vec::new();
        for (ply, &index) in self.actions.iter().enumerate() {
            game.legal_actions(&mut legal);
            let action = *legal
                .get(index as usize)
                .ok_or(RecordError::ActionOutOfRange {
                    index,
                    ply,
                    legal: legal.len(),
                })?;
            let target = self.targets.get(ply).and_then(|t| t.as_ref());
            if let Some(t) = target {
                if t.policy.len() != legal.len() {
                    return Err(RecordError::PolicyLength {
                        ply,
                        entries: t.policy.len(),
                        legal: legal.len(),
                    });
                }
            }
            visit(&game, &legal, target);
            game.play(action);
        }
        Ok(game)
    }

    /// The game's start position and its actions grouped into whole turns
    /// (a turn ends where the side to move is no longer
    /// [`Game::mid_turn`]), for showing the game move by move.
    ///
    /// # Errors
    /// As [`GameRecord::replay`]: a start text that does not parse or an
    /// action index out of range.
    pub fn turns<G: Game>(&self) -> Result<(G, Turns<G>), RecordError> {
        let start = G::from_text(&self.start)?;
        let mut turns: Turns<G> = Vec::new();
        let mut ply = 0;
        self.replay::<G>(|game, legal, _| {
            if ply == 0 || !game.mid_turn() {
                turns.push(Vec::new());
            }
            // `replay` checked the index before calling.
            let action = self.actions.get(ply).and_then(|&i| legal.get(i as usize));
            if let (Some(turn), Some(&action)) = (turns.last_mut(), action) {
                turn.push(action);
            }
            ply += 1;
        })?;
        Ok((start, turns))
    }
}

/// The outcome as stored: winner and whether it was a ply-cap draw.
pub fn stored_result(outcome: Option<Outcome>) -> (Option<Player>, bool) {
    match outcome {
        Some(o) => (o.winner, false),
        None => (None, true),
    }
}

/// Why a [`GameRecord`] does not replay under the current rules.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The start position's text does not parse.
    #[error("bad start position in record: {0}")]
    Start(#[from] rules::PositionError),
    /// An action index past the legal actions of its ply.
    #[error("record action {index} at ply {ply} out of range ({legal} legal)")]
    ActionOutOfRange {
        /// The recorded index into the legal actions.
        index: u16,
        /// The ply (0-based).
        ply: usize,
        /// How many actions are legal there.
        legal: usize,
    },
    /// A policy target whose length is not the number of legal actions.
    #[error("policy target at ply {ply} has {entries} entries, {legal} legal actions")]
    PolicyLength {
        /// The ply (0-based).
        ply: usize,
        /// Entries in the target.
        entries: usize,
        /// Legal actions at that ply.
        legal: usize,
    },
}
