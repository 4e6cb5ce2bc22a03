//! The board-level rulings of `copenhagen` (`docs/rules.md` §6) that differ
//! from `hnefatafl`, as the reference engine `hnefatafl-text-protocol`
//! (crate `hnefatafl-copenhagen` 6.4.1) decides them: the king taken only
//! when surrounded, the shieldwall, the edge fort, encirclement, the
//! engine's "the king cannot escape" adjudication and its move limit. The
//! rest (moves, custodial captures, hostile squares, the armed king) is the
//! shared tafl code.
//!
//! The functions here read the board only; the order in which they end a
//! game, and the defenders' repetition ban, are in `play.rs`.

use super::board::{
    anvil, bit, landing_captures, squares_of, step, Cells, Kind, CORNERS, SIZE, SQUARES, THRONE,
};
use super::movegen::remove_captured;
use crate::{EndReason, Outcome, Player};

/// A game still undecided after this many plies (counted from the position
/// it started from) is drawn by the move that reaches it: the engine's
/// limit of 140 plies before a move, "more than 140" drawing the 142nd.
pub const MOVE_LIMIT: u32 = 142;

const NORTH: usize = 0;
const EAST: usize = 1;
const SOUTH: usize = 2;
const WEST: usize = 3;
const LAST: usize = SIZE - 1;

/// What one copenhagen move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MoveResult {
    /// The king was captured (the attackers win).
    pub king_captured: bool,
    /// Some piece was captured.
    pub captured: bool,
}

#[inline]
fn attacker(cells: &Cells, sq: usize) -> bool {
    matches!(cells[sq], Some(p) if p.side == Player::First)
}

/// A defender, the king included.
#[inline]
fn defender(cells: &Cells, sq: usize) -> bool {
    matches!(cells[sq], Some(p) if p.side == Player::Second)
}

#[inline]
fn on_edge(sq: usize) -> bool {
    let (file, rank) = (sq % SIZE, sq / SIZE);
    file == 0 || rank == 0 || file == LAST || rank == LAST
}

/// The board's squares as a set.
const BOARD: u128 = (1u128 << SQUARES) - 1;

/// The squares of file `file` (0 = the a-file) as a set.
const fn file_mask(file: usize) -> u128 {
    let (mut m, mut rank) = (0u128, 0);
    while rank < SIZE {
        m |= bit(rank * SIZE + file);
        rank += 1;
    }
    m
}

/// The a-file and the k-file.
const FILE_A: u128 = file_mask(0);
const FILE_K: u128 = file_mask(LAST);
/// The edge squares.
const EDGE: u128 =
    FILE_A | FILE_K | ((1u128 << SIZE) - 1) | (((1u128 << SIZE) - 1) << (SQUARES - SIZE));

/// The squares one orthogonal step from a square of `x`.
#[inline]
fn neighbours(x: u128) -> u128 {
    ((x << SIZE) | (x >> SIZE) | ((x & !FILE_K) << 1) | ((x & !FILE_A) >> 1)) & BOARD
}

/// A board's pieces as sets of squares, from one pass over it.
struct Sides {
    attackers: u128,
    /// The defenders, the king included.
    defenders: u128,
    kings: u128,
    /// The first king's square (as [`king_of`]).
    king: Option<usize>,
}

impl Sides {
    fn of(cells: &Cells) -> Self {
        // Two 64-bit halves: a shift of a `u128` by a variable amount is
        // several instructions.
        let (mut a, mut d, mut k) = ([0u64; 2], [0u64; 2], [0u64; 2]);
        for (sq, cell) in cells.iter().enumerate() {
            if let Some(p) = cell {
                let (half, b) = (sq / 64, 1u64 << (sq % 64));
                if p.side == Player::First {
                    a[half] |= b;
                } else {
                    d[half] |= b;
                    if p.kind == Kind::King {
                        k[half] |= b;
                    }
                }
            }
        }
        let join = |h: [u64; 2]| u128::from(h[0]) | (u128::from(h[1]) << 64);
        let kings = join(k);
        Sides {
            attackers: join(a),
            defenders: join(d),
            kings,
            king: (kings != 0).then(|| kings.trailing_zeros() as usize),
        }
    }
}

/// A stack of squares (with a flag) on the call's own stack frame: the
/// board walks below push each square at most once, plus the king's four
/// neighbours of the edge-fort walk, so `SQUARES + 4` never overflows
/// (and a walk runs after every move: no allocation).
struct Walk<T: Copy + Default> {
    items: [T; SQUARES + 4],
    len: usize,
}

impl<T: Copy + Default> Walk<T> {
    fn new() -> Self {
        Walk {
            items: [T::default(); SQUARES + 4],
            len: 0,
        }
    }

    fn push(&mut self, item: T) {
        self.items[self.len] = item;
        self.len += 1;
    }

    fn pop(&mut self) -> Option<T> {
        self.len = self.len.checked_sub(1)?;
        Some(self.items[self.len])
    }
}

/// True when the king on `k` is captured: attackers on all four sides, or
/// on three sides with the (then empty) throne on the fourth. On the board
/// edge a side is missing, so the king there cannot be captured.
pub fn king_surrounded(cells: &Cells, k: usize) -> bool {
    (0..4).all(|d| match step(k, d) {
        None => false,
        Some(n) => n == THRONE || attacker(cells, n),
    })
}

/// The square one step inward from the edge square `sq` for a row running
/// in direction `dir`, or `None` when `sq` is not on an edge parallel to
/// `dir`.
fn inward(sq: usize, dir: usize) -> Option<usize> {
    let (file, rank) = (sq % SIZE, sq / SIZE);
    let inward_dir = match dir {
        // The row runs along a file: the a- or k-file edge.
        NORTH | SOUTH if file == 0 => EAST,
        NORTH | SOUTH if file == LAST => WEST,
        // The row runs along a rank: rank 1 or rank 11.
        EAST | WEST if rank == 0 => NORTH,
        EAST | WEST if rank == LAST => SOUTH,
        _ => return None,
    };
    step(sq, inward_dir)
}

/// Shieldwall captures made by `mover`'s piece that has just landed on the
/// edge square `to`: in each direction along the edge, a row of two or more
/// enemy pieces starting next to `to`, each with a `mover` piece directly
/// in front of it (inward), and closed at its far end by a `mover` piece or
/// an empty corner. Every piece of such a row but the king is captured.
pub fn shieldwall_captures(cells: &Cells, to: usize, mover: Player) -> u128 {
    let mut captured = 0u128;
    for dir in 0..4 {
        if inward(to, dir).is_none() {
            continue;
        }
        let (mut row, mut len, mut sq) = (0u128, 0, step(to, dir));
        let mut closed = false;
        while let Some(s) = sq {
            match cells[s] {
                Some(p) if p.side != mover => {
                    let front = inward(s, dir).and_then(|f| cells[f]);
                    if !matches!(front, Some(q) if q.side == mover) {
                        break;
                    }
                    if p.kind != Kind::King {
                        row |= bit(s);
                    }
                    len += 1;
                    sq = step(s, dir);
                }
                _ => {
                    closed = anvil(cells, s, mover);
                    break;
                }
            }
        }
        if closed && len >= 2 {
            captured |= row;
        }
    }
    captured
}

/// Encirclement (the attackers win): the squares the king reaches without
/// crossing an attacker (empty squares and defenders, one orthogonal step
/// at a time) include no edge square and hold every defender. Defenders
/// shut in apart from the king, or a second enclosure, do not count: all
/// of them must be in the king's one.
pub fn encircled(cells: &Cells) -> bool {
    encircled_sides(&Sides::of(cells))
}

/// [`encircled`] on the board's piece sets: the king's region grown one
/// step at a time as a set of squares.
fn encircled_sides(s: &Sides) -> bool {
    let Some(king) = s.king else {
        return false;
    };
    let passable = BOARD & !s.attackers;
    let (mut region, mut frontier) = (bit(king), bit(king));
    while frontier != 0 {
        if region & EDGE != 0 {
            return false;
        }
        frontier = neighbours(frontier) & passable & !region;
        region |= frontier;
    }
    region & EDGE == 0 && s.defenders & !region == 0
}

/// Neighbour steps of the edge-fort walk, in the engine's order (north,
/// west, south, east), each with the line along which a piece reached by
/// that step could still be captured: `true` for its east and west
/// neighbours (reached from the north or south), `false` for its north
/// and south neighbours.
const FORT_STEPS: [(usize, bool); 4] = [(NORTH, true), (WEST, false), (SOUTH, true), (EAST, false)];

/// Edge fort (the defenders win): the king on `k` is on the board edge,
/// has an empty square next to him, and the area of empty squares around
/// him is closed by defenders the attackers cannot capture.
///
/// The test is the engine's: a depth-first walk from the king's four
/// neighbours over empty squares (stack order north, west, south, east;
/// the king's neighbours are not marked as visited, so they may be
/// entered twice, and the king's own square may be entered once). Meeting
/// an attacker fails the fort. A defender met (the king included) must be
/// covered on the line across the step that reached it: one of the two
/// squares on that line is off the board or holds a defender. An uncovered
/// defender fails the fort only while the attackers have two or more
/// pieces. A defender is judged only by the first step that reached it,
/// so the order of the walk is part of the rule.
pub fn edge_fort(cells: &Cells, k: usize) -> bool {
    if !on_edge(k) || !(0..4).any(|d| step(k, d).is_some_and(|n| cells[n].is_none())) {
        return false;
    }
    let armed = (0..SQUARES)
        .filter(|&sq| attacker(cells, sq))
        .take(2)
        .count()
        == 2;
    let covered = |sq: usize, d: usize| step(sq, d).is_none_or(|n| defender(cells, n));
    let mut marked = 0u128;
    let mut stack: Walk<(usize, bool)> = Walk::new();
    for (d, east_west) in FORT_STEPS {
        if let Some(n) = step(k, d) {
            stack.push((n, east_west));
        }
    }
    while let Some((sq, east_west)) = stack.pop() {
        match cells[sq] {
            None => {
                for (d, ew) in FORT_STEPS {
                    if let Some(n) = step(sq, d) {
                        if marked & bit(n) == 0 {
                            marked |= bit(n);
                            stack.push((n, ew));
                        }
                    }
                }
            }
            Some(p) if p.side == Player::First => return false,
            Some(_) => {
                let (a, b) = if east_west {
                    (EAST, WEST)
                } else {
                    (NORTH, SOUTH)
                };
                if armed && !covered(sq, a) && !covered(sq, b) {
                    return false;
                }
            }
        }
    }
    true
}

/// The engine's "king trapped on the edge" test for the king on `k`, with
/// `defenders` defenders (the king not counted) and `attackers` attackers
/// on the board. The king must be on an edge, at least two squares from
/// each corner along it; the two edge squares on each side of him must be
/// attackers, except that a corner among them counts as one more attacker
/// instead. Then, with more than five attackers (so counted), the two
/// squares straight inward from him must be attackers too; and the king is
/// trapped when fewer than two defenders are left, or when more than seven
/// attackers are and, on one side of him, the two squares inward from the
/// edge square next to him are attackers.
pub fn king_trapped(cells: &Cells, k: usize, defenders: usize, mut attackers: usize) -> bool {
    let (file, rank) = (k % SIZE, k / SIZE);
    // The edge (tested in the engine's order: a-file, k-file, rank 11,
    // rank 1), the inward step, and the king's place along the edge.
    let (inward, along, place) = if file == 0 {
        (EAST, NORTH, rank)
    } else if file == LAST {
        (WEST, NORTH, rank)
    } else if rank == LAST {
        (SOUTH, EAST, file)
    } else if rank == 0 {
        (NORTH, EAST, file)
    } else {
        return false;
    };
    if !(2..=LAST - 2).contains(&place) {
        return false;
    }
    let square_at = |p: usize| {
        if along == NORTH {
            p * SIZE + file
        } else {
            rank * SIZE + p
        }
    };
    for p in [place - 2, place - 1, place + 1, place + 2] {
        if p == 0 || p == LAST {
            attackers += 1;
        } else if !attacker(cells, square_at(p)) {
            return false;
        }
    }
    // Two squares straight inward from `sq` are attackers.
    let inward_pair = |sq: usize| {
        let one = step(sq, inward);
        let two = one.and_then(|s| step(s, inward));
        matches!((one, two), (Some(a), Some(b)) if attacker(cells, a) && attacker(cells, b))
    };
    if attackers > 5 && !inward_pair(k) {
        return false;
    }
    defenders < 2
        || (attackers > 7
            && [square_at(place + 1), square_at(place - 1)]
                .into_iter()
                .any(inward_pair))
}

/// The two neighbours of `corner` along the edges, and whether they and
/// the square beyond each are all attackers (the first way a corner is
/// sealed; then those five squares are added to `sealed`). `None` when
/// `corner` has not two such neighbours (no corner).
fn corner_wall(cells: &Cells, corner: usize, sealed: &mut u128) -> Option<([usize; 2], bool)> {
    let mut next = [0usize; 2];
    let mut beyond = [0usize; 2];
    let mut found = 0;
    for d in 0..4 {
        if let Some(n) = step(corner, d) {
            *next.get_mut(found)? = n;
            beyond[found] = step(n, d)?;
            found += 1;
        }
    }
    if found != 2 {
        return None;
    }
    let walled = next.iter().chain(&beyond).all(|&sq| attacker(cells, sq));
    if walled {
        *sealed |= bit(corner) | bit(next[0]) | bit(next[1]) | bit(beyond[0]) | bit(beyond[1]);
    }
    Some((next, walled))
}

/// The corner `corner` is sealed off (the engine's `closed_off_exit`):
/// either its two neighbours along the edges and the square beyond each
/// are all attackers, or no defender (the king included) is next to the
/// area reached from it. That area is walked from the corner's two
/// neighbours: a neighbour that is empty or an attacker opens the walk to
/// its own neighbours (a defender there is passed over, and not seen); then
/// empty squares lead on, attackers stop the walk, and any defender reached
/// unseals the corner. On success the corner's sealed edge squares (the
/// corner, the empty or attacker neighbours and the empty edge squares
/// reached; in the first case the five squares named) are added to
/// `sealed`. The walk runs on sets of squares, one step for all of its
/// front at a time (the engine's walk is depth first; what it reaches is
/// the same).
fn corner_sealed(cells: &Cells, s: &Sides, corner: usize, sealed: &mut u128) -> bool {
    let Some((next, walled)) = corner_wall(cells, corner, sealed) else {
        return false;
    };
    if walled {
        return true;
    }
    let empty = BOARD & !(s.attackers | s.defenders);
    let mut seen = bit(corner) | bit(next[0]) | bit(next[1]);
    let mut front = next
        .iter()
        .filter(|&&n| s.defenders & bit(n) == 0)
        .fold(0u128, |m, &n| m | bit(n));
    let mut reached = bit(corner) | front;
    while front != 0 {
        let fresh = neighbours(front) & !seen;
        if fresh & s.defenders != 0 {
            return false;
        }
        seen |= fresh;
        front = fresh & empty;
        reached |= front & EDGE;
    }
    *sealed |= reached;
    true
}

/// The squares of the four board edges, each edge in order.
fn edge_lines() -> impl Iterator<Item = [usize; SIZE]> {
    (0..4).map(|e| {
        std::array::from_fn(|i| match e {
            0 => i * SIZE,
            1 => i * SIZE + LAST,
            2 => LAST * SIZE + i,
            _ => i,
        })
    })
}

/// Each board edge has at most one run of open squares (neither an
/// attacker nor in `sealed`), at most `n` long.
fn edge_gaps_at_most(cells: &Cells, sealed: u128, n: usize) -> bool {
    edge_lines().all(|line| {
        let (mut runs, mut open, mut in_run) = (0, 0, false);
        for sq in line {
            let is_open = !attacker(cells, sq) && sealed & bit(sq) == 0;
            if is_open && !in_run {
                runs += 1;
            }
            in_run = is_open;
            open += usize::from(is_open);
        }
        runs <= 1 && open <= n
    })
}

/// The engine's adjudication that the king cannot escape (the attackers
/// win), tested after every move that leaves the game going: the king
/// trapped on the edge ([`king_trapped`]), or every corner sealed off
/// (see `corner_sealed`) and then one of: fewer than four defenders
/// (the king not counted) against thirteen or more attackers; fewer than
/// six defenders and at most one run of at most three open edge squares
/// on each edge; at most one run of at most two open squares on each edge.
/// Open edge squares are those neither held by an attacker nor among the
/// sealed corners' edge squares. Without a king it is true.
// Out of line, as `move_outcome`: the shared tafl move path stays small.
#[inline(never)]
pub fn escape_impossible(cells: &Cells) -> bool {
    escape_impossible_sides(cells, &Sides::of(cells))
}

/// [`escape_impossible`] with the board's piece sets `s` at hand.
fn escape_impossible_sides(cells: &Cells, s: &Sides) -> bool {
    let Some(king) = s.king else {
        return true;
    };
    let attackers = s.attackers.count_ones() as usize;
    let defenders = (s.defenders & !s.kings).count_ones() as usize;
    if king_trapped(cells, king, defenders, attackers) {
        return true;
    }
    let mut sealed = 0u128;
    if !CORNERS
        .iter()
        .all(|&c| corner_sealed(cells, s, c, &mut sealed))
    {
        return false;
    }
    (defenders < 4 && attackers >= 13)
        || (defenders < 6 && edge_gaps_at_most(cells, sealed, 3))
        || edge_gaps_at_most(cells, sealed, 2)
}

/// The end a board shows right after a move landing on `to` (in the
/// engine's order): the king on a corner (the defenders win), the king
/// captured (`king_captured`; the attackers win), an edge fort (the
/// defenders), encirclement (the attackers), no attacker left (the
/// defenders: the attackers have no move), and at [`MOVE_LIMIT`] plies (`ply`
/// counts this move) a draw; then the engine's adjudication that the king
/// cannot escape ([`escape_impossible`], the attackers win), which it makes
/// after a move that leaves the game going. One pass over the board serves
/// all of them.
// Out of line: the tafl move path shared with `hnefatafl` stays small.
#[inline(never)]
pub(crate) fn move_outcome(
    cells: &Cells,
    to: usize,
    king_captured: bool,
    ply: u32,
) -> Option<Outcome> {
    let sides = Sides::of(cells);
    if sides.king == Some(to) && CORNERS.contains(&to) {
        return Some(Outcome::win(Player::Second, EndReason::KingEscaped));
    }
    static_or_limit(cells, &sides, king_captured, ply).or_else(|| {
        escape_impossible_sides(cells, &sides)
            .then(|| Outcome::win(Player::First, EndReason::KingCaptured))
    })
}

/// The ends a position text shows (no move to judge): no king (the
/// attackers win), the king on a corner, then as [`move_outcome`] without
/// the move limit, and then [`escape_impossible`].
pub(crate) fn text_outcome(cells: &Cells) -> Option<Outcome> {
    let sides = Sides::of(cells);
    if sides.king.is_some_and(|k| CORNERS.contains(&k)) {
        return Some(Outcome::win(Player::Second, EndReason::KingEscaped));
    }
    static_or_limit(cells, &sides, sides.king.is_none(), 0).or_else(|| {
        escape_impossible_sides(cells, &sides)
            .then(|| Outcome::win(Player::First, EndReason::KingCaptured))
    })
}

fn static_or_limit(cells: &Cells, s: &Sides, king_captured: bool, ply: u32) -> Option<Outcome> {
    if king_captured {
        return Some(Outcome::win(Player::First, EndReason::KingCaptured));
    }
    if s.king.is_some_and(|k| edge_fort(cells, k)) {
        return Some(Outcome::win(Player::Second, EndReason::KingEscaped));
    }
    if encircled_sides(s) {
        return Some(Outcome::win(Player::First, EndReason::KingCaptured));
    }
    if s.attackers == 0 {
        return Some(Outcome::win(Player::Second, EndReason::NoLegalAction));
    }
    (ply >= MOVE_LIMIT).then(|| Outcome::draw(EndReason::PlyCap))
}

/// Play a plain move of `side`'s piece on `cells` under the copenhagen
/// rulings: custodial captures around the landing square (never the king),
/// shieldwall captures, and the king taken when surrounded by a move of
/// the attackers next to him.
pub(crate) fn play_move(cells: &mut Cells, from: usize, to: usize, side: Player) -> MoveResult {
    cells[to] = cells[from].take();
    let mut captured = landing_captures(cells, to, side);
    for sq in squares_of(captured) {
        if matches!(cells[sq], Some(p) if p.kind == Kind::King) {
            captured &= !bit(sq);
        }
    }
    captured |= shieldwall_captures(cells, to, side);
    if side == Player::First {
        for d in 0..4 {
            if let Some(n) = step(to, d) {
                if matches!(cells[n], Some(p) if p.kind == Kind::King) && king_surrounded(cells, n)
                {
                    captured |= bit(n);
                }
            }
        }
    }
    let king_captured = remove_captured(cells, captured);
    MoveResult {
        king_captured,
        captured: captured != 0,
    }
}

/// The board walks as first written, square by square in the engine's
/// depth-first order: the reference the set-based walks above are checked
/// against.
#[cfg(test)]
mod walk_reference {
    use super::super::board::{bit, step, Cells, Kind, SQUARES};
    use super::{attacker, defender, on_edge};
    use crate::Player;

    fn king_of(cells: &Cells) -> Option<usize> {
        cells
            .iter()
            .position(|c| matches!(c, Some(p) if p.kind == Kind::King))
    }

    /// Push every neighbour of `sq` not yet in `marked`, marking it.
    fn push_unmarked(sq: usize, marked: &mut u128, stack: &mut Vec<usize>) {
        for d in 0..4 {
            if let Some(n) = step(sq, d) {
                if *marked & bit(n) == 0 {
                    *marked |= bit(n);
                    stack.push(n);
                }
            }
        }
    }

    /// Encirclement (the attackers win): the squares the king reaches without
    /// crossing an attacker (empty squares and defenders, one orthogonal step
    /// at a time) include no edge square and hold every defender. Defenders
    /// shut in apart from the king, or a second enclosure, do not count: all
    /// of them must be in the king's one.
    pub(super) fn encircled(cells: &Cells) -> bool {
        let Some(king) = king_of(cells) else {
            return false;
        };
        let mut region = bit(king);
        let mut stack = Vec::with_capacity(SQUARES);
        stack.push(king);
        while let Some(sq) = stack.pop() {
            if on_edge(sq) {
                return false;
            }
            for d in 0..4 {
                if let Some(n) = step(sq, d) {
                    if region & bit(n) == 0 && !attacker(cells, n) {
                        region |= bit(n);
                        stack.push(n);
                    }
                }
            }
        }
        (0..SQUARES).all(|sq| !defender(cells, sq) || region & bit(sq) != 0)
    }

    /// The corner `corner` is sealed off (the engine's `closed_off_exit`):
    /// either its two neighbours along the edges and the square beyond each
    /// are all attackers, or no defender (the king included) is next to the
    /// area reached from it. That area is walked from the corner's two
    /// neighbours: a neighbour that is empty or an attacker opens the walk to
    /// its own neighbours (a defender there is passed over, and not seen); then
    /// empty squares lead on, attackers stop the walk, and any defender reached
    /// unseals the corner. On success the corner's sealed edge squares (the
    /// corner, the empty or attacker neighbours and the empty edge squares
    /// reached; in the first case the five squares named) are added to
    /// `sealed`.
    pub(super) fn corner_sealed(cells: &Cells, corner: usize, sealed: &mut u128) -> bool {
        let Some((next, walled)) = super::corner_wall(cells, corner, sealed) else {
            return false;
        };
        if walled {
            return true;
        }
        let mut marked = bit(corner) | bit(next[0]) | bit(next[1]);
        let mut reached = bit(corner);
        let mut stack = Vec::with_capacity(SQUARES);
        for n in next {
            if !defender(cells, n) {
                reached |= bit(n);
                push_unmarked(n, &mut marked, &mut stack);
            }
        }
        while let Some(sq) = stack.pop() {
            match cells[sq] {
                None => {
                    if on_edge(sq) {
                        reached |= bit(sq);
                    }
                    push_unmarked(sq, &mut marked, &mut stack);
                }
                Some(p) if p.side == Player::Second => return false,
                Some(_) => {}
            }
        }
        *sealed |= reached;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::board::{Piece, GEOMETRY};
    use super::super::games::{Copenhagen, COPENHAGEN_START};
    use super::super::TaflAction;
    use super::MOVE_LIMIT;
    use crate::{EndReason, Game, Outcome, Player};

    /// A copenhagen position from `(square, piece letter)` pairs.
    fn position(pieces: &[(&str, char)], side: char) -> Copenhagen {
        let mut cells = [None; super::SQUARES];
        for &(sq, c) in pieces {
            let sq = GEOMETRY.parse_square(sq).expect("a square");
            cells[sq] = Some(Piece::from_char(c).expect("a piece"));
        }
        let board = GEOMETRY.format_board(&cells, Piece::to_char);
        Copenhagen::from_text(&format!("{board} {side}")).expect("a legal position")
    }

    fn play(game: &mut Copenhagen, token: &str) {
        let actions = game.parse_move(token).expect("a legal move");
        for a in actions {
            game.play(a);
        }
    }

    fn at(game: &Copenhagen, sq: &str) -> Option<char> {
        let sq = GEOMETRY.parse_square(sq).expect("a square");
        game.state().piece_at(sq).map(Piece::to_char)
    }

    fn attackers_win() -> Option<Outcome> {
        Some(Outcome::win(Player::First, EndReason::KingCaptured))
    }

    #[test]
    fn exported_and_round_trips() {
        use crate::Copenhagen as Exported;
        let mut game = Exported::start();
        play(&mut game, "d1d3");
        let text = game.to_text();
        assert_eq!(Copenhagen::from_text(&text).map(|g| g.to_text()), Ok(text));
        // Powers and special pieces are refused, as in hnefatafl.
        assert!(Copenhagen::from_text(&format!("{COPENHAGEN_START} 3333/3333 -")).is_err());
    }

    #[test]
    fn start_is_the_hnefatafl_start() {
        let game = Copenhagen::start();
        assert_eq!(game.to_text(), COPENHAGEN_START);
        assert_eq!(game.side_to_move(), Player::First);
        assert_eq!(game.legal_vec().len(), 116);
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn start_perft_agrees_with_hnefatafl_while_the_rules_cannot_differ() {
        // In three plies no king, shieldwall or encirclement capture and no
        // repetition is possible: the counts are hnefatafl's (§3). At four
        // plies the defenders' repetition ban already differs (a move and
        // its undoing on both sides recreates the start).
        let start = Copenhagen::start();
        let counts: Vec<u64> = (1..=3).map(|d| crate::perft(&start, d)).collect();
        assert_eq!(counts, [116, 6788, 806344]);
    }

    #[test]
    fn custodial_capture() {
        let mut game = position(&[("e3", 'S'), ("d3", 's'), ("f1", 's'), ("f9", 'K')], 'a');
        play(&mut game, "f1f3");
        assert_eq!(at(&game, "e3"), None);
        assert_eq!(game.outcome(), None);
        // Moving between two enemies is safe.
        let mut game = position(&[("d3", 's'), ("f3", 's'), ("e9", 'S'), ("f9", 'K')], 'd');
        play(&mut game, "e9e3");
        assert_eq!(at(&game, "e3"), Some('S'));
    }

    #[test]
    fn the_king_is_armed() {
        // Hammer: the king lands on e6 (over the empty throne) and takes e5
        // against the defender on e4.
        let mut game = position(&[("e5", 's'), ("e4", 'S'), ("h6", 'K'), ("a9", 's')], 'd');
        play(&mut game, "h6e6");
        assert_eq!(at(&game, "e5"), None);
        // Anvil: a defender takes c5 against the king on c4.
        let mut game = position(&[("c5", 's'), ("c4", 'K'), ("h6", 'S'), ("a9", 's')], 'd');
        play(&mut game, "h6c6");
        assert_eq!(at(&game, "c5"), None);
    }

    #[test]
    fn the_king_is_not_taken_between_two() {
        let mut game = position(&[("d4", 'K'), ("c4", 's'), ("e2", 's')], 'a');
        play(&mut game, "e2e4");
        assert_eq!(at(&game, "d4"), Some('K'));
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn the_king_is_taken_on_four_sides() {
        let mut game = position(
            &[
                ("d4", 'K'),
                ("c4", 's'),
                ("e4", 's'),
                ("d5", 's'),
                ("d1", 's'),
            ],
            'a',
        );
        play(&mut game, "d1d3");
        assert_eq!(at(&game, "d4"), None);
        assert_eq!(game.outcome(), attackers_win());
        assert!(game.legal_vec().is_empty());
    }

    #[test]
    fn the_king_is_taken_on_three_sides_and_the_throne() {
        // f7 is next to the throne f6.
        let mut game = position(&[("f7", 'K'), ("e7", 's'), ("g7", 's'), ("h8", 's')], 'a');
        play(&mut game, "h8f8");
        assert_eq!(game.outcome(), attackers_win());
        // On the throne all four sides are needed.
        let mut game = position(&[("f6", 'K'), ("e6", 's'), ("g6", 's'), ("h7", 's')], 'a');
        play(&mut game, "h7f7");
        assert_eq!(game.outcome(), None);
        let mut game = position(
            &[
                ("f6", 'K'),
                ("e6", 's'),
                ("g6", 's'),
                ("f5", 's'),
                ("h7", 's'),
            ],
            'a',
        );
        play(&mut game, "h7f7");
        assert_eq!(game.outcome(), attackers_win());
    }

    #[test]
    fn the_king_on_the_edge_is_not_taken() {
        let mut game = position(
            &[
                ("a5", 'K'),
                ("a4", 's'),
                ("a6", 's'),
                ("d5", 's'),
                ("h9", 'S'),
            ],
            'a',
        );
        play(&mut game, "d5b5");
        assert_eq!(at(&game, "a5"), Some('K'));
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn shieldwall() {
        // c1 d1 on the edge, c2 d2 in front, b1 and the arriving e1 bracket.
        let pieces = [
            ("c1", 'S'),
            ("d1", 'S'),
            ("c2", 's'),
            ("d2", 's'),
            ("b1", 's'),
            ("e5", 's'),
            ("f9", 'K'),
        ];
        let mut game = position(&pieces, 'a');
        play(&mut game, "e5e1");
        assert_eq!((at(&game, "c1"), at(&game, "d1")), (None, None));
        // The king in the wall is not taken; the rest of the wall is.
        let mut game = position(
            &[
                ("c1", 'S'),
                ("d1", 'K'),
                ("c2", 's'),
                ("d2", 's'),
                ("b1", 's'),
                ("e5", 's'),
            ],
            'a',
        );
        play(&mut game, "e5e1");
        assert_eq!((at(&game, "c1"), at(&game, "d1")), (None, Some('K')));
        assert_eq!(game.outcome(), None);
        // A corner brackets one end.
        let mut game = position(
            &[
                ("b1", 'S'),
                ("c1", 'S'),
                ("b2", 's'),
                ("c2", 's'),
                ("d5", 's'),
                ("f9", 'K'),
            ],
            'a',
        );
        play(&mut game, "d5d1");
        assert_eq!((at(&game, "b1"), at(&game, "c1")), (None, None));
        // A gap in the front row: no capture.
        let mut game = position(
            &[
                ("c1", 'S'),
                ("d1", 'S'),
                ("c2", 's'),
                ("b1", 's'),
                ("e5", 's'),
                ("f9", 'K'),
            ],
            'a',
        );
        play(&mut game, "e5e1");
        assert_eq!((at(&game, "c1"), at(&game, "d1")), (Some('S'), Some('S')));
    }

    #[test]
    fn shieldwall_by_the_defenders_with_the_king() {
        // k4 k5 on the k-file edge, j4 j5 in front; the king on k3 closes
        // one end, the defender arriving on k6 the other.
        let pieces = [
            ("k4", 's'),
            ("k5", 's'),
            ("j4", 'S'),
            ("j5", 'S'),
            ("k3", 'K'),
            ("h6", 'S'),
            ("a9", 's'),
        ];
        let mut game = position(&pieces, 'd');
        play(&mut game, "h6k6");
        assert_eq!((at(&game, "k4"), at(&game, "k5")), (None, None));
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn the_king_wins_on_a_corner() {
        let mut game = position(&[("a5", 'K'), ("f9", 's')], 'd');
        play(&mut game, "a5a1");
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(Player::Second, EndReason::KingEscaped))
        );
    }

    #[test]
    fn no_legal_move_loses() {
        // The attacker on a2 is shut in by the corner, a3 and b2.
        let mut game = position(&[("a2", 's'), ("a3", 'S'), ("b5", 'S'), ("f9", 'K')], 'd');
        play(&mut game, "b5b2");
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(Player::Second, EndReason::NoLegalAction))
        );
        // Read from a text, the side to move without a move has lost.
        let game = position(&[("a2", 's'), ("a3", 'S'), ("b2", 'S'), ("f9", 'K')], 'a');
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(Player::Second, EndReason::NoLegalAction))
        );
    }

    #[test]
    fn throne_rules() {
        // Only the king may stop on the throne; every piece passes over it.
        let game = position(&[("c6", 's'), ("f9", 'K')], 'a');
        let texts: Vec<String> = game
            .legal_vec()
            .into_iter()
            .map(|a| game.action_to_text(a))
            .collect();
        assert!(!texts.contains(&"c6f6".to_string()));
        assert!(texts.contains(&"c6g6".to_string()));
        let game = position(&[("c6", 'K'), ("a9", 's')], 'd');
        assert!(game.parse_move("c6f6").is_ok());
        // The empty throne is hostile to defenders...
        let mut game = position(&[("f5", 'S'), ("h4", 's'), ("f9", 'K')], 'a');
        play(&mut game, "h4f4");
        assert_eq!(at(&game, "f5"), None);
        // ...but not while the king is on it...
        let mut game = position(&[("f5", 'S'), ("h4", 's'), ("f6", 'K')], 'a');
        play(&mut game, "h4f4");
        assert_eq!(at(&game, "f5"), Some('S'));
        // ...and always hostile to attackers.
        let mut game = position(&[("f5", 's'), ("h4", 'S'), ("f9", 'K')], 'd');
        play(&mut game, "h4f4");
        assert_eq!(at(&game, "f5"), None);
    }

    #[test]
    fn the_defenders_may_not_repeat_a_position() {
        let mut game = position(&[("k10", 's'), ("c3", 'S'), ("f9", 'K')], 'a');
        for token in ["k10k9", "c3c4", "k9k10"] {
            play(&mut game, token);
        }
        // c4c3 would recreate the start position.
        assert!(game.parse_move("c4c3").is_err());
        let c4c3 = TaflAction::Move {
            from: GEOMETRY.parse_square("c4").expect("c4") as u8,
            to: GEOMETRY.parse_square("c3").expect("c3") as u8,
        };
        assert!(!game.legal_vec().contains(&c4c3));
        assert!(game.state().has_refusals());
        // The attackers may repeat: k10k9 recreates an earlier board.
        play(&mut game, "c4c5");
        play(&mut game, "k10k9");
        assert_eq!(game.outcome(), None);
    }

    /// The king and a defender in a corner of attackers; `e7e3` closes
    /// the ring.
    const RING: [(&str, char); 8] = [
        ("c3", 'K'),
        ("d3", 'S'),
        ("b3", 's'),
        ("c2", 's'),
        ("d2", 's'),
        ("c4", 's'),
        ("d4", 's'),
        ("e7", 's'),
    ];

    #[test]
    fn encirclement_wins_for_the_attackers() {
        let mut game = position(&RING, 'a');
        assert_eq!(game.outcome(), None);
        play(&mut game, "e7e3");
        assert_eq!(at(&game, "d3"), Some('S'));
        assert_eq!(game.outcome(), attackers_win());
    }

    fn defenders_win(reason: EndReason) -> Option<Outcome> {
        Some(Outcome::win(Player::Second, reason))
    }

    #[test]
    fn repetition_ignores_the_side_to_move() {
        // k10k9 then c3c4, k9k10, c4c5, k10k9: the board with c5 back on c3
        // occurred after the attackers' first move, with the defenders to
        // move; the engine compares boards only, so c5c3 is refused.
        let mut game = position(&[("k10", 's'), ("c3", 'S'), ("f9", 'K')], 'a');
        for token in ["k10k9", "c3c4", "k9k10", "c4c5", "k10k9"] {
            play(&mut game, token);
        }
        assert!(game.parse_move("c5c3").is_err());
        assert!(game.parse_move("c5c2").is_ok());
    }

    #[test]
    fn repetition_compares_the_board_before_its_captures() {
        // e8e5 puts an attacker between d5 and f5 (safe). d5 steps away,
        // the attackers go round j2-j3-j4-j2 and b9 goes to b10 and back.
        // d4d5 would capture e5, but the board it makes before the capture
        // is the one after e8e5: refused.
        let mut game = position(
            &[
                ("d5", 'S'),
                ("f5", 'S'),
                ("b9", 'S'),
                ("h9", 'K'),
                ("e8", 's'),
                ("j2", 's'),
            ],
            'a',
        );
        for token in ["e8e5", "d5d4", "j2j3", "b9b10", "j3j4", "b10b9", "j4j2"] {
            play(&mut game, token);
        }
        assert!(game.parse_move("d4d5").is_err());
        assert!(game.parse_move("d4d3").is_ok());
    }

    #[test]
    fn repetition_can_leave_the_defenders_without_a_move() {
        // The king's only moves are d1-d2 and back (capturing nothing);
        // the attackers shuffle j9-j8. Once the board of the start is
        // back, d1d2 would make the board after the first move again: no
        // legal move, a loss. (The defenders shut in on a4 and a8 keep the
        // engine's "king cannot escape" test away: two open runs on the
        // a-file edge.)
        let mut game = position(
            &[
                ("d1", 'K'),
                ("c1", 's'),
                ("e1", 's'),
                ("c2", 's'),
                ("e2", 's'),
                ("d3", 's'),
                ("j9", 's'),
                ("a4", 'S'),
                ("a3", 's'),
                ("a5", 's'),
                ("b4", 's'),
                ("a8", 'S'),
                ("a7", 's'),
                ("a9", 's'),
                ("b8", 's'),
            ],
            'd',
        );
        for token in ["d1d2", "j9j8", "d2d1", "j8j9"] {
            assert_eq!(game.outcome(), None);
            play(&mut game, token);
        }
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(Player::First, EndReason::NoLegalAction))
        );
    }

    /// The king on a6 next to the empty a5; `extra` adds pieces.
    fn fort_position(extra: &[(&'static str, char)], side: char) -> Copenhagen {
        let mut pieces = vec![("a6", 'K'), ("a7", 'S'), ("b6", 'S'), ("h10", 's')];
        pieces.extend_from_slice(extra);
        position(&pieces, side)
    }

    #[test]
    fn edge_fort_wins_for_the_defenders() {
        // a7, b6, b5 and the arriving a4 close a5: every one of them has a
        // defender or the board edge on a side across the step that
        // reaches it.
        let mut game = fort_position(&[("b5", 'S'), ("d4", 'S'), ("h2", 's')], 'd');
        assert_eq!(game.outcome(), None);
        play(&mut game, "d4a4");
        assert_eq!(game.outcome(), defenders_win(EndReason::KingEscaped));
        // A position text showing a fort is a finished game.
        let game = fort_position(&[("b5", 'S'), ("a4", 'S'), ("h9", 's')], 'a');
        assert_eq!(game.outcome(), defenders_win(EndReason::KingEscaped));
        // No fort while the king has no empty neighbour.
        let mut game = fort_position(&[("b5", 'S'), ("a5", 'S'), ("d4", 'S'), ("h9", 's')], 'd');
        play(&mut game, "d4a4");
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn edge_fort_needs_covered_defenders() {
        // The area is a5 and b5, closed by a4, b4, c5 (arriving), b6 and
        // a7; c4 covers c5. b6 is reached first from the king (eastwards):
        // across that step its north and south neighbours b7 and b5 hold
        // no defender, so the engine finds it capturable and there is no
        // fort, although b5 is inside the fort and the king guards b6's
        // west.
        let open = [
            ("a4", 'S'),
            ("b4", 'S'),
            ("c4", 'S'),
            ("d5", 'S'),
            ("h2", 's'),
        ];
        let mut game = fort_position(&open, 'd');
        play(&mut game, "d5c5");
        assert_eq!(game.outcome(), None);
        // With a defender on b7, b6 is covered: a fort.
        let mut game = fort_position(&[open.as_slice(), &[("b7", 'S')]].concat(), 'd');
        play(&mut game, "d5c5");
        assert_eq!(game.outcome(), defenders_win(EndReason::KingEscaped));
        // With a single attacker left the coverage is not asked for.
        let mut game = fort_position(&open[..4], 'd');
        play(&mut game, "d5c5");
        assert_eq!(game.outcome(), defenders_win(EndReason::KingEscaped));
        // An attacker inside the area: no fort.
        let inside = [open.as_slice(), &[("b7", 'S'), ("b5", 's')]].concat();
        let mut game = fort_position(&inside, 'd');
        play(&mut game, "d5c5");
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn encirclement_needs_every_defender_with_the_king() {
        // As in encirclement_wins_for_the_attackers, plus a defender on h8
        // outside the ring: the engine plays on.
        let ring = [RING.as_slice(), &[("h8", 'S')]].concat();
        let mut game = position(&ring, 'a');
        play(&mut game, "e7e3");
        assert_eq!(game.outcome(), None);
        // Shut in on his own (by g8, i8, h7 and h9) he is still not with
        // the king: no encirclement. The attackers win all the same, by
        // the "king cannot escape" test (no defender next to the area of
        // any corner, no open edge square).
        let shut = [("g8", 's'), ("i8", 's'), ("h7", 's'), ("h9", 's')];
        let mut game = position(&[ring.as_slice(), &shut].concat(), 'a');
        play(&mut game, "e7e3");
        let cells = &game.state().cells;
        assert!(!super::encircled(cells));
        assert!(super::escape_impossible(cells));
        assert_eq!(game.outcome(), attackers_win());
    }

    #[test]
    fn the_king_trapped_on_the_edge_loses() {
        // The king on a6: attackers on a4, a5, a7, a8 beside him, on b6 and
        // c6 straight inward, and (with more than seven attackers) on b7
        // and c7 diagonally inward once c9c7 is played.
        let mut pieces = vec![
            ("a6", 'K'),
            ("a4", 's'),
            ("a5", 's'),
            ("a7", 's'),
            ("a8", 's'),
            ("b6", 's'),
            ("c6", 's'),
            ("b7", 's'),
            ("c9", 's'),
            ("h3", 'S'),
            ("h4", 'S'),
        ];
        let mut game = position(&pieces, 'a');
        assert_eq!(game.outcome(), None);
        play(&mut game, "c9c7");
        assert_eq!(game.outcome(), attackers_win());
        // Without the diagonal pair, two defenders keep the game going...
        let mut game = position(&pieces, 'a');
        play(&mut game, "c9d9");
        assert_eq!(game.outcome(), None);
        // ...but one defender alone does not, once c6 is taken too.
        pieces.retain(|&(sq, _)| sq != "h4" && sq != "c6");
        let mut game = position(&pieces, 'a');
        assert_eq!(game.outcome(), None);
        play(&mut game, "c9c6");
        assert_eq!(game.outcome(), attackers_win());
        // Two squares from a corner, the corner stands in for an attacker
        // (seven attackers count as eight: enough for the diagonal pair).
        let corner = [
            ("a3", 'K'),
            ("a2", 's'),
            ("a4", 's'),
            ("a5", 's'),
            ("b3", 's'),
            ("c3", 's'),
            ("b4", 's'),
            ("c9", 's'),
            ("h3", 'S'),
            ("h4", 'S'),
        ];
        let mut game = position(&corner, 'a');
        assert_eq!(game.outcome(), None);
        play(&mut game, "c9c4");
        assert_eq!(game.outcome(), attackers_win());
        // One square from a corner the test does not apply.
        let mut game = position(
            &[
                ("a2", 'K'),
                ("a3", 's'),
                ("a4", 's'),
                ("b2", 's'),
                ("c2", 's'),
                ("j9", 's'),
            ],
            'a',
        );
        play(&mut game, "j9j8");
        assert_eq!(game.outcome(), None);
    }

    /// Attackers on the squares four steps from each corner (a diagonal
    /// wall of five per corner) but `missing`, the king and three
    /// defenders in the middle.
    fn walled(missing: &str, extra: &[(&'static str, char)]) -> Copenhagen {
        let walls = [
            "a5", "b4", "c3", "d2", "e1", "k5", "j4", "i3", "h2", "g1", "a7", "b8", "c9", "d10",
            "e11", "k7", "j8", "i9", "h10", "g11",
        ];
        let mut pieces: Vec<(&str, char)> = walls
            .iter()
            .filter(|&&sq| sq != missing)
            .map(|&sq| (sq, 's'))
            .collect();
        pieces.extend_from_slice(&[("f6", 'K'), ("e6", 'S'), ("g6", 'S'), ("f7", 'S')]);
        pieces.extend_from_slice(extra);
        position(&pieces, 'a')
    }

    #[test]
    fn sealed_corners_lose_for_the_defenders() {
        // Every corner walled off: each edge keeps one open square between
        // two walls (a6, f1, k6, f11), so the engine rules that the king
        // cannot escape, though he can still move.
        let mut game = walled("e11", &[("e9", 's')]);
        assert_eq!(game.outcome(), None);
        play(&mut game, "e9e11");
        assert_eq!(game.outcome(), attackers_win());
        // A defender behind a wall unseals its corner.
        let mut game = walled("e11", &[("e9", 's'), ("b10", 'S')]);
        play(&mut game, "e9e11");
        assert_eq!(game.outcome(), None);
        // A defender on a corner's own neighbour does not unseal it; he
        // counts as an open edge square, and with a6 shut too he is the
        // a-file's only one.
        let mut game = walled("e11", &[("e9", 's'), ("a10", 'S'), ("a6", 's')]);
        play(&mut game, "e9e11");
        assert_eq!(game.outcome(), attackers_win());
        let mut game = walled("e11", &[("e9", 's'), ("a10", 'S')]);
        play(&mut game, "e9e11");
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn sealed_corners_with_wider_gaps_need_fewer_defenders() {
        // Walls three steps from the corners leave three open squares per
        // edge: enough only with fewer than six defenders (three here);
        // with six the game goes on.
        let walls = [
            "a4", "b3", "c2", "d1", "k4", "j3", "i2", "h1", "a8", "b9", "c10", "d11", "k8", "j9",
            "i10", "h11",
        ];
        let build = |defenders: &[&'static str]| {
            let mut pieces: Vec<(&str, char)> = walls.iter().map(|&sq| (sq, 's')).collect();
            pieces.retain(|&(sq, _)| sq != "h11");
            pieces.push(("h9", 's'));
            pieces.push(("f6", 'K'));
            pieces.extend(defenders.iter().map(|&sq| (sq, 'S')));
            position(&pieces, 'a')
        };
        let mut game = build(&["e6", "g6", "f7"]);
        play(&mut game, "h9h11");
        assert_eq!(game.outcome(), attackers_win());
        let mut game = build(&["e6", "g6", "f7", "f5", "e7", "g7"]);
        play(&mut game, "h9h11");
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn no_attacker_left_wins_for_the_defenders() {
        let mut game = position(&[("e5", 's'), ("d5", 'S'), ("h5", 'S'), ("f9", 'K')], 'd');
        play(&mut game, "h5f5");
        assert_eq!(at(&game, "e5"), None);
        assert_eq!(game.outcome(), defenders_win(EndReason::NoLegalAction));
    }

    #[test]
    fn the_move_limit_draws() {
        // Quiet moves from the start: after 141 plies the game goes on,
        // the 142nd draws it.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut game = Copenhagen::start();
        while game.ply() < MOVE_LIMIT - 1 {
            let quiet: Vec<_> = game
                .legal_vec()
                .into_iter()
                .filter(|&a| {
                    let mut child = game.clone();
                    child.play(a);
                    child.outcome().is_none()
                })
                .collect();
            assert!(!quiet.is_empty(), "no quiet move at ply {}", game.ply());
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            game.play(quiet[(seed % quiet.len() as u64) as usize]);
        }
        assert_eq!(game.outcome(), None);
        let quiet = game.legal_vec().into_iter().find(|&a| {
            let mut child = game.clone();
            child.play(a);
            child.outcome().is_some_and(|o| o.winner.is_none())
        });
        let mut child = game.clone();
        child.play(quiet.expect("a drawing move"));
        assert_eq!(child.outcome(), Some(Outcome::draw(EndReason::PlyCap)));
    }

    /// The set-based walks decide as the square-by-square ones on `cells`.
    fn agrees_with_the_walks(cells: &super::Cells) {
        use super::walk_reference as walk;
        assert_eq!(super::encircled(cells), walk::encircled(cells));
        let sides = super::Sides::of(cells);
        for corner in super::CORNERS {
            let (mut a, mut b) = (0u128, 0u128);
            let sealed = super::corner_sealed(cells, &sides, corner, &mut a);
            assert_eq!(sealed, walk::corner_sealed(cells, corner, &mut b));
            if sealed {
                assert_eq!(a, b, "sealed squares of corner {corner}");
            }
        }
    }

    /// A xorshift sequence from `seed`: each call gives a number below `n`.
    fn below(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        }
    }

    /// Boards with many attackers and few defenders: random attackers on
    /// random squares, or a ring of attackers around the king and some
    /// defenders, where corners are sealed and kings encircled far more
    /// often than in play.
    #[test]
    fn set_walks_agree_with_square_walks_on_crowded_boards() {
        let mut next = below(0x2545_F491_4F6C_DD1Du64);
        let (mut sealed, mut encircled) = (0, 0);
        let (attacker, defender) = (Piece::from_char('s'), Piece::from_char('S'));
        for round in 0..20_000 {
            let mut cells = [None; super::SQUARES];
            let mut king = next(super::SQUARES);
            if round % 2 == 1 {
                // A ring of attackers around a box (a few of them missing
                // at times), the king and some defenders inside.
                let (size, last) = (super::SIZE, super::LAST);
                let (r0, f0) = (next(last - 2), next(last - 2));
                let (r1, f1) = (r0 + 2 + next(last - r0 - 1), f0 + 2 + next(last - f0 - 1));
                for r in r0..=r1.min(last) {
                    for f in f0..=f1.min(last) {
                        let ring = r == r0 || r == r1 || f == f0 || f == f1;
                        if ring && next(40) != 0 {
                            cells[r * size + f] = attacker;
                        } else if !ring && next(4) == 0 {
                            cells[r * size + f] = defender;
                        }
                    }
                }
                king = (r0 + 1) * size + f0 + 1;
            } else {
                for _ in 0..8 + next(30) {
                    cells[next(super::SQUARES)] = attacker;
                }
            }
            for _ in 0..next(3) {
                cells[next(super::SQUARES)] = defender;
            }
            cells[king] = Piece::from_char('K');
            agrees_with_the_walks(&cells);
            let sides = super::Sides::of(&cells);
            sealed += usize::from(super::corner_sealed(&cells, &sides, 0, &mut 0));
            encircled += usize::from(super::encircled(&cells));
        }
        assert!(
            sealed > 100 && encircled > 100,
            "sealed {sealed}, encircled {encircled}"
        );
    }

    #[test]
    fn random_playouts_end_cleanly() {
        let mut next = below(0x9E37_79B9_7F4A_7C15u64);
        let mut finished = 0;
        for _ in 0..200 {
            let mut game = Copenhagen::start();
            for _ in 0..2000 {
                let legal = game.legal_vec();
                if game.outcome().is_some() {
                    assert!(legal.is_empty());
                    break;
                }
                assert!(!legal.is_empty(), "no move but no outcome");
                let action = legal[next(legal.len())];
                let token = game.action_to_text(action);
                assert_eq!(game.parse_move(&token), Ok(vec![action]));
                if !game.state().has_refusals() {
                    let text = game.to_text();
                    let copy = Copenhagen::from_text(&text).expect("text round trip");
                    assert_eq!(copy.to_text(), text);
                    assert_eq!(copy.position_hash(), game.position_hash());
                }
                game.play(action);
                // The boards seen since the last capture, kept by updating
                // the last one's hash per move, hash as computed afresh.
                let state = game.state();
                assert_eq!(
                    state.seen.last().copied(),
                    Some(super::super::state::cells_hash(&state.cells, Player::First))
                );
                agrees_with_the_walks(&state.cells);
            }
            finished += usize::from(game.outcome().is_some());
        }
        assert!(finished > 150, "only {finished} of 200 games ended");
    }
}
