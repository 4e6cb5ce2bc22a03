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

/// Print the status.
pub fn run(args: StatusArgs) -> Result<()> {
    let store = store::Store::open(&args.store)?;
    let status = train::cluster::store_status(&store)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&status)?);
    } else {
        print!("{status}");
    }
    Ok(())
}
