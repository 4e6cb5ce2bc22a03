//! `lokizero grow`: a bundle grown to more residual blocks and filters,
//! or given a moves-left head, computing the same function, to continue
//! training with more capacity (`lokizero train --init-from` the grown
//! bundle with `[network]` set to its shape; `model::grow` has the method).

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use burn::tensor::Device;
use clap::Args;
use encoding::Encode;
use model::bundle::{load_bundle, peek_variant, save_bundle};
use model::lineage::Ancestor;
use model::weights::Values;
use model::{Net, NetShape};

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
    /// Residual blocks of the grown network (at least the source's; default
    /// the source's); new blocks go after the old ones and start as the
    /// identity.
    #[arg(long, value_parser = super::plain_int::<usize>)]
    blocks: Option<usize>,
    /// Filters of the grown network (at least the source's; default the
    /// source's); new channels start with random weights that nothing reads
    /// yet.
    #[arg(long, value_parser = super::plain_int::<usize>)]
    filters: Option<usize>,
    /// Add a moves-left head (Lc0's: predicted plies to the end, with which
    /// the search prefers sooner wins), predicting the same plies for every
    /// position until trained; then train with `[network] moves_left = true`.
    #[arg(long)]
    moves_left: bool,
    /// Seed of the new weights.
    #[arg(long, default_value_t = 1, value_parser = super::plain_int::<u64>)]
    seed: u64,
}

/// Load, grow, and write the bundle.
pub fn run(args: GrowArgs) -> Result<()> {
    let variant = peek_variant(&args.model)?;
    rules::with_variant!(variant, G => grow_for::<G>(&args))
}

fn grow_for<G: Encode>(args: &GrowArgs) -> Result<()> {
    let device = model::Backend::Cpu.device()?;
    let (net, mut meta) = load_bundle::<G>(&args.model, &device)?;
    let (old, mut shape) = (meta.shape.clone(), meta.shape.clone());
    shape.blocks = args.blocks.unwrap_or(old.blocks);
    shape.filters = args.filters.unwrap_or(old.filters);
    shape.moves_left = old.moves_left || args.moves_left;
    if args.moves_left && old.moves_left {
        bail!(
            "{}: the network already has a moves-left head",
            args.model.display()
        );
    }
    if shape == old {
        bail!("nothing to grow: give --blocks or --filters above the source's ({} x {}), or --moves-left", old.blocks, old.filters);
    }
    let mut big = net;
    if (shape.blocks, shape.filters) != (old.blocks, old.filters) {
        big = grow_trunk::<G>(&big, &shape, args, &device)?;
    }
    if args.moves_left {
        big = model::grow::add_moves_left_head(&big, NEW_HEAD_PLIES)
            .with_context(|| format!("--model {}", args.model.display()))?;
    }
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
    meta.shape = shape.clone();
    save_bundle(&args.out, &big, &meta)?;
    println!(
        "grew {} generation {} from {} blocks x {} filters{} to {} x {}{} into {}",
        G::VARIANT,
        meta.generation,
        old.blocks,
        old.filters,
        head_note(old.moves_left),
        shape.blocks,
        shape.filters,
        head_note(shape.moves_left),
        args.out.display()
    );
    Ok(())
}

/// The words the summary line adds for a network with the moves-left head.
fn head_note(moves_left: bool) -> &'static str {
    if moves_left {
        " with moves-left head"
    } else {
        ""
    }
}

/// Plies a new moves-left head predicts everywhere before training: about
/// half a typical game (losers self-play averages ~95 plies), so the first
/// discount is near the trained head's average.
const NEW_HEAD_PLIES: f32 = 50.0;

/// `net` grown to `shape`'s blocks and filters (`model::grow::grow`).
fn grow_trunk<G: Encode>(
    net: &Net,
    shape: &NetShape,
    args: &GrowArgs,
    device: &Device,
) -> Result<Net> {
    let board = [G::INPUT_PLANES, G::POLICY_PLANES, G::HEIGHT, G::WIDTH];
    let weights = net.read_weights(board, &mut Values).ok_or_else(|| {
        anyhow!(
            "{}: growing the trunk of a network with the moves-left head is not supported",
            args.model.display()
        )
    })?;
    let grown = model::grow::grow(&weights, shape.blocks, shape.filters, args.seed)
        .with_context(|| format!("--model {}", args.model.display()))?;
    Ok(Net::new(&grown.shape, device).with_weights(&grown))
}
