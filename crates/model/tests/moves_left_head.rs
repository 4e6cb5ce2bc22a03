//! The optional moves-left head: saved and loaded with its weights, absent
//! from older bundles, and its output fed to the evaluator's discount.

use burn::tensor::{Device, Tensor, TensorData};
use encoding::Encode;
use model::bundle::{load_bundle, meta_for, save_bundle, META_FILE};
use model::{Net, NetEvaluator, NetShape};
use rules::{Game, Shakti};
use search::Evaluator;

fn shape(moves_left: bool) -> NetShape {
    NetShape {
        input_planes: Shakti::INPUT_PLANES,
        policy_planes: Shakti::POLICY_PLANES,
        height: Shakti::HEIGHT,
        width: Shakti::WIDTH,
        blocks: 1,
        filters: 4,
        value_hidden: 8,
        moves_left,
    }
}

fn start_input(device: &Device) -> Tensor<4> {
    let mut input = vec![0.0; Shakti::input_len()];
    Shakti::start().encode(&mut input);
    let dims = [1, Shakti::INPUT_PLANES, Shakti::HEIGHT, Shakti::WIDTH];
    Tensor::<4>::from_data(TensorData::new(input, dims), device)
}

#[test]
fn head_round_trips_through_a_bundle() {
    let device = Device::flex();
    let tmp = tempfile::tempdir().unwrap();
    let s = shape(true);
    let net = Net::new(&s, &device);
    assert!(net.has_moves_left());
    save_bundle(tmp.path(), &net, &meta_for::<Shakti>(&s, 1, &[])).unwrap();
    let meta_text = std::fs::read_to_string(tmp.path().join(META_FILE)).unwrap();
    assert!(meta_text.contains("\"moves_left\": true"), "{meta_text}");
    let (loaded, meta) = load_bundle::<Shakti>(tmp.path(), &device).unwrap();
    assert!(meta.shape.moves_left && loaded.has_moves_left());
    let before = net.forward_all(start_input(&device)).moves_left.unwrap();
    let after = loaded.forward_all(start_input(&device)).moves_left.unwrap();
    assert_eq!(after.dims(), [1, 1]);
    let (a, b) = (
        before.into_data().try_into_vec::<f32>().unwrap()[0],
        after.into_data().try_into_vec::<f32>().unwrap()[0],
    );
    assert_eq!(a, b, "the head's weights are saved and loaded");
    assert!(a >= 0.0, "softplus output is non-negative");
}

#[test]
fn bundles_without_the_field_have_no_head() {
    let device = Device::flex();
    let tmp = tempfile::tempdir().unwrap();
    let s = shape(false);
    save_bundle(
        tmp.path(),
        &Net::new(&s, &device),
        &meta_for::<Shakti>(&s, 1, &[]),
    )
    .unwrap();
    // Written without the key, as bundles from before the head existed.
    let meta_text = std::fs::read_to_string(tmp.path().join(META_FILE)).unwrap();
    assert!(!meta_text.contains("moves_left"), "{meta_text}");
    let (net, meta) = load_bundle::<Shakti>(tmp.path(), &device).unwrap();
    assert!(!meta.shape.moves_left && !net.has_moves_left());
    assert!(net.forward_all(start_input(&device)).moves_left.is_none());
}

#[test]
fn evaluator_discounts_by_the_predicted_plies() {
    let device = Device::flex();
    let net = Net::new(&shape(true), &device);
    let start = Shakti::start();
    let legal = start.legal_vec();
    let run = |gamma: f32| {
        let mut eval = NetEvaluator::<Shakti>::new(net.clone(), device.clone())
            .with_moves_left_discount(gamma);
        let mut priors = vec![0.0; legal.len()];
        let mut wdl = [search::DRAW_WDL];
        eval.evaluate(&[&start], &[&legal], &mut priors, &mut wdl);
        (wdl[0], eval.last_moves_left().to_vec())
    };
    let (plain, plies) = run(1.0);
    let (discounted, _) = run(0.9);
    assert_eq!(plies.len(), 1);
    let expected = model::evaluator::discount_wdl(plain, plies[0], 0.9);
    for k in 0..3 {
        assert!(
            (discounted[k] - expected[k]).abs() < 1e-5,
            "{discounted:?} vs {expected:?}"
        );
    }
}
