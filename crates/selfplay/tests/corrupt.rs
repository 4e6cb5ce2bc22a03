//! Corrupt and mismatched replay chunks: truncated, bit-flipped,
//! foreign and other-variant chunks are clear [`ReplayError`]s; reading
//! never modifies the file, and writing over a chunk is atomic.

use std::path::Path;

use rules::{Game, Losers, Player, Shakti, Variant, VariantId};
use selfplay::replay::{decode_chunk, encode_chunk, CHUNK_VERSION};
use selfplay::{
    load_window, read_chunk, write_chunk, Chunk, GameRecord, ReplayError, SearchTarget,
};

fn chunk(generation: u32) -> Chunk {
    Chunk {
        version: CHUNK_VERSION,
        variant: VariantId::Shakti,
        rules_version: Shakti::RULES_VERSION,
        generation,
        games: vec![GameRecord {
            start: Shakti::start().to_text(),
            actions: vec![0, 3, 1],
            targets: vec![
                Some(SearchTarget {
                    policy: vec![0.5, 0.5],
                    root_wdl: [0.2, 0.3, 0.5],
                }),
                None,
                None,
            ],
            winner: Some(Player::Second),
            ply_capped: false,
        }],
    }
}

/// Reads `path` expecting an error; checks the file is unchanged.
fn read_err<G: Variant>(path: &Path) -> ReplayError {
    let before = std::fs::read(path).unwrap();
    let err = read_chunk::<G>(path).expect_err("corrupt chunk was read");
    assert_eq!(
        std::fs::read(path).unwrap(),
        before,
        "reading modified the chunk"
    );
    err
}

#[test]
fn intact_chunk_round_trips() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("gen-000001-part-0000.bin");
    write_chunk(&path, &chunk(1)).unwrap();
    assert_eq!(read_chunk::<Shakti>(&path).unwrap(), chunk(1));
}

#[test]
fn truncated_chunks_are_corrupt_at_every_length() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("gen-000001-part-0000.bin");
    let bytes = encode_chunk(&chunk(1));
    for len in [0, 7, 8, 39, 40, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let err = read_err::<Shakti>(&path);
        assert!(matches!(err, ReplayError::Corrupt { .. }), "{len}: {err:?}");
        let msg = err.to_string();
        let expected = if len < 40 {
            format!("{len} bytes, missing the LZREPLAY header")
        } else {
            "checksum mismatch (truncated or altered)".to_string()
        };
        assert_eq!(
            msg,
            format!("{}: corrupt replay chunk: {expected}", path.display())
        );
    }
}

#[test]
fn bit_flips_anywhere_are_detected() {
    let bytes = encode_chunk(&chunk(1));
    for at in (0..bytes.len()).step_by(7) {
        let mut b = bytes.clone();
        b[at] ^= 0x04;
        let err = decode_chunk(&b, Path::new("c.bin")).expect_err("flipped chunk decoded");
        assert!(
            matches!(err, ReplayError::Corrupt { .. }),
            "byte {at}: {err:?}"
        );
    }
}

#[test]
fn chunk_of_another_variant_is_a_mismatch() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("gen-000001-part-0000.bin");
    write_chunk(&path, &chunk(1)).unwrap();
    let err = read_err::<Losers>(&path);
    assert_eq!(
        err.to_string(),
        format!(
            "{}: replay chunk does not fit: chunk is shakti rules v1, expected losers rules v1",
            path.display()
        )
    );
}

#[test]
fn other_chunk_version_is_a_mismatch() {
    let mut c = chunk(1);
    c.version = CHUNK_VERSION + 1;
    let err = decode_chunk(&encode_chunk(&c), Path::new("c.bin")).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "c.bin: replay chunk does not fit: chunk version {}, expected {CHUNK_VERSION}",
            CHUNK_VERSION + 1
        )
    );
}

#[test]
fn load_window_names_the_corrupt_chunk() {
    let tmp = tempfile::tempdir().unwrap();
    write_chunk(&tmp.path().join("gen-000001-part-0000.bin"), &chunk(1)).unwrap();
    let bad = tmp.path().join("gen-000002-part-0000.bin");
    let bytes = encode_chunk(&chunk(2));
    std::fs::write(&bad, &bytes[..bytes.len() - 3]).unwrap();
    let err = load_window::<Shakti>(tmp.path(), 2, 2).unwrap_err();
    assert!(
        err.to_string().contains("gen-000002-part-0000.bin"),
        "{err}"
    );
    assert_eq!(load_window::<Shakti>(tmp.path(), 1, 1).unwrap().len(), 1);
}

#[test]
fn failed_write_keeps_the_existing_chunk() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("gen-000001-part-0000.bin");
    write_chunk(&path, &chunk(1)).unwrap();
    let before = std::fs::read(&path).unwrap();
    // The target is now a directory's child of a file: creating the
    // temporary fails, the existing chunk stays.
    let blocked = path.join("gen-000001-part-0001.bin");
    let err = write_chunk(&blocked, &chunk(1)).unwrap_err();
    assert!(matches!(err, ReplayError::Io { .. }));
    assert!(
        err.to_string().contains("gen-000001-part-0001.bin"),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// Regression (fuzz target `replay_chunk`, crash-ce5846bc…): a payload with
/// a valid checksum whose bincode length prefix claims an enormous
/// collection aborted the process in the allocator. It must be a clear
/// `Corrupt` error instead.
#[test]
fn huge_length_prefix_behind_a_valid_checksum_is_an_error() {
    use sha2::{Digest, Sha256};
    let payload = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fuzz-replay-huge-length.bin"
    ))
    .unwrap();
    let mut framed = selfplay::replay::MAGIC.to_vec();
    framed.extend_from_slice(&Sha256::digest(&payload));
    framed.extend_from_slice(&payload);
    let path = Path::new("fuzz.bin");
    match decode_chunk(&framed, path) {
        Err(ReplayError::Corrupt { reason, .. }) => {
            assert!(reason.to_lowercase().contains("limit"), "{reason}")
        }
        other => panic!("expected a corrupt-chunk error, got {other:?}"),
    }
}

/// The header keeps the variant as its id text (the layout of chunks
/// written when it was a string field), so those chunks stay readable.
#[test]
fn header_holds_the_variant_as_text() {
    let bytes = encode_chunk(&chunk(1));
    // Magic (8 bytes) and sha256 (32), then bincode: version 1 (a varint),
    // the id's length and its text.
    assert_eq!(&bytes[40..48], b"\x01\x06shakti");
}
