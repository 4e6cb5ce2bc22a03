//! Position-text parser of every variant (first byte picks the variant).
//! Anything `from_text` accepts must write back to a text that parses to
//! the same text, and legal-action generation and one play must not panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::{Game, VariantId};

fn check<G: Game>(text: &str) {
    let Ok(g) = G::from_text(text) else {
        return;
    };
    let written = g.to_text();
    let back = match G::from_text(&written) {
        Ok(b) => b,
        Err(e) => panic!("{text:?} parsed, but its text {written:?} does not: {e}"),
    };
    assert_eq!(back.to_text(), written, "text of {text:?} is not stable");
    let _ = g.outcome();
    let legal = g.legal_vec();
    if let Some(&a) = legal.first() {
        let mut c = g.clone();
        let _ = c.action_to_text(a);
        c.play(a);
        let _ = c.legal_vec();
        let _ = c.outcome();
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
