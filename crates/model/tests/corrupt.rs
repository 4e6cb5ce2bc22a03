//! Corrupt and mismatched bundles: every case is a clear
//! [`BundleError`] whose message says what is wrong, and loading never
//! modifies the files on disk.

use std::path::Path;

use burn::tensor::Device;
use encoding::Encode;
use model::bundle::{
    load_bundle, meta_for, parse_meta, save_bundle, BundleError, META_FILE, WEIGHTS_FILE,
};
use model::{Net, NetShape};
use rules::{Losers, Shakti};

fn shape<E: Encode>() -> NetShape {
    NetShape {
        input_planes: E::INPUT_PLANES,
        policy_planes: E::POLICY_PLANES,
        height: E::HEIGHT,
        width: E::WIDTH,
        blocks: 1,
        filters: 4,
        value_hidden: 8,
        moves_left: false,
    }
}

/// A fresh tiny Shakti bundle at `dir`.
fn bundle(dir: &Path, device: &Device) {
    let s = shape::<Shakti>();
    let net = Net::new(&s, device);
    save_bundle(dir, &net, &meta_for::<Shakti>(&s, 3, &[])).unwrap();
}

/// Both files' bytes, to check nothing was modified.
fn snapshot(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    (
        std::fs::read(dir.join(WEIGHTS_FILE)).unwrap(),
        std::fs::read(dir.join(META_FILE)).unwrap(),
    )
}

fn load_err(dir: &Path, device: &Device) -> BundleError {
    let before = snapshot(dir);
    let err = match load_bundle::<Shakti>(dir, device) {
        Ok(_) => panic!("corrupt bundle loaded"),
        Err(e) => e,
    };
    assert_eq!(snapshot(dir), before, "loading modified the bundle");
    err
}

#[test]
fn intact_bundle_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let device = Device::flex();
    bundle(tmp.path(), &device);
    let (_, meta) = load_bundle::<Shakti>(tmp.path(), &device).unwrap();
    assert_eq!(meta.generation, 3);
}

#[test]
fn truncated_weights_fail_the_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let device = Device::flex();
    bundle(tmp.path(), &device);
    let path = tmp.path().join(WEIGHTS_FILE);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
    let err = load_err(tmp.path(), &device);
    assert!(matches!(err, BundleError::Checksum { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("weights checksum mismatch") && msg.contains("truncated or corrupt"),
        "{msg}"
    );
    assert!(msg.contains(WEIGHTS_FILE), "{msg}");
}

#[test]
fn every_single_bit_flip_region_fails_the_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let device = Device::flex();
    bundle(tmp.path(), &device);
    let path = tmp.path().join(WEIGHTS_FILE);
    let original = std::fs::read(&path).unwrap();
    // Flip one bit in the header, the middle and the last byte.
    for at in [3, original.len() / 2, original.len() - 1] {
        let mut bytes = original.clone();
        bytes[at] ^= 0x10;
        std::fs::write(&path, &bytes).unwrap();
        let err = load_err(tmp.path(), &device);
        assert!(
            matches!(err, BundleError::Checksum { .. }),
            "byte {at}: {err:?}"
        );
    }
}

#[test]
fn flipped_metadata_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let device = Device::flex();
    bundle(tmp.path(), &device);
    let path = tmp.path().join(META_FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[0] ^= 0x01; // `{` -> `z`
    std::fs::write(&path, &bytes).unwrap();
    let err = load_err(tmp.path(), &device);
    assert!(matches!(err, BundleError::Meta { .. }), "{err:?}");
    assert!(err.to_string().contains("invalid bundle metadata"), "{err}");
    // Truncated metadata as well.
    std::fs::write(&path, &bytes[..20]).unwrap();
    let err = load_err(tmp.path(), &device);
    assert!(err.to_string().contains("invalid bundle metadata"), "{err}");
}

#[test]
fn bundle_of_another_variant_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let device = Device::flex();
    bundle(tmp.path(), &device);
    let before = snapshot(tmp.path());
    let err = match load_bundle::<Losers>(tmp.path(), &device) {
        Ok(_) => panic!("a shakti bundle loaded as losers"),
        Err(e) => e,
    };
    assert_eq!(snapshot(tmp.path()), before);
    assert!(matches!(err, BundleError::Mismatch { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("bundle is for variant \"shakti\", but \"losers\" was requested"),
        "{err}"
    );
}

#[test]
fn other_encoding_or_rules_version_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let device = Device::flex();
    bundle(tmp.path(), &device);
    let path = tmp.path().join(META_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    let enc = Shakti::ENCODING_VERSION;
    let edited = text.replace(
        &format!("\"encoding_version\": {enc}"),
        &format!("\"encoding_version\": {}", enc + 1),
    );
    assert_ne!(edited, text);
    std::fs::write(&path, &edited).unwrap();
    let err = load_err(tmp.path(), &device);
    assert_eq!(
        err.to_string(),
        format!(
            "bundle {} does not fit: bundle has rules v1 / encoding v{}, this build has rules v1 / encoding v{enc}",
            tmp.path().display(),
            enc + 1
        )
    );
    let edited = text.replace("\"rules_version\": 1", "\"rules_version\": 0");
    std::fs::write(&path, &edited).unwrap();
    let err = load_err(tmp.path(), &device);
    assert!(err.to_string().contains("bundle has rules v0"), "{err}");
}

#[test]
fn parse_meta_rejects_garbage_without_panicking() {
    let dir = Path::new("some/bundle");
    for input in [&b""[..], b"null", b"[]", b"{\"format\": 1}", b"\xff\xfe"] {
        let err = parse_meta::<Shakti>(input, dir).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("some/bundle/model.json: invalid bundle metadata"),
            "{err}"
        );
    }
}

/// Saving over something that is not a bundle (a file, a folder with other
/// files) is refused and leaves it exactly as it was.
#[test]
fn save_refuses_to_replace_what_is_not_a_bundle() {
    let tmp = tempfile::tempdir().unwrap();
    let device = Device::flex();
    let s = shape::<Shakti>();
    let net = Net::new(&s, &device);
    let meta = meta_for::<Shakti>(&s, 1, &[]);
    let file = tmp.path().join("notes.txt");
    std::fs::write(&file, "precious").unwrap();
    let err = save_bundle(&file, &net, &meta).unwrap_err().to_string();
    assert!(err.contains("not a folder"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "precious");
    let folder = tmp.path().join("documents");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("letter.txt"), "keep me").unwrap();
    let err = save_bundle(&folder, &net, &meta).unwrap_err().to_string();
    assert!(err.contains("letter.txt"), "{err}");
    assert_eq!(
        std::fs::read_to_string(folder.join("letter.txt")).unwrap(),
        "keep me"
    );
    // Nothing else appeared beside them (no temporary folders left).
    let names: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // An existing bundle and an empty folder are replaced.
    bundle(&folder.join("b"), &device);
    save_bundle(&folder.join("b"), &net, &meta).unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    save_bundle(&empty, &net, &meta).unwrap();
}
