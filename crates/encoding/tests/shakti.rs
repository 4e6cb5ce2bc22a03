//! Shakti encoding tests: plane contents, the injective policy map, and the
//! D4 symmetries checked against the rules (transformed positions are built
//! through `from_text`).

use encoding::shakti::{PASS_INDEX, PASS_PLANE, PASS_SQUARE};
use encoding::{transform_input, transform_policy_index, Encode};
use rules::{Game, Geometry, Player, Shakti};
use std::collections::BTreeSet;

const AREA: usize = 49;
const G7: Geometry = Geometry::new(7, 7);

fn game(text: &str) -> Shakti {
    match Shakti::from_text(text) {
        Ok(g) => g,
        Err(e) => panic!("{text:?} does not parse: {e}"),
    }
}

fn encode(g: &Shakti) -> Vec<f32> {
    let mut v = vec![f32::NAN; Shakti::input_len()];
    g.encode(&mut v);
    v
}

fn plane(input: &[f32], p: usize) -> Vec<usize> {
    (0..AREA)
        .filter(|&sq| input[p * AREA + sq] == 1.0)
        .collect()
}

/// Network square of board square `sq` for `side` (ranks flipped for Black).
fn net(side: Player, sq: usize) -> usize {
    match side {
        Player::First => sq,
        Player::Second => (6 - sq / 7) * 7 + sq % 7,
    }
}

/// The position text of `g` transformed by network-frame symmetry `sym`.
fn transformed_text(g: &Shakti, sym: usize) -> String {
    let text = g.to_text();
    let (board, side) = text.split_once(' ').expect("two fields");
    let cells = G7.parse_board(board, Some).expect("own text parses");
    let mut out = vec![None; AREA];
    for (sq, cell) in cells.iter().enumerate() {
        let s = g.side_to_move();
        out[net(s, Shakti::map_square(sym, net(s, sq)))] = *cell;
    }
    format!("{} {side}", G7.format_board(&out, |c| c))
}

fn next(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

/// Positions from random legal games of both starts, plus special ones
/// (forced pass, check, holes everywhere).
fn sample_positions() -> Vec<Shakti> {
    let mut seed = 11u64;
    let mut out = vec![
        game("xxk1xxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/Wxxxxxx/KWxxxxx w"),
        game("6k/7/7/7/2w4/1x5/K5W w"),
        game("6k/7/7/7/7/1w5/K1W4 w"),
        game("3k3/3x3/3x3/3x3/4W2/3x3/3K3 w"),
        game("xxxxxxx/1wxkxw1/7/3x3/7/1W1K1W1/x5x b"),
    ];
    let mut actions = Vec::new();
    for n in 0..60 {
        let mut g = if n % 2 == 0 {
            Shakti::start()
        } else {
            Shakti::start_45()
        };
        for ply in 0..80 {
            g.legal_actions(&mut actions);
            if actions.is_empty() {
                break;
            }
            if ply % 7 == 3 {
                out.push(game(&g.to_text()));
            }
            g.play(actions[next(&mut seed) as usize % actions.len()]);
        }
    }
    out
}

#[test]
fn start_planes_from_each_side() {
    let g = Shakti::start();
    let input = encode(&g);
    assert_eq!(plane(&input, 0).len(), 49);
    assert_eq!(plane(&input, 1), vec![10]); // d2
    assert_eq!(plane(&input, 2), vec![8, 12]); // b2, f2
    assert_eq!(plane(&input, 3), vec![38]); // d6
    assert_eq!(plane(&input, 4), vec![36, 40]); // b6, f6
    assert!(plane(&input, 5).is_empty() && plane(&input, 6).is_empty());
    assert_eq!(plane(&input, 7).len(), 49);
    // After b2b4 (b3 removed) Black to move sees its own king on d2 and
    // the hole on b5 (b3 with ranks flipped) and White's b4 warrior on b4.
    let mut g = Shakti::start_45();
    let jump = g.parse_move("b2b4").expect("legal")[0];
    g.play(jump);
    let input = encode(&g);
    assert_eq!(g.side_to_move(), Player::Second);
    let holes: Vec<usize> = (0..AREA)
        .filter(|sq| !plane(&input, 0).contains(sq))
        .collect();
    assert_eq!(holes, vec![0, 6, 29, 42, 48]);
    assert_eq!(plane(&input, 1), vec![10]);
    assert_eq!(plane(&input, 2), vec![8, 12]);
    assert_eq!(plane(&input, 3), vec![38]);
    assert_eq!(plane(&input, 4), vec![22, 40]); // b4 -> b4, f2 -> f6
}

#[test]
fn check_and_repetition_planes() {
    let g = game("6k/7/7/7/2w4/1x5/K5W w");
    assert_eq!(plane(&encode(&g), 5).len(), 49);
    let mut g = Shakti::start();
    for m in ["d2d1", "d6d7", "d1d2", "d7d6"] {
        let a = g.parse_move(m).expect("legal")[0];
        g.play(a);
    }
    assert_eq!(g.repetition_count(), 2);
    assert_eq!(plane(&encode(&g), 6).len(), 49);
}

#[test]
fn policy_indices_of_moves_and_the_pass() {
    let g = Shakti::start();
    let index = |text: &str| g.policy_index(g.parse_move(text).expect("legal")[0]);
    // b2b4: north (0), distance 2, from b2 (8).
    assert_eq!(index("b2b4"), AREA + 8);
    // d2e1: south-east (3), distance 1, from d2 (10).
    assert_eq!(index("d2e1"), 18 * AREA + 10);
    // For Black, its own "forward" (south on the board) is north.
    let mut g = Shakti::start();
    g.play(g.parse_move("d2d1").expect("legal")[0]);
    let b6b4 = g.parse_move("b6b4").expect("legal")[0];
    assert_eq!(g.policy_index(b6b4), AREA + 8);
    let pass = game("xxk1xxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/Wxxxxxx/KWxxxxx w");
    assert_eq!(pass.policy_index(pass.legal_vec()[0]), PASS_INDEX);
    assert_eq!(PASS_INDEX, PASS_PLANE * AREA + PASS_SQUARE);
    assert_eq!(Shakti::policy_len(), 49 * 49);
}

#[test]
fn policy_map_is_injective_on_legal_actions() {
    let mut total = 0;
    for g in sample_positions() {
        let actions = g.legal_vec();
        let indices: BTreeSet<usize> = actions.iter().map(|&a| g.policy_index(a)).collect();
        assert_eq!(indices.len(), actions.len(), "{}", g.to_text());
        assert!(indices.iter().all(|&i| i < Shakti::policy_len()));
        total += actions.len();
    }
    assert!(total > 1000, "sample too small: {total}");
}

#[test]
fn symmetries_form_d4_with_identity_first() {
    let mut images = BTreeSet::new();
    for sym in 0..Shakti::SYMMETRIES {
        let squares: Vec<usize> = (0..AREA).map(|sq| Shakti::map_square(sym, sq)).collect();
        assert_eq!(squares.iter().collect::<BTreeSet<_>>().len(), AREA);
        assert_eq!(squares[PASS_SQUARE], PASS_SQUARE);
        let planes: BTreeSet<usize> = (0..Shakti::POLICY_PLANES)
            .map(|p| Shakti::map_policy_plane(sym, p))
            .collect();
        assert_eq!(planes.len(), Shakti::POLICY_PLANES);
        assert_eq!(
            transform_policy_index::<Shakti>(sym, PASS_INDEX),
            PASS_INDEX
        );
        images.insert(squares);
    }
    assert_eq!(images.len(), 8);
    assert!((0..AREA).all(|sq| Shakti::map_square(0, sq) == sq));
    // Quarter turn: a1 -> a7 -> g7 -> g1.
    assert_eq!(
        (1..4).map(|r| Shakti::map_square(r, 0)).collect::<Vec<_>>(),
        vec![42, 48, 6]
    );
}

#[test]
fn symmetries_map_legal_actions_and_encodings() {
    let mut checked = 0;
    for g in sample_positions() {
        let input = encode(&g);
        let legal: BTreeSet<usize> = g.legal_vec().iter().map(|&a| g.policy_index(a)).collect();
        for sym in 0..Shakti::SYMMETRIES {
            let h = game(&transformed_text(&g, sym));
            let mapped: BTreeSet<usize> = legal
                .iter()
                .map(|&i| transform_policy_index::<Shakti>(sym, i))
                .collect();
            let actual: BTreeSet<usize> =
                h.legal_vec().iter().map(|&a| h.policy_index(a)).collect();
            assert_eq!(actual, mapped, "{} sym {sym}", g.to_text());
            let mut moved = vec![f32::NAN; input.len()];
            transform_input::<Shakti>(sym, &input, &mut moved);
            assert_eq!(encode(&h), moved, "{} sym {sym}", g.to_text());
            assert_eq!(h.outcome(), g.outcome());
            checked += 1;
        }
    }
    assert!(checked > 1000);
}

#[test]
fn start_positions_under_d4() {
    let starts = [
        (Shakti::start(), "7/1W1K1W1/7/7/7/1w1k1w1/7 w"),
        (Shakti::start_45(), "x5x/1W1K1W1/7/7/7/1w1k1w1/x5x w"),
    ];
    for (g, turned) in starts {
        // The file mirror keeps the start; the half turn swaps the armies.
        assert_eq!(transformed_text(&g, 4), g.to_text());
        assert_eq!(transformed_text(&g, 2), turned);
        // A quarter turn puts the armies on the a and g files.
        let h = game(&transformed_text(&g, 1));
        assert_eq!(h.king(Player::First), 3 * 7 + 1); // d2 -> b4
        assert_eq!(h.legal_vec().len(), g.legal_vec().len());
    }
}
