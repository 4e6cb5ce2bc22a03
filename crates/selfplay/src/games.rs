//! [`Games`]: what one self-play call plays (start positions, search and
//! self-play settings, how many games, the seed), read by the driver and by
//! each game's slot.

use search::SearchConfig;

use crate::config::SelfPlayConfig;

/// The self-play games of one call: where they start, how they search and
/// play, how many, and from which seed.
#[derive(Debug)]
pub struct Games<'a, G> {
    /// The start position of every game not branched off.
    pub start: &'a G,
    /// Positions of earlier games; a game starts from one of them (drawn
    /// uniformly) with probability [`SelfPlayConfig::branch_fraction`].
    /// Empty = every game from `start`.
    pub branch_starts: &'a [G],
    /// The search settings. Every field applies except `leaves_per_batch`:
    /// the leaves per tree of a batch step are
    /// [`SelfPlayConfig::leaves_per_tree`].
    pub search: &'a SearchConfig,
    /// The self-play settings.
    pub config: &'a SelfPlayConfig,
    /// Games to play.
    pub count: usize,
    /// Seed of the run: the same seed gives the same games with a
    /// deterministic evaluator.
    pub seed: u64,
}

// By hand: a derive would ask `G: Copy`, and only references are copied.
impl<G> Clone for Games<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}
