//! `lokizero analyse`: JSON-lines requests and responses through the real
//! binary, bad requests answered with an error and the engine reading on.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

/// Send `lines` to `lokizero analyse` and collect one response per line.
fn analyse(lines: &[String], args: &[&str]) -> Vec<Value> {
    let mut child = Command::new(BIN)
        .arg("analyse")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn requests_responses_and_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let losers = tmp.path().join("losers");
    let shakti = tmp.path().join("shakti");
    let dev = burn::tensor::Device::flex();
    bot::write_untrained_bundle(&losers, rules::VariantId::Losers, 1, 8, 16, &dev).unwrap();
    bot::write_untrained_bundle(&shakti, rules::VariantId::Shakti, 1, 8, 16, &dev).unwrap();
    let l = losers.to_str().unwrap();
    let s = shakti.to_str().unwrap();
    let requests = vec![
        json!({"id": "a", "variant": "losers", "position": "startpos", "moves": ["e2e3"], "nodes": 40, "top": 3, "bundle": l}).to_string(),
        "this is not json".to_string(),
        json!({"id": 2, "variant": "losers", "moves": ["e2e5"], "nodes": 10, "bundle": l}).to_string(),
        json!({"id": 3, "variant": "nope", "nodes": 10, "bundle": l}).to_string(),
        json!({"id": 4, "variant": "losers", "nodes": 10, "bundle": l, "extra": true}).to_string(),
        json!({"id": 5, "variant": "losers", "nodes": 0, "bundle": l}).to_string(),
        json!({"id": 6, "variant": "losers", "nodes": 10, "bundle": s}).to_string(),
        json!({"id": 7, "nodes": 16, "top": 0, "bundle": s}).to_string(),
        json!({"id": 8, "variant": "losers", "position": "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", "nodes": 5, "bundle": l}).to_string(),
        json!({"id": 9, "variant": "losers", "position": "8/8", "bundle": l}).to_string(),
        String::new(),
        json!({"id": [1, 2], "variant": "losers", "position": "4k3/8/8/8/8/8/4r2P/4K3 w - - 0 1", "nodes": 3, "bundle": l}).to_string(),
        json!([{"variant": "losers"}]).to_string(),
    ];
    let r = analyse(&requests, &[]);
    assert_eq!(r.len(), 12, "one response per non-empty line: {r:#?}");

    // A good request.
    assert_eq!(r[0]["id"], "a");
    assert_eq!(r[0]["variant"], "losers");
    assert_eq!(
        r[0]["position"],
        "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!(r[0]["root"]["visits"], 40);
    let actions = r[0]["actions"].as_array().unwrap();
    assert_eq!(actions.len(), 3);
    let total: u64 = actions.iter().map(|a| a["visits"].as_u64().unwrap()).sum();
    assert!(total <= 39);
    for a in actions {
        for key in ["action", "visits", "prior", "q", "wdl", "pv"] {
            assert!(a.get(key).is_some(), "{key} missing in {a}");
        }
        assert_eq!(a["pv"][0], a["action"]);
    }
    let wdl: f64 = r[0]["root"]["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .sum();
    assert!((wdl - 1.0).abs() < 1e-4);

    // Errors keep the id and say what is wrong.
    let err = |i: usize| {
        r[i]["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{}", r[i]))
            .to_string()
    };
    assert!(r[1]["id"].is_null() && err(1).contains("not JSON"));
    assert_eq!(r[2]["id"], 2);
    assert!(err(2).contains("e2e5"), "{}", err(2));
    assert!(err(3).contains("unknown variant"), "{}", err(3));
    assert!(err(4).contains("extra"), "{}", err(4));
    assert!(err(5).contains("nodes"), "{}", err(5));
    assert!(
        err(6).contains("is for variant shakti, but variant losers was asked for"),
        "{}",
        err(6)
    );
    // Variant from the bundle; top 0 = all 28 start actions of shakti.
    assert_eq!(r[7]["variant"], "shakti");
    assert_eq!(r[7]["actions"].as_array().unwrap().len(), 28);
    // Finished game: no actions, exact value, the outcome.
    assert_eq!(r[8]["actions"], json!([]));
    assert_eq!(r[8]["root"]["wdl"], json!([1.0, 0.0, 0.0]));
    assert_eq!(r[8]["outcome"]["winner"], "first");
    assert_eq!(r[8]["outcome"]["reason"], "BareKing");
    assert!(err(9).contains("position"), "{}", err(9));
    // Any JSON id is echoed; the forced capture is the only action.
    assert_eq!(r[10]["id"], json!([1, 2]));
    assert_eq!(r[10]["actions"][0]["action"], "e1e2");
    // JSON that is no object: says a request is one object per line.
    assert!(
        r[11]["id"].is_null()
            && err(11).contains("one JSON object per line")
            && err(11).contains("not an array"),
        "{}",
        err(11)
    );
}
