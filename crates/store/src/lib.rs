//! The object store a run lives in, behind one blocking API.
//!
//! A [`Store`] is an `Arc<dyn object_store::ObjectStore>` with its own
//! tokio runtime, so the rest of lokizero (threads, no async) calls it like
//! a file system:
//! - a local folder ([`object_store::local::LocalFileSystem`]) by default:
//!   keys are paths under the folder, written to a staging file and renamed,
//!   so a reader never sees half an object;
//! - S3 or any S3-compatible server (AWS, Ceph RGW, Garage, MinIO, R2...)
//!   for `s3://BUCKET/PREFIX`, with the endpoint, region and credentials
//!   from the standard `AWS_*` environment variables
//!   (`AmazonS3Builder::from_env`). Credentials are never printed: errors
//!   and [`Store::describe`] name the URL and the key only.
//!
//! Every call is retried with exponential backoff (0.5 s doubling to 8 s)
//! while the store is unreachable or answers with a server error, for up to
//! [`Store::patience`] (default 10 minutes, [`PATIENCE_ENV`] to change), so
//! a restarted server costs waiting, not work. Writes are whole-object
//! PUTs: an object appears complete or not at all.
//!
//! Module map: [`location`] parses `--store` values, [`retry`] holds the
//! backoff loop; the operations are methods of [`Store`] here.
//!
//! A store on a local folder (an `s3://BUCKET/PREFIX` URL works the same):
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let store = store::Store::open(dir.path().to_str().expect("a UTF-8 path"))?;
//! assert!(store.put_new("replay/chunk-1.bin", b"games")?); // created
//! assert!(!store.put_new("replay/chunk-1.bin", b"other")?); // taken: left as it was
//! assert_eq!(store.get("replay/chunk-1.bin")?.as_deref(), Some(&b"games"[..]));
//! assert_eq!(store.list("replay/")?.len(), 1);
//! assert_eq!(store.get("latest.json")?, None);
//! # Ok(())
//! # }
//! ```

pub mod location;
pub mod retry;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures::TryStreamExt;
use object_store::path::Path as Key;
use object_store::{
    ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, PutResult, UpdateVersion,
};

pub use location::Location;
pub use retry::PATIENCE_ENV;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The `--store` value is not a folder path or an `s3://BUCKET/PREFIX` URL.
    #[error("--store {value}: {reason}")]
    Location {
        /// The value given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The store could not be opened (missing region or credentials, a
    /// folder that cannot be created).
    #[error("cannot open the store {store}: {source}")]
    Open {
        /// The store's URL or folder.
        store: String,
        /// The object store's error (it names no credentials).
        source: Box<object_store::Error>,
    },
    /// A request failed for a reason retrying does not cure (access denied,
    /// a bad key), or the store stayed unreachable for the whole patience.
    #[error("{op} {store}/{key}: {source}{}", retry::hint(source))]
    Request {
        /// `get`, `head`, `put`, `list` or `delete`.
        op: &'static str,
        /// The store's URL or folder.
        store: String,
        /// The object's key (or listing prefix).
        key: String,
        /// The object store's error.
        source: Box<object_store::Error>,
    },
    /// S3 settings in the environment that cannot work (named, with the
    /// fix); checked before any request.
    #[error("cannot open the store {store}: {reason}")]
    Settings {
        /// The store's URL.
        store: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// The tokio runtime that drives the store could not be started.
    #[error("cannot start the object store's runtime: {0}")]
    Runtime(#[from] std::io::Error),
}

/// The result of the store's fallible calls.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// One object of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectInfo {
    /// The key, relative to the store's root (`replay/gen-000001/...`).
    pub key: String,
    /// Size in bytes.
    pub size: u64,
    /// When the object was last written (the store's clock).
    pub modified: SystemTime,
}

/// The version of an object a conditional write expects to replace: its
/// entity tag, as the store reported it (quotes and all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version(String);

impl Version {
    /// The entity tag without its surrounding quotes.
    fn unquoted(&self) -> &str {
        self.0.trim_matches('"')
    }
}

/// What a conditional write ([`Store::put_if`]) did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Swap {
    /// Written; the object's new version when the store reported one.
    Written(Option<Version>),
    /// Not written: the object is no longer at the expected version (or is
    /// gone). Also the answer when an earlier attempt of this very call
    /// wrote it and its answer was lost: callers compare the object with
    /// what they wrote.
    Changed,
    /// The store offers no conditional replace (a local folder).
    Unsupported,
}

/// A run's object store (see the crate docs).
#[derive(Debug)]
pub struct Store {
    inner: Arc<dyn ObjectStore>,
    runtime: tokio::runtime::Runtime,
    location: Location,
    patience: Duration,
    /// The server refuses quoted entity tags in `If-Match` (Ceph RGW 16
    /// answers 412 to a matching quoted tag and accepts it unquoted):
    /// learnt from the first conditional write.
    unquoted_etags: AtomicBool,
}

impl Store {
    /// Open the store at `value`: a folder (created if missing) or
    /// `s3://BUCKET[/PREFIX]`.
    ///
    /// # Errors
    /// A malformed value, a folder that cannot be created, S3 settings the
    /// builder refuses (no region, no bucket), or no runtime.
    pub fn open(value: &str) -> Result<Store> {
        Self::at(Location::parse(value)?)
    }

    /// Open the store at `location`.
    ///
    /// # Errors
    /// As [`Store::open`].
    pub fn at(location: Location) -> Result<Store> {
        let patience = retry::patience_from_env().map_err(|e| StoreError::Settings {
            store: location.to_string(),
            reason: e.to_string(),
        })?;
        let open_err = |source| StoreError::Open {
            store: location.to_string(),
            source: Box::new(source),
        };
        let inner: Arc<dyn ObjectStore> = match &location {
            Location::Local(dir) => {
                std::fs::create_dir_all(dir)?;
                Arc::new(
                    object_store::local::LocalFileSystem::new_with_prefix(dir).map_err(open_err)?,
                )
            }
            Location::S3 { bucket, prefix } => {
                check_s3_env(&location)?;
                let mut builder = object_store::aws::AmazonS3Builder::from_env()
                    .with_bucket_name(bucket)
                    .with_retry(retry::client_retry());
                // Only the timeouts: the other client settings (such as
                // AWS_ALLOW_HTTP) stay as the environment set them.
                for (key, value) in retry::client_timeouts() {
                    builder = builder
                        .with_config(object_store::aws::AmazonS3ConfigKey::Client(key), value);
                }
                let s3 = builder.build().map_err(open_err)?;
                if prefix.is_empty() {
                    Arc::new(s3)
                } else {
                    Arc::new(object_store::prefix::PrefixStore::new(
                        s3,
                        Key::from(prefix.as_str()),
                    ))
                }
            }
        };
        // One worker thread drives the requests; any thread may block on
        // a call (the trainer's lease is renewed from a thread of its own).
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("store")
            .enable_all()
            .build()?;
        Ok(Store {
            inner,
            runtime,
            location,
            patience,
            unquoted_etags: AtomicBool::new(false),
        })
    }

    /// Where the store is, for messages (`s3://bucket/prefix` or the
    /// folder; never credentials).
    pub fn describe(&self) -> String {
        self.location.to_string()
    }

    /// Where the store is.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Check that the store answers and its bucket exists with one listing
    /// request (`get` of a missing object in a missing bucket reads as
    /// "no such object", so a worker would otherwise wait forever).
    ///
    /// # Errors
    /// As [`Store::get`]; a missing bucket is a [`StoreError::Request`]
    /// naming `NoSuchBucket`.
    pub fn check_reachable(&self) -> Result<()> {
        self.list_folder("").map(|_| ())
    }

    /// How long a call keeps retrying an unreachable store before it fails.
    pub fn patience(&self) -> Duration {
        self.patience
    }

    /// Set [`Store::patience`].
    pub fn with_patience(mut self, patience: Duration) -> Self {
        self.patience = patience;
        self
    }

    /// The bytes of object `key`, `None` when there is no such object.
    ///
    /// # Errors
    /// [`StoreError::Request`] when the store refuses or stays unreachable.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let path = Key::from(key);
        let got = self.call("get", key, || async {
            match self.inner.get(&path).await {
                Ok(r) => r.bytes().await.map(|b| Some(b.to_vec())),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        })?;
        Ok(got)
    }

    /// Write object `key` whole, replacing any object there. For objects
    /// with a single writer (the pointer, a worker's heartbeat, the lease
    /// its holder renews).
    ///
    /// # Errors
    /// As [`Store::get`].
    pub fn put(&self, key: &str, bytes: &[u8]) -> Result<()> {
        let path = Key::from(key);
        let payload = PutPayload::from(bytes.to_vec());
        self.call("put", key, || async {
            self.inner.put(&path, payload.clone()).await.map(|_| ())
        })
    }

    /// Write object `key` whole only if no object has that key
    /// (`If-None-Match: *` on S3). Returns `true` when this call created
    /// it, `false` when an object was already there (which may be this
    /// call's own earlier attempt, retried after a lost answer: callers
    /// whose keys are unique treat `false` as written).
    ///
    /// # Errors
    /// As [`Store::get`].
    pub fn put_new(&self, key: &str, bytes: &[u8]) -> Result<bool> {
        let path = Key::from(key);
        let payload = PutPayload::from(bytes.to_vec());
        let opts = || PutOptions {
            mode: PutMode::Create,
            ..Default::default()
        };
        self.call("put", key, || async {
            match self.inner.put_opts(&path, payload.clone(), opts()).await {
                Ok(_) => Ok(true),
                Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
                Err(e) => Err(e),
            }
        })
    }

    /// The bytes of object `key` and its version, `None` when there is no
    /// such object. The version is `None` when the store reports none.
    ///
    /// # Errors
    /// As [`Store::get`].
    pub fn get_versioned(&self, key: &str) -> Result<Option<(Vec<u8>, Option<Version>)>> {
        let path = Key::from(key);
        self.call("get", key, || async {
            match self.inner.get(&path).await {
                Ok(r) => {
                    let version = r.meta.e_tag.clone().map(Version);
                    r.bytes().await.map(|b| Some((b.to_vec(), version)))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        })
    }

    /// Replace object `key` whole only if it is still at `version`
    /// (`If-Match` on S3): a compare-and-swap. A server that refuses a
    /// matching quoted entity tag (Ceph RGW 16) is detected on the first
    /// refusal, by reading the object's current tag, and is sent unquoted
    /// tags from then on.
    ///
    /// # Errors
    /// As [`Store::get`].
    pub fn put_if(&self, key: &str, bytes: &[u8], version: &Version) -> Result<Swap> {
        let unquoted = self.unquoted_etags.load(Ordering::Relaxed);
        let tag = if unquoted {
            version.unquoted()
        } else {
            version.0.as_str()
        };
        let first = self.put_update(key, bytes, tag)?;
        if first != Swap::Changed || unquoted || !version.0.starts_with('"') {
            return Ok(first);
        }
        let path = Key::from(key);
        let current = self.call("head", key, || async {
            match self.inner.head(&path).await {
                Ok(meta) => Ok(meta.e_tag),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        })?;
        if current.as_deref() != Some(version.0.as_str()) {
            return Ok(Swap::Changed);
        }
        let second = self.put_update(key, bytes, version.unquoted())?;
        if matches!(second, Swap::Written(_)) {
            self.unquoted_etags.store(true, Ordering::Relaxed);
        }
        Ok(second)
    }

    /// One `PutMode::Update` of `key` expecting entity tag `tag`.
    fn put_update(&self, key: &str, bytes: &[u8], tag: &str) -> Result<Swap> {
        let path = Key::from(key);
        let payload = PutPayload::from(bytes.to_vec());
        let opts = || PutOptions {
            mode: PutMode::Update(UpdateVersion {
                e_tag: Some(tag.to_string()),
                version: None,
            }),
            ..Default::default()
        };
        self.call("put", key, || async {
            match self.inner.put_opts(&path, payload.clone(), opts()).await {
                Ok(PutResult { e_tag, .. }) => Ok(Swap::Written(e_tag.map(Version))),
                Err(
                    object_store::Error::Precondition { .. } | object_store::Error::NotFound { .. },
                ) => Ok(Swap::Changed),
                Err(object_store::Error::NotImplemented { .. }) => Ok(Swap::Unsupported),
                Err(e) => Err(e),
            }
        })
    }

    /// Every object whose key starts with folder `prefix` (`replay/` or
    /// `replay/gen-000001/`; empty = the whole store), sorted by key.
    ///
    /// # Errors
    /// As [`Store::get`].
    pub fn list(&self, prefix: &str) -> Result<Vec<ObjectInfo>> {
        let path = Key::from(prefix.trim_end_matches('/'));
        let mut listed = self.call("list", prefix, || async {
            let stream = self
                .inner
                .list((!prefix.is_empty()).then_some(&path))
                .map_ok(|m| ObjectInfo {
                    key: m.location.to_string(),
                    size: m.size,
                    modified: m.last_modified.into(),
                });
            stream.try_collect::<Vec<_>>().await
        })?;
        listed.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(listed)
    }

    /// One level of folder `prefix` (`replay/`): the objects directly in
    /// it and its sub-folders (`replay/gen-000001/`, with the trailing
    /// `/`), each sorted. One LIST request per 1000 entries, however many
    /// objects the sub-folders hold.
    ///
    /// # Errors
    /// As [`Store::get`].
    pub fn list_folder(&self, prefix: &str) -> Result<(Vec<ObjectInfo>, Vec<String>)> {
        let path = Key::from(prefix.trim_end_matches('/'));
        let listed = self.call("list", prefix, || async {
            self.inner
                .list_with_delimiter((!prefix.is_empty()).then_some(&path))
                .await
        })?;
        let mut objects: Vec<ObjectInfo> = listed
            .objects
            .into_iter()
            .map(|m| ObjectInfo {
                key: m.location.to_string(),
                size: m.size,
                modified: m.last_modified.into(),
            })
            .collect();
        objects.sort_by(|a, b| a.key.cmp(&b.key));
        let mut folders: Vec<String> = listed
            .common_prefixes
            .into_iter()
            .map(|p| format!("{p}/"))
            .collect();
        folders.sort();
        Ok((objects, folders))
    }

    /// Remove object `key` (no error when it is already gone).
    ///
    /// # Errors
    /// As [`Store::get`].
    pub fn delete(&self, key: &str) -> Result<()> {
        let path = Key::from(key);
        self.call("delete", key, || async {
            match self.inner.delete(&path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(e),
            }
        })
    }

    /// Run the request `attempt` makes until it succeeds, fails for good,
    /// or the store stays unreachable for [`Store::patience`].
    fn call<T, F, Fut>(&self, op: &'static str, key: &str, attempt: F) -> Result<T>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = object_store::Result<T>>,
    {
        let what = format!("{op} {}/{key}", self.location);
        retry::with_backoff(&what, self.patience, || self.runtime.block_on(attempt())).map_err(
            |source| StoreError::Request {
                op,
                store: self.location.to_string(),
                key: key.to_string(),
                source: Box::new(source),
            },
        )
    }
}

/// Refuse S3 settings that fail every request with an unhelpful message or
/// a panic: an `AWS_ENDPOINT` that is not an http(s) URL, a plain-http one
/// without `AWS_ALLOW_HTTP=true` (the client reports only "builder
/// error").
fn check_s3_env(location: &Location) -> Result<()> {
    let endpoint = std::env::var("AWS_ENDPOINT")
        .or_else(|_| std::env::var("AWS_ENDPOINT_URL"))
        .unwrap_or_default();
    let allow_http = std::env::var("AWS_ALLOW_HTTP").is_ok_and(|v| v.eq_ignore_ascii_case("true"));
    // The client panics on an endpoint that is not a URL (object_store
    // 0.14 signs requests with `expect`), and retries other schemes.
    let is_url = endpoint.starts_with("http://") || endpoint.starts_with("https://");
    if !endpoint.is_empty() && !is_url {
        return Err(StoreError::Settings {
            store: location.to_string(),
            reason: format!(
                "AWS_ENDPOINT {endpoint:?} is not an http(s) URL \
                 (expected e.g. http://127.0.0.1:7480 or https://s3.example.com)"
            ),
        });
    }
    if endpoint.starts_with("http://") && !allow_http {
        return Err(StoreError::Settings {
            store: location.to_string(),
            reason: format!(
                "AWS_ENDPOINT {endpoint} is plain http; set AWS_ALLOW_HTTP=true to allow it \
                 (or use an https endpoint)"
            ),
        });
    }
    Ok(())
}
