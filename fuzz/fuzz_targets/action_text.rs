//! Action parser (`parse_move`) on the start position of every variant
//! (first byte picks the variant). Accepted moves must be legal and play.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::{Game, VariantId};

fn check<G: Game>(text: &str) {
    let g = G::start();
    if let Ok(actions) = g.parse_move(text) {
        let mut c = g.clone();
        for a in actions {
            assert!(
                c.legal_vec().contains(&a),
                "{text:?} gave an illegal action"
            );
            c.play(a);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let variant = VariantId::ALL[pick as usize % VariantId::ALL.len()];
    rules::with_variant!(variant, G => check::<G>(text));
});
