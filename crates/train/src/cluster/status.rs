//! `lokizero status --store URL`: what a person watching a distributed run
//! wants to see, from the store alone.

use std::fmt;

use serde::Serialize;
use store::Store;

use super::heartbeat::{self, Heartbeat};
use super::keys::{self, ChunkKey};
use super::lease::LeaseRecord;
use super::pointer::{now_unix, read_pointer, Pointer};
use crate::error::Result;
use crate::metrics::GenerationMetrics;

/// A worker counts as live while its heartbeat is younger than this.
pub const LIVE_SECONDS: u64 = 120;

/// One published generation.
#[derive(Clone, Debug, Serialize)]
pub struct GenerationLine {
    /// The generation.
    pub generation: u32,
    /// New games it trained on.
    pub games: usize,
    /// New training positions it counted.
    pub positions: usize,
    /// Optimiser steps.
    pub train_steps: usize,
    /// Policy and value loss.
    pub losses: (f64, f64),
}

/// The state of a distributed run.
#[derive(Clone, Debug, Serialize)]
pub struct StoreStatus {
    /// The store.
    pub store: String,
    /// The pointer (`None`: no trainer has started).
    pub pointer: Option<Pointer>,
    /// Published generations after the first, oldest first.
    pub generations: Vec<GenerationLine>,
    /// Every worker's heartbeat, with its age in seconds.
    pub workers: Vec<(Heartbeat, u64)>,
    /// The trainer's lease and seconds until it lapses.
    pub trainer: Option<(String, i64)>,
    /// Chunks, games and positions in `replay/`, by bundle generation.
    pub replay: Vec<(u32, u64, u64, u64)>,
    /// Objects under `replay/` that are not chunks.
    pub foreign: usize,
}

/// Read the status of the run in `store`.
///
/// # Errors
/// A store error or an unreadable pointer.
pub fn store_status(store: &Store) -> Result<StoreStatus> {
    let pointer = read_pointer(store)?;
    let mut generations = Vec::new();
    if let Some(p) = &pointer {
        for g in p.first_generation + 1..=p.generation {
            let key = format!("{}/{}", keys::bundle(g), model::bundle::META_FILE);
            let record = store
                .get(&key)?
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                .and_then(|m| GenerationMetrics::from_meta(m.get("training")?));
            if let Some(m) = record {
                generations.push(GenerationLine {
                    generation: g,
                    games: m.games,
                    positions: m.selfplay_positions,
                    train_steps: m.train_steps,
                    losses: (m.policy_loss, m.value_loss),
                });
            }
        }
    }
    let now = now_unix();
    let workers = heartbeat::read_all(store)?
        .into_iter()
        .map(|h| {
            let age = now.saturating_sub(h.updated_unix);
            (h, age)
        })
        .collect();
    let trainer = store
        .get(keys::LEASE)?
        .and_then(|b| serde_json::from_slice::<LeaseRecord>(&b).ok())
        .map(|l| (l.owner, l.expires_unix as i64 - now as i64));
    let mut replay: Vec<(u32, u64, u64, u64)> = Vec::new();
    let mut foreign = 0;
    for o in store.list(keys::REPLAY)? {
        let Some(k) = ChunkKey::parse(&o.key) else {
            foreign += 1;
            continue;
        };
        match replay.iter_mut().find(|r| r.0 == k.generation) {
            Some(r) => {
                r.1 += 1;
                r.2 += k.games;
                r.3 += k.positions;
            }
            None => replay.push((k.generation, 1, k.games, k.positions)),
        }
    }
    replay.sort();
    Ok(StoreStatus {
        store: store.describe(),
        pointer,
        generations,
        workers,
        trainer,
        replay,
        foreign,
    })
}

impl fmt::Display for StoreStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "store {}", self.store)?;
        let Some(p) = &self.pointer else {
            return writeln!(
                f,
                "no bundle yet (start the trainer: lokizero train --store ...)"
            );
        };
        writeln!(
            f,
            "{} run: newest bundle generation {} ({}, sha256 {}…), run ends at {}{}",
            p.variant,
            p.generation,
            p.bundle,
            &p.weights_sha256[..p.weights_sha256.len().min(12)],
            p.last_generation,
            if p.finished() { " (finished)" } else { "" }
        )?;
        match &self.trainer {
            Some((owner, left)) if *left > 0 => {
                writeln!(f, "trainer: {owner} (lease valid {left} s more)")?
            }
            Some((owner, left)) => writeln!(f, "trainer: {owner} (lease expired {} s ago)", -left)?,
            None => writeln!(f, "trainer: none")?,
        }
        writeln!(
            f,
            "generation  new games  new positions  steps  policy loss  value loss"
        )?;
        for g in &self.generations {
            writeln!(
                f,
                "{:>10}  {:>9}  {:>13}  {:>5}  {:>11.3}  {:>10.3}",
                g.generation, g.games, g.positions, g.train_steps, g.losses.0, g.losses.1
            )?;
        }
        let live: Vec<_> = self
            .workers
            .iter()
            .filter(|(_, age)| *age <= LIVE_SECONDS)
            .collect();
        writeln!(
            f,
            "workers: {} live of {} (heartbeat within {LIVE_SECONDS} s)",
            live.len(),
            self.workers.len()
        )?;
        for (h, age) in &self.workers {
            writeln!(
                f,
                "  {:<20} generation {:>4}  {:>6} games  {:>8} positions  {:>8.1} positions/s  seen {age} s ago",
                h.worker, h.generation, h.games, h.positions, h.positions_per_second
            )?;
        }
        let rate: f64 = live.iter().map(|(h, _)| h.positions_per_second).sum();
        writeln!(
            f,
            "throughput: {rate:.1} self-play positions/s (live workers' own rates)"
        )?;
        for (g, chunks, games, positions) in &self.replay {
            writeln!(
                f,
                "replay by generation {g}: {chunks} chunks, {games} games, {positions} positions"
            )?;
        }
        if self.foreign > 0 {
            writeln!(
                f,
                "replay: {} objects that are not chunks (skipped by the trainer)",
                self.foreign
            )?;
        }
        Ok(())
    }
}
