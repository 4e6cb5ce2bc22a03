//! `lokizero uci` driven through its real stdin/stdout: every command,
//! garbage input, `stop` during `go infinite`, time limits, wrong-variant
//! bundles, game over, and the default bundle lookup.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use rules::VariantId;

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");
/// Generous: the CI machine has two busy cores.
const SLOW: Duration = Duration::from_secs(20);

fn bundle(root: &Path, variant: VariantId) -> PathBuf {
    let dir = root.join(variant.as_str());
    bot::write_untrained_bundle(&dir, variant, 1, 8, 16, &burn::tensor::Device::flex()).unwrap();
    dir
}

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Everything read so far (for failure messages).
    log: Vec<String>,
}

impl Engine {
    fn start(args: &[&str], cwd: Option<&Path>) -> Engine {
        let mut cmd = Command::new(BIN);
        cmd.arg("uci")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(dir) = cwd {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().expect("start lokizero uci");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
            log: Vec::new(),
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.log.push(line.clone());
                    let done = line.starts_with(prefix);
                    got.push(line);
                    if done {
                        return got;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "no {prefix:?} within {timeout:?}; output so far: {:#?}",
                        self.log
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("engine exited before {prefix:?}; output: {:#?}", self.log)
                }
            }
        }
    }

    fn ready(&mut self) -> Vec<String> {
        self.send("isready");
        self.until("readyok", SLOW)
    }

    fn bestmove(&mut self, go: &str, timeout: Duration) -> (String, Vec<String>) {
        self.send(go);
        let lines = self.until("bestmove", timeout);
        let mv = lines.last().unwrap()["bestmove ".len()..].to_string();
        (mv, lines)
    }

    fn quit(mut self) {
        self.send("quit");
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "exit status {status}");
                return;
            }
            assert!(start.elapsed() < SLOW, "engine did not quit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn errors(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("info string error"))
        .collect()
}

/// The move is legal for `variant` after `moves` from the start.
fn legal_after(variant: VariantId, moves: &[&str], mv: &str) -> bool {
    let mut all: Vec<&str> = moves.to_vec();
    all.push(mv);
    bot::validate_position(variant, None, &all).is_ok()
}

#[test]
fn handshake_is_fast_and_complete() {
    let mut e = Engine::start(&["--variant", "losers"], None);
    let start = Instant::now();
    e.send("uci");
    let lines = e.until("uciok", SLOW);
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_secs(5), "uci took {elapsed:?}");
    assert!(lines[0].starts_with("id name lokizero"), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for expected in [
        "option name UCI_Variant type combo default losers var losers var viking var hnefatafl var loki var shakti var copenhagen var chess",
        "option name BundlePath type string default <empty>",
        "option name Threads type spin default 1 min 1 max 256",
        "option name Nodes type spin default 0 min 0 max 100000000",
        "option name Temperature type spin default 0 min 0 max 1000",
        "option name PolicyOnly type check default false",
        "option name Move Overhead type spin default 50 min 0 max 5000",
        "option name Contempt type spin default 0 min 0 max 99",
        "option name PolicyTemperature type spin default 160 min 1 max 1000",
    ] {
        assert!(lines.iter().any(|l| l == expected), "missing {expected:?} in {lines:#?}");
    }
    e.quit();
}

#[test]
fn plays_with_every_go_form() {
    let tmp = tempfile::tempdir().unwrap();
    let losers = bundle(tmp.path(), VariantId::Losers);
    let mut e = Engine::start(&[], None);
    e.send("uci");
    e.until("uciok", SLOW);
    e.send("setoption name UCI_Variant value losers");
    e.send(&format!(
        "setoption name BundlePath value {}",
        losers.display()
    ));
    let ready = e.ready();
    assert!(errors(&ready).is_empty(), "{ready:?}");
    e.send("ucinewgame");
    e.send("position startpos moves e2e4 d7d5");

    // go nodes N: exactly N root visits reported, a legal move.
    let (mv, lines) = e.bestmove("go nodes 32", SLOW);
    assert!(
        legal_after(VariantId::Losers, &["e2e4", "d7d5"], &mv),
        "{mv}"
    );
    assert_eq!(mv, "e4d5", "the only legal move is the capture");
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(
        info.contains(" nodes 1 "),
        "a forced move gets one evaluation: {info}"
    );

    e.send("position startpos moves e2e3");
    let (mv, lines) = e.bestmove("go nodes 32", SLOW);
    assert!(legal_after(VariantId::Losers, &["e2e3"], &mv), "{mv}");
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(info.contains(" nodes 32 "), "{info}");
    for field in [" score cp ", " wdl ", " nps ", " time ", " pv "] {
        assert!(info.contains(field), "{field} missing: {info}");
    }
    let wdl: Vec<u32> = info
        .split(" wdl ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .take(3)
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(wdl.iter().sum::<u32>(), 1000, "{info}");

    // depth N is a node budget.
    let (_, lines) = e.bestmove("go depth 5", SLOW);
    assert!(lines.iter().any(|l| l.contains(" nodes 5 ")), "{lines:?}");

    // movetime: a generous upper bound only.
    let start = Instant::now();
    let (mv, _) = e.bestmove("go movetime 300", SLOW);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert!(legal_after(VariantId::Losers, &["e2e3"], &mv));

    // Clock: never more than the time left.
    let start = Instant::now();
    let (mv, _) = e.bestmove("go wtime 2000 btime 2000 winc 100 binc 100", SLOW);
    assert!(
        start.elapsed() < Duration::from_millis(1900),
        "{:?}",
        start.elapsed()
    );
    assert!(legal_after(VariantId::Losers, &["e2e3"], &mv));
    // `movestogo 0` (sent by some GUIs) is sudden death.
    let (mv, lines) = e.bestmove("go wtime 1000 btime 1000 movestogo 0", SLOW);
    assert!(errors(&lines).is_empty(), "{lines:?}");
    assert!(legal_after(VariantId::Losers, &["e2e3"], &mv));

    // position fen + moves.
    e.send("position fen 4k3/8/8/8/4p3/8/3P4/4K3 w - - 0 1 moves d2d4");
    let (mv, _) = e.bestmove("go nodes 8", SLOW);
    assert_eq!(mv, "e4d3", "en passant is compulsory (docs/rules.md §1)");

    // Strength options.
    e.send("setoption name PolicyOnly value true");
    e.send("setoption name Temperature value 100");
    e.send("setoption name Nodes value 4");
    e.send("position startpos");
    let (mv, lines) = e.bestmove("go nodes 100", SLOW);
    assert!(legal_after(VariantId::Losers, &[], &mv));
    assert!(lines.iter().any(|l| l.contains(" nodes 1 ")), "{lines:?}");
    e.send("setoption name PolicyOnly value false");
    let (_, lines) = e.bestmove("go nodes 100", SLOW);
    assert!(
        lines.iter().any(|l| l.contains(" nodes 4 ")),
        "Nodes caps: {lines:?}"
    );

    // Search options reach the search: a legal move, no error, and a bad
    // value is refused with the option's name.
    e.send("setoption name Contempt value 30");
    e.send("setoption name PolicyTemperature value 250");
    e.send("setoption name PolicyTemperature value 0");
    let (mv, lines) = e.bestmove("go nodes 4", SLOW);
    assert!(legal_after(VariantId::Losers, &[], &mv));
    let errs = errors(&lines);
    assert!(
        errs.iter().any(|l| l.contains("PolicyTemperature")),
        "{lines:?}"
    );
    e.quit();
}

#[test]
fn stop_ends_go_infinite() {
    let tmp = tempfile::tempdir().unwrap();
    let losers = bundle(tmp.path(), VariantId::Losers);
    let mut e = Engine::start(
        &["--variant", "losers", "--bundle", losers.to_str().unwrap()],
        None,
    );
    e.ready();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    // Still thinking: isready is answered at once, no bestmove yet.
    let ready = e.ready();
    assert!(
        !ready.iter().any(|l| l.starts_with("bestmove")),
        "{ready:?}"
    );
    let start = Instant::now();
    e.send("stop");
    let lines = e.until("bestmove", SLOW);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let mv = &lines.last().unwrap()["bestmove ".len()..];
    assert!(legal_after(VariantId::Losers, &[], mv), "{mv}");
    // Usable afterwards; a second stop is harmless.
    e.send("stop");
    let (mv, _) = e.bestmove("go nodes 8", SLOW);
    assert!(legal_after(VariantId::Losers, &[], &mv));
    // A `go` that names no limit for the side to move says so, then
    // searches until stop.
    for go in ["go winc 100 binc 100", "go movestogo 0", "go btime 3000"] {
        e.send(go);
        let said = e.until("info string go gives no limit", SLOW);
        assert!(
            !said.iter().any(|l| l.starts_with("bestmove")),
            "{go}: {said:?}"
        );
        e.send("stop");
        let lines = e.until("bestmove", SLOW);
        let mv = &lines.last().unwrap()["bestmove ".len()..];
        assert!(legal_after(VariantId::Losers, &[], mv), "{go}: {mv}");
    }
    // quit during a search ends the engine.
    e.send("go infinite");
    e.quit();
}

#[test]
fn garbage_never_kills_the_engine() {
    let tmp = tempfile::tempdir().unwrap();
    let losers = bundle(tmp.path(), VariantId::Losers);
    let mut e = Engine::start(
        &["--variant", "losers", "--bundle", losers.to_str().unwrap()],
        None,
    );
    let bad = [
        "xyzzy",
        "position",
        "position fen",
        "position fen not/a/fen w - - 0 1",
        "position startpos moves e2e5",
        "position startpos moves e2e4 e2e4",
        "setoption",
        "setoption name",
        "setoption name Hash value 16",
        "setoption name Nodes value -3",
        "setoption name Threads value lots",
        "setoption name UCI_Variant value crazyhouse",
        "setoption name PolicyOnly value maybe",
    ];
    for line in bad {
        e.send(line);
        e.send("isready");
        let lines = e.until("readyok", SLOW);
        assert_eq!(errors(&lines).len(), 1, "{line:?} -> {lines:?}");
    }
    e.send("");
    e.send("   ");
    e.send_bytes(b"\xff\xfe\x00garbage\n");
    e.send(&"x".repeat(100_000));
    e.ready();
    // After a rejected position, go answers (none) instead of guessing.
    e.send("position startpos moves e2e5");
    let (mv, lines) = e.bestmove("go nodes 8", SLOW);
    assert_eq!(mv, "(none)");
    assert!(!errors(&lines).is_empty(), "{lines:?}");
    // Malformed go: error and (none), never a hang.
    e.send("position startpos");
    for go in ["go nodes", "go nodes many", "go sideways"] {
        let (mv, lines) = e.bestmove(go, SLOW);
        assert_eq!(mv, "(none)", "{go}");
        assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    }
    let (mv, _) = e.bestmove("go nodes 8", SLOW);
    assert!(legal_after(VariantId::Losers, &[], &mv), "{mv}");
    e.quit();
}

#[test]
fn wrong_variant_bundle_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let shakti = bundle(tmp.path(), VariantId::Shakti);
    let mut e = Engine::start(&[], None);
    e.send("setoption name UCI_Variant value losers");
    e.send(&format!(
        "setoption name BundlePath value {}",
        shakti.display()
    ));
    let lines = e.ready();
    let errs = errors(&lines);
    assert_eq!(errs.len(), 1, "{lines:?}");
    assert!(
        errs[0].contains("is for variant shakti, but variant losers was asked for"),
        "{}",
        errs[0]
    );
    e.send("position startpos");
    let (mv, _) = e.bestmove("go nodes 4", SLOW);
    assert_eq!(mv, "(none)");
    // Switching the variant to the bundle's fixes it.
    e.send("setoption name UCI_Variant value shakti");
    let lines = e.ready();
    assert!(errors(&lines).is_empty(), "{lines:?}");
    e.send("position startpos");
    let (mv, _) = e.bestmove("go nodes 4", SLOW);
    assert!(legal_after(VariantId::Shakti, &[], &mv), "{mv}");
    // A missing bundle folder is named.
    e.send("setoption name BundlePath value /nonexistent/bundle");
    let lines = e.ready();
    assert!(
        errors(&lines)[0].contains("/nonexistent/bundle"),
        "{lines:?}"
    );
    e.quit();
}

#[test]
fn game_over_gives_bestmove_none() {
    let tmp = tempfile::tempdir().unwrap();
    let losers = bundle(tmp.path(), VariantId::Losers);
    let mut e = Engine::start(
        &["--variant", "losers", "--bundle", losers.to_str().unwrap()],
        None,
    );
    // docs/rules.md §1: White already has a bare king and has won.
    e.send("position fen 4k3/8/8/8/8/8/4r3/4K3 w - - 0 1");
    let (mv, lines) = e.bestmove("go nodes 8", SLOW);
    assert_eq!(mv, "(none)");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string game over: first player wins")),
        "{lines:?}"
    );
    e.quit();
}

#[test]
fn clock_games_never_lose_on_time() {
    let tmp = tempfile::tempdir().unwrap();
    let losers = bundle(tmp.path(), VariantId::Losers);
    let mut e = Engine::start(
        &["--variant", "losers", "--bundle", losers.to_str().unwrap()],
        None,
    );
    e.ready();
    // 3 s + 100 ms per move for both sides; the engine plays both.
    let mut clock = [3000i64, 3000];
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..12 {
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        let start = Instant::now();
        let (mv, _) = e.bestmove(
            &format!("go wtime {} btime {} winc 100 binc 100", clock[0], clock[1]),
            SLOW,
        );
        if mv == "(none)" {
            break;
        }
        let used = start.elapsed().as_millis() as i64;
        let side = ply % 2;
        clock[side] -= used;
        assert!(clock[side] > 0, "lost on time at ply {ply}: {clock:?}");
        clock[side] += 100;
        moves.push(mv);
    }
    e.quit();
}

#[test]
fn every_variant_and_the_default_bundle_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let models = tmp.path().join("models");
    for variant in VariantId::ALL {
        bundle(&models, variant);
    }
    // No BundlePath: models/<variant> under the current directory.
    let mut e = Engine::start(&[], Some(tmp.path()));
    for variant in VariantId::ALL {
        e.send(&format!("setoption name UCI_Variant value {variant}"));
        let lines = e.ready();
        assert!(errors(&lines).is_empty(), "{variant}: {lines:?}");
        e.send("position startpos");
        let (mv, _) = e.bestmove("go nodes 8", SLOW);
        assert!(legal_after(variant, &[], &mv), "{variant}: {mv}");
    }
    // python-chess's plain chess.Board sends UCI_Variant chess: losers.
    e.send("setoption name UCI_Variant value chess");
    e.send("position startpos moves e2e4 d7d5");
    let (mv, _) = e.bestmove("go nodes 8", SLOW);
    assert_eq!(mv, "e4d5");
    e.quit();
}

#[test]
fn end_of_input_ends_the_engine() {
    let mut e = Engine::start(&[], None);
    e.send("uci");
    e.until("uciok", SLOW);
    drop(e.stdin);
    let start = Instant::now();
    while e.child.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < SLOW,
            "engine did not exit at end of input"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn back_to_back_commands_let_bounded_searches_finish() {
    let tmp = tempfile::tempdir().unwrap();
    let losers = bundle(tmp.path(), VariantId::Losers);
    let mut e = Engine::start(
        &["--variant", "losers", "--bundle", losers.to_str().unwrap()],
        None,
    );
    // As from a piped script: no waiting between commands.
    e.send("position startpos\ngo nodes 40\nposition startpos moves e2e3\ngo nodes 30");
    let first = e.until("bestmove", SLOW);
    assert!(first.iter().any(|l| l.contains(" nodes 40 ")), "{first:?}");
    let second = e.until("bestmove", SLOW);
    assert!(
        second.iter().any(|l| l.contains(" nodes 30 ")),
        "{second:?}"
    );
    let mv = &second.last().unwrap()["bestmove ".len()..];
    assert!(legal_after(VariantId::Losers, &["e2e3"], mv), "{mv}");
    e.quit();
}

/// The engine's threads (Linux: the entries of `/proc/PID/task`), once
/// the count has held for half a second (threads of a search or of a
/// dropped pool end a little after `bestmove`).
#[cfg(target_os = "linux")]
fn os_threads(pid: u32) -> usize {
    let count = || {
        std::fs::read_dir(format!("/proc/{pid}/task"))
            .unwrap()
            .count()
    };
    let deadline = Instant::now() + SLOW;
    let (mut last, mut since) = (count(), Instant::now());
    while since.elapsed() < Duration::from_millis(500) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        let now = count();
        if now != last {
            (last, since) = (now, Instant::now());
        }
    }
    last
}

#[cfg(target_os = "linux")]
#[test]
fn threads_can_change_after_the_network_is_loaded() {
    let tmp = tempfile::tempdir().unwrap();
    let losers = bundle(tmp.path(), VariantId::Losers);
    let mut e = Engine::start(
        &["--variant", "losers", "--bundle", losers.to_str().unwrap()],
        None,
    );
    e.send("uci");
    e.until("uciok", SLOW);
    let pid = e.child.id();
    let mut counts = Vec::new();
    for threads in [1, 4, 2] {
        e.send(&format!("setoption name Threads value {threads}"));
        e.send("position startpos");
        let (mv, lines) = e.bestmove("go nodes 64", SLOW);
        assert!(errors(&lines).is_empty(), "{lines:?}");
        assert!(legal_after(VariantId::Losers, &[], &mv), "{mv}");
        counts.push(os_threads(pid));
    }
    // The pool's threads follow the option: the old pool's threads end.
    assert_eq!(counts[1], counts[0] + 3, "{counts:?}");
    assert_eq!(counts[2], counts[0] + 1, "{counts:?}");
    e.quit();
}
