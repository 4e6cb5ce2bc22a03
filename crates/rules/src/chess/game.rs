//! The chess variants as [`Game`]s: a [`Board`] plus the history of
//! position hashes that repetition needs, and the variant's end rules.

use super::board::Board;
use super::moves::{parse_uci, Move, Piece};
use super::spec::{ChessVariant, LosersRules, VikingRules};
use crate::bitset::Bits;
use crate::{ActionError, EndReason, Game, Outcome, Player, PositionError};

/// A chess game of variant `V`: the position and the hashes of the
/// positions before it (for threefold repetition).
#[derive(Debug, PartialEq, Eq)]
pub struct Chess<V: ChessVariant> {
    board: Board<V>,
    /// Hashes of the earlier positions, oldest first.
    history: Vec<u64>,
    ply: u32,
}

clone_reusing_vecs!(Chess<V: ChessVariant>; history);

/// Losers Chess (`docs/rules.md` §1).
pub type Losers = Chess<LosersRules>;
/// Viking Chess, 12x7 (`docs/rules.md` §2).
pub type Viking = Chess<VikingRules>;

fn player(c: usize) -> Player {
    if c == 0 {
        Player::First
    } else {
        Player::Second
    }
}

impl<V: ChessVariant> Chess<V> {
    /// The current position.
    pub fn board(&self) -> &Board<V> {
        &self.board
    }

    /// How many times the current position occurred before (0, 1, 2...),
    /// counted back to the last capture or pawn move.
    pub fn repetitions(&self) -> usize {
        let h = self.board.hash();
        let back = (self.board.halfmove() as usize).min(self.history.len());
        self.history[self.history.len() - back..]
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|&&x| x == h)
            .count()
    }

    /// True when the side to move is in check.
    pub fn in_check(&self) -> bool {
        self.board.in_check()
    }

    /// Material with the classical values P 1, N 3, B 3, R 5, Q 9 (king
    /// 0), White minus Black.
    fn material_balance(&self) -> f32 {
        const VALUES: [f32; 6] = [1.0, 3.0, 3.0, 5.0, 9.0, 0.0];
        let b = &self.board;
        let side = |c: usize| -> f32 {
            Piece::ALL
                .iter()
                .map(|&p| VALUES[p as usize] * (b.kinds[p as usize] & b.colours[c]).count() as f32)
                .sum()
        };
        side(0) - side(1)
    }

    /// The board's legal moves, ignoring the draw rules (50 moves,
    /// repetition, insufficient material) but not the variant's own game
    /// end (a bare king in Losers has no moves). This is what the
    /// Fairy-Stockfish oracle lists and what perft counts.
    pub fn board_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        if !self.bare_king_end() {
            self.board.generate(out);
        }
    }

    fn bare_king_end(&self) -> bool {
        V::BARE_KING_WINS && (self.board.bare(0) || self.board.bare(1))
    }

    /// Viking: K v K, K+B v K, K+N v K (`docs/rules.md` §2).
    fn insufficient_material(&self) -> bool {
        let b = &self.board;
        let minors = b.kinds[Piece::Knight as usize] | b.kinds[Piece::Bishop as usize];
        let others = b.occupied() & !b.kinds[Piece::King as usize];
        others.is_empty() || (!others.more_than_one() && others == (others & minors))
    }

    /// A draw by rule that needs no move generation.
    fn rule_draw(&self) -> Option<EndReason> {
        if V::INSUFFICIENT_MATERIAL_DRAW && self.insufficient_material() {
            Some(EndReason::InsufficientMaterial)
        } else if self.board.halfmove() >= 100 {
            Some(EndReason::FiftyMoveRule)
        } else if self.repetitions() >= 2 {
            Some(EndReason::ThreefoldRepetition)
        } else {
            None
        }
    }

    /// Perft with the specialised generator: copy-make of the board and
    /// bulk counting at depth 1. Counts like Fairy-Stockfish: draws by rule
    /// (50 moves, repetition, insufficient material) are ignored, a game
    /// ended by a bare king (Losers) or mate/stalemate has no children.
    pub fn fast_perft(&self, depth: u32) -> u64 {
        super::perft::perft(&self.board, depth)
    }
}

impl<V: ChessVariant> Game for Chess<V> {
    type Action = Move;

    fn start() -> Self {
        match Self::from_text(V::START_FEN) {
            Ok(g) => g,
            Err(e) => unreachable!("start position must parse: {e}"),
        }
    }

    fn from_text(text: &str) -> Result<Self, PositionError> {
        Ok(Chess {
            board: Board::from_fen(text)?,
            history: Vec::new(),
            ply: 0,
        })
    }

    fn to_text(&self) -> String {
        self.board.to_fen()
    }

    fn side_to_move(&self) -> Player {
        player(self.board.side())
    }

    fn legal_actions(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.bare_king_end() || self.rule_draw().is_some() {
            return;
        }
        self.board.generate(out);
    }

    /// The position occurred before since the last capture or pawn move
    /// (the same count as threefold repetition, `docs/rules.md` §1-2).
    fn repeats_earlier(&self) -> bool {
        self.repetitions() >= 1
    }

    /// Viking: the classical values P 1, N 3, B 3, R 5, Q 9 (king 0), White
    /// minus Black. Losers: `None` ([`ChessVariant::MATERIAL_MEASURES_PROGRESS`]).
    fn material(&self) -> Option<f32> {
        V::MATERIAL_MEASURES_PROGRESS.then(|| self.material_balance())
    }

    /// Viking: [`Game::material`], and half a pawn to the side giving
    /// check. Losers: the material balance negated (shedding pieces is the
    /// goal, `docs/rules.md` §1), without a term for check.
    fn static_value(&self) -> f32 {
        match self.material() {
            Some(material) => {
                let check = match (self.in_check(), self.side_to_move()) {
                    (false, _) => 0.0,
                    (true, Player::First) => -0.5,
                    (true, Player::Second) => 0.5,
                };
                material + check
            }
            None => -self.material_balance(),
        }
    }

    fn play(&mut self, action: Move) {
        self.history.push(self.board.hash());
        self.board.play(action);
        self.ply += 1;
    }

    /// Order: bare king (Losers), checkmate, stalemate, then the draws by
    /// rule (insufficient material, 50 moves, threefold repetition). Mate
    /// on the move that completes 100 plies still counts as mate (FIDE).
    fn outcome(&self) -> Option<Outcome> {
        let b = &self.board;
        let us = b.side();
        if V::BARE_KING_WINS {
            // docs/rules.md §1: a bare side wins whoever is to move; if both are
            // bare (never reachable in play) the side to move wins.
            for c in [us, us ^ 1] {
                if b.bare(c) {
                    return Some(Outcome::win(player(c), EndReason::BareKing));
                }
            }
        }
        if b.count_moves() == 0 {
            return Some(if !b.in_check() {
                Outcome::draw(EndReason::Stalemate)
            } else if V::MATED_SIDE_WINS {
                Outcome::win(player(us), EndReason::Checkmate)
            } else {
                Outcome::win(player(us ^ 1), EndReason::Checkmate)
            });
        }
        self.rule_draw().map(Outcome::draw)
    }

    /// docs/rules.md §1–2: the mover wins at once only by checkmating the
    /// opponent where the mated side loses (viking), so only checking moves
    /// are candidates. In losers a mate or a bare king wins for the mated
    /// or bare side — the opponent after our move — so nothing is.
    fn win_candidates(&self, legal: &[Move], out: &mut Vec<bool>) {
        out.clear();
        out.extend(legal.iter().map(|&m| {
            !V::MATED_SIDE_WINS && {
                let mut b = self.board;
                b.play(m);
                b.in_check()
            }
        }));
    }

    fn position_hash(&self) -> u64 {
        self.board.hash()
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn action_to_text(&self, action: Move) -> String {
        action.to_uci(Board::<V>::geometry())
    }

    fn parse_move(&self, text: &str) -> Result<Vec<Move>, ActionError> {
        let text = text.trim();
        let (from, to, promo) =
            parse_uci(Board::<V>::geometry(), text).map_err(|reason| ActionError::Malformed {
                text: text.to_string(),
                reason,
            })?;
        let legal = self.legal_vec();
        if legal.is_empty() && self.outcome().is_some() {
            return Err(ActionError::GameOver);
        }
        legal
            .into_iter()
            .find(|m| m.from() == from && m.to() == to && m.promotion() == promo)
            .map(|m| vec![m])
            .ok_or_else(|| ActionError::Illegal {
                text: text.to_string(),
            })
    }
}
