//! Two-fold repetition draws in the search (`SearchConfig::two_fold_draws`)
//! on a real repetition: Viking Chess, K+R v K, the rook and the black king
//! shuttling back to the start position.

use rand::rngs::StdRng;
use rand::SeedableRng;
use rules::{Game, Viking};
use search::{search, Evaluator, Mcts, SearchConfig, UniformEvaluator, Wdl};

/// White rook a1, white king l1, black king l7; White to move.
const START: &str = "11k/12/12/12/12/12/R10K w - - 0 1";

/// Play `moves` (UCI) from [`START`].
fn after(moves: &[&str]) -> Viking {
    let mut g = Viking::from_text(START).unwrap();
    for m in moves {
        let actions = g.parse_move(m).unwrap();
        for a in actions {
            g.play(a);
        }
    }
    g
}

/// Every position is a certain win for its side to move, so the only way
/// for the root player to avoid a loss is a drawn terminal.
struct SideToMoveWins;

impl<G: Game> Evaluator<G> for SideToMoveWins {
    fn evaluate(
        &mut self,
        positions: &[&G],
        legal: &[&[G::Action]],
        priors: &mut [f32],
        wdl: &mut [Wdl],
    ) {
        UniformEvaluator.evaluate(positions, legal, priors, wdl);
        wdl.fill([1.0, 0.0, 0.0]);
    }
}

fn quiet(two_fold_draws: bool) -> SearchConfig {
    SearchConfig {
        dirichlet_epsilon: 0.0,
        two_fold_draws,
        ..SearchConfig::default()
    }
}

/// Root: a1a2 l7k7 a2a1, Black to move; k7l7 returns to the start position.
fn shuttle_root() -> Viking {
    after(&["a1a2", "l7k7", "a2a1"])
}

/// Visits and mean value of the root child reached by `uci`.
fn child(tree: &Mcts<Viking>, root: &Viking, uci: &str) -> (u32, Option<f32>) {
    let action = root.parse_move(uci).unwrap()[0];
    let c = tree
        .root_children()
        .into_iter()
        .find(|c| c.action == action);
    c.map(|c| (c.visits, c.q)).unwrap()
}

#[test]
fn repeats_earlier_sees_the_returned_position_only() {
    assert!(!after(&[]).repeats_earlier());
    assert!(!after(&["a1a2", "l7k7"]).repeats_earlier());
    assert!(!shuttle_root().repeats_earlier());
    assert!(after(&["a1a2", "l7k7", "a2a1", "k7l7"]).repeats_earlier());
    // A capture or pawn move would reset the count; a different square does not repeat.
    assert!(!after(&["a1a2", "l7k7", "a2a3", "k7l7"]).repeats_earlier());
}

#[test]
fn a_repeated_position_below_the_root_is_a_draw() {
    let root = shuttle_root();
    let mut rng = StdRng::seed_from_u64(3);
    let tree = search(&root, &mut SideToMoveWins, &quiet(true), 200, &mut rng);
    // Terminal: every visit backs up exactly a draw, never an evaluation.
    let (visits, q) = child(&tree, &root, "k7l7");
    assert!(visits >= 2, "visits {visits}");
    assert_eq!(q, Some(0.0));
}

#[test]
fn without_two_fold_draws_the_repetition_is_evaluated() {
    let root = shuttle_root();
    let mut rng = StdRng::seed_from_u64(3);
    let tree = search(&root, &mut SideToMoveWins, &quiet(false), 200, &mut rng);
    let (visits, q) = child(&tree, &root, "k7l7");
    assert!(visits >= 1);
    assert!(q.is_some_and(|q| q != 0.0), "q {q:?}");
}

#[test]
fn the_root_is_searched_even_when_it_repeats() {
    let root = shuttle_root();
    let mut rng = StdRng::seed_from_u64(3);
    let mut tree = search(&root, &mut SideToMoveWins, &quiet(true), 200, &mut rng);
    let action = root.parse_move("k7l7").unwrap()[0];
    tree.advance(action).unwrap();
    assert!(tree.root_state().repeats_earlier());
    assert!(
        !tree.is_terminal(),
        "a reused draw leaf must become a live root"
    );
    let fresh = Mcts::new(tree.root_state().clone(), &quiet(true));
    assert!(!fresh.is_terminal());
    let mut again = [tree];
    search::run_batched(&mut again, &mut SideToMoveWins, 50, 8, &mut rng);
    assert!(again[0].visits() >= 50);
}
