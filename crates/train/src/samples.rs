//! Training samples from game records: encoded input, sparse policy target
//! and WDL target; batches with symmetry augmentation.

use encoding::{transform_input, transform_policy_index, Encode};
use rand::Rng;
use selfplay::{GameRecord, SearchTarget};

use crate::config::{PlyCappedValue, TrainingConfig};
use crate::error::TrainError;

/// One training position.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Encoded input `[C*H*W]` (network frame of the side to move).
    pub input: Vec<f32>,
    /// Policy target as (flat policy index, probability) pairs.
    pub policy: Vec<(u32, f32)>,
    /// WDL target from the side to move: the game result (`z` in
    /// AlphaZero), mixed with the search's root WDL by [`ValueTargets`].
    pub wdl: [f32; 3],
    /// Weight of this sample in the value loss: 1, or 0 when its game was
    /// ply-capped and [`PlyCappedValue::Skip`] leaves its value out.
    pub value_weight: f32,
    /// Plies from this position to the end of the record (the moves-left
    /// target; for a ply-capped or resigned game, to where it stopped).
    pub plies_left: u32,
    /// Flat policy indices of the legal actions (for the network's policy
    /// entropy over legal actions).
    pub legal: Vec<u32>,
}

/// How value targets are made from a record (the `[training]` keys
/// `value_target_search_weight` and `ply_capped_value`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ValueTargets {
    /// Weight `a` of the root WDL: target = `(1 - a) z + a q`.
    pub search_weight: f32,
    /// The target of positions of ply-capped games.
    pub ply_capped: PlyCappedValue,
}

impl ValueTargets {
    /// The value-target settings of a `[training]` table.
    pub fn from_config(t: &TrainingConfig) -> Self {
        ValueTargets {
            search_weight: t.value_target_search_weight,
            ply_capped: t.ply_capped_value,
        }
    }

    /// The WDL target and value-loss weight of one position whose game
    /// result from the side to move is `z` (1, 0, -1).
    fn target(&self, z: f32, capped: bool, search: &SearchTarget) -> ([f32; 3], f32) {
        let result = if z > 0.0 {
            [1.0, 0.0, 0.0]
        } else if z < 0.0 {
            [0.0, 0.0, 1.0]
        } else {
            [0.0, 1.0, 0.0]
        };
        let a = match (capped, self.ply_capped) {
            (true, PlyCappedValue::Skip) => return (result, 0.0),
            (true, PlyCappedValue::Search) => 1.0,
            _ => self.search_weight,
        };
        let q = search.root_wdl;
        let mix = |i: usize| (1.0 - a) * result[i] + a * q[i];
        ([mix(0), mix(1), mix(2)], 1.0)
    }
}

/// Expand records into samples (only plies with a recorded target).
///
/// # Errors
/// [`TrainError::Records`] naming the first record that does not replay
/// under the current rules.
pub fn samples_from_records<G: Encode>(
    records: &[GameRecord],
    values: ValueTargets,
) -> Result<Vec<Sample>, TrainError> {
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
                let (wdl, value_weight) = values.target(z, record.ply_capped, target);
                let legal = legal.iter().map(|&a| game.policy_index(a) as u32).collect();
                out.push(Sample {
                    input,
                    policy,
                    wdl,
                    value_weight,
                    plies_left: length + 1 - ply,
                    legal,
                });
            })
            .map_err(|source| TrainError::Records { game: i, source })?;
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
    /// Value-loss weights, `[B]` ([`Sample::value_weight`]).
    pub value_weight: Vec<f32>,
    /// Moves-left targets, `[B]`: plies left / `model::MOVES_LEFT_SCALE`.
    pub moves_left: Vec<f32>,
    /// `[B, P*H*W]`: 0 on legal actions, [`ILLEGAL_LOGIT`] elsewhere; added
    /// to the logits for the legal-action policy entropy and, with
    /// `policy_over_legal`, for the policy loss.
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
        value_weight: Vec::with_capacity(size),
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
        batch.value_weight.push(s.value_weight);
        batch
            .moves_left
            .push(s.plies_left as f32 / model::MOVES_LEFT_SCALE);
    }
    batch
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(q: [f32; 3]) -> SearchTarget {
        SearchTarget {
            policy: vec![1.0],
            root_wdl: q,
        }
    }

    #[test]
    fn value_targets_mix_result_and_search() {
        let q = search([0.5, 0.3, 0.2]);
        let plain = ValueTargets::default();
        assert_eq!(plain.target(1.0, false, &q), ([1.0, 0.0, 0.0], 1.0));
        assert_eq!(plain.target(0.0, true, &q), ([0.0, 1.0, 0.0], 1.0));
        let half = ValueTargets {
            search_weight: 0.5,
            ply_capped: PlyCappedValue::Result,
        };
        assert_eq!(half.target(-1.0, false, &q), ([0.25, 0.15, 0.6], 1.0));
        let capped_search = ValueTargets {
            search_weight: 0.0,
            ply_capped: PlyCappedValue::Search,
        };
        assert_eq!(capped_search.target(0.0, true, &q), ([0.5, 0.3, 0.2], 1.0));
        assert_eq!(capped_search.target(1.0, false, &q), ([1.0, 0.0, 0.0], 1.0));
        let skip = ValueTargets {
            search_weight: 0.5,
            ply_capped: PlyCappedValue::Skip,
        };
        assert_eq!(skip.target(0.0, true, &q).1, 0.0);
        assert_eq!(skip.target(0.0, false, &q), ([0.25, 0.65, 0.1], 1.0));
    }
}
