//! `lokizero export`: ship a checkpoint as a bundle (e.g. into models/),
//! verified on the way and with its measured strength recorded.

use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use encoding::Encode;
use model::bundle::{load_bundle, peek_variant, save_bundle};

/// Arguments of `lokizero export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Source bundle (e.g. runs/shakti/checkpoints/gen-000008).
    #[arg(long)]
    model: PathBuf,
    /// Destination folder (replaced atomically), e.g. models/shakti.
    #[arg(long)]
    out: PathBuf,
    /// JSON files with match results (`lokizero play --json` output) to
    /// record as the bundle's measured strength.
    #[arg(long)]
    strength: Vec<PathBuf>,
}

/// Verify, annotate and write the bundle.
pub fn run(args: ExportArgs) -> Result<()> {
    let variant = peek_variant(&args.model)?;
    rules::with_variant!(variant, G => export_for::<G>(&args))
}

fn export_for<G: Encode>(args: &ExportArgs) -> Result<()> {
    let device = model::device_from_name("cpu").map_err(|e| anyhow!(e))?;
    let (net, mut meta) = load_bundle::<G>(&args.model, &device)?;
    let mut results = Vec::new();
    for path in &args.strength {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let value: serde_json::Value = serde_json::from_str(text.trim())
            .with_context(|| format!("{} is not JSON", path.display()))?;
        results.push(value);
    }
    if !results.is_empty() {
        meta.strength = serde_json::json!({ "matches": results });
    }
    save_bundle(&args.out, &net, &meta)?;
    println!(
        "exported {} generation {} to {}",
        G::VARIANT,
        meta.generation,
        args.out.display()
    );
    Ok(())
}
