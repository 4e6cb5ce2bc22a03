//! Perft in full turns by two independent paths, for the cross-check of
//! the atomic split (`docs/rules.md` §4): [`perft_turns`] enumerates whole
//! turns ([`Tafl::legal_turns`], [`Tafl::play_turn`]); [`perft_atomic`]
//! walks atomic actions ([`Tafl::legal_actions`], [`Tafl::play`]) and counts
//! a node when a turn completes. [`crate::perft_turns`] is the same walk
//! for any variant (what `lokizero perft` runs), without this one's
//! bulk count of tafl's last-turn leaves.

use super::action::TaflAction;
use super::state::{Pending, Tafl};

/// Leaf count at `depth` full turns, turn by turn (copy-make).
pub fn perft_turns(game: &Tafl, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let turns = game.legal_turns();
    if depth == 1 {
        return turns.len() as u64;
    }
    turns
        .into_iter()
        .map(|t| {
            let mut child = game.clone();
            child.play_turn(t);
            perft_turns(&child, depth - 1)
        })
        .sum()
}

/// Leaf count at `depth` full turns, action by action: a split turn's
/// parts are walked and the node counted when the turn completes.
pub fn perft_atomic(game: &Tafl, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut actions = Vec::new();
    game.legal_actions(&mut actions);
    // Every continuation of a split turn completes it.
    if depth == 1 && game.pending != Pending::None {
        return actions.len() as u64;
    }
    let mut total = 0;
    for a in actions {
        // Bulk count: a plain move, hop or freeze at the last turn is a leaf.
        let whole = matches!(
            a,
            TaflAction::Move { .. } | TaflAction::Hop { .. } | TaflAction::Freeze(_)
        );
        if depth == 1 && whole {
            total += 1;
            continue;
        }
        let mut child = game.clone();
        child.play(a);
        total += if child.pending != Pending::None {
            perft_atomic(&child, depth)
        } else {
            perft_atomic(&child, depth - 1)
        };
    }
    total
}
