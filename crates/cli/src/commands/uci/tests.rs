//! The engine's exact output for a rejected `position`, written to a
//! buffer.

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
        device: "cpu".into(),
        threads: 1,
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
    // A malformed go is its own error, reported even then.
    assert!(engine.handle("go nodes many"));
    let lines = take_lines(&buffer);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("info string error: "), "{lines:?}");
    assert_eq!(lines[1], "bestmove (none)");
}
