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

/// The chromium the browser tests drive (`$CHROMIUM`, else
/// `/usr/bin/chromium`), with playwright-core installed in
/// `crates/serve/tests/browser` (`npm ci` on first use); `None`, after a
/// `SKIPPED:` line, when chromium is absent, a failure instead when `CI`
/// is set. Returns (chromium, the browser tests' folder).
#[allow(
    dead_code,
    reason = "not every test binary that includes `support` uses it"
)]
pub fn browser() -> Option<(String, std::path::PathBuf)> {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !std::path::Path::new(&chromium).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but {chromium} is missing (apt-get install chromium)"
        );
        eprintln!("SKIPPED: browser tests ({chromium} not installed; apt-get install chromium)");
        return None;
    }
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../crates/serve/tests/browser");
    if !dir.join("node_modules/playwright-core").is_dir() {
        let status = std::process::Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .expect("run npm (apt-get install npm)");
        assert!(status.success(), "npm ci failed in {}", dir.display());
    }
    Some((chromium, dir))
}

/// A `lokizero serve` on a free loopback port, killed when dropped.
#[allow(
    dead_code,
    reason = "not every test binary that includes `support` uses it"
)]
pub struct Server {
    child: std::process::Child,
    /// The page's address, `http://127.0.0.1:PORT` (no trailing slash).
    pub url: String,
}

#[allow(
    dead_code,
    reason = "not every test binary that includes `support` uses it"
)]
impl Server {
    /// Start `lokizero serve --addr 127.0.0.1:0` with `args` and wait for
    /// the `web lab: URL` line the README promises.
    pub fn start(args: &[&std::ffi::OsStr]) -> Server {
        let mut all: Vec<&std::ffi::OsStr> =
            vec!["serve".as_ref(), "--addr".as_ref(), "127.0.0.1:0".as_ref()];
        all.extend_from_slice(args);
        Server::run(&all)
    }

    /// Start `lokizero` with `args` (a command that serves the web lab and
    /// prints `web lab: URL`, as `serve` and `train --serve` do) and wait
    /// for that line.
    pub fn run(args: &[&std::ffi::OsStr]) -> Server {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lokizero"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start lokizero serve");
        let stdout = child.stdout.take().expect("piped stdout");
        let url = std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .find_map(|line| {
                line.strip_prefix("web lab: ")
                    .map(|u| u.trim_end_matches('/').to_string())
            });
        let Some(url) = url else {
            let _ = child.kill();
            panic!("lokizero {args:?} did not print the web lab's address");
        };
        Server { child, url }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
