//! Helpers shared by the network-equivalence tests.
#![allow(dead_code, reason = "each test file uses its own subset")]

use std::path::PathBuf;

use rules::Game;

/// The folder of the shipped bundle of `variant` (`models/<variant>`).
pub fn shipped_bundle(variant: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../models")
        .join(variant)
}

/// Positions along a few pseudo-random games from the start (a fixed
/// linear congruential sequence picks the actions), up to `count` of them.
pub fn positions<G: Game>(count: usize) -> Vec<G> {
    let mut out = Vec::new();
    let mut seed: u64 = 12345;
    let mut legal = Vec::new();
    while out.len() < count {
        let mut g = G::start();
        for _ in 0..40 {
            if g.outcome().is_some() {
                break;
            }
            out.push(g.clone());
            g.legal_actions(&mut legal);
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = (seed >> 33) as usize % legal.len();
            g.play(legal[pick]);
        }
    }
    out.truncate(count);
    out
}

/// Largest absolute difference of two equally long slices.
pub fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// WDL triples as one flat slice.
pub fn flat(wdl: &[[f32; 3]]) -> Vec<f32> {
    wdl.iter().flatten().copied().collect()
}
