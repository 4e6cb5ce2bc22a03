//! The shared tafl game state and its position text
//! (`docs/rules.md` §3 notation, §4 power and frozen fields).

use super::action::TaflAction;
use super::board::{
    bit, squares_of, step, Cells, Kind, Piece, CORNERS, CORNER_MASK, GEOMETRY, SPECIAL_MASK,
};
use crate::zobrist;
use crate::{EndReason, Outcome, Player, PositionError};

/// Power indices into the per-side use counters (order of the text field).
pub const EXCHANGE: usize = 0;
/// Command (General).
pub const COMMAND: usize = 1;
/// Freeze (Wizard).
pub const FREEZE: usize = 2;
/// Hop (Horse).
pub const HOP: usize = 3;
/// The kind that lends each power, in power-index order.
pub const POWER_KIND: [Kind; 4] = [Kind::Trickster, Kind::General, Kind::Wizard, Kind::Horse];

/// The first part of a split turn, waiting for its second part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pending {
    /// At a turn boundary.
    None,
    /// Exchange: the enemy target is chosen.
    Exchange {
        /// The enemy piece's square.
        enemy: u8,
    },
    /// Command: the piece moved `from` -> `mid`; its second move is due.
    Command {
        /// Where the commanded piece started.
        from: u8,
        /// Where it stands now.
        mid: u8,
    },
}

/// Tafl state shared by `hnefatafl` and `loki`: `hnefatafl` is the case
/// with no special pieces and no power uses.
#[derive(Debug)]
pub struct Tafl {
    pub(crate) cells: Cells,
    pub(crate) side: Player,
    /// Remaining uses, `[side][power]`.
    pub(crate) powers: [[u8; 4]; 2],
    /// Pieces that cannot act during the current turn (they belong to the
    /// side to move).
    pub(crate) frozen: u128,
    /// Piece frozen by the current turn; becomes `frozen` when it ends.
    pub(crate) freezing: u128,
    pub(crate) pending: Pending,
    pub(crate) outcome: Option<Outcome>,
    /// Turn codes played, with the side in bit 31 (repetition ban).
    pub(crate) history: Vec<u32>,
    /// Turn codes (with side bit) already played twice: refused.
    pub(crate) banned: Vec<u32>,
    pub(crate) ply: u32,
    /// The `copenhagen` rulings (`docs/rules.md` §6) instead of §3's.
    pub(crate) copenhagen: bool,
    /// Copenhagen: board hashes ([`cells_hash`], side to move not counted)
    /// after each move since the last capture, the current board last, for
    /// the defenders' repetition ban.
    pub(crate) seen: Vec<u64>,
}

clone_reusing_vecs!(Tafl; history, banned, seen);

/// Zobrist family of tafl position hashes.
const ZOBRIST_FAMILY: u64 = 0x7AF1;

impl Tafl {
    /// Parse `board side [powers frozen]`. With `loki == false` the power
    /// fields must be absent or `0000/0000 -` and special pieces are refused;
    /// with `loki == true` absent power fields mean `3333/3333 -`.
    ///
    /// # Errors
    /// [`PositionError`] for any malformed field or impossible position.
    pub fn parse(text: &str, loki: bool) -> Result<Tafl, PositionError> {
        Tafl::parse_rules(text, loki, false)
    }

    /// [`Tafl::parse`] with the ruleset switch: `copenhagen == true` reads a
    /// `hnefatafl` text (no powers) under the `copenhagen` rulings
    /// (`docs/rules.md` §6).
    ///
    /// # Errors
    /// As [`Tafl::parse`].
    pub fn parse_rules(text: &str, loki: bool, copenhagen: bool) -> Result<Tafl, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 2 && fields.len() != 4 {
            return Err(PositionError::FieldCount {
                found: fields.len(),
                expected: "2 (board, side) or 4 (board, side, powers, frozen)".into(),
            });
        }
        let board = GEOMETRY.parse_board(fields[0], |c| {
            Piece::from_char(c).filter(|p| loki || !p.kind.is_special())
        })?;
        let mut cells: Cells = [None; super::board::SQUARES];
        cells.copy_from_slice(&board);
        let side = match fields[1] {
            "a" => Player::First,
            "d" => Player::Second,
            other => {
                return Err(field_error("side", other, "expected `a` or `d`"));
            }
        };
        let default = if loki { 3 } else { 0 };
        let (powers, frozen) = match fields.get(2..4) {
            Some([p, f]) => (parse_powers(p)?, parse_frozen(f)?),
            _ => ([[default; 4]; 2], 0),
        };
        if !loki && (powers != [[0; 4]; 2] || frozen != 0) {
            return Err(PositionError::Illegal(
                "hnefatafl has no powers: the fields must be `0000/0000 -`".into(),
            ));
        }
        let mut game = Tafl {
            cells,
            side,
            powers,
            frozen,
            freezing: 0,
            pending: Pending::None,
            outcome: None,
            history: Vec::new(),
            banned: Vec::new(),
            ply: 0,
            copenhagen,
            seen: Vec::new(),
        };
        game.validate()?;
        if copenhagen {
            game.seen.push(cells_hash(&game.cells, Player::First));
        }
        game.outcome = game.static_outcome();
        if game.outcome.is_none() && !game.any_legal() {
            game.outcome = Some(game.no_legal_outcome());
        }
        Ok(game)
    }

    /// Reject positions the rules cannot produce.
    fn validate(&self) -> Result<(), PositionError> {
        let kings = self
            .cells
            .iter()
            .flatten()
            .filter(|p| p.kind == Kind::King)
            .count();
        if kings > 1 {
            return Err(PositionError::Illegal(format!("{kings} kings")));
        }
        for sq in squares_of(SPECIAL_MASK) {
            if matches!(self.cells[sq], Some(p) if p.kind != Kind::King) {
                return Err(PositionError::Illegal(format!(
                    "only the king may stand on {}",
                    GEOMETRY.name(sq)
                )));
            }
        }
        for sq in squares_of(self.frozen) {
            match self.cells[sq] {
                Some(p)
                    if p.side == self.side && p.kind != Kind::King && p.kind != Kind::Wizard => {}
                _ => {
                    return Err(PositionError::Illegal(format!(
                    "frozen square {} must hold a non-king, non-Wizard piece of the side to move",
                    GEOMETRY.name(sq)
                )))
                }
            }
        }
        Ok(())
    }

    /// The end when the side to move has no legal action: a draw in
    /// `hnefatafl` and `loki`, a loss for that side in `copenhagen`.
    pub(crate) fn no_legal_outcome(&self) -> Outcome {
        if self.copenhagen {
            Outcome::win(self.side.opponent(), EndReason::NoLegalAction)
        } else {
            Outcome::draw(EndReason::NoLegalAction)
        }
    }

    /// Outcome visible on the board alone: no king (captured) or the king
    /// on a corner (escaped); in `copenhagen` also its other ends
    /// (`copenhagen::text_outcome`).
    fn static_outcome(&self) -> Option<Outcome> {
        if self.copenhagen {
            return super::copenhagen::text_outcome(&self.cells);
        }
        match self.king_square() {
            None => Some(Outcome::win(Player::First, EndReason::KingCaptured)),
            Some(k) if CORNER_MASK & bit(k) != 0 => {
                Some(Outcome::win(Player::Second, EndReason::KingEscaped))
            }
            Some(_) => None,
        }
    }

    /// Contents of `sq` (`rank * 11 + file`); `None` when empty or off the board.
    pub fn piece_at(&self, sq: usize) -> Option<Piece> {
        self.cells.get(sq).copied().flatten()
    }

    /// The side to move.
    pub fn side(&self) -> Player {
        self.side
    }

    /// Set of frozen pieces (bit `sq`): they belong to the side to move and
    /// cannot act this turn (`docs/rules.md` §4, Freeze).
    pub fn frozen(&self) -> u128 {
        self.frozen
    }

    /// The pending first part of a split turn.
    pub fn pending(&self) -> Pending {
        self.pending
    }

    /// Remaining uses of `power` ([`EXCHANGE`], [`COMMAND`], [`FREEZE`],
    /// [`HOP`]) for `side`.
    pub fn uses(&self, side: Player, power: usize) -> u8 {
        self.powers[side.index()].get(power).copied().unwrap_or(0)
    }

    /// True when some turn is refused by the repetition ban for either side.
    /// In `copenhagen`: true once a position since the last capture, other
    /// than the current one, is on record (a defenders' move may be refused).
    pub fn has_refusals(&self) -> bool {
        !self.banned.is_empty() || self.seen.len() > 1
    }

    /// Square of the king, if on the board.
    pub fn king_square(&self) -> Option<usize> {
        self.cells
            .iter()
            .position(|c| matches!(c, Some(p) if p.kind == Kind::King))
    }

    /// [`crate::Game::win_candidates`] for tafl (docs/rules.md §3–4): the only
    /// wins are the king reaching a corner (defenders: a plain king move —
    /// the king neither hops nor is commanded) and the king captured
    /// (attackers). A capture is resolved around the landing square of the
    /// moved piece or around the two swapped squares, so an attackers'
    /// move, hop or commanded move can win only when it lands next to the
    /// king; an exchange's second part is kept (its first square is in the
    /// pending state); freezing and an exchange's first part capture nothing.
    ///
    /// In `copenhagen` every action is marked: any move may leave the
    /// opponent without a legal move (a loss there), and any attackers'
    /// move may complete an encirclement.
    pub fn win_candidates(&self, legal: &[TaflAction], out: &mut Vec<bool>) {
        out.clear();
        if self.copenhagen {
            out.resize(legal.len(), true);
            return;
        }
        let king = self.king_square();
        let next_to_king =
            |to: u8| king.is_some_and(|k| (0..4).any(|d| step(k, d) == Some(to as usize)));
        let defenders = self.side == Player::Second;
        out.extend(legal.iter().map(|&a| match a {
            TaflAction::Move { from, to } if defenders => {
                Some(from as usize) == king && CORNERS.contains(&(to as usize))
            }
            _ if defenders => false,
            TaflAction::Move { to, .. }
            | TaflAction::Hop { to, .. }
            | TaflAction::CommandFirst { to, .. }
            | TaflAction::CommandSecond { to, .. } => next_to_king(to),
            TaflAction::ExchangePartner(_) => true,
            TaflAction::ExchangeTarget(_) | TaflAction::Freeze(_) => false,
        }));
    }

    /// Write the position text. Between turns this round-trips through
    /// [`Tafl::parse`]; in the middle of a split turn it shows the board with
    /// the first part applied (the text format has no field for a pending
    /// part: `docs/rules.md` §4 writes texts only between full turns).
    pub fn text(&self, loki: bool) -> String {
        let board = GEOMETRY.format_board(&self.cells, Piece::to_char);
        let side = if self.side == Player::First { "a" } else { "d" };
        if !loki {
            return format!("{board} {side}");
        }
        let powers: Vec<String> = self
            .powers
            .iter()
            .map(|p| p.iter().map(|u| u.to_string()).collect())
            .collect();
        let frozen = if self.frozen == 0 {
            "-".to_string()
        } else {
            let list: Vec<String> = squares_of(self.frozen)
                .map(|sq| format!("{}:1", GEOMETRY.name(sq)))
                .collect();
            format!("f={}", list.join(","))
        };
        format!("{board} {side} {} {frozen}", powers.join("/"))
    }

    /// Hash of board, side to move, power uses, frozen pieces and any
    /// pending part of a turn.
    pub fn hash(&self) -> u64 {
        let mut h = cells_hash(&self.cells, Player::First);
        for sq in squares_of(self.frozen) {
            h ^= zobrist::key(ZOBRIST_FAMILY, (2000 + sq) as u64);
        }
        for (s, uses) in self.powers.iter().enumerate() {
            for (p, &u) in uses.iter().enumerate() {
                h ^= zobrist::key(
                    ZOBRIST_FAMILY,
                    (3000 + s * 400 + p * 100 + u as usize) as u64,
                );
            }
        }
        let pending = match self.pending {
            Pending::None => 0,
            Pending::Exchange { enemy } => 1 + enemy as u64,
            Pending::Command { from, mid } => 200 + from as u64 * 128 + mid as u64,
        };
        h ^= zobrist::key(ZOBRIST_FAMILY, 10_000 + pending);
        if self.side == Player::Second {
            h ^= zobrist::key(ZOBRIST_FAMILY, 1);
        }
        h
    }
}

/// Zobrist key of `piece` standing on `sq` (one term of [`cells_hash`]).
#[inline]
pub(crate) fn piece_key(piece: Piece, sq: usize) -> u64 {
    let index = piece.side.index() * 6 + piece.kind as usize;
    zobrist::key(ZOBRIST_FAMILY, (index * 121 + sq) as u64)
}

/// Hash of the board and the side to move (the part of [`Tafl::hash`] that
/// a `copenhagen` position has: no powers, frozen pieces or pending parts).
/// With `side == Player::First` it is the board's hash alone.
pub(crate) fn cells_hash(cells: &Cells, side: Player) -> u64 {
    let mut h = 0u64;
    for (sq, c) in cells.iter().enumerate() {
        if let Some(p) = c {
            h ^= piece_key(*p, sq);
        }
    }
    if side == Player::Second {
        h ^= zobrist::key(ZOBRIST_FAMILY, 1);
    }
    h
}

fn field_error(field: &'static str, text: &str, reason: &str) -> PositionError {
    PositionError::Field {
        field,
        text: text.to_string(),
        reason: reason.to_string(),
    }
}

/// `3333/3333`: attackers' then defenders' Exchange/Command/Freeze/Hop uses.
fn parse_powers(text: &str) -> Result<[[u8; 4]; 2], PositionError> {
    let err = || {
        field_error(
            "powers",
            text,
            "expected two groups of 4 digits, e.g. 3333/3333",
        )
    };
    let (a, d) = text.split_once('/').ok_or_else(err)?;
    let mut out = [[0u8; 4]; 2];
    for (slot, group) in out.iter_mut().zip([a, d]) {
        let digits: Vec<u8> = group
            .chars()
            .map(|c| c.to_digit(10).map(|d| d as u8))
            .collect::<Option<_>>()
            .ok_or_else(err)?;
        *slot = digits.try_into().map_err(|_| err())?;
    }
    Ok(out)
}

/// `-` or `f=e5:1,g7:1` (plies left; between turns always 1).
fn parse_frozen(text: &str) -> Result<u128, PositionError> {
    if text == "-" {
        return Ok(0);
    }
    let list = text
        .strip_prefix("f=")
        .ok_or_else(|| field_error("frozen", text, "expected `-` or `f=e5:1,...`"))?;
    let mut set = 0u128;
    for entry in list.split(',') {
        let (sq, plies) = entry
            .split_once(':')
            .ok_or_else(|| field_error("frozen", text, "entry without `:plies`"))?;
        let sq = GEOMETRY
            .parse_square(sq)
            .ok_or_else(|| field_error("frozen", text, "bad square name"))?;
        if plies != "1" {
            return Err(field_error(
                "frozen",
                text,
                "between turns a frozen piece has exactly 1 ply left",
            ));
        }
        set |= bit(sq);
    }
    Ok(set)
}
