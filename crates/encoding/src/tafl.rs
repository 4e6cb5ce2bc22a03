//! Network encoding of `hnefatafl`, `loki` and `copenhagen` (`docs/rules.md`
//! §3–4, §6; `copenhagen` is encoded as `hnefatafl`).
//!
//! Frame: the board as written (rank 0 = rank `1`), never colour-flipped:
//! attackers and defenders play different games, so the side to move is an
//! input plane instead. Symmetries: the dihedral group D4 of the square
//! (8 elements): throne, corners and every rule are invariant under it,
//! even when a set-up (the Loki special pieces) is not.
//!
//! Input planes (`[27, 11, 11]`, 1.0 = present):
//! - 0..5: attackers' Soldier, Trickster, General, Wizard, Horse
//! - 5..10: defenders' Soldier, Trickster, General, Wizard, Horse
//! - 10: the king
//! - 11: frozen pieces (they belong to the side to move)
//! - 12: pending exchange: the chosen enemy target's square
//! - 13: pending command: the commanded piece's square (after its first move)
//! - 14: pending command: the square that piece started the turn on
//! - 15: constant 1 while an exchange is pending
//! - 16: constant 1 while a command is pending
//! - 17: constant 1 when the defenders are to move
//! - 18..26: remaining uses / 3, constant planes: attackers' Exchange,
//!   Command, Freeze, Hop, then the defenders'
//! - 26: constant 1 (marks the board against the network's zero padding)
//!
//! The repetition ban is not an input: it only removes actions, which the
//! legal-action mask already shows.
//!
//! Policy planes (`[P, 11, 11]`), indexed at one square per action:
//! - 0..40: rook move from the square, plane `dir * 10 + distance - 1`,
//!   directions north, east, south, west. At a turn start: a plain move;
//!   during a pending command: the commanded piece's second move.
//! - 40..44 (`loki`): hop from the square, plane `40 + dir`
//! - 44: freeze, at the target square
//! - 45: exchange target, at the enemy square
//! - 46: exchange partner (pending exchange), at the own square
//! - 47..87: command first move from the square, `47 + dir * 10 + distance - 1`
//!
//! Distinct indices: at a turn start the legal kinds (move, hop, freeze,
//! exchange target, command first move) use disjoint planes, and within a
//! kind the (square, direction, distance) or square determines the action;
//! mid-turn only one kind is legal (partners, or second moves), each
//! determined by its square (and direction and distance).
//! `hnefatafl` and `copenhagen` have only plain moves: `P = 40`.

use crate::Encode;
use rules::tafl::board::{Kind, DIRECTIONS, SIZE, SQUARES};
use rules::tafl::state::{COMMAND, EXCHANGE, FREEZE, HOP};
use rules::tafl::{Copenhagen, Hnefatafl, Loki, Pending, Tafl, TaflAction};
use rules::Player;

/// Input planes of the tafl variants.
pub const TAFL_INPUT_PLANES: usize = 27;
/// Policy planes of `loki`.
pub const LOKI_POLICY_PLANES: usize = 87;
/// Policy planes of `hnefatafl` and `copenhagen` (rook moves only).
pub const HNEFATAFL_POLICY_PLANES: usize = 40;

const ROOK: usize = 0;
const HOP_PLANE: usize = 40;
const FREEZE_PLANE: usize = 44;
const TARGET_PLANE: usize = 45;
const PARTNER_PLANE: usize = 46;
const COMMAND_PLANE: usize = 47;

/// Write the input planes of `t` (see the module docs).
fn encode_tafl(t: &Tafl, out: &mut [f32]) {
    out.fill(0.0);
    let mut set = |plane: usize, sq: usize| {
        if let Some(v) = out.get_mut(plane * SQUARES + sq) {
            *v = 1.0;
        }
    };
    for sq in 0..SQUARES {
        let Some(p) = t.piece_at(sq) else { continue };
        let plane = match (p.kind, p.side) {
            (Kind::King, _) => 10,
            (k, side) => kind_plane(k) + 5 * side.index(),
        };
        set(plane, sq);
        if t.frozen() & (1u128 << sq) != 0 {
            set(11, sq);
        }
    }
    let mut constants: Vec<(usize, f32)> = Vec::new();
    match t.pending() {
        Pending::None => {}
        Pending::Exchange { enemy } => {
            set(12, enemy as usize);
            constants.push((15, 1.0));
        }
        Pending::Command { from, mid } => {
            set(13, mid as usize);
            set(14, from as usize);
            constants.push((16, 1.0));
        }
    }
    if t.side() == Player::Second {
        constants.push((17, 1.0));
    }
    for (s, side) in [Player::First, Player::Second].into_iter().enumerate() {
        for power in [EXCHANGE, COMMAND, FREEZE, HOP] {
            constants.push((18 + 4 * s + power, f32::from(t.uses(side, power)) / 3.0));
        }
    }
    constants.push((26, 1.0));
    for (plane, v) in constants {
        if let Some(chunk) = out.get_mut(plane * SQUARES..(plane + 1) * SQUARES) {
            chunk.fill(v);
        }
    }
}

fn kind_plane(k: Kind) -> usize {
    match k {
        Kind::Soldier | Kind::King => 0,
        Kind::Trickster => 1,
        Kind::General => 2,
        Kind::Wizard => 3,
        Kind::Horse => 4,
    }
}

/// Direction index (north, east, south, west) and distance of a rook step.
fn dir_dist(from: u8, to: u8) -> (usize, usize) {
    let (ff, fr) = (
        (from as usize % SIZE) as isize,
        (from as usize / SIZE) as isize,
    );
    let (tf, tr) = ((to as usize % SIZE) as isize, (to as usize / SIZE) as isize);
    let (df, dr) = (tf - ff, tr - fr);
    let dist = df.abs().max(dr.abs()).max(1) as usize;
    let unit = (df.signum(), dr.signum());
    let dir = DIRECTIONS.iter().position(|&d| d == unit).unwrap_or(0);
    (dir, dist)
}

/// Flat policy index of an atomic action (see the module docs).
fn policy_index_tafl(action: TaflAction) -> usize {
    let at = |plane: usize, sq: u8| plane * SQUARES + sq as usize;
    let rook = |base: usize, from: u8, to: u8| {
        let (dir, dist) = dir_dist(from, to);
        at(base + dir * 10 + dist - 1, from)
    };
    match action {
        TaflAction::Move { from, to } | TaflAction::CommandSecond { from, to } => {
            rook(ROOK, from, to)
        }
        TaflAction::CommandFirst { from, to } => rook(COMMAND_PLANE, from, to),
        TaflAction::Hop { from, to } => at(HOP_PLANE + dir_dist(from, to).0, from),
        TaflAction::Freeze(t) => at(FREEZE_PLANE, t),
        TaflAction::ExchangeTarget(t) => at(TARGET_PLANE, t),
        TaflAction::ExchangePartner(o) => at(PARTNER_PLANE, o),
    }
}

/// Image of centred coordinates (or a direction vector) under D4 element
/// `sym`: mirror the files when `sym >= 4`, then rotate `sym % 4` quarter
/// turns anticlockwise.
pub fn d4(sym: usize, (mut x, mut y): (isize, isize)) -> (isize, isize) {
    if sym >= 4 {
        x = -x;
    }
    for _ in 0..sym % 4 {
        (x, y) = (-y, x);
    }
    (x, y)
}

/// Image of square `sq` under D4 element `sym` (0 = identity).
pub fn tafl_map_square(sym: usize, sq: usize) -> usize {
    let c = (SIZE / 2) as isize;
    let (x, y) = d4(sym, ((sq % SIZE) as isize - c, (sq / SIZE) as isize - c));
    ((y + c) as usize) * SIZE + (x + c) as usize
}

/// Image of direction index `dir` under D4 element `sym`.
pub fn tafl_map_direction(sym: usize, dir: usize) -> usize {
    let v = d4(sym, DIRECTIONS[dir % 4]);
    DIRECTIONS.iter().position(|&d| d == v).unwrap_or(dir)
}

/// Image of a policy plane: direction-indexed planes permute their
/// directions, the others are fixed.
fn tafl_map_policy_plane(sym: usize, plane: usize) -> usize {
    let rook = |base: usize| {
        let (dir, dist) = ((plane - base) / 10, (plane - base) % 10);
        base + tafl_map_direction(sym, dir) * 10 + dist
    };
    match plane {
        p if p < HOP_PLANE => rook(ROOK),
        p if p < FREEZE_PLANE => HOP_PLANE + tafl_map_direction(sym, p - HOP_PLANE),
        p if p >= COMMAND_PLANE => rook(COMMAND_PLANE),
        p => p,
    }
}

macro_rules! tafl_encode {
    ($game:ty, $planes:expr) => {
        impl Encode for $game {
            const INPUT_PLANES: usize = TAFL_INPUT_PLANES;
            const POLICY_PLANES: usize = $planes;
            const HEIGHT: usize = SIZE;
            const WIDTH: usize = SIZE;
            const SYMMETRIES: usize = 8;
            const ENCODING_VERSION: u32 = 1;

            fn encode(&self, out: &mut [f32]) {
                encode_tafl(self.state(), out)
            }

            fn policy_index(&self, action: TaflAction) -> usize {
                policy_index_tafl(action)
            }

            fn map_square(sym: usize, sq: usize) -> usize {
                tafl_map_square(sym, sq)
            }

            fn map_policy_plane(sym: usize, plane: usize) -> usize {
                tafl_map_policy_plane(sym, plane)
            }
        }
    };
}

tafl_encode!(Hnefatafl, HNEFATAFL_POLICY_PLANES);
tafl_encode!(Loki, LOKI_POLICY_PLANES);
tafl_encode!(Copenhagen, HNEFATAFL_POLICY_PLANES);
