//! The run-config loader (`train::RunConfig::from_toml`): any text gives a
//! config or a `ConfigError`, never a panic; accepted configs validate.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(config) = train::RunConfig::from_toml(text, "fuzz.toml") {
        assert!(config.validate().is_ok());
    }
});
