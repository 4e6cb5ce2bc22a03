//! `scripts/release.sh` with the test's binary: the release folder holds
//! the binary archive, every shipped bundle as an installable archive and
//! as ONNX, the notes from CHANGELOG.md and checksums that verify; the
//! unpacked binary finds the bundles packed beside it.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn release_script_builds_a_verified_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg(repo().join("scripts/release.sh"))
        .arg(tmp.path())
        .env("LOKIZERO_BIN", BIN)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    let version = env!("CARGO_PKG_VERSION");
    let dir = tmp.path().join(format!("lokizero-{version}"));
    for variant in rules::VariantId::ALL {
        assert!(
            dir.join(format!("bundles/{variant}.tar.gz")).is_file(),
            "{said}"
        );
        assert!(dir.join(format!("onnx/{variant}.onnx")).is_file(), "{said}");
    }
    let notes = std::fs::read_to_string(dir.join("NOTES.md")).unwrap();
    assert!(notes.starts_with("## ["), "{notes}");
    let check = Command::new("sha256sum")
        .args(["-c", "--quiet", "SHA256SUMS"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let sums = std::fs::read_to_string(dir.join("SHA256SUMS")).unwrap();
    // NOTES.md, a bundle and an ONNX model per variant, the binary archive.
    let variants = rules::VariantId::ALL.len();
    assert_eq!(sums.lines().count(), 1 + 2 * variants + 1, "{sums}");

    // The binary archive unpacked: its lokizero finds the bundles in
    // share/lokizero/models beside it.
    let archive = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "gz"))
        .expect("the binary archive");
    let unpacked = tmp.path().join("unpacked");
    std::fs::create_dir_all(&unpacked).unwrap();
    let tar = Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(&unpacked)
        .status()
        .unwrap();
    assert!(tar.success());
    let top = std::fs::read_dir(&unpacked)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let home = tmp.path().join("home");
    let list = Command::new(top.join("bin/lokizero"))
        .arg("models")
        .current_dir(tmp.path())
        .env("HOME", &home)
        .env_remove("XDG_DATA_HOME")
        .env_remove("LOKIZERO_MODELS")
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    for variant in rules::VariantId::ALL {
        let line = list
            .lines()
            .find(|l| l.starts_with(variant.as_str()))
            .unwrap_or_else(|| panic!("{list}"));
        assert!(line.contains("share/lokizero/models"), "{list}");
    }
}
