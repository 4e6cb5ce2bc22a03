//! The project's UCI wrapper around the npm Fairy-Stockfish WebAssembly
//! build (`scripts/fairy-stockfish-wasm/`), the outside anchor for viking
//! it loads the shipped variant definition (start-position
//! perft 4 equals the rules crate's), and `lokizero match` plays it a short
//! match. `.ci/run` installs the npm package; elsewhere the tests print
//! `SKIPPED:` when it is not installed (`scripts/fairy-stockfish-wasm/install.sh`).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

fn wrapper() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/fairy-stockfish-wasm")
}

/// Whether the npm package and Node are there (in CI they must be).
fn installed() -> bool {
    let ok = wrapper()
        .join("node_modules/fairy-stockfish-nnue.wasm")
        .is_dir()
        && Command::new("node").arg("--version").output().is_ok();
    assert!(
        ok || std::env::var_os("CI").is_none(),
        "CI must install the wrapper: scripts/fairy-stockfish-wasm/install.sh"
    );
    if !ok {
        eprintln!("SKIPPED: run scripts/fairy-stockfish-wasm/install.sh (npm) first");
    }
    ok
}

#[test]
fn the_wrapper_plays_viking_by_the_shipped_definition() {
    if !installed() {
        return;
    }
    let ini =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs/fairy-stockfish/viking.ini");
    let mut engine = Command::new(wrapper().join("fairy-stockfish"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the wrapper");
    let mut stdin = engine.stdin.take().unwrap();
    writeln!(
        stdin,
        "uci\nsetoption name VariantPath value {}\nsetoption name UCI_Variant value viking\nposition startpos\ngo perft 4",
        ini.display()
    )
    .unwrap();
    let stdout = BufReader::new(engine.stdout.take().unwrap());
    let nodes = stdout
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("Nodes searched: ").map(str::to_string));
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    let _ = engine.wait();
    // The rules crate's viking perft 4 (crates/rules/tests/data).
    assert_eq!(nodes.as_deref(), Some("144563"));
}

#[test]
fn lokizero_plays_a_short_match_against_it() {
    if !installed() {
        return;
    }
    let spec = format!("uci:{}:d1", wrapper().join("fairy-stockfish").display());
    let out = Command::new(BIN)
        .args([
            "match",
            "greedy",
            &spec,
            "--variant",
            "viking",
            "--games",
            "2",
        ])
        .args([
            "--concurrency",
            "1",
            "--seed",
            "5",
            "--ply-cap",
            "120",
            "--json",
        ])
        .output()
        .expect("run lokizero");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let record: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap();
    assert_eq!(record["games"], 2);
    assert_eq!(record["forfeits"], serde_json::json!([]));
    let played = ["wins", "draws", "losses"].map(|k| record[k].as_u64().unwrap());
    assert_eq!(played.iter().sum::<u64>(), 2, "{record}");
}
