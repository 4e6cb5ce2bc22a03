//! Symmetry properties of every variant's encoding over random legal games,
//! one generic suite instantiated per variant.
//!
//! For a history-free position `g` (parsed from text, at a turn start) and
//! each symmetry `sym` the encoder uses, the image `h` is built by
//! transforming `g`'s position text (the same mechanism as the per-variant
//! encoding tests). Then:
//!
//! - the legal policy indices of `h` are the images of those of `g` under
//!   [`transform_policy_index`] (the policy map is injective, so this is the
//!   mapped legal action set);
//! - the encoding of `h` is the image of `g`'s under [`transform_input`];
//! - the policy indices of `g`'s legal actions are distinct and in range.

use encoding::tafl::tafl_map_square;
use encoding::{transform_input, transform_policy_index, Encode};
use proptest::prelude::*;
use rules::tafl::board::{GEOMETRY as TAFL, SQUARES as TAFL_SQUARES};
use rules::tafl::state::{COMMAND, EXCHANGE, FREEZE, HOP};
use rules::tafl::Tafl;
use rules::zobrist::splitmix64;
use rules::{Copenhagen, Game, Geometry, Hnefatafl, Loki, Losers, Player, Shakti, Viking};
use std::collections::BTreeSet;

/// Per-variant hook: the position text of the image of `self` under `sym`,
/// or `None` where it cannot be written (then the position is skipped).
trait Image: Encode {
    fn image_text(&self, sym: usize) -> Option<String>;
}

impl Image for Losers {
    fn image_text(&self, sym: usize) -> Option<String> {
        // Only the identity (castling breaks the mirror).
        (sym == 0).then(|| self.to_text())
    }
}

impl Image for Viking {
    /// Symmetry 1: the left-right mirror with colours and side swapped.
    fn image_text(&self, sym: usize) -> Option<String> {
        let text = self.to_text();
        if sym == 0 {
            return Some(text);
        }
        let geo = Geometry::new(12, 7);
        let fields: Vec<&str> = text.split(' ').collect();
        let cells = geo.parse_board(fields[0], Some).ok()?;
        let mut out = vec![None; cells.len()];
        for (sq, c) in cells.iter().enumerate() {
            let (file, rank) = (sq % 12, sq / 12);
            out[rank * 12 + 11 - file] = c.map(|c: char| {
                if c.is_ascii_uppercase() {
                    c.to_ascii_lowercase()
                } else {
                    c.to_ascii_uppercase()
                }
            });
        }
        let side = if fields[1] == "w" { "b" } else { "w" };
        Some(format!(
            "{} {side} - - {} {}",
            geo.format_board(&out, |c| c),
            fields[4],
            fields[5]
        ))
    }
}

/// Tafl text transformed by `sym` (turn start only).
fn tafl_image(t: &Tafl, sym: usize, loki: bool) -> Option<String> {
    if t.has_refusals() {
        return None; // the repetition ban lives in the history
    }
    let mut cells = vec![None; TAFL_SQUARES];
    for sq in 0..TAFL_SQUARES {
        cells[tafl_map_square(sym, sq)] = t.piece_at(sq).map(|p| p.to_char());
    }
    let board = TAFL.format_board(&cells, |c| c);
    let side = if t.side() == Player::First { "a" } else { "d" };
    if !loki {
        return Some(format!("{board} {side}"));
    }
    let uses = |s: Player| -> String {
        [EXCHANGE, COMMAND, FREEZE, HOP]
            .iter()
            .map(|&p| t.uses(s, p).to_string())
            .collect()
    };
    let frozen: Vec<String> = (0..TAFL_SQUARES)
        .filter(|&sq| t.frozen() & (1u128 << sq) != 0)
        .map(|sq| format!("{}:1", TAFL.name(tafl_map_square(sym, sq))))
        .collect();
    let frozen = if frozen.is_empty() {
        "-".to_string()
    } else {
        format!("f={}", frozen.join(","))
    };
    Some(format!(
        "{board} {side} {}/{} {frozen}",
        uses(Player::First),
        uses(Player::Second)
    ))
}

impl Image for Hnefatafl {
    fn image_text(&self, sym: usize) -> Option<String> {
        tafl_image(self.state(), sym, false)
    }
}

impl Image for Copenhagen {
    fn image_text(&self, sym: usize) -> Option<String> {
        tafl_image(self.state(), sym, false)
    }
}

impl Image for Loki {
    fn image_text(&self, sym: usize) -> Option<String> {
        tafl_image(self.state(), sym, true)
    }
}

impl Image for Shakti {
    /// Symmetries act in the network frame (ranks flipped for Black).
    fn image_text(&self, sym: usize) -> Option<String> {
        let geo = Geometry::new(7, 7);
        let net = |side: Player, sq: usize| match side {
            Player::First => sq,
            Player::Second => (6 - sq / 7) * 7 + sq % 7,
        };
        let text = self.to_text();
        let (board, side) = text.split_once(' ')?;
        let cells = geo.parse_board(board, Some).ok()?;
        let mut out = vec![None; 49];
        let s = self.side_to_move();
        for (sq, cell) in cells.iter().enumerate() {
            out[net(s, Shakti::map_square(sym, net(s, sq)))] = *cell;
        }
        Some(format!("{} {side}", geo.format_board(&out, |c| c)))
    }
}

fn encoded<G: Encode>(g: &G) -> Vec<f32> {
    let mut v = vec![f32::NAN; G::input_len()];
    g.encode(&mut v);
    v
}

fn policy_set<G: Encode>(g: &G) -> BTreeSet<usize> {
    let legal = g.legal_vec();
    let set: BTreeSet<usize> = legal.iter().map(|&a| g.policy_index(a)).collect();
    assert_eq!(
        set.len(),
        legal.len(),
        "policy map not injective: {}",
        g.to_text()
    );
    assert!(set.iter().all(|&i| i < G::policy_len()));
    set
}

/// Checks every symmetry at `g`; returns the number of images checked.
fn check_symmetries<G: Image>(g: &G) -> usize {
    let text = g.to_text();
    let g = G::from_text(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let legal = policy_set(&g);
    let input = encoded(&g);
    let mut checked = 0;
    for sym in 0..G::SYMMETRIES {
        let Some(image) = g.image_text(sym) else {
            continue;
        };
        let h = G::from_text(&image).unwrap_or_else(|e| panic!("sym {sym} {image}: {e}"));
        let mapped: BTreeSet<usize> = legal
            .iter()
            .map(|&i| transform_policy_index::<G>(sym, i))
            .collect();
        assert_eq!(policy_set(&h), mapped, "sym {sym}: {text} -> {image}");
        let mut moved = vec![f32::NAN; input.len()];
        transform_input::<G>(sym, &input, &mut moved);
        assert_eq!(encoded(&h), moved, "sym {sym}: {text} -> {image}");
        checked += 1;
    }
    checked
}

/// A random legal game of `plies` actions; symmetries checked every
/// `every` positions at turn starts.
fn check_game<G: Image>(seed: u64, plies: usize, every: usize) -> usize {
    let mut rng = seed;
    let mut g = G::start();
    let mut checked = 0;
    for ply in 0..plies {
        if !g.mid_turn() && ply % every == 0 {
            checked += check_symmetries(&g);
        }
        let legal = g.legal_vec();
        if legal.is_empty() {
            break;
        }
        rng = splitmix64(rng);
        g.play(legal[(rng % legal.len() as u64) as usize]);
    }
    checked
}

macro_rules! variant_props {
    ($module:ident, $G:ty, $plies:expr, $every:expr) => {
        mod $module {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(32))]

                #[test]
                fn symmetric_images_map_actions_and_encodings(seed in any::<u64>()) {
                    let checked = check_game::<$G>(seed, $plies, $every);
                    prop_assert!(checked > 0);
                }
            }
        }
    };
}

variant_props!(losers, Losers, 120, 5);
variant_props!(viking, Viking, 120, 5);
variant_props!(hnefatafl, Hnefatafl, 120, 10);
variant_props!(loki, Loki, 100, 10);
variant_props!(shakti, Shakti, 120, 5);
variant_props!(copenhagen, Copenhagen, 120, 10);
