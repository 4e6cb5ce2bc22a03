//! End to end with python-chess: `chess.engine` drives `lokizero uci`
//! through a whole losers game (tests/uci_python_chess.py). Skipped, with a
//! message, only when python3 or the `chess` package is absent (`.ci/run`
//! installs it).

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

fn python_chess_available() -> bool {
    Command::new("python3")
        .args(["-c", "import chess.engine"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn python_chess_plays_a_whole_losers_game() {
    if !python_chess_available() {
        eprintln!("SKIPPED: python3 with the `chess` package is not installed (pip install chess)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let bundle = tmp.path().join("losers");
    bot::write_untrained_bundle(
        &bundle,
        rules::VariantId::Losers,
        1,
        8,
        16,
        &burn::tensor::Device::flex(),
    )
    .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/uci_python_chess.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(BIN)
        .arg(&bundle)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "python-chess game failed:\nstdout: {stdout}\nstderr: {stderr}"
    );
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    println!("python-chess losers game: {summary}");
    assert!(summary["plies"].as_u64().unwrap() > 0);
    assert!(!summary["end"].as_str().unwrap().is_empty());
}
