//! `lokizero status`: the state of a distributed run, read from its store.

use anyhow::Result;
use clap::Args;

/// Arguments of `lokizero status`.
#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The run's store: `s3://BUCKET/PREFIX` or a folder.
    #[arg(long, value_name = "URL")]
    store: String,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
}

/// How long `status` retries an unreachable store.
const STATUS_PATIENCE: std::time::Duration = std::time::Duration::from_secs(20);

/// Print the status.
pub fn run(args: StatusArgs) -> Result<()> {
    // A read-only look: never create a folder for a mistyped path.
    if let store::Location::Local(dir) = store::Location::parse(&args.store)? {
        if !dir.is_dir() {
            return Err(anyhow::anyhow!(
                "no run at {}: the folder does not exist",
                dir.display()
            ));
        }
    }
    // Someone watching wants an answer, not the workers' ten minutes of
    // patience with a store that is down (unless the environment sets one).
    let mut store = store::Store::open(&args.store)?;
    if std::env::var_os(store::PATIENCE_ENV).is_none() {
        store = store.with_patience(STATUS_PATIENCE);
    }
    let status = train::cluster::store_status(&store)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&status)?);
    } else {
        print!("{status}");
    }
    Ok(())
}
