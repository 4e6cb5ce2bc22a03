//! Specialised chess perft: copy-make of the `Copy` board, bulk counting
//! at depth 1 (moves counted, not made), one reused move buffer per depth.

use super::board::Board;
use super::moves::Move;
use super::spec::ChessVariant;

/// Leaf count at `depth` below `board` (see `Chess::fast_perft`).
pub fn perft<V: ChessVariant>(board: &Board<V>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut buffers: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(256)).collect();
    recurse(board, depth, &mut buffers)
}

fn ended<V: ChessVariant>(b: &Board<V>) -> bool {
    V::BARE_KING_WINS && (b.bare(0) || b.bare(1))
}

fn recurse<V: ChessVariant>(b: &Board<V>, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    if ended(b) {
        return 0;
    }
    if depth == 1 {
        return b.count_moves() as u64;
    }
    let Some((list, rest)) = buffers.split_first_mut() else {
        return 0;
    };
    b.legal_moves(list);
    let mut nodes = 0;
    for &m in list.iter() {
        let mut child = *b;
        child.play(m);
        nodes += recurse(&child, depth - 1, rest);
    }
    nodes
}
