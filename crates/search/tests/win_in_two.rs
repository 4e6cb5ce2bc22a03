//! Forced wins in two proven at the root (`SearchConfig::win_in_two`) on
//! real rules: a Viking rook ladder (mate in two) and a Hnefatafl king fork
//! (two corners threatened). Each is checked against a brute-force
//! verification that uses the rules alone.

use rand::rngs::StdRng;
use rand::SeedableRng;
use rules::{Game, Hnefatafl, Viking};
use search::{search, SearchConfig, UniformEvaluator};

/// Brute force: after `action`, every reply leaves the mover an action that
/// wins at once (single-action turns, as in both test games).
fn wins_in_two<G: Game>(root: &G, action: G::Action) -> bool {
    let me = root.side_to_move();
    let mut after = root.clone();
    after.play(action);
    let replies = after.legal_vec();
    !replies.is_empty()
        && replies.into_iter().all(|reply| {
            let mut g = after.clone();
            g.play(reply);
            if let Some(o) = g.outcome() {
                return o.value_for(me) > 0.0;
            }
            g.legal_vec().into_iter().any(|a| {
                let mut h = g.clone();
                h.play(a);
                h.outcome().is_some_and(|o| o.value_for(me) > 0.0)
            })
        })
}

fn wins_in_one<G: Game>(root: &G) -> bool {
    let me = root.side_to_move();
    root.legal_vec().into_iter().any(|a| {
        let mut g = root.clone();
        g.play(a);
        g.outcome().is_some_and(|o| o.value_for(me) > 0.0)
    })
}

fn config(win_in_two: bool) -> SearchConfig {
    SearchConfig {
        dirichlet_epsilon: 0.0,
        win_in_two,
        ..SearchConfig::default()
    }
}

/// With the proof, a few simulations suffice: the proven children are
/// exact wins (q = 1 on every visit) and the chosen action is one of them;
/// every child with q = 1 is a true win in two by brute force.
fn check_proven<G: Game>(root: &G) {
    assert!(
        !wins_in_one(root),
        "the test wants a position without a win in one"
    );
    let winning: Vec<_> = root
        .legal_vec()
        .into_iter()
        .filter(|&a| wins_in_two(root, a))
        .collect();
    assert!(!winning.is_empty());
    let mut rng = StdRng::seed_from_u64(1);
    let tree = search(root, &mut UniformEvaluator, &config(true), 16, &mut rng);
    let proven: Vec<_> = tree
        .root_children()
        .into_iter()
        .filter(|c| c.q == Some(1.0))
        .collect();
    assert!(!proven.is_empty());
    for c in &proven {
        assert!(
            winning.contains(&c.action),
            "{}",
            root.action_to_text(c.action)
        );
    }
    let best = tree.choose_action(0.0, &mut rng).unwrap();
    assert!(
        winning.contains(&best),
        "chose {}",
        root.action_to_text(best)
    );
}

#[test]
fn viking_rook_ladder_mate_in_two_is_proven() {
    // Black king l7; White rooks a4, b5, king a1. Ra6 (then Rb7#) or Rb6
    // (then Ra7#); no check mates at once (the king steps to rank 6).
    let root = Viking::from_text("11k/12/1R10/R11/12/12/K11 w - - 0 1").unwrap();
    check_proven(&root);
    for m in ["a4a6", "b5b6"] {
        assert!(wins_in_two(&root, root.parse_move(m).unwrap()[0]), "{m}");
    }
}

#[test]
fn hnefatafl_king_fork_is_proven() {
    // King e5, one attacker j3, defenders to move: the king on an empty edge
    // (e11, e1, a5) threatens two corners; one attacker blocks at most one.
    let root = Hnefatafl::from_text("11/11/11/11/11/11/4K6/11/9s1/11/11 d").unwrap();
    check_proven(&root);
    assert!(wins_in_two(&root, root.parse_move("e5e11").unwrap()[0]));
}

#[test]
fn without_the_proof_the_same_budget_finds_no_proven_child() {
    let root = Hnefatafl::from_text("11/11/11/11/11/11/4K6/11/9s1/11/11 d").unwrap();
    let mut rng = StdRng::seed_from_u64(1);
    let tree = search(&root, &mut UniformEvaluator, &config(false), 16, &mut rng);
    // 16 simulations over ~30 king moves cannot visit every attacker reply.
    assert!(tree.root_children().iter().all(|c| c.q != Some(1.0)));
}
