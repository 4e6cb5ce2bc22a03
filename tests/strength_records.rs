//! Strength records: `lokizero export` gives every bundle a lineage,
//! `--promoted-by` records an SPRT that accepted H1 and refuses any other,
//! and exporting the same weights twice gives the same file and sha256;
//! match records carry the per-side split the promotion rules read.

use std::path::Path;
use std::process::Command;

mod support;

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");
const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/shakti");

fn export(model: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(["export", "--model"])
        .arg(model)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("run lokizero")
}

/// Assert that an export succeeded, showing its stderr if not.
fn exported(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Run `lokizero ARGS` in `dir`.
fn lokizero_in(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run lokizero")
}

/// Run `lokizero ARGS`, which must succeed.
fn run_ok(args: &[&str]) -> std::process::Output {
    run_ok_in(Path::new("."), args)
}

/// Run `lokizero ARGS` in `dir`, which must succeed.
fn run_ok_in(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = lokizero_in(dir, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Run `lokizero ARGS` in `dir`, which must fail saying `why`.
fn refused_in(dir: &Path, args: &[&str], why: &str) {
    let out = lokizero_in(dir, args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains(why),
        "{args:?}: {err}"
    );
}

fn meta(bundle: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(bundle.join("model.json")).unwrap()).unwrap()
}

/// A `lokizero match --sprt ... --json` record with the given decision.
fn sprt_record(dir: &Path, variant: &str, decision: &str) -> String {
    // The bounds of alpha = beta = 0.05.
    let bound = (0.95f64 / 0.05).ln();
    let record = serde_json::json!({
        "a": "bundle:new:200", "b": "bundle:models/shakti:200", "variant": variant,
        "games": 40, "wins": 25, "draws": 5, "losses": 10, "seed": 9,
        "elo": {"elo": 134.0, "lower": 30.0, "upper": 250.0},
        "sprt": {"decision": decision, "llr": 3.0, "lower": -bound, "upper": bound},
        "weights_b": "b".repeat(64)
    });
    let path = dir.join(format!("{variant}-{decision}.json"));
    std::fs::write(&path, record.to_string()).unwrap();
    path.display().to_string()
}

#[test]
fn export_records_the_promotion_and_is_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    let shipped = Path::new(SHIPPED);
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let h1 = sprt_record(tmp.path(), "shakti", "h1");
    let out = export(shipped, &a, &["--promoted-by", &h1]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let promoted = meta(&a);
    let lineage = &promoted["lineage"];
    assert_eq!(lineage["generations"], promoted["generation"]);
    assert_eq!(lineage["promoted_by"]["wins"], 25);
    assert_eq!(lineage["promoted_by"]["sprt_decision"], "h1");

    // Same weights, same bytes: the sha256 names the weights.
    assert!(export(&a, &b, &[]).status.success());
    assert_eq!(meta(&b)["weights_sha256"], promoted["weights_sha256"]);
    assert_eq!(meta(&b)["weights_sha256"], meta(shipped)["weights_sha256"]);
    assert_eq!(
        std::fs::read(a.join("model.safetensors")).unwrap(),
        std::fs::read(b.join("model.safetensors")).unwrap()
    );
}

#[test]
fn export_adds_match_records_after_the_bundles_own() {
    let tmp = tempfile::tempdir().unwrap();
    let shipped = Path::new(SHIPPED);
    let before = meta(shipped)["strength"]["matches"]
        .as_array()
        .unwrap()
        .clone();
    let record = serde_json::json!({
        "a": "bundle:models/shakti:100ms", "b": "uct:3s", "variant": "shakti",
        "games": 2, "wins": 1, "draws": 1, "losses": 0, "seed": 7
    });
    let path = tmp.path().join("match.json");
    std::fs::write(&path, record.to_string()).unwrap();
    let out_dir = tmp.path().join("out");
    let out = export(shipped, &out_dir, &["--strength", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = meta(&out_dir)["strength"]["matches"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(after.len(), before.len() + 1);
    assert_eq!(after[..before.len()], before[..]);
    assert_eq!(after[before.len()], record);
    // Re-exported from the source, whose records lack the new one: --out
    // keeps it.
    exported(&export(shipped, &out_dir, &[]));
    assert_eq!(
        meta(&out_dir)["strength"]["matches"].as_array().unwrap(),
        &after
    );
    // An --out named as records name an ancestor is refused, and so is a
    // record's player from an --out whose model.json says no usable sha256.
    refused_in(
        tmp.path(),
        &["export", "--model", SHIPPED, "--out", "./G8/"],
        "--out G8 is named as the records name",
    );
    assert!(!tmp.path().join("G8").exists());
    let mut broken = meta(&out_dir);
    broken["weights_sha256"] = "abc".into();
    std::fs::write(out_dir.join("model.json"), broken.to_string()).unwrap();
    let at_out = tmp.path().join("at-out.json");
    let mut against_out = record.clone();
    against_out["a"] = "bundle:out:20".into();
    std::fs::write(&at_out, against_out.to_string()).unwrap();
    refused_in(
        tmp.path(),
        &[
            "export",
            "--model",
            SHIPPED,
            "--out",
            "out",
            "--strength",
            at_out.to_str().unwrap(),
        ],
        "does not say a generation",
    );
    assert_eq!(meta(&out_dir), broken, "nothing replaced");
    // A missing record file is an error naming it; nothing is written.
    let missing = tmp.path().join("out2");
    let out = export(shipped, &missing, &["--strength", "/no/such/match.json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/match.json"));
    assert!(!missing.exists());
    // Anything but a match record of this variant is refused by name.
    for (name, text, says) in [
        ("number.json", "42".to_string(), "expected a JSON object"),
        ("partial.json", r#"{"b": "random", "wins": 1}"#.into(), "`draws`"),
        (
            "sum.json",
            r#"{"b": "random", "wins": 1, "draws": 0, "losses": 0, "games": 3}"#.into(),
            "in 3 games",
        ),
        (
            "variant.json",
            serde_json::json!({"a": "bundle:x", "b": "random", "variant": "loki", "wins": 1, "draws": 0, "losses": 0, "games": 1}).to_string(),
            "not of this bundle's shakti",
        ),
        (
            "no-a.json",
            serde_json::json!({"b": "random", "variant": "shakti", "wins": 1, "draws": 0, "losses": 0, "games": 1}).to_string(),
            "no player `a`",
        ),
        (
            "overflow.json",
            serde_json::json!({"a": "bundle:x", "b": "random", "variant": "shakti", "wins": u64::MAX, "draws": 3, "losses": 0, "games": 2}).to_string(),
            "in 2 games",
        ),
        (
            "weights.json",
            serde_json::json!({"a": "bundle:x", "b": "random", "variant": "shakti", "wins": 1, "draws": 0, "losses": 0, "games": 1, "weights_a": "xyz"}).to_string(),
            "`weights_a` is \"xyz\"",
        ),
    ] {
        let path = tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = export(shipped, &missing, &["--strength", path.to_str().unwrap()]);
        assert!(!out.status.success(), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(name) && stderr.contains(says), "{name}: {stderr}");
        assert!(!missing.exists(), "{name}");
    }
}

#[test]
fn export_refuses_a_match_that_does_not_promote() {
    let tmp = tempfile::tempdir().unwrap();
    let with_a = |a: &str, name: &str| {
        let path = tmp.path().join(name);
        let mut record: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(sprt_record(tmp.path(), "shakti", "h1")).unwrap(),
        )
        .unwrap();
        record["a"] = serde_json::Value::from(a);
        std::fs::write(&path, record.to_string()).unwrap();
        path.display().to_string()
    };
    let losers = concat!(
        "bundle:",
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/losers:200"
    );
    // A record edited: `edit` applied to the shakti h1 record.
    let edited = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let path = tmp.path().join(name);
        let mut record: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(sprt_record(tmp.path(), "shakti", "h1")).unwrap(),
        )
        .unwrap();
        edit(&mut record);
        std::fs::write(&path, record.to_string()).unwrap();
        path.display().to_string()
    };
    let short = edited("short.json", &|r| r["sprt"]["llr"] = 1.0.into());
    // Settings stated (as `match --sprt` writes them) that the results
    // (+25 =5 -10 in 40 games) do not take to H1 at [0, 400].
    let unfollowed = edited("unfollowed.json", &|r| {
        for (key, value) in [
            ("elo0", 0.0),
            ("elo1", 400.0),
            ("alpha", 0.05),
            ("beta", 0.05),
        ] {
            r["sprt"][key] = value.into();
        }
    });
    let partial = edited("partial.json", &|r| {
        r["sprt"]["elo0"] = "0".into();
        r["sprt"]["elo1"] = 400.0.into();
    });
    let one_sided = edited("one-sided.json", &|r| {
        r["as_first"] = serde_json::json!({"wins": 25, "draws": 5, "losses": 10});
        r["as_second"] = serde_json::json!({"wins": 0, "draws": 0, "losses": 0});
    });
    let sides = edited("sides.json", &|r| {
        r["as_first"] = serde_json::json!({"wins": 20, "draws": 0, "losses": 0});
        r["as_second"] = serde_json::json!({"wins": 5, "draws": 5, "losses": 9});
    });
    let unknown_b = edited("unknown-b.json", &|r| {
        r.as_object_mut().unwrap().remove("weights_b");
    });
    let bounds = edited("bounds.json", &|r| {
        let state = arena::SprtConfig::parse("0,100,0.05,0.05")
            .unwrap()
            .state(&arena::WdlCounts {
                wins: 25,
                draws: 5,
                losses: 10,
            });
        r["sprt"] = serde_json::json!({
            "decision": "h1", "llr": state.llr, "lower": 99.0, "upper": 1.0,
            "elo0": 0.0, "elo1": 100.0, "alpha": 0.05, "beta": 0.05
        });
    });
    let cases = [
        (sprt_record(tmp.path(), "shakti", "h0"), "\"h0\""),
        (
            unknown_b,
            "the weights of player B (bundle:models/shakti:200) are unknown",
        ),
        (bounds, "are not those of its settings"),
        (short, "an LLR at or above it"),
        (unfollowed, "does not follow from its results"),
        (sides, "do not add up to +25 =5 -10"),
        (partial, "`sprt.elo0` is not a number"),
        (one_sided, "40 games moving first and 0 moving second"),
        (
            sprt_record(tmp.path(), "losers", "h1"),
            "not of this bundle's shakti",
        ),
        (with_a("random", "random.json"), "not random vs"),
        (with_a(losers, "other.json"), "other weights"),
    ];
    for (record, why) in cases {
        let out_dir = tmp.path().join("out");
        let out = export(Path::new(SHIPPED), &out_dir, &["--promoted-by", &record]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(why), "{err}");
        assert!(!out_dir.exists(), "nothing written");
    }
}

/// A copy of the shipped bundle posing as an older one: `generation` and
/// `weights_sha256` rewritten (export reads a replaced bundle's identity
/// from its model.json only).
fn older_bundle(dir: &Path, generation: u32, sha256: &str) {
    support::copy_bundle(Path::new(SHIPPED), dir);
    let mut m = meta(dir);
    m["generation"] = serde_json::Value::from(generation);
    m["weights_sha256"] = serde_json::Value::from(sha256);
    std::fs::write(dir.join("model.json"), m.to_string()).unwrap();
}

/// The SPRT record of the new bundle against player `b`.
fn sprt_against(dir: &Path, b: &Path) -> String {
    let path = dir.join("against.json");
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sprt_record(dir, "shakti", "h1")).unwrap())
            .unwrap();
    record["b"] = serde_json::Value::from(format!("bundle:{}:200", b.display()));
    // B's weights are those its folder holds.
    record.as_object_mut().unwrap().remove("weights_b");
    std::fs::write(&path, record.to_string()).unwrap();
    path.display().to_string()
}

/// `--promoted-by` into the folder of the shipped bundle records that
/// bundle (generation, sha256) as `promoted_by.replaced`, since the match's
/// `b` path then holds the new one; a match won against other weights than
/// the bundle replaced is refused and leaves it in place.
#[test]
fn the_promotion_names_the_bundle_it_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, other) = (tmp.path().join("shipped"), tmp.path().join("other"));
    older_bundle(&out, 5, &"a".repeat(64));
    older_bundle(&other, 6, &"b".repeat(64));

    let refused = export(
        Path::new(SHIPPED),
        &out,
        &["--promoted-by", &sprt_against(tmp.path(), &other)],
    );
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{err}");
    assert!(
        err.contains("has other weights than the bundle this export replaces"),
        "{err}"
    );
    assert_eq!(
        meta(&out)["generation"],
        5,
        "the shipped bundle is untouched"
    );

    let done = export(
        Path::new(SHIPPED),
        &out,
        &["--promoted-by", &sprt_against(tmp.path(), &out)],
    );
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let replaced = &meta(&out)["lineage"]["promoted_by"]["replaced"];
    assert_eq!(replaced["generation"], 5);
    assert_eq!(replaced["weights_sha256"], "a".repeat(64));
}

/// `lokizero match --json` splits A's results by side (tafl and loki sides
/// differ, and strength targets are read per side).
#[test]
fn match_json_splits_the_result_by_side() {
    let out = Command::new(BIN)
        .args(["match", "random", "greedy", "--variant", "hnefatafl"])
        .args([
            "--games",
            "4",
            "--concurrency",
            "1",
            "--seed",
            "1",
            "--json",
        ])
        .output()
        .expect("run lokizero");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let side = |s: &str, k: &str| record[s][k].as_u64().unwrap();
    for k in ["wins", "draws", "losses"] {
        assert_eq!(
            side("as_first", k) + side("as_second", k),
            record[k].as_u64().unwrap()
        );
    }
    let first = ["wins", "draws", "losses"].map(|k| side("as_first", k));
    assert_eq!(first.iter().sum::<u64>(), 2, "{record}");
}

/// `lokizero match --sprt ... --json` states the test's settings beside
/// its state, and an export runs the test again from them: a promotion
/// whose LLR follows from its results is kept.
#[test]
fn match_json_states_its_sprt_and_export_checks_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_ok(&[
        "match",
        "greedy",
        "random",
        "--variant",
        "shakti",
        "--games",
        "8",
        "--seed",
        "3",
        "--sprt",
        "0,400,0.2,0.2",
        "--json",
    ]);
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sprt = &record["sprt"];
    let config = arena::SprtConfig {
        elo0: sprt["elo0"].as_f64().unwrap(),
        elo1: sprt["elo1"].as_f64().unwrap(),
        alpha: sprt["alpha"].as_f64().unwrap(),
        beta: sprt["beta"].as_f64().unwrap(),
    };
    assert_eq!((config.elo0, config.elo1, config.alpha), (0.0, 400.0, 0.2));
    let count = |k: &str| record[k].as_u64().unwrap() as u32;
    let state = config.state(&arena::WdlCounts {
        wins: count("wins"),
        draws: count("draws"),
        losses: count("losses"),
    });
    assert!(
        (state.llr - sprt["llr"].as_f64().unwrap()).abs() < 1e-9,
        "{record}"
    );

    // The shakti promotion record with settings its results take to H1.
    let mut promotion: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(sprt_record(tmp.path(), "shakti", "h1")).unwrap(),
    )
    .unwrap();
    let wide = arena::SprtConfig::parse("0,100,0.05,0.05").unwrap();
    let state = wide.state(&arena::WdlCounts {
        wins: 25,
        draws: 5,
        losses: 10,
    });
    assert_eq!(state.decision, arena::SprtDecision::H1);
    promotion["sprt"] = serde_json::json!({
        "decision": "h1", "llr": state.llr, "lower": state.lower, "upper": state.upper,
        "elo0": 0.0, "elo1": 100.0, "alpha": 0.05, "beta": 0.05
    });
    let file = tmp.path().join("followed.json");
    std::fs::write(&file, promotion.to_string()).unwrap();
    let out_dir = tmp.path().join("out");
    exported(&export(
        Path::new(SHIPPED),
        &out_dir,
        &["--promoted-by", &file.display().to_string()],
    ));
    assert_eq!(meta(&out_dir)["lineage"]["promoted_by"]["wins"], 25);
}

/// One match exported under two folder names is one record: a
/// re-export from the other folder, or with `--out` spelled otherwise,
/// adds no copy, and the record names this bundle by the new `--out`.
#[test]
fn a_record_moved_between_folders_stays_one() {
    let tmp = tempfile::tempdir().unwrap();
    let in_tmp = |args: &[&str]| run_ok_in(tmp.path(), args).stdout;
    let played = in_tmp(&[
        "match",
        &format!("bundle:{SHIPPED}:2"),
        "random",
        "--games",
        "2",
        "--seed",
        "4",
        "--json",
    ]);
    std::fs::write(tmp.path().join("rec.json"), played).unwrap();
    for out in ["x1", "x2"] {
        in_tmp(&[
            "export",
            "--model",
            SHIPPED,
            "--out",
            out,
            "--strength",
            "rec.json",
        ]);
    }
    in_tmp(&["export", "--model", "x2", "--out", "x1"]);
    in_tmp(&[
        "export",
        "--model",
        "x1",
        "--out",
        "./x1/",
        "--strength",
        "rec.json",
    ]);
    let matches = meta(&tmp.path().join("x1"))["strength"]["matches"].clone();
    let ours: Vec<&str> = matches
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["seed"] == 4)
        .map(|m| m["a"].as_str().unwrap())
        .collect();
    assert_eq!(ours, ["bundle:x1:2"]);
    // An --out whose last folder reads as an ancestor's name is refused;
    // so is a promotion into an --out whose model.json says no sha256.
    let refused = |args: &[&str], why: &str| refused_in(tmp.path(), args, why);
    refused(
        &["export", "--model", "x1", "--out", "sub/G8"],
        "named as the records name",
    );
    assert!(!tmp.path().join("sub").exists());
    let mut broken = meta(&tmp.path().join("x2"));
    broken["weights_sha256"] = "abc".into();
    std::fs::write(tmp.path().join("x2/model.json"), broken.to_string()).unwrap();
    let promotion = sprt_record(tmp.path(), "shakti", "h1");
    refused(
        &[
            "export",
            "--model",
            "x1",
            "--out",
            "x2",
            "--promoted-by",
            &promotion,
        ],
        "cannot tell which bundle it replaces",
    );
    assert_eq!(meta(&tmp.path().join("x2")), broken);
}

/// Two bundles the export knows by one generation (a grown network keeps
/// its source's) get names apart, by the first hex digits of their
/// weights; a player from a folder named like an ancestor whose weights
/// are no ancestor's is refused.
#[test]
fn export_names_ancestors_of_one_generation_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let shipped = meta(Path::new(SHIPPED));
    let this = shipped["weights_sha256"].as_str().unwrap().to_string();
    let ancestor = &shipped["lineage"]["ancestors"][0];
    let (generation, ancestor_weights) = (
        ancestor["generation"].as_u64().unwrap(),
        ancestor["weights_sha256"].as_str().unwrap(),
    );
    // The bundle replaced at --out: the ancestor's generation, other weights.
    let out_dir = tmp.path().join("out");
    older_bundle(&out_dir, generation as u32, &"a".repeat(64));
    let record = |name: &str, b: &str, weights_b: &str| {
        let record = serde_json::json!({
            "a": "bundle:scratch:200", "b": b, "variant": "shakti",
            "games": 2, "wins": 1, "draws": 1, "losses": 0, "seed": 7,
            "weights_a": this, "weights_b": weights_b
        });
        let file = tmp.path().join(name);
        std::fs::write(&file, record.to_string()).unwrap();
        file.display().to_string()
    };
    let against_replaced = record("replaced.json", "bundle:old:200", &"a".repeat(64));
    let against_ancestor = record("ancestor.json", "bundle:anc:200", ancestor_weights);
    exported(&export(
        Path::new(SHIPPED),
        &out_dir,
        &[
            "--strength",
            &against_replaced,
            "--strength",
            &against_ancestor,
        ],
    ));
    let matches = meta(&out_dir)["strength"]["matches"].clone();
    let matches = matches.as_array().unwrap();
    let names: Vec<&str> = matches[matches.len() - 2..]
        .iter()
        .map(|m| m["b"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            format!("bundle:G{generation}-aaaaaaaa:200"),
            format!("bundle:G{generation}-{}:200", &ancestor_weights[..8]),
        ]
    );

    // A scratch folder named `G5` (in any spelling) with weights of no
    // ancestor, or with weights nobody states (an older record, the
    // folder not at hand or its model.json without a sha256).
    let before = std::fs::read(out_dir.join("model.json")).unwrap();
    let refused = |record: &str, why: &str| {
        let out = export(Path::new(SHIPPED), &out_dir, &["--strength", record]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{err}");
        assert!(err.contains(why), "{err}");
        assert_eq!(std::fs::read(out_dir.join("model.json")).unwrap(), before);
    };
    for spec in ["bundle:G5:200", "bundle:./G5/:200"] {
        refused(
            &record("look-alike.json", spec, &"c".repeat(64)),
            "named like an ancestor",
        );
    }
    let stated_by_nobody = |name: &str, b: &str| {
        let mut record: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(record(name, b, "")).unwrap()).unwrap();
        record.as_object_mut().unwrap().remove("weights_b");
        std::fs::write(tmp.path().join(name), record.to_string()).unwrap();
        tmp.path().join(name).display().to_string()
    };
    refused(
        &stated_by_nobody("unstated.json", "bundle:G3:200"),
        "neither the record nor the folder says its weights",
    );
    // The folder at hand (the export run beside it) with a model.json
    // whose sha256 is no sha256.
    std::fs::create_dir(tmp.path().join("G7")).unwrap();
    std::fs::write(
        tmp.path().join("G7").join("model.json"),
        r#"{"variant":"shakti","generation":7,"weights_sha256":"abc"}"#,
    )
    .unwrap();
    let record = stated_by_nobody("g7.json", "bundle:G7:200");
    refused_in(
        tmp.path(),
        &[
            "export",
            "--model",
            SHIPPED,
            "--out",
            "out",
            "--strength",
            &record,
        ],
        "neither the record nor the folder says its weights",
    );
    assert_eq!(std::fs::read(out_dir.join("model.json")).unwrap(), before);
}

/// Match records name their bundle players as the match found them (a
/// run directory, a scratch copy); the export names this bundle by its
/// `--out` folder and the bundle it replaces there by its generation, in
/// the records and in the promotion, and refuses a record in which this
/// bundle is player B.
#[test]
fn export_names_the_bundle_players_for_readers() {
    let tmp = tempfile::tempdir().unwrap();
    let shipped = Path::new(SHIPPED);
    let run = run_ok;
    let path = |p: &Path| p.to_str().unwrap().to_string();
    // The bundle being replaced: other weights, at --out (and a copy of it
    // elsewhere, as a match may have found it).
    let out_dir = tmp.path().join("models").join("shakti");
    let old_copy = tmp.path().join("old-copy");
    run(&[
        "grow",
        "--model",
        SHIPPED,
        "--out",
        &path(&out_dir),
        "--blocks",
        "4",
    ]);
    run(&[
        "grow",
        "--model",
        SHIPPED,
        "--out",
        &path(&old_copy),
        "--blocks",
        "4",
    ]);
    let old_generation = meta(&out_dir)["generation"].as_u64().unwrap();
    // This bundle, found by the match in a scratch folder.
    let copy = tmp.path().join("scratch-copy");
    assert!(export(shipped, &copy, &[]).status.success());
    let other = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/loki");
    let record = |name: &str, a: &str, b: &str| {
        let record = serde_json::json!({
            "a": a, "b": b, "variant": "shakti",
            "games": 2, "wins": 1, "draws": 1, "losses": 0, "seed": 7,
            "sprt": {"decision": "h1", "llr": 3.0, "lower": -2.94, "upper": 2.94}
        });
        let file = tmp.path().join(name);
        std::fs::write(&file, record.to_string()).unwrap();
        path(&file)
    };
    let this = format!("bundle:{}:100ms", copy.display());
    let records = [
        record(
            "at-out.json",
            &this,
            &format!("bundle:{}:100ms", out_dir.display()),
        ),
        record(
            "old-copy.json",
            &this,
            &format!("bundle:{}/:200", old_copy.display()),
        ),
        record("other.json", &this, &format!("bundle:{other}:100ms")),
        record("unknown.json", "bundle:/no/such/bundle:100ms", "uct:1s"),
    ];
    let mut args: Vec<&str> = Vec::new();
    for r in &records {
        args.extend(["--strength", r]);
    }
    args.extend(["--promoted-by", &records[0]]);
    let out = export(shipped, &out_dir, &args);
    exported(&out);
    let shown = meta(&out_dir);
    let matches = shown["strength"]["matches"].as_array().unwrap().clone();
    let names: Vec<(&str, &str)> = matches[matches.len() - 4..]
        .iter()
        .map(|m| (m["a"].as_str().unwrap(), m["b"].as_str().unwrap()))
        .collect();
    let here = format!("bundle:{}:100ms", out_dir.display());
    let old = format!("bundle:G{old_generation}");
    assert_eq!(names[0], (here.as_str(), format!("{old}:100ms").as_str()));
    assert_eq!(names[1], (here.as_str(), format!("{old}:200").as_str()));
    // Another bundle, and players not at hand, keep their names.
    assert_eq!(
        names[2],
        (here.as_str(), format!("bundle:{other}:100ms").as_str())
    );
    assert_eq!(names[3], ("bundle:/no/such/bundle:100ms", "uct:1s"));
    let promotion = &shown["lineage"]["promoted_by"];
    assert_eq!(
        (promotion["a"].as_str(), promotion["b"].as_str()),
        (Some(names[0].0), Some(names[0].1))
    );
    assert_eq!(promotion["replaced"]["generation"], old_generation);

    // Re-exported over itself: the --out folder no longer holds what the
    // match played there, and a record without weights cannot say: refused.
    let later = record(
        "later.json",
        &this,
        &format!("bundle:{}:100ms", out_dir.display()),
    );
    let before = std::fs::read(out_dir.join("model.json")).unwrap();
    let out = export(&out_dir, &out_dir, &["--strength", &later]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not say its weights"));
    assert_eq!(std::fs::read(out_dir.join("model.json")).unwrap(), before);
    // ... and a plain re-export keeps the promotion naming the bundle it
    // replaced.
    exported(&export(&out_dir, &out_dir, &[]));
    let shown = meta(&out_dir);
    assert_eq!(
        shown["lineage"]["promoted_by"]["replaced"]["generation"],
        old_generation
    );

    // A promotion won against these very weights elsewhere is refused.
    let twin = record(
        "twin.json",
        &this,
        &format!(" bundle:{}:100ms", copy.display()),
    );
    let out = export(
        shipped,
        &tmp.path().join("twin-out"),
        &["--promoted-by", &twin],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("has the weights exported"));

    // This bundle as player B: refused, nothing written.
    let swapped = record(
        "swapped.json",
        &format!("bundle:{}:100ms", old_copy.display()),
        &format!(" {this}"),
    );
    let before = std::fs::read(out_dir.join("model.json")).unwrap();
    let out = export(shipped, &out_dir, &["--strength", &swapped]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("player B"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(out_dir.join("model.json")).unwrap(), before);

    // An --out no player spec can name (a ':'): the name stays, with a note.
    let colon = tmp.path().join("a:b");
    let out = export(shipped, &colon, &["--strength", &records[2]]);
    exported(&out);
    let last = meta(&colon)["strength"]["matches"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["a"], this.as_str());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has a ':'"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A record of `lokizero match` states the weights each bundle player
/// loaded, so the export names the players by them even where their
/// folders are gone or hold other weights by then: on a re-export, the
/// bundle that was at `--out` when the match was played is still named
/// by its generation, and this bundle as player B is refused.
#[test]
fn export_names_players_by_the_weights_the_match_loaded() {
    let tmp = tempfile::tempdir().unwrap();
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let run = run_ok;
    // The bundle being replaced (other weights) at --out, a copy of it,
    // and this bundle in a scratch folder.
    let out_dir = tmp.path().join("models").join("shakti");
    let old_copy = tmp.path().join("old-copy");
    for dir in [&out_dir, &old_copy] {
        run(&[
            "grow",
            "--model",
            SHIPPED,
            "--out",
            &path(dir),
            "--blocks",
            "4",
        ]);
    }
    let old_generation = meta(&out_dir)["generation"].as_u64().unwrap();
    let scratch = tmp.path().join("scratch");
    exported(&export(Path::new(SHIPPED), &scratch, &[]));
    // Two games of shakti at 2 simulations a move.
    let quick_match = |a: &str, b: &str| {
        let args = [
            "--variant",
            "shakti",
            "--games",
            "2",
            "--concurrency",
            "1",
            "--json",
        ];
        run(&[&["match", a, b][..], &args].concat()).stdout
    };
    let play = |a: &Path, b: &Path, file: &str| {
        let out = quick_match(
            &format!("bundle:{}:2", a.display()),
            &format!("bundle:{}:2", b.display()),
        );
        let mut record: serde_json::Value = serde_json::from_slice(&out).unwrap();
        // Promotion-shaped: the tests here make the SPRT's verdict up.
        record["sprt"] =
            serde_json::json!({"decision": "h1", "llr": 3.0, "lower": -2.94, "upper": 2.94});
        let file = tmp.path().join(file);
        std::fs::write(&file, record.to_string()).unwrap();
        (record, path(&file))
    };
    let (record, won) = play(&scratch, &out_dir, "won.json");
    assert_eq!(record["weights_a"], meta(&scratch)["weights_sha256"]);
    assert_eq!(record["weights_b"], meta(&out_dir)["weights_sha256"]);
    // The scratch folder is gone by the export: the record still names it.
    std::fs::remove_dir_all(&scratch).unwrap();
    exported(&export(
        Path::new(SHIPPED),
        &out_dir,
        &["--strength", &won, "--promoted-by", &won],
    ));
    let here = format!("bundle:{}:2", out_dir.display());
    let old = format!("bundle:G{old_generation}:2");
    let last = |dir: &Path| {
        let m = meta(dir)["strength"]["matches"].as_array().unwrap().clone();
        let l = m.last().unwrap().clone();
        (
            l["a"].as_str().unwrap().to_string(),
            l["b"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(last(&out_dir), (here.clone(), old.clone()));
    let promotion = &meta(&out_dir)["lineage"]["promoted_by"];
    assert_eq!(promotion["b"], old.as_str());

    // The same export again: the same bundle (the record not added twice,
    // the promotion still naming the bundle replaced).
    let first = meta(&out_dir);
    exported(&export(
        Path::new(SHIPPED),
        &out_dir,
        &["--strength", &won, "--promoted-by", &won],
    ));
    assert_eq!(meta(&out_dir), first);

    // Re-exported over itself with the same record: --out now holds this
    // bundle, and the record says the old one played there.
    exported(&export(&out_dir, &out_dir, &["--strength", &won]));
    assert_eq!(last(&out_dir), (here.clone(), old));

    // Refused, nothing written: this bundle (now at --out) as player B;
    // a record this bundle did not play; on a re-export, a promotion won
    // against another bundle than the one first replaced.
    let (_, swapped) = play(&old_copy, &out_dir, "swapped.json");
    let (_, others) = play(&old_copy, &old_copy, "others.json");
    let third = tmp.path().join("third");
    run(&[
        "grow",
        "--model",
        SHIPPED,
        "--out",
        &path(&third),
        "--blocks",
        "5",
    ]);
    let (_, against_third) = play(&out_dir, &third, "third.json");
    let (mut old_record, _) = play(&out_dir, &old_copy, "old.json");
    // A record of an older lokizero (no weights) with player B at --out.
    old_record["b"] = format!("bundle:{}:2", out_dir.display()).into();
    for key in ["weights_a", "weights_b"] {
        old_record.as_object_mut().unwrap().remove(key);
    }
    let old_record_file = tmp.path().join("older.json");
    std::fs::write(&old_record_file, old_record.to_string()).unwrap();
    let old_record_file = path(&old_record_file);
    let not_a_bundle = tmp.path().join("uct.json");
    std::fs::write(&not_a_bundle, quick_match("random", "uct:2")).unwrap();
    let not_a_bundle = path(&not_a_bundle);
    let before = std::fs::read(out_dir.join("model.json")).unwrap();
    for (flag, record, says) in [
        ("--strength", &swapped, "this bundle is player B"),
        ("--strength", &others, "player A of the match"),
        ("--strength", &not_a_bundle, "is not the bundle exported"),
        ("--strength", &old_record_file, "does not say its weights"),
        (
            "--promoted-by",
            &against_third,
            &format!(
                "other weights than the bundle this bundle replaces (generation {old_generation}"
            ),
        ),
    ] {
        let out = export(&out_dir, &out_dir, &[flag, record]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(says),
            "{record}: {err}"
        );
        assert_eq!(std::fs::read(out_dir.join("model.json")).unwrap(), before);
    }

    // A player named after an --out that does not exist (any more): known
    // by its weights, which are no bundle's the export knows: refused.
    let (_, against_gone) = play(&out_dir, &third, "gone.json");
    std::fs::remove_dir_all(&third).unwrap();
    let out = export(&out_dir, &third, &["--strength", &against_gone]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("played from the --out folder"),
        "{err}"
    );
    assert!(!third.exists());

    // The same match exported to another folder: not recorded twice.
    let copy = tmp.path().join("elsewhere");
    let out = export(&out_dir, &copy, &["--strength", &won]);
    exported(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("has this record already"));
    assert_eq!(
        meta(&copy)["strength"]["matches"].as_array().unwrap().len(),
        meta(&out_dir)["strength"]["matches"]
            .as_array()
            .unwrap()
            .len()
    );

    // An --onnx file inside --out, or named as a folder: refused first.
    for onnx in [out_dir.join("model.safetensors"), tmp.path().join("new/")] {
        let out = export(&out_dir, &out_dir, &["--onnx", &path(&onnx)]);
        assert!(!out.status.success(), "{}", onnx.display());
        assert_eq!(std::fs::read(out_dir.join("model.json")).unwrap(), before);
    }
}
