//! One source of strength: the README's table of shipped bots and
//! `docs/models.md` show the records of each bundle's `model.json`
//! (`strength.matches` and `lineage`), and nothing else. The README's
//! headline cell is the line the web lab's `/api/variants` reports
//! (`serve::catalog::strength_line`, checked against the service in
//! `crates/serve/tests/api.rs`). A figure edited by hand in either page,
//! or a bundle shipped without updating them, fails here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The shipped variants (folders of `models/` with a `model.json`), sorted.
fn shipped() -> Vec<String> {
    let mut variants: Vec<String> = std::fs::read_dir(root().join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("model.json").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    variants.sort();
    variants
}

fn meta(variant: &str) -> Value {
    serde_json::from_str(&read(&format!("models/{variant}/model.json"))).unwrap()
}

fn count(m: &Value, key: &str) -> u64 {
    m[key].as_u64().unwrap_or_else(|| panic!("no {key} in {m}"))
}

/// `+W =D -L` of a match record or promotion.
fn wdl(m: &Value) -> String {
    format!(
        "+{} ={} -{}",
        count(m, "wins"),
        count(m, "draws"),
        count(m, "losses")
    )
}

fn matches(meta: &Value) -> &Vec<Value> {
    meta["strength"]["matches"]
        .as_array()
        .expect("strength.matches")
}

fn promotion(meta: &Value) -> &Value {
    &meta["lineage"]["promoted_by"]
}

/// The README's promotion cell: the SPRT that replaced the previous
/// bundle, or, for a variant's first bundle (nothing replaced, no
/// `promoted_by`), the words saying so.
fn promotion_cell(meta: &Value) -> String {
    let p = promotion(meta);
    if p.is_null() {
        return FIRST_BUNDLE.to_string();
    }
    format!(
        "{} in {} games against generation {}",
        wdl(p),
        p["games"],
        p["replaced"]["generation"]
    )
}

/// The README's strongest-opponent cell of a bundle without a record at
/// a time per move against an outside engine or `uct` given at least its
/// time.
const NONE_RECORDED: &str = "none recorded";

/// What the README and `docs/models.md` say of a bundle that replaced none.
const FIRST_BUNDLE: &str = "none: the variant's first bundle";

/// Every `+W =D -L` figure in `text` (markdown emphasis and punctuation
/// around the numbers ignored).
fn figures(text: &str) -> BTreeSet<String> {
    let tokens: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '|')
        .map(|t| t.trim_matches(|c: char| matches!(c, '*' | '`' | ',' | ';' | '(' | ')' | '.')))
        .filter(|t| !t.is_empty())
        .collect();
    let number = |t: &str, sign: char| {
        t.strip_prefix(sign)
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    tokens
        .windows(3)
        .filter(|w| number(w[0], '+') && number(w[1], '=') && number(w[2], '-'))
        .map(|w| w.join(" "))
        .collect()
}

/// The cells of a markdown table row.
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

/// The text of the section under `## heading` (to the next `## `).
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("no section `## {heading}`"))
        + 1;
    let end = text[start + 3..]
        .find("\n## ")
        .map_or(text.len(), |i| start + 3 + i);
    &text[start..end]
}

/// The variant named by a first cell such as `[losers](docs/models.md#losers)`.
fn variant_of(cell: &str) -> String {
    cell.trim_start_matches('[')
        .split(']')
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn the_readme_table_shows_each_model_json() {
    let readme = read("README.md");
    let table = section(&readme, "Shipped bots");
    let rows: Vec<Vec<String>> = table
        .lines()
        .filter(|l| l.starts_with("| ["))
        .map(cells)
        .collect();
    let listed: Vec<String> = {
        let mut v: Vec<String> = rows.iter().map(|r| variant_of(&r[0])).collect();
        v.sort();
        v
    };
    assert_eq!(listed, shipped(), "one README row per bundle in models/");
    for row in &rows {
        let v = variant_of(&row[0]);
        let m = meta(&v);
        let headline = serve::catalog::strength_line(&m["strength"]).expect("a headline record");
        let expected = [
            format!("[{v}](docs/models.md#{v})"),
            m["generation"].to_string(),
            format!("{} x {}", m["shape"]["blocks"], m["shape"]["filters"]),
            format!("{:.2}", m["lineage"]["cpu_hours"].as_f64().unwrap()),
            headline,
            serve::catalog::equal_time_line(&m["strength"])
                .unwrap_or_else(|| NONE_RECORDED.to_string()),
            promotion_cell(&m),
        ];
        assert_eq!(row[..], expected[..], "README row of {v}");
    }
}

#[test]
fn the_headline_is_the_first_match_against_a_fixed_opponent() {
    for v in shipped() {
        let m = meta(&v);
        let first_fixed = matches(&m)
            .iter()
            .find(|r| !r["b"].as_str().unwrap().starts_with("bundle:"))
            .unwrap_or_else(|| panic!("{v}: no record against a fixed opponent"));
        let headline = serve::catalog::headline_record(&m["strength"]).unwrap();
        assert_eq!(headline, first_fixed, "{v}");
        let line = serve::catalog::strength_line(&m["strength"]).unwrap();
        assert!(
            line.starts_with(&format!(
                "{} vs {} ({} games",
                wdl(headline),
                headline["b"].as_str().unwrap(),
                headline["games"]
            )),
            "{v}: {line}"
        );
    }
}

#[test]
fn models_md_shows_every_record_of_each_model_json_and_no_other() {
    let doc = read("docs/models.md");
    let summary = &doc[..doc.find("\n## ").unwrap()];
    let summary_rows: Vec<Vec<String>> = summary
        .lines()
        .filter(|l| l.starts_with("| ["))
        .map(cells)
        .collect();
    assert_eq!(
        summary_rows.len(),
        shipped().len(),
        "one summary row per bundle"
    );
    for v in shipped() {
        let m = meta(&v);
        let records = matches(&m);
        let p = promotion(&m);
        let cpu = format!("{:.2}", m["lineage"]["cpu_hours"].as_f64().unwrap());

        // The summary row.
        let headline = serve::catalog::headline_record(&m["strength"]).unwrap();
        let row = summary_rows
            .iter()
            .find(|r| variant_of(&r[0]) == v)
            .unwrap_or_else(|| panic!("no summary row for {v}"));
        let expected = [
            format!("[{v}](#{v})"),
            m["generation"].to_string(),
            format!("{} x {}", m["shape"]["blocks"], m["shape"]["filters"]),
            cpu.clone(),
            format!(
                "{} vs `{}`, {} games",
                wdl(headline),
                headline["b"].as_str().unwrap(),
                headline["games"]
            ),
        ];
        assert_eq!(row[..], expected[..], "summary row of {v}");

        // The bundle's section: its facts, and exactly its figures.
        let text = section(&doc, &v);
        assert!(
            text.contains(&format!("| generation | {} |", m["generation"])),
            "{v}: generation"
        );
        assert!(text.contains(&format!("{cpu} CPU-hours")), "{v}: CPU-hours");
        assert!(
            text.contains(&format!(
                "| weights sha256 | `{}` |",
                m["weights_sha256"].as_str().unwrap()
            )),
            "{v}: weights sha256"
        );
        let mut recorded: BTreeSet<String> = records
            .iter()
            .flat_map(|r| [wdl(r), wdl(&r["as_first"]), wdl(&r["as_second"])])
            .collect();
        if p.is_null() {
            assert!(
                text.contains(&format!("**Promotion**: {FIRST_BUNDLE}")),
                "{v}: a first bundle says so"
            );
        } else {
            recorded.insert(wdl(p));
            assert!(
                text.contains(&format!("in {} games", p["games"])),
                "{v}: promotion games"
            );
        }
        assert_eq!(figures(text), recorded, "{v}: figures in docs/models.md");

        // One table row per record, with its games and seed.
        let rows: Vec<Vec<String>> = text
            .lines()
            .filter(|l| l.starts_with("| ") && l.contains("**+"))
            .map(cells)
            .collect();
        assert_eq!(rows.len(), records.len(), "{v}: one row per record");
        for (i, (row, r)) in rows.iter().zip(records).enumerate() {
            let label = format!("{v} record {}", i + 1);
            assert!(row[0].starts_with(&(i + 1).to_string()), "{label}: {row:?}");
            assert_eq!(row[3], r["games"].to_string(), "{label}: games");
            assert_eq!(row[4], format!("**{}**", wdl(r)), "{label}: result");
            let sides = format!("{} / {}", wdl(&r["as_first"]), wdl(&r["as_second"]));
            assert_eq!(row[5], sides, "{label}: as first / as second");
            let seed = r["seed"]
                .as_u64()
                .map_or("not recorded".to_string(), |s| s.to_string());
            assert_eq!(row[9], seed, "{label}: seed");
            assert_eq!(
                row[0].contains("(headline)"),
                std::ptr::eq(r, headline),
                "{label}: headline mark"
            );
        }
    }
}

#[test]
fn the_figure_scanner_reads_markdown() {
    let found = figures("| **+28 =17 -15** | +12 =13 -5 / +16 =4 -10 | (+1 =0 -0), +2 =3");
    let expected: BTreeSet<String> = ["+28 =17 -15", "+12 =13 -5", "+16 =4 -10", "+1 =0 -0"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, expected);
}
