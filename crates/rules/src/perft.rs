//! Perft: count leaf nodes of the legal-action tree to a fixed depth.
//!
//! Counts *actions* (for variants that split a turn into several actions,
//! each action is one ply of the count). A finished game has no children.
//! Variants with extra counting conventions (Shakti passes count as one
//! child) encode them in their `legal_actions`.

use crate::Game;

/// Number of leaf nodes at `depth` actions below `game`.
pub fn perft<G: Game>(game: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut actions = Vec::new();
    game.legal_actions(&mut actions);
    if depth == 1 {
        return actions.len() as u64;
    }
    actions
        .iter()
        .map(|&a| {
            let mut child = game.clone();
            child.play(a);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Perft split by root action: `(action text, count)` in legal-action order.
pub fn perft_divide<G: Game>(game: &G, depth: u32) -> Vec<(String, u64)> {
    let depth = depth.max(1);
    game.legal_vec()
        .into_iter()
        .map(|a| {
            let mut child = game.clone();
            child.play(a);
            (game.action_to_text(a), perft(&child, depth - 1))
        })
        .collect()
}
