//! What the page shows of each variant beyond the rules: display names,
//! the names of the sides, the board's size and its marked squares.

use encoding::Encode;
use rules::tafl::board::{CORNERS, GEOMETRY as TAFL, THRONE};
use rules::VariantId;

/// Display name of `variant`.
pub fn display_name(variant: VariantId) -> &'static str {
    match variant {
        VariantId::Losers => "Losers Chess",
        VariantId::Viking => "Viking Chess",
        VariantId::Hnefatafl => "Hnefatafl",
        VariantId::Loki => "Loki Chess",
        VariantId::Shakti => "Shakti",
    }
}

/// Names of the first and second player (`docs/rules.md`).
pub fn side_names(variant: VariantId) -> [&'static str; 2] {
    match variant {
        VariantId::Hnefatafl | VariantId::Loki => ["Attackers", "Defenders"],
        VariantId::Losers | VariantId::Viking | VariantId::Shakti => ["White", "Black"],
    }
}

/// Files and ranks of `variant`'s board (the encoding's planes are the board).
pub fn board_size(variant: VariantId) -> (usize, usize) {
    rules::with_variant!(variant, G => (<G as Encode>::WIDTH, <G as Encode>::HEIGHT))
}

/// Marked squares of `variant` as (square name, mark): the tafl throne and
/// corners, where only the king may stop.
pub fn marks(variant: VariantId) -> Vec<(String, &'static str)> {
    match variant {
        VariantId::Hnefatafl | VariantId::Loki => std::iter::once((TAFL.name(THRONE), "throne"))
            .chain(CORNERS.iter().map(|&sq| (TAFL.name(sq), "corner")))
            .collect(),
        VariantId::Losers | VariantId::Viking | VariantId::Shakti => Vec::new(),
    }
}
