//! Property tests over random legal games of every variant.
//!
//! One generic suite ([`check_game`], [`check_perft`]) is instantiated per
//! variant by [`variant_props!`]. Each proptest case plays a random legal
//! game from the start (actions chosen by a seeded splitmix64 stream) and
//! checks, at every position:
//!
//! - the position text round-trips exactly (`to_text -> from_text ->
//!   to_text`) wherever a text exists (not in the middle of a split Loki
//!   turn: `docs/rules.md` §4 writes texts only between full turns);
//! - the incremental position hash equals the hash of the position rebuilt
//!   from its text, where the text carries everything hashed (not mid-turn;
//!   not in a Loki position with repetition refusals, which live in the
//!   history);
//! - every action's text parses back: the token of each completed turn
//!   (`Game::move_text`: one action's text, or for Loki `x:e5d4`,
//!   `g:d4d6d6f6`, ...) parsed at the turn start gives back the turn's
//!   atomic actions, and in the middle of a split turn the
//!   continuation forms (`x>d4`, `g>d6f6`) give back the atomic action;
//! - once the game is over the outcome never changes, legal actions are
//!   empty and `parse_move` answers `GameOver`.
//!
//! A second property compares perft by copy-make (`rules::perft`) with
//! perft that rebuilds every interior node from its position text, from
//! history-free positions (parsed from text) and at depths where no
//! repetition can arise (a position can recur after 4 actions at the
//! earliest), so repetition history cannot make them differ.

use proptest::prelude::*;
use rules::zobrist::splitmix64;
use rules::{ActionError, Copenhagen, EndReason, Game, Hnefatafl, Loki, Losers, Shakti, Viking};

/// Per-variant hooks of the generic suite.
trait Props: Game {
    /// Perft depth for the copy-make vs. re-parse comparison (at most 3:
    /// no repetition can arise below 4 actions).
    const PERFT_DEPTH: u32;

    /// Whether the position text carries everything the hash covers.
    fn text_carries_hash(&self) -> bool {
        !self.mid_turn()
    }
}

impl Props for Losers {
    const PERFT_DEPTH: u32 = 3;
}
impl Props for Viking {
    const PERFT_DEPTH: u32 = 3;
}
impl Props for Shakti {
    const PERFT_DEPTH: u32 = 3;
}
impl Props for Hnefatafl {
    const PERFT_DEPTH: u32 = 2;
    fn text_carries_hash(&self) -> bool {
        !self.state().has_refusals()
    }
}
impl Props for Copenhagen {
    const PERFT_DEPTH: u32 = 2;
    fn text_carries_hash(&self) -> bool {
        !self.state().has_refusals()
    }
}
impl Props for Loki {
    const PERFT_DEPTH: u32 = 2;
    fn text_carries_hash(&self) -> bool {
        !self.mid_turn() && !self.state().has_refusals()
    }
}

/// Parse a text the suite itself produced.
fn reparse<G: Game>(text: &str) -> G {
    G::from_text(text).unwrap_or_else(|e| panic!("own text {text:?} does not parse: {e}"))
}

/// Checks at a position where a text exists.
fn check_text<G: Props>(g: &G) {
    let text = g.to_text();
    let back: G = reparse(&text);
    assert_eq!(back.to_text(), text, "text round trip");
    assert_eq!(back.side_to_move(), g.side_to_move(), "{text}");
    if g.text_carries_hash() {
        assert_eq!(back.position_hash(), g.position_hash(), "hash of {text}");
    }
}

/// Plays a random legal game of at most `max_actions` actions from the
/// start and checks the per-position properties; returns the number of
/// actions played.
fn check_game<G: Props>(seed: u64, max_actions: usize) -> usize {
    let mut rng = seed;
    let mut g = G::start();
    let mut played = 0;
    // Turn start and the actions of the current turn so far.
    let mut turn_start = g.clone();
    let mut turn: Vec<G::Action> = Vec::new();
    while played < max_actions {
        if g.mid_turn() {
            // Continuation forms parse back to the atomic action.
            for a in g.legal_vec() {
                let text = g.action_to_text(a);
                assert_eq!(g.parse_move(&text), Ok(vec![a]), "continuation {text}");
            }
        } else {
            check_text(&g);
            if !turn.is_empty() {
                let token = turn_start.move_text(&turn);
                assert_eq!(
                    turn_start.parse_move(&token),
                    Ok(turn.clone()),
                    "turn {token} at {}",
                    turn_start.to_text()
                );
            }
            turn_start = g.clone();
            turn.clear();
        }
        let legal = g.legal_vec();
        if g.outcome().is_some() {
            break;
        }
        if played % 3 == 0 {
            check_win_candidates(&g, &legal);
        }
        assert!(!legal.is_empty(), "no legal action but no outcome");
        rng = splitmix64(rng);
        let a = legal[(rng % legal.len() as u64) as usize];
        g.play(a);
        turn.push(a);
        played += 1;
    }
    if let Some(outcome) = g.outcome() {
        check_finished(&g, outcome);
    }
    played
}

/// `clone_from` into a scratch position that holds a longer game (the
/// search's reuse of its scratch positions) gives the same game as
/// `clone`: same legal actions, hash, repetition state, outcome and text,
/// at `split` and along the same random continuation.
fn check_clone_from<G: Game>(seed: u64, split: usize) {
    let mut rng = seed;
    let mut random_step = |g: &mut G| -> Option<G::Action> {
        let legal = g.legal_vec();
        rng = splitmix64(rng);
        let a = *legal.get((rng % legal.len().max(1) as u64) as usize)?;
        g.play(a);
        Some(a)
    };
    let mut g = G::start();
    for _ in 0..split {
        if random_step(&mut g).is_none() {
            break;
        }
    }
    let snapshot = g.clone();
    while random_step(&mut g).is_some() && g.ply() < 400 {}
    let mut copy = snapshot.clone();
    let mut reused = g;
    reused.clone_from(&snapshot);
    for _ in 0..200 {
        assert_eq!(reused.legal_vec(), copy.legal_vec());
        assert_eq!(reused.position_hash(), copy.position_hash());
        assert_eq!(reused.repeats_earlier(), copy.repeats_earlier());
        assert_eq!(reused.outcome(), copy.outcome());
        assert_eq!(reused.ply(), copy.ply());
        if !copy.mid_turn() {
            assert_eq!(reused.to_text(), copy.to_text());
        }
        let Some(a) = random_step(&mut copy) else {
            break;
        };
        reused.play(a);
    }
}

/// `win_candidates` is a sound filter: an action it leaves unmarked never
/// ends the game with a win for the side to move.
fn check_win_candidates<G: Game>(g: &G, legal: &[G::Action]) {
    let mut flags = Vec::new();
    g.win_candidates(legal, &mut flags);
    assert_eq!(flags.len(), legal.len());
    let mover = g.side_to_move();
    for (&a, &flag) in legal.iter().zip(&flags) {
        if !flag {
            let mut next = g.clone();
            next.play(a);
            let wins = next.outcome().is_some_and(|o| o.winner == Some(mover));
            assert!(
                !wins,
                "{} wins at {} but is not a candidate",
                g.action_to_text(a),
                g.to_text()
            );
        }
    }
}

/// A finished game stays finished: no actions, the same outcome, no move
/// accepted; the outcome survives the text unless it came from history.
fn check_finished<G: Game>(g: &G, outcome: rules::Outcome) {
    assert!(g.legal_vec().is_empty(), "legal actions after the end");
    assert_eq!(g.outcome(), Some(outcome));
    assert_eq!(g.clone().outcome(), Some(outcome));
    // Any action text of the start position is refused with GameOver.
    if let Some(&a) = G::start().legal_vec().first() {
        let text = G::start().action_to_text(a);
        assert!(matches!(
            g.parse_move(&text),
            Err(ActionError::GameOver) | Err(ActionError::Malformed { .. })
        ));
    }
    // Repetition and the move limit depend on the game's history and
    // length, which a position text does not carry.
    let from_history = matches!(
        outcome.reason,
        EndReason::ThreefoldRepetition | EndReason::PlyCap
    );
    if !g.mid_turn() && !from_history {
        let back: G = reparse(&g.to_text());
        assert_eq!(back.outcome(), Some(outcome), "{}", g.to_text());
        assert!(back.legal_vec().is_empty());
    }
}

/// Perft that rebuilds every node with a text from that text.
fn perft_reparse<G: Game>(g: &G, depth: u32) -> u64 {
    let node = if g.mid_turn() {
        g.clone()
    } else {
        reparse::<G>(&g.to_text())
    };
    if depth == 0 {
        return 1;
    }
    let legal = node.legal_vec();
    if depth == 1 {
        return legal.len() as u64;
    }
    legal
        .into_iter()
        .map(|a| {
            let mut child = node.clone();
            child.play(a);
            perft_reparse(&child, depth - 1)
        })
        .sum()
}

/// Play `plies` random actions, then compare the two perfts from the
/// history-free position at the next turn start.
fn check_perft<G: Props>(seed: u64, plies: usize) {
    let mut rng = seed;
    let mut g = G::start();
    for _ in 0..plies {
        let legal = g.legal_vec();
        if legal.is_empty() {
            break;
        }
        rng = splitmix64(rng);
        g.play(legal[(rng % legal.len() as u64) as usize]);
    }
    while g.mid_turn() {
        let legal = g.legal_vec();
        g.play(legal[0]);
    }
    let root: G = reparse(&g.to_text());
    assert_eq!(
        rules::perft(&root, G::PERFT_DEPTH),
        perft_reparse(&root, G::PERFT_DEPTH),
        "{}",
        root.to_text()
    );
}

/// Instantiates the suite for one variant.
macro_rules! variant_props {
    ($module:ident, $G:ty, $max_actions:expr) => {
        mod $module {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(48))]

                #[test]
                fn random_game_properties(seed in any::<u64>()) {
                    check_game::<$G>(seed, $max_actions);
                }

                #[test]
                fn clone_from_equals_clone(seed in any::<u64>(), split in 0usize..120) {
                    check_clone_from::<$G>(seed, split);
                }

                #[test]
                fn perft_copy_make_equals_reparse(seed in any::<u64>(), plies in 0usize..40) {
                    check_perft::<$G>(seed, plies);
                }
            }
        }
    };
}

variant_props!(losers, Losers, 300);
variant_props!(viking, Viking, 300);
variant_props!(hnefatafl, Hnefatafl, 300);
variant_props!(loki, Loki, 300);
variant_props!(shakti, Shakti, 300);
variant_props!(copenhagen, Copenhagen, 300);

/// The suite really reaches finished games and Loki split turns (guards
/// against a suite that silently checks nothing).
#[test]
fn suite_reaches_game_ends_and_split_turns() {
    let finished = (0..16u64)
        .filter(|&s| {
            check_game::<Losers>(s, 400);
            let mut g = Losers::start();
            let mut rng = s;
            while g.outcome().is_none() && g.ply() < 400 {
                let legal = g.legal_vec();
                rng = splitmix64(rng);
                g.play(legal[(rng % legal.len() as u64) as usize]);
            }
            g.outcome().is_some()
        })
        .count();
    assert!(finished > 0, "no random losers game finished");
    let mut mid = 0;
    for s in 0..8u64 {
        let mut g = Loki::start();
        let mut rng = s;
        while g.outcome().is_none() && g.ply() < 200 {
            let legal = g.legal_vec();
            rng = splitmix64(rng);
            g.play(legal[(rng % legal.len() as u64) as usize]);
            mid += g.mid_turn() as usize;
        }
    }
    assert!(mid > 0, "no Loki split turn reached");
}
