//! Bundle metadata (`model.json`) for every variant's encoding:
//! `model::bundle::parse_meta` gives metadata or a `BundleError`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::VariantId;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    for variant in VariantId::ALL {
        rules::with_variant!(variant, G => {
            let _ = model::bundle::parse_meta::<G>(data, Path::new("fuzz"));
        });
    }
});
