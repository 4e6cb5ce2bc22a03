//! `lokizero selfplay`: a self-play worker of a distributed run.

use anyhow::Result;
use clap::Args;
use train::cluster::{read_config, run_worker, WorkerOptions};

/// Arguments of `lokizero selfplay`.
#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// The run's store: `s3://BUCKET/PREFIX` (endpoint, region and
    /// credentials from the AWS_* environment variables) or a folder
    /// shared with the trainer. The worker reads the run config the
    /// trainer wrote there.
    #[arg(long, value_name = "URL")]
    store: String,
    /// This worker's id, unique among the run's workers (A-Z a-z 0-9 _ .;
    /// default: the host name and process id). It names its chunks and its
    /// heartbeat.
    #[arg(long)]
    worker: Option<String>,
    /// Backend of the self-play network (cpu = the fused CPU path).
    #[arg(long, default_value = "cpu")]
    device: model::Backend,
    /// Stop after uploading this many chunks (default: when the run is
    /// finished).
    #[arg(long, value_name = "N", value_parser = super::plain_int::<u64>)]
    max_chunks: Option<u64>,
    /// Seconds between looks at the store while there is nothing to do
    /// (no bundle yet).
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS", value_parser = super::plain_f64)]
    poll: f64,
    /// Hide progress bars.
    #[arg(long)]
    quiet: bool,
}

/// Run a worker.
pub fn run(args: SelfplayArgs) -> Result<()> {
    let store = store::Store::open(&args.store)?;
    let poll = super::train::poll_duration(args.poll)?;
    let worker = args.worker.unwrap_or_else(default_worker_id);
    // A missing bucket or bad credentials are errors, not "no trainer yet".
    store.check_reachable()?;
    let config = loop {
        if let Some(c) = read_config(&store)? {
            break c;
        }
        eprintln!(
            "waiting for a trainer to write {}/config.toml",
            store.describe()
        );
        std::thread::sleep(poll);
    };
    super::set_threads(config.threads);
    let device = args.device.device()?;
    let options = WorkerOptions {
        worker: worker.clone(),
        max_chunks: args.max_chunks,
        poll,
        progress: !args.quiet,
    };
    eprintln!(
        "worker {worker}: {} self-play into {} ({} games per chunk)",
        config.variant,
        store.describe(),
        config.selfplay.games_per_chunk
    );
    let done = rules::with_variant!(config.variant, G => run_worker::<G>(&store, &config, &device, &options)?);
    println!(
        "worker {worker}: uploaded {} chunks, {} games, {} positions",
        done.chunks, done.games, done.positions
    );
    Ok(())
}

/// `HOST_PID`, with characters a worker id may not hold replaced by `_`.
fn default_worker_id() -> String {
    let host = std::fs::read_to_string("/etc/hostname").unwrap_or_else(|_| "worker".into());
    let clean: String = host
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    format!("{clean}_{}", std::process::id())
}
