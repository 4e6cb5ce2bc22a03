//! An evaluator wrapper that measures the time spent inside the network,
//! so benchmarks can report the share of self-play time spent outside it
//! (rules, search, encoding).

use std::time::{Duration, Instant};

use rules::Game;
use search::{Evaluator, Wdl};

/// Wraps an evaluator and accumulates the wall time of its calls.
pub struct Timed<E> {
    /// The wrapped evaluator.
    pub inner: E,
    /// Total time spent in `evaluate`.
    pub elapsed: Duration,
    /// Positions evaluated.
    pub positions: u64,
    /// Calls (batches).
    pub batches: u64,
}

impl<E> Timed<E> {
    /// Start measuring `inner`.
    pub fn new(inner: E) -> Self {
        Timed {
            inner,
            elapsed: Duration::ZERO,
            positions: 0,
            batches: 0,
        }
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for Timed<E> {
    fn evaluate(
        &mut self,
        positions: &[&G],
        legal: &[&[G::Action]],
        priors: &mut [f32],
        wdl: &mut [Wdl],
    ) {
        let t = Instant::now();
        self.inner.evaluate(positions, legal, priors, wdl);
        self.elapsed += t.elapsed();
        self.positions += positions.len() as u64;
        self.batches += 1;
    }
}

/// A zero-cost network stand-in that still encodes every position (so a
/// benchmark with it measures rules + search + encoding): uniform priors,
/// draw value.
pub struct EncodeOnly {
    buffer: Vec<f32>,
}

impl EncodeOnly {
    /// A fresh stand-in.
    pub fn new() -> Self {
        EncodeOnly { buffer: Vec::new() }
    }
}

impl Default for EncodeOnly {
    fn default() -> Self {
        Self::new()
    }
}

impl<G: encoding::Encode> Evaluator<G> for EncodeOnly {
    fn evaluate(
        &mut self,
        positions: &[&G],
        legal: &[&[G::Action]],
        priors: &mut [f32],
        wdl: &mut [Wdl],
    ) {
        let n = G::input_len();
        self.buffer.resize(n * positions.len(), 0.0);
        for (chunk, p) in self.buffer.chunks_exact_mut(n).zip(positions) {
            p.encode(chunk);
        }
        let mut offset = 0;
        for (i, actions) in legal.iter().enumerate() {
            let u = 1.0 / actions.len().max(1) as f32;
            priors[offset..offset + actions.len()].fill(u);
            offset += actions.len();
            wdl[i] = search::DRAW_WDL;
        }
    }
}
