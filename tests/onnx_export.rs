//! `lokizero export --onnx` on every shipped bundle: onnxruntime (the PyPI
//! wheel, driven by tests/onnx_agrees.py) runs the written model on
//! positions from random games and agrees with lokizero's own evaluation
//! (the fused fp32 path) to 1e-4 in every policy logit and WDL probability.
//! Skipped, with a message, when python3 with onnxruntime and numpy is
//! absent, unless `CI` is set (`.ci/run` installs them).

use std::path::{Path, PathBuf};
use std::process::Command;

use encoding::Encode;
use rules::{Game, VariantId};

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

/// Largest difference allowed between onnxruntime and lokizero.
const TOLERANCE: f64 = 1e-4;

fn onnxruntime_available() -> bool {
    let present = Command::new("python3")
        .args(["-c", "import onnxruntime, numpy"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !present && std::env::var_os("CI").is_some() {
        panic!("CI is set but python3 cannot import onnxruntime and numpy (pip install onnxruntime numpy)");
    }
    present
}

fn shipped(variant: VariantId) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../models")
        .join(variant.as_str())
}

/// `n` positions from random games (a small LCG picks the moves), the
/// start position first; none is over.
fn positions<G: Game>(n: usize, seed: u64) -> Vec<G> {
    let mut state = seed;
    let mut next = move |bound: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % bound
    };
    let mut out = vec![G::start()];
    let mut game = G::start();
    while out.len() < n {
        let legal = game.legal_vec();
        if game.outcome().is_some() || legal.is_empty() || game.ply() > 120 {
            game = G::start();
            continue;
        }
        game.play(legal[next(legal.len())]);
        if game.outcome().is_none() && next(3) == 0 {
            out.push(game.clone());
        }
    }
    out
}

/// lokizero's evaluation of 24 positions as the reference JSON of
/// tests/onnx_agrees.py.
fn reference<G: Encode>(bundle: &Path) -> serde_json::Value {
    let device = model::Backend::Cpu.device().unwrap();
    let (net, _) = model::load_bundle::<G>(bundle, &device).unwrap();
    let mut evaluator = model::NetEvaluator::<G>::new(net, device);
    let games = positions::<G>(24, 0x5eed);
    let refs: Vec<&G> = games.iter().collect();
    let mut planes = vec![0.0; games.len() * G::input_len()];
    for (chunk, g) in planes.chunks_exact_mut(G::input_len()).zip(&games) {
        g.encode(chunk);
    }
    let (logits, wdl) = evaluator.forward(&refs);
    serde_json::json!({
        "shape": [games.len(), G::INPUT_PLANES, G::HEIGHT, G::WIDTH],
        "planes": planes,
        "policy_logits": logits,
        "wdl": wdl.iter().flatten().collect::<Vec<_>>(),
    })
}

#[test]
fn onnxruntime_agrees_with_lokizero_on_every_shipped_bundle() {
    if !onnxruntime_available() {
        eprintln!("SKIPPED: python3 with onnxruntime and numpy is not installed (pip install onnxruntime numpy)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/onnx_agrees.py");
    for variant in VariantId::ALL {
        let bundle = shipped(variant);
        let onnx = tmp.path().join(format!("{variant}.onnx"));
        let out = Command::new(BIN)
            .arg("export")
            .arg("--model")
            .arg(&bundle)
            .arg("--onnx")
            .arg(&onnx)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "export --onnx {variant}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let reference = rules::with_variant!(variant, G => reference::<G>(&bundle));
        let ref_path = tmp.path().join(format!("{variant}.json"));
        std::fs::write(&ref_path, reference.to_string()).unwrap();
        let run = Command::new("python3")
            .arg(&script)
            .arg(&onnx)
            .arg(&ref_path)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "onnxruntime on {variant}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let report: serde_json::Value =
            serde_json::from_slice(&run.stdout).expect("onnx_agrees.py prints JSON");
        println!("{variant}: {report}");
        assert_eq!(report["variant"], variant.as_str());
        assert_eq!(report["batch"], 24);
        for key in ["policy_max_diff", "wdl_max_diff", "wdl_logits_softmax_diff"] {
            let diff = report[key].as_f64().unwrap();
            assert!(
                diff <= TOLERANCE,
                "{variant}: {key} = {diff:e} exceeds {TOLERANCE:e}"
            );
        }
    }
}

/// A bundle path that is not a bundle gets an error naming it, and no file.
#[test]
fn export_onnx_of_a_missing_bundle_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let onnx = tmp.path().join("x.onnx");
    let out = Command::new(BIN)
        .args(["export", "--model", "/nonexistent/bundle", "--onnx"])
        .arg(&onnx)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/bundle"), "{err}");
    assert!(!onnx.exists());
}
