//! Temporary golden test for the generation-loop refactor: a seeded tiny
//! local run (one self-play worker, resignation and branching on, three
//! generations) must write byte-identical replay chunks and weights before
//! and after the change. `GOLDEN_PRINT=1` prints the digest instead of
//! checking it.

use std::path::Path;

use burn::tensor::Device;
use rules::Shakti;
use train::{RunConfig, RunOptions};

const CONFIG: &str = r#"
variant = "shakti"
generations = 3
seed = 11
threads = 1
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
workers = 1
resign = true
resign_threshold = -0.5
branch_fraction = 0.5
[training]
batch_size = 32
sample_reuse = 1.0
min_steps = 2
"#;

/// The digest recorded from the code before the refactor.
const GOLDEN: &str = "10-files-6d07f285a392332d";

/// FNV-1a over the bytes of every replay chunk and every weights file of
/// the run, in path order, with their names.
fn digest(run: &Path) -> String {
    let mut files = Vec::new();
    for sub in ["replay", "checkpoints"] {
        let mut stack = vec![run.join(sub)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p
                    .extension()
                    .is_some_and(|x| x == "bin" || x == "safetensors")
                {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        if std::env::var_os("GOLDEN_PRINT").is_some() {
            let mut k: u64 = 0xcbf2_9ce4_8422_2325;
            for &b in &bytes {
                k = (k ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
            }
            println!("{} {k:016x}", f.strip_prefix(run).unwrap().display());
        }
        eat(f.strip_prefix(run).unwrap().to_str().unwrap().as_bytes());
        eat(&bytes);
    }
    format!("{}-files-{h:016x}", files.len())
}

#[test]
fn seeded_local_run_is_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let config = RunConfig::from_toml(CONFIG, "golden").unwrap();
    let run = tmp.path().join("run");
    // The untrained generation 0 is drawn from the backend's generator.
    let device = Device::flex();
    device.seed(3);
    train::run::<Shakti>(&config, &run, &device, &RunOptions::default()).unwrap();
    let got = digest(&run);
    if std::env::var_os("GOLDEN_PRINT").is_some() {
        println!("GOLDEN {got}");
        return;
    }
    assert_eq!(got, GOLDEN);
}
