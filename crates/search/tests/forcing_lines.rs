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
use search::{search, Evaluator, SearchConfig, UniformEvaluator};

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
    // All moves are alike here, so they are defended in legal order until
    // 8 are not proven lost (or the refund for proofs runs out): the
    // first j2 moves, then most others (the king's fork beats them).
    assert_eq!(lost[..6], ["j2j3", "j2j4", "j2j5", "j2i2", "j2h2", "j2g2"]);
    assert!(lost.len() > 20, "{lost:?}");
    assert!(!lost.iter().any(|m| m == "j2j1" || m == "j2f2"), "{lost:?}");
    let mut rng = StdRng::seed_from_u64(1);
    let tree = search(&root, &mut UniformEvaluator, &config(10), 16, &mut rng);
    let chosen = root.action_to_text(tree.choose_action(0.0, &mut rng).unwrap());
    assert!(!lost.contains(&chosen), "{chosen}");
    assert_eq!(proven(&root, 0, 16), (vec![], vec![]));
    // The j2 moves are lost indeed: after each the king's move to f1 is
    // proven won by the independent win-in-two proof (the others, such as
    // b6b1, lose to longer forcing lines).
    for m in &lost[..6] {
        let mut after = root.clone();
        for a in after.parse_move(m).unwrap() {
            after.play(a);
        }
        assert_eq!(proven(&after, 0, 16).0, ["f6f1"], "after {m}");
    }
}

/// Priors of weight 100 for the `favoured` actions and 1 for the others,
/// and a draw everywhere: a network whose most likely moves all lose.
struct Favouring<A> {
    favoured: Vec<A>,
}

impl<G: Game> Evaluator<G> for Favouring<G::Action> {
    fn evaluate(
        &mut self,
        _positions: &[&G],
        legal: &[&[G::Action]],
        priors: &mut [f32],
        wdl: &mut [[f32; 3]],
    ) {
        let mut offset = 0;
        for actions in legal {
            let block = &mut priors[offset..offset + actions.len()];
            for (p, a) in block.iter_mut().zip(actions.iter()) {
                *p = if self.favoured.contains(a) {
                    100.0
                } else {
                    1.0
                };
            }
            let sum: f32 = block.iter().sum();
            block.iter_mut().for_each(|p| *p /= sum);
            offset += actions.len();
        }
        wdl.fill([0.0, 1.0, 0.0]);
    }
}

/// The attacker moves of the fork position after which the defenders'
/// win in two is proven (the king's move to f1).
fn fork_losing_moves(root: &Hnefatafl) -> Vec<<Hnefatafl as Game>::Action> {
    root.legal_vec()
        .into_iter()
        .filter(|&a| {
            let mut after = root.clone();
            after.play(a);
            proven(&after, 0, 16).0 == ["f6f1"]
        })
        .collect()
}

#[test]
fn the_defence_goes_on_past_the_likely_moves_proven_lost() {
    // The fork position again, with priors that favour twelve losing
    // moves (most attacker moves lose here): the defence proves them lost
    // and goes on until it has moves not proven lost, so the search plays
    // one of those (a search that stopped after the 8 most likely moves
    // played an unchecked losing move once those were proven lost).
    let root = Hnefatafl::from_text(
        "3s1sss3/5s5/11/s1s1sS2s2/s3SSS3s/ss2SKSS1ss/s2SS2S2s/s3s2SS1s/6s4/9ss/11 a",
    )
    .unwrap();
    let losing = fork_losing_moves(&root);
    assert!(losing.len() > 100, "{}", losing.len());
    // The last twelve in legal order, away from the j2 moves tried first.
    let favoured = losing[losing.len() - 12..].to_vec();
    let mut evaluator = Favouring {
        favoured: favoured.clone(),
    };
    let mut rng = StdRng::seed_from_u64(1);
    let tree = search(&root, &mut evaluator, &config(10), 16, &mut rng);
    for c in tree.root_children() {
        if favoured.contains(&c.action) {
            assert_eq!(c.proven, Some(-1.0), "{}", root.action_to_text(c.action));
        }
    }
    let chosen = tree.choose_action(0.0, &mut rng).unwrap();
    assert!(!losing.contains(&chosen), "{}", root.action_to_text(chosen));
}

#[test]
fn a_proven_win_is_played_by_its_shortest_line() {
    // After j2j3 in the fork position the king runs to f1 and the
    // attackers shut k1 (j3j1): the king wins at once at a1, and other
    // king moves are proven won as well (wins in two); the search plays
    // the win at once (a search that did not prefer the shortest proven
    // win stepped to g1).
    let mut root = Hnefatafl::from_text(
        "3s1sss3/5s5/11/s1s1sS2s2/s3SSS3s/ss2SKSS1ss/s2SS2S2s/s3s2SS1s/6s4/9ss/11 a",
    )
    .unwrap();
    for m in ["j2j3", "f6f1", "j3j1"] {
        for a in root.parse_move(m).unwrap() {
            root.play(a);
        }
    }
    let mut rng = StdRng::seed_from_u64(1);
    let tree = search(&root, &mut UniformEvaluator, &config(10), 64, &mut rng);
    let chosen = root.action_to_text(tree.choose_action(0.0, &mut rng).unwrap());
    assert_eq!(chosen, "f1a1");
}
