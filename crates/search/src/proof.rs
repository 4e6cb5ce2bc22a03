//! Short forced wins proven at the root ([`crate::SearchConfig::win_in_two`]):
//! an action after which every reply of the opponent (every part of a split
//! turn) leaves the searching side an action that wins at once.
//!
//! This extends the decisive moves of Teytaud & Teytaud (2010, "On the huge
//! benefit of decisive moves in Monte-Carlo Tree Search algorithms", IEEE
//! CIG) by one turn, as chess engines' mate-in-two solvers do. A PUCT search
//! with a few hundred simulations over 40-100 actions per node rarely
//! visits every reply of a quiet threat (a tafl king's fork towards two
//! corners, a chess mating net), so it misses wins a player would see; the
//! proof is exact and cheap because [`Game::win_candidates`] limits the
//! final ply to the actions the rules say might win, and each reply stops
//! at the first that does not lose.

use rules::{Game, Player};

/// Plays (`Game::play` calls) allowed for one root's proofs: bounds the cost
/// in positions full of threats (each proof stops at its first refutation,
/// so ordinary roots use a small fraction).
pub(crate) const PROOF_BUDGET: u32 = 20_000;

/// How deep the opponent's split turn may go (parts of one turn).
const MAX_TURN_PARTS: u32 = 3;

/// True when `state`, with the opponent of `me` to move, is lost for the
/// opponent within its turn and `me`'s next action: every reply either ends
/// the game in `me`'s favour or leaves `me` to move with an action that
/// wins at once. False when unproven (also when `budget` runs out, or when
/// the opponent has no legal action without the game being over).
pub(crate) fn replies_all_lose<G: Game>(state: &G, me: Player, budget: &mut u32) -> bool {
    all_replies_lose(state, me, MAX_TURN_PARTS, budget)
}

fn all_replies_lose<G: Game>(state: &G, me: Player, parts: u32, budget: &mut u32) -> bool {
    let legal = state.legal_vec();
    if legal.is_empty() {
        return false;
    }
    let mut next = state.clone();
    legal.into_iter().all(|reply| {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        next.clone_from(state);
        next.play(reply);
        match next.outcome() {
            Some(outcome) => outcome.value_for(me) > 0.0,
            None if next.side_to_move() != me => {
                parts > 1 && all_replies_lose(&next, me, parts - 1, budget)
            }
            None => wins_at_once(&next, me, budget),
        }
    })
}

/// Whether `action` ends the game at once with a win for `state`'s side to
/// move, played out in `scratch` (the decisive-move test, shared with the
/// tree's decisive expansion).
pub(crate) fn wins_now<G: Game>(state: &G, action: G::Action, scratch: &mut G) -> bool {
    let me = state.side_to_move();
    scratch.clone_from(state);
    scratch.play(action);
    scratch.outcome().is_some_and(|o| o.value_for(me) > 0.0)
}

/// Flag in `flags` each of `legal` that ends the game at once with a win
/// for `state`'s side to move (only [`Game::win_candidates`] are played
/// out, in `scratch`); returns how many do. Shared by the tree's decisive
/// expansion and the root's proofs.
pub(crate) fn flag_wins_now<G: Game>(
    state: &G,
    legal: &[G::Action],
    flags: &mut Vec<bool>,
    scratch: &mut G,
) -> usize {
    state.win_candidates(legal, flags);
    let mut wins = 0;
    for (&action, flag) in legal.iter().zip(flags.iter_mut()) {
        *flag = *flag && wins_now(state, action, scratch);
        wins += usize::from(*flag);
    }
    wins
}

/// Whether `me`, to move in `state`, has an action that wins at once
/// (only the actions [`Game::win_candidates`] marks are played, each
/// taking one play from `budget`).
pub(crate) fn wins_at_once<G: Game>(state: &G, me: Player, budget: &mut u32) -> bool {
    debug_assert_eq!(state.side_to_move(), me);
    let legal = state.legal_vec();
    let mut candidates = Vec::with_capacity(legal.len());
    state.win_candidates(&legal, &mut candidates);
    let mut next = state.clone();
    legal
        .iter()
        .zip(candidates)
        .filter(|(_, candidate)| *candidate)
        .any(|(&action, _)| {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            wins_now(state, action, &mut next)
        })
}
