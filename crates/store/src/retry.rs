//! Retrying store calls: the object store client's own short retries per
//! request, and around them a loop with exponential backoff that rides out
//! a store that is down for minutes (a restarted server, a network cut).

use std::time::{Duration, Instant};

/// Environment variable: seconds a call keeps retrying an unreachable store
/// before it fails (default 600).
pub const PATIENCE_ENV: &str = "LOKIZERO_STORE_PATIENCE_S";

const DEFAULT_PATIENCE: Duration = Duration::from_secs(600);
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(8);

/// [`PATIENCE_ENV`] or the default of 10 minutes.
///
/// # Errors
/// A value that is not a finite number of seconds >= 0 (`5s`, `-1`): named,
/// rather than silently replaced by the default.
pub(crate) fn patience_from_env() -> Result<Duration, BadPatience> {
    let Ok(text) = std::env::var(PATIENCE_ENV) else {
        return Ok(DEFAULT_PATIENCE);
    };
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .ok_or(BadPatience { text })
}

/// A [`PATIENCE_ENV`] value that is not a finite number of seconds >= 0.
#[derive(Debug, thiserror::Error)]
#[error("{PATIENCE_ENV}={text:?} is not a number of seconds >= 0")]
pub struct BadPatience {
    /// The value as set.
    pub text: String,
}

/// The S3 client's per-request retries: a few quick ones (the outer loop
/// waits longer).
pub(crate) fn client_retry() -> object_store::RetryConfig {
    object_store::RetryConfig {
        backoff: object_store::BackoffConfig::default(),
        max_retries: 3,
        retry_timeout: Duration::from_secs(15),
    }
}

/// Timeouts of one S3 request (connect 5 s, whole request 60 s): a hung
/// server fails the request (and the outer loop retries) instead of
/// blocking a worker forever.
pub(crate) fn client_timeouts() -> [(object_store::ClientConfigKey, &'static str); 2] {
    [
        (object_store::ClientConfigKey::ConnectTimeout, "5s"),
        (object_store::ClientConfigKey::Timeout, "60s"),
    ]
}

/// Whether retrying may cure `e`: the store was unreachable or answered
/// with a server error (a `Generic` error of the client). Not found,
/// already exists, access denied and bad keys are final.
pub(crate) fn transient(e: &object_store::Error) -> bool {
    use object_store::Error as E;
    match e {
        E::Generic { source, .. } => !denied(&source.to_string()),
        E::JoinError { .. } => true,
        _ => false,
    }
}

/// An S3 answer that no retry changes (credentials, permissions, bucket).
/// Matched by words, not by a bare "403": a failed request's text carries
/// its timing (`in 361.403488ms`), which once made a refused connection
/// look final.
fn denied(text: &str) -> bool {
    [
        "Forbidden",
        "AccessDenied",
        "NoSuchBucket",
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
    ]
    .iter()
    .any(|s| text.contains(s))
}

/// A hint appended to a failed request's message for the causes whose
/// client text does not say what to do ("" when there is none).
pub(crate) fn hint(e: &object_store::Error) -> &'static str {
    let text = e.to_string();
    if text.contains("169.254.169.254") {
        // No key in the environment: the client fell back to the cloud
        // instance metadata service, which is not there.
        "\n(no S3 credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
    } else if text.contains("SignatureDoesNotMatch") || text.contains("InvalidAccessKeyId") {
        "\n(the store refused the credentials: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
    } else if text.contains("NoSuchBucket") {
        "\n(the bucket does not exist: create it, or fix the bucket in --store)"
    } else {
        ""
    }
}

/// Run `attempt` until it succeeds, fails for good, or `patience` has passed
/// since the first failure; between tries wait 0.5 s, doubling to 8 s. The
/// first failure and the recovery are reported on stderr (`what` names the
/// call; it holds no credentials).
pub(crate) fn with_backoff<T>(
    what: &str,
    patience: Duration,
    mut attempt: impl FnMut() -> object_store::Result<T>,
) -> object_store::Result<T> {
    let mut failing_since: Option<Instant> = None;
    let mut wait = FIRST_BACKOFF;
    loop {
        match attempt() {
            Ok(v) => {
                if let Some(t) = failing_since {
                    eprintln!(
                        "store reachable again after {:.1} s: {what}",
                        t.elapsed().as_secs_f64()
                    );
                }
                return Ok(v);
            }
            Err(e) if transient(&e) => {
                let since = *failing_since.get_or_insert_with(|| {
                    eprintln!(
                        "store unreachable ({}); retrying {what} for up to {} s",
                        short(&e),
                        patience.as_secs()
                    );
                    Instant::now()
                });
                if since.elapsed() >= patience {
                    return Err(e);
                }
                std::thread::sleep(wait.min(patience.saturating_sub(since.elapsed())));
                wait = (wait * 2).min(MAX_BACKOFF);
            }
            Err(e) => return Err(e),
        }
    }
}

/// The first line of an error, shortened, for the one warning line.
fn short(e: &object_store::Error) -> String {
    const MAX: usize = 200;
    let text = e.to_string();
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() <= MAX {
        return line.to_string();
    }
    // Cut at a word and say so (the final error prints the whole text).
    let head: String = line.chars().take(MAX).collect();
    let head = head.rsplit_once(' ').map_or(head.as_str(), |(h, _)| h);
    format!("{head} ...")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_message_is_cut_at_a_word_and_marked() {
        let long = format!("{} tail", "word ".repeat(60));
        let cut = short(&generic(&long));
        assert!(cut.ends_with("word ..."), "{cut}");
        assert!(cut.chars().count() <= 204, "{cut}");
        assert_eq!(short(&generic("brief")), generic("brief").to_string());
    }

    fn generic(msg: &str) -> object_store::Error {
        object_store::Error::Generic {
            store: "S3",
            source: msg.to_string().into(),
        }
    }

    #[test]
    fn transient_errors_are_retried_until_they_pass() {
        let mut left = 2;
        let r = with_backoff("get x", Duration::from_secs(5), || {
            if left > 0 {
                left -= 1;
                Err(generic("connection refused"))
            } else {
                Ok(7)
            }
        });
        assert_eq!(r.unwrap(), 7);
    }

    /// The text of a refused connection during a gateway restart (seen in
    /// CI): its timing holds the digits 403, and it is transient.
    #[test]
    fn a_refused_connection_whose_timing_holds_403_is_transient() {
        let text = "Error performing list request: Error performing GET \
            http://127.0.0.1:7480/lokizero?list-type=2 in 361.403488ms, after 3 retries, \
            max_retries: 3, retry_timeout: 15s - HTTP error: error sending request: client \
            error (Connect): tcp connect error: Connection refused (os error 111)";
        assert!(transient(&generic(text)));
        let refused = "Client error with status 403 Forbidden: <Code>AccessDenied</Code>";
        assert!(!transient(&generic(refused)));
    }

    #[test]
    fn final_errors_and_exhausted_patience_fail() {
        let mut tries = 0;
        let r: object_store::Result<()> = with_backoff("get x", Duration::from_secs(5), || {
            tries += 1;
            Err(generic("403 Forbidden: AccessDenied"))
        });
        assert!(r.is_err());
        assert_eq!(tries, 1);
        let r: object_store::Result<()> = with_backoff("get x", Duration::ZERO, || {
            Err(generic("connection refused"))
        });
        assert!(r.is_err());
    }
}
