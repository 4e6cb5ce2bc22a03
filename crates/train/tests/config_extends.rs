//! Configs that state only their difference: `extends` chains merged key
//! by key, `--set` overrides after them, and errors that name the key and
//! the file or argument that set it.

use std::path::{Path, PathBuf};

use train::config::{ConfigError, ConfigOverride, RunConfig};

/// Write `text` to `dir/name` (creating folders) and return the path.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn sets(args: &[&str]) -> Vec<ConfigOverride> {
    args.iter().map(|a| a.parse().unwrap()).collect()
}

fn load_err(path: &Path, overrides: &[&str]) -> String {
    match RunConfig::load_with_overrides(path, &sets(overrides)) {
        Ok(c) => panic!("accepted: {c:?}"),
        Err(e) => e.to_string(),
    }
}

const BASE: &str = r#"
variant = "losers"
generations = 10
seed = 1

[network]
blocks = 3
filters = 32

[search]
c_puct = 1.25
dirichlet_alpha = 0.3

[selfplay]
games_per_generation = 128
simulations = 128

[training]
lr_schedule = [[0, 0.002], [30, 0.001]]
"#;

#[test]
fn a_two_level_chain_and_set_resolve_to_the_whole_config() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "base.toml", BASE);
    write(
        tmp.path(),
        "mid.toml",
        "extends = \"base.toml\"\ngenerations = 20\n[search]\nc_puct = 2.0\n\
         [training]\nlr_schedule = [[0, 0.001]]\n",
    );
    // A child in another folder: its `extends` is relative to itself.
    let child = write(
        tmp.path(),
        "experiments/child.toml",
        "# one line of intent\nextends = \"../mid.toml\"\n[network]\nfilters = 48\n\
         [eval]\nenabled = true\n\
         sprt = { elo0 = 0.0, elo1 = 30.0, alpha = 0.05, beta = 0.05 }\n",
    );
    let overrides = sets(&[
        "selfplay.games_per_generation=64",
        "search.c_puct=1.5",
        "seed=7",
        "selfplay.branch_book=configs/books/losers-endgames.txt",
        "selfplay.branch_fraction=0.25",
        "eval.sprt={ alpha = 0.1 }",
    ]);
    let resolved = RunConfig::load_with_overrides(&child, &overrides).unwrap();
    let whole = r#"
variant = "losers"
generations = 20
seed = 7

[network]
blocks = 3
filters = 48

[search]
c_puct = 1.5
dirichlet_alpha = 0.3

[selfplay]
games_per_generation = 64
simulations = 128
branch_book = "configs/books/losers-endgames.txt"
branch_fraction = 0.25

[training]
lr_schedule = [[0, 0.001]]

[eval]
enabled = true
sprt = { elo0 = 0.0, elo1 = 30.0, alpha = 0.1, beta = 0.05 }
"#;
    assert_eq!(resolved, RunConfig::from_toml(whole, "whole").unwrap());
    // Without overrides: the chain alone.
    let chain = RunConfig::load(&child).unwrap();
    assert_eq!((chain.seed, chain.search.c_puct), (1, 2.0));
    assert_eq!(chain.selfplay.games_per_generation, 128);
    // What a run records (its config.toml) loads back as the same config
    // without the files it came from.
    let recorded = toml::to_string(&resolved).unwrap();
    assert!(!recorded.contains("extends"), "{recorded}");
    assert_eq!(
        RunConfig::from_toml(&recorded, "recorded").unwrap(),
        resolved
    );
}

#[test]
fn set_values_are_toml_or_else_text() {
    let o: ConfigOverride = "search.c_puct = 1.5".parse().unwrap();
    assert_eq!(
        (o.key(), o.value()),
        ("search.c_puct".to_owned(), &toml::Value::Float(1.5))
    );
    let o: ConfigOverride = "a.b=\"x y\"".parse().unwrap();
    assert_eq!(o.value(), &toml::Value::String("x y".into()));
    let o: ConfigOverride = "a.b=x/y.txt".parse().unwrap();
    assert_eq!(o.value(), &toml::Value::String("x/y.txt".into()));
    let o: ConfigOverride = "training.augment=false".parse().unwrap();
    assert_eq!(o.value(), &toml::Value::Boolean(false));
    for (bad, says) in [
        ("seed", "expected KEY=VALUE"),
        ("=3", "KEY must be"),
        ("search..c_puct=1", "KEY must be"),
        ("search.c puct=1", "KEY must be"),
        ("extends=base.toml", "--config"),
    ] {
        let e = bad.parse::<ConfigOverride>().unwrap_err();
        assert!(matches!(e, ConfigError::Override { .. }), "{bad}: {e:?}");
        let e = e.to_string();
        assert!(e.starts_with(&format!("invalid --set {bad}: ")), "{e}");
        assert!(e.contains(says), "{bad}: {e}");
    }
}

#[test]
fn bad_keys_and_types_name_the_key_and_the_file_or_argument() {
    let tmp = tempfile::tempdir().unwrap();
    let base = write(
        tmp.path(),
        "base.toml",
        &format!("{BASE}\n[selfplay.extra]\nx = 1\n"),
    );
    let child = write(tmp.path(), "child.toml", "extends = \"base.toml\"\n");
    // An unknown key in the base: the base is named, with the file it was
    // read for.
    let e = load_err(&child, &[]);
    assert!(
        e.starts_with(&format!(
            "invalid config {} (a base of {}): selfplay.extra: unknown field `extra`",
            base.display(),
            child.display()
        )),
        "{e}"
    );

    std::fs::write(&base, BASE).unwrap();
    // An unknown key in the child.
    std::fs::write(
        &child,
        "extends = \"base.toml\"\n[training]\nbatchsize = 3\n",
    )
    .unwrap();
    let e = load_err(&child, &[]);
    assert!(
        e.starts_with(&format!(
            "invalid config {}: training.batchsize: unknown field `batchsize`",
            child.display()
        )),
        "{e}"
    );
    // A wrong type in the child.
    std::fs::write(
        &child,
        "extends = \"base.toml\"\n[network]\nblocks = \"four\"\n",
    )
    .unwrap();
    let e = load_err(&child, &[]);
    assert!(
        e.starts_with(&format!(
            "invalid config {}: network.blocks: invalid type: string \"four\"",
            child.display()
        )),
        "{e}"
    );
    // A wrong type, an unknown key and a range from --set name the
    // argument.
    std::fs::write(&child, "extends = \"base.toml\"\n").unwrap();
    let e = load_err(&child, &["selfplay.games_per_generation=many"]);
    assert!(
        e.starts_with(
            "invalid config --set selfplay.games_per_generation=many: \
             selfplay.games_per_generation: invalid type: string \"many\""
        ),
        "{e}"
    );
    let e = load_err(&child, &["selfplay.games=64"]);
    assert!(
        e.starts_with(
            "invalid config --set selfplay.games=64: selfplay.games: unknown field `games`"
        ),
        "{e}"
    );
    let e = load_err(&child, &["search.c_puct=-1"]);
    assert_eq!(
        e,
        "invalid config --set search.c_puct=-1: search.c_puct must be finite and > 0, got -1"
    );
    let e = load_err(&child, &["seed.x=1"]);
    assert!(
        e.starts_with("invalid config --set seed.x=1: seed: invalid type"),
        "{e}"
    );
    // A range error in the base names the base.
    std::fs::write(&base, format!("{BASE}\n[eval]\nconcurrency = 0\n")).unwrap();
    let e = load_err(&child, &[]);
    assert_eq!(
        e,
        format!(
            "invalid config {} (a base of {}): eval.concurrency must be in 1..=256",
            base.display(),
            child.display()
        )
    );
    // A missing required key names the loaded file.
    std::fs::write(&base, "generations = 2\n").unwrap();
    let e = load_err(&child, &[]);
    assert_eq!(
        e,
        format!(
            "invalid config {}: missing field `variant`",
            child.display()
        )
    );
    // `extends` that is not a path.
    std::fs::write(&child, "extends = 3\n").unwrap();
    let e = load_err(&child, &[]);
    assert!(
        e.starts_with(&format!(
            "invalid config {}: extends: must be a string",
            child.display()
        )),
        "{e}"
    );
}

#[test]
fn a_missing_base_names_both_files() {
    let tmp = tempfile::tempdir().unwrap();
    let child = write(
        tmp.path(),
        "experiments/child.toml",
        "extends = \"../nowhere.toml\"\n",
    );
    let e = RunConfig::load(&child).unwrap_err();
    assert!(matches!(e, ConfigError::Base { .. }), "{e:?}");
    let e = e.to_string();
    let base = tmp.path().join("nowhere.toml");
    assert!(
        e.starts_with(&format!(
            "cannot read config {}, which {} extends: ",
            base.display(),
            child.display()
        )),
        "{e}"
    );
    // A missing base of a base names the file that extends it.
    let top = write(
        tmp.path(),
        "top.toml",
        "extends = \"experiments/child.toml\"\n",
    );
    let e = RunConfig::load(&top).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "cannot read config {}, which {} extends: ",
            base.display(),
            child.display()
        )),
        "{e}"
    );
}

#[test]
fn an_extends_cycle_names_the_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.toml", "extends = \"sub/b.toml\"\n");
    let b = write(
        tmp.path(),
        "sub/b.toml",
        "extends = \"../a.toml\"\nseed = 3\n",
    );
    let e = RunConfig::load(&a).unwrap_err();
    assert!(matches!(e, ConfigError::Cycle { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        format!(
            "invalid config {}: `extends` cycle {} -> {} -> {}",
            a.display(),
            a.display(),
            b.display(),
            a.display()
        )
    );
    let me = write(tmp.path(), "me.toml", "extends = \"me.toml\"\n");
    let e = RunConfig::load(&me).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "invalid config {}: `extends` cycle {} -> {}",
            me.display(),
            me.display(),
            me.display()
        )
    );
}

#[test]
fn text_without_a_file_cannot_extend() {
    let e = RunConfig::from_toml("extends = \"base.toml\"\n", "store/config.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("invalid config store/config.toml: extends: "),
        "{e}"
    );
}
