//! Two checks of the source layout. No two source files of a crate import
//! each other: a module that needs
//! another's items and is needed by it is one concept in two files (or a
//! third concept that wants its own file). Imports are the `crate::`,
//! `super::` and `self::` paths in code (comments, doc links and test
//! modules do not count); a file's use of its ancestors' re-exports does
//! not count either. And no library or binary source returns a bare
//! message as its error (`Result<_, String>`): errors have kinds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path of `file` under `src` (`run/report.rs` -> `run::report`,
/// `run/mod.rs` -> `run`, `lib.rs` -> the root).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file
        .strip_prefix(src)
        .expect("under src")
        .with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without comments and without its `#[cfg(test)] mod
/// tests` block (which, at the end of a file, runs to the end).
fn code_of(text: &str) -> String {
    let text = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |i| &text[..i]);
    text.lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path in `code` that starts at `crate`, `super` or `self`, with the
/// items of `use x::{a::b, c}` groups expanded, as segment lists.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut i = 0;
    while i < bytes.len() {
        let at_word = i == 0 || !ident(bytes[i - 1]);
        let rest: String = bytes[i..bytes.len().min(i + 6)].iter().collect();
        let root = ["crate", "super", "self"]
            .into_iter()
            .find(|r| rest.starts_with(r) && bytes.get(i + r.len()) == Some(&':'));
        let Some(root) = root.filter(|_| at_word) else {
            i += 1;
            continue;
        };
        // Read `root::a::b` and an optional `::{...}` group.
        let mut j = i + root.len();
        let mut segs = vec![root.to_string()];
        loop {
            if bytes.get(j) == Some(&':') && bytes.get(j + 1) == Some(&':') {
                j += 2;
                if bytes.get(j) == Some(&'{') {
                    let close = (j..bytes.len()).find(|&k| bytes[k] == '}').unwrap_or(j);
                    let group: String = bytes[j + 1..close].iter().collect();
                    for item in group.split(',') {
                        let item = item.trim();
                        if !item.is_empty() {
                            let mut p = segs.clone();
                            p.extend(item.split("::").map(|s| s.trim().to_string()));
                            out.push(p);
                        }
                    }
                    j = close;
                    segs.clear();
                    break;
                }
                let start = j;
                while j < bytes.len() && ident(bytes[j]) {
                    j += 1;
                }
                segs.push(bytes[start..j].iter().collect());
            } else {
                break;
            }
        }
        if !segs.is_empty() {
            out.push(segs);
        }
        i = j.max(i + 1);
    }
    out
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut pairs = Vec::new();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates folder")
        .map(|e| e.expect("entry").path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    crates.sort();
    assert!(crates.len() >= 10, "found {} crates", crates.len());
    for src in crates {
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let modules: BTreeMap<Vec<String>, PathBuf> = files
            .iter()
            .map(|f| (module_of(&src, f), f.clone()))
            .collect();
        let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (module, file) in &modules {
            let code = code_of(&std::fs::read_to_string(file).expect("readable"));
            for path in paths_in(&code) {
                let mut full: Vec<String> = Vec::new();
                let mut rest = &path[..];
                if rest[0] == "crate" {
                    rest = &rest[1..];
                } else {
                    full = module.clone();
                    while let Some(first) = rest.first() {
                        match first.as_str() {
                            "super" => {
                                full.pop();
                            }
                            "self" => {}
                            _ => break,
                        }
                        rest = &rest[1..];
                    }
                }
                full.extend(rest.iter().cloned());
                let target = (1..=full.len())
                    .rev()
                    .map(|n| full[..n].to_vec())
                    .find(|m| modules.contains_key(m));
                if let Some(t) = target {
                    let ancestor = t.len() <= module.len() && module[..t.len()] == t[..];
                    if !ancestor {
                        edges.entry(module.clone()).or_default().insert(t);
                    }
                }
            }
        }
        for (a, targets) in &edges {
            for b in targets {
                if a < b && edges.get(b).is_some_and(|t| t.contains(a)) {
                    pairs.push(format!(
                        "{}: {} <-> {}",
                        src.display(),
                        a.join("::"),
                        b.join("::")
                    ));
                }
            }
        }
    }
    assert!(
        pairs.is_empty(),
        "files that import each other:\n{}",
        pairs.join("\n")
    );
}

#[test]
fn the_path_reader_sees_groups_and_relative_paths() {
    let paths = paths_in("use crate::{a::X, b};\nlet y = super::c::d(); self::e::F");
    assert_eq!(
        paths,
        vec![
            vec!["crate", "a", "X"],
            vec!["crate", "b"],
            vec!["super", "c", "d"],
            vec!["self", "e", "F"],
        ]
        .into_iter()
        .map(|p| p.into_iter().map(String::from).collect::<Vec<_>>())
        .collect::<Vec<_>>()
    );
}

#[test]
fn no_result_with_a_string_error_in_crate_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    for file in files.iter().filter(|f| {
        let text = f.to_string_lossy();
        text.contains("/src/") && !text.contains("node_modules")
    }) {
        let code = code_of(&std::fs::read_to_string(file).expect("readable"));
        for (n, line) in code.lines().enumerate() {
            let bare = line.find("Result<").is_some_and(|i| {
                let tail = &line[i..];
                tail.contains(", String>") && !tail.contains("Result<Result")
            });
            if bare {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "Result<_, String> in:\n{}",
        found.join("\n")
    );
}
