//! Tests of the Gumbel AlphaZero root and of KataGo's forced playouts and
//! policy target pruning, against hand-computed values.

use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Gumbel};
use rules::{Game, Player};

use crate::tests::plain;
use crate::toy::{Spec, TableGame, TicTacToe};
use crate::*;

const F: Player = Player::First;
const S: Player = Player::Second;

fn rng() -> StdRng {
    StdRng::seed_from_u64(11)
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

fn assert_close(got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    assert!(
        got.iter().zip(want).all(|(g, w)| close(*g, *w)),
        "{got:?} != {want:?}"
    );
}

fn gumbel_config(m: u32, c_scale: f32, noise: bool) -> SearchConfig {
    SearchConfig {
        root: RootKind::Gumbel,
        gumbel_m: m,
        gumbel_c_scale: c_scale,
        dirichlet_epsilon: if noise { 0.25 } else { 0.0 },
        ..plain()
    }
}

/// Fixed root priors (per legal action, in order; uniform where the list
/// is shorter) and a fixed WDL for every position.
struct FixedEvaluator {
    priors: Vec<f32>,
    wdl: Wdl,
}

impl<G: Game> Evaluator<G> for FixedEvaluator {
    fn evaluate(&mut self, _p: &[&G], legal: &[&[G::Action]], priors: &mut [f32], wdl: &mut [Wdl]) {
        let mut o = 0;
        for l in legal {
            for i in 0..l.len() {
                priors[o + i] = if l.len() == self.priors.len() {
                    self.priors[i]
                } else {
                    1.0 / l.len() as f32
                };
            }
            o += l.len();
        }
        wdl.fill(self.wdl);
    }
}

/// Root (First) whose three actions end the game: First wins, draw, Second wins.
static WIN_DRAW_LOSS: [Spec; 4] = [
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

#[test]
fn config_keys_parse() {
    let c: SearchConfig = serde_json::from_str(
        r#"{"root": "gumbel", "gumbel_m": 8, "gumbel_c_visit": 40.0, "gumbel_c_scale": 0.1,
            "gumbel_rescale_q": false, "forced_playouts": true, "forced_playouts_k": 3.0}"#,
    )
    .unwrap();
    assert_eq!(c.validate(), Ok(()));
    assert_eq!(
        c.root_selection(),
        RootSelection::Gumbel {
            m: 8,
            c_visit: 40.0,
            c_scale: 0.1,
            rescale_q: false
        }
    );
    assert!(c.forced_playouts);
    assert_eq!(
        SearchConfig::default().root_selection(),
        RootSelection::Puct
    );
    assert!(serde_json::from_str::<SearchConfig>(r#"{"root": "uct"}"#).is_err());
    let field_of = |c: SearchConfig| match c.validate() {
        Err(e) => e.field,
        Ok(()) => "ok".to_string(),
    };
    let d = SearchConfig::default;
    assert_eq!(field_of(SearchConfig { gumbel_m: 0, ..d() }), "gumbel_m");
    assert_eq!(
        field_of(SearchConfig {
            gumbel_c_visit: -1.0,
            ..d()
        }),
        "gumbel_c_visit"
    );
    assert_eq!(
        field_of(SearchConfig {
            gumbel_c_scale: f32::NAN,
            ..d()
        }),
        "gumbel_c_scale"
    );
    assert_eq!(
        field_of(SearchConfig {
            forced_playouts_k: 0.0,
            ..d()
        }),
        "forced_playouts_k"
    );
}

/// Per-rank visits after the whole schedule (best-ranked action first).
fn visits_by_rank(m: u32, n: u32) -> Vec<u32> {
    let mut visits = vec![0u32; m.max(1) as usize];
    for i in 0..u64::from(n) {
        let target = considered_visit(m, n, i);
        // Sequential halving sends the visit to the best-ranked action with
        // the target count (with a fixed ranking: the first such).
        let slot = visits.iter().position(|&v| v == target).unwrap();
        visits[slot] += 1;
    }
    visits
}

#[test]
fn sequential_halving_n32_m4() {
    // ceil(log2 4) = 2 phases: floor(32 / (2 * 4)) = 4 visits to each of 4
    // actions (16 sims), then floor(32 / (2 * 2)) = 8 to each of 2 (16).
    let phases = sequential_halving(4, 32);
    let want = [
        HalvingPhase {
            actions: 4,
            visits_per_action: 4,
            simulations: 16,
        },
        HalvingPhase {
            actions: 2,
            visits_per_action: 8,
            simulations: 16,
        },
    ];
    assert_eq!(phases, want);
    // mctx's sequence: [0,0,0,0, 1,1,1,1, 2,2,2,2, 3,3,3,3, 4,4, 5,5, ..., 11,11].
    let seq: Vec<u32> = (0..32).map(|i| considered_visit(4, 32, i)).collect();
    let mut want_seq: Vec<u32> = (0..4).flat_map(|v| [v; 4]).collect();
    want_seq.extend((4..12).flat_map(|v| [v; 2]));
    assert_eq!(seq, want_seq);
    assert_eq!(visits_by_rank(4, 32), vec![12, 12, 4, 4]);
}

#[test]
fn sequential_halving_n200_m16() {
    // ceil(log2 16) = 4. Phases: 16 actions x floor(200/64) = 3 (48 sims),
    // 8 x floor(200/32) = 6 (48), 4 x floor(200/16) = 12 (48),
    // 2 x floor(200/8) = 25 (50): 194 sims; the 6 left go to the last two
    // (a cut-short phase of 2 x 25). Final: 3+6+12+25+3 = 49 for the best
    // two, 3+6+12 = 21 for the next two, 3+6 = 9 for the next four, 3 for
    // the last eight: 98 + 42 + 36 + 24 = 200.
    let phases = sequential_halving(16, 200);
    let p = |actions, visits_per_action, simulations| HalvingPhase {
        actions,
        visits_per_action,
        simulations,
    };
    assert_eq!(
        phases,
        vec![
            p(16, 3, 48),
            p(8, 6, 48),
            p(4, 12, 48),
            p(2, 25, 50),
            p(2, 25, 6)
        ]
    );
    let mut want = vec![49, 49, 21, 21, 9, 9, 9, 9];
    want.extend([3; 8]);
    assert_eq!(visits_by_rank(16, 200), want);
    // Phase boundaries of the sequence.
    assert_eq!(considered_visit(16, 200, 47), 2);
    assert_eq!(considered_visit(16, 200, 48), 3);
    assert_eq!(considered_visit(16, 200, 96), 9);
    assert_eq!(considered_visit(16, 200, 144), 21);
    assert_eq!(considered_visit(16, 200, 199), 48);
    // Past the budget it keeps alternating between the last two.
    assert_eq!(considered_visit(16, 200, 200), 49);
    assert_eq!(considered_visit(16, 200, 201), 49);
    assert_eq!(considered_visit(16, 200, 202), 50);
}

#[test]
fn sequential_halving_small_budgets() {
    // Fewer simulations than actions: one visit each to the first n.
    assert_eq!(
        sequential_halving(16, 8),
        vec![HalvingPhase {
            actions: 16,
            visits_per_action: 1,
            simulations: 8
        }]
    );
    assert_eq!(visits_by_rank(2, 2), vec![1, 1]);
    assert_eq!(visits_by_rank(1, 5), vec![5]);
    assert_eq!(considered_visit(1, 5, 3), 3);
    assert!(sequential_halving(4, 0).is_empty());
    // m = 3: ceil(log2 3) = 2; 3 x floor(12/6) = 2, then 2 x floor(12/4) = 3.
    assert_eq!(visits_by_rank(3, 12), vec![5, 5, 2]);
}

#[test]
fn completed_q_and_improved_policy_by_hand() {
    // pi = [0.5, 0.3, 0.2], N = [2, 1, 0], q = [0.5, -0.25, -], v_hat = 0.1.
    // sum N = 3; visited prior mass 0.8;
    // weighted q = (0.5 * 0.5 + 0.3 * -0.25) / 0.8 = 0.175 / 0.8 = 0.21875;
    // v_mix = (0.1 + 3 * 0.21875) / (1 + 3) = 0.75625 / 4 = 0.1890625.
    let priors = [0.5, 0.3, 0.2];
    let visits = [2, 1, 0];
    let q = [0.5, -0.25, 123.0]; // the unvisited entry is ignored
    assert!(close(mixed_value(0.1, &priors, &visits, &q), 0.189_062_5));
    assert!(close(mixed_value(0.1, &priors, &[0, 0, 0], &q), 0.1));
    // Completed [0.5, -0.25, 0.1890625]; min-max over [-0.25, 0.5] (range
    // 0.75): [1, 0, 0.4390625 / 0.75 = 0.58541667].
    let rescaled = completed_q(0.1, &priors, &visits, &q, true);
    assert_close(&rescaled, &[1.0, 0.0, 0.585_416_7]);
    // Linear (x + 1) / 2: [0.75, 0.375, 0.59453125].
    let linear = completed_q(0.1, &priors, &visits, &q, false);
    assert_close(&linear, &[0.75, 0.375, 0.594_531_25]);
    // sigma scale (c_visit + max N) * c_scale = (50 + 2) * 0.1 = 5.2.
    assert!(close(sigma_scale(50.0, 0.1, 2), 5.2));
    assert!(close(sigma_scale(50.0, 1.0, 2), 52.0));
    // z = ln(pi) + 5.2 * q_hat = [-0.693147 + 5.2, -1.203973, -1.609438 + 3.044167]
    //   = [4.506853, -1.203973, 1.434729]; softmax(z) =
    //   [0.9527143, 0.0031534, 0.0441323].
    let logits: Vec<f32> = priors.iter().map(|&p| logit(p)).collect();
    let pi = improved_policy(&logits, &rescaled, 5.2);
    assert_close(&pi, &[0.952_714_3, 0.003_153_4, 0.044_132_3]);
    assert!(close(pi.iter().sum(), 1.0));
    // A zero prior is a finite, very negative logit.
    assert!(close(logit(0.0), f32::MIN_POSITIVE.ln()));
}

#[test]
fn gumbel_tree_policy_target_by_hand() {
    // Root priors [0.5, 0.3, 0.2], root value W - L = 0.4 - 0.3 = 0.1; the
    // children are exact: win (q = 1), draw (0), loss (-1). No noise, m = 2,
    // 4 simulations = the root + n = 3 child visits. Schedule (m = 2,
    // n = 3): considered visits [0, 0, 1]. The top two logits (actions 0, 1)
    // get one visit each; the third goes to the better of them by
    // logit + sigma(q_hat): action 0 (q = 1). So N = [2, 1, 0], q = [1, 0, -].
    // v_mix = (0.1 + 3 * (0.5 * 1 + 0.3 * 0) / 0.8) / 4 = (0.1 + 1.875) / 4 = 0.49375.
    // Completed [1, 0, 0.49375] is already in [0, 1] (min-max leaves it).
    // c_scale 0.1: sigma = 5.2 * q_hat;
    // z = [ln 0.5 + 5.2, ln 0.3, ln 0.2 + 2.5675] = [4.5068528, -1.2039728, 0.9580621];
    // softmax(z) = [0.9689272, 0.0032071, 0.0278658].
    let config = gumbel_config(2, 0.1, false);
    let mut eval = FixedEvaluator {
        priors: vec![0.5, 0.3, 0.2],
        wdl: [0.4, 0.3, 0.3],
    };
    let tree = search(
        &TableGame::new(&WIN_DRAW_LOSS),
        &mut eval,
        &config,
        4,
        &mut rng(),
    );
    let visits: Vec<u32> = tree.root_children().iter().map(|c| c.visits).collect();
    assert_eq!(visits, vec![2, 1, 0]);
    let target: Vec<f32> = tree.policy_target().iter().map(|t| t.1).collect();
    assert_close(&target, &[0.968_927_2, 0.003_207_1, 0.027_865_8]);
    assert_eq!(tree.choose_action(1.0, &mut rng()), Some(0));
}

#[test]
fn gumbel_m2_n2_finds_the_better_action() {
    // Priors favour the draw (0.6) over the win (0.3); with m = 2 and n = 2
    // each of the two gets one visit, and the deterministic choice among the
    // most visited, argmax logit + sigma(q_hat), picks the win:
    // ln 0.3 + 51 * 1 = 49.80 > ln 0.6 + 51 * 0 = -0.51.
    let config = gumbel_config(2, 1.0, false);
    let mut eval = FixedEvaluator {
        priors: vec![0.3, 0.6, 0.1],
        wdl: [0.0, 1.0, 0.0],
    };
    let tree = search(
        &TableGame::new(&WIN_DRAW_LOSS),
        &mut eval,
        &config,
        3,
        &mut rng(),
    );
    let visits: Vec<u32> = tree.root_children().iter().map(|c| c.visits).collect();
    assert_eq!(visits, vec![1, 1, 0]);
    assert_eq!(tree.gumbel_action(), Some(0));
    assert_eq!(tree.choose_action(0.0, &mut rng()), Some(0));
    // A PUCT root has no Gumbel action.
    let puct = search(
        &TableGame::new(&WIN_DRAW_LOSS),
        &mut eval,
        &SearchConfig {
            dirichlet_epsilon: 0.0,
            ..plain()
        },
        3,
        &mut rng(),
    );
    assert_eq!(puct.gumbel_action(), None);
}

#[test]
fn gumbel_top_k_and_deterministic_choice_with_noise() {
    // Tic-tac-toe start: 9 actions, uniform priors, every evaluation a draw.
    // The tree draws g ~ Gumbel(0, 1) for the 9 actions from the search rng
    // at its second step (the first evaluates the root); replay those draws.
    // m = 4, n = 4 (5 simulations): schedule [0, 0, 0, 0], so exactly the
    // top 4 by g + logits (= g + ln(1/9)) get one visit. All Q are 0, so
    // q_hat = 0 everywhere and the action is the argmax of g among them.
    let config = gumbel_config(4, 1.0, true);
    let tree = search(
        &TicTacToe::start(),
        &mut UniformEvaluator,
        &config,
        5,
        &mut rng(),
    );
    let mut r = rng();
    let dist = Gumbel::new(0.0f32, 1.0).unwrap();
    let g: Vec<f32> = (0..9).map(|_| dist.sample(&mut r)).collect();
    let mut order: Vec<usize> = (0..9).collect();
    order.sort_by(|a, b| g[*b].total_cmp(&g[*a]));
    let mut top4 = order[..4].to_vec();
    top4.sort();
    let kids = tree.root_children();
    let visited: Vec<usize> = (0..9).filter(|&i| kids[i].visits > 0).collect();
    assert_eq!(visited, top4);
    assert!(visited.iter().all(|&i| kids[i].visits == 1));
    assert_eq!(
        tree.choose_action(0.0, &mut rng()),
        Some(kids[order[0]].action)
    );
    // Without noise g = 0: the top 4 logits tie, so the first four actions.
    let quiet = search(
        &TicTacToe::start(),
        &mut UniformEvaluator,
        &gumbel_config(4, 1.0, false),
        5,
        &mut rng(),
    );
    let v: Vec<u32> = quiet.root_children().iter().map(|c| c.visits).collect();
    assert_eq!(v, vec![1, 1, 1, 1, 0, 0, 0, 0, 0]);
    assert_eq!(
        quiet.choose_action(0.0, &mut rng()),
        Some(quiet.root_children()[0].action)
    );
}

#[test]
fn gumbel_visits_follow_the_schedule_when_batched() {
    // 33 simulations = root + 32 child visits, m = 4: the sorted root
    // visits must be [12, 12, 4, 4, 0, ...] whatever the batch size.
    for leaves in [1usize, 3, 8] {
        for noise in [false, true] {
            let mut trees = [Mcts::new(TicTacToe::start(), &gumbel_config(4, 1.0, noise))];
            run_batched(&mut trees, &mut UniformEvaluator, 33, leaves, &mut rng());
            let tree = &trees[0];
            assert_eq!(tree.visits(), 33);
            let mut v: Vec<u32> = tree.root_children().iter().map(|c| c.visits).collect();
            v.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(
                v,
                vec![12, 12, 4, 4, 0, 0, 0, 0, 0],
                "leaves {leaves} noise {noise}"
            );
            assert!(tree.nodes().iter().all(|n| n.in_flight == 0));
            let target = tree.policy_target();
            assert_eq!(target.len(), 9);
            assert!(close(target.iter().map(|t| t.1).sum(), 1.0));
        }
    }
}

#[test]
fn gumbel_advance_starts_a_fresh_tree() {
    let config = gumbel_config(4, 1.0, false);
    let mut tree = search(
        &TicTacToe::start(),
        &mut UniformEvaluator,
        &config,
        33,
        &mut rng(),
    );
    let a = tree.choose_action(0.0, &mut rng()).unwrap();
    tree.advance(a).unwrap();
    assert_eq!(tree.visits(), 0);
    assert_eq!(tree.node_count(), 1);
    assert!(tree.advance(a).is_err());
}

#[test]
fn gumbel_plays_tic_tac_toe_wins_and_blocks() {
    // x to move can win at 2 (x x .); with 16 sims Gumbel must find it.
    let config = gumbel_config(16, 1.0, false);
    let win = TicTacToe::from_board("xx.oo....");
    let tree = search(&win, &mut UniformEvaluator, &config, 16, &mut rng());
    assert_eq!(tree.choose_action(0.0, &mut rng()), Some(2));
    // o to move must block x's 0-1-2 row at 2.
    let block = TicTacToe::from_board("xx..o....");
    let tree = search(&block, &mut UniformEvaluator, &config, 32, &mut rng());
    assert_eq!(tree.choose_action(0.0, &mut rng()), Some(2));
}

/// Root (First) with four children where Second moves; each child has two
/// terminal continuations. Only the root's children matter here.
static FOUR_CHILDREN: [Spec; 7] = [
    Spec::Move {
        to_move: F,
        children: &[1, 1, 1, 1],
    },
    Spec::Move {
        to_move: S,
        children: &[2, 3],
    },
    Spec::End {
        to_move: F,
        winner: None,
    },
    Spec::End {
        to_move: F,
        winner: None,
    },
    Spec::End {
        to_move: F,
        winner: None,
    },
    Spec::End {
        to_move: F,
        winner: None,
    },
    Spec::End {
        to_move: F,
        winner: None,
    },
];

/// A tree over `FOUR_CHILDREN` with hand-set root statistics:
/// root N = 100; children (N, P, Q for First) = (60, 0.5, 0.2),
/// (30, 0.3, 0.1), (6, 0.15, -0.3), (3, 0.05, -0.1).
fn hand_built(config: &SearchConfig) -> Mcts<TableGame> {
    let mut tree = Mcts::new(TableGame::new(&FOUR_CHILDREN), config);
    let mut r = rng();
    run_batched(
        std::slice::from_mut(&mut tree),
        &mut UniformEvaluator,
        1,
        1,
        &mut r,
    );
    tree.select_leaves(0, &mut r); // applies any pending root noise
    let stats = [
        (60u32, 0.5f32, 0.2f32),
        (30, 0.3, 0.1),
        (6, 0.15, -0.3),
        (3, 0.05, -0.1),
    ];
    let nodes = tree.nodes_mut();
    nodes[0].visits = 100;
    nodes[0].win_sum = 30.0;
    nodes[0].loss_sum = 20.0;
    for (i, (n, p, q)) in stats.into_iter().enumerate() {
        let child = &mut nodes[1 + i];
        child.visits = n;
        child.prior = p;
        child.to_move = S;
        // Stored from Second's view: Q_Second = -q.
        let own = -q;
        child.win_sum = n as f32 * own.max(0.0);
        child.loss_sum = n as f32 * (-own).max(0.0);
    }
    tree
}

#[test]
fn policy_target_pruning_by_hand() {
    // c_puct 1.25, k = 2, sqrt(N_root) = 10, sum of child visits 99.
    // c* = child 0: PUCT* = 0.2 + 1.25 * 0.5 * 10 / 61 = 0.3024590.
    // Child 1: n_forced = sqrt(2 * 0.3 * 99) = 7.707 -> at most 7 removed;
    //   PUCT < PUCT* needs n' > 1.25 * 0.3 * 10 / (0.3024590 - 0.1) - 1 = 17.52,
    //   i.e. n' >= 18; kept = max(18, 30 - 7) = 23 (capped by n_forced).
    // Child 2: n_forced = sqrt(2 * 0.15 * 99) = 5.45 -> at most 5;
    //   n' > 1.875 / 0.6024590 - 1 = 2.11 -> n' >= 3; kept = max(3, 1) = 3
    //   (capped by PUCT).
    // Child 3: n_forced = sqrt(2 * 0.05 * 99) = 3.146 -> at most 3;
    //   n' > 0.625 / 0.4024590 - 1 = 0.553 -> n' >= 1; kept = max(1, 0) = 1,
    //   reduced to a single visit -> pruned to 0.
    // Target: [60, 23, 3, 0] / 86.
    let config = SearchConfig {
        forced_playouts: true,
        dirichlet_epsilon: 0.0,
        ..plain()
    };
    let tree = hand_built(&config);
    assert_eq!(tree.pruned_root_visits(), vec![60, 23, 3, 0]);
    let target: Vec<f32> = tree.policy_target().iter().map(|t| t.1).collect();
    assert_close(&target, &[60.0 / 86.0, 23.0 / 86.0, 3.0 / 86.0, 0.0]);
    // Without forced playouts the target is the raw visit distribution.
    let plain = hand_built(&SearchConfig {
        dirichlet_epsilon: 0.0,
        ..plain()
    });
    assert_eq!(plain.pruned_root_visits(), vec![60, 30, 6, 3]);
    let target: Vec<f32> = plain.policy_target().iter().map(|t| t.1).collect();
    assert_close(&target, &[60.0 / 99.0, 30.0 / 99.0, 6.0 / 99.0, 3.0 / 99.0]);
}

#[test]
fn forced_playouts_choose_the_starved_child() {
    // Same statistics. PUCT scores: child 0: 0.3025, 1: 0.2210, 2: -0.0321,
    // 3: 0.0562, so plain PUCT descends into child 0. With forced playouts
    // (k = 2): child 3 has 3 < sqrt(2 * 0.05 * 99) = 3.146 visits (child 2:
    // 6 >= 5.45, child 1: 30 >= 7.7) and is chosen outright — while root
    // exploration is on (noise enabled), not otherwise.
    let descend_into = |config: &SearchConfig, explore: bool| {
        let mut tree = hand_built(config);
        tree.set_exploration(explore);
        assert_eq!(tree.select_leaves(1, &mut rng()), 1);
        (1..=4).find(|&c| tree.nodes()[c].in_flight == 1).unwrap() - 1
    };
    let forced = SearchConfig {
        forced_playouts: true,
        ..plain()
    };
    assert_eq!(descend_into(&forced, true), 3);
    assert_eq!(descend_into(&forced, false), 0);
    let evaluation = SearchConfig {
        dirichlet_epsilon: 0.0,
        ..forced.clone()
    };
    assert_eq!(descend_into(&evaluation, true), 0);
    assert_eq!(descend_into(&plain(), true), 0);
}

#[test]
fn exploration_switch_controls_root_noise() {
    let noisy = plain();
    let mut tree = Mcts::new(TicTacToe::start(), &noisy);
    assert!(tree.exploration());
    tree.set_exploration(false);
    assert!(!tree.exploration());
    run_batched(
        std::slice::from_mut(&mut tree),
        &mut UniformEvaluator,
        50,
        4,
        &mut rng(),
    );
    assert!(tree
        .root_children()
        .iter()
        .all(|c| close(c.prior, 1.0 / 9.0)));
    let quiet = SearchConfig {
        dirichlet_epsilon: 0.0,
        ..plain()
    };
    let mut tree = Mcts::new(TicTacToe::start(), &quiet);
    tree.set_exploration(true);
    assert!(!tree.exploration());
}
