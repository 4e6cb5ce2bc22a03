//! Shakti by Christian Freeling (`docs/rules.md` §5).
//!
//! 7x7 board of tiles; each side has a king and two warriors. Start (49
//! tiles, the default): `7/1w1k1w1/7/7/7/1W1K1W1/7 w` ([`Shakti::start`]);
//! Mindsports' 45 tiles, corners bare: `x5x/1w1k1w1/7/7/7/1W1K1W1/x5x w`
//! ([`Shakti::start_45`]). Any position text with `x` holes is accepted.
//!
//! # Rulings (docs/rules.md §5; quoted from the team's rulings it restates,
//! each tested in `tests/shakti.rs`)
//! 1. Holes: "A square without a tile is a hole. Nothing ever stands on a
//!    hole. A piece 'sees' along the 8 lines: passing over holes, stopping
//!    at the first tile. A tile holding a piece is still a tile (it blocks)."
//! 2. Check: "a king is in check when an enemy warrior stands on one of its
//!    8 lines with no tile between them (holes only), at any distance —
//!    whether or not that warrior could move."
//! 3. Mutual check rule: "the two kings may never see each other (same
//!    line, no tile between). No move may create that."
//! 4. King: "not in check: moves to the first tile it sees in any
//!    direction, which must be empty. King in check: moves only to an
//!    adjacent square (distance 1) that has a tile, empty or holding an
//!    enemy warrior, which it captures." Legality: "afterwards the mover's
//!    king is not in check and the kings do not see each other (so a warrior
//!    'protected' by a warrior or by its own king cannot be taken)."
//! 5. Warrior: "moves to the first tile it sees, if empty; or, if that
//!    first tile and the second tile it sees beyond it (again passing over
//!    holes) are both empty, to the second tile — and then the first tile is
//!    removed (compulsory). Warriors never capture."
//! 6. End: "in check and has no legal move is checkmated and loses. A side
//!    not in check with no legal move passes; the other side moves again. If
//!    neither side can move, the game is a draw."
//! 7. "Threefold repetition of the position (tiles, pieces, side to move) is
//!    a draw", "automatic on the third occurrence, the start position counts
//!    as the first, positions after a pass count".
//! 8. Clarifications: "'Adjacent' (king in check) means the 8 squares at
//!    distance 1; a hole there closes that direction. While in check only
//!    king moves can be legal." "The origin square keeps its tile; only a
//!    jump removes a tile; a captured warrior leaves its tile." "Giving
//!    check, or uncovering a check on the opponent by a jump, is allowed."
//! 9. Outcome order: "in check and no legal move = checkmate (even if the
//!    opponent could not move either); not in check, no legal move, and the
//!    opponent has one = pass; neither side can move = draw; then threefold
//!    repetition".
//! 10. Perft: "a pass counts as one child; a finished game has no children;
//!     repetition is ignored in perft" ([`Shakti::perft`]; the generic
//!     [`crate::perft()`] honours repetition, which cannot occur within 7
//!     plies of a position text).
//!
//! # Rulings made here (docs/rules.md §5 lists them as code rulings)
//! - The pass is an action: when the side to move must pass,
//!   [`crate::Game::legal_actions`] is exactly `[ShaktiAction::Pass]`,
//!   written `pass`, and it counts as one ply. It is never legal otherwise.
//! - A position that has occurred for the third time is drawn even when the
//!   side to move would have to pass there ("automatic on the third
//!   occurrence"); checkmate and the neither-can-move draw come first, but
//!   those positions end the game at their first occurrence anyway.
//! - Position texts the rules can never produce are refused
//!   ([`crate::PositionError::Illegal`]): not exactly one king per side,
//!   kings that see each other, or the side not to move in check. Any
//!   number of warriors is accepted.
//! - Jumps and captures can never be undone (a tile or a warrior is gone),
//!   so the repetition history restarts after them.

mod action;
mod board;
mod describe;
mod notation;
pub mod rays;

pub use action::{ShaktiAction, GEOMETRY, PASS_TEXT};

use crate::game::parse_single_action_move;
use crate::{ActionError, EndReason, Game, Outcome, Player, PositionError};
use board::{Board, Stuck};

/// Position text of the default 49-tile start (docs/rules.md §5).
pub const START_49: &str = "7/1w1k1w1/7/7/7/1W1K1W1/7 w";
/// Position text of the 45-tile start, corners bare (docs/rules.md §5).
pub const START_45: &str = "x5x/1w1k1w1/7/7/7/1W1K1W1/x5x w";

/// A Shakti game state: the board plus the history repetition needs
/// (`docs/rules.md` §5).
#[derive(Debug, PartialEq, Eq)]
pub struct Shakti {
    board: Board,
    /// Zobrist hash of `board`, kept incrementally.
    hash: u64,
    /// Actions played since the start (passes included).
    ply: u32,
    /// Hashes of the positions since the last jump or capture, the current
    /// one last (earlier positions can never recur).
    history: Vec<u64>,
}

clone_reusing_vecs!(Shakti; history);

impl Shakti {
    /// The 45-tile start of Mindsports (corners are holes), docs/rules.md §5.
    pub fn start_45() -> Self {
        Self::from_board(board_of(START_45))
    }

    fn from_board(board: Board) -> Self {
        let hash = board.hash();
        Shakti {
            board,
            hash,
            ply: 0,
            history: vec![hash],
        }
    }

    /// Bitboard of squares that still have a tile (bit `rank * 7 + file`).
    pub fn tiles(&self) -> u64 {
        self.board.tiles
    }

    /// Square of `player`'s king.
    pub fn king(&self, player: Player) -> usize {
        self.board.kings[player.index()] as usize
    }

    /// Bitboard of `player`'s warriors.
    pub fn warriors(&self, player: Player) -> u64 {
        self.board.warriors[player.index()]
    }

    /// Whether the side to move is in check (§5: an enemy warrior is the
    /// first tile on one of its king's lines).
    pub fn in_check(&self) -> bool {
        self.board.in_check(self.board.side)
    }

    /// How many times the current position has occurred (1 the first time;
    /// 3 ends the game in a draw).
    pub fn repetition_count(&self) -> usize {
        self.history.iter().filter(|&&h| h == self.hash).count()
    }

    /// Perft with repetition ignored, as docs/rules.md §5 defines it (a
    /// pass is one child, a finished game has none). Allocation-free; equals
    /// [`crate::perft()`] wherever no threefold repetition is reachable.
    pub fn perft(&self, depth: u32) -> u64 {
        self.board.perft(depth)
    }

    /// Whether the action ends the repetition history (a jump removes a
    /// tile, a capture a warrior: neither can come back).
    fn irreversible(&self, action: ShaktiAction) -> bool {
        match action {
            ShaktiAction::Jump { .. } => true,
            ShaktiAction::Step { to, .. } => self.board.occupied() & (1u64 << to) != 0,
            ShaktiAction::Pass => false,
        }
    }
}

/// Board of a built-in start text (known to parse).
fn board_of(text: &str) -> Board {
    match notation::parse(text) {
        Ok(board) => board,
        Err(e) => unreachable!("built-in start position {text:?} is invalid: {e}"),
    }
}

impl Game for Shakti {
    type Action = ShaktiAction;

    /// The default 49-tile start.
    fn start() -> Self {
        Self::from_board(board_of(START_49))
    }

    fn from_text(text: &str) -> Result<Self, PositionError> {
        notation::parse(text).map(Self::from_board)
    }

    fn to_text(&self) -> String {
        notation::format(&self.board)
    }

    fn side_to_move(&self) -> Player {
        self.board.side
    }

    /// The legal moves; exactly `[Pass]` when the side to move must pass;
    /// empty once the game is over.
    fn legal_actions(&self, out: &mut Vec<ShaktiAction>) {
        out.clear();
        if self.repetition_count() >= 3 {
            return;
        }
        self.board.for_each_move(&mut |a| {
            out.push(a);
            true
        });
        if out.is_empty() && self.board.stuck() == Stuck::Pass {
            out.push(ShaktiAction::Pass);
        }
    }

    fn play(&mut self, action: ShaktiAction) {
        let irreversible = self.irreversible(action);
        self.hash ^= self.board.apply(action);
        self.ply += 1;
        if irreversible {
            self.history.clear();
        }
        self.history.push(self.hash);
    }

    /// Checkmate, then the draw when neither side can move, then threefold
    /// repetition (§5 outcome order).
    fn outcome(&self) -> Option<Outcome> {
        let repeated = self.repetition_count() >= 3;
        if self.board.has_move() {
            return repeated.then(|| Outcome::draw(EndReason::ThreefoldRepetition));
        }
        match self.board.stuck() {
            Stuck::Checkmate => Some(Outcome::win(
                self.board.side.opponent(),
                EndReason::Checkmate,
            )),
            Stuck::NeitherCanMove => Some(Outcome::draw(EndReason::NoMovesEitherSide)),
            Stuck::Pass => repeated.then(|| Outcome::draw(EndReason::ThreefoldRepetition)),
        }
    }

    fn position_hash(&self) -> u64 {
        self.hash
    }

    /// The position occurred before (§5: threefold repetition counts
    /// positions after passes too).
    fn repeats_earlier(&self) -> bool {
        self.repetition_count() >= 2
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn action_to_text(&self, action: ShaktiAction) -> String {
        action.text()
    }

    fn parse_move(&self, text: &str) -> Result<Vec<ShaktiAction>, ActionError> {
        parse_single_action_move(self, text, action::check_well_formed)
    }

    /// The warriors of White minus Black's, and half a warrior to the side
    /// giving check (the greedy baseline's value).
    fn static_value(&self) -> f32 {
        let warriors = |p: Player| self.warriors(p).count_ones() as f32;
        let check = match (self.in_check(), self.side_to_move()) {
            (false, _) => 0.0,
            (true, Player::First) => -0.5,
            (true, Player::Second) => 0.5,
        };
        warriors(Player::First) - warriors(Player::Second) + check
    }
}
