//! `lokizero play`: the short form of `lokizero match` for a bundle
//! against random play or another bundle, with the match's options and
//! defaults.

use std::path::PathBuf;

use anyhow::{bail, Result};
use arena::PlayerSpec;
use clap::Args;

use super::matches::{MatchArgs, MatchOptions};

/// Arguments of `lokizero play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Bundle folder (model.json + model.safetensors) of player A.
    #[arg(long)]
    model: PathBuf,
    /// Opponent: `random`, another bundle folder of the same variant, or
    /// any player spec of `lokizero match` (`uct:250ms`, `greedy`, ...).
    #[arg(long, default_value = "random")]
    vs: String,
    #[command(flatten)]
    options: MatchOptions,
}

/// The match `play` stands for: `bundle:MODEL` against the opponent.
///
/// # Errors
/// An opponent that is neither `random`, a bundle folder nor a player spec.
fn as_match(args: PlayArgs) -> Result<MatchArgs> {
    let a = format!("bundle:{}", args.model.display());
    let b = if PathBuf::from(&args.vs).is_dir() {
        format!("bundle:{}", args.vs)
    } else if PlayerSpec::parse(&args.vs).is_ok()
        && (args.vs == "random" || args.vs.contains(':') || args.vs == "greedy")
    {
        args.vs.clone()
    } else {
        bail!(
            "--vs {:?} is neither `random` nor a bundle folder nor a player spec (as `lokizero match` takes them)",
            args.vs
        );
    };
    Ok(MatchArgs {
        a,
        b,
        options: args.options,
    })
}

/// Play the match and print its result from A's view.
pub fn run(args: PlayArgs) -> Result<()> {
    super::matches::run(as_match(args)?)
}
