//! The UCI client against fake engines (shell scripts that crash, hang or
//! send garbage) and a short real match against Fairy-Stockfish on losers.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arena::records::{render, write_records};
use arena::uci_client::{FenDialect, UciConfig, UciEngine, UciPlayer};
use arena::{run_match, Contestant, MatchSettings, RandomPlayer};
use rules::{Game, Losers};

/// A fake engine script: answers the handshake, then behaves per `on_go`
/// (shell code run for each `go`; `$n` counts the `go`s, `$side` is the
/// side to move after the last `position fen ... moves ...`: the FEN's
/// side, flipped per move after it).
fn fake_engine(dir: &Path, name: &str, on_go: &str) -> PathBuf {
    let path = dir.join(name);
    let script = format!(
        r#"#!/bin/sh
n=0
side=w
while IFS= read -r line; do
  case "$line" in
    uci) echo "id name fake-{name}"; echo "uciok" ;;
    isready) echo "readyok" ;;
    "position fen "*) set -- $line; side=$4
      if [ $(( $(echo "$line" | sed -n 's/.* moves //p' | wc -w) % 2 )) = 1 ]; then
        if [ "$side" = w ]; then side=b; else side=w; fi
      fi ;;
    go*) n=$((n+1)); {on_go} ;;
    quit) exit 0 ;;
  esac
done
"#
    );
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(script.as_bytes()).unwrap();
    drop(f);
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).unwrap();
    path
}

fn config(path: &Path, move_timeout: Duration) -> UciConfig {
    UciConfig {
        path: path.to_path_buf(),
        options: vec![("UCI_Variant".into(), "losers".into())],
        go: "go nodes 1".into(),
        handshake_timeout: Duration::from_secs(5),
        move_timeout,
        dialect: FenDialect::Same,
    }
}

/// Play 4 games of the fake engine (A) against random (B) on losers.
fn fake_match(engine: &Path, move_timeout: Duration) -> arena::MatchReport {
    let settings = MatchSettings {
        games: 4,
        concurrency: 2,
        ply_cap: 40,
        time_control: None,
        opening_plies: 0,
        seed: 7,
        sprt: None,
    };
    let cfg = config(engine, move_timeout);
    run_match::<Losers, _, _>(
        &settings,
        |_| Box::new(UciPlayer::<Losers>::new(cfg.clone())) as Box<dyn Contestant<Losers>>,
        |i| Box::new(RandomPlayer::new(i as u64)),
        |_| {},
    )
}

/// The first move of each side from the start is legal whatever White did
/// (no capture is possible for Black on move 1).
const FIRST_MOVE: &str =
    r#"if [ "$side" = w ]; then echo "bestmove e2e3"; else echo "bestmove e7e6"; fi"#;

#[test]
fn engine_that_crashes_mid_game_forfeits_and_the_match_continues() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake_engine(
        dir.path(),
        "crash",
        &format!(r#"if [ $n -ge 2 ]; then exit 3; fi; {FIRST_MOVE}"#),
    );
    let report = fake_match(&engine, Duration::from_secs(5));
    assert_eq!(report.games.len(), 4);
    assert_eq!(
        (report.wdl.wins, report.wdl.draws, report.wdl.losses),
        (0, 0, 4)
    );
    assert_eq!(report.forfeits, 4);
    for g in &report.games {
        let f = g.result.forfeit.as_ref().unwrap();
        assert!(f.reason.contains("exited"), "{}", f.reason);
        // The engine's one legal move is in the record.
        let engine_moves: Vec<&String> = g
            .result
            .actions
            .iter()
            .filter(|m| *m == "e2e3" || *m == "e7e6")
            .collect();
        assert_eq!(engine_moves.len(), 1, "{:?}", g.result.actions);
    }
    // Records are complete and say why.
    let start = Losers::start().to_text();
    let pgn = render(
        rules::VariantId::Losers,
        &start,
        "crash",
        "random",
        &report.games,
    );
    assert_eq!(pgn.matches("[Variant \"losers\"]").count(), 4);
    assert_eq!(pgn.matches("forfeit by").count(), 4);
    let path = dir.path().join("games.pgn");
    write_records(
        &path,
        rules::VariantId::Losers,
        &start,
        "crash",
        "random",
        &report.games,
    )
    .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), pgn);
}

#[test]
fn engine_sending_garbage_forfeits_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake_engine(
        dir.path(),
        "garbage",
        r#"printf '\377\376 junk\n'; echo "info nonsense"; echo "bestmove zz99""#,
    );
    let report = fake_match(&engine, Duration::from_secs(5));
    assert_eq!(report.wdl.losses, 4);
    for g in &report.games {
        let reason = &g.result.forfeit.as_ref().unwrap().reason;
        assert!(reason.contains("bad move \"zz99\""), "{reason}");
        assert!(g.result.actions.len() <= 1);
    }
}

#[test]
fn engine_that_hangs_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake_engine(dir.path(), "hang", "sleep 5");
    let t = Instant::now();
    let report = fake_match(&engine, Duration::from_millis(300));
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    assert_eq!(report.wdl.losses, 4);
    let reason = &report.games[0].result.forfeit.as_ref().unwrap().reason;
    assert!(
        reason.contains("did not send \"bestmove\" within 0.3 s"),
        "{reason}"
    );
}

#[test]
fn missing_or_dead_engine_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-engine");
    let err = UciEngine::start(&missing, &[], Duration::from_secs(1))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("cannot start UCI engine"), "{err}");
    let dead = fake_engine(dir.path(), "dead", "true");
    std::fs::write(&dead, "#!/bin/sh\nexit 1\n").unwrap();
    let err = UciEngine::start(&dead, &[], Duration::from_secs(5))
        .err()
        .unwrap()
        .to_string();
    // Either the read sees the closed pipe or the write of `uci` fails.
    assert!(
        err.contains("exited while we waited for \"uciok\"") || err.contains("write failed"),
        "{err}"
    );
    let report = fake_match(&dead, Duration::from_secs(1));
    assert_eq!(report.wdl.losses, 4);
    for g in &report.games {
        // The engine never moves: no action as White, random's one as Black.
        assert_eq!(g.result.actions.len(), usize::from(!g.a_first));
        let reason = &g.result.forfeit.as_ref().unwrap().reason;
        assert!(reason.contains("dead"), "{reason}");
    }
}

const FSF: &str = "/usr/games/fairy-stockfish";

#[test]
fn real_fairy_stockfish_plays_losers() {
    if !Path::new(FSF).exists() {
        eprintln!("SKIPPED: {FSF} is absent (apt-get install fairy-stockfish)");
        return;
    }
    let settings = MatchSettings {
        games: 4,
        concurrency: 2,
        ply_cap: 150,
        time_control: None,
        opening_plies: 2,
        seed: 3,
        sprt: None,
    };
    let mut cfg = config(Path::new(FSF), Duration::from_secs(20));
    cfg.go = "go depth 1".into();
    let report = run_match::<Losers, _, _>(
        &settings,
        |_| Box::new(UciPlayer::<Losers>::new(cfg.clone())) as Box<dyn Contestant<Losers>>,
        |i| Box::new(RandomPlayer::new(100 + i as u64)),
        |_| {},
    );
    assert_eq!(report.games.len(), 4);
    assert_eq!(
        report.forfeits,
        0,
        "{:?}",
        report
            .games
            .iter()
            .map(|g| &g.result.forfeit)
            .collect::<Vec<_>>()
    );
    assert!(report.games.iter().all(|g| !g.result.actions.is_empty()));
    // Both games of a pair start from the same random opening.
    assert_eq!(report.games[0].result.start, report.games[1].result.start);
    assert_ne!(report.games[0].result.start, Losers::start().to_text());
    eprintln!(
        "fairy-stockfish depth 1 vs random on losers: +{} ={} -{}",
        report.wdl.wins, report.wdl.draws, report.wdl.losses
    );
}

/// The engine is told the game from its root with the random opening
/// plies as moves (rules that count the whole game, such as tafl's ban on
/// a third use of one move token, need them), not from the position after
/// them.
#[test]
fn the_engine_is_told_the_opening_plies_as_moves() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("positions.log");
    let engine = dir.path().join("logger");
    let script = format!(
        r#"#!/bin/sh
while IFS= read -r line; do
  case "$line" in
    uci) echo "id name logger"; echo "uciok" ;;
    isready) echo "readyok" ;;
    "position "*) echo "$line" >> {log} ;;
    go*) exit 3 ;;
  esac
done
"#,
        log = log.display()
    );
    std::fs::write(&engine, script).unwrap();
    let mut perms = std::fs::metadata(&engine).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&engine, perms).unwrap();
    let settings = MatchSettings {
        games: 2,
        concurrency: 1,
        ply_cap: 40,
        time_control: None,
        opening_plies: 4,
        seed: 11,
        sprt: None,
    };
    let cfg = config(&engine, Duration::from_secs(5));
    let report = run_match::<Losers, _, _>(
        &settings,
        |_| Box::new(UciPlayer::<Losers>::new(cfg.clone())) as Box<dyn Contestant<Losers>>,
        |i| Box::new(RandomPlayer::new(i as u64)),
        |_| {},
    );
    assert_eq!(report.forfeits, 2);
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let start = format!("position fen {} moves ", Losers::start().to_text());
    // Game 0: the engine moves first after 4 opening plies; game 1: second,
    // after the opening and random's first move.
    for (line, moves) in lines.iter().zip([4, 5]) {
        let rest = line
            .strip_prefix(&start)
            .unwrap_or_else(|| panic!("{line}"));
        assert_eq!(rest.split_whitespace().count(), moves, "{line}");
    }
}
