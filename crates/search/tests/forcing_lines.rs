//! Forcing lines proven at the root (`SearchConfig::forcing_depth`): on the
//! losers rules a won endgame that 141's equal-time games shuffled until
//! the ply cap (`configs/books/losers-capped-endgames.txt`, its first
//! position) and a middle game where one move walks into a sacrifice
//! race; on the hnefatafl rules the attackers' moves that open the king a
//! road to a fork. Soundness against minimax is tested on random trees in
//! the crate's unit tests (`forcing::tests`).

use rand::rngs::StdRng;
use rand::SeedableRng;
use rules::{Game, Hnefatafl, Losers};
use search::{search, SearchConfig, UniformEvaluator};

fn config(forcing_depth: u32) -> SearchConfig {
    SearchConfig {
        forcing_depth,
        ..SearchConfig::for_play()
    }
}

/// The root children proven won and lost for the root
/// player after `simulations` with `forcing_depth`, as move texts.
fn proven<G: Game>(root: &G, forcing_depth: u32, simulations: u32) -> (Vec<String>, Vec<String>) {
    let mut rng = StdRng::seed_from_u64(1);
    let tree = search(
        root,
        &mut UniformEvaluator,
        &config(forcing_depth),
        simulations,
        &mut rng,
    );
    let children = tree.root_children();
    let with = |value: f32| {
        children
            .iter()
            .filter(|c| c.proven == Some(value))
            .map(|c| root.action_to_text(c.action))
            .collect()
    };
    (with(1.0), with(-1.0))
}

#[test]
fn a_shuffled_won_endgame_is_proven() {
    // White: king f8, rooks a8 d8 h1, knights c3 e2; Black: king f2, pawn
    // c4. White wins by giving every piece to the black king, which must
    // take what it can.
    let root = Losers::from_text("R2R1K2/8/8/8/2p5/2N5/4Nk2/7R w - - 14 153").unwrap();
    let (won, _) = proven(&root, 10, 64);
    assert!(!won.is_empty());
    // Without the forcing lines the same search proves nothing.
    let (won, _) = proven(&root, 0, 64);
    assert!(won.is_empty(), "{won:?}");
}

#[test]
fn a_move_into_a_lost_sacrifice_race_is_proven_lost_and_avoided() {
    // From generation 141's equal-time loss (seed 3101): the black queen
    // on e2 must be taken, by the king, the g1 knight or the f1 bishop.
    // After Kxe2 or Nxe2 Black forces a win through replies White must
    // make (the game went e1e2 and was lost); Bxe2 is not proven lost.
    let root = Losers::from_text("2b1kbnr/1ppp1p1p/8/8/R7/8/1PP1qPPP/1N2KBNR w Kk - 0 8").unwrap();
    let (won, lost) = proven(&root, 10, 16);
    assert!(won.is_empty(), "{won:?}");
    assert_eq!(lost, ["e1e2", "g1e2"]);
    let mut rng = StdRng::seed_from_u64(1);
    let tree = search(&root, &mut UniformEvaluator, &config(10), 16, &mut rng);
    let chosen = tree.choose_action(0.0, &mut rng).unwrap();
    assert_eq!(root.action_to_text(chosen), "f1e2");
    // Without the forcing lines nothing is proven at this budget.
    assert_eq!(proven(&root, 0, 16), (vec![], vec![]));
}

#[test]
fn a_tafl_move_that_opens_the_king_a_fork_is_proven_lost_and_avoided() {
    // From generation 27's equal-time loss as the attackers (seed 3101,
    // ply 30): the king on f6 has an open file to f1, the empty first rank,
    // where it would threaten a1 and k1 at once. Only j2 (which can block
    // the first rank at j1 or the file at f2) and g3/e4 (the file at f3,
    // f4) keep it shut. A j2 move elsewhere is lost: the opponent's win in
    // two, which the attackers' wide turns hid from the forcing lines
    // before threats were counted.
    let root = Hnefatafl::from_text(
        "3s1sss3/5s5/11/s1s1sS2s2/s3SSS3s/ss2SKSS1ss/s2SS2S2s/s3s2SS1s/6s4/9ss/11 a",
    )
    .unwrap();
    let (won, lost) = proven(&root, 10, 16);
    assert!(won.is_empty(), "{won:?}");
    // The 8 most likely moves are defended (all alike here: the first 8).
    assert_eq!(lost, ["j2j3", "j2j4", "j2j5", "j2i2", "j2h2", "j2g2"]);
    let mut rng = StdRng::seed_from_u64(1);
    let tree = search(&root, &mut UniformEvaluator, &config(10), 16, &mut rng);
    let chosen = root.action_to_text(tree.choose_action(0.0, &mut rng).unwrap());
    assert!(!lost.contains(&chosen), "{chosen}");
    assert_eq!(proven(&root, 0, 16), (vec![], vec![]));
    // Each is lost indeed: after it the king's move to f1 is proven won.
    for m in &lost {
        let mut after = root.clone();
        for a in after.parse_move(m).unwrap() {
            after.play(a);
        }
        assert_eq!(proven(&after, 0, 16).0, ["f6f1"], "after {m}");
    }
}
