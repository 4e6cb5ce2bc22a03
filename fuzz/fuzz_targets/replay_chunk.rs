//! Replay-chunk decoder (`selfplay::replay::decode_chunk`). The fuzzer
//! input is used twice: as raw file bytes (stops at the checksum mostly),
//! and as a payload wrapped in a valid header and checksum so the bincode
//! decoder behind the checksum is reached too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use selfplay::replay::{decode_chunk, MAGIC};
use sha2::{Digest, Sha256};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.bin");
    let _ = decode_chunk(data, path);
    let mut framed = Vec::with_capacity(data.len() + 40);
    framed.extend_from_slice(MAGIC);
    framed.extend_from_slice(&Sha256::digest(data));
    framed.extend_from_slice(data);
    let _ = decode_chunk(&framed, path);
});
