//! An installed `lokizero` finds its bots: a copy of the binary in a
//! folder outside the repository, run from there with an empty home, has
//! no bundle until `lokizero models install` copies one into the user's
//! models folder; then `lokizero uci` answers `go nodes 100` with it from
//! any directory, and `lokizero models` lists it. Broken archives and
//! bundles are refused without installing anything.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");

/// A binary installed in `root/bin`, run from `root/work` with `HOME` at
/// `root/home` and no XDG or LOKIZERO_MODELS variables.
struct Installed {
    bin: PathBuf,
    home: PathBuf,
    work: PathBuf,
}

impl Installed {
    fn new(root: &Path) -> Self {
        let bin_dir = root.join("bin");
        let (home, work) = (root.join("home"), root.join("work"));
        for dir in [&bin_dir, &home, &work] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let bin = bin_dir.join("lokizero");
        std::fs::copy(BIN, &bin).unwrap();
        Installed { bin, home, work }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.bin);
        cmd.args(args)
            .current_dir(&self.work)
            .env("HOME", &self.home)
            .env_remove("XDG_DATA_HOME")
            .env_remove("LOKIZERO_MODELS");
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        retry_busy(|| self.command(args).output())
    }

    /// `lokizero uci` fed `input`; its whole output.
    fn uci(&self, input: &str) -> Output {
        let mut child = retry_busy(|| {
            self.command(&["uci"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
        });
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    fn user_models(&self) -> PathBuf {
        self.home.join(".local/share/lokizero/models")
    }
}

/// `start()` again while it fails with "text file busy": the other test
/// of this file may be copying its binary when this one starts a process,
/// and a process forked meanwhile holds the copy's write handle until it
/// execs, which keeps the copy from being run for that moment.
fn retry_busy<T>(mut start: impl FnMut() -> std::io::Result<T>) -> T {
    for _ in 0..100 {
        match start() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other.unwrap(),
        }
    }
    start().unwrap()
}

fn repo_models() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn an_installed_binary_plays_the_installed_losers_bot_from_any_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let app = Installed::new(tmp.path());

    // Nothing installed yet: the bot says where it looked and what to do.
    let before = app.uci("uci\nsetoption name UCI_Variant value losers\nucinewgame\nisready\nposition startpos\ngo nodes 100\n");
    let said = text(&before);
    assert!(said.contains("bestmove (none)"), "{said}");
    assert!(said.contains("lokizero models install"), "{said}");

    // Install the shipped losers bundle from a gzip tar archive.
    let archive = tmp.path().join("losers.tar.gz");
    let tar = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(repo_models())
        .arg("losers")
        .status()
        .unwrap();
    assert!(tar.success());
    let install = app.run(&["models", "install", archive.to_str().unwrap()]);
    assert!(install.status.success(), "{}", text(&install));
    assert!(app.user_models().join("losers/model.json").is_file());

    // Now the bot plays from the work folder (no models/ anywhere near).
    let after = app.uci("uci\nsetoption name UCI_Variant value losers\nucinewgame\nisready\nposition startpos\ngo nodes 100\n");
    let said = text(&after);
    let best = said
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove: {said}"));
    assert_eq!(best.trim().len(), 4, "{said}");
    assert!(said.contains("nodes 100"), "{said}");

    // `lokizero models` lists it, from the user data folder.
    let list = text(&app.run(&["models"]));
    let line = list
        .lines()
        .find(|l| l.starts_with("losers"))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(line.contains("user data folder"), "{list}");
    assert!(
        list.lines()
            .any(|l| l.starts_with("viking") && l.contains("none")),
        "{list}"
    );
}

#[test]
fn broken_archives_and_bundles_are_refused_and_nothing_is_installed() {
    let tmp = tempfile::tempdir().unwrap();
    let app = Installed::new(tmp.path());

    let junk = tmp.path().join("junk.tar.gz");
    std::fs::write(&junk, b"\x1f\x8bnot really gzip").unwrap();
    let out = app.run(&["models", "install", junk.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(text(&out).contains("junk.tar.gz"), "{}", text(&out));

    // A bundle whose weights do not match the sha256 of its model.json.
    let bad = tmp.path().join("bad/losers");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::copy(
        repo_models().join("losers/model.json"),
        bad.join("model.json"),
    )
    .unwrap();
    let mut weights = std::fs::read(repo_models().join("losers/model.safetensors")).unwrap();
    let last = weights.len() - 1;
    weights[last] ^= 0x40;
    std::fs::write(bad.join("model.safetensors"), weights).unwrap();
    let out = app.run(&["models", "install", bad.to_str().unwrap()]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("does not load"), "{}", text(&out));

    // An archive whose bundle is a link to a folder elsewhere.
    let linked = tmp.path().join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(repo_models().join("losers"), linked.join("losers")).unwrap();
    let link_tar = tmp.path().join("link.tar");
    let tar = Command::new("tar")
        .arg("-cf")
        .arg(&link_tar)
        .arg("-C")
        .arg(&linked)
        .arg("losers")
        .status()
        .unwrap();
    assert!(tar.success());
    let out = app.run(&["models", "install", link_tar.to_str().unwrap()]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("not a plain file or folder"),
        "{}",
        text(&out)
    );

    let missing = app.run(&["models", "install", "/nonexistent/bundle"]);
    assert!(!missing.status.success());
    assert!(text(&missing).contains("/nonexistent/bundle"));

    assert!(!app.user_models().join("losers").exists());
}
