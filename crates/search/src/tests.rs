//! Tests of the search on the toy games of `toy.rs`.

use rand::rngs::StdRng;
use rand::SeedableRng;
use rules::{Game, Player};

use crate::node::{Node, NodeKind};
use crate::toy::{ExtraTurn, Spec, Subtract, TableGame, TicTacToe};
use crate::*;

const F: Player = Player::First;
const S: Player = Player::Second;

fn rng() -> StdRng {
    StdRng::seed_from_u64(7)
}

/// The default config without decisive moves, root proofs or the solver:
/// these tests check the PUCT mechanism itself, on toy games full of short
/// wins.
pub(crate) fn plain() -> SearchConfig {
    SearchConfig {
        decisive_moves: false,
        win_in_two: false,
        solver: false,
        ..SearchConfig::default()
    }
}

/// [`quiet`] with decisive moves on (the default of [`SearchConfig`]).
fn decisive() -> SearchConfig {
    SearchConfig {
        decisive_moves: true,
        ..quiet()
    }
}

fn quiet() -> SearchConfig {
    SearchConfig {
        dirichlet_epsilon: 0.0,
        ..plain()
    }
}

/// Uniform priors and the same WDL (from the side to move) everywhere.
struct ConstEvaluator(Wdl);

impl<G: Game> Evaluator<G> for ConstEvaluator {
    fn evaluate(&mut self, _p: &[&G], legal: &[&[G::Action]], priors: &mut [f32], wdl: &mut [Wdl]) {
        let mut o = 0;
        for l in legal {
            priors[o..o + l.len()].fill(1.0 / l.len() as f32);
            o += l.len();
        }
        wdl.fill(self.0);
    }
}

/// Root: First may take an extra move (node 1, First again) or pass
/// (node 2, Second). After the extra move First can win (3); after the pass
/// Second can hold a draw (6). Correct value for First: +1 via 0 then 0.
static DOUBLE_MOVE: [Spec; 7] = [
    Spec::Move {
        to_move: F,
        children: &[1, 2],
    },
    Spec::Move {
        to_move: F,
        children: &[3, 4],
    },
    Spec::Move {
        to_move: S,
        children: &[5, 6],
    },
    Spec::End {
        to_move: S,
        winner: Some(F),
    },
    Spec::End {
        to_move: S,
        winner: Some(S),
    },
    Spec::End {
        to_move: F,
        winner: Some(F),
    },
    Spec::End {
        to_move: F,
        winner: None,
    },
];

/// Root (First) whose three actions end the game: First wins, draw, Second wins.
static ALL_TERMINAL: [Spec; 4] = [
    Spec::Move {
        to_move: F,
        children: &[1, 2, 3],
    },
    Spec::End {
        to_move: S,
        winner: Some(F),
    },
    Spec::End {
        to_move: S,
        winner: None,
    },
    Spec::End {
        to_move: S,
        winner: Some(S),
    },
];

/// A forced line of single legal actions ending in a Second win.
static ONLY_MOVE: [Spec; 3] = [
    Spec::Move {
        to_move: F,
        children: &[1],
    },
    Spec::Move {
        to_move: S,
        children: &[2],
    },
    Spec::End {
        to_move: F,
        winner: Some(S),
    },
];

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

fn assert_wdl(got: Wdl, want: Wdl) {
    assert!(
        got.iter().zip(want).all(|(g, w)| close(*g, w)),
        "wdl {got:?} != {want:?}"
    );
}

/// Run exactly one leaf per step for `sims` simulations.
fn run_one_by_one<G: Game, E: Evaluator<G> + Send>(tree: &mut Mcts<G>, eval: &mut E, sims: u32) {
    run_batched(std::slice::from_mut(tree), eval, sims, 1, &mut rng());
}

#[test]
fn node_is_32_bytes() {
    assert_eq!(size_of::<Node>(), 32);
}

#[test]
fn config_defaults_parse_and_validate() {
    let c = SearchConfig::default();
    assert_eq!(c.validate(), Ok(()));
    let parsed: SearchConfig =
        serde_json::from_str(r#"{"c_puct": 2.5, "leaves_per_batch": 3}"#).unwrap();
    assert_eq!(
        parsed,
        SearchConfig {
            c_puct: 2.5,
            leaves_per_batch: 3,
            ..SearchConfig::default()
        }
    );
    let unknown = serde_json::from_str::<SearchConfig>(r#"{"cpuct": 2.5}"#);
    assert!(unknown
        .unwrap_err()
        .to_string()
        .contains("unknown field `cpuct`"));
}

#[test]
fn config_validation_names_the_field() {
    let field_of = |c: SearchConfig| match c.validate() {
        Err(e) => e.field,
        Ok(()) => "ok".to_string(),
    };
    let d = SearchConfig::default;
    assert_eq!(field_of(SearchConfig { c_puct: 0.0, ..d() }), "c_puct");
    assert_eq!(
        field_of(SearchConfig {
            c_puct: f32::NAN,
            ..d()
        }),
        "c_puct"
    );
    assert_eq!(
        field_of(SearchConfig {
            fpu_reduction: -0.1,
            ..d()
        }),
        "fpu_reduction"
    );
    assert_eq!(
        field_of(SearchConfig {
            dirichlet_alpha: 0.0,
            ..d()
        }),
        "dirichlet_alpha"
    );
    assert_eq!(
        field_of(SearchConfig {
            dirichlet_epsilon: 1.5,
            ..d()
        }),
        "dirichlet_epsilon"
    );
    assert_eq!(
        field_of(SearchConfig {
            virtual_loss: f32::INFINITY,
            ..d()
        }),
        "virtual_loss"
    );
    assert_eq!(
        field_of(SearchConfig {
            leaves_per_batch: 0,
            ..d()
        }),
        "leaves_per_batch"
    );
    assert_eq!(
        field_of(SearchConfig {
            policy_temperature: 0.0,
            ..d()
        }),
        "policy_temperature"
    );
    assert_eq!(
        field_of(SearchConfig {
            dirichlet_epsilon: 0.0,
            fpu_reduction: 0.0,
            ..d()
        }),
        "ok"
    );
    assert_eq!(SearchConfig::for_play().validate(), Ok(()));
}

#[test]
fn temperature_schedule() {
    let t = TemperatureSchedule {
        initial: 1.0,
        plies: 2,
        final_temperature: 0.25,
    };
    assert_eq!(
        [t.at(0), t.at(1), t.at(2), t.at(100)],
        [1.0, 1.0, 0.25, 0.25]
    );
    assert_eq!(TemperatureSchedule::default().validate(), Ok(()));
    let bad = TemperatureSchedule {
        final_temperature: -1.0,
        ..t
    };
    assert!(matches!(
        bad.validate(),
        Err(InvalidSetting { ref field, .. }) if field == "final_temperature"
    ));
    let parsed: TemperatureSchedule = serde_json::from_str(r#"{"plies": 12}"#).unwrap();
    assert_eq!(
        parsed,
        TemperatureSchedule {
            plies: 12,
            ..TemperatureSchedule::default()
        }
    );
}

/// Exact backups with one side moving twice: compared by side to move, a
/// First-to-move grandchild's value counts for First at the root.
#[test]
fn backup_by_side_to_move_with_double_move() {
    let mut tree = Mcts::new(TableGame::new(&DOUBLE_MOVE), &quiet());
    let mut eval = ConstEvaluator([0.6, 0.3, 0.1]);
    // 1: root evaluated. 2: ties at FPU -> child 0 (First to move again),
    // First's WDL counts as is. 3: child 1 by FPU (Second to move), flipped.
    run_one_by_one(&mut tree, &mut eval, 3);
    let kids = tree.root_children();
    assert_eq!((kids[0].visits, kids[1].visits), (1, 1));
    assert!(close(kids[0].q.unwrap(), 0.5), "{kids:?}");
    assert!(close(kids[1].q.unwrap(), -0.5), "{kids:?}");
    assert_wdl(kids[0].wdl.unwrap(), [0.6, 0.3, 0.1]);
    assert_wdl(kids[1].wdl.unwrap(), [0.1, 0.3, 0.6]);
    assert_wdl(tree.root_wdl(), [1.3 / 3.0, 0.3, 0.8 / 3.0]);
    // 4: child 0 again, then the terminal "First wins" (Second to move there):
    // a loss for Second, a win for First at both First-to-move ancestors.
    run_one_by_one(&mut tree, &mut eval, 4);
    let kids = tree.root_children();
    assert_eq!((kids[0].visits, kids[1].visits), (2, 1));
    assert!(
        close(kids[0].q.unwrap(), (0.6 + 1.0 - 0.1) / 2.0),
        "{kids:?}"
    );
    assert_wdl(tree.root_wdl(), [2.3 / 4.0, 0.9 / 4.0, 0.8 / 4.0]);
    let grandchild = &tree.nodes()[tree.nodes()[1].first_child as usize];
    assert_eq!(grandchild.kind, NodeKind::TerminalLoss);
    assert_eq!(grandchild.to_move, S);
}

#[test]
fn double_move_game_is_solved() {
    let mut tree = search(
        &TableGame::new(&DOUBLE_MOVE),
        &mut UniformEvaluator,
        &quiet(),
        300,
        &mut rng(),
    );
    assert_eq!(tree.choose_action(0.0, &mut rng()), Some(0));
    assert_eq!(tree.principal_variation(5), vec![0, 0]);
    let kids = tree.root_children();
    assert!(kids[0].q.unwrap() > 0.9, "{kids:?}");
    // Pass leads to Second choosing the draw: value 0, with early loss samples.
    assert!(kids[1].q.unwrap().abs() < 0.2, "{kids:?}");
    assert!(tree.root_wdl()[0] > 0.9);
    tree.advance(0).unwrap();
    assert_eq!(tree.root_state().side_to_move(), F);
}

#[test]
fn terminal_children_scored_exactly() {
    // With the solver (on by default) the proven win takes every visit.
    let game = TableGame::new(&ALL_TERMINAL);
    let solver = SearchConfig {
        solver: true,
        ..quiet()
    };
    let tree = search(&game, &mut UniformEvaluator, &solver, 40, &mut rng());
    let visits: Vec<u32> = tree.root_children().iter().map(|c| c.visits).collect();
    assert_eq!(visits, [39, 0, 0]);
    assert_eq!(tree.choose_action(0.0, &mut rng()), Some(0));
    // Without it, PUCT visits each and scores each exactly.
    let tree = search(&game, &mut UniformEvaluator, &quiet(), 40, &mut rng());
    let q: Vec<f32> = tree.root_children().iter().map(|c| c.q.unwrap()).collect();
    assert_eq!(q, vec![1.0, 0.0, -1.0]);
    let wdl: Vec<Wdl> = tree
        .root_children()
        .iter()
        .map(|c| c.wdl.unwrap())
        .collect();
    assert_eq!(wdl, vec![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    assert_eq!(tree.choose_action(0.0, &mut rng()), Some(0));
    assert_eq!(tree.visits(), 40);
}

#[test]
fn terminal_root() {
    let over = TicTacToe::from_board("xxxoo....");
    assert_eq!(over.outcome().map(|o| o.winner), Some(Some(F)));
    let tree = search(&over, &mut UniformEvaluator, &quiet(), 50, &mut rng());
    assert!(tree.is_terminal());
    assert_eq!(tree.visits(), 0);
    // O to move has lost.
    assert_eq!(tree.root_wdl(), [0.0, 0.0, 1.0]);
    assert_eq!(tree.choose_action(1.0, &mut rng()), None);
    assert!(tree.policy_target().is_empty());
    assert!(tree.principal_variation(3).is_empty());
}

#[test]
fn single_legal_action_positions() {
    // Off: the root and its forced child are evaluated as draws, the other
    // 8 visits reach Second's win. With forced moves played through
    // (`SearchConfig::collapse_forced`) the child is not evaluated: every
    // visit after the root's own reaches the end.
    for (config, wdl) in [(quiet(), [0.0, 0.2, 0.8]), (collapsing(), [0.0, 0.1, 0.9])] {
        let tree = search(
            &TableGame::new(&ONLY_MOVE),
            &mut UniformEvaluator,
            &config,
            10,
            &mut rng(),
        );
        assert_eq!(tree.visits(), 10);
        assert_eq!(tree.choose_action(1.0, &mut rng()), Some(0));
        assert_eq!(tree.policy_target(), vec![(0, 1.0)]);
        assert_wdl(tree.root_wdl(), wdl);
        assert_eq!(tree.principal_variation(9), vec![0, 0]);
    }
}

#[test]
fn finds_forced_win_in_subtraction_game() {
    // Pile 9: only taking 1 (leaving 8, a multiple of 4) wins.
    let tree = search(
        &Subtract::new(9),
        &mut UniformEvaluator,
        &quiet(),
        3000,
        &mut rng(),
    );
    assert_eq!(tree.choose_action(0.0, &mut rng()), Some(1));
    let kids = tree.root_children();
    let win = kids.iter().find(|c| c.action == 1).unwrap();
    assert!(win.visits > 2800, "{kids:?}");
    assert!(win.q.unwrap() > 0.9, "{kids:?}");
    // Principal variation starts with the win and answers with legal moves.
    let pv = tree.principal_variation(3);
    assert_eq!(pv[0], 1);
    assert_eq!(pv.len(), 3);
    // The line after the win, read in place, is the line of the subtree
    // that advancing to it leaves.
    let after = tree.principal_variation_after(&[1], 2);
    assert_eq!(after, pv[1..]);
    let mut advanced = tree.clone();
    advanced.advance(1).unwrap();
    assert_eq!(advanced.principal_variation(2), after);
    assert_eq!(tree.principal_variation_after(&pv[..2], 1), pv[2..]);
    assert_eq!(tree.principal_variation_after(&[], 3), pv);
}

#[test]
fn tic_tac_toe_wins_and_blocks() {
    // X to move wins at 2.
    let win = search(
        &TicTacToe::from_board("xx.oo...."),
        &mut UniformEvaluator,
        &quiet(),
        400,
        &mut rng(),
    );
    assert_eq!(win.choose_action(0.0, &mut rng()), Some(2));
    assert_eq!(
        win.root_children()
            .iter()
            .find(|c| c.action == 2)
            .unwrap()
            .q,
        Some(1.0)
    );
    // O to move must block at 2 (x threatens 0-1-2); every other move loses.
    let block = TicTacToe::from_board("xx..o....");
    let mut uct = RolloutEvaluator::new(4, 20, StdRng::seed_from_u64(3));
    let tree = search(&block, &mut uct, &quiet(), 800, &mut rng());
    assert_eq!(tree.choose_action(0.0, &mut rng()), Some(2));
}

#[test]
fn visit_counts_sum_to_simulations_across_batched_trees() {
    let mut trees = vec![
        Mcts::new(TicTacToe::start(), &quiet()),
        Mcts::new(TicTacToe::from_board("x...o...."), &SearchConfig::default()),
        Mcts::new(TicTacToe::from_board("xx.oo...."), &quiet()),
    ];
    run_batched(&mut trees, &mut UniformEvaluator, 137, 8, &mut rng());
    for tree in &trees {
        assert_eq!(tree.visits(), 137);
        assert_eq!(tree.num_pending(), 0);
        let kids = tree.root_children();
        assert_eq!(kids.iter().map(|c| c.visits).sum::<u32>(), 136);
        let target = tree.policy_target();
        assert!(close(target.iter().map(|t| t.1).sum(), 1.0));
        for (t, c) in target.iter().zip(&kids) {
            assert_eq!(t.0, c.action);
            assert!(close(t.1, c.visits as f32 / 136.0));
        }
        assert!(tree.nodes().iter().all(|n| n.in_flight == 0));
        assert!(close(tree.root_wdl().iter().sum(), 1.0));
    }
}

/// Counts the positions per batch and how many calls were made.
#[derive(Default)]
struct CountingEvaluator {
    batches: Vec<usize>,
}

impl<G: Game> Evaluator<G> for CountingEvaluator {
    fn evaluate(&mut self, p: &[&G], legal: &[&[G::Action]], priors: &mut [f32], wdl: &mut [Wdl]) {
        self.batches.push(p.len());
        UniformEvaluator.evaluate(p, legal, priors, wdl);
    }

    fn fork(&mut self) -> Option<Self> {
        Some(CountingEvaluator::default())
    }
}

#[test]
fn one_evaluator_call_per_step_for_all_trees() {
    let mut trees: Vec<_> = (0..4)
        .map(|_| Mcts::new(TicTacToe::start(), &quiet()))
        .collect();
    let mut eval = CountingEvaluator::default();
    let limit = Budget::nodes(17);
    let steps = Batch::new(4).run(&mut trees, &mut eval, &limit, &mut rng(), |_| false);
    // Step 1: each root alone (1 leaf per tree); then 4 leaves per tree
    // until 17 visits: 1 + 4 + 4 + 4 + 4 = 17.
    assert_eq!(eval.batches, vec![4, 16, 16, 16, 16]);
    assert_eq!(steps, 5);
}

#[test]
fn virtual_loss_spreads_a_batch() {
    let mut tree = Mcts::new(TicTacToe::start(), &quiet());
    let mut r = rng();
    // Fresh root: one leaf, the other three descents collide on it.
    assert_eq!(tree.select_leaves(4, &mut r), 1);
    let priors = [1.0 / 9.0; 9];
    tree.apply_evaluations(&priors, &[DRAW_WDL]).unwrap();
    assert_eq!(tree.select_leaves(4, &mut r), 4);
    let (positions, legal) = tree.pending_leaves();
    let mut texts: Vec<String> = positions.iter().map(|p| p.to_text()).collect();
    texts.sort();
    texts.dedup();
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert!(legal.iter().all(|l| l.len() == 8));
    // Root and the four children carry one in-flight descent each.
    assert_eq!(tree.nodes()[0].in_flight, 4);
    assert_eq!(tree.nodes().iter().filter(|n| n.in_flight == 1).count(), 4);
    tree.apply_evaluations(&[0.125; 32], &[DRAW_WDL; 4])
        .unwrap();
    assert!(tree.nodes().iter().all(|n| n.in_flight == 0));
    assert_eq!(tree.visits(), 5);

    // Without virtual loss the same batch collides on one leaf.
    let no_vl = SearchConfig {
        virtual_loss: 0.0,
        ..quiet()
    };
    let mut tree = Mcts::new(TicTacToe::start(), &no_vl);
    tree.select_leaves(1, &mut r);
    tree.apply_evaluations(&priors, &[DRAW_WDL]).unwrap();
    assert_eq!(tree.select_leaves(4, &mut r), 1);
}

#[test]
fn apply_with_wrong_lengths_is_an_error() {
    let mut tree = Mcts::new(TicTacToe::start(), &quiet());
    tree.select_leaves(1, &mut rng());
    assert_eq!(
        tree.apply_evaluations(&[0.5; 3], &[DRAW_WDL]),
        Err(SearchError::LengthMismatch {
            what: "priors",
            expected: 9,
            found: 3
        })
    );
    assert_eq!(
        tree.apply_evaluations(&[0.5; 9], &[]),
        Err(SearchError::LengthMismatch {
            what: "wdl",
            expected: 1,
            found: 0
        })
    );
    assert_eq!(tree.num_pending(), 1);
    assert_eq!(tree.visits(), 0);
}

#[test]
fn bad_evaluator_output_is_sanitised() {
    let mut tree = Mcts::new(TicTacToe::start(), &quiet());
    tree.select_leaves(1, &mut rng());
    let mut priors = [0.0f32; 9];
    priors[4] = f32::NAN;
    tree.apply_evaluations(&priors, &[[f32::NAN, 0.0, 0.0]])
        .unwrap();
    assert!(tree
        .root_children()
        .iter()
        .all(|c| close(c.prior, 1.0 / 9.0)));
    assert_eq!(tree.root_wdl(), DRAW_WDL);
    tree.select_leaves(1, &mut rng());
    let mut priors = [0.0f32; 8];
    priors[0] = 2.0;
    priors[1] = 6.0;
    tree.apply_evaluations(&priors, &[[2.0, 0.0, -1.0]])
        .unwrap();
    let child = tree.nodes()[0].first_child as usize;
    let grandkids = tree.nodes()[child].children();
    let p: Vec<f32> = grandkids.map(|g| tree.nodes()[g].prior).collect();
    assert_eq!(&p[..3], &[0.25, 0.75, 0.0]);
    // [2, 0, -1] -> [1, 0, 0] for O at the child: a loss for X at the root.
    assert_wdl(tree.root_wdl(), [0.0, 0.5, 0.5]);
}

#[test]
fn advance_keeps_subtree_statistics() {
    let mut tree = search(
        &TicTacToe::start(),
        &mut UniformEvaluator,
        &quiet(),
        500,
        &mut rng(),
    );
    let nodes_before = tree.node_count();
    let kids = tree.root_children();
    let played = kids[4].action;
    let child = &tree.nodes()[tree.nodes()[0].first_child as usize + 4];
    let expected_visits = child.visits;
    let expected_wdl = child.wdl().unwrap();
    let grandkids: Vec<(u32, f32)> = child
        .children()
        .map(|g| (tree.nodes()[g].visits, tree.nodes()[g].prior))
        .collect();
    assert!(expected_visits > 10);

    tree.advance(played).unwrap();
    assert_eq!(tree.root_state(), &TicTacToe::from_board("....x...."));
    assert_eq!(tree.visits(), expected_visits);
    assert_eq!(tree.root_wdl(), expected_wdl);
    let now: Vec<(u32, f32)> = tree
        .root_children()
        .iter()
        .map(|c| (c.visits, c.prior))
        .collect();
    assert_eq!(now, grandkids);
    assert!(tree.node_count() < nodes_before);

    // Searching on adds to the kept visits.
    run_batched(
        std::slice::from_mut(&mut tree),
        &mut UniformEvaluator,
        expected_visits + 100,
        8,
        &mut rng(),
    );
    assert_eq!(tree.visits(), expected_visits + 100);

    // An illegal action is refused and changes nothing.
    let before = tree.visits();
    assert!(matches!(
        tree.advance(4),
        Err(SearchError::IllegalAction(_))
    ));
    assert_eq!(tree.visits(), before);
}

#[test]
fn advance_from_unexpanded_root() {
    let mut tree = Mcts::new(Subtract::new(5), &quiet());
    assert!(matches!(
        tree.advance(7),
        Err(SearchError::IllegalAction(_))
    ));
    tree.advance(2).unwrap();
    assert_eq!(tree.root_state().pile, 3);
    assert_eq!(tree.visits(), 0);
    tree.advance(3).unwrap();
    assert!(tree.is_terminal());
    assert_eq!(tree.root_wdl(), [0.0, 0.0, 1.0]);
}

/// Priors 1/2, 1/4, 1/4 over the three legal actions of every node.
struct HalvingEvaluator;

impl<G: Game> Evaluator<G> for HalvingEvaluator {
    fn evaluate(&mut self, _p: &[&G], legal: &[&[G::Action]], priors: &mut [f32], wdl: &mut [Wdl]) {
        assert!(legal.iter().all(|l| l.len() == 3));
        for block in priors.chunks_exact_mut(3) {
            block.copy_from_slice(&[0.5, 0.25, 0.25]);
        }
        wdl.fill(DRAW_WDL);
    }
}

#[test]
fn policy_temperature_flattens_priors() {
    // Subtract from 9: take 1, 2 or 3.
    let priors_at = |t: f32| -> Vec<f32> {
        let config = SearchConfig {
            policy_temperature: t,
            ..quiet()
        };
        let tree = search(
            &Subtract::new(9),
            &mut HalvingEvaluator,
            &config,
            1,
            &mut rng(),
        );
        tree.root_children().iter().map(|c| c.prior).collect()
    };
    let close_all = |got: &[f32], want: [f32; 3]| got.iter().zip(want).all(|(a, b)| close(*a, b));
    assert!(close_all(&priors_at(1.0), [0.5, 0.25, 0.25]));
    // T = 2: p^(1/2) = (0.707107, 0.5, 0.5), sum 1.707107.
    let flat = priors_at(2.0);
    assert!(close_all(&flat, [0.414214, 0.292893, 0.292893]), "{flat:?}");
    // T = 0.5 sharpens: p^2 = (0.25, 0.0625, 0.0625), sum 0.375.
    let sharp = priors_at(0.5);
    assert!(
        close_all(&sharp, [0.666667, 0.166667, 0.166667]),
        "{sharp:?}"
    );
    // T = 0.001: 0.5^1000 underflows f32, yet the priors go greedy, not uniform.
    assert!(close_all(&priors_at(0.001), [1.0, 0.0, 0.0]));
}

#[test]
fn dirichlet_noise_only_at_root() {
    let noisy = SearchConfig {
        dirichlet_epsilon: 0.25,
        dirichlet_alpha: 0.3,
        ..plain()
    };
    let mut tree = search(
        &TicTacToe::start(),
        &mut UniformEvaluator,
        &noisy,
        300,
        &mut rng(),
    );
    let check_inner_uniform = |tree: &Mcts<TicTacToe>| {
        let nodes = tree.nodes();
        let mut inner = 0;
        for (i, n) in nodes.iter().enumerate().skip(1) {
            let k = n.num_children as f32;
            for c in n.children() {
                assert!(close(nodes[c].prior, 1.0 / k), "node {i} child {c}");
                inner += 1;
            }
        }
        assert!(inner > 100);
    };
    let priors: Vec<f32> = tree.root_children().iter().map(|c| c.prior).collect();
    assert!(close(priors.iter().sum(), 1.0));
    assert!(
        priors.iter().any(|p| (p - 1.0 / 9.0).abs() > 0.01),
        "{priors:?}"
    );
    // The noise floor: every prior keeps at least (1 - eps) of its uniform value.
    assert!(priors.iter().all(|p| *p >= 0.75 / 9.0 - 1e-6), "{priors:?}");
    check_inner_uniform(&tree);

    // After advancing, the new root gets fresh noise at the next search step.
    let a = tree.choose_action(0.0, &mut rng()).unwrap();
    tree.advance(a).unwrap();
    let before: Vec<f32> = tree.root_children().iter().map(|c| c.prior).collect();
    assert!(before.iter().all(|p| close(*p, 1.0 / 8.0)));
    let target = tree.visits() + 50;
    run_batched(
        std::slice::from_mut(&mut tree),
        &mut UniformEvaluator,
        target,
        8,
        &mut rng(),
    );
    let after: Vec<f32> = tree.root_children().iter().map(|c| c.prior).collect();
    assert!(
        after.iter().any(|p| (p - 1.0 / 8.0).abs() > 0.01),
        "{after:?}"
    );
    check_inner_uniform(&tree);

    // No noise when epsilon is 0.
    let quiet_tree = search(
        &TicTacToe::start(),
        &mut UniformEvaluator,
        &quiet(),
        300,
        &mut rng(),
    );
    assert!(quiet_tree
        .root_children()
        .iter()
        .all(|c| close(c.prior, 1.0 / 9.0)));
}

#[test]
fn choose_action_by_temperature() {
    let tree = search(
        &TicTacToe::start(),
        &mut UniformEvaluator,
        &quiet(),
        400,
        &mut rng(),
    );
    let kids = tree.root_children();
    let max = kids.iter().map(|c| c.visits).max().unwrap();
    let best = kids.iter().find(|c| c.visits == max).unwrap().action;
    let mut r = rng();
    assert_eq!(tree.choose_action(0.0, &mut r), Some(best));
    assert_eq!(tree.choose_action(f32::NAN, &mut r), Some(best));

    // Temperature 1: frequencies follow visit counts; 0.5: visits squared.
    for (t, power) in [(1.0f32, 1), (0.5, 2)] {
        let draws = 40_000;
        let mut counts = [0u32; 9];
        for _ in 0..draws {
            counts[tree.choose_action(t, &mut r).unwrap() as usize] += 1;
        }
        let weights: Vec<f64> = kids
            .iter()
            .map(|c| f64::from(c.visits).powi(power))
            .collect();
        let total: f64 = weights.iter().sum();
        for (c, w) in kids.iter().zip(&weights) {
            let freq = f64::from(counts[c.action as usize]) / f64::from(draws);
            assert!(
                (freq - w / total).abs() < 0.01,
                "t={t} action {}: {freq} vs {}",
                c.action,
                w / total
            );
        }
    }
}

#[test]
fn stop_check_between_steps() {
    let mut trees = vec![Mcts::new(TicTacToe::start(), &quiet())];
    let limit = Budget::nodes(1000);
    let eval = &mut UniformEvaluator;
    let steps = Batch::new(8).run(&mut trees, eval, &limit, &mut rng(), |_| true);
    assert_eq!((steps, trees[0].visits()), (0, 0));
    let flag = std::sync::atomic::AtomicBool::new(false);
    let mut calls = 0;
    let steps = Batch::new(8).run(&mut trees, eval, &limit, &mut rng(), |_| {
        calls += 1;
        if calls == 4 {
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        flag.load(std::sync::atomic::Ordering::Relaxed)
    });
    // Steps of 1, 8, 8 leaves, then stopped.
    assert_eq!(steps, 3);
    assert_eq!(trees[0].visits(), 17);
    assert_eq!(trees[0].num_pending(), 0);
}

#[test]
fn fpu_prefers_a_good_visited_child_over_unvisited_ones() {
    // With a huge FPU reduction, once one child looks fine the search stays on it.
    let greedy = SearchConfig {
        fpu_reduction: 1.0,
        c_puct: 0.1,
        ..quiet()
    };
    let mut tree = Mcts::new(TicTacToe::start(), &greedy);
    run_one_by_one(&mut tree, &mut UniformEvaluator, 20);
    let visited = tree.root_children().iter().filter(|c| c.visits > 0).count();
    assert_eq!(visited, 1);
    // With no reduction and the draw value, unvisited children (Q = parent Q = 0)
    // beat a visited one once its exploration bonus shrinks: all nine get a visit.
    let wide = SearchConfig {
        fpu_reduction: 0.0,
        ..quiet()
    };
    let mut tree = Mcts::new(TicTacToe::start(), &wide);
    run_one_by_one(&mut tree, &mut UniformEvaluator, 10);
    assert!(tree.root_children().iter().all(|c| c.visits == 1));
}

#[test]
fn rollout_evaluator_values() {
    let mut eval = RolloutEvaluator::new(50, 100, StdRng::seed_from_u64(1));
    // Pile 1: the mover takes it and wins; pile 2 with random play: the
    // mover wins by taking 2 (1/2) or after taking 1 the opponent wins.
    let one = Subtract::new(1);
    let two = Subtract::new(2);
    let positions = [&one, &two];
    let legal: [&[u8]; 2] = [&[1], &[1, 2]];
    let mut priors = [0.0; 3];
    let mut wdl = [[0.0; 3]; 2];
    eval.evaluate(&positions, &legal, &mut priors, &mut wdl);
    assert_eq!(priors, [1.0, 0.5, 0.5]);
    assert_eq!(wdl[0], [1.0, 0.0, 0.0]);
    assert!(close(wdl[1][0] + wdl[1][2], 1.0));
    assert!((wdl[1][0] - 0.5).abs() < 0.25, "{:?}", wdl[1]);
    // A ply cap of 0 makes every unfinished playout a draw.
    let mut capped = RolloutEvaluator::new(3, 0, StdRng::seed_from_u64(1));
    capped.evaluate(&positions, &legal, &mut priors, &mut wdl);
    assert_eq!(wdl, [DRAW_WDL, DRAW_WDL]);
}

#[test]
fn rollout_mix_weights_network_and_playouts() {
    // Pile 1: every playout is a win for the mover; the inner evaluator
    // (uniform priors) says draw. Priors always come from the inner one.
    let one = Subtract::new(1);
    let positions = [&one];
    let legal: [&[u8]; 1] = [&[1]];
    let wdl_at = |lambda: f32| {
        let playouts = RolloutEvaluator::new(1, 10, StdRng::seed_from_u64(1));
        let mut mix = RolloutMix::new(UniformEvaluator, playouts, lambda);
        let (mut priors, mut wdl) = ([0.0; 1], [[9.0; 3]; 1]);
        mix.evaluate(&positions, &legal, &mut priors, &mut wdl);
        assert_eq!(priors, [1.0]);
        wdl[0]
    };
    assert_eq!(wdl_at(0.0), DRAW_WDL);
    assert_eq!(wdl_at(1.0), [1.0, 0.0, 0.0]);
    assert_eq!(wdl_at(0.25), [0.25, 0.75, 0.0]);
    // Out-of-range weights are clamped, NaN means the network alone.
    assert_eq!(wdl_at(7.0), [1.0, 0.0, 0.0]);
    assert_eq!(wdl_at(f32::NAN), DRAW_WDL);
}

/// Non-alternating turns on a real (if tiny) game: the move chosen has the
/// exact minimax value, computed by comparing sides, for every pile (9 of
/// these 11 piles have both winning and losing moves).
#[test]
fn extra_turn_game_played_perfectly() {
    for pile in 2..=12u8 {
        let best = ExtraTurn::solve(pile);
        let tree = search(
            &ExtraTurn::new(pile),
            &mut UniformEvaluator,
            &quiet(),
            3000,
            &mut rng(),
        );
        let a = tree.choose_action(0.0, &mut rng()).unwrap();
        assert_eq!(
            ExtraTurn::action_value(pile, a),
            best,
            "pile {pile}: chose {a}, {:?}",
            tree.root_children()
        );
        let q = tree
            .root_children()
            .iter()
            .find(|c| c.action == a)
            .unwrap()
            .q
            .unwrap();
        // Deeper piles need more than 3000 simulations for Q to converge.
        if pile <= 10 {
            assert!(q * best > 0.8, "pile {pile}: q {q}, exact {best}");
        }
    }
}

/// Tree invariants after any batched search: exact visit totals, no
/// leftover virtual loss, and every expanded node's visits equal one (its
/// own evaluation) plus its children's.
/// With `collapsed`, an expanded node with one child may also be a forced
/// position played through ([`SearchConfig::collapse_forced`]), whose
/// visits are all its child's.
fn check_invariants_with<G: Game>(tree: &Mcts<G>, sims: u32, collapsed: bool) {
    assert_eq!(tree.visits(), sims);
    assert_eq!(tree.num_pending(), 0);
    for n in tree.nodes() {
        assert_eq!(n.in_flight, 0);
        assert!(n.win_sum + n.loss_sum <= n.visits as f32 + 1e-3);
        match n.kind {
            NodeKind::Expanded => {
                let sum: u32 = n.children().map(|c| tree.nodes()[c].visits).sum();
                let forced = collapsed && n.num_children == 1 && n.visits == sum;
                assert!(
                    forced || n.visits == sum + 1,
                    "{} visits, children {sum}",
                    n.visits
                );
            }
            NodeKind::Unexpanded => assert_eq!(n.visits, 0),
            _ => {}
        }
    }
    assert!(close(tree.root_wdl().iter().sum(), 1.0));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    #[test]
    fn batched_search_invariants(
        sims in 1u32..400,
        leaves in 1usize..20,
        vl in 0.0f32..3.0,
        fpu in 0.0f32..1.0,
        eps in 0.0f32..1.0,
        pile in 1u8..15,
        seed in 0u64..1000,
        solver in proptest::bool::ANY,
        collapse in proptest::bool::ANY,
    ) {
        let config = SearchConfig {
            virtual_loss: vl, fpu_reduction: fpu, dirichlet_epsilon: eps, solver,
            collapse_forced: collapse, ..plain()
        };
        let mut r = StdRng::seed_from_u64(seed);
        let mut trees = vec![
            Mcts::new(TicTacToe::start(), &config),
            Mcts::new(TicTacToe::from_board("xo.x.o..."), &config),
        ];
        run_batched(&mut trees, &mut UniformEvaluator, sims, leaves, &mut r);
        for t in &trees {
            check_invariants_with(t, sims, collapse);
        }
        let mut extra = vec![Mcts::new(ExtraTurn::new(pile), &config)];
        let mut eval = RolloutEvaluator::new(2, 50, StdRng::seed_from_u64(seed));
        run_batched(&mut extra, &mut eval, sims, leaves, &mut r);
        check_invariants_with(&extra[0], sims, collapse);
        // Reuse keeps the invariants, with the kept visits as the new total.
        if let Some(a) = extra[0].choose_action(1.0, &mut r) {
            let kept = extra[0].root_children().iter().find(|c| c.action == a).map_or(0, |c| c.visits);
            // A child proven by the solver keeps one visit plus its
            // children's (its other visits stopped at the proof).
            let nodes = extra[0].nodes();
            let position = extra[0].root_children().iter().position(|c| c.action == a);
            let reopened = position
                .map(|i| nodes[0].first_child as usize + i)
                .filter(|&c| matches!(nodes[c].kind, NodeKind::ProvenWin | NodeKind::ProvenLoss))
                .map(|c| 1 + nodes[c].children().map(|g| nodes[g].visits).sum::<u32>());
            let kept = reopened.unwrap_or(kept);
            extra[0].advance(a).unwrap();
            // A child the search scored terminal by itself (a proven win in
            // two) restarts as a fresh root.
            let kept = if extra[0].visits() == 0 { 0 } else { kept };
            if !extra[0].is_terminal() {
                check_invariants_with(&extra[0], kept, collapse);
                run_batched(&mut extra, &mut eval, kept + 20, leaves, &mut r);
                check_invariants_with(&extra[0], kept + 20, collapse);
            }
        }
    }
}

/// Decisive moves (Teytaud & Teytaud 2010): a leaf with a win in one action
/// is an exact win found without a network call, and the prior goes to the
/// winning actions only.
#[test]
fn decisive_root_needs_no_evaluation() {
    let mut eval = CountingEvaluator::default();
    let tree = search(
        &TableGame::new(&ALL_TERMINAL),
        &mut eval,
        &decisive(),
        40,
        &mut rng(),
    );
    assert!(eval.batches.is_empty());
    let children = tree.root_children();
    let priors: Vec<f32> = children.iter().map(|c| c.prior).collect();
    assert_eq!(priors, vec![1.0, 0.0, 0.0]);
    let visits: Vec<u32> = children.iter().map(|c| c.visits).collect();
    // The root's own decisive expansion counts one visit; the other 39 go
    // to the winning action.
    assert_eq!(visits, vec![39, 0, 0]);
    assert_eq!(tree.root_wdl(), [1.0, 0.0, 0.0]);
    assert_eq!(tree.choose_action(0.0, &mut rng()), Some(0));
}

#[test]
fn decisive_win_found_with_two_simulations() {
    // X to move wins at cell 5 (right column); cell 1 is the first empty one.
    let pos = TicTacToe::from_board("o.x.o...x");
    let with = search(&pos, &mut UniformEvaluator, &decisive(), 2, &mut rng());
    assert_eq!(with.choose_action(0.0, &mut rng()), Some(5));
    let visited: Vec<(u8, u32)> = with
        .root_children()
        .iter()
        .filter(|c| c.visits > 0)
        .map(|c| (c.action, c.visits))
        .collect();
    assert_eq!(visited, vec![(5, 1)]);
    // Plain PUCT with uniform priors spends its one child visit on cell 1.
    let blind = search(&pos, &mut UniformEvaluator, &quiet(), 2, &mut rng());
    assert_eq!(blind.choose_action(0.0, &mut rng()), Some(1));
}

#[test]
fn decisive_threat_makes_non_blocking_replies_exact_losses() {
    // O to move must block cell 2; after any other reply X wins at once,
    // so each visited non-blocking child is an exact loss for O.
    let pos = TicTacToe::from_board("xx.o.....");
    let tree = search(&pos, &mut UniformEvaluator, &decisive(), 60, &mut rng());
    assert_eq!(tree.choose_action(0.0, &mut rng()), Some(2));
    for c in tree.root_children() {
        if c.action != 2 && c.visits > 0 {
            assert_eq!(
                c.q,
                Some(-1.0),
                "reply {} should be a proven loss",
                c.action
            );
        }
    }
    // Without the test, the same budget leaves the losses unproven.
    let blind = search(&pos, &mut UniformEvaluator, &quiet(), 60, &mut rng());
    assert!(blind
        .root_children()
        .iter()
        .any(|c| c.action != 2 && c.q.is_some_and(|q| q > -1.0)));
}

/// The proven result of each root child from the root's side to move
/// (MCTS-Solver), in legal-action order.
fn root_proofs<G: Game>(tree: &Mcts<G>) -> Vec<Option<f32>> {
    let nodes = tree.nodes();
    nodes[0]
        .children()
        .map(|c| nodes[c].proven_for(nodes[0].to_move))
        .collect()
}

/// MCTS-Solver (Winands et al. 2008) on two small games solved exactly by
/// minimax, one with alternating turns (take 1-3, the last take wins) and
/// one without (taking 1 keeps the turn, the last take loses): from a
/// uniform evaluator, every won pile ends with its chosen move proven won,
/// and every lost pile with every move proven lost, values no sampled
/// estimate reaches exactly.
/// The root proofs after a 3000-simulation solver search of `game`, and
/// the index of the action it chooses (actions `1..=3` are taken amounts).
fn solved<G: Game<Action = u8>>(game: &G) -> (Vec<Option<f32>>, Option<usize>) {
    let config = SearchConfig {
        solver: true,
        ..quiet()
    };
    let tree = search(game, &mut UniformEvaluator, &config, 3000, &mut rng());
    let chosen = tree
        .choose_action(0.0, &mut rng())
        .map(|a| usize::from(a) - 1);
    (root_proofs(&tree), chosen)
}

#[test]
fn solver_proves_small_games() {
    for pile in 2..=9u8 {
        let exact = [
            (pile % 4 != 0, solved(&Subtract::new(pile))),
            (ExtraTurn::solve(pile) > 0.0, solved(&ExtraTurn::new(pile))),
        ];
        for (won, (proofs, chosen)) in exact {
            if won {
                assert_eq!(
                    proofs[chosen.unwrap()],
                    Some(1.0),
                    "pile {pile}: {proofs:?}"
                );
            } else {
                assert!(
                    proofs.iter().all(|p| *p == Some(-1.0)),
                    "pile {pile}: {proofs:?}"
                );
            }
        }
    }
}

/// Root (First) with a forced line on its first action (Second, then
/// First, each with one legal action, down to Second's choice at 3) and a
/// choice for Second at once on its second.
static FORCED_LINE: [Spec; 7] = [
    Spec::Move {
        to_move: F,
        children: &[1, 4],
    },
    Spec::Move {
        to_move: S,
        children: &[2],
    },
    Spec::Move {
        to_move: F,
        children: &[3],
    },
    Spec::Move {
        to_move: S,
        children: &[5, 6],
    },
    Spec::Move {
        to_move: S,
        children: &[5, 6],
    },
    Spec::End {
        to_move: F,
        winner: Some(F),
    },
    Spec::End {
        to_move: F,
        winner: None,
    },
];

/// Two positions with one legal action each, leading to one another for
/// ever (no repetition rule in table games).
static FORCED_CYCLE: [Spec; 3] = [
    Spec::Move {
        to_move: F,
        children: &[1],
    },
    Spec::Move {
        to_move: S,
        children: &[2],
    },
    Spec::Move {
        to_move: F,
        children: &[1],
    },
];

/// Uniform priors, draws, and the table node and ply of every position
/// evaluated.
#[derive(Default)]
struct RecordingEvaluator {
    seen: Vec<(usize, u32)>,
}

impl Evaluator<TableGame> for RecordingEvaluator {
    fn evaluate(&mut self, p: &[&TableGame], legal: &[&[u8]], priors: &mut [f32], wdl: &mut [Wdl]) {
        self.seen.extend(p.iter().map(|g| (g.node, g.ply)));
        UniformEvaluator.evaluate(p, legal, priors, wdl);
    }
}

fn collapsing() -> SearchConfig {
    SearchConfig {
        collapse_forced: true,
        ..quiet()
    }
}

#[test]
fn forced_positions_are_played_through_without_an_evaluation() {
    let game = TableGame::new(&FORCED_LINE);
    let mut on = RecordingEvaluator::default();
    let tree = search(&game, &mut on, &collapsing(), 30, &mut rng());
    assert_eq!(tree.visits(), 30);
    let mut nodes: Vec<usize> = on.seen.iter().map(|&(n, _)| n).collect();
    nodes.sort_unstable();
    nodes.dedup();
    // The root, the choice after the forced line, the other choice: never 1 or 2.
    assert_eq!(nodes, vec![0, 3, 4]);
    // Off, the forced positions are evaluated like any other.
    let mut off = RecordingEvaluator::default();
    search(&game, &mut off, &quiet(), 30, &mut rng());
    assert!(off.seen.iter().any(|&(n, _)| n == 1));
    assert!(off.seen.iter().any(|&(n, _)| n == 2));
}

#[test]
fn a_cycle_of_forced_moves_is_cut_after_the_chain_limit() {
    let mut eval = RecordingEvaluator::default();
    let tree = search(
        &TableGame::new(&FORCED_CYCLE),
        &mut eval,
        &collapsing(),
        3,
        &mut rng(),
    );
    assert_eq!(tree.visits(), 3);
    // The root at ply 0; then the first leaf below it, 1 + 32 plies down
    // (32 forced plies played through); below the limit every forced
    // position is evaluated (the chain is counted along the whole path).
    let plies: Vec<u32> = eval.seen.iter().map(|&(_, ply)| ply).collect();
    assert_eq!(plies, vec![0, 33, 34]);
}

/// Run `f` in a rayon pool of `threads` threads.
fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// Search `trees` to `nodes` root visits with [`Batch::run_pipelined`],
/// `eval` and its fork.
fn run_pipelined<E: Evaluator<TicTacToe> + Send>(
    trees: &mut [Mcts<TicTacToe>],
    eval: &mut E,
    nodes: u32,
    leaves: usize,
) -> usize {
    let budget = Budget::nodes(nodes);
    let mut helper = eval.fork().expect("the test evaluators fork");
    Batch::new(leaves).run_pipelined(trees, [eval, &mut helper], &budget, &mut rng(), |_| false)
}

#[test]
fn pipelined_search_reaches_the_budget_and_reverts_every_virtual_loss() {
    for leaves in [1, 3, 8] {
        let mut trees = vec![
            Mcts::new(TicTacToe::start(), &quiet()),
            Mcts::new(TicTacToe::from_board("x...o...."), &SearchConfig::default()),
            Mcts::new(TicTacToe::from_board("xx.oo...."), &decisive()),
        ];
        in_pool(2, || {
            run_pipelined(&mut trees, &mut UniformEvaluator, 137, leaves)
        });
        for tree in &trees {
            assert_eq!(tree.visits(), 137, "{leaves} leaves");
            assert_eq!(tree.num_pending(), 0);
            let kids = tree.root_children();
            assert_eq!(kids.iter().map(|c| c.visits).sum::<u32>(), 136);
            assert!(tree.nodes().iter().all(|n| n.in_flight == 0));
            assert!(close(tree.root_wdl().iter().sum(), 1.0));
        }
    }
}

#[test]
fn pipelined_search_is_the_same_in_any_pool() {
    let visits = |threads: usize| {
        let mut trees = vec![Mcts::new(TicTacToe::start(), &SearchConfig::default())];
        let mut uct = RolloutEvaluator::new(2, 20, StdRng::seed_from_u64(5));
        in_pool(threads, || run_pipelined(&mut trees, &mut uct, 300, 8));
        trees[0]
            .root_children()
            .iter()
            .map(|c| (c.action, c.visits))
            .collect::<Vec<_>>()
    };
    assert_eq!(visits(1), visits(2));
    assert_eq!(visits(2), visits(2));
}

#[test]
fn pipelined_search_wins_and_blocks() {
    in_pool(2, || {
        let mut win = [Mcts::new(TicTacToe::from_board("xx.oo...."), &quiet())];
        run_pipelined(&mut win, &mut UniformEvaluator, 400, 8);
        assert_eq!(win[0].choose_action(0.0, &mut rng()), Some(2));
        let mut block = [Mcts::new(TicTacToe::from_board("xx..o...."), &quiet())];
        let mut uct = RolloutEvaluator::new(4, 20, StdRng::seed_from_u64(3));
        run_pipelined(&mut block, &mut uct, 800, 8);
        assert_eq!(block[0].choose_action(0.0, &mut rng()), Some(2));
    });
}

#[test]
fn pipelined_search_stopped_leaves_nothing_pending() {
    for threads in [1, 2] {
        let mut trees = vec![Mcts::new(TicTacToe::start(), &quiet())];
        let budget = Budget::nodes(1000);
        let mut calls = 0;
        let (mut eval, mut helper) = (CountingEvaluator::default(), CountingEvaluator::default());
        let batches = in_pool(threads, || {
            Batch::new(8).run_pipelined(
                &mut trees,
                [&mut eval, &mut helper],
                &budget,
                &mut rng(),
                |_| {
                    calls += 1;
                    calls == 4
                },
            )
        });
        // The stop is asked before the root's evaluation (call 1) and on
        // turns 0, 2 and 4 (calls 2-4): turns 0-3 collected a batch each,
        // and the batch in flight at the stop was applied.
        assert_eq!(batches, 4, "{threads} threads");
        assert_eq!((eval.batches.len(), helper.batches.len()), (3, 2));
        assert_eq!(trees[0].num_pending(), 0);
        assert!(trees[0].nodes().iter().all(|n| n.in_flight == 0));
        let evaluated: usize = eval.batches.iter().chain(&helper.batches).sum();
        assert_eq!(trees[0].visits() as usize, evaluated);
    }
}

/// Panics on its `fail_at`-th batch (counting from 1).
struct FailingEvaluator {
    batches: usize,
    fail_at: usize,
}

impl<G: Game> Evaluator<G> for FailingEvaluator {
    fn evaluate(&mut self, p: &[&G], legal: &[&[G::Action]], priors: &mut [f32], wdl: &mut [Wdl]) {
        self.batches += 1;
        assert!(self.batches < self.fail_at, "evaluator failure");
        UniformEvaluator.evaluate(p, legal, priors, wdl);
    }
}

#[test]
fn a_pipelined_search_whose_evaluator_panics_ends_with_the_panic() {
    // Either thread's evaluator failing: the other thread stops waiting
    // for its turns and the panic reaches the caller (no hang).
    for failing in [0, 1] {
        let outcome = std::panic::catch_unwind(|| {
            in_pool(2, || {
                let mut trees = vec![Mcts::new(TicTacToe::start(), &quiet())];
                let mut evals = [0, 1].map(|w| FailingEvaluator {
                    batches: 0,
                    fail_at: if w == failing { 3 } else { usize::MAX },
                });
                let [a, b] = &mut evals;
                Batch::new(4).run_pipelined(
                    &mut trees,
                    [a, b],
                    &Budget::nodes(5000),
                    &mut rng(),
                    |_| false,
                )
            })
        });
        assert!(outcome.is_err(), "worker {failing}'s failure is reported");
    }
}
