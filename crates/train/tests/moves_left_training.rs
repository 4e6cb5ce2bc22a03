//! The moves-left head learns its target: a few optimiser steps on a fixed
//! batch bring the Huber loss down, while a network without the head
//! reports no moves-left loss.

use burn::tensor::Device;
use encoding::Encode;
use model::{Net, NetShape};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rules::{Game, Shakti};
use train::samples::{sample_batch, Sample};
use train::trainer::{LossWeights, Trainer};

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
            plies_left: 30 - k,
        });
        game.play(legal[0]);
    }
    out
}

fn train(moves_left: bool) -> (f64, f64) {
    let device = Device::flex();
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
    let config = train::config::TrainingConfig::default();
    let mut trainer = Trainer::new(Net::new(&shape, &device), &device, &config);
    let samples = samples();
    let mut rng = SmallRng::seed_from_u64(3);
    let batch = sample_batch::<Shakti>(&samples, 16, false, &mut rng);
    let weights = LossWeights {
        value: 1.0,
        moves_left: 1.0,
    };
    let first = trainer.step::<Shakti>(&batch, 0.01, weights).moves_left;
    let mut last = first;
    for _ in 0..60 {
        last = trainer.step::<Shakti>(&batch, 0.01, weights).moves_left;
    }
    (first, last)
}

#[test]
fn moves_left_loss_falls_with_training() {
    let (first, last) = train(true);
    assert!(first > 0.0 && last.is_finite());
    assert!(last < first / 4.0, "loss {first} -> {last}");
}

#[test]
fn no_head_no_moves_left_loss() {
    assert_eq!(train(false), (0.0, 0.0));
}
