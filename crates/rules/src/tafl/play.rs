//! Playing atomic actions and whole turns: captures, power uses, freeze
//! duration, the end of a turn and the repetition record
//! (`docs/rules.md` §3–4).

use super::action::TaflAction;
use super::board::{bit, sandwiched, squares_of, step, Kind, CORNER_MASK};
use super::copenhagen;
use super::movegen::{for_each_rook_move, play_rook_move, remove_captured};
use super::state::{cells_hash, piece_key, Pending, Tafl, COMMAND, EXCHANGE, FREEZE, HOP};
use super::turn::Turn;
use crate::{EndReason, Outcome, Player};

impl Tafl {
    /// Play one legal atomic action (from [`Tafl::legal_actions`]).
    pub fn play(&mut self, action: TaflAction) {
        self.ply += 1;
        match action {
            TaflAction::Move { from, to } => {
                self.move_piece(from, to);
                self.end_turn(Turn::Move { from, to });
            }
            TaflAction::Hop { from, to } => {
                self.use_power(HOP);
                self.move_piece(from, to);
                self.end_turn(Turn::Hop { from, to });
            }
            TaflAction::Freeze(target) => {
                self.use_power(FREEZE);
                self.freezing |= bit(target as usize);
                self.end_turn(Turn::Freeze { target });
            }
            TaflAction::ExchangeTarget(enemy) => self.pending = Pending::Exchange { enemy },
            TaflAction::ExchangePartner(own) => {
                if let Pending::Exchange { enemy } = self.pending {
                    self.exchange(enemy, own);
                    self.end_turn(Turn::Exchange { enemy, own });
                }
            }
            TaflAction::CommandFirst { from, to } => {
                self.use_power(COMMAND);
                self.move_piece(from, to);
                if self.outcome.is_some() || !self.has_rook_move(to) {
                    self.end_turn(Turn::Command {
                        from,
                        mid: to,
                        to: None,
                    });
                } else {
                    self.pending = Pending::Command { from, mid: to };
                }
            }
            TaflAction::CommandSecond { from: mid, to } => {
                if let Pending::Command { from, .. } = self.pending {
                    self.move_piece(mid, to);
                    self.end_turn(Turn::Command {
                        from,
                        mid,
                        to: Some(to),
                    });
                }
            }
        }
    }

    /// Play one legal full turn directly (the turn-level path used by the
    /// perft cross-check; [`Tafl::play`] is the atomic path).
    pub fn play_turn(&mut self, turn: Turn) {
        self.ply += 1;
        match turn {
            Turn::Move { from, to } => self.move_piece(from, to),
            Turn::Hop { from, to } => {
                self.use_power(HOP);
                self.move_piece(from, to);
            }
            Turn::Freeze { target } => {
                self.use_power(FREEZE);
                self.freezing |= bit(target as usize);
            }
            Turn::Exchange { enemy, own } => {
                self.ply += 1;
                self.exchange(enemy, own);
            }
            Turn::Command { from, mid, to } => {
                self.use_power(COMMAND);
                self.move_piece(from, mid);
                if let Some(to) = to {
                    self.ply += 1;
                    self.move_piece(mid, to);
                }
            }
        }
        self.end_turn(turn);
    }

    fn use_power(&mut self, power: usize) {
        let uses = &mut self.powers[self.side.index()][power];
        *uses = uses.saturating_sub(1);
    }

    fn has_rook_move(&self, from: u8) -> bool {
        let mut any = false;
        for_each_rook_move(&self.cells, from as usize, false, |_| any = true);
        any
    }

    /// Move a piece and resolve the captures around its landing square.
    /// A winning move (king to a corner) still makes its captures.
    fn move_piece(&mut self, from: u8, to: u8) {
        let (from, to) = (from as usize, to as usize);
        if self.copenhagen {
            let result = copenhagen::play_move(&mut self.cells, from, to, self.side);
            if result.captured {
                // No earlier board can come back: fewer pieces now.
                self.seen.clear();
            }
            self.outcome =
                copenhagen::move_outcome(&self.cells, to, result.king_captured, self.ply);
            return;
        }
        if play_rook_move(&mut self.cells, from, to, self.side) {
            self.outcome = Some(Outcome::win(Player::First, EndReason::KingCaptured));
        }
        let king_moved = matches!(self.cells[to], Some(p) if p.kind == Kind::King);
        if king_moved && CORNER_MASK & bit(to) != 0 {
            self.outcome = Some(Outcome::win(Player::Second, EndReason::KingEscaped));
        }
    }

    /// Swap the enemy piece on `enemy` with the own piece on `own`, then
    /// capture every enemy piece on or next to either square that is now
    /// sandwiched, in either line (`docs/rules.md` §4, Exchange). Own
    /// pieces are never captured by the own action.
    fn exchange(&mut self, enemy: u8, own: u8) {
        self.use_power(EXCHANGE);
        let (e, o) = (enemy as usize, own as usize);
        self.cells.swap(e, o);
        let mut around = bit(e) | bit(o);
        for sq in [e, o] {
            for dir in 0..4 {
                if let Some(n) = step(sq, dir) {
                    around |= bit(n);
                }
            }
        }
        let mut captured = 0u128;
        for sq in squares_of(around) {
            if matches!(self.cells[sq], Some(p) if p.side != self.side)
                && sandwiched(&self.cells, sq, self.side)
            {
                captured |= bit(sq);
            }
        }
        if remove_captured(&mut self.cells, captured) {
            self.outcome = Some(Outcome::win(Player::First, EndReason::KingCaptured));
        }
    }

    /// Close the turn: record its token for the repetition ban, start the
    /// freeze made this turn (it lasts for the opponent's next turn and the
    /// previous one thaws), pass the turn, and detect the no-action draw.
    fn end_turn(&mut self, turn: Turn) {
        let code = self.side_code(turn);
        // Copenhagen bans repeated boards (`seen`), not repeated turns.
        if !self.copenhagen && self.history.iter().filter(|&&c| c == code).count() == 1 {
            self.banned.push(code);
        }
        self.history.push(code);
        self.frozen = self.freezing;
        self.freezing = 0;
        self.pending = Pending::None;
        self.side = self.side.opponent();
        if self.copenhagen {
            // After a move without captures (a capture cleared `seen`) the
            // board differs from the last one seen by the moved piece only.
            let hash = match (turn, self.seen.last()) {
                (Turn::Move { from, to }, Some(&last)) => match self.cells[to as usize] {
                    Some(piece) => {
                        last ^ piece_key(piece, from as usize) ^ piece_key(piece, to as usize)
                    }
                    None => cells_hash(&self.cells, Player::First),
                },
                _ => cells_hash(&self.cells, Player::First),
            };
            self.seen.push(hash);
        }
        if self.outcome.is_none() && !self.any_legal() {
            self.outcome = Some(self.no_legal_outcome());
        }
    }
}

impl Tafl {
    /// Copenhagen repetition ban (`docs/rules.md` §6), as the engine has
    /// it: a defenders' move may not produce a board (side to move not
    /// counted) that has occurred before in the game. The board compared
    /// is the one with the piece moved and nothing yet captured; the
    /// record holds the boards after each move (captures made) since the
    /// last capture, which are the only ones with as many pieces.
    pub(crate) fn copenhagen_repeats(&self, turn: Turn) -> bool {
        let Turn::Move { from, to } = turn else {
            return false;
        };
        if self.side != Player::Second {
            return false;
        }
        let (Some(&now), Some(piece)) = (self.seen.last(), self.cells[from as usize]) else {
            return false;
        };
        let after = now ^ piece_key(piece, from as usize) ^ piece_key(piece, to as usize);
        self.seen.contains(&after)
    }
}
