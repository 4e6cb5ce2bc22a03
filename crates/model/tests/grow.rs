//! A grown network ([`model::grow::grow`]) computes what the network it
//! was grown from computes: the shipped losers bundle (trained weights,
//! batch-norm statistics far from the identity) grown to 5 blocks x 48
//! filters gives the same policy logits and WDL on the CPU inference path
//! the bots use, and through burn's own forward pass. A moves-left head
//! added to it ([`model::grow::add_moves_left_head`]) leaves policy and
//! WDL as they were and predicts the asked plies everywhere, also after a
//! round trip through a saved bundle.

mod common;

use burn::tensor::Device;
use common::{flat, max_diff, positions, shipped_bundle};
use encoding::Encode;
use model::bundle::{load_bundle, save_bundle};
use model::grow::{add_moves_left_head, grow, GrowError};
use model::weights::Values;
use model::{Net, NetEvaluator};
use rules::{Game, Losers};

/// An evaluator of `net` on the fused CPU path or through burn.
fn evaluator<G: Encode>(net: &Net, fused: bool) -> NetEvaluator<G> {
    if fused {
        NetEvaluator::new(net.clone(), Device::flex())
    } else {
        NetEvaluator::new_burn(net.clone(), Device::flex())
    }
}

/// (policy logits, WDL) of `net` on `positions`, fused or through burn.
fn outputs<G: Game + Encode>(net: &Net, games: &[G], fused: bool) -> (Vec<f32>, Vec<f32>) {
    let mut eval = evaluator::<G>(net, fused);
    let refs: Vec<&G> = games.iter().collect();
    let (policy, wdl) = eval.forward(&refs);
    (policy.to_vec(), flat(&wdl))
}

fn board<G: Encode>() -> [usize; 4] {
    [G::INPUT_PLANES, G::POLICY_PLANES, G::HEIGHT, G::WIDTH]
}

#[test]
fn grown_losers_bundle_computes_the_same_function() {
    let device = Device::flex();
    let (small, _) = load_bundle::<Losers>(&shipped_bundle("losers"), &device).unwrap();
    let weights = small.read_weights(board::<Losers>(), &mut Values).unwrap();
    let grown = grow(&weights, weights.shape.blocks + 2, 48, 7).unwrap();
    assert_eq!((grown.shape.blocks, grown.shape.filters), (5, 48));
    let big = Net::new(&grown.shape, &device).with_weights(&grown);
    let games = positions::<Losers>(24);
    for fused in [true, false] {
        let (p0, v0) = outputs(&small, &games, fused);
        let (p1, v1) = outputs(&big, &games, fused);
        let (dp, dv) = (max_diff(&p0, &p1), max_diff(&v0, &v1));
        assert!(
            dp < 1e-3 && dv < 1e-4,
            "fused {fused}: policy {dp}, wdl {dv}"
        );
    }
    // The new weights are really there (random, not all zero), so the
    // grown network has capacity to learn with.
    let new_block = &grown.blocks[4].0.weight;
    assert!(new_block.iter().filter(|w| **w != 0.0).count() > new_block.len() / 2);
}

#[test]
fn growing_keeps_old_weights_and_refuses_to_shrink() {
    let device = Device::flex();
    let (small, _) = load_bundle::<Losers>(&shipped_bundle("losers"), &device).unwrap();
    let w = small.read_weights(board::<Losers>(), &mut Values).unwrap();
    let same = grow(&w, w.shape.blocks, w.shape.filters, 1).unwrap();
    assert_eq!(same, w, "growing to the same shape changes nothing");
    let err = grow(&w, w.shape.blocks - 1, 64, 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot grow to fewer blocks (2) than the network has (3)"
    );
    let err = grow(&w, 6, 16, 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot grow to fewer filters (16) than the network has (32)"
    );
}

#[test]
fn a_new_moves_left_head_changes_nothing_and_predicts_the_same_plies() {
    let device = Device::flex();
    let (small, mut meta) = load_bundle::<Losers>(&shipped_bundle("losers"), &device).unwrap();
    let with_head = add_moves_left_head(&small, 50.0).unwrap();
    meta.shape.moves_left = true;
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("ml");
    save_bundle(&saved, &with_head, &meta).unwrap();
    let (loaded, _) = load_bundle::<Losers>(&saved, &device).unwrap();
    assert!(loaded.has_moves_left());
    let games = positions::<Losers>(16);
    let refs: Vec<&Losers> = games.iter().collect();
    for fused in [true, false] {
        let (p0, v0) = outputs(&small, &games, fused);
        let (p1, v1) = outputs(&loaded, &games, fused);
        let (dp, dv) = (max_diff(&p0, &p1), max_diff(&v0, &v1));
        assert!(
            dp < 1e-5 && dv < 1e-6,
            "fused {fused}: policy {dp}, wdl {dv}"
        );
        let mut eval = evaluator::<Losers>(&loaded, fused);
        eval.forward(&refs);
        let plies = eval.last_moves_left();
        assert_eq!(plies.len(), games.len());
        assert!(
            plies.iter().all(|p| (p - 50.0).abs() < 1e-3),
            "fused {fused}: {plies:?}"
        );
    }
    assert_eq!(
        add_moves_left_head(&loaded, 50.0).unwrap_err(),
        GrowError::HasMovesLeft
    );
    assert_eq!(
        add_moves_left_head(&small, 0.0).unwrap_err().to_string(),
        "a moves-left head must start predicting a positive number of plies (got 0)"
    );
}
