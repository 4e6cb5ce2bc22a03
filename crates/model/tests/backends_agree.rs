//! burn's CPU backends give the same network outputs: flex (the default),
//! the fused inference path on flex weights, and the deprecated ndarray
//! backend. Needs `--features ndarray`, which rebuilds burn (23 CPU-minutes
//! here), so `.ci/run` does not run it:
//! `cargo test --release -p model --features ndarray --test backends_agree`.
#![cfg(feature = "ndarray")]

mod common;

use burn::tensor::Device;
use common::{flat, max_diff, positions, shipped_bundle};
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
    let (net, _) =
        load_bundle::<G>(&shipped_bundle(variant), &device).expect("shipped bundle loads");
    let mut eval = if fused {
        NetEvaluator::<G>::new(net, device)
    } else {
        NetEvaluator::<G>::new_burn(net, device)
    };
    assert_eq!(eval.is_fused(), fused);
    let games = positions::<G>(16);
    let refs: Vec<&G> = games.iter().collect();
    let (policy, wdl) = eval.forward(&refs);
    (policy.to_vec(), wdl)
}

fn check<G: Game + Encode>(variant: &str) {
    let (flex_p, flex_v) = outputs::<G>(variant, "flex", false);
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
