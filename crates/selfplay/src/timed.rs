//! An evaluator wrapper that measures the time spent inside the network,
//! so benchmarks can report the share of self-play time spent outside it
//! (rules, search, encoding).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rules::Game;
use search::{Evaluator, Wdl};

/// How many evaluated positions [`TimingLog::sample`] keeps.
pub const SAMPLE_LEN: usize = 256;

/// What [`Timed`] evaluators saw; one log is shared by every self-play
/// worker of a run, so it covers all of them.
pub struct TimingLog<G: Game> {
    /// Wall time inside `evaluate`, summed over the workers' calls (calls
    /// of different workers may overlap in time).
    pub elapsed: Duration,
    /// Positions evaluated.
    pub positions: u64,
    /// Every call's batch size, in the order the calls finished.
    pub sizes: Vec<u32>,
    /// The first [`SAMPLE_LEN`] positions evaluated, with their legal
    /// actions: real search leaves, to time the network alone on the same
    /// kind of input afterwards.
    pub sample: Vec<(G, Vec<G::Action>)>,
}

impl<G: Game> Default for TimingLog<G> {
    fn default() -> Self {
        TimingLog {
            elapsed: Duration::ZERO,
            positions: 0,
            sizes: Vec::new(),
            sample: Vec::new(),
        }
    }
}

impl<G: Game> TimingLog<G> {
    /// Mean positions per call (0 before any call).
    pub fn mean_batch(&self) -> f64 {
        self.positions as f64 / self.sizes.len().max(1) as f64
    }
}

/// Wraps an evaluator and records the wall time and batch size of each of
/// its calls into a shared [`TimingLog`]. The lock is taken once per call,
/// after the timed part.
pub struct Timed<'a, G: Game, E> {
    /// The wrapped evaluator.
    pub inner: E,
    log: &'a Mutex<TimingLog<G>>,
}

impl<'a, G: Game, E> Timed<'a, G, E> {
    /// Measure `inner` into `log`.
    pub fn new(inner: E, log: &'a Mutex<TimingLog<G>>) -> Self {
        Timed { inner, log }
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for Timed<'_, G, E> {
    fn evaluate(
        &mut self,
        positions: &[&G],
        legal: &[&[G::Action]],
        priors: &mut [f32],
        wdl: &mut [Wdl],
    ) {
        let t = Instant::now();
        self.inner.evaluate(positions, legal, priors, wdl);
        let elapsed = t.elapsed();
        // A poisoned lock only means another worker panicked; its figures
        // are still sound to add to.
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.elapsed += elapsed;
        log.positions += positions.len() as u64;
        log.sizes.push(positions.len() as u32);
        let room = SAMPLE_LEN.saturating_sub(log.sample.len());
        for (p, l) in positions.iter().zip(legal).take(room) {
            log.sample.push(((*p).clone(), l.to_vec()));
        }
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
