//! Perft: count leaf nodes of the game tree to a fixed depth.
//!
//! [`perft`] counts *actions* (for variants that split a turn into several
//! actions, each action is one ply of the count); [`perft_turns`] counts
//! whole *turns*, the unit of the notation (`docs/rules.md` §4: one Loki
//! command `g:d4d6d6f6` is one turn made of two actions). For variants
//! whose actions are whole turns the two agree. A finished game has no
//! children. Variants with extra counting conventions (Shakti passes count
//! as one child) encode them in their `legal_actions`.

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

/// Number of leaf nodes at `depth` whole turns below `game`, which must be
/// at a turn boundary (any position read from text is). A turn is the
/// actions played until [`Game::mid_turn`] is false again.
pub fn perft_turns<G: Game>(game: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for_each_turn(game, &mut Vec::new(), &mut |_, child| {
        total += perft_turns(child, depth - 1);
    });
    total
}

/// Whole-turn perft split by root turn: `(the turn's actions, count)` in
/// legal-action order. The actions of one turn make one move token.
pub fn perft_turns_divide<G: Game>(game: &G, depth: u32) -> Vec<(Vec<G::Action>, u64)> {
    let depth = depth.max(1);
    let mut out = Vec::new();
    for_each_turn(game, &mut Vec::new(), &mut |line, child| {
        out.push((line.to_vec(), perft_turns(child, depth - 1)));
    });
    out
}

/// Call `visit(actions, position after them)` for every whole turn from
/// `game`, extending the partial turn `line` (empty at a turn boundary).
/// A split turn with no continuation visits nothing.
fn for_each_turn<G: Game, F: FnMut(&[G::Action], &G)>(
    game: &G,
    line: &mut Vec<G::Action>,
    visit: &mut F,
) {
    for action in game.legal_vec() {
        let mut child = game.clone();
        child.play(action);
        line.push(action);
        if child.mid_turn() {
            for_each_turn(&child, line, visit);
        } else {
            visit(line, &child);
        }
        line.pop();
    }
}
