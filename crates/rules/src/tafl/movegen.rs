//! Legal actions: atomic sub-decisions for the search, and full turns for
//! notation and the perft cross-check (`docs/rules.md` §3–4).
//!
//! The repetition ban refuses whole turn tokens. A first part (exchange
//! target, command first move) is offered only when at least one completion
//! of it is not refused, so every offered sub-decision leads to a legal
//! turn (no dead ends).

use super::action::TaflAction;
use super::board::{bit, landing_captures, squares_of, step, Cells, Kind, SPECIAL_MASK};
use super::state::{Pending, Tafl, COMMAND, EXCHANGE, FREEZE, HOP, POWER_KIND};
use super::turn::Turn;
use crate::Player;

/// Own and enemy pieces of the side to move, and how many of each own kind.
struct Scan {
    own: u128,
    enemy: u128,
    own_kinds: [u8; 6],
    king: u128,
}

/// Call `f(to)` for every plain rook move of a piece on `from`: over empty
/// squares (the empty throne is passed over), landing on the throne or a
/// corner only for the king.
#[inline]
pub(crate) fn for_each_rook_move(cells: &Cells, from: usize, king: bool, mut f: impl FnMut(usize)) {
    for dir in 0..4 {
        let mut sq = from;
        while let Some(next) = step(sq, dir) {
            if cells[next].is_some() {
                break;
            }
            if king || SPECIAL_MASK & bit(next) == 0 {
                f(next);
            }
            sq = next;
        }
    }
}

/// Call `f(to)` for every hop of a non-king piece on `from` for `side`:
/// over exactly one adjacent piece that is neither the king nor an enemy
/// Horse, onto the empty square right beyond, never a corner or the throne.
#[inline]
fn for_each_hop(cells: &Cells, from: usize, side: Player, mut f: impl FnMut(usize)) {
    for dir in 0..4 {
        let Some(over) = step(from, dir) else {
            continue;
        };
        let Some(jumped) = cells[over] else { continue };
        if jumped.kind == Kind::King || (jumped.kind == Kind::Horse && jumped.side != side) {
            continue;
        }
        if let Some(to) = step(over, dir) {
            if cells[to].is_none() && SPECIAL_MASK & bit(to) == 0 {
                f(to);
            }
        }
    }
}

impl Tafl {
    fn scan(&self) -> Scan {
        let mut s = Scan {
            own: 0,
            enemy: 0,
            own_kinds: [0; 6],
            king: 0,
        };
        for (sq, c) in self.cells.iter().enumerate() {
            if let Some(p) = c {
                if p.side == self.side {
                    s.own |= bit(sq);
                    s.own_kinds[p.kind as usize] += 1;
                } else {
                    s.enemy |= bit(sq);
                }
                if p.kind == Kind::King {
                    s.king = bit(sq);
                }
            }
        }
        s
    }

    /// A power is usable with uses left and a piece of its kind on the board
    /// (frozen or not).
    fn ready(&self, scan: &Scan, power: usize) -> bool {
        self.powers[self.side.index()][power] > 0 && scan.own_kinds[POWER_KIND[power] as usize] > 0
    }

    /// Turn code with the side bit, as stored in the history.
    pub(crate) fn side_code(&self, turn: Turn) -> u32 {
        turn.code() | ((self.side.index() as u32) << 31)
    }

    /// True when the side to move has already made `turn` twice.
    #[inline]
    pub(crate) fn banned(&self, turn: Turn) -> bool {
        if self.copenhagen {
            return self.copenhagen_repeats(turn);
        }
        !self.banned.is_empty() && self.banned.contains(&self.side_code(turn))
    }

    /// Pieces the side to move may choose as its own piece of an exchange,
    /// or move, hop or command: not frozen, not the king.
    fn free_non_king(&self, scan: &Scan) -> u128 {
        scan.own & !self.frozen & !scan.king
    }

    /// Append every legal atomic action (cleared first; empty once over).
    pub fn legal_actions(&self, out: &mut Vec<TaflAction>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        match self.pending {
            Pending::None => self.turn_start_actions(out),
            Pending::Exchange { enemy } => {
                let scan = self.scan();
                for own in squares_of(self.free_non_king(&scan)) {
                    if !self.banned(Turn::Exchange {
                        enemy,
                        own: own as u8,
                    }) {
                        out.push(TaflAction::ExchangePartner(own as u8));
                    }
                }
            }
            Pending::Command { from, mid } => {
                for_each_rook_move(&self.cells, mid as usize, false, |to| {
                    let to = to as u8;
                    if !self.banned(Turn::Command {
                        from,
                        mid,
                        to: Some(to),
                    }) {
                        out.push(TaflAction::CommandSecond { from: mid, to });
                    }
                });
            }
        }
    }

    fn turn_start_actions(&self, out: &mut Vec<TaflAction>) {
        let scan = self.scan();
        let (hop, command) = (self.ready(&scan, HOP), self.ready(&scan, COMMAND));
        let generals = scan.own_kinds[Kind::General as usize];
        for from in squares_of(scan.own & !self.frozen) {
            let Some(piece) = self.cells[from] else {
                continue;
            };
            let king = piece.kind == Kind::King;
            let f = from as u8;
            for_each_rook_move(&self.cells, from, king, |to| {
                if !self.banned(Turn::Move {
                    from: f,
                    to: to as u8,
                }) {
                    out.push(TaflAction::Move {
                        from: f,
                        to: to as u8,
                    });
                }
            });
            if king {
                continue;
            }
            if hop {
                for_each_hop(&self.cells, from, self.side, |to| {
                    if !self.banned(Turn::Hop {
                        from: f,
                        to: to as u8,
                    }) {
                        out.push(TaflAction::Hop {
                            from: f,
                            to: to as u8,
                        });
                    }
                });
            }
            // A General cannot command itself: it needs another General.
            if command && (piece.kind != Kind::General || generals >= 2) {
                for_each_rook_move(&self.cells, from, false, |to| {
                    if self.command_first_ok(from, to) {
                        out.push(TaflAction::CommandFirst {
                            from: f,
                            to: to as u8,
                        });
                    }
                });
            }
        }
        if self.ready(&scan, FREEZE) {
            for t in squares_of(scan.enemy) {
                let kind = self.cells[t].map(|p| p.kind);
                if !matches!(kind, Some(Kind::King | Kind::Wizard))
                    && !self.banned(Turn::Freeze { target: t as u8 })
                {
                    out.push(TaflAction::Freeze(t as u8));
                }
            }
        }
        let partners = self.free_non_king(&scan);
        if self.ready(&scan, EXCHANGE) && partners != 0 {
            for e in squares_of(scan.enemy) {
                let kind = self.cells[e].map(|p| p.kind);
                if matches!(kind, Some(Kind::King | Kind::Trickster)) {
                    continue;
                }
                let open = squares_of(partners).any(|own| {
                    !self.banned(Turn::Exchange {
                        enemy: e as u8,
                        own: own as u8,
                    })
                });
                if open {
                    out.push(TaflAction::ExchangeTarget(e as u8));
                }
            }
        }
    }

    /// May the commanded piece on `from` make its first move to `to`?
    /// Yes unless every completing turn token is refused by the ban.
    fn command_first_ok(&self, from: usize, to: usize) -> bool {
        let (f, m) = (from as u8, to as u8);
        let prefix = Turn::Command {
            from: f,
            mid: m,
            to: None,
        }
        .code()
            >> 7;
        let side = (self.side.index() as u32) << 31;
        let any_banned_prefix = self
            .banned
            .iter()
            .any(|&c| c & (1 << 31) == side && (c & !(1 << 31)) >> 7 == prefix);
        if !any_banned_prefix {
            return true;
        }
        let mut after = self.cells;
        let ended = play_rook_move(&mut after, from, to, self.side);
        let mut open = false;
        let mut seconds = 0;
        if !ended {
            for_each_rook_move(&after, to, false, |t| {
                seconds += 1;
                open |= !self.banned(Turn::Command {
                    from: f,
                    mid: m,
                    to: Some(t as u8),
                });
            });
        }
        if seconds == 0 {
            open = !self.banned(Turn::Command {
                from: f,
                mid: m,
                to: None,
            });
        }
        open
    }

    /// Does the side to move have any legal action? (Fast path: an
    /// unrefused plain move.)
    pub(crate) fn any_legal(&self) -> bool {
        if self.outcome.is_some() {
            return false;
        }
        // Square by square, stopping at the first piece with a move (most
        // positions: one of the first few), not a mask of the whole side.
        for (from, cell) in self.cells.iter().enumerate() {
            let Some(piece) = cell else { continue };
            if piece.side != self.side || self.frozen & bit(from) != 0 {
                continue;
            }
            let king = piece.kind == Kind::King;
            let mut found = false;
            for_each_rook_move(&self.cells, from, king, |to| {
                found = found
                    || !self.banned(Turn::Move {
                        from: from as u8,
                        to: to as u8,
                    });
            });
            if found {
                return true;
            }
        }
        let mut all = Vec::new();
        self.legal_actions(&mut all);
        !all.is_empty()
    }

    /// Every legal full turn, built turn by turn (an independent path from
    /// the atomic actions, used by `parse_move` and the perft cross-check).
    /// In the middle of a split turn: the completions of that turn.
    pub fn legal_turns(&self) -> Vec<Turn> {
        let mut out = Vec::new();
        if self.outcome.is_some() {
            return out;
        }
        match self.pending {
            Pending::None => self.all_turns(&mut out),
            Pending::Exchange { enemy } => {
                let scan = self.scan();
                for own in squares_of(self.free_non_king(&scan)) {
                    out.push(Turn::Exchange {
                        enemy,
                        own: own as u8,
                    });
                }
            }
            Pending::Command { from, mid } => self.command_turns(&self.cells, from, mid, &mut out),
        }
        out.retain(|&t| !self.banned(t));
        out
    }

    fn all_turns(&self, out: &mut Vec<Turn>) {
        let scan = self.scan();
        let generals = scan.own_kinds[Kind::General as usize];
        for from in squares_of(scan.own & !self.frozen) {
            let Some(piece) = self.cells[from] else {
                continue;
            };
            let king = piece.kind == Kind::King;
            let f = from as u8;
            for_each_rook_move(&self.cells, from, king, |to| {
                out.push(Turn::Move {
                    from: f,
                    to: to as u8,
                })
            });
            if king {
                continue;
            }
            if self.ready(&scan, HOP) {
                for_each_hop(&self.cells, from, self.side, |to| {
                    out.push(Turn::Hop {
                        from: f,
                        to: to as u8,
                    })
                });
            }
            if self.ready(&scan, COMMAND) && (piece.kind != Kind::General || generals >= 2) {
                let mut firsts = Vec::new();
                for_each_rook_move(&self.cells, from, false, |to| firsts.push(to));
                for mid in firsts {
                    let mut after = self.cells;
                    if play_rook_move(&mut after, from, mid, self.side) {
                        out.push(Turn::Command {
                            from: f,
                            mid: mid as u8,
                            to: None,
                        });
                    } else {
                        self.command_turns(&after, f, mid as u8, out);
                    }
                }
            }
        }
        for t in squares_of(scan.enemy) {
            let Some(p) = self.cells[t] else { continue };
            if self.ready(&scan, FREEZE) && p.kind != Kind::King && p.kind != Kind::Wizard {
                out.push(Turn::Freeze { target: t as u8 });
            }
            if self.ready(&scan, EXCHANGE) && p.kind != Kind::King && p.kind != Kind::Trickster {
                for own in squares_of(self.free_non_king(&scan)) {
                    out.push(Turn::Exchange {
                        enemy: t as u8,
                        own: own as u8,
                    });
                }
            }
        }
    }

    /// Completions of a command whose first move `from` -> `mid` is played
    /// on `cells`: every second move, or the one-move token if none exists.
    fn command_turns(&self, cells: &Cells, from: u8, mid: u8, out: &mut Vec<Turn>) {
        let before = out.len();
        for_each_rook_move(cells, mid as usize, false, |to| {
            out.push(Turn::Command {
                from,
                mid,
                to: Some(to as u8),
            })
        });
        if out.len() == before {
            out.push(Turn::Command {
                from,
                mid,
                to: None,
            });
        }
    }
}

/// Play a plain move of `side`'s piece on `cells` with its captures;
/// returns true when it captured the king (the game is over).
pub(crate) fn play_rook_move(cells: &mut Cells, from: usize, to: usize, side: Player) -> bool {
    cells[to] = cells[from].take();
    remove_captured(cells, landing_captures(cells, to, side))
}

/// Remove the captured pieces; true when the king was among them.
pub(crate) fn remove_captured(cells: &mut Cells, captured: u128) -> bool {
    let mut king = false;
    for sq in squares_of(captured) {
        king |= matches!(cells[sq], Some(p) if p.kind == Kind::King);
        cells[sq] = None;
    }
    king
}
