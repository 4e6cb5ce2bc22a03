//! Where a store is: a local folder or `s3://BUCKET/PREFIX`.

use std::fmt;
use std::path::PathBuf;

use crate::StoreError;

/// A parsed `--store` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A folder on this machine (the default: the run directory).
    Local(PathBuf),
    /// A bucket of an S3-compatible server; the endpoint and credentials
    /// come from the `AWS_*` environment variables.
    S3 {
        /// The bucket's name.
        bucket: String,
        /// Key prefix inside the bucket (no leading or trailing `/`;
        /// empty = the bucket's root), so runs can share a bucket.
        prefix: String,
    },
}

impl Location {
    /// Parse `s3://BUCKET[/PREFIX]` or a folder path. Other URL schemes
    /// (`gs://`, `http://`) are refused by name rather than taken for a
    /// folder called `gs:`.
    ///
    /// # Errors
    /// [`StoreError::Location`]: an empty value, an `s3://` URL without a
    /// bucket, or another scheme.
    pub fn parse(value: &str) -> Result<Location, StoreError> {
        let bad = |reason: &str| StoreError::Location {
            value: value.to_string(),
            reason: reason.to_string(),
        };
        if value.trim().is_empty() {
            return Err(bad("empty"));
        }
        if let Some(rest) = value.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(bad("no bucket (expected s3://BUCKET/PREFIX)"));
            }
            return Ok(Location::S3 {
                bucket: bucket.to_string(),
                prefix: prefix.trim_matches('/').to_string(),
            });
        }
        if let Some((scheme, _)) = value.split_once("://") {
            return Err(bad(&format!(
                "scheme {scheme}:// is not supported (use s3:// for any S3-compatible server, or a folder)"
            )));
        }
        Ok(Location::Local(PathBuf::from(value)))
    }

    /// Whether the store is a local folder.
    pub fn is_local(&self) -> bool {
        matches!(self, Location::Local(_))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Local(dir) => write!(f, "{}", dir.display()),
            Location::S3 { bucket, prefix } if prefix.is_empty() => write!(f, "s3://{bucket}"),
            Location::S3 { bucket, prefix } => write!(f, "s3://{bucket}/{prefix}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_and_print_back() {
        let s3 = Location::parse("s3://runs/shakti/a/").unwrap();
        assert_eq!(
            s3,
            Location::S3 {
                bucket: "runs".into(),
                prefix: "shakti/a".into()
            }
        );
        assert_eq!(s3.to_string(), "s3://runs/shakti/a");
        assert_eq!(Location::parse("s3://b").unwrap().to_string(), "s3://b");
        assert!(Location::parse("runs/x").unwrap().is_local());
        for bad in ["", "s3://", "s3:///x", "gs://b/x"] {
            assert!(Location::parse(bad).is_err(), "{bad}");
        }
    }
}
