//! Write an untrained (generation 0) bundle, for trying `lokizero uci` or
//! `lokizero analyse` before a trained bundle ships:
//!
//! ```sh
//! cargo run --release -p bot --example untrained_bundle -- /tmp/losers-untrained losers
//! ```

use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(variant)) = (args.first(), args.get(1)) else {
        eprintln!("usage: untrained_bundle DIR VARIANT [BLOCKS FILTERS VALUE_HIDDEN]");
        std::process::exit(2);
    };
    let variant: rules::VariantId = match variant.parse() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let number = |i: usize, default: usize| {
        args.get(i)
            .map(|s| s.parse().unwrap_or(default))
            .unwrap_or(default)
    };
    let device = burn::tensor::Device::flex();
    let result = bot::write_untrained_bundle(
        &PathBuf::from(dir),
        variant,
        number(2, 2),
        number(3, 32),
        number(4, 64),
        &device,
    );
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    println!("wrote an untrained {variant} bundle to {dir}");
}
