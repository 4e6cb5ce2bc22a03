//! The hand-written training step (`train::fast`) against burn's autodiff
//! (`train::trainer::BurnTrainer`): from the same network and batch, one
//! step gives the same losses, gradients and updated weights (running
//! batch-norm statistics included), for every variant's input planes,
//! policy planes and board, with AdamW and with SGD.
//!
//! Tolerances (f32 sums in a different order on each side): losses within
//! 1e-5 relative; each gradient tensor within 1e-4 of burn's in relative
//! L2 norm (`|fast - burn| <= 1e-4 |burn| + 1e-7`); updated weights and
//! statistics within 1e-5 absolute.

use burn::tensor::Device;
use encoding::Encode;
use model::weights::{NetWeights, Values};
use model::{Net, NetShape};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules::VariantId;
use train::config::{Optimizer, TrainingConfig};
use train::fast::FastTrainer;
use train::losses::LossWeights;
use train::samples::{sample_batch, Sample};
use train::trainer::BurnTrainer;

/// Positions from short random games, with random policy targets over
/// their legal actions, mixed WDL targets and some zero value weights.
fn samples<G: Encode>(n: usize, rng: &mut SmallRng) -> Vec<Sample> {
    let mut out = Vec::new();
    while out.len() < n {
        let mut g = G::start();
        for _ in 0..rng.random_range(0..12) {
            let legal = g.legal_vec();
            if legal.is_empty() || g.outcome().is_some() {
                break;
            }
            g.play(legal[rng.random_range(0..legal.len())]);
        }
        let legal = g.legal_vec();
        if legal.is_empty() || g.outcome().is_some() {
            continue;
        }
        let mut input = vec![0.0; G::input_len()];
        g.encode(&mut input);
        let picked: Vec<_> = legal.iter().filter(|_| rng.random_bool(0.5)).collect();
        let p = 1.0 / picked.len().max(1) as f32;
        let w: f32 = rng.random();
        out.push(Sample {
            input,
            policy: picked
                .iter()
                .map(|&&a| (g.policy_index(a) as u32, p))
                .collect(),
            wdl: [w, 1.0 - w, 0.0],
            value_weight: if out.len() % 5 == 4 { 0.0 } else { 1.0 },
            plies_left: 10,
            legal: legal.iter().map(|&a| g.policy_index(a) as u32).collect(),
        });
    }
    out
}

/// `(name, fast, burn)` for every tensor of two weight sets.
fn pairs<'a>(a: &'a NetWeights, b: &'a NetWeights) -> Vec<(String, &'a [f32], &'a [f32])> {
    let mut out = Vec::new();
    let mut convs = vec![("stem".to_string(), &a.stem, &b.stem)];
    for (i, ((a1, a2), (b1, b2))) in a.blocks.iter().zip(&b.blocks).enumerate() {
        convs.push((format!("block {i} first"), a1, b1));
        convs.push((format!("block {i} second"), a2, b2));
    }
    convs.push(("policy hidden".into(), &a.policy_hidden, &b.policy_hidden));
    convs.push(("value conv".into(), &a.value_conv, &b.value_conv));
    for (name, x, y) in convs {
        out.push((format!("{name} weight"), &x.weight[..], &y.weight[..]));
        out.push((format!("{name} gamma"), &x.gamma[..], &y.gamma[..]));
        out.push((format!("{name} beta"), &x.beta[..], &y.beta[..]));
        out.push((
            format!("{name} running mean"),
            &x.running_mean[..],
            &y.running_mean[..],
        ));
        out.push((
            format!("{name} running var"),
            &x.running_var[..],
            &y.running_var[..],
        ));
    }
    for (name, x, y) in [
        ("policy out", &a.policy_out, &b.policy_out),
        ("value fc", &a.value_fc, &b.value_fc),
        ("value out", &a.value_out, &b.value_out),
    ] {
        out.push((format!("{name} weight"), &x.weight[..], &y.weight[..]));
        out.push((format!("{name} bias"), &x.bias[..], &y.bias[..]));
    }
    out
}

fn norm(v: impl Iterator<Item = f32>) -> f64 {
    v.map(|x| (x as f64) * (x as f64)).sum::<f64>().sqrt()
}

fn check<G: Encode>(optimizer: Optimizer, policy_over_legal: bool) {
    let shape = NetShape {
        input_planes: G::INPUT_PLANES,
        policy_planes: G::POLICY_PLANES,
        height: G::HEIGHT,
        width: G::WIDTH,
        blocks: 2,
        filters: 8,
        value_hidden: 16,
        moves_left: false,
    };
    let device = Device::flex();
    // Seeded, so a failure reproduces (the two tests share the device's
    // generator, so which draws each gets may still vary between runs).
    device.seed(11);
    let net = Net::new(&shape, &device);
    let config = TrainingConfig {
        optimizer,
        policy_over_legal,
        ..Default::default()
    };
    let mut rng = SmallRng::seed_from_u64(7);
    let samples = samples::<G>(12, &mut rng);
    let batch = sample_batch::<G>(&samples, 12, true, &mut rng);
    let weights = LossWeights {
        value: 0.7,
        moves_left: 0.0,
    };
    let (lr, board) = (
        1e-2,
        [G::INPUT_PLANES, G::POLICY_PLANES, G::HEIGHT, G::WIDTH],
    );
    let mut burn = BurnTrainer::new(net.clone(), &device, &config);
    let (burn_loss, burn_grads) = burn.step_traced::<G>(&batch, lr, weights, true);
    let burn_grads = burn_grads.expect("gradients of a network without the moves-left head");
    let mut fast =
        FastTrainer::new(net, board, &config).expect("the fast path covers this network");
    let fast_loss = fast.step(&batch, lr, weights);
    let variant = G::VARIANT;
    for (name, f, b) in [
        ("policy", fast_loss.policy, burn_loss.policy),
        ("value", fast_loss.value, burn_loss.value),
        (
            "entropy",
            fast_loss.policy_entropy,
            burn_loss.policy_entropy,
        ),
    ] {
        assert!(
            (f - b).abs() <= 1e-5 * b.abs().max(1e-3),
            "{variant}: {name} loss {f} vs burn {b}"
        );
    }
    let fast_grads = fast.gradients();
    for (name, f, b) in pairs(&fast_grads, &burn_grads) {
        assert_eq!(f.len(), b.len(), "{variant}: gradient of {name}");
        let diff = norm(f.iter().zip(b).map(|(x, y)| x - y));
        assert!(
            diff <= 1e-4 * norm(b.iter().copied()) + 1e-7,
            "{variant}: gradient of {name} off by {diff:e}"
        );
    }
    let burn_net = burn.into_net().expect("burn's network");
    let burn_after = burn_net.read_weights(board, &mut Values).expect("weights");
    let fast_after = fast
        .into_net()
        .read_weights(board, &mut Values)
        .expect("weights");
    // A first AdamW step moves a weight by `lr * g / (|g| + eps)`, which
    // changes by up to `lr * |dg| / eps` when the gradient changes by `dg`:
    // where the true gradient is about 0 (a constant input plane under
    // batch norm) both sides' gradients are f32 rounding noise of ~1e-7,
    // which moves the weight by ~1e-4 at this learning rate. So the updated
    // weights are held to 1e-5 plus that bound (SGD: `lr * |dg|`).
    let gain = match optimizer {
        Optimizer::Adamw => 2.0 * lr / 1e-5,
        Optimizer::Sgd => 2.0 * lr,
    };
    let grads = pairs(&fast_grads, &burn_grads);
    for (name, f, b) in pairs(&fast_after, &burn_after) {
        assert_eq!(f.len(), b.len(), "{variant}: {name}");
        // Running statistics have no gradient (empty vectors).
        let dg: Vec<f64> = match grads.iter().find(|g| g.0 == name) {
            Some((_, gf, gb)) if !gb.is_empty() => gf
                .iter()
                .zip(gb.iter())
                .map(|(x, y)| (x - y).abs() as f64)
                .collect(),
            _ => vec![0.0; f.len()],
        };
        for (i, ((x, y), dg)) in f.iter().zip(b).zip(&dg).enumerate() {
            let bound = 1e-5 + gain * dg;
            let diff = (x - y).abs() as f64;
            assert!(
                diff <= bound,
                "{variant}: updated {name}[{i}] {x} vs burn {y} (bound {bound:e})"
            );
        }
    }
}

#[test]
fn one_adamw_step_matches_burn_on_every_variant() {
    for variant in VariantId::ALL {
        rules::with_variant!(variant, G => check::<G>(Optimizer::Adamw, true));
    }
}

#[test]
fn one_sgd_step_over_all_logits_matches_burn() {
    check::<rules::Losers>(Optimizer::Sgd, false);
}
