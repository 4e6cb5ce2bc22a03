//! Forcing lines proven at the root (`SearchConfig::forcing_depth`) on the
//! losers rules: a won endgame that 141's equal-time games shuffled until
//! the ply cap (`configs/books/losers-capped-endgames.txt`, its first
//! position), and a middle game where one move walks into a sacrifice
//! race. Soundness against minimax is tested on random trees in the
//! crate's unit tests (`forcing::tests`).

use rand::rngs::StdRng;
use rand::SeedableRng;
use rules::{Game, Losers};
use search::{search, SearchConfig, UniformEvaluator};

fn config(forcing_depth: u32) -> SearchConfig {
    SearchConfig {
        forcing_depth,
        ..SearchConfig::for_play()
    }
}

/// The root children proven won and lost for the root
/// player after `simulations` with `forcing_depth`, as move texts.
fn proven(root: &Losers, forcing_depth: u32, simulations: u32) -> (Vec<String>, Vec<String>) {
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
