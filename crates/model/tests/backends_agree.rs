//! burn's CPU backends give the same network outputs: flex (the default),
//! the fused inference path on flex weights, and the deprecated ndarray
//! backend (this file needs `--features ndarray`; `.ci/run` runs it).
#![cfg(feature = "ndarray")]

use std::path::Path;

use burn::tensor::Device;
use encoding::Encode;
use model::bundle::load_bundle;
use model::{device_from_name, NetEvaluator};
use rules::{Game, Hnefatafl, Losers, Shakti};

fn outputs<G: Game + Encode>(
    variant: &str,
    device: &str,
    fused: bool,
) -> (Vec<f32>, Vec<[f32; 3]>) {
    let device: Device = device_from_name(device).expect("backend compiled in");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../models")
        .join(variant);
    let (net, _) = load_bundle::<G>(&dir, &device).expect("shipped bundle loads");
    let mut eval = if fused {
        NetEvaluator::<G>::new(net, device)
    } else {
        NetEvaluator::<G>::new_burn(net, device)
    };
    assert_eq!(eval.is_fused(), fused);
    let mut games = vec![G::start()];
    let mut legal = Vec::new();
    for i in 0..15 {
        let mut g = games.last().expect("non-empty").clone();
        g.legal_actions(&mut legal);
        if legal.is_empty() || g.outcome().is_some() {
            break;
        }
        g.play(legal[(i * 7) % legal.len()]);
        games.push(g);
    }
    let refs: Vec<&G> = games.iter().collect();
    eval.forward(&refs)
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn check<G: Game + Encode>(variant: &str) {
    let (flex_p, flex_v) = outputs::<G>(variant, "flex", false);
    let flat = |v: &[[f32; 3]]| v.iter().flatten().copied().collect::<Vec<_>>();
    for (name, (p, v)) in [
        ("ndarray", outputs::<G>(variant, "ndarray", false)),
        ("fused", outputs::<G>(variant, "cpu", true)),
    ] {
        let (dp, dv) = (max_diff(&p, &flex_p), max_diff(&flat(&v), &flat(&flex_v)));
        assert!(
            dp < 1e-3 && dv < 1e-4,
            "{variant}: {name} vs flex: policy {dp}, wdl {dv}"
        );
    }
}

#[test]
fn shakti_backends_agree() {
    check::<Shakti>("shakti");
}

#[test]
fn losers_backends_agree() {
    check::<Losers>("losers");
}

#[test]
fn hnefatafl_backends_agree() {
    check::<Hnefatafl>("hnefatafl");
}
