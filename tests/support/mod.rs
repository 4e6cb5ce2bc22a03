//! Shared by the end-to-end tests that drive the binary: the tiny Shakti
//! run config (one network block, a few games of a few simulations) and a
//! copy of a bundle.

/// Config text of a tiny Shakti run with `generations` and `seed`.
#[allow(
    dead_code,
    reason = "not every test binary that includes `support` uses it"
)]
pub fn tiny_config(generations: u32, seed: u64) -> String {
    format!(
        r#"
variant = "shakti"
generations = {generations}
seed = {seed}
threads = 2
[network]
blocks = 1
filters = 8
value_hidden = 16
[selfplay]
games_per_generation = 4
concurrent_games = 4
simulations = 4
leaves_per_tree = 2
temperature_plies = 6
ply_cap = 40
games_per_chunk = 2
[training]
batch_size = 32
sample_reuse = 1.0
min_steps = 2
"#
    )
}

/// Copy the bundle in `from` (its `model.json` and `model.safetensors`)
/// into the new folder `to`, for tests that damage or overwrite a copy of
/// a shipped bundle.
#[allow(
    dead_code,
    reason = "not every test binary that includes `support` uses it"
)]
pub fn copy_bundle(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir(to).unwrap();
    for name in ["model.json", "model.safetensors"] {
        std::fs::copy(from.join(name), to.join(name)).unwrap();
    }
}
