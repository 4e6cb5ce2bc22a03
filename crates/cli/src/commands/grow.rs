//! `lokizero grow`: a bundle grown to more residual blocks and filters,
//! computing the same function, to continue training with more capacity
//! (`lokizero train --init-from` the grown bundle with `[network]` set to
//! its shape; `model::grow` has the method).

use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use encoding::Encode;
use model::bundle::{load_bundle, peek_variant, save_bundle};
use model::lineage::Ancestor;
use model::weights::Values;
use model::Net;

/// Arguments of `lokizero grow`.
#[derive(Args, Debug)]
pub struct GrowArgs {
    /// Source bundle (e.g. models/losers).
    #[arg(long)]
    model: PathBuf,
    /// Destination folder for the grown bundle (written atomically; an
    /// existing bundle there is replaced).
    #[arg(long)]
    out: PathBuf,
    /// Residual blocks of the grown network (at least the source's); new
    /// blocks go after the old ones and start as the identity.
    #[arg(long)]
    blocks: usize,
    /// Filters of the grown network (at least the source's); new channels
    /// start with random weights that nothing reads yet.
    #[arg(long)]
    filters: usize,
    /// Seed of the new weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Load, grow, and write the bundle.
pub fn run(args: GrowArgs) -> Result<()> {
    let variant = peek_variant(&args.model)?;
    rules::with_variant!(variant, G => grow_for::<G>(&args))
}

fn grow_for<G: Encode>(args: &GrowArgs) -> Result<()> {
    let device = model::device_from_name("cpu").map_err(|e| anyhow!(e))?;
    let (net, mut meta) = load_bundle::<G>(&args.model, &device)?;
    let board = [G::INPUT_PLANES, G::POLICY_PLANES, G::HEIGHT, G::WIDTH];
    let weights = net.read_weights(board, &mut Values).ok_or_else(|| {
        anyhow!(
            "{}: growing a network with the moves-left head is not supported",
            args.model.display()
        )
    })?;
    let grown = model::grow::grow(&weights, args.blocks, args.filters, args.seed)
        .with_context(|| format!("--model {}", args.model.display()))?;
    let big = Net::new(&grown.shape, &device).with_weights(&grown);
    // The grown bundle continues the source's lineage; its strength was
    // measured on the source (the same function, but other weights), so it
    // is not carried over, nor the source's promotion.
    let mut lineage = meta.take_lineage();
    lineage.ancestors.push(Ancestor {
        generation: meta.generation,
        weights_sha256: meta.weights_sha256.clone(),
    });
    lineage.promoted_by = None;
    meta.lineage = Some(lineage);
    meta.strength = serde_json::Value::Null;
    meta.shape = grown.shape.clone();
    save_bundle(&args.out, &big, &meta)?;
    println!(
        "grew {} generation {} from {} blocks x {} filters to {} x {} into {}",
        G::VARIANT,
        meta.generation,
        weights.shape.blocks,
        weights.shape.filters,
        grown.shape.blocks,
        grown.shape.filters,
        args.out.display()
    );
    Ok(())
}
