//! The fused CPU inference path ([`model::FusedNet`], used by
//! `NetEvaluator::new` on the CPU) gives burn's outputs within float
//! rounding, on every shipped bundle (trained weights: batch-norm statistics
//! far from the identity) and on a fresh net with the moves-left head.

mod common;

use burn::tensor::Device;
use common::{flat, max_diff, positions, shipped_bundle};
use encoding::Encode;
use model::bundle::load_bundle;
use model::{Net, NetEvaluator, NetShape};
use rules::{Game, Hnefatafl, Loki, Losers, Shakti, Viking};
use search::Evaluator;

/// Largest difference between the two paths over a batch of `n` positions:
/// (policy logits, WDL probabilities, plies left).
fn max_difference<G: Game + Encode>(net: &Net, n: usize) -> (f32, f32, f32) {
    let device = Device::flex();
    let mut fused = NetEvaluator::<G>::new(net.clone(), device.clone());
    let mut burn = NetEvaluator::<G>::new_burn(net.clone(), device);
    assert!(fused.is_fused() && !burn.is_fused());
    let games = positions::<G>(n);
    let refs: Vec<&G> = games.iter().collect();
    let (pf, vf) = fused.forward(&refs);
    let pf = pf.to_vec();
    let (pb, vb) = burn.forward(&refs);
    let pb = pb.to_vec();
    assert_eq!((pf.len(), vf.len()), (pb.len(), vb.len()));
    assert_eq!(pf.len(), n * G::policy_len());
    let ml = max_diff(fused.last_moves_left(), burn.last_moves_left());
    (max_diff(&pf, &pb), max_diff(&flat(&vf), &flat(&vb)), ml)
}

/// Largest difference of the search's priors and WDL
/// ([`search::Evaluator::evaluate`]: on the fused path only the legal
/// moves' logits are computed, `FusedNet::forward_legal`) between the two
/// paths over `n` positions.
fn max_evaluate_difference<G: Game + Encode>(net: &Net, n: usize) -> (f32, f32) {
    let device = Device::flex();
    let mut fused = NetEvaluator::<G>::new(net.clone(), device.clone());
    let mut burn = NetEvaluator::<G>::new_burn(net.clone(), device);
    let games = positions::<G>(n);
    let refs: Vec<&G> = games.iter().collect();
    let legal: Vec<Vec<G::Action>> = games
        .iter()
        .map(|g| {
            let mut v = Vec::new();
            g.legal_actions(&mut v);
            v
        })
        .collect();
    let legal: Vec<&[G::Action]> = legal.iter().map(Vec::as_slice).collect();
    let moves: usize = legal.iter().map(|l| l.len()).sum();
    let run = |eval: &mut NetEvaluator<G>| {
        let (mut priors, mut wdl) = (vec![f32::NAN; moves], vec![[f32::NAN; 3]; n]);
        eval.evaluate(&refs, &legal, &mut priors, &mut wdl);
        (priors, flat(&wdl))
    };
    let ((pf, vf), (pb, vb)) = (run(&mut fused), run(&mut burn));
    assert!(
        pf.iter().chain(&vf).all(|x| x.is_finite()),
        "every entry written"
    );
    (max_diff(&pf, &pb), max_diff(&vf, &vb))
}

fn check_bundle<G: Game + Encode>(variant: &str) {
    let (net, _) =
        load_bundle::<G>(&shipped_bundle(variant), &Device::flex()).expect("shipped bundle loads");
    // 37 positions: a short last chunk (chunks of up to TARGET_ROWS / squares).
    for n in [1, 37] {
        let (policy, wdl, _) = max_difference::<G>(&net, n);
        assert!(
            policy < 1e-3 && wdl < 1e-4,
            "{variant} batch {n}: policy {policy}, wdl {wdl}"
        );
        let (priors, wdl) = max_evaluate_difference::<G>(&net, n);
        assert!(
            priors < 1e-4 && wdl < 1e-4,
            "{variant} batch {n}, evaluate: priors {priors}, wdl {wdl}"
        );
    }
}

#[test]
fn shakti_bundle() {
    check_bundle::<Shakti>("shakti");
}

#[test]
fn losers_bundle() {
    check_bundle::<Losers>("losers");
}

#[test]
fn viking_bundle() {
    check_bundle::<Viking>("viking");
}

#[test]
fn hnefatafl_bundle() {
    check_bundle::<Hnefatafl>("hnefatafl");
}

#[test]
fn loki_bundle() {
    check_bundle::<Loki>("loki");
}

#[test]
fn moves_left_head_matches() {
    let shape = NetShape {
        input_planes: Shakti::INPUT_PLANES,
        policy_planes: Shakti::POLICY_PLANES,
        height: Shakti::HEIGHT,
        width: Shakti::WIDTH,
        blocks: 2,
        filters: 16,
        value_hidden: 32,
        moves_left: true,
    };
    let net = Net::new(&shape, &Device::flex());
    let (policy, wdl, plies) = max_difference::<Shakti>(&net, 20);
    assert!(
        policy < 1e-3 && wdl < 1e-4 && plies < 1e-2,
        "{policy} {wdl} {plies}"
    );
}

/// Two boards whose chunks have the same number of rows (6x6 x 9 = 9x9 x 4
/// = 324) run one after the other on the same thread: each must lay out
/// its own zero padding, not reuse the other's padded buffers; then
/// smaller and larger batches of the first board reuse its buffers (a
/// short chunk after a long one, and a buffer that has to grow).
#[test]
fn boards_with_equal_rows_do_not_share_padding() {
    use burn::module::Module;
    use burn::tensor::{Tensor, TensorData};
    use model::FusedNet;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let device = Device::flex();
    for (h, w, batch) in [(6, 6, 9), (9, 9, 4), (6, 6, 3), (6, 6, 9), (6, 6, 12)] {
        let shape = NetShape {
            input_planes: 3,
            policy_planes: 2,
            height: h,
            width: w,
            blocks: 1,
            filters: 8,
            value_hidden: 8,
            moves_left: false,
        };
        let net = Net::new(&shape, &device);
        let fused = FusedNet::from_net(&net, [3, 2, h, w])
            .unwrap()
            .with_target_rows(324);
        let input: Vec<f32> = (0..batch * shape.input_len())
            .map(|i| ((i * 37) % 11) as f32 / 10.0 - 0.5)
            .collect();
        let out = pool.install(|| fused.forward(&input));
        let data = TensorData::new(input, [batch, 3, h, w]);
        let reference = net
            .valid()
            .forward_all(Tensor::<4>::from_data(data, &device));
        let policy = reference.policy.into_data().try_into_vec::<f32>().unwrap();
        let diff = max_diff(&out.policy, &policy);
        assert!(diff < 1e-4, "{h}x{w}: policy differs by {diff}");
    }
}

/// A fork ([`search::Evaluator::fork`], the second evaluator of the
/// two-thread search) evaluates exactly as its original, in int8 too,
/// and the original can still change its precision while the fork holds
/// the shared network: each then runs its own.
#[test]
fn a_fork_evaluates_as_its_original() {
    use model::Precision;
    let (net, _) = load_bundle::<Viking>(&shipped_bundle("viking"), &Device::flex())
        .expect("shipped bundle loads");
    let games = positions::<Viking>(9);
    let refs: Vec<&Viking> = games.iter().collect();
    let legal: Vec<Vec<_>> = games
        .iter()
        .map(|g| {
            let mut v = Vec::new();
            g.legal_actions(&mut v);
            v
        })
        .collect();
    let legal: Vec<&[_]> = legal.iter().map(Vec::as_slice).collect();
    let moves: usize = legal.iter().map(|l| l.len()).sum();
    let run = |eval: &mut NetEvaluator<Viking>| {
        let (mut priors, mut wdl) = (vec![f32::NAN; moves], vec![[f32::NAN; 3]; refs.len()]);
        eval.evaluate(&refs, &legal, &mut priors, &mut wdl);
        (priors, flat(&wdl))
    };
    let mut original =
        NetEvaluator::<Viking>::new(net.clone(), Device::flex()).with_precision(Precision::Int8);
    let mut fork = original.fork().expect("a fused evaluator forks");
    assert_eq!(fork.precision(), original.precision());
    let int8 = run(&mut original);
    assert_eq!(run(&mut fork), int8);
    // The original back to fp32 while the fork lives: the fork stays as
    // it was, the original now matches a fresh fp32 evaluator.
    original.set_precision(Precision::Fp32);
    assert_eq!(original.precision(), Precision::Fp32);
    assert_eq!(run(&mut fork), int8);
    let mut fresh = NetEvaluator::<Viking>::new(net, Device::flex());
    assert_eq!(run(&mut original), run(&mut fresh));
    // Off the fused path there is no fork.
    let (burn_net, _) = load_bundle::<Viking>(&shipped_bundle("viking"), &Device::flex()).unwrap();
    assert!(NetEvaluator::<Viking>::new_burn(burn_net, Device::flex())
        .fork()
        .is_none());
}
