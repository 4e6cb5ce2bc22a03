//! Every config shipped in `configs/` (and `configs/experiments/`) loads and
//! passes validation, so a typo in a key fails here, not an hour into a run.

use std::path::PathBuf;

use train::RunConfig;

fn configs() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let mut out = Vec::new();
    for dir in [root.clone(), root.join("experiments")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_shipped_config_loads() {
    let paths = configs();
    // The five variants' main jobs and the 37 files of
    // configs/experiments (A/B arms and experiment recipes).
    assert_eq!(paths.len(), 42, "{paths:?}");
    for path in &paths {
        let config = RunConfig::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let stem = path.file_stem().unwrap().to_str().unwrap();
        if !stem.starts_with("ab-") {
            let variant = stem.split('-').next().unwrap_or(stem);
            assert_eq!(config.variant.as_str(), variant, "{}", path.display());
        }
    }
}
