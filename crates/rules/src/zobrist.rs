//! Deterministic Zobrist keys shared by every variant's position hash.

/// SplitMix64 step (Steele, Lea, Flood 2014): a fixed, well-mixed sequence,
/// so keys are identical across runs and machines.
pub const fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Key number `index` of the key family `family` (e.g. one family per
/// variant, index = piece * squares + square).
#[inline]
pub const fn key(family: u64, index: u64) -> u64 {
    splitmix64(family.wrapping_mul(0x1000_0000_01B3) ^ splitmix64(index))
}
