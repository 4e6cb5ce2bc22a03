//! `lokizero perft`: whole turns by default (docs/rules.md notation),
//! atomic actions with `--atomic`, for every variant.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

/// Stdout of `lokizero perft ARGS`, which must succeed.
fn perft(args: &[&str]) -> String {
    let out = Command::new(BIN)
        .arg("perft")
        .args(args)
        .output()
        .expect("run lokizero perft");
    assert!(
        out.status.success(),
        "perft {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// The count `lokizero perft --variant V --depth D [extra]` prints.
fn count(variant: &str, depth: u32, extra: &[&str]) -> u64 {
    let depth = depth.to_string();
    let mut args = vec!["--variant", variant, "--depth", &depth];
    args.extend_from_slice(extra);
    let text = perft(&args);
    text.trim()
        .parse()
        .unwrap_or_else(|_| panic!("a count: {text:?}"))
}

#[test]
fn loki_counts_whole_turns() {
    assert_eq!(count("loki", 1, &[]), 1488);
    assert_eq!(count("loki", 2, &[]), 1_342_834);
}

#[test]
fn loki_atomic_counts_sub_actions() {
    assert_eq!(count("loki", 1, &["--atomic"]), 255);
}

/// Variants whose actions are whole turns count as before, with or
/// without `--atomic`.
#[test]
fn other_variants_are_unchanged() {
    let cases = [
        ("losers", 3, 8067),
        ("viking", 3, 6489),
        ("hnefatafl", 2, 6788),
        ("shakti", 3, 20445),
    ];
    for (variant, depth, expected) in cases {
        assert_eq!(count(variant, depth, &[]), expected, "{variant}");
        assert_eq!(count(variant, depth, &["--atomic"]), expected, "{variant}");
    }
}

/// `--divide` writes one whole-turn token per root turn: commands as
/// `g:d4d6d6f6`, exchanges as `x:e5d4`, never a continuation (`g>`, `x>`).
#[test]
fn loki_divide_prints_whole_turn_tokens() {
    let text = perft(&["--variant", "loki", "--depth", "1", "--divide"]);
    let lines: Vec<&str> = text.lines().filter(|l| l.ends_with(": 1")).collect();
    assert_eq!(lines.len(), 1488);
    assert!(text.trim_end().ends_with("Nodes searched: 1488"), "{text}");
    assert!(lines.contains(&"g:d1d2d2d3: 1"), "a two-move command");
    assert!(lines.iter().any(|l| l.starts_with("x:")), "an exchange");
    assert!(!text.contains('>'), "no atomic continuation token");
    let atomic = perft(&["--variant", "loki", "--depth", "1", "--divide", "--atomic"]);
    assert!(atomic.contains("g:d1d2: "), "atomic first part");
}

#[test]
fn bad_position_is_an_error_not_a_panic() {
    let out = Command::new(BIN)
        .args([
            "perft",
            "--variant",
            "loki",
            "--depth",
            "1",
            "--fen",
            "nonsense",
        ])
        .output()
        .expect("run lokizero perft");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--fen"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
