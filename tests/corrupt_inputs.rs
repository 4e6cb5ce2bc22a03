//! Corrupt and mismatched inputs through the binary: a
//! bit-flipped bundle, a bundle of another encoding version, a truncated
//! replay chunk in a run being resumed, a damaged newest checkpoint, a
//! config with an unknown key and a full disk. Each must fail with a clear message and leave the existing
//! files unchanged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

fn lokizero(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run lokizero")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every file under `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Every file of `before` is in `after` unchanged, except `config.toml`,
/// which each `train` invocation rewrites by design.
fn assert_unchanged_but_config(
    before: &BTreeMap<PathBuf, Vec<u8>>,
    after: &BTreeMap<PathBuf, Vec<u8>>,
) {
    for (path, bytes) in before {
        if !path.ends_with("config.toml") {
            assert_eq!(after.get(path), Some(bytes), "{} changed", path.display());
        }
    }
}

fn train(config: &Path, run: &Path) -> Output {
    lokizero(&[
        "train",
        "--config",
        config.to_str().unwrap(),
        "--run-dir",
        run.to_str().unwrap(),
        "--quiet",
    ])
}

fn play(bundle: &Path) -> Output {
    lokizero(&[
        "play",
        "--model",
        bundle.to_str().unwrap(),
        "--games",
        "1",
        "--nodes",
        "2",
    ])
}

#[test]
fn corrupt_inputs_fail_clearly_and_change_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    std::fs::write(&config, support::tiny_config(1, 5)).unwrap();
    let run = tmp.path().join("run");
    let out = train(&config, &run);
    assert!(out.status.success(), "{}", stderr(&out));
    let bundle = run.join("checkpoints/gen-000001");
    let weights = bundle.join("model.safetensors");
    let meta = bundle.join("model.json");
    let (w0, m0) = (
        std::fs::read(&weights).unwrap(),
        std::fs::read(&meta).unwrap(),
    );

    // Bit-flipped weights.
    let mut w = w0.clone();
    let mid = w.len() / 2;
    w[mid] ^= 0x01;
    std::fs::write(&weights, &w).unwrap();
    let before = files(&run);
    let out = play(&bundle);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("weights checksum mismatch"),
        "{}",
        stderr(&out)
    );
    assert_eq!(files(&run), before);
    std::fs::write(&weights, &w0).unwrap();

    // Another encoding version.
    let text = String::from_utf8(m0.clone()).unwrap();
    let edited = text.replace("\"encoding_version\": 1", "\"encoding_version\": 99");
    assert_ne!(edited, text);
    std::fs::write(&meta, &edited).unwrap();
    let before = files(&run);
    let out = play(&bundle);
    assert!(!out.status.success());
    assert!(
        stderr(&out)
            .contains("bundle has rules v1 / encoding v99, this build has rules v1 / encoding v1"),
        "{}",
        stderr(&out)
    );
    assert_eq!(files(&run), before);
    std::fs::write(&meta, &m0).unwrap();

    // A config with an unknown key: nothing in the run directory changes.
    let bad = tmp.path().join("bad.toml");
    std::fs::write(
        &bad,
        support::tiny_config(1, 5).replace("min_steps = 2", "min_step = 2"),
    )
    .unwrap();
    let before = files(&run);
    let out = train(&bad, &run);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("unknown field `min_step`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(files(&run), before);

    // A truncated replay chunk met while resuming: the error names it and
    // no existing file changes (config.toml is rewritten by design).
    let chunk = run.join("replay/gen-000001-part-0000.bin");
    let c = std::fs::read(&chunk).unwrap();
    std::fs::write(&chunk, &c[..c.len() - 10]).unwrap();
    let more = tmp.path().join("more.toml");
    std::fs::write(
        &more,
        support::tiny_config(1, 5).replace("generations = 1", "generations = 2"),
    )
    .unwrap();
    let before = files(&run);
    let out = train(&more, &run);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("gen-000001-part-0000.bin: corrupt replay chunk: checksum mismatch"),
        "{err}"
    );
    assert_unchanged_but_config(&before, &files(&run));
    assert!(!run.join("checkpoints/gen-000002").exists());
    std::fs::write(&chunk, &c).unwrap();

    // The newest checkpoint damaged after it was written: resuming stops
    // with an error naming it instead of retraining over it.
    std::fs::write(&weights, &w0[..100]).unwrap();
    let before = files(&run);
    let out = train(&more, &run);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("the newest checkpoint") && err.contains("gen-000001 does not load"),
        "{err}"
    );
    assert_unchanged_but_config(&before, &files(&run));
    assert!(!run.join("checkpoints/gen-000002").exists());
}

/// `train` into a 256 KiB tmpfs: the disk fills, the error says so, and
/// the files written before are intact. Needs root (mount); skipped with a
/// message otherwise (the unit tests of `fsio` inject the same
/// error without a mount).
#[test]
fn full_disk_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let mnt = tmp.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
        .arg(&mnt)
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !mounted {
        eprintln!("SKIPPED full_disk_is_a_clear_error: cannot mount a tmpfs (needs root)");
        return;
    }
    let config = tmp.path().join("tiny.toml");
    // Filters 32 make each bundle larger than the whole tmpfs.
    std::fs::write(
        &config,
        support::tiny_config(1, 5).replace("filters = 8", "filters = 96"),
    )
    .unwrap();
    let run = mnt.join("run");
    let out = train(&config, &run);
    let snapshot = files(&run);
    let _ = Command::new("umount").arg(&mnt).status();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("No space left on device"), "{err}");
    // What was written is complete: the config, no torn bundle.
    assert!(
        snapshot.keys().any(|p| p.ends_with("config.toml")),
        "{snapshot:?}"
    );
    assert!(
        snapshot
            .keys()
            .all(|p| !p.to_string_lossy().contains(".tmp-")),
        "temporary left behind: {:?}",
        snapshot.keys().collect::<Vec<_>>()
    );
}

/// A config that does not fit an existing run (another variant, another
/// network shape) is refused before anything in the run directory is
/// written — `config.toml` included — and the message says to use another
/// run directory and names what differs.
#[test]
fn a_config_that_does_not_fit_the_run_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    std::fs::write(&config, support::tiny_config(1, 5)).unwrap();
    let run = tmp.path().join("run");
    let out = train(&config, &run);
    assert!(out.status.success(), "{}", stderr(&out));
    let before = files(&run);

    // Each refused config: a clear message, and the run directory untouched.
    let refused = |name: &str, text: String| {
        let path = tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = train(&path, &run);
        assert!(!out.status.success());
        assert_eq!(files(&run), before, "{name} changed the run directory");
        stderr(&out)
    };
    let err = refused(
        "losers.toml",
        support::tiny_config(2, 5).replace("variant = \"shakti\"", "variant = \"losers\""),
    );
    assert!(
        err.contains("holds a shakti run, the config is for losers; use another --run-dir"),
        "{err}"
    );
    let err = refused(
        "wider.toml",
        support::tiny_config(2, 5).replace("filters = 8", "filters = 16"),
    );
    assert!(
        err.contains("filters = 8 (the config asks for 16)"),
        "{err}"
    );
    assert!(
        !err.contains("blocks ="),
        "only differing fields are named: {err}"
    );
}

/// `train --init-from` a bundle that does not fit the config (another
/// variant, another network shape, damaged weights) into a new run
/// directory is refused before the directory, or any missing parent of
/// it, is created.
#[test]
fn a_refused_init_bundle_creates_no_run_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    std::fs::write(&config, support::tiny_config(1, 5)).unwrap();
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    // Damaged weights: a copy of the shipped shakti bundle, one bit flipped.
    let damaged = tmp.path().join("damaged");
    support::copy_bundle(&models.join("shakti"), &damaged);
    let weights = damaged.join("model.safetensors");
    let mut w = std::fs::read(&weights).unwrap();
    let mid = w.len() / 2;
    w[mid] ^= 0x01;
    std::fs::write(&weights, &w).unwrap();
    let parent = tmp.path().join("new");
    let run = parent.join("run");
    for (bundle, expected) in [
        (models.join("losers"), "losers"),
        (
            models.join("shakti"),
            "filters = 32 (the config asks for 8)",
        ),
        (damaged.clone(), "weights checksum mismatch"),
    ] {
        let out = lokizero(&[
            "train",
            "--config",
            config.to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
            "--init-from",
            bundle.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(
            err.contains(&format!("--init-from {}: ", bundle.display())) && err.contains(expected),
            "{err}"
        );
        assert!(!parent.exists(), "{} was created", parent.display());
    }
    // An existing (empty) directory is kept as it was: nothing is written
    // into it, and it is not removed.
    std::fs::create_dir_all(&run).unwrap();
    let out = lokizero(&[
        "train",
        "--config",
        config.to_str().unwrap(),
        "--run-dir",
        run.to_str().unwrap(),
        "--init-from",
        models.join("losers").to_str().unwrap(),
        "--quiet",
    ]);
    assert!(!out.status.success());
    assert!(run.is_dir());
    assert_eq!(std::fs::read_dir(&run).unwrap().count(), 0);
}

/// `export --out` onto a file or a folder that is not a bundle is refused
/// and leaves it as it was.
#[test]
fn export_never_replaces_what_is_not_a_bundle() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    std::fs::write(&config, support::tiny_config(1, 5)).unwrap();
    let run = tmp.path().join("run");
    assert!(train(&config, &run).status.success());
    let victim = tmp.path().join("notes.txt");
    std::fs::write(&victim, "precious").unwrap();
    let out = lokizero(&[
        "export",
        "--model",
        run.join("checkpoints/gen-000001").to_str().unwrap(),
        "--out",
        victim.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("refusing to replace it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let names: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names.len(),
        3,
        "no temporary files left beside it: {names:?}"
    );
    // A link to a bundle: refused by name, the link and its bundle kept.
    #[cfg(unix)]
    {
        let model = run.join("checkpoints/gen-000001");
        let bundle = tmp.path().join("bundle");
        let export = |to: &Path| {
            lokizero(&[
                "export",
                "--model",
                model.to_str().unwrap(),
                "--out",
                to.to_str().unwrap(),
            ])
        };
        assert!(export(&bundle).status.success());
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&bundle, &link).unwrap();
        let before = files(&bundle);
        for spelling in ["", "/", "/.", "//"] {
            let out = export(Path::new(&format!("{}{spelling}", link.display())));
            assert!(!out.status.success(), "link{spelling}");
            assert!(
                stderr(&out).contains("it is a symbolic link (to ")
                    && stderr(&out).contains("give the folder it points to"),
                "link{spelling}: {}",
                stderr(&out)
            );
            assert!(std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink());
            assert_eq!(files(&bundle), before);
        }
        // An --onnx file that cannot be written stops the export before
        // the bundle is replaced.
        let out = lokizero(&[
            "export",
            "--model",
            model.to_str().unwrap(),
            "--out",
            bundle.to_str().unwrap(),
            "--onnx",
            victim.join("x.onnx").to_str().unwrap(),
        ]);
        assert!(!out.status.success());
        assert!(stderr(&out).contains("is not a folder"), "{}", stderr(&out));
        assert_eq!(files(&bundle), before);
    }
}

/// `export --out` onto a bundle of another variant is refused, naming both
/// variants, and leaves it as it was; `--force` replaces it, and a bundle
/// of the same variant is replaced without it.
#[test]
fn export_never_replaces_a_bundle_of_another_variant_unforced() {
    let tmp = tempfile::tempdir().unwrap();
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let out_dir = tmp.path().join("losers");
    support::copy_bundle(&models.join("losers"), &out_dir);
    let shakti = models.join("shakti");
    let export = |extra: &[&str]| {
        let mut args = vec![
            "export",
            "--model",
            shakti.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        lokizero(&args)
    };
    let before = files(&out_dir);
    let out = export(&[]);
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out).trim_end(),
        format!(
            "error: --out {} holds a losers bundle, --model is a shakti bundle; \
             refusing to replace it (use another --out, or --force to replace it)",
            out_dir.display()
        )
    );
    assert_eq!(files(&out_dir), before);
    // --force replaces it; then a re-export of the same variant needs none.
    let out = export(&["--force"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let meta = std::fs::read_to_string(out_dir.join("model.json")).unwrap();
    assert!(meta.contains("\"variant\": \"shakti\""), "{meta}");
    let out = export(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Bench and play arguments that cannot be measured or played are refused
/// with a message naming the option (no panic, nothing run).
#[test]
fn bad_bench_and_play_arguments_are_refused() {
    let shakti = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/shakti");
    let shakti = shakti.to_str().unwrap();
    let bundle_zero = format!("bundle:{shakti}:0");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/shakti.toml");
    let config = config.to_str().unwrap();
    let never = std::env::temp_dir().join("lokizero-refused-run-dir");
    let never_str = never.to_str().unwrap();
    let losers_config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/losers.toml");
    let losers_config = losers_config.to_str().unwrap();
    let bad_book =
        std::env::temp_dir().join(format!("lokizero-bad-book-{}.txt", std::process::id()));
    std::fs::write(
        &bad_book,
        "# one good, one bad\n8/8/k7/4p3/4P3/3P4/8/6K1 w - - 0 1\n8/8/8 w\n",
    )
    .unwrap();
    let bad_book = bad_book.to_str().unwrap();
    let book_config = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../configs/experiments/losers-endgame-book.toml");
    let book_config = book_config.to_str().unwrap();
    let store = std::env::temp_dir().join(format!("lokizero-book-store-{}", std::process::id()));
    let store = store.to_str().unwrap();
    let folder = std::env::temp_dir();
    let folder = folder.to_str().unwrap();
    let read_only =
        std::env::temp_dir().join(format!("lokizero-read-only-{}.jsonl", std::process::id()));
    std::fs::write(&read_only, "kept\n").unwrap();
    let mut permissions = std::fs::metadata(&read_only).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&read_only, permissions).unwrap();
    let read_only_str = read_only.to_str().unwrap();
    let cases: [(&[&str], &str); 21] = [
        (
            &["match", "random", "random", "--games", "1000001"],
            "--games must be 1 to 1000000",
        ),
        (
            &["bench", "--variant", "shakti", "--config", losers_config],
            "config for variant losers, not shakti",
        ),
        (
            &["bench", "--variant", "shakti", "--workers", "0"],
            "--workers",
        ),
        (
            &["bench", "--variant", "shakti", "--batches", "0"],
            "--batches",
        ),
        (
            &["bench", "--variant", "shakti", "--what", "net,bogus"],
            "unknown measurement \"bogus\"",
        ),
        (
            &["play", "--model", shakti, "--vs", "randm"],
            "neither `random` nor a bundle",
        ),
        (
            &["play", "--model", shakti, "--contempt", "inf"],
            "--contempt",
        ),
        (
            &["play", "--model", shakti, "--policy-temperature", "inf"],
            "policy_temperature must be finite and > 0, got inf",
        ),
        (&["play", "--model", shakti, "--ply-cap", "0"], "--ply-cap"),
        (
            &["play", "--model", shakti, "--device", "gpu"],
            "this build has no GPU backend: rebuild with `--features wgpu`",
        ),
        (
            &["match", &bundle_zero, "random"],
            "\": bad search budget `0`: expected N > 0 nodes, Nms or Ns",
        ),
        (
            &[
                "ladder",
                "random",
                "greedy",
                "random",
                "--variant",
                "shakti",
                "--out",
                never_str,
            ],
            "player \"random\" is named twice",
        ),
        // Refused before any game is played, not after all of them.
        (
            &[
                "match",
                "random",
                "greedy",
                "--variant",
                "shakti",
                "--pgn",
                "/nonexistent-dir/x.pgn",
            ],
            "folder /nonexistent-dir does not exist",
        ),
        (
            &[
                "match",
                "random",
                "greedy",
                "--variant",
                "shakti",
                "--pgn",
                folder,
            ],
            "is a folder, not a file",
        ),
        (
            &[
                "match",
                "random",
                "greedy",
                "--variant",
                "shakti",
                "--pgn",
                "no-such-dir/",
            ],
            "ends in `/`, so it names a folder",
        ),
        (
            &[
                "match",
                "random",
                "greedy",
                "--variant",
                "shakti",
                "--journal",
                "no-such-dir/deeper/",
            ],
            "ends in `/`, so it names a folder",
        ),
        (
            &[
                "match",
                "random",
                "greedy",
                "--variant",
                "shakti",
                "--journal",
                read_only_str,
            ],
            "the file is read-only",
        ),
        (
            &[
                "match",
                "random",
                "greedy",
                "--variant",
                "losers",
                "--openings",
                bad_book,
            ],
            ".txt: line 3: ",
        ),
        (
            &[
                "match",
                "random",
                "greedy",
                "--variant",
                "losers",
                "--openings",
                "/nonexistent-dir/book.txt",
            ],
            "reading --openings /nonexistent-dir/book.txt",
        ),
        // A UCI engine that cannot start is an error before the first
        // game, not a match won by forfeits with exit status 0.
        (
            &[
                "match",
                "random",
                "uci:/nonexistent-dir/engine:d1",
                "--variant",
                "losers",
            ],
            "cannot start UCI engine /nonexistent-dir/engine",
        ),
        // Refused, not ignored: a store run's workers have no book file.
        (
            &["train", "--config", book_config, "--store", store],
            "branch_book is not supported with --store",
        ),
    ];
    // Numbers that are not plain digits are refused by the command line
    // parser itself, with its usage-error status 2.
    for args in [
        &["bench", "--variant", "shakti", "--seconds", "nan"][..],
        &[
            "match",
            "random",
            "greedy",
            "--variant",
            "losers",
            "--games",
            "+2",
        ],
        &["train", "--config", book_config, "--cpu-budget", "1e3"],
    ] {
        let out = lokizero(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("plain digits"), "{args:?}: {err}");
    }
    for (args, expected) in cases {
        let out = lokizero(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The read-only journal was neither replaced nor changed.
    assert_eq!(std::fs::read_to_string(&read_only).unwrap(), "kept\n");
    std::fs::remove_file(&read_only).unwrap();
    // A budget out of range or an unknown device is refused while the
    // arguments are parsed (clap's usage error, exit code 2), by every
    // command alike.
    for args in [
        &["play", "--model", shakti, "--nodes", "0"][..],
        &[
            "match",
            "random",
            "random",
            "--variant",
            "shakti",
            "--movetime",
            "0ms",
        ],
        &["analyse", "--movetime", "400"],
        &[
            "match",
            "random",
            "greedy",
            "--variant",
            "shakti",
            "--nodes",
            "0",
        ],
        &[
            "train",
            "--config",
            config,
            "--run-dir",
            never_str,
            "--selfplay-device",
            "tpu",
        ],
    ] {
        let out = lokizero(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        let named = ["--nodes", "--movetime", "--selfplay-device"];
        assert!(named.iter().any(|n| err.contains(n)), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(
        !never.exists(),
        "a refused train must not create its run directory"
    );
    assert!(
        !Path::new(store).exists(),
        "a refused store run must not create its store"
    );
    std::fs::remove_file(bad_book).ok();
}

/// A match journal: a match stopped after some games and run again with
/// the same journal plays only the rest and ends as the whole match would;
/// a journal of another match, a file that is no journal and a damaged
/// game line are refused naming the problem, and left as they were.
#[test]
fn a_match_journal_resumes_and_refuses_another_match() {
    let tmp = tempfile::tempdir().unwrap();
    let journal = tmp.path().join("match.jsonl");
    let j = journal.to_str().unwrap();
    // `random` against `greedy` on shakti, with the journal or without.
    let run = |seed: &str, games: &str, with_journal: bool| {
        let mut args = vec!["match", "random", "greedy", "--variant", "shakti", "--json"];
        args.extend(["--seed", seed, "--games", games]);
        if with_journal {
            args.extend(["--journal", j]);
        }
        lokizero(&args)
    };
    let summary = |out: &Output| -> serde_json::Value {
        assert!(out.status.success(), "{}", stderr(out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // Refused, saying `text`, the journal as it was.
    let refused = |out: &Output, text: &str, journal_before: &[u8]| {
        assert!(!out.status.success());
        assert!(stderr(out).contains(text), "{}", stderr(out));
        assert_eq!(std::fs::read(&journal).unwrap(), journal_before);
    };
    let whole = summary(&run("3", "8", false));
    // Four games, then the match of eight resumed from the journal.
    let first = summary(&run("3", "4", true));
    assert_eq!(first["games"], 4);
    assert_eq!(
        std::fs::read_to_string(&journal).unwrap().lines().count(),
        5
    );
    // Then the complete match run again: nothing played, the same result.
    for played in [4, 8] {
        let out = run("3", "8", true);
        let resuming = format!("resuming: {played} games already played");
        assert!(stderr(&out).contains(&resuming), "{}", stderr(&out));
        let resumed = summary(&out);
        for key in ["games", "wins", "draws", "losses", "as_first", "as_second"] {
            assert_eq!(resumed[key], whole[key], "{key}");
        }
    }
    // Another seed: another match.
    let before = std::fs::read(&journal).unwrap();
    let another = "is the journal of another match (seed is 3 there, 4 here)";
    refused(&run("4", "8", true), another, &before);
    // A damaged game line is named.
    let text = String::from_utf8(before).unwrap();
    let mut damaged: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    damaged.push_str("{\"index\": 7\n");
    std::fs::write(&journal, &damaged).unwrap();
    let line = "line 4: not a game of a match journal";
    refused(&run("3", "8", true), line, damaged.as_bytes());
    // Not a journal at all.
    std::fs::write(&journal, "[1, 2]\n").unwrap();
    refused(&run("3", "8", true), "not a match journal", b"[1, 2]\n");
    // The records file is another file, also under another spelling or
    // through a link.
    let spelled = tmp.path().join(".").join("match.jsonl");
    let link = tmp.path().join("link.txt");
    std::os::unix::fs::symlink(&journal, &link).unwrap();
    for pgn in [j, spelled.to_str().unwrap(), link.to_str().unwrap()] {
        let args = ["match", "random", "greedy", "--variant", "shakti"];
        let out = lokizero(&[&args[..], &["--journal", j, "--pgn", pgn]].concat());
        refused(&out, "--journal and --pgn name the same file", b"[1, 2]\n");
    }
}

/// A journal keys on the players as they play: the same bundle spelled
/// another way (its budget from `--nodes` or from the spec, its precision
/// stated or the default, int8, its path with a trailing `/`) resumes the
/// journal; another budget is another match, and other weights at the same
/// path are another player.
#[test]
fn a_match_journal_knows_one_player_under_two_spellings() {
    let tmp = tempfile::tempdir().unwrap();
    let journal = tmp.path().join("match.jsonl");
    let j = journal.to_str().unwrap();
    let shakti = format!("bundle:{}/../../models/shakti", env!("CARGO_MANIFEST_DIR"));
    let run = |a: &str, games: &str, extra: &[&str]| {
        let mut args = vec!["match", a, "random", "--seed", "5", "--games", games];
        args.extend(["--journal", j]);
        args.extend(extra);
        lokizero(&args)
    };
    let out = run(&shakti, "2", &["--nodes", "8"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&format!("{shakti}/:8:int8"), "4", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("resuming: 2 games already played"),
        "{}",
        stderr(&out)
    );
    let before = std::fs::read(&journal).unwrap();
    let out = run(&format!("{shakti}:9"), "6", &[]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("player A's budget is \"8\" there, \"9\" here"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&journal).unwrap(), before);
    // Other weights at the same path: the copy of the bundle with one byte
    // of its weights changed.
    let copy = tmp.path().join("shakti");
    std::fs::create_dir(&copy).unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/shakti");
    for name in ["model.json", "model.safetensors"] {
        std::fs::copy(shipped.join(name), copy.join(name)).unwrap();
    }
    let out = run(&format!("bundle:{}:8", copy.display()), "4", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let weights = copy.join("model.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&weights, bytes).unwrap();
    let meta = copy.join("model.json");
    let text = std::fs::read_to_string(&meta).unwrap();
    let old_sha = serde_json::from_str::<serde_json::Value>(&text).unwrap()["weights_sha256"]
        .as_str()
        .unwrap()
        .to_string();
    let sum = Command::new("sha256sum").arg(&weights).output().unwrap();
    let new_sha = String::from_utf8_lossy(&sum.stdout)[..64].to_string();
    std::fs::write(&meta, text.replace(&old_sha, &new_sha)).unwrap();
    let out = run(&format!("bundle:{}:8", copy.display()), "6", &[]);
    assert!(!out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is the journal of another match (player A is \"bundle with weights"),
        "{}",
        stderr(&out)
    );
}

/// A bundle spec with a suffix no bundle spec has (`models/losers:abc`)
/// names the suffix, before anything else reads the path.
#[test]
fn an_unknown_bundle_suffix_is_named_by_match() {
    let spec = format!(
        "bundle:{}/../../models/losers:abc",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = lokizero(&["match", &spec, "random", "--games", "2"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("\"abc\" is not a bundle suffix"),
        "{}",
        stderr(&out)
    );
}
