//! Network input planes and the action <-> policy-index map of each variant.
//!
//! The network sees a position as `[C, H, W]` planes (`C` =
//! [`Encode::INPUT_PLANES`]) from the side to move's view, and predicts a
//! policy over `[P, H, W]` per-square action planes (`P` =
//! [`Encode::POLICY_PLANES`], AlphaZero-style): every legal action maps to a
//! distinct flat index `plane * H * W + square`. Illegal logits are masked
//! by the caller. Symmetries are given as maps of squares and planes so the
//! generic helpers here can transform inputs and policy targets.
//!
//! No burn dependency: these maps are tested in seconds.
//!
//! The input planes of a position and the policy index of each legal action:
//! ```
//! use encoding::Encode;
//! use rules::{Game, Losers};
//!
//! let start = Losers::start();
//! let mut planes = vec![0.0; Losers::input_len()]; // [C, H, W], row-major
//! start.encode(&mut planes);
//! let mut seen = std::collections::HashSet::new();
//! for action in start.legal_vec() {
//!     let index = start.policy_index(action); // plane * H * W + square
//!     assert!(index < Losers::policy_len());
//!     assert!(seen.insert(index), "two legal actions share a policy index");
//! }
//! ```

use rules::Variant;

pub mod chess;
pub mod shakti;
pub mod symmetry;
pub use chess::ChessPolicy;
pub mod tafl;
pub use symmetry::{transform_input, transform_policy_index};

/// Network encoding of a variant. Squares are numbered `rank * W + file`
/// in the *network's* frame (the side to move's view, rank 0 at the bottom
/// of that view). Only a variant of the list (`rules::for_each_variant!`)
/// has an encoding, and every one must have: the check below fails to
/// compile for an entry without an `impl Encode`.
pub trait Encode: Variant {
    /// Number of input planes `C`.
    const INPUT_PLANES: usize;
    /// Number of policy planes `P`.
    const POLICY_PLANES: usize;
    /// Board height `H` (ranks).
    const HEIGHT: usize;
    /// Board width `W` (files).
    const WIDTH: usize;
    /// Number of symmetries used for augmentation, identity included (index 0).
    const SYMMETRIES: usize;
    /// Encoding version; bump when planes or the policy map change, so old
    /// bundles are refused instead of silently misread.
    const ENCODING_VERSION: u32;

    /// Write the `[C, H, W]` input planes (row-major, length `C*H*W`) into
    /// `out`. Every element is written (the caller need not zero it).
    fn encode(&self, out: &mut [f32]);

    /// Flat policy index `plane * H * W + square` of a legal action, in
    /// `0..P*H*W`. Distinct legal actions of one position map to distinct
    /// indices.
    fn policy_index(&self, action: Self::Action) -> usize;

    /// Image of square `sq` (network frame) under symmetry `sym`.
    fn map_square(sym: usize, sq: usize) -> usize;

    /// Image of input plane `plane` under symmetry `sym` (a permutation;
    /// identity for most planes).
    fn map_input_plane(_sym: usize, plane: usize) -> usize {
        plane
    }

    /// Image of policy plane `plane` under symmetry `sym` (direction planes
    /// permute under rotations and mirrors).
    fn map_policy_plane(sym: usize, plane: usize) -> usize;

    /// Size of the input, `C*H*W`.
    fn input_len() -> usize {
        Self::INPUT_PLANES * Self::HEIGHT * Self::WIDTH
    }

    /// Size of the policy, `P*H*W`.
    fn policy_len() -> usize {
        Self::POLICY_PLANES * Self::HEIGHT * Self::WIDTH
    }
}

rules::every_variant_implements!(Encode);
