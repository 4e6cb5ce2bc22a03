//! The run directory's paths and its checkpoints.

use std::path::PathBuf;

use encoding::Encode;
use model::bundle::read_meta;

use crate::error::Result;
use crate::metrics::GenerationMetrics;

/// Paths inside a run directory (layout in the [`crate::run`](mod@crate::run) docs).
#[derive(Clone, Debug)]
pub struct RunDir {
    /// The run directory itself.
    pub root: PathBuf,
}

impl RunDir {
    /// Bundle folder of `generation`.
    pub fn checkpoint(&self, generation: u32) -> PathBuf {
        self.root
            .join("checkpoints")
            .join(format!("gen-{generation:06}"))
    }
    /// Folder of the replay chunks.
    pub fn replay(&self) -> PathBuf {
        self.root.join("replay")
    }
    /// The metrics log.
    pub fn metrics(&self) -> PathBuf {
        self.root.join("metrics.jsonl")
    }
    /// The learning-curve chart.
    pub fn learning_curve(&self) -> PathBuf {
        self.root.join("learning-curve.png")
    }

    /// The generations that have a checkpoint folder, unordered.
    pub fn checkpoints(&self) -> Vec<u32> {
        let Ok(entries) = std::fs::read_dir(self.root.join("checkpoints")) else {
            return Vec::new();
        };
        entries
            .filter_map(|e| {
                e.ok()?
                    .file_name()
                    .to_str()?
                    .strip_prefix("gen-")?
                    .parse()
                    .ok()
            })
            .collect()
    }

    /// The newest generation with a checkpoint folder (`None`: no bundle
    /// yet). Checkpoints are written by atomic rename, so a kill never
    /// leaves a partial one; the caller still loads it to check.
    pub fn newest_checkpoint(&self) -> Option<u32> {
        self.checkpoints().into_iter().max()
    }

    /// The run's first generation: 0, or the generation of the bundle a
    /// run started with `--init-from` continues (its oldest checkpoint).
    pub fn first_generation(&self) -> u32 {
        self.checkpoints().into_iter().min().unwrap_or(0)
    }

    /// The metrics record of generation `g`'s bundle (`None` for the run's
    /// first generation when it was untrained).
    ///
    /// # Errors
    /// An unreadable `model.json`.
    pub fn metrics_of<E: Encode>(&self, g: u32) -> Result<Option<GenerationMetrics>> {
        let meta = read_meta::<E>(&self.checkpoint(g))?;
        Ok(GenerationMetrics::from_meta(&meta.training))
    }

    /// The newest generation `<= upto` that was promoted (its record's
    /// `promoted` is true or absent: runs without gating promote every
    /// generation). The run's first generation (0, or the bundle of
    /// `--init-from`) always counts as promoted.
    ///
    /// # Errors
    /// An unreadable `model.json` of a completed generation.
    pub fn best_generation<E: Encode>(&self, upto: u32) -> Result<u32> {
        let first = self.first_generation();
        for g in (first + 1..=upto).rev() {
            let promoted = self.metrics_of::<E>(g)?.and_then(|m| m.promoted);
            if promoted.unwrap_or(true) {
                return Ok(g);
            }
        }
        Ok(first)
    }
}
