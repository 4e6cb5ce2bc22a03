//! Bad run configs: unknown keys, wrong types and out-of-range
//! values in every table are errors that name the file and the key; the
//! config file itself is never modified by loading it.

use train::config::{ConfigError, RunConfig};

const OK: &str = "variant = \"shakti\"\ngenerations = 2\n";

fn err(text: &str) -> String {
    match RunConfig::from_toml(text, "cfg.toml") {
        Ok(c) => panic!("accepted: {c:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn unknown_keys_are_named_in_every_table() {
    for (table, key) in [
        ("", "generation"),
        ("[network]\n", "filter"),
        ("[search]\n", "cpuct"),
        ("[selfplay]\n", "games"),
        ("[training]\n", "batchsize"),
    ] {
        let e = err(&format!("{OK}{table}{key} = 1\n"));
        assert!(e.starts_with("invalid config cfg.toml: "), "{e}");
        assert!(e.contains(&format!("unknown field `{key}`")), "{e}");
    }
    let e = err(&format!("{OK}[nework]\nblocks = 1\n"));
    assert!(e.contains("unknown field `nework`"), "{e}");
}

#[test]
fn wrong_types_are_named() {
    for (text, key) in [
        (
            "variant = \"shakti\"\ngenerations = \"two\"\n",
            "generations",
        ),
        ("variant = 3\ngenerations = 2\n", "variant"),
        (&format!("{OK}[network]\nblocks = 1.5\n") as &str, "blocks"),
        (&format!("{OK}[training]\naugment = \"yes\"\n"), "augment"),
        (
            &format!("{OK}[training]\nlr_schedule = 0.1\n"),
            "lr_schedule",
        ),
        (
            &format!("{OK}[selfplay]\nsimulations = -4\n"),
            "simulations",
        ),
    ] {
        let e = err(text);
        assert!(e.starts_with("invalid config cfg.toml: "), "{e}");
        assert!(e.contains(key), "{key}: {e}");
    }
}

#[test]
fn out_of_range_values_are_named() {
    let cases = [
        ("generations = 0", "", "generations must be in 1..=100000"),
        (
            "",
            "[network]\nfilters = 0",
            "network.filters must be in 1..=1024",
        ),
        ("", "[network]\nblocks = 65", "network.blocks must be <= 64"),
        (
            "",
            "[training]\nbatch_size = 0",
            "training.batch_size must be in 1..=65536",
        ),
        (
            "",
            "[training]\nsample_reuse = nan",
            "training.sample_reuse must be finite and > 0",
        ),
        (
            "",
            "[training]\nsample_reuse = inf",
            "training.sample_reuse must be finite and > 0",
        ),
        (
            "",
            "[search]\npolicy_temperature = inf",
            "search.policy_temperature must be finite and > 0, got inf",
        ),
        (
            "",
            "[training]\nlr_schedule = [[0, 20.0]]",
            "training.lr_schedule needs at least one [generation, lr] with 0 < lr < 10",
        ),
        (
            "",
            "[training]\nreplay_window = 0",
            "training.replay_window must be >= 1",
        ),
        (
            "",
            "[selfplay]\nply_cap = 0",
            "selfplay.ply_cap must be >= 1",
        ),
        (
            "",
            "[search]\nc_puct = -1.0",
            "search.c_puct must be finite and > 0, got -1",
        ),
    ];
    for (top, table, message) in cases {
        let text = if top.is_empty() {
            format!("{OK}{table}\n")
        } else {
            format!("variant = \"shakti\"\n{top}\n{table}\n")
        };
        match RunConfig::from_toml(&text, "cfg.toml") {
            Err(ConfigError::Range { path, source }) => {
                assert_eq!(path, "cfg.toml");
                assert_eq!(source.to_string(), message);
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn syntax_errors_and_missing_files_are_clear_and_files_untouched() {
    let e = err("variant = \"shakti\"\ngenerations = [\n");
    assert!(e.starts_with("invalid config cfg.toml: "), "{e}");
    let e = err("generations = 2\n");
    assert!(e.contains("missing field `variant`"), "{e}");

    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("bad.toml");
    let text = format!("{OK}[training]\nbatch_size = 0\n");
    std::fs::write(&path, &text).unwrap();
    let e = RunConfig::load(&path).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "invalid config {}: training.batch_size must be in 1..=65536",
            path.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    let missing = tmp.path().join("missing.toml");
    let e = RunConfig::load(&missing).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("cannot read config {}: ", missing.display())),
        "{e}"
    );
}
