//! The UCI command reader's text parsing (`bot::uci_text`: `go`,
//! `setoption`, `position`) and the position/move check behind `position`
//! (`bot::validate_position`) for the variant picked by the first byte.
//! Each line of the input is one command; nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::VariantId;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let variant = VariantId::ALL[pick as usize % VariantId::ALL.len()];
    let text = String::from_utf8_lossy(rest);
    for line in text.lines() {
        let line = line.trim();
        let (command, args) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        match command {
            "go" => {
                if let Ok(go) = bot::uci_text::parse_go(args) {
                    for side in [rules::Player::First, rules::Player::Second] {
                        let _ = go.budget(side, std::time::Duration::from_millis(10));
                    }
                }
            }
            "setoption" => {
                let _ = bot::uci_text::parse_setoption(args);
            }
            _ => {
                if let Ok((fen, moves)) = bot::uci_text::parse_position_command(args) {
                    let _ = bot::validate_position(variant, fen.as_deref(), &moves);
                }
            }
        }
    }
});
