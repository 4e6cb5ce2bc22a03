//! Training samples from game records: encoded input, sparse policy target
//! and WDL target; batches with symmetry augmentation.

use encoding::{transform_input, transform_policy_index, Encode};
use rand::Rng;
use selfplay::GameRecord;

/// One training position.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Encoded input `[C*H*W]` (network frame of the side to move).
    pub input: Vec<f32>,
    /// Policy target as (flat policy index, probability) pairs.
    pub policy: Vec<(u32, f32)>,
    /// WDL target from the side to move: the game result (`z` in AlphaZero).
    pub wdl: [f32; 3],
    /// Plies from this position to the end of the record (the moves-left
    /// target; for a ply-capped or resigned game, to where it stopped).
    pub plies_left: u32,
    /// Flat policy indices of the legal actions (for the network's policy
    /// entropy over legal actions).
    pub legal: Vec<u32>,
}

/// Expand records into samples (only plies with a recorded target).
///
/// # Errors
/// A message naming the first record that does not replay under the
/// current rules.
pub fn samples_from_records<G: Encode>(records: &[GameRecord]) -> Result<Vec<Sample>, String> {
    let mut out = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let mut ply = 0u32;
        let length = record.actions.len() as u32;
        record
            .replay::<G>(|game, legal, target| {
                ply += 1;
                let Some(target) = target else { return };
                let mut input = vec![0.0; G::input_len()];
                game.encode(&mut input);
                let policy = legal
                    .iter()
                    .zip(&target.policy)
                    .filter(|(_, &p)| p > 0.0)
                    .map(|(&a, &p)| (game.policy_index(a) as u32, p))
                    .collect();
                let z = record.score_for(game.side_to_move());
                let wdl = if z > 0.0 {
                    [1.0, 0.0, 0.0]
                } else if z < 0.0 {
                    [0.0, 0.0, 1.0]
                } else {
                    [0.0, 1.0, 0.0]
                };
                let legal = legal.iter().map(|&a| game.policy_index(a) as u32).collect();
                out.push(Sample {
                    input,
                    policy,
                    wdl,
                    plies_left: length + 1 - ply,
                    legal,
                });
            })
            .map_err(|e| format!("game {i} of the replay buffer: {e}"))?;
    }
    Ok(out)
}

/// A training batch in flat arrays: inputs `[B*C*H*W]`, dense policy
/// targets `[B*P*H*W]`, WDL targets `[B*3]`, moves-left targets `[B]`.
pub struct Batch {
    /// Batch size `B`.
    pub size: usize,
    /// Inputs, `[B, C, H, W]` row-major.
    pub inputs: Vec<f32>,
    /// Policy targets, `[B, P*H*W]`.
    pub policy: Vec<f32>,
    /// WDL targets, `[B, 3]`.
    pub wdl: Vec<f32>,
    /// Moves-left targets, `[B]`: plies left / `model::MOVES_LEFT_SCALE`.
    pub moves_left: Vec<f32>,
    /// `[B, P*H*W]`: 0 on legal actions, [`ILLEGAL_LOGIT`] elsewhere; added
    /// to the logits for the legal-action policy entropy.
    pub legal_mask: Vec<f32>,
}

/// Mask value of an illegal action: `exp` of it is 0 in `f32` and it stays
/// finite, so `p * ln p` is 0 rather than NaN.
pub const ILLEGAL_LOGIT: f32 = -1.0e4;

/// Draw `size` samples uniformly (with replacement) and apply a random
/// symmetry of the variant to each when `augment` is set.
pub fn sample_batch<G: Encode>(
    samples: &[Sample],
    size: usize,
    augment: bool,
    rng: &mut impl Rng,
) -> Batch {
    let (n_in, n_pol) = (G::input_len(), G::policy_len());
    let mut batch = Batch {
        size,
        inputs: vec![0.0; size * n_in],
        policy: vec![0.0; size * n_pol],
        wdl: Vec::with_capacity(size * 3),
        moves_left: Vec::with_capacity(size),
        legal_mask: vec![ILLEGAL_LOGIT; size * n_pol],
    };
    for b in 0..size {
        let s = &samples[rng.random_range(0..samples.len())];
        let sym = if augment && G::SYMMETRIES > 1 {
            rng.random_range(0..G::SYMMETRIES)
        } else {
            0
        };
        let input = &mut batch.inputs[b * n_in..(b + 1) * n_in];
        if sym == 0 {
            input.copy_from_slice(&s.input);
        } else {
            transform_input::<G>(sym, &s.input, input);
        }
        let map = |idx: u32| {
            if sym == 0 {
                idx as usize
            } else {
                transform_policy_index::<G>(sym, idx as usize)
            }
        };
        let policy = &mut batch.policy[b * n_pol..(b + 1) * n_pol];
        for &(idx, p) in &s.policy {
            if let Some(slot) = policy.get_mut(map(idx)) {
                *slot += p;
            }
        }
        let mask = &mut batch.legal_mask[b * n_pol..(b + 1) * n_pol];
        for &idx in &s.legal {
            if let Some(slot) = mask.get_mut(map(idx)) {
                *slot = 0.0;
            }
        }
        batch.wdl.extend_from_slice(&s.wdl);
        batch
            .moves_left
            .push(s.plies_left as f32 / model::MOVES_LEFT_SCALE);
    }
    batch
}
