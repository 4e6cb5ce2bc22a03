//! The `Game` abstraction shared by every variant.

use std::fmt::Debug;
use std::hash::Hash;

/// One of the two sides. `First` moves first from the standard start
/// position (White in chess and Shakti, the attackers in tafl).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Player {
    /// White (chess, Shakti) or the attackers (tafl).
    First,
    /// Black (chess, Shakti) or the defenders (tafl).
    Second,
}

impl Player {
    /// The other side.
    #[inline]
    pub fn opponent(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }

    /// 0 for `First`, 1 for `Second`; handy for indexing per-side arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Why a game ended. Variants use the subset that applies to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum EndReason {
    /// The side to move is checkmated (Shakti, Viking: it loses; Losers: it wins).
    Checkmate,
    /// Losers chess: the side to move has only its king left and wins.
    BareKing,
    /// No legal move, not in check (a draw where the variant says so).
    Stalemate,
    /// Shakti: neither side can move.
    NoMovesEitherSide,
    /// Tafl: the side to move has no legal action (a draw in `hnefatafl`
    /// and `loki`, a loss for that side in `copenhagen`).
    NoLegalAction,
    /// The same position occurred for the third time.
    ThreefoldRepetition,
    /// 100 plies without capture or pawn move.
    FiftyMoveRule,
    /// Viking: neither side can mate (K v K, K+B v K, K+N v K).
    InsufficientMaterial,
    /// Tafl: the king reached a corner.
    KingEscaped,
    /// Tafl: the king was captured.
    KingCaptured,
    /// A length limit: the pipeline's configured ply cap (an adjudication,
    /// not a rule), or the move limit `copenhagen` takes from its reference
    /// engine (`docs/rules.md` §6).
    PlyCap,
}

/// Final result of a game: the winner (`None` for a draw) and the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// The winning side, or `None` for a draw.
    pub winner: Option<Player>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// A win for `winner`.
    pub fn win(winner: Player, reason: EndReason) -> Self {
        Outcome {
            winner: Some(winner),
            reason,
        }
    }

    /// A draw.
    pub fn draw(reason: EndReason) -> Self {
        Outcome {
            winner: None,
            reason,
        }
    }

    /// Score from `player`'s view: 1 win, 0 draw, -1 loss.
    pub fn value_for(&self, player: Player) -> f32 {
        match self.winner {
            None => 0.0,
            Some(w) if w == player => 1.0,
            Some(_) => -1.0,
        }
    }
}

/// A position text that could not be parsed. The message names the field
/// and the offending text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Wrong number of space-separated fields.
    #[error("position text has {found} fields, expected {expected}")]
    FieldCount {
        /// Fields in the text.
        found: usize,
        /// The count (or counts) the notation allows.
        expected: String,
    },
    /// A board row had the wrong number of squares or rows were missing.
    #[error("bad board layout: {0}")]
    Board(String),
    /// An unknown piece or square character.
    #[error("unknown character {ch:?} in board field")]
    BadChar {
        /// The character.
        ch: char,
    },
    /// A field other than the board is malformed.
    #[error("bad {field} field {text:?}: {reason}")]
    Field {
        /// The field's name.
        field: &'static str,
        /// The field's text.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The text parses but describes a position the rules forbid.
    #[error("illegal position: {0}")]
    Illegal(String),
}

/// An action text that is malformed or not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// The text is not in the variant's action notation.
    #[error("malformed action {text:?}: {reason}")]
    Malformed {
        /// The action text.
        text: String,
        /// What is wrong with it.
        reason: NotationError,
    },
    /// Well-formed, but not among the legal actions of the position.
    #[error("illegal action {text:?} in this position")]
    Illegal {
        /// The action text.
        text: String,
    },
    /// The game is already over.
    #[error("the game is over; no action is legal")]
    GameOver,
}

/// What is wrong with a move token's notation: the reason of
/// [`ActionError::Malformed`]. The notations are in `docs/rules.md`
/// (UCI squares for the chess variants, square runs with a power prefix
/// for tafl, `pass` or two squares for Shakti).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// A byte outside ASCII.
    #[error("not ASCII")]
    NotAscii,
    /// No square name where the notation needs one (`which`: `origin`,
    /// `destination`, or the rest of the text, quoted).
    #[error("no {which} square (square names as on the board, e.g. a1)")]
    MissingSquare {
        /// Which square, or the text where one was expected.
        which: String,
    },
    /// No squares at all.
    #[error("no squares")]
    NoSquares,
    /// Origin and destination are one square.
    #[error("origin and destination are the same square")]
    SameSquare,
    /// A promotion letter that is not q, r, b or n.
    #[error("bad promotion piece {0:?} (expected q, r, b or n)")]
    BadPromotion(String),
    /// Text after a complete token.
    #[error("trailing text {0:?}")]
    Trailing(String),
    /// A tafl power prefix that is not h, f, x or g.
    #[error("unknown power prefix {0:?} (expected h, f, x or g)")]
    UnknownPrefix(String),
    /// A tafl token with the wrong number of squares for its kind.
    #[error("wrong number of squares ({0}) for this kind of action")]
    SquareCount(usize),
    /// A tafl command whose second move does not start where the first
    /// ended.
    #[error("the second commanded move must start where the first ended")]
    BrokenCommand,
    /// A number that does not parse (toy games of the search tests).
    #[error("not an action number: {0}")]
    NotANumber(String),
}

/// A two-player, perfect-information, deterministic game with exact rules.
///
/// Implementations carry their own history (repetition counts, per-side
/// action counts), so a value of `Self` is a complete game state: cloning it
/// and playing actions is all a search needs.
///
/// An *action* is the atomic decision the search and the network see. For
/// most variants it is a whole move; a variant may split a multi-part turn
/// into several actions, with the side to move unchanged between them
/// (`docs/rules.md` §4). A *move* is the text unit of the notation
/// (one token in a UCI `moves` list); [`Game::parse_move`] turns one into
/// the actions it consists of.
pub trait Game: Clone + Send + Sync + Debug + 'static {
    /// The atomic decision. Cheap to copy and compare.
    type Action: Copy + Eq + Hash + Debug + Send + Sync + 'static;

    /// Version of this variant's rules implementation. Bumped when a ruling
    /// changes, so bundles and replay data made under old rules are refused.
    const RULES_VERSION: u32 = 1;

    /// Whether a move can consist of more than one action (a variant that
    /// splits turns, [`Game::mid_turn`]).
    const MULTI_ACTION_MOVES: bool = false;

    /// The variant's default start position.
    fn start() -> Self;

    /// Parse a position text (`docs/rules.md` notation).
    ///
    /// # Errors
    /// [`PositionError`] naming the malformed field; never panics.
    fn from_text(text: &str) -> Result<Self, PositionError>;

    /// Write the position text; `from_text(to_text())` round-trips the board,
    /// side to move and rule state (not the history).
    fn to_text(&self) -> String;

    /// The side that chooses the next action.
    fn side_to_move(&self) -> Player;

    /// Append all legal actions to `out` (cleared first). Empty once the
    /// game is over.
    fn legal_actions(&self, out: &mut Vec<Self::Action>);

    /// Play a legal action. Behaviour for an illegal action is unspecified
    /// but must not be undefined: callers validate with [`Game::parse_move`]
    /// or take actions from [`Game::legal_actions`].
    fn play(&mut self, action: Self::Action);

    /// The result if the game is over by the rules (never the ply cap).
    fn outcome(&self) -> Option<Outcome>;

    /// Hash of what repetition compares (board, side to move, rule state).
    fn position_hash(&self) -> u64;

    /// Number of actions played since the start (for ply caps and records).
    fn ply(&self) -> u32;

    /// Text of one action. For single-action moves this is the move text.
    fn action_to_text(&self, action: Self::Action) -> String;

    /// Parse one move token into the legal actions it consists of.
    ///
    /// # Errors
    /// [`ActionError::Malformed`] for text outside the notation,
    /// [`ActionError::Illegal`] for a move that is not legal here.
    fn parse_move(&self, text: &str) -> Result<Vec<Self::Action>, ActionError>;

    /// The move token of `actions`, one whole turn played from `self`: the
    /// inverse of [`Game::parse_move`] (`parse_move(move_text(a))` gives
    /// back `a`). The default joins the actions' texts, which is the move
    /// text wherever a move is one action.
    fn move_text(&self, actions: &[Self::Action]) -> String {
        actions
            .iter()
            .map(|&a| self.action_to_text(a))
            .collect::<Vec<_>>()
            .join("")
    }

    /// True when the current position already occurred earlier in the game
    /// (a two-fold repetition, compared as [`Game::position_hash`] compares,
    /// counted back to the last irreversible move). Not a game end by
    /// itself: a search may score it as a draw
    /// (`search::SearchConfig::two_fold_draws`), since the player who
    /// steered back can repeat again. Variants without a repetition rule
    /// (the default) return `false`.
    fn repeats_earlier(&self) -> bool {
        false
    }

    /// Material balance from the first player's view, in pawn units, where
    /// the variant's goal makes material a measure of progress; `None`
    /// (the default) elsewhere. Self-play may use it to score games that
    /// reach its ply cap (`selfplay::SelfPlayConfig::adjudicate_material`);
    /// it never decides a game under the rules.
    fn material(&self) -> Option<f32> {
        None
    }

    /// A cheap static value of the position from the first player's view,
    /// in pawn-like units (positive: the first player is better off), for
    /// the one-ply greedy baseline (`arena::greedy`). The default is
    /// [`Game::material`], 0 without one; a variant may add terms of its
    /// own (a check, the king's way out). It never decides a game under
    /// the rules, and nothing but the baseline uses it.
    fn static_value(&self) -> f32 {
        self.material().unwrap_or(0.0)
    }

    /// True when the side to move is in the middle of a multi-part turn
    /// (only variants that split turns return `true`).
    fn mid_turn(&self) -> bool {
        false
    }

    /// Mark in `out` (cleared, then one flag per action of `legal`) the
    /// actions that might end the game at once with a win for the side to
    /// move. An unmarked action never does: it is a cheap necessary
    /// condition from the variant's win rules, letting the search's
    /// decisive-move test (`search::SearchConfig::decisive_moves`) skip
    /// the `play` of every action that cannot win. The default marks all.
    fn win_candidates(&self, legal: &[Self::Action], out: &mut Vec<bool>) {
        out.clear();
        out.resize(legal.len(), true);
    }

    /// Legal actions as a fresh vector (convenience over `legal_actions`).
    fn legal_vec(&self) -> Vec<Self::Action> {
        let mut v = Vec::new();
        self.legal_actions(&mut v);
        v
    }
}

/// Parse a single-action move by matching it against the legal action texts.
/// Variants whose move token is one action use this for [`Game::parse_move`];
/// `well_formed` checks the notation so malformed text gets its own error.
pub fn parse_single_action_move<G: Game>(
    game: &G,
    text: &str,
    well_formed: impl Fn(&str) -> Result<(), NotationError>,
) -> Result<Vec<G::Action>, ActionError> {
    let text = text.trim();
    well_formed(text).map_err(|reason| ActionError::Malformed {
        text: text.to_string(),
        reason,
    })?;
    if game.outcome().is_some() {
        return Err(ActionError::GameOver);
    }
    let legal = game.legal_vec();
    legal
        .into_iter()
        .find(|&a| game.action_to_text(a) == text)
        .map(|a| vec![a])
        .ok_or_else(|| ActionError::Illegal {
            text: text.to_string(),
        })
}
