//! Growing a trained network into a deeper and wider one that computes the
//! same function, so a run can carry on with more capacity from where a
//! small network saturated instead of starting again from scratch
//! (Net2Net: Chen, Goodfellow, Shlens 2016, "Net2Net: Accelerating
//! Learning via Knowledge Transfer"; here with zero-initialised outgoing
//! weights rather than Net2WiderNet's replicated units).
//!
//! - **Wider** (`F` to `F'` filters): every trunk convolution keeps its old
//!   weights; the `F' - F` new output channels get random weights (He
//!   uniform) and a standard batch norm (scale 1, shift 0), and every
//!   weight from a new channel into an old one is zero. The old channels
//!   therefore see exactly what they saw before, the new ones carry values
//!   that nothing reads yet, and the gradients of the zero weights (new
//!   activation times old upstream gradient) are not zero, so they learn.
//!   The heads read only the old channels at first for the same reason.
//! - **Deeper** (`blocks` to `blocks'`): new residual blocks go after the
//!   old ones, with random convolutions and the second batch norm's scale
//!   and shift zero, so the block computes `relu(x + 0) = x` (its input is
//!   already a ReLU output) and its scale gets a gradient from the start.
//!
//! - **A moves-left head** ([`add_moves_left_head`]; Lc0's, `crate::net`):
//!   zero weights and a bias that predicts the same number of plies for
//!   every position, so policy and value are unchanged and the evaluator's
//!   discount of decisive values (`crate::evaluator::discount_wdl`) starts
//!   out the same everywhere; the zero weights get gradients from the value
//!   head's hidden layer, so the head learns from the first step.
//!
//! Scales of zero everywhere would not do: the ReLU after such a layer sees
//! exactly 0, where its gradient is 0, and the new channels would stay dead.

use burn::nn::LinearConfig;
use rand::{Rng, SeedableRng};

use crate::net::{Net, NetShape, MAX_BLOCKS, MAX_FILTERS, MOVES_LEFT_SCALE};
use crate::weights::{write_dense, ConvBnWeights, DenseWeights, NetWeights};

/// Why a network cannot grow to the asked shape.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum GrowError {
    /// The target is smaller than the network in blocks or filters.
    #[error("cannot grow to fewer {what} ({want}) than the network has ({have})")]
    Shrink {
        /// `"blocks"` or `"filters"`.
        what: &'static str,
        /// The network's count.
        have: usize,
        /// The asked count.
        want: usize,
    },
    /// The target is larger than any network may be.
    #[error("cannot grow to more than {limit} {what} (asked for {want})")]
    TooLarge {
        /// `"blocks"` or `"filters"`.
        what: &'static str,
        /// [`MAX_BLOCKS`] or [`MAX_FILTERS`].
        limit: usize,
        /// The asked count.
        want: usize,
    },
    /// The network already has a moves-left head.
    #[error("the network already has a moves-left head")]
    HasMovesLeft,
    /// The plies a new moves-left head should predict are not a positive
    /// number.
    #[error("a moves-left head must start predicting a positive number of plies (got {0})")]
    BadPlies(f32),
}

/// The grown copy of `w` with `blocks` residual blocks of `filters`
/// channels (module docs: the function computed is unchanged, up to float
/// rounding). New weights are drawn from a generator seeded with `seed`.
///
/// # Errors
/// [`GrowError::Shrink`] if `blocks` or `filters` is below the network's;
/// [`GrowError::TooLarge`] above [`MAX_BLOCKS`] or [`MAX_FILTERS`].
///
/// # Example
/// ```
/// use model::grow::grow;
/// use model::{Net, NetShape};
/// let shape = NetShape { input_planes: 2, policy_planes: 3, height: 4, width: 4,
///     blocks: 1, filters: 4, value_hidden: 8, moves_left: false };
/// let device = model::device_from_name("cpu").unwrap();
/// let small = Net::new(&shape, &device).read_weights([2, 3, 4, 4], &mut model::weights::Values).unwrap();
/// let big = grow(&small, 2, 8, 1).unwrap();
/// assert_eq!((big.shape.blocks, big.shape.filters), (2, 8));
/// assert!(grow(&big, 1, 8, 1).is_err());
/// ```
pub fn grow(
    w: &NetWeights,
    blocks: usize,
    filters: usize,
    seed: u64,
) -> Result<NetWeights, GrowError> {
    let old = &w.shape;
    for (what, have, want, limit) in [
        ("blocks", old.blocks, blocks, MAX_BLOCKS),
        ("filters", old.filters, filters, MAX_FILTERS),
    ] {
        if want < have {
            return Err(GrowError::Shrink { what, have, want });
        }
        if want > limit {
            return Err(GrowError::TooLarge { what, limit, want });
        }
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let (f, g) = (old.filters, filters);
    let trunk = |c: &ConvBnWeights, in_old, in_new, rng: &mut _| {
        widen_conv_bn(c, [f, in_old], [g, in_new], 3, rng)
    };
    let mut grown_blocks: Vec<_> = w
        .blocks
        .iter()
        .map(|(a, b)| (trunk(a, f, g, &mut rng), trunk(b, f, g, &mut rng)))
        .collect();
    while grown_blocks.len() < blocks {
        grown_blocks.push(identity_block(g, &mut rng));
    }
    let mut policy_out = w.policy_out.clone();
    policy_out.weight = widen_weight(
        &w.policy_out.weight,
        [old.policy_planes, f],
        [old.policy_planes, g],
        1,
        &mut rng,
    );
    Ok(NetWeights {
        shape: NetShape {
            blocks,
            filters,
            ..old.clone()
        },
        stem: trunk(&w.stem, old.input_planes, old.input_planes, &mut rng),
        blocks: grown_blocks,
        policy_hidden: trunk(&w.policy_hidden, f, g, &mut rng),
        policy_out,
        value_conv: widen_conv_bn(&w.value_conv, [2, f], [2, g], 1, &mut rng),
        value_fc: w.value_fc.clone(),
        value_out: w.value_out.clone(),
    })
}

/// A convolution `[out, in, k, k]` grown to `[out', in', k, k]`: old
/// weights kept, new inputs of old outputs zero, new outputs random.
fn widen_weight(
    old: &[f32],
    [out_old, in_old]: [usize; 2],
    [out_new, in_new]: [usize; 2],
    k: usize,
    rng: &mut impl Rng,
) -> Vec<f32> {
    let kk = k * k;
    let bound = he_uniform_bound(in_new * kk);
    let mut grown = Vec::with_capacity(out_new * in_new * kk);
    for o in 0..out_new {
        for i in 0..in_new {
            for t in 0..kk {
                grown.push(if o >= out_old {
                    rng.random_range(-bound..bound)
                } else if i < in_old {
                    old[(o * in_old + i) * kk + t]
                } else {
                    0.0
                });
            }
        }
    }
    grown
}

/// He et al. 2015's uniform bound `sqrt(6 / fan_in)` (variance `2 / fan_in`).
fn he_uniform_bound(fan_in: usize) -> f32 {
    (6.0 / fan_in as f32).sqrt()
}

/// Conv + batch norm grown as [`widen_weight`]; new channels get a
/// standard batch norm (scale 1, shift 0, running mean 0, variance 1).
fn widen_conv_bn(
    c: &ConvBnWeights,
    old: [usize; 2],
    new: [usize; 2],
    k: usize,
    rng: &mut impl Rng,
) -> ConvBnWeights {
    let extend = |v: &[f32], fill: f32| {
        let mut v = v.to_vec();
        v.resize(new[0], fill);
        v
    };
    ConvBnWeights {
        weight: widen_weight(&c.weight, old, new, k, rng),
        gamma: extend(&c.gamma, 1.0),
        beta: extend(&c.beta, 0.0),
        running_mean: extend(&c.running_mean, 0.0),
        running_var: extend(&c.running_var, 1.0),
    }
}

/// A residual block of `f` channels that passes its (non-negative) input
/// through unchanged: random convolutions, the second batch norm's scale
/// and shift zero.
fn identity_block(f: usize, rng: &mut impl Rng) -> (ConvBnWeights, ConvBnWeights) {
    let empty = ConvBnWeights::default();
    let first = widen_conv_bn(&empty, [0, 0], [f, f], 3, rng);
    let mut second = widen_conv_bn(&empty, [0, 0], [f, f], 3, rng);
    second.gamma.fill(0.0);
    (first, second)
}

/// `net` with a moves-left head added (module docs) that predicts `plies`
/// plies left for every position until it is trained: weight `[H, 1]`
/// zero, bias `softplus^-1(plies / MOVES_LEFT_SCALE)`. Policy logits and
/// WDL are those of `net`.
///
/// # Errors
/// [`GrowError::HasMovesLeft`] if `net` has the head already;
/// [`GrowError::BadPlies`] if `plies` is not finite and positive.
///
/// # Example
/// ```
/// use model::grow::add_moves_left_head;
/// use model::{Net, NetShape};
/// let shape = NetShape { input_planes: 2, policy_planes: 3, height: 4, width: 4,
///     blocks: 1, filters: 4, value_hidden: 8, moves_left: false };
/// let device = model::device_from_name("cpu").unwrap();
/// let net = add_moves_left_head(&Net::new(&shape, &device), 50.0).unwrap();
/// assert!(net.has_moves_left());
/// assert!(add_moves_left_head(&net, 50.0).is_err());
/// ```
pub fn add_moves_left_head(net: &Net, plies: f32) -> Result<Net, GrowError> {
    if net.has_moves_left() {
        return Err(GrowError::HasMovesLeft);
    }
    if !(plies.is_finite() && plies > 0.0) {
        return Err(GrowError::BadPlies(plies));
    }
    let hidden = net.value_out.weight.val().dims()[0];
    let device = net.value_out.weight.val().device();
    let mut head = LinearConfig::new(hidden, 1).init(&device);
    // softplus(b) = y  <=>  b = ln(e^y - 1).
    let bias = (plies / MOVES_LEFT_SCALE).exp_m1().ln();
    let zero_head = DenseWeights {
        weight: vec![0.0; hidden],
        bias: vec![bias],
    };
    write_dense(&mut head, &zero_head);
    let mut grown = net.clone();
    grown.moves_left_out = Some(head);
    Ok(grown)
}
