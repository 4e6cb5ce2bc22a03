//! The engine's exact output for a rejected `position`, for a search
//! stopped before its first simulation and for `go nodes` on Loki moves of
//! two actions (the budget is the whole move's), written to a buffer.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use rules::VariantId;

use super::*;

/// An engine for `variant` writing to the returned buffer.
fn engine(variant: VariantId) -> (Engine, Arc<Mutex<Vec<u8>>>) {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let out: Out = buffer.clone();
    let args = UciArgs {
        variant,
        bundle: String::new(),
        device: model::Backend::Cpu,
        threads: 1,
        precision: model::Precision::Fp32,
        budget: Default::default(),
    };
    (Engine::new(out, &args), buffer)
}

/// What was written so far, one string per line; empties the buffer.
fn take_lines(buffer: &Arc<Mutex<Vec<u8>>>) -> Vec<String> {
    let bytes = std::mem::take(&mut *buffer.lock().unwrap());
    String::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// An untrained 1 x 8 bundle of `variant` in a temporary folder (kept
/// while the first value lives), its path and the CPU device.
fn untrained(variant: VariantId) -> (tempfile::TempDir, PathBuf, burn::tensor::Device) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(variant.as_str());
    let device = model::device_from_name("cpu").unwrap();
    bot::write_untrained_bundle(&dir, variant, 1, 8, 16, &device).unwrap();
    (tmp, dir, device)
}

#[test]
fn a_rejected_position_is_reported_once() {
    // No bundle is loaded on this path: a rejected position needs none.
    let (mut engine, buffer) = engine(VariantId::Losers);
    let cases = [
        (
            "position startpos moves e2e5",
            r#"info string error: position (losers): move 0 ("e2e5"): illegal action "e2e5" in this position"#,
        ),
        (
            "position fen not/a/fen w - - 0 1",
            "info string error: position (losers): bad position: bad board layout: 3 rows, expected 8",
        ),
    ];
    for (position, error) in cases {
        assert!(engine.handle(position));
        assert!(engine.handle("go nodes 8"));
        assert_eq!(
            take_lines(&buffer),
            [error, "bestmove (none)"],
            "{position}"
        );
        // A second go on the same rejected position: still no repeat.
        assert!(engine.handle("go infinite"));
        assert_eq!(take_lines(&buffer), ["bestmove (none)"], "{position}");
    }
    // Unsupported go keywords are named, then ignored.
    assert!(engine.handle("go searchmoves e2e4 mate 2 nodes 8"));
    assert_eq!(
        take_lines(&buffer),
        [
            "info string go searchmoves is not supported: ignored, searching for the best move as usual",
            "info string go mate is not supported: ignored, searching for the best move as usual",
            "bestmove (none)"
        ]
    );
    // A malformed go is its own error, reported even then.
    assert!(engine.handle("go nodes many"));
    let lines = take_lines(&buffer);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("info string error: "), "{lines:?}");
    assert_eq!(lines[1], "bestmove (none)");
}

#[test]
fn a_search_without_visits_reports_no_score() {
    let info = SearchInfo {
        nodes: 0,
        time_ms: 3,
        wdl: search::DRAW_WDL,
        pv: vec!["b1a3".into()],
    };
    assert_eq!(info_line(&info), "info nodes 0 time 3");
    let searched = SearchInfo { nodes: 1, ..info };
    assert!(
        info_line(&searched).contains(" score cp 0 wdl 0 1000 0 pv b1a3"),
        "{}",
        info_line(&searched)
    );
}

#[test]
fn stop_before_the_first_simulation_still_plays_the_networks_move() {
    // `go infinite` then `stop` at once, made deterministic: the stop flag
    // is set before the search thread starts. The root is evaluated all
    // the same, so the move is the one a one-node search plays.
    let (_tmp, dir, device) = untrained(VariantId::Losers);
    let load = || Bot::load_for(VariantId::Losers, &dir, &device).unwrap();
    let one_node = load()
        .choose_move(&search::Budget::nodes(1), &mut |_| {})
        .unwrap()
        .mv;
    let stop = Arc::new(AtomicBool::new(true));
    let limits = search::Budget::default().with_stop(stop.clone());
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let out: Out = buffer.clone();
    search_thread(
        &one_thread(),
        load(),
        limits,
        &AtomicBool::new(true),
        &stop,
        false,
        out,
    );
    let lines = take_lines(&buffer);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(field(&lines[0], "nodes"), Some("1"), "{lines:?}");
    assert!(field(&lines[0], "score").is_some(), "{lines:?}");
    assert_eq!(lines[1], format!("bestmove {one_node}"));
}

#[test]
fn ponder_holds_bestmove_until_ponderhit_and_names_the_expected_reply() {
    let (_tmp, dir, _) = untrained(VariantId::Losers);
    let (mut engine, buffer) = engine(VariantId::Losers);
    let bestmove = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l.starts_with("bestmove"))
            .cloned()
            .collect()
    };
    assert!(engine.handle(&format!(
        "setoption name BundlePath value {}",
        dir.display()
    )));
    assert!(engine.handle("uci"));
    assert!(take_lines(&buffer).contains(&"option name Ponder type check default false".into()));
    // Without the Ponder option, bestmove names no reply.
    assert!(engine.handle("go nodes 40"));
    engine.wait_search();
    let plain = bestmove(&take_lines(&buffer));
    assert_eq!(plain.len(), 1, "{plain:?}");
    assert_eq!(plain[0].split(' ').count(), 2, "{plain:?}");
    // With it, bestmove names the second move of the principal variation.
    assert!(engine.handle("setoption name Ponder value true"));
    assert!(engine.handle("go nodes 40"));
    engine.wait_search();
    let lines = take_lines(&buffer);
    let pv_line = lines.iter().rev().find(|l| l.contains(" pv ")).unwrap();
    let pv: Vec<&str> = pv_line.split(" pv ").nth(1).unwrap().split(' ').collect();
    assert!(pv.len() >= 2, "{lines:?}");
    assert_eq!(
        bestmove(&lines),
        [format!("bestmove {} ponder {}", pv[0], pv[1])]
    );
    // Pondering on the expected reply: a node-bounded search that ended,
    // a clock and a move time all hold bestmove until ponderhit.
    assert!(engine.handle(&format!("position startpos moves {} {}", pv[0], pv[1])));
    for go in [
        "go ponder nodes 20",
        "go ponder wtime 300 btime 300",
        "go ponder movetime 100",
    ] {
        assert!(engine.handle(go));
        std::thread::sleep(Duration::from_millis(300));
        assert!(bestmove(&take_lines(&buffer)).is_empty(), "{go}");
        assert!(engine.handle("ponderhit"));
        engine.wait_search();
        assert_eq!(bestmove(&take_lines(&buffer)).len(), 1, "{go}");
    }
    // One legal move (a capture is compulsory): pondering searches on
    // below it and names a reply; after ponderhit the move is settled.
    assert!(engine.handle("position startpos moves e2e3 b7b5"));
    assert!(engine.handle("go ponder wtime 60000 btime 60000"));
    std::thread::sleep(Duration::from_millis(300));
    assert!(bestmove(&take_lines(&buffer)).is_empty());
    assert!(engine.handle("ponderhit"));
    engine.wait_search();
    let forced = bestmove(&take_lines(&buffer));
    assert!(
        forced.len() == 1 && forced[0].starts_with("bestmove f1b5 ponder "),
        "{forced:?}"
    );
    // A ponder miss: `stop` ends the pondering search at once.
    assert!(engine.handle("go ponder wtime 60000 btime 60000"));
    assert!(engine.handle("stop"));
    assert_eq!(bestmove(&take_lines(&buffer)).len(), 1);
    // A late ponderhit, after the search ended, is ignored.
    assert!(engine.handle("ponderhit"));
    assert!(take_lines(&buffer).is_empty());
}

#[test]
fn go_infinite_stops_at_ram_limit_and_a_finished_game_holds_bestmove_while_pondering() {
    let (_tmp, dir, _) = untrained(VariantId::Losers);
    let (mut engine, buffer) = engine(VariantId::Losers);
    let bestmoves = |lines: &[String]| lines.iter().filter(|l| l.starts_with("bestmove")).count();
    assert!(engine.handle(&format!(
        "setoption name BundlePath value {}",
        dir.display()
    )));
    assert!(engine.handle("uci"));
    assert!(take_lines(&buffer).contains(&format!(
        "option name RamLimitMb type spin default {} min 0 max {}",
        options::DEFAULT_RAM_LIMIT_MB,
        options::MAX_RAM_LIMIT_MB
    )));
    // One MiB holds a few hundred losers positions' children: the search
    // ends there, says so, and keeps bestmove for `stop`.
    assert!(engine.handle("setoption name RamLimitMb value 1"));
    assert!(engine.handle("position startpos"));
    assert!(engine.handle("go infinite"));
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut lines = Vec::new();
    while !lines
        .iter()
        .any(|l: &String| l.contains("bestmove waits for stop"))
    {
        assert!(Instant::now() < deadline, "{lines:?}");
        std::thread::sleep(Duration::from_millis(20));
        lines.extend(take_lines(&buffer));
    }
    assert_eq!(bestmoves(&lines), 0, "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("search finished at RamLimitMb")),
        "{lines:?}"
    );
    assert!(engine.handle("stop"));
    engine.wait_search();
    assert_eq!(bestmoves(&take_lines(&buffer)), 1);
    // A timed search that reaches the bound ends there too, and says so.
    assert!(engine.handle("go movetime 20000"));
    engine.wait_search();
    let lines = take_lines(&buffer);
    assert_eq!(bestmoves(&lines), 1, "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("search stopped at RamLimitMb: 1 MiB")),
        "{lines:?}"
    );
    // A finished game: `go ponder` and `go infinite` answer on ponderhit
    // or stop only, `go movetime` at once.
    // docs/rules.md §1: White has a bare king and has won.
    let mated = "position fen 4k3/8/8/8/8/8/4r3/4K3 w - - 0 1";
    assert!(engine.handle(mated));
    for (go, release) in [
        ("go ponder movetime 100", "ponderhit"),
        ("go infinite", "stop"),
        ("go", "stop"),
    ] {
        assert!(engine.handle(go));
        std::thread::sleep(Duration::from_millis(100));
        let held = take_lines(&buffer);
        assert!(
            held.iter().any(|l| l.starts_with("info string game over")),
            "{held:?}"
        );
        assert_eq!(bestmoves(&held), 0, "{go}: {held:?}");
        assert!(engine.handle(release));
        engine.wait_search();
        assert_eq!(take_lines(&buffer), ["bestmove (none)"], "{go}");
    }
    assert!(engine.handle("go movetime 100"));
    engine.wait_search();
    assert!(take_lines(&buffer).contains(&"bestmove (none)".to_string()));
}

/// Loki, attackers to move, every move an exchange of two actions (their
/// boxed-in Trickster a2 or soldier b1 for the soldier c9 or h9).
const LOKI_TWO_TARGETS: &str = "11/11/2S4S3/11/11/5K5/11/11/T10/tT9/1sT8 a 1000/0000 -";
/// As [`LOKI_TWO_TARGETS`] with h9 the only target: a forced first action.
const LOKI_ONE_TARGET: &str = "11/11/7S3/11/11/5K5/11/11/T10/tT9/1sT8 a 1000/0000 -";

/// The value after `key` in an `info` line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut words = line.split(' ');
    words.find(|w| *w == key)?;
    words.next()
}

/// Whether each of `moves` is one whole Loki move, played in turn from
/// `position`.
fn whole_loki_moves(position: &str, moves: &[&str]) -> bool {
    use rules::Game;
    let mut game = rules::Loki::from_text(position).unwrap();
    moves.iter().all(|token| match game.parse_move(token) {
        Ok(actions) => {
            for action in actions {
                game.play(action);
            }
            !game.mid_turn() || game.outcome().is_some()
        }
        Err(_) => false,
    })
}

#[test]
fn go_nodes_is_the_budget_of_a_whole_loki_move() {
    let (_tmp, dir, device) = untrained(VariantId::Loki);
    let mut bot = Bot::load_for(VariantId::Loki, &dir, &device).unwrap();
    for position in [LOKI_TWO_TARGETS, LOKI_ONE_TARGET] {
        for nodes in [10, 100] {
            bot.set_position(Some(position), &[] as &[&str]).unwrap();
            let stop = Arc::new(AtomicBool::new(false));
            let limits = search::Budget::nodes(nodes).with_stop(stop.clone());
            let buffer = Arc::new(Mutex::new(Vec::new()));
            let out: Out = buffer.clone();
            bot = search_thread(
                &one_thread(),
                bot,
                limits,
                &AtomicBool::new(false),
                &stop,
                false,
                out,
            );
            let lines = take_lines(&buffer);
            let (last, infos) = lines.split_last().unwrap();
            let mv = last.strip_prefix("bestmove ").unwrap();
            assert!(mv.starts_with("x:") && mv.len() == 6, "{lines:?}");
            // Reports never count fewer nodes than before; the last one
            // counts the budget exactly; every PV is whole moves, the
            // last one starting with the move played.
            let mut seen = 0;
            for info in infos {
                let n: u32 = field(info, "nodes").unwrap().parse().unwrap();
                assert!(n >= seen, "{lines:?}");
                seen = n;
                let pv: Vec<&str> = info.split(" pv ").nth(1).unwrap_or("").split(' ').collect();
                assert!(whole_loki_moves(position, &pv), "{info}");
            }
            assert_eq!(seen, nodes, "{lines:?}");
            let pv = infos.last().unwrap().split(" pv ").nth(1).unwrap();
            assert_eq!(pv.split(' ').next(), Some(mv), "{lines:?}");
        }
    }
}

/// A one-thread pool, the engine's with `Threads` 1.
fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
}
