//! [`Table`]: one game of any variant behind a trait object, so the game
//! store holds games of every variant side by side; its
//! [`TableView`] is the JSON state of the API.

use std::collections::BTreeMap;

use bot::protocol::{outcome_json, player_name};
use bot::{describe_outcome, parse_position, BotGame};
use rules::describe::BoardView;
use rules::{Player, VariantId};
use serde::Serialize;
use serde_json::Value;

use crate::error::ApiError;
use crate::view::{move_view, power_uses, removed_pieces, MoveView, TakenPiece};

/// The state of a game as the API returns it.
#[derive(Clone, Debug, Serialize)]
pub struct TableView {
    /// The variant id.
    pub variant: &'static str,
    /// The position text (`docs/rules.md` notation).
    pub position: String,
    /// `"first"` or `"second"`.
    pub side_to_move: &'static str,
    /// The legal whole-turn move tokens (empty once the game is over).
    pub legal_moves: Vec<String>,
    /// The same moves with their click paths, for the page.
    pub legal: Vec<MoveView>,
    /// `{"winner", "reason", "text"}` once the game is over, else `null`.
    pub outcome: Option<Value>,
    /// The moves played since the start position, as tokens.
    pub moves: Vec<String>,
    /// What each move took off the board, one list per move of `moves`
    /// (empty for a move that took nothing).
    pub taken: Vec<Vec<TakenPiece>>,
    /// The bot's evaluation behind each move of `moves`: the root
    /// `[W, D, L]` of the search that chose it, from the first player's
    /// view; `null` for a move the bot did not choose (a human's).
    pub evals: Vec<Option<[f32; 3]>>,
    /// The same moves in Standard Algebraic Notation (PGN standard
    /// §8.2.3, [`rules::Describe::move_san`]), `null` for a variant
    /// without SAN.
    pub san: Option<Vec<String>>,
    /// The game as PGN ([`rules::pgn`]; tags, then the moves in SAN),
    /// `null` for a variant not in chess notation.
    pub pgn: Option<String>,
    /// The start position text (`"startpos"` for the variant's start).
    pub start: String,
    /// The board, square by square, with the powers left
    /// ([`rules::Describe::board_view`]).
    pub board: BoardView,
    /// The remaining uses of each power by kind, first player's then
    /// second's (the board's `powers` as maps); `null` for a variant
    /// without powers.
    pub powers: Option<[BTreeMap<&'static str, u8>; 2]>,
}

/// A game of some variant: its start, the moves played and the current
/// position.
pub trait Table: Send + Sync {
    /// The variant.
    fn variant(&self) -> VariantId;
    /// The start position text (`None` = the variant's start).
    fn start(&self) -> Option<&str>;
    /// The move tokens played so far.
    fn moves(&self) -> &[String];
    /// The side to move.
    fn side_to_move(&self) -> Player;
    /// How the game ended (`describe_outcome`), or `None` while it goes on.
    fn over(&self) -> Option<String>;
    /// Play one whole-turn move token; returns the token as the rules
    /// write it.
    ///
    /// # Errors
    /// [`ApiError::GameOver`] once the game is over, [`ApiError::Invalid`]
    /// for a malformed or illegal token (the game is unchanged then).
    fn play(&mut self, token: &str) -> Result<String, ApiError>;
    /// Take back the last `plies` moves (the game replayed from its start
    /// without them, so repetition history is as before they were played).
    ///
    /// # Errors
    /// [`ApiError::Invalid`] unless `plies` is in `1..=` the moves played
    /// (the game is unchanged then).
    fn undo(&mut self, plies: usize) -> Result<(), ApiError>;
    /// Note `wdl_first`, the bot's root evaluation from the first
    /// player's view, as the evaluation behind the last move played.
    fn evaluated(&mut self, wdl_first: [f32; 3]);
    /// The state for the API.
    fn view(&self) -> TableView;
    /// The state of the game as it stood after its first `ply` moves
    /// (the game itself is unchanged).
    ///
    /// # Errors
    /// [`ApiError::Invalid`] unless `ply` is in `0..=` the moves played.
    fn view_at(&self, ply: usize) -> Result<TableView, ApiError>;
}

/// A new game of `variant` from `position` (`None` or `"startpos"` = the start).
///
/// # Errors
/// [`ApiError::Invalid`] naming what is wrong with the position text.
pub fn new_table(variant: VariantId, position: Option<&str>) -> Result<Box<dyn Table>, ApiError> {
    rules::with_variant!(variant, G => Session::<G>::new(position).map(|s| Box::new(s) as Box<dyn Table>))
}

/// A game of `variant` read from the PGN text `pgn` ([`rules::pgn::read`]:
/// its `[FEN]` start and its moves in SAN or UCI), standing after its
/// last move.
///
/// # Errors
/// [`ApiError::Invalid`] for a variant not in chess notation, or naming
/// what is wrong with the text (the move number and text of a bad move).
pub fn pgn_table(variant: VariantId, pgn: &str) -> Result<Box<dyn Table>, ApiError> {
    rules::with_variant!(variant, G => Session::<G>::from_pgn(pgn).map(|s| Box::new(s) as Box<dyn Table>))
}

/// [`Table`] for variant `G`.
struct Session<G: BotGame> {
    start: Option<String>,
    /// The start position (for the PGN's move numbers and SAN replay).
    root: G,
    game: G,
    moves: Vec<String>,
    /// Each move's actions, for the PGN.
    played: Vec<Vec<G::Action>>,
    /// Each move's SAN, where the variant has it.
    san: Vec<String>,
    /// What each move took off the board.
    taken: Vec<Vec<TakenPiece>>,
    /// The bot's evaluation behind each move (first player's view).
    evals: Vec<Option<[f32; 3]>>,
}

impl<G: BotGame> Session<G> {
    fn new(position: Option<&str>) -> Result<Self, ApiError> {
        let start = position
            .map(str::trim)
            .filter(|p| !p.is_empty() && *p != "startpos")
            .map(str::to_string);
        let game = parse_position::<G, &str>(start.as_deref(), &[])?;
        Ok(Session {
            start,
            root: game.clone(),
            game,
            moves: Vec::new(),
            played: Vec::new(),
            san: Vec::new(),
            taken: Vec::new(),
            evals: Vec::new(),
        })
    }

    fn from_pgn(pgn: &str) -> Result<Self, ApiError> {
        if !G::CHESS_NOTATION {
            return Err(ApiError::Invalid(format!(
                "{} games are not written in PGN",
                G::NAME
            )));
        }
        let read = rules::pgn::read::<G>(pgn).map_err(|e| ApiError::Invalid(e.to_string()))?;
        let mut session = Session {
            start: read.start_text.clone(),
            root: read.start.clone(),
            game: read.start,
            moves: Vec::new(),
            played: Vec::new(),
            san: Vec::new(),
            taken: Vec::new(),
            evals: Vec::new(),
        };
        for actions in read.moves {
            session.record(actions);
        }
        Ok(session)
    }

    /// Play a whole turn of legal `actions` and note it; returns its token.
    fn record(&mut self, actions: Vec<G::Action>) -> String {
        let token = self.game.move_text(&actions);
        if let Some(san) = self.game.move_san(&actions) {
            self.san.push(san);
        }
        let before = self.game.board_view();
        let path = self.game.move_shape(&token).path;
        for &action in &actions {
            self.game.play(action);
        }
        self.taken
            .push(removed_pieces(&before, &self.game.board_view(), &path));
        self.evals.push(None);
        self.moves.push(token.clone());
        self.played.push(actions);
        token
    }

    /// The game as PGN: the Seven Tag Roster (§8.1.1), the variant, the
    /// start position when it is not the variant's, and the moves.
    fn pgn(&self) -> String {
        let result = match self.game.outcome() {
            Some(o) => match o.winner {
                Some(Player::First) => "1-0",
                Some(Player::Second) => "0-1",
                None => "1/2-1/2",
            },
            None => "*",
        };
        let mut tags = vec![
            ("Event", "lokizero web lab".to_string()),
            ("Site", "?".to_string()),
            ("Date", "????.??.??".to_string()),
            ("Round", "-".to_string()),
            ("White", "?".to_string()),
            ("Black", "?".to_string()),
            ("Result", result.to_string()),
            ("Variant", G::VARIANT.as_str().to_string()),
        ];
        if let Some(start) = &self.start {
            tags.push(("SetUp", "1".to_string()));
            tags.push(("FEN", start.clone()));
        }
        rules::pgn::write(&tags, &self.root, &self.played, result)
    }

    /// The legal whole turns as tokens: every action sequence until the
    /// turn passes (several actions where a variant splits a turn).
    fn legal_moves(&self) -> Vec<String> {
        rules::perft_turns_divide(&self.game, 1)
            .into_iter()
            .map(|(actions, _)| self.game.move_text(&actions))
            .collect()
    }
}

impl<G: BotGame> Table for Session<G> {
    fn variant(&self) -> VariantId {
        G::VARIANT
    }

    fn start(&self) -> Option<&str> {
        self.start.as_deref()
    }

    fn moves(&self) -> &[String] {
        &self.moves
    }

    fn side_to_move(&self) -> Player {
        self.game.side_to_move()
    }

    fn over(&self) -> Option<String> {
        self.game.outcome().map(|o| describe_outcome(&o))
    }

    fn play(&mut self, token: &str) -> Result<String, ApiError> {
        if let Some(text) = self.over() {
            return Err(ApiError::GameOver(text));
        }
        let actions = self
            .game
            .parse_move(token)
            .map_err(|e| ApiError::Invalid(format!("move {token:?}: {e}")))?;
        Ok(self.record(actions))
    }

    fn undo(&mut self, plies: usize) -> Result<(), ApiError> {
        let played = self.moves.len();
        if played == 0 {
            return Err(ApiError::Invalid("no moves to take back".into()));
        }
        if plies == 0 || plies > played {
            return Err(ApiError::Invalid(format!(
                "plies must be in 1..={played} (the moves played), got {plies}"
            )));
        }
        let keep = played - plies;
        self.game = parse_position::<G, String>(self.start.as_deref(), &self.moves[..keep])?;
        // Every per-move record goes back with the moves (SAN, when kept,
        // has one entry a move), so the PGN is of the game that stands.
        self.moves.truncate(keep);
        self.played.truncate(keep);
        self.san.truncate(keep);
        self.taken.truncate(keep);
        self.evals.truncate(keep);
        Ok(())
    }

    fn evaluated(&mut self, wdl_first: [f32; 3]) {
        if let Some(last) = self.evals.last_mut() {
            *last = Some(wdl_first);
        }
    }

    fn view_at(&self, ply: usize) -> Result<TableView, ApiError> {
        let played = self.moves.len();
        if ply > played {
            return Err(ApiError::Invalid(format!(
                "ply must be in 0..={played} (the moves played), got {ply}"
            )));
        }
        // Replayed from the start, so every per-move record (SAN, taken
        // pieces, PGN) is of the shorter game.
        let mut earlier = Session::<G> {
            start: self.start.clone(),
            root: self.root.clone(),
            game: self.root.clone(),
            moves: Vec::new(),
            played: Vec::new(),
            san: Vec::new(),
            taken: Vec::new(),
            evals: Vec::new(),
        };
        for actions in &self.played[..ply] {
            earlier.record(actions.clone());
        }
        earlier.evals.copy_from_slice(&self.evals[..ply]);
        Ok(earlier.view())
    }

    fn view(&self) -> TableView {
        let legal_moves = self.legal_moves();
        let board = self.game.board_view();
        TableView {
            variant: G::VARIANT.as_str(),
            position: self.game.to_text(),
            side_to_move: player_name(self.game.side_to_move()),
            legal: legal_moves
                .iter()
                .map(|t| move_view(&self.game, t))
                .collect(),
            legal_moves,
            outcome: self.game.outcome().map(|o| {
                let mut v = outcome_json(&o);
                v["text"] = Value::String(describe_outcome(&o));
                v
            }),
            moves: self.moves.clone(),
            taken: self.taken.clone(),
            evals: self.evals.clone(),
            san: G::SAN.then(|| self.san.clone()),
            pgn: G::CHESS_NOTATION.then(|| self.pgn()),
            start: self.start.clone().unwrap_or_else(|| "startpos".into()),
            powers: power_uses(&board),
            board,
        }
    }
}
