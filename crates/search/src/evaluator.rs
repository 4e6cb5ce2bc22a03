//! The leaf evaluator interface (a network, or a cheap stand-in) and two
//! network-free evaluators: uniform priors with a draw value, and random
//! playouts (pure UCT baseline).

use rand::{Rng, SeedableRng};
use rules::{Game, Player};

/// Win/draw/loss probabilities `[W, D, L]` from the side to move of the
/// evaluated position. Each in `[0, 1]`, summing to 1; the scalar value is
/// `W - L` in `[-1, 1]`.
pub type Wdl = [f32; 3];

/// The WDL of a draw, `[0, 1, 0]`.
pub const DRAW_WDL: Wdl = [0.0, 1.0, 0.0];

/// Evaluates a batch of leaf positions: policy priors over the legal actions
/// and a WDL value. A neural network implements this in the `model` crate;
/// the search only calls it.
pub trait Evaluator<G: Game> {
    /// Evaluate `B = positions.len()` positions in one batch.
    ///
    /// - `positions`: `[B]` positions, none of them terminal.
    /// - `legal`: `[B]`, `legal[i]` the legal actions of `positions[i]`
    ///   (non-empty, in [`Game::legal_actions`] order).
    /// - `priors`: `[sum_i legal[i].len()]`, the concatenation in order of one
    ///   block per position; write into block `i` the prior probability of
    ///   each action of `legal[i]`, aligned with it. Should be `>= 0` and sum
    ///   to 1 per block; the search renormalises (and falls back to uniform
    ///   for a block with no positive finite entry).
    /// - `wdl`: `[B]`, write `[W, D, L]` for `positions[i]`'s side to move.
    ///   The search clamps negatives and renormalises; a non-finite or zero
    ///   triple counts as a draw.
    ///
    /// Both output slices arrive with unspecified contents; write every entry.
    fn evaluate(
        &mut self,
        positions: &[&G],
        legal: &[&[G::Action]],
        priors: &mut [f32],
        wdl: &mut [Wdl],
    );

    /// A second evaluator of the same function with buffers (and random
    /// source) of its own, so that another thread can evaluate one batch
    /// while this one evaluates the next: the two-thread pipelined search
    /// ([`crate::Batch::run_pipelined`]). `None`, the default, where this
    /// evaluator cannot be shared that way; a random source is split off
    /// this one's (so `&mut self`), which keeps the pair reproducible.
    fn fork(&mut self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

/// Write uniform priors into `priors`, one block per `legal[i]`.
fn write_uniform<A>(legal: &[&[A]], priors: &mut [f32]) {
    let mut offset = 0;
    for actions in legal {
        let n = actions.len();
        let p = if n == 0 { 0.0 } else { 1.0 / n as f32 };
        if let Some(block) = priors.get_mut(offset..offset + n) {
            block.fill(p);
        }
        offset += n;
    }
}

/// Zero-cost evaluator: uniform priors and a draw (`[0, 1, 0]`) for every
/// position. For benchmarks of the search itself and for tests; with
/// terminal scoring it still finds short forced wins.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(
        &mut self,
        _positions: &[&G],
        legal: &[&[G::Action]],
        priors: &mut [f32],
        wdl: &mut [Wdl],
    ) {
        write_uniform(legal, priors);
        wdl.fill(DRAW_WDL);
    }

    fn fork(&mut self) -> Option<Self> {
        Some(UniformEvaluator)
    }
}

/// Pure-UCT baseline: uniform priors, and a value from `playouts` random
/// games played to the end from each position (uniformly random legal
/// actions). A playout that reaches `max_plies` actions without ending
/// counts as a draw. WDL is the fraction of playouts won/drawn/lost by the
/// evaluated position's side to move.
#[derive(Clone, Debug)]
pub struct RolloutEvaluator<R> {
    /// Random playouts per position (`>= 1`; 0 is treated as 1).
    pub playouts: u32,
    /// Ply cap per playout (actions played from the evaluated position).
    pub max_plies: u32,
    rng: R,
}

impl<R: Rng> RolloutEvaluator<R> {
    /// A rollout evaluator drawing its random moves from `rng`.
    pub fn new(playouts: u32, max_plies: u32, rng: R) -> Self {
        RolloutEvaluator {
            playouts,
            max_plies,
            rng,
        }
    }

    /// Play one random game from `position`; the result from `me`'s view as
    /// an index into WDL (0 win, 1 draw, 2 loss).
    fn playout<G: Game>(
        &mut self,
        position: &G,
        me: Player,
        scratch: &mut Vec<G::Action>,
    ) -> usize {
        let mut game = position.clone();
        for _ in 0..self.max_plies {
            if let Some(outcome) = game.outcome() {
                return wdl_index(outcome.winner, me);
            }
            game.legal_actions(scratch);
            if scratch.is_empty() {
                return 1;
            }
            let pick = self.rng.random_range(0..scratch.len());
            game.play(scratch[pick]);
        }
        match game.outcome() {
            Some(outcome) => wdl_index(outcome.winner, me),
            None => 1,
        }
    }
}

impl<R: Rng> RolloutEvaluator<R> {
    /// The playouts' WDL of each position into `wdl` (`[B]`, from each
    /// position's side to move).
    fn write_values<G: Game>(&mut self, positions: &[&G], wdl: &mut [Wdl]) {
        let playouts = self.playouts.max(1);
        let mut scratch = Vec::new();
        for (position, out) in positions.iter().zip(wdl.iter_mut()) {
            let me = position.side_to_move();
            let mut counts = [0u32; 3];
            for _ in 0..playouts {
                counts[self.playout(*position, me, &mut scratch)] += 1;
            }
            let n = playouts as f32;
            *out = counts.map(|c| c as f32 / n);
        }
    }
}

fn wdl_index(winner: Option<Player>, me: Player) -> usize {
    match winner {
        None => 1,
        Some(w) if w == me => 0,
        Some(_) => 2,
    }
}

impl<G: Game, R: Rng + SeedableRng> Evaluator<G> for RolloutEvaluator<R> {
    fn evaluate(
        &mut self,
        positions: &[&G],
        legal: &[&[G::Action]],
        priors: &mut [f32],
        wdl: &mut [Wdl],
    ) {
        write_uniform(legal, priors);
        self.write_values(positions, wdl);
    }

    /// The same playouts with a generator seeded from this one's.
    fn fork(&mut self) -> Option<Self> {
        Some(RolloutEvaluator {
            playouts: self.playouts,
            max_plies: self.max_plies,
            rng: R::from_rng(&mut self.rng),
        })
    }
}

/// Mixed leaf evaluation of AlphaGo (Silver et al. 2016, "Mastering the
/// game of Go with deep neural networks and tree search", eq. 5:
/// `V(s) = (1 - lambda) v(s) + lambda z`): the priors are `inner`'s (the
/// network's), the WDL is `(1 - lambda)` times `inner`'s plus `lambda`
/// times the outcome frequencies of `rollout`'s random playouts (AlphaGo
/// used `lambda = 0.5`). Play-time only: the playouts cost a full random
/// game per leaf, and they measure what happens against random play, which
/// helps a network trained on few, drawish games see a path to a win.
pub struct RolloutMix<E, R> {
    inner: E,
    rollout: RolloutEvaluator<R>,
    lambda: f32,
    scratch_wdl: Vec<Wdl>,
}

impl<E, R> RolloutMix<E, R> {
    /// Mix `inner` with `rollout` by weight `lambda`, clamped to `[0, 1]`
    /// (0: `inner` alone, no playouts; 1: the playouts' value alone).
    pub fn new(inner: E, rollout: RolloutEvaluator<R>, lambda: f32) -> Self {
        RolloutMix {
            inner,
            rollout,
            lambda: if lambda.is_finite() {
                lambda.clamp(0.0, 1.0)
            } else {
                0.0
            },
            scratch_wdl: Vec::new(),
        }
    }

    /// The inner evaluator (to change its own settings).
    pub fn inner_mut(&mut self) -> &mut E {
        &mut self.inner
    }

    /// Replace the playouts and their weight `lambda` (clamped as in
    /// [`RolloutMix::new`]), keeping the inner evaluator.
    pub fn set_mix(&mut self, rollout: RolloutEvaluator<R>, lambda: f32) {
        self.rollout = rollout;
        self.lambda = if lambda.is_finite() {
            lambda.clamp(0.0, 1.0)
        } else {
            0.0
        };
    }
}

impl<G: Game, E: Evaluator<G>, R: Rng + SeedableRng> Evaluator<G> for RolloutMix<E, R> {
    fn evaluate(
        &mut self,
        positions: &[&G],
        legal: &[&[G::Action]],
        priors: &mut [f32],
        wdl: &mut [Wdl],
    ) {
        self.inner.evaluate(positions, legal, priors, wdl);
        if self.lambda == 0.0 {
            return;
        }
        self.scratch_wdl.resize(wdl.len(), DRAW_WDL);
        self.rollout.write_values(positions, &mut self.scratch_wdl);
        let l = self.lambda;
        for (w, r) in wdl.iter_mut().zip(&self.scratch_wdl) {
            for (a, b) in w.iter_mut().zip(r) {
                *a = (1.0 - l) * *a + l * b;
            }
        }
    }

    /// The inner evaluator's fork and the playouts' ([`RolloutEvaluator`]'s),
    /// with the same weight; `None` when the inner one has none.
    fn fork(&mut self) -> Option<Self> {
        let inner = self.inner.fork()?;
        let rollout = <RolloutEvaluator<R> as Evaluator<G>>::fork(&mut self.rollout)?;
        Some(RolloutMix {
            inner,
            rollout,
            lambda: self.lambda,
            scratch_wdl: Vec::new(),
        })
    }
}
