//! Generic transforms of encoded inputs and policy indices under a symmetry
//! described by [`Encode::map_square`] and the plane maps.

use crate::Encode;

/// Transform a `[C, H, W]` input under symmetry `sym` into `out` (same shape).
pub fn transform_input<E: Encode>(sym: usize, input: &[f32], out: &mut [f32]) {
    let area = E::HEIGHT * E::WIDTH;
    for plane in 0..E::INPUT_PLANES {
        let dst_plane = E::map_input_plane(sym, plane);
        for sq in 0..area {
            out[dst_plane * area + E::map_square(sym, sq)] = input[plane * area + sq];
        }
    }
}

/// Image of a flat policy index `plane * H * W + square` under symmetry `sym`.
pub fn transform_policy_index<E: Encode>(sym: usize, index: usize) -> usize {
    let area = E::HEIGHT * E::WIDTH;
    let (plane, sq) = (index / area, index % area);
    E::map_policy_plane(sym, plane) * area + E::map_square(sym, sq)
}
