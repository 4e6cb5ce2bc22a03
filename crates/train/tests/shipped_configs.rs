//! Every config shipped in `configs/` (and `configs/experiments/`) loads and
//! passes validation, so a typo in a key fails here, not an hour into a run.

use std::path::PathBuf;

use train::RunConfig;

fn configs() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let mut out = Vec::new();
    for dir in [root.clone(), root.join("experiments")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_shipped_config_loads() {
    let paths = configs();
    assert!(
        paths.iter().any(|p| p.ends_with("configs/shakti.toml")),
        "{paths:?}"
    );
    for path in &paths {
        let config = RunConfig::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let stem = path.file_stem().unwrap().to_str().unwrap();
        if !stem.starts_with("ab-") {
            let variant = stem.split('-').next().unwrap_or(stem);
            assert_eq!(config.variant.as_str(), variant, "{}", path.display());
        }
        if let Some(book) = &config.selfplay.branch_book {
            check_losers_book(path, book);
        }
    }
}

/// Every experiment config states only its difference: a comment line of
/// intent, then `extends` naming a variant's config or another
/// experiment, then keys that differ from what it extends.
#[test]
fn every_experiment_extends_a_base_and_states_its_intent() {
    for path in configs()
        .iter()
        .filter(|p| p.parent().unwrap().ends_with("experiments"))
    {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines = text.lines();
        let first = lines.next().unwrap_or("");
        assert!(
            first.starts_with("# ") && first.len() > 10,
            "{}: starts with a comment of intent",
            path.display()
        );
        let extends = lines
            .find(|l| !l.starts_with('#') && !l.trim().is_empty())
            .unwrap_or("");
        assert!(
            extends.starts_with("extends = \""),
            "{}: `extends` comes first, got {extends:?}",
            path.display()
        );
    }
}

/// Comments in the shipped configs say what a setting does and why, not
/// when it was found: no session, issue or round labels.
#[test]
fn config_comments_carry_no_history_labels() {
    let labels = ["session ", "sessions ", "issue ", "issue #", "round "];
    for path in configs() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let Some((_, comment)) = line.split_once('#') else {
                continue;
            };
            let comment = comment.to_lowercase();
            for label in labels {
                let numbered = comment.match_indices(label).any(|(i, _)| {
                    comment[i + label.len()..]
                        .trim_start_matches('#')
                        .starts_with(|c: char| c.is_ascii_digit())
                });
                assert!(
                    !numbered,
                    "{}:{}: history label in {line:?}",
                    path.display(),
                    n + 1
                );
            }
        }
    }
}

/// A shipped config's `branch_book` (a path relative to the repository
/// root, where runs start) exists and every line is a losers position
/// still in play (the one variant with a shipped book).
fn check_losers_book(config: &std::path::Path, book: &std::path::Path) {
    use rules::Game;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join(book))
        .unwrap_or_else(|e| panic!("{}: branch book {}: {e}", config.display(), book.display()));
    let positions = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    let mut count = 0;
    for line in positions {
        let game = rules::Losers::from_text(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(game.outcome().is_none(), "{line}: already over");
        count += 1;
    }
    assert_eq!(count, 4096, "{}", book.display());
}

/// Every book shipped in `configs/books/` (position files for
/// `[selfplay] branch_book` and `lokizero match --openings`) parses as
/// the variant its name starts with, with the number of positions its
/// header describes.
#[test]
fn every_shipped_book_parses() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs/books");
    let mut counts = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        assert!(
            name.starts_with("losers-"),
            "{name}: only losers books are shipped"
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let book = rules::book::parse_book::<rules::Losers>(&text)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        counts.push((name, book.len()));
    }
    counts.sort();
    let expected = [
        ("losers-capped-endgames.txt", 15),
        ("losers-endgames.txt", 4096),
        ("losers-won-endgames.txt", 30),
    ];
    let expected: Vec<(String, usize)> =
        expected.iter().map(|(n, c)| (n.to_string(), *c)).collect();
    assert_eq!(counts, expected);
}
