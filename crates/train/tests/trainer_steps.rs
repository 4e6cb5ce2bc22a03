//! Optimiser steps: the moves-left head learns its target (a few steps on
//! a fixed batch bring the Huber loss down; a network without the head
//! reports none), and the policy entropy is over the legal actions.

use burn::tensor::Device;
use encoding::Encode;
use model::{Net, NetShape};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rules::{Game, Shakti};
use train::losses::LossWeights;
use train::samples::{sample_batch, Sample};
use train::trainer::Trainer;

fn samples() -> Vec<Sample> {
    // Positions along one line of play; plies left 30 down to 23.
    let mut game = Shakti::start();
    let mut out = Vec::new();
    for k in 0..8 {
        let legal = game.legal_vec();
        let mut input = vec![0.0; Shakti::input_len()];
        game.encode(&mut input);
        out.push(Sample {
            input,
            policy: vec![(game.policy_index(legal[0]) as u32, 1.0)],
            wdl: [0.0, 1.0, 0.0],
            value_weight: 1.0,
            plies_left: 30 - k,
            legal: legal.iter().map(|&a| game.policy_index(a) as u32).collect(),
        });
        game.play(legal[0]);
    }
    out
}

fn train(moves_left: bool) -> (f64, f64, f64) {
    let device = Device::flex();
    let config = train::config::TrainingConfig::default();
    let mut trainer = Trainer::new::<Shakti>(tiny_net(moves_left), &device, &config);
    let samples = samples();
    let mut rng = SmallRng::seed_from_u64(3);
    let batch = sample_batch::<Shakti>(&samples, 16, false, &mut rng);
    let weights = LossWeights {
        value: 1.0,
        moves_left: 1.0,
    };
    let step = trainer.step::<Shakti>(&batch, 0.01, weights);
    let (first, entropy) = (step.moves_left, step.policy_entropy);
    let mut last = first;
    for _ in 0..60 {
        last = trainer.step::<Shakti>(&batch, 0.01, weights).moves_left;
    }
    (first, last, entropy)
}

#[test]
fn moves_left_loss_falls_with_training() {
    let (first, last, _) = train(true);
    assert!(first > 0.0 && last.is_finite());
    assert!(last < first / 4.0, "loss {first} -> {last}");
}

#[test]
fn no_head_no_moves_left_loss() {
    let (first, last, _) = train(false);
    assert_eq!((first, last), (0.0, 0.0));
}

#[test]
fn policy_entropy_is_over_the_legal_actions() {
    // An untrained network is close to uniform: its entropy over the legal
    // actions is near, and never above, ln(most legal actions in the batch);
    // over all 2401 outputs it would be near ln 2401 = 7.8.
    let most = samples().iter().map(|s| s.legal.len()).max().unwrap();
    let (_, _, entropy) = train(false);
    assert!(
        entropy > 0.0 && entropy <= (most as f64).ln() + 1e-4,
        "{entropy} vs ln {most}"
    );
    assert!(entropy > 0.5 * (most as f64).ln(), "{entropy}");
}

/// A 1 x 8 Shakti network, with the moves-left head when asked.
fn tiny_net(moves_left: bool) -> Net {
    let shape = NetShape {
        input_planes: Shakti::INPUT_PLANES,
        policy_planes: Shakti::POLICY_PLANES,
        height: Shakti::HEIGHT,
        width: Shakti::WIDTH,
        blocks: 1,
        filters: 8,
        value_hidden: 16,
        moves_left,
    };
    Net::new(&shape, &Device::flex())
}

/// The first step's policy loss of `net` with a config's
/// `policy_over_legal`, and its value loss with every value weight set to
/// `value_weight`.
fn first_losses(net: &Net, policy_over_legal: bool, value_weight: f32) -> (f64, f64) {
    let device = Device::flex();
    let config = train::config::TrainingConfig {
        policy_over_legal,
        ..Default::default()
    };
    let mut trainer = Trainer::new::<Shakti>(net.clone(), &device, &config);
    let mut samples = samples();
    for s in &mut samples {
        s.value_weight = value_weight;
    }
    let batch = sample_batch::<Shakti>(&samples, 16, false, &mut SmallRng::seed_from_u64(3));
    let weights = LossWeights {
        value: 1.0,
        moves_left: 0.0,
    };
    let step = trainer.step::<Shakti>(&batch, 0.01, weights);
    (step.policy, step.value)
}

#[test]
fn policy_loss_spans_the_legal_actions_when_asked() {
    // The same logits: masking the illegal actions raises every legal
    // action's probability, so the cross-entropy falls, by about
    // ln(2401 / legal actions) for a near-uniform untrained network.
    let net = tiny_net(false);
    let most = samples().iter().map(|s| s.legal.len()).max().unwrap() as f64;
    let (legal, value) = first_losses(&net, true, 1.0);
    let (all, _) = first_losses(&net, false, 1.0);
    assert!(legal > 0.0 && legal < all - 1.0, "{legal} vs {all}");
    assert!(legal < most.ln() + 2.0, "{legal} vs ln {most}");
    assert!(value > 0.5, "the draw target's cross-entropy {value}");
}

#[test]
fn zero_value_weights_leave_the_value_out() {
    let (_, value) = first_losses(&tiny_net(false), true, 0.0);
    assert_eq!(value, 0.0);
}
