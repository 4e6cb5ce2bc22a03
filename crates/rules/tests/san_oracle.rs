//! Our SAN (`rules::chess::san`) against Fairy-Stockfish's, for every legal
//! move of every losers and viking oracle position (vectors and edge
//! cases). The data, `tests/data/<variant>/san.tsv`, was written by
//! `scripts/fsf-san.py` with pyffish 0.0.90 (see that script for how
//! viking's black pawn moves get Fairy-Stockfish's pawn SAN); this test
//! reads only the committed file. Every move must agree (100 %), and
//! reading the SAN back must give the same move, with and without its
//! check suffix.

use rules::chess::spec::ChessVariant;
use rules::chess::{Board, LosersRules, VikingRules};

/// Compare every line of `san.tsv` of `variant`; returns (positions, moves).
fn compare<V: ChessVariant>(variant: &str) -> (usize, usize) {
    let path = format!(
        "{}/tests/data/{variant}/san.tsv",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("san.tsv");
    let geo = Board::<V>::geometry();
    let (mut positions, mut moves) = (0, 0);
    let mut mismatches = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let (fen, pairs) = line.split_once('\t').expect("fen TAB moves");
        let board = Board::<V>::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let mut legal = Vec::new();
        board.legal_moves(&mut legal);
        let mut ours: Vec<String> = legal.iter().map(|m| m.to_uci(geo)).collect();
        let mut theirs: Vec<&str> = Vec::new();
        for pair in pairs.split(' ') {
            let (uci, san) = pair.split_once('=').expect("uci=san");
            theirs.push(uci);
            let m = *legal
                .iter()
                .find(|m| m.to_uci(geo) == uci)
                .unwrap_or_else(|| panic!("{fen}: {uci} not legal here"));
            let written = board.san_among(m, &legal);
            if written != san {
                mismatches.push(format!(
                    "{fen}: {uci}: ours {written}, Fairy-Stockfish {san}"
                ));
            }
            assert_eq!(board.parse_san(san), Ok(m), "{fen}: reading {san}");
            let bare = san.trim_end_matches(['+', '#']);
            assert_eq!(board.parse_san(bare), Ok(m), "{fen}: reading {bare}");
            moves += 1;
        }
        ours.sort();
        theirs.sort();
        assert_eq!(ours, theirs, "{fen}: legal moves");
        positions += 1;
    }
    assert!(
        mismatches.is_empty(),
        "{variant}: {} of {moves} moves differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    println!(
        "{variant}: SAN agrees with Fairy-Stockfish on {moves} moves of {positions} positions"
    );
    (positions, moves)
}

#[test]
fn losers_san_matches_fairy_stockfish() {
    let (positions, moves) = compare::<LosersRules>("losers");
    assert_eq!((positions, moves), (2163, 18499));
}

#[test]
fn viking_san_matches_fairy_stockfish() {
    let (positions, moves) = compare::<VikingRules>("viking");
    assert_eq!((positions, moves), (2241, 40789));
}
