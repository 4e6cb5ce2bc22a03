//! The distributed mode end to end: a trainer and self-play workers as
//! separate processes sharing a store (docs/distributed.md). One test runs
//! on a local folder (always); the others need a real S3 server
//! (`scripts/s3-up.sh DIR`, then `. DIR/env`; `.ci/run` does both) and
//! print `SKIPPED:` without `AWS_ENDPOINT`. Each S3 test uses its own key
//! prefix in the bucket.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use store::Store;

const BIN: &str = env!("CARGO_BIN_EXE_lokizero");
/// Longest any process of these tests may run.
const LIMIT: Duration = Duration::from_secs(240);

/// A fresh `s3://BUCKET/PREFIX` for `test`, or `None` (after printing
/// `SKIPPED:`) when no S3 server is configured.
fn s3_url(test: &str) -> Option<String> {
    if std::env::var_os("AWS_ENDPOINT").is_none() {
        println!("SKIPPED: {test}: AWS_ENDPOINT is unset (scripts/s3-up.sh DIR; . DIR/env)");
        return None;
    }
    let bucket = std::env::var("AWS_BUCKET").unwrap_or_else(|_| "lokizero".into());
    Some(format!(
        "s3://{bucket}/test-{test}-{:08x}",
        rand::random::<u32>()
    ))
}

/// A child process whose stderr is collected as it runs.
struct Proc {
    child: Child,
    name: String,
    err: Arc<Mutex<String>>,
}

impl Proc {
    fn spawn(name: &str, args: &[&str], envs: &[(&str, &str)]) -> Proc {
        let mut cmd = Command::new(BIN);
        cmd.args(args).stdout(Stdio::null()).stderr(Stdio::piped());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start lokizero");
        let err = Arc::new(Mutex::new(String::new()));
        let pipe = child.stderr.take().expect("stderr");
        let sink = err.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        Proc {
            child,
            name: name.to_string(),
            err,
        }
    }

    fn stderr(&self) -> String {
        self.err.lock().unwrap().clone()
    }

    /// Wait until stderr holds `needle`; panics after `LIMIT`.
    fn wait_for(&mut self, needle: &str) {
        let t0 = Instant::now();
        while !self.stderr().contains(needle) {
            if let Ok(Some(status)) = self.child.try_wait() {
                std::thread::sleep(Duration::from_millis(200));
                if self.stderr().contains(needle) {
                    return;
                }
                panic!(
                    "{} exited ({status}) before {needle:?}:\n{}",
                    self.name,
                    self.stderr()
                );
            }
            assert!(
                t0.elapsed() < LIMIT,
                "{}: no {needle:?} in time:\n{}",
                self.name,
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Wait for the process to exit; its status and stderr.
    fn finish(mut self) -> (ExitStatus, String) {
        let t0 = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(200));
                return (status, self.stderr());
            }
            if t0.elapsed() > LIMIT {
                let _ = self.child.kill();
                panic!("{} did not finish:\n{}", self.name, self.stderr());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Like [`Proc::finish`], asserting success.
    fn succeed(self) -> String {
        let name = self.name.clone();
        let (status, err) = self.finish();
        assert!(status.success(), "{name} failed ({status}):\n{err}");
        err
    }

    fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig} {}", self.name);
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tiny Shakti config with `generations`, written into `dir`.
fn config(dir: &Path, generations: u32) -> String {
    config_with(dir, generations, 4)
}

/// The tiny Shakti config with `generations` of `games` games each (a tiny
/// generation takes well under a second: tests that need every worker to
/// contribute ask for more games).
fn config_with(dir: &Path, generations: u32, games: usize) -> String {
    let path = dir.join("tiny.toml");
    let text = support::tiny_config(generations, 7).replace(
        "games_per_generation = 4",
        &format!("games_per_generation = {games}"),
    );
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn trainer(url: &str, config: &str, extra: &[&str]) -> Proc {
    let mut args = vec![
        "train", "--store", url, "--config", config, "--quiet", "--poll", "0.3",
    ];
    args.extend_from_slice(extra);
    Proc::spawn("trainer", &args, &[])
}

fn worker(url: &str, id: &str, extra: &[&str]) -> Proc {
    let mut args = vec![
        "selfplay", "--store", url, "--worker", id, "--quiet", "--poll", "0.3",
    ];
    args.extend_from_slice(extra);
    Proc::spawn(id, &args, &[])
}

fn json(store: &Store, key: &str) -> serde_json::Value {
    let bytes = store
        .get(key)
        .unwrap()
        .unwrap_or_else(|| panic!("{key} missing"));
    serde_json::from_slice(&bytes).unwrap()
}

/// Wait until the pointer names generation `g` or later.
fn wait_for_generation(store: &Store, g: u64) {
    let t0 = Instant::now();
    loop {
        if let Some(b) = store.get("latest.json").unwrap() {
            let p: serde_json::Value = serde_json::from_slice(&b).unwrap();
            if p["generation"].as_u64().unwrap() >= g {
                return;
            }
        }
        assert!(t0.elapsed() < LIMIT, "generation {g} never published");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The ledgers of generations 1..=last: no chunk counted twice, and the
/// samples trained stay within the reuse cap (8x the new positions, plus
/// the one step per generation that is always taken).
fn check_ledgers(store: &Store, last: u64) -> Vec<serde_json::Value> {
    let mut counted = std::collections::BTreeSet::new();
    let mut ledgers = Vec::new();
    for g in 1..=last {
        let ledger = json(store, &format!("ledger/gen-{g:06}.json"));
        for c in ledger["counted"].as_array().unwrap() {
            let key = c["key"].as_str().unwrap().to_string();
            assert!(counted.insert(key.clone()), "{key} counted twice");
        }
        ledgers.push(ledger);
    }
    let meta = json(store, &format!("checkpoints/gen-{last:06}/model.json"));
    let t = &meta["training"];
    let (trained, positions) = (
        t["train_samples_total"].as_u64().unwrap(),
        t["selfplay_positions_total"].as_u64().unwrap(),
    );
    assert!(
        trained <= 8 * positions + 32 * last,
        "{trained} samples on {positions} positions"
    );
    ledgers
}

#[test]
fn a_trainer_and_two_workers_on_a_local_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let url = tmp.path().join("store").display().to_string();
    let cfg = config_with(tmp.path(), 2, 200);
    let t = trainer(&url, &cfg, &["--trainer-only"]);
    let (a, b) = (worker(&url, "a", &[]), worker(&url, "b", &[]));
    t.succeed();
    a.succeed();
    b.succeed();
    let store = Store::open(&url).unwrap();
    check_ledgers(&store, 2);
    // A local store is a folder a bundle loader reads as is, and its
    // bundles carry their lineage (generations, and CPU-hours: the workers
    // report the CPU time of each chunk).
    let meta: serde_json::Value = serde_json::from_slice(
        &std::fs::read(tmp.path().join("store/checkpoints/gen-000002/model.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(meta["lineage"]["generations"], 2, "{meta}");
    assert!(
        meta["lineage"]["cpu_hours"].as_f64().unwrap() > 0.0,
        "{meta}"
    );
    let out = Command::new(BIN)
        .args(["status", "--store", &url])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("newest bundle generation 2"), "{text}");
    assert!(text.contains("workers: 2 live of 2"), "{text}");
}

#[test]
fn s3_trainer_and_two_workers_complete_three_generations() {
    let Some(url) = s3_url("three") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config_with(tmp.path(), 3, 100);
    let t = trainer(&url, &cfg, &["--trainer-only"]);
    let (a, b) = (worker(&url, "w1", &[]), worker(&url, "w2", &[]));
    let log = t.succeed();
    assert!(log.contains("generation 3:"), "{log}");
    a.succeed();
    b.succeed();
    let store = Store::open(&url).unwrap();
    let ledgers = check_ledgers(&store, 3);
    let from = |w: &str| {
        ledgers
            .iter()
            .flat_map(|l| l["counted"].as_array().unwrap().clone())
            .any(|c| c["key"].as_str().unwrap().contains(&format!("/{w}-")))
    };
    assert!(
        from("w1") && from("w2"),
        "both workers' games were trained on"
    );
    let out = Command::new(BIN)
        .args(["status", "--store", &url])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("workers: 2 live of 2") && text.contains("w1") && text.contains("w2"),
        "{text}"
    );
    // Credentials never reach a run file or the log.
    let secret = std::env::var("AWS_SECRET_ACCESS_KEY").unwrap_or_default();
    if !secret.is_empty() {
        assert!(!log.contains(&secret) && !text.contains(&secret));
        for o in store.list("").unwrap() {
            let bytes = store.get(&o.key).unwrap().unwrap_or_default();
            let hit = bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
            assert!(!hit, "{} holds the secret", o.key);
        }
    }
}

#[test]
fn s3_single_process_train_plays_and_trains() {
    let Some(url) = s3_url("single") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(tmp.path(), 1);
    trainer(&url, &cfg, &[]).succeed();
    let store = Store::open(&url).unwrap();
    check_ledgers(&store, 1);
    // Resuming a finished run does nothing and succeeds.
    let again = trainer(&url, &cfg, &[]).succeed();
    assert!(
        again.contains("generation 1 is the last published") && again.contains("nothing to train"),
        "{again}"
    );
}

/// `--cpu-budget` on a store: the trainer stops after the generation that
/// spends it, and the pointer ends the run there, so workers stop too.
#[test]
fn a_cpu_budget_ends_a_run_in_a_store() {
    let tmp = tempfile::tempdir().unwrap();
    let url = tmp.path().join("store").display().to_string();
    let cfg = config(tmp.path(), 3);
    let log = trainer(&url, &cfg, &["--cpu-budget", "0.001"]).succeed();
    assert!(
        log.contains("CPU budget spent") && log.contains("after generation 1"),
        "{log}"
    );
    let store = Store::open(&url).unwrap();
    let pointer = json(&store, "latest.json");
    assert_eq!(pointer["generation"], 1, "{pointer}");
    assert_eq!(pointer["last_generation"], 1, "{pointer}");
    let w = worker(&url, "late", &[]).succeed();
    assert!(w.contains("run finished at generation 1"), "{w}");
}

/// `branch_fraction` on a store: the games played for generation 2 start
/// from positions of generation 1's games, which the player reads from
/// the store (a worker on another machine has no other copy).
#[test]
fn branched_self_play_in_a_store_starts_from_earlier_games() {
    use rules::Game;
    let tmp = tempfile::tempdir().unwrap();
    let url = tmp.path().join("store").display().to_string();
    let path = tmp.path().join("branch.toml");
    let text = support::tiny_config(2, 7).replace(
        "games_per_chunk = 2",
        "games_per_chunk = 2\nbranch_fraction = 1.0",
    );
    std::fs::write(&path, text).unwrap();
    trainer(&url, &path.display().to_string(), &[]).succeed();
    let store = Store::open(&url).unwrap();
    let starts = |label: u32| -> Vec<String> {
        let mut starts = Vec::new();
        for o in store.list(&format!("replay/gen-{label:06}/")).unwrap() {
            let bytes = store.get(&o.key).unwrap().unwrap();
            let chunk =
                selfplay::replay::decode_chunk_for::<rules::Shakti>(&bytes, Path::new(&o.key))
                    .unwrap();
            starts.extend(chunk.games.into_iter().map(|r| r.start));
        }
        starts
    };
    let start = rules::Shakti::start().to_text();
    let first = starts(0);
    assert!(!first.is_empty() && first.iter().all(|s| *s == start));
    let branched = starts(1);
    assert!(!branched.is_empty());
    assert!(branched.iter().all(|s| *s != start), "{branched:?}");
}

/// Resignation on a store: each generation measures the false positives
/// of the workers' played-out games (the figures they write next to each
/// chunk), calibrates the next threshold, and the pointer hands it to the
/// workers; the workers' CPU time counts in the generation's.
#[test]
fn resignation_is_recalibrated_through_the_store() {
    let tmp = tempfile::tempdir().unwrap();
    let url = tmp.path().join("store").display().to_string();
    let path = tmp.path().join("resign.toml");
    let text = support::tiny_config(2, 7).replace(
        "games_per_chunk = 2\n",
        "games_per_chunk = 2\nresign = true\nresign_threshold = 1.0\n\
         resign_threshold_max = 1.0\nresign_consecutive = 1\nresign_playout_fraction = 0.5\n",
    );
    std::fs::write(&path, text).unwrap();
    let t = trainer(&url, &path.display().to_string(), &["--trainer-only"]);
    let w = worker(&url, "w1", &[]);
    t.succeed();
    w.succeed();
    let store = Store::open(&url).unwrap();
    let lines = store_metrics(&store);
    assert_eq!(lines.len(), 2);
    let first = &lines[0];
    assert_eq!(first["resign_threshold"], 1.0, "{first}");
    let (resigned, played_out) = (
        first["resigned_games"].as_u64().unwrap(),
        first["resign_played_out_games"].as_u64().unwrap(),
    );
    assert_eq!(
        resigned + played_out,
        first["games"].as_u64().unwrap(),
        "{first}"
    );
    let next = first["resign_threshold_next"].as_f64().unwrap();
    assert!((-1.0..=1.0).contains(&next), "{first}");
    assert_eq!(lines[1]["resign_threshold"].as_f64().unwrap(), next);
    let pointer = json(&store, "latest.json");
    assert_eq!(
        pointer["resign_threshold"].as_f64().unwrap(),
        lines[1]["resign_threshold_next"].as_f64().unwrap(),
        "{pointer}"
    );
    // CPU time is recorded: a generation's own share can read 0 on a fast
    // generation (the process clock ticks coarsely), the running total not.
    for line in &lines {
        assert!(line["cpu_seconds"].as_f64().unwrap() >= 0.0, "{line}");
    }
    let last = &lines[lines.len() - 1];
    assert!(last["cpu_seconds_total"].as_f64().unwrap() > 0.0, "{last}");
}

/// `[eval]` with gating for the tiny config: a short match against the
/// generation self-play used and two baselines.
const EVAL: &str = r#"
[eval]
enabled = true
games_vs_previous = 4
games_vs_random = 2
anchors = ["uct:8"]
games_vs_anchors = 2
simulations = 4
concurrency = 2
ply_cap = 40
opening_plies = 2
gate = true
"#;

/// The store's `metrics.jsonl`, one JSON value per line.
fn store_metrics(store: &Store) -> Vec<serde_json::Value> {
    let bytes = store.get("metrics.jsonl").unwrap().expect("metrics.jsonl");
    String::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The trainer of a run in a store runs the generation loop of a run
/// directory: `[eval]` matches and gating, `metrics.jsonl` and the
/// learning curve, and a resumed trainer restores a lost metrics line.
#[test]
fn s3_trainer_evaluates_logs_metrics_and_draws_the_learning_curve() {
    let Some(url) = s3_url("eval") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("eval.toml");
    std::fs::write(&path, support::tiny_config(2, 5) + EVAL).unwrap();
    let cfg = path.display().to_string();
    let t = trainer(&url, &cfg, &["--trainer-only"]);
    let w = worker(&url, "w1", &[]);
    let log = t.succeed();
    w.succeed();
    assert!(
        log.contains("generation 2:") && log.contains("random: +"),
        "{log}"
    );
    let store = Store::open(&url).unwrap();
    let lines = store_metrics(&store);
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (i, m) in lines.iter().enumerate() {
        let g = i as u64 + 1;
        assert_eq!(m["generation"], g);
        let eval = &m["eval"];
        assert_eq!(eval["generation"], g, "{m}");
        assert_eq!(eval["vs_previous"]["games"], 4, "{m}");
        assert_eq!(
            eval["vs_previous"]["opponent"],
            format!("gen-{:06}", m["selfplay_generation"].as_u64().unwrap())
        );
        assert_eq!(eval["baselines"][0]["opponent"], "random");
        assert_eq!(eval["baselines"][1]["opponent"], "uct:8");
        assert!(m["promoted"].is_boolean(), "{m}");
        assert!(m["cpu_seconds_total"].as_f64().unwrap() > 0.0, "{m}");
        // The bundle carries the same record.
        let meta = json(&store, &format!("checkpoints/gen-{g:06}/model.json"));
        assert_eq!(meta["training"]["eval"], m["eval"]);
    }
    // Generation 1 played generation 0, the origin of the Elo chain.
    assert!(lines[0]["elo"].is_number(), "{}", lines[0]);
    // Self-play follows the gate: the pointer names the bundle to play
    // when the newest was not promoted.
    let pointer = json(&store, "latest.json");
    let promoted = lines[1]["promoted"].as_bool().unwrap();
    assert_eq!(pointer["selfplay"].is_null(), promoted, "{pointer}");
    let png = store
        .get("learning-curve.png")
        .unwrap()
        .expect("learning curve");
    assert_eq!(&png[1..4], b"PNG");
    // A trainer killed between the pointer and the log loses the newest
    // line; the next start restores it from the bundle.
    let text = String::from_utf8(store.get("metrics.jsonl").unwrap().unwrap()).unwrap();
    let first_line = text.lines().next().unwrap().to_string() + "\n";
    store.put("metrics.jsonl", first_line.as_bytes()).unwrap();
    let again = trainer(&url, &cfg, &["--trainer-only"]).succeed();
    assert!(
        again.contains("generation 2 is the last published"),
        "{again}"
    );
    assert_eq!(store_metrics(&store), lines);
}

/// Body bytes of a chunk upload the relay passes on before it holds the
/// rest back.
const STALL_AFTER: usize = 1024;

/// What a [`relay`] does to the uploads of replay chunks.
#[derive(Clone)]
enum Hold {
    /// Pass everything slowly (1 KiB per 20 ms), count a chunk's body
    /// bytes here, and hold the rest of the body back after
    /// [`STALL_AFTER`] bytes: the server has half an upload.
    Stall(Arc<AtomicUsize>),
    /// Hold every chunk upload, whole, until the flag is set.
    Gate(Arc<AtomicBool>),
}

/// A TCP relay to the S3 server (`target` is `host:port`) that passes
/// everything but replay-chunk PUTs as is and treats those as `hold` says,
/// so a test can kill a worker in the middle of an upload or keep a chunk
/// in flight. Returns the relay's endpoint URL.
fn relay(target: String, hold: Hold) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for client in listener.incoming().map_while(Result::ok) {
            let server = TcpStream::connect(&target).unwrap();
            let hold = hold.clone();
            let (mut c_read, mut s_write) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (mut s_read, mut c_write) = (server, client);
            std::thread::spawn(move || {
                let mut buf = [0u8; 1024];
                let mut in_chunk_put = false;
                while let Ok(n) = c_read.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let text = String::from_utf8_lossy(&buf[..n]);
                    let first = text.starts_with("PUT ");
                    if first {
                        in_chunk_put = text.lines().next().unwrap_or("").contains("/replay/");
                    }
                    match &hold {
                        Hold::Stall(counter) if in_chunk_put && !first => {
                            if counter.load(Ordering::SeqCst) >= STALL_AFTER {
                                // Hold the rest of the body until the client dies.
                                continue;
                            }
                            counter.fetch_add(n, Ordering::SeqCst);
                        }
                        Hold::Gate(open) if in_chunk_put => {
                            while !open.load(Ordering::SeqCst) {
                                std::thread::sleep(Duration::from_millis(20));
                            }
                        }
                        _ => {}
                    }
                    if s_write.write_all(&buf[..n]).is_err() {
                        break;
                    }
                    if matches!(hold, Hold::Stall(_)) {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
                let _ = s_write.shutdown(std::net::Shutdown::Both);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut s_read, &mut c_write);
                let _ = c_write.shutdown(std::net::Shutdown::Both);
            });
        }
    });
    format!("http://{addr}")
}

/// The S3 endpoint as `host:port`.
fn endpoint_address() -> String {
    let endpoint = std::env::var("AWS_ENDPOINT").unwrap();
    endpoint
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string()
}

#[test]
fn s3_worker_killed_mid_upload_leaves_no_partial_chunk() {
    let Some(url) = s3_url("kill") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(tmp.path(), 1);
    let mut t = trainer(&url, &cfg, &["--trainer-only"]);
    let store = Store::open(&url).unwrap();
    wait_for_generation(&store, 0);
    let sent = Arc::new(AtomicUsize::new(0));
    let relay = relay(endpoint_address(), Hold::Stall(sent.clone()));
    let victim = Proc::spawn(
        "victim",
        &["selfplay", "--store", &url, "--worker", "victim", "--quiet"],
        &[("AWS_ENDPOINT", relay.as_str())],
    );
    let t0 = Instant::now();
    while sent.load(Ordering::SeqCst) < STALL_AFTER {
        assert!(
            t0.elapsed() < LIMIT,
            "the victim never uploaded:\n{}",
            victim.stderr()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    victim.signal("-KILL");
    drop(victim);
    std::thread::sleep(Duration::from_millis(500));
    let partial: Vec<_> = store
        .list("replay/")
        .unwrap()
        .into_iter()
        .filter(|o| o.key.contains("/victim-"))
        .collect();
    assert!(partial.is_empty(), "a killed upload left {partial:?}");
    // The run goes on with another worker; every chunk it read was whole.
    let w = worker(&url, "rescuer", &[]);
    t.wait_for("generation 1:");
    let err = t.succeed();
    w.succeed();
    assert!(!err.contains("skipping"), "{err}");
    check_ledgers(&store, 1);
}

#[test]
fn s3_gateway_restarted_during_a_run_loses_nothing() {
    let Some(url) = s3_url("restart") else { return };
    let Ok(s3_dir) = std::env::var("LOKIZERO_S3_DIR") else {
        println!("SKIPPED: s3 restart: LOKIZERO_S3_DIR is unset (the DIR of scripts/s3-up.sh)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config_with(tmp.path(), 3, 100);
    let t = trainer(&url, &cfg, &["--trainer-only"]);
    let w = worker(&url, "steady", &[]);
    let store = Store::open(&url).unwrap();
    wait_for_generation(&store, 1);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/s3-up.sh");
    let ok = Command::new(script)
        .args([&s3_dir, "--restart-gateway"])
        .status()
        .unwrap()
        .success();
    assert!(ok, "restarting the gateway");
    let err = t.succeed();
    let werr = w.succeed();
    assert!(err.contains("generation 3:"), "{err}");
    // The outage was seen and ridden out (the trainer polls every 0.3 s).
    assert!(err.contains("store reachable again"), "{err}\n{werr}");
    check_ledgers(&store, 3);
}

/// A real chunk's bytes: one worker chunk played into a scratch store.
fn real_chunk(url: &str, tmp: &Path) -> Vec<u8> {
    let scratch = tmp.join("scratch").display().to_string();
    let cfg = config(tmp, 1);
    let _ = url;
    trainer(&scratch, &cfg, &[]).succeed();
    let store = Store::open(&scratch).unwrap();
    let key = store
        .list("replay/")
        .unwrap()
        .into_iter()
        .map(|o| o.key)
        .next()
        .unwrap();
    store.get(&key).unwrap().unwrap()
}

#[test]
fn s3_corrupt_truncated_and_foreign_objects_are_named_and_skipped() {
    let Some(url) = s3_url("corrupt") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let good = real_chunk(&url, tmp.path());
    let store = Store::open(&url).unwrap();
    let key = |w: &str| format!("replay/gen-000000/{w}-00000000000000aa-g2-p20.bin");
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0xff;
    let chunk = selfplay::replay::decode_chunk(&good, Path::new("good")).unwrap();
    let losers = selfplay::Chunk {
        variant: rules::VariantId::Losers,
        ..chunk
    };
    let bad = [
        (key("flipped"), flipped),
        (key("truncated"), good[..good.len() / 2].to_vec()),
        (key("foreign"), selfplay::replay::encode_chunk(&losers)),
        ("replay/notes.txt".to_string(), b"not a chunk".to_vec()),
    ];
    for (k, bytes) in &bad {
        store.put(k, bytes).unwrap();
    }
    let cfg = config(tmp.path(), 1);
    let err = trainer(&url, &cfg, &[]).succeed();
    for (k, _) in &bad {
        assert!(
            err.contains(&format!("skipping {url}/{k}")),
            "{k} not named:\n{err}"
        );
    }
    assert!(
        err.contains("checksum mismatch") && err.contains("losers"),
        "{err}"
    );
    let ledger = json(&store, "ledger/gen-000001.json");
    assert_eq!(
        ledger["skipped"].as_array().unwrap().len(),
        bad.len(),
        "{ledger}"
    );
}

#[test]
fn s3_worker_on_an_old_bundle_keeps_contributing_then_picks_up_the_new_one() {
    let Some(url) = s3_url("old") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(tmp.path(), 2);
    let t = trainer(&url, &cfg, &["--trainer-only"]);
    let store = Store::open(&url).unwrap();
    wait_for_generation(&store, 0);
    // The slow worker's first chunk, played with generation 0, is held in
    // flight (a relay holds its upload) while generation 1 is published.
    let open = Arc::new(AtomicBool::new(false));
    let gated = relay(endpoint_address(), Hold::Gate(open.clone()));
    let mut slow = Proc::spawn(
        "slow",
        &[
            "selfplay", "--store", &url, "--worker", "slow", "--quiet", "--poll", "0.3",
        ],
        &[("AWS_ENDPOINT", gated.as_str())],
    );
    slow.wait_for("playing with generation 0");
    let fast = worker(&url, "fast", &["--max-chunks", "2"]);
    fast.succeed();
    wait_for_generation(&store, 1);
    open.store(true, Ordering::SeqCst);
    slow.wait_for("playing with generation 1");
    t.succeed();
    slow.succeed();
    let ledgers = check_ledgers(&store, 2);
    let stale = ledgers[1]["counted"].as_array().unwrap().iter().any(|c| {
        c["key"]
            .as_str()
            .unwrap()
            .starts_with("replay/gen-000000/slow-")
    });
    assert!(
        stale,
        "generation 2 trained on the old bundle's games: {}",
        ledgers[1]
    );
}

#[test]
fn s3_bundle_of_another_variant_is_refused() {
    let Some(url) = s3_url("variant") else { return };
    let tmp = tempfile::tempdir().unwrap();
    // A run whose pointer names a losers bundle (written by hand).
    let losers = tmp.path().join("losers");
    let cpu = model::device_from_name("cpu").unwrap();
    bot::write_untrained_bundle(&losers, rules::VariantId::Losers, 1, 8, 16, &cpu).unwrap();
    let store = Store::open(&url).unwrap();
    for name in ["model.json", "model.safetensors"] {
        let bytes = std::fs::read(losers.join(name)).unwrap();
        store
            .put(&format!("checkpoints/gen-000000/{name}"), &bytes)
            .unwrap();
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(losers.join("model.json")).unwrap()).unwrap();
    let pointer = serde_json::json!({
        "variant": "shakti", "generation": 0, "bundle": "checkpoints/gen-000000",
        "weights_sha256": meta["weights_sha256"], "first_generation": 0,
        "last_generation": 1, "published_unix": 0
    });
    store
        .put("latest.json", pointer.to_string().as_bytes())
        .unwrap();
    store
        .put("config.toml", support::tiny_config(1, 7).as_bytes())
        .unwrap();
    let mut w = worker(&url, "picky", &[]);
    w.wait_for("refusing bundle");
    let err = w.stderr();
    assert!(err.contains("losers"), "{err}");
    assert!(
        store.list("replay/").unwrap().is_empty(),
        "nothing played with it"
    );
    // A trainer with a losers config is refused on a shakti run.
    let cfg = tmp.path().join("losers.toml");
    std::fs::write(
        &cfg,
        support::tiny_config(1, 7).replace("\"shakti\"", "\"losers\""),
    )
    .unwrap();
    let (status, err) = trainer(&url, &cfg.display().to_string(), &[]).finish();
    assert!(
        !status.success() && err.contains("holds a shakti run"),
        "{err}"
    );
}

#[test]
fn s3_second_trainer_is_refused_by_the_lease() {
    let Some(url) = s3_url("lease") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(tmp.path(), 1);
    let first = trainer(&url, &cfg, &["--trainer-only", "--lease-ttl", "4"]);
    let store = Store::open(&url).unwrap();
    wait_for_generation(&store, 0);
    let (status, err) = trainer(&url, &cfg, &["--trainer-only"]).finish();
    assert!(
        !status.success() && err.contains("has a trainer already"),
        "{err}"
    );
    // A killed trainer's lease lapses and a new trainer takes over.
    first.signal("-KILL");
    drop(first);
    std::thread::sleep(Duration::from_secs(5));
    let next = trainer(&url, &cfg, &[]);
    let err = next.succeed();
    assert!(
        err.contains("taking over the expired trainer lease"),
        "{err}"
    );
    assert!(
        store.get("lease.json").unwrap().is_none(),
        "released at exit"
    );
}

/// S3 set-up mistakes a new user makes are named with their fix, at once:
/// a missing bucket (a worker would otherwise wait for a trainer forever),
/// a plain-http endpoint without `AWS_ALLOW_HTTP`, no credentials.
#[test]
fn s3_set_up_mistakes_are_named() {
    let Some(_) = s3_url("setup") else { return };
    let run = |args: &[&str], envs: &[(&str, &str)], unset: &[&str]| {
        let mut cmd = Command::new(BIN);
        cmd.args(args).env(store::PATIENCE_ENV, "5");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        for k in unset {
            cmd.env_remove(k);
        }
        let out = cmd.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let missing = "s3://lokizero-no-such-bucket/run";
    let (code, err) = run(
        &["selfplay", "--store", missing, "--max-chunks", "1"],
        &[],
        &[],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("the bucket does not exist"), "{err}");
    assert!(!err.contains("waiting for a trainer"), "{err}");
    let (code, err) = run(&["status", "--store", missing], &[], &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("the bucket does not exist"), "{err}");
    let bucket = std::env::var("AWS_BUCKET").unwrap_or_else(|_| "lokizero".into());
    let url = format!("s3://{bucket}/setup");
    if std::env::var("AWS_ENDPOINT").is_ok_and(|e| e.starts_with("http://")) {
        let (code, err) = run(&["status", "--store", &url], &[], &["AWS_ALLOW_HTTP"]);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains("set AWS_ALLOW_HTTP=true"), "{err}");
    }
    let (code, err) = run(
        &["status", "--store", &url],
        &[],
        &["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("no S3 credentials found"), "{err}");
    // A malformed patience was silently replaced by ten minutes.
    let (code, err) = run(
        &["status", "--store", &url],
        &[(store::PATIENCE_ENV, "5s")],
        &[],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("is not a number of seconds"), "{err}");
    // An endpoint without a scheme made the S3 client panic.
    let (code, err) = run(
        &["status", "--store", &url],
        &[("AWS_ENDPOINT", "127.0.0.1:7480")],
        &[],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("is not an http(s) URL"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let (code, err) = run(
        &["status", "--store", &url],
        &[("AWS_SECRET_ACCESS_KEY", "wrong")],
        &[],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("the store refused the credentials"), "{err}");
}
