//! The store's operations on a local folder (always) and on a real S3
//! server (`scripts/s3-up.sh DIR; . DIR/env`; `SKIPPED:` without
//! `AWS_ENDPOINT`).

use store::{Store, Swap};

/// Put, create-only put, get, list, delete, and the answers for missing
/// objects, on `store`.
fn exercise(store: &Store) {
    assert_eq!(store.get("a/missing.bin").unwrap(), None);
    store.put("a/x.bin", b"one").unwrap();
    store.put("a/x.bin", b"two").unwrap();
    assert_eq!(store.get("a/x.bin").unwrap().as_deref(), Some(&b"two"[..]));
    assert!(store.put_new("a/y.bin", &[0u8, 255, 7]).unwrap());
    assert!(!store.put_new("a/y.bin", b"other").unwrap(), "create-only");
    assert_eq!(
        store.get("a/y.bin").unwrap().as_deref(),
        Some(&[0u8, 255, 7][..])
    );
    store.put("b/z.json", b"{}").unwrap();
    let keys: Vec<String> = store
        .list("a/")
        .unwrap()
        .into_iter()
        .map(|o| o.key)
        .collect();
    assert_eq!(keys, ["a/x.bin", "a/y.bin"]);
    assert_eq!(store.list("").unwrap().len(), 3);
    assert_eq!(store.list("a/").unwrap()[1].size, 3);
    store.put("a/deeper/w.bin", b"w").unwrap();
    let (objects, folders) = store.list_folder("a/").unwrap();
    let objects: Vec<String> = objects.into_iter().map(|o| o.key).collect();
    assert_eq!(
        (objects, folders),
        (
            vec!["a/x.bin".into(), "a/y.bin".into()],
            vec!["a/deeper/".to_string()]
        )
    );
    store.delete("a/deeper/w.bin").unwrap();
    store.delete("a/x.bin").unwrap();
    store.delete("a/x.bin").unwrap();
    assert_eq!(store.list("a/").unwrap().len(), 1);
}

/// Compare-and-swap on a store that offers it: a write at the current
/// version replaces the object and yields the next version; a write at a
/// stale version, or to a missing object, changes nothing.
fn exercise_put_if(store: &Store) {
    store.put("c/lease.json", b"one").unwrap();
    let (bytes, v1) = store.get_versioned("c/lease.json").unwrap().unwrap();
    assert_eq!(bytes, b"one");
    let v1 = v1.expect("the store reports versions");
    let Swap::Written(Some(v2)) = store.put_if("c/lease.json", b"two", &v1).unwrap() else {
        panic!("a write at the current version is taken");
    };
    assert_ne!(v1, v2);
    assert_eq!(
        store.put_if("c/lease.json", b"stale", &v1).unwrap(),
        Swap::Changed
    );
    assert!(matches!(
        store.put_if("c/lease.json", b"three", &v2).unwrap(),
        Swap::Written(_)
    ));
    assert_eq!(
        store.get("c/lease.json").unwrap().as_deref(),
        Some(&b"three"[..])
    );
    assert_eq!(
        store.put_if("c/missing.json", b"x", &v2).unwrap(),
        Swap::Changed
    );
    assert_eq!(store.get("c/missing.json").unwrap(), None);
}

#[test]
fn a_local_folder_says_it_has_no_compare_and_swap() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(&tmp.path().join("run").display().to_string()).unwrap();
    store.put("c/lease.json", b"one").unwrap();
    let (_, v) = store.get_versioned("c/lease.json").unwrap().unwrap();
    let v = v.expect("a folder reports versions");
    assert_eq!(
        store.put_if("c/lease.json", b"two", &v).unwrap(),
        Swap::Unsupported
    );
    assert_eq!(
        store.get("c/lease.json").unwrap().as_deref(),
        Some(&b"one"[..])
    );
}

#[test]
fn s3_compare_and_swap() {
    let Some(url) = s3_url("s3_compare_and_swap", "cas") else {
        return;
    };
    exercise_put_if(&Store::open(&url).unwrap());
}

/// A fresh `s3://BUCKET/test-NAME-RANDOM` for `test`, or `None` (after
/// printing `SKIPPED:`) when no S3 server is configured.
fn s3_url(test: &str, name: &str) -> Option<String> {
    if std::env::var_os("AWS_ENDPOINT").is_none() {
        println!("SKIPPED: {test}: AWS_ENDPOINT is unset (scripts/s3-up.sh DIR; . DIR/env)");
        return None;
    }
    let bucket = std::env::var("AWS_BUCKET").unwrap_or_else(|_| "lokizero".into());
    Some(format!(
        "s3://{bucket}/test-{name}-{:08x}",
        rand::random::<u32>()
    ))
}

#[test]
fn a_local_folder_is_a_store() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(&tmp.path().join("run").display().to_string()).unwrap();
    exercise(&store);
    assert!(tmp.path().join("run/a/y.bin").is_file(), "keys are paths");
}

#[test]
fn s3_store_round_trip() {
    let Some(url) = s3_url("s3_store_round_trip", "store") else {
        return;
    };
    let store = Store::open(&url).unwrap();
    exercise(&store);
    // A bucket that does not exist fails at once, named, without retries.
    let missing = Store::open("s3://no-such-bucket-lokizero/x").unwrap();
    let t0 = std::time::Instant::now();
    let err = missing.put("k", b"x").unwrap_err().to_string();
    assert!(err.contains("s3://no-such-bucket-lokizero/x/k"), "{err}");
    assert!(
        t0.elapsed().as_secs() < 30,
        "no long retries for a final error"
    );
}
