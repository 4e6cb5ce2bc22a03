//! The `hnefatafl-text-protocol` client against fake engines (Python
//! scripts that connect to the game port as the real engine does, answer
//! scripted moves, garbage or resignations, and log what they are told).
//! One test function: the engine's port is fixed, so the cases run one
//! after the other.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use arena::htp_client::{HtpAi, HtpConfig, HtpPlayer};
use arena::{play_game, Contestant, Opening};
use rules::{Copenhagen, Game};

/// A fake engine: `--version` prints a version; otherwise it connects to
/// `--host`:49152, logs each line it reads to `log`, and answers each
/// `generate_move` with the next of `replies` (then exits when they run
/// out, as the real engine does at a game's end).
fn fake_engine(dir: &Path, name: &str, replies: &[&str]) -> (PathBuf, PathBuf) {
    let path = dir.join(name);
    let log = dir.join(format!("{name}.log"));
    let script = format!(
        r#"#!/usr/bin/env python3
import socket, sys
if "--version" in sys.argv:
    print("fake-htp 0.0.1")
    sys.exit(0)
host = sys.argv[sys.argv.index("--host") + 1]
replies = {replies:?}
log = open({log:?}, "w")
log.write(" ".join(sys.argv[3:]) + "\n")
s = socket.create_connection((host, 49152))
f = s.makefile("rw")
for line in f:
    log.write(line)
    log.flush()
    if line.startswith("generate_move"):
        if not replies:
            print("fake-htp: no more moves", file=sys.stderr)
            sys.exit(3)
        f.write(replies.pop(0) + "\n")
        f.flush()
"#,
        log = log.display().to_string(),
    );
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(script.as_bytes()).unwrap();
    drop(f);
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).unwrap();
    (path, log)
}

fn config(path: &Path) -> HtpConfig {
    HtpConfig {
        path: path.to_path_buf(),
        ai: HtpAi::MonteCarlo { seconds: 1 },
        connect_timeout: Duration::from_secs(20),
        move_timeout: Duration::from_secs(5),
    }
}

/// Plays the moves of a script in turn.
struct Scripted(Vec<&'static str>);

impl Contestant<Copenhagen> for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }
    fn choose(&mut self, game: &Copenhagen) -> Option<rules::tafl::TaflAction> {
        let token = self.0.remove(0);
        Some(game.parse_move(token).unwrap()[0])
    }
}

fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn htp_player_against_fake_engines() {
    let tmp = tempfile::tempdir().unwrap();

    // A game: the engine (attackers) is told the defenders' moves and asked
    // for its own; its answers are played.
    let (path, log) = fake_engine(
        tmp.path(),
        "good",
        &["play attacker d1 d2", "play attacker e1 e2"],
    );
    config(&path).check().unwrap();
    let mut engine = HtpPlayer::<Copenhagen>::new(config(&path));
    let mut defenders = Scripted(vec!["f4f3", "f3c3"]);
    let opening = Opening::at(Copenhagen::start());
    let result = play_game(&opening, &mut engine, &mut defenders, 4, None);
    assert!(result.forfeit.is_none(), "{:?}", result.forfeit);
    assert_eq!(result.actions, ["d1d2", "f4f3", "e1e2", "f3c3"]);
    assert_eq!(
        log_lines(&log),
        [
            "--ai monte-carlo --seconds 1",
            "generate_move",
            "play defender f4 f3",
            "generate_move",
        ]
    );
    assert_eq!(Contestant::<Copenhagen>::name(&engine), "htp:good[1s]");

    // An opening line is told before the first question, from the start.
    let (path, log) = fake_engine(tmp.path(), "opening", &["play defender f4 f3"]);
    let mut engine = HtpPlayer::<Copenhagen>::new(config(&path));
    let root = Copenhagen::start();
    let mut position = root.clone();
    let first = position.parse_move("d1d2").unwrap()[0];
    position.play(first);
    let opening = Opening {
        root,
        actions: vec![first],
        position,
    };
    // The defenders' engine moves first here, then the attackers reply.
    let mut attackers = Scripted(vec!["e1e2"]);
    let result = play_game(&opening, &mut attackers, &mut engine, 2, None);
    assert!(result.forfeit.is_none(), "{:?}", result.forfeit);
    assert_eq!(result.actions, ["f4f3", "e1e2"]);
    assert_eq!(
        &log_lines(&log)[1..],
        ["play attacker d1 d2", "generate_move"]
    );

    // Failures are forfeits with the engine's answer in the reason.
    for (name, reply, expect) in [
        ("garbage", "hello", "not `play ROLE FROM TO`"),
        ("illegal", "play attacker d1 d9", "d1d9"),
        (
            "wrong-side",
            "play defender f4 f3",
            "the attackers are to move",
        ),
        ("resigns", "play attacker resigns _", "resigned"),
    ] {
        let (path, _) = fake_engine(tmp.path(), name, &[reply]);
        let mut engine = HtpPlayer::<Copenhagen>::new(config(&path));
        let mut other = Scripted(vec![]);
        let opening = Opening::at(Copenhagen::start());
        let result = play_game(&opening, &mut engine, &mut other, 10, None);
        let forfeit = result.forfeit.expect("a forfeit");
        assert!(
            forfeit.reason.contains(expect),
            "{name}: {}",
            forfeit.reason
        );
    }

    // An engine that exits instead of moving.
    let (path, _) = fake_engine(tmp.path(), "exits", &[]);
    let mut engine = HtpPlayer::<Copenhagen>::new(config(&path));
    let result = play_game(
        &Opening::at(Copenhagen::start()),
        &mut engine,
        &mut Scripted(vec![]),
        10,
        None,
    );
    let reason = result.forfeit.expect("a forfeit").reason;
    assert!(reason.contains("closed the connection"), "{reason}");
    // The error says how it exited and what it printed last.
    assert!(reason.contains("exit status: 3"), "{reason}");
    assert!(reason.contains("fake-htp: no more moves"), "{reason}");

    // A missing engine is an error before any game.
    let missing = config(&tmp.path().join("no-such-engine"));
    assert!(missing
        .check()
        .unwrap_err()
        .to_string()
        .contains("no-such-engine"));
}
