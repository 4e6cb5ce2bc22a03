//! What a search reports: per-action statistics, the root value, and the
//! UCI score conversions (centipawns, WDL permille).

use serde::{Deserialize, Serialize};

/// Statistics of one root action, from the **side to move's** view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionInfo {
    /// The atomic action in `docs/rules.md` notation (for every variant
    /// but Loki this is a whole move).
    pub action: String,
    /// Completed visits of this action.
    pub visits: u32,
    /// The network prior, in `[0, 1]`.
    pub prior: f32,
    /// Mean value `W - L` in `[-1, 1]`; `None` if unvisited.
    pub q: Option<f32>,
    /// Mean `[W, D, L]`; `None` if unvisited.
    pub wdl: Option<[f32; 3]>,
    /// Expected line as whole move tokens (as `moves` lists and UCI take
    /// them), starting with the move that begins with `action`; for
    /// every variant but Loki that move is `action` itself. A line cut in
    /// the middle of a Loki move ends before that move (so a Loki
    /// `action` whose second action was never searched has an empty
    /// line).
    pub pv: Vec<String>,
}

/// The root of a search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RootInfo {
    /// `[W, D, L]` for the side to move (exact when the game is over).
    pub wdl: [f32; 3],
    /// Completed root visits (the node count of the search).
    pub visits: u32,
}

/// The result of [`crate::Bot::analyse`]: root actions sorted by visits
/// (then prior), best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The `top` best root actions.
    pub actions: Vec<ActionInfo>,
    /// The root's value and visits.
    pub root: RootInfo,
    /// Wall time of the search in milliseconds.
    pub time_ms: u64,
}

/// A progress report during a search (for UCI `info` lines).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// Nodes so far as the node budget counts them: the root visits of
    /// the search tree, those of a subtree kept from the previous move
    /// included (as lc0 reports them), and for a Loki move of several
    /// actions the new nodes of the actions after the first: never
    /// falling.
    pub nodes: u32,
    /// Time since the search started, in milliseconds.
    pub time_ms: u64,
    /// Root `[W, D, L]` for the side to move. With `nodes` 0 (a search
    /// stopped before its first simulation) this is a placeholder (the
    /// draw), not an evaluation: report no score then.
    pub wdl: [f32; 3],
    /// The principal variation from the searched position as whole move
    /// tokens (atomic actions joined into moves; a trailing incomplete
    /// move left out), best first. While a Loki move is chosen action by
    /// action it starts with that move (its chosen actions, then the
    /// search's line). With `nodes` 0, only the move chosen unsearched.
    pub pv: Vec<String>,
}

impl SearchInfo {
    /// Nodes per second (0 before the first millisecond has passed).
    pub fn nps(&self) -> u64 {
        (u64::from(self.nodes) * 1000)
            .checked_div(self.time_ms)
            .unwrap_or(0)
    }
}

/// Largest |centipawns| reported; Q is clamped so the logit stays finite.
pub const MAX_CP: i32 = 10_000;

/// Centipawns from a value `q = W - L` in `[-1, 1]`, by inverting the
/// logistic (Elo) expected-score curve `E = 1 / (1 + 10^(-cp / 400))` with
/// `E = (1 + q) / 2`, i.e. `cp = 400 * log10((1 + q) / (1 - q))`, rounded
/// and clamped to `[-MAX_CP, MAX_CP]`. `q = 0` gives 0; `q = 0.5` gives
/// `400 * log10(3)` = 191 cp. Non-finite `q` gives 0.
pub fn centipawns(q: f32) -> i32 {
    if !q.is_finite() {
        return 0;
    }
    let q = f64::from(q.clamp(-1.0, 1.0));
    let cp = 400.0 * ((1.0 + q) / (1.0 - q)).log10();
    if cp.is_nan() {
        0
    } else {
        cp.round().clamp(-f64::from(MAX_CP), f64::from(MAX_CP)) as i32
    }
}

/// `[W, D, L]` probabilities as whole permille summing to exactly 1000
/// (W and L rounded, D the rest), as UCI `info ... wdl W D L` expects.
pub fn wdl_permille(wdl: [f32; 3]) -> [u32; 3] {
    let clean = |x: f32| {
        if x.is_finite() {
            x.clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let w = (clean(wdl[0]) * 1000.0).round() as u32;
    let l = ((clean(wdl[2]) * 1000.0).round() as u32).min(1000 - w);
    [w, 1000 - w - l, l]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centipawn_mapping() {
        assert_eq!(centipawns(0.0), 0);
        assert_eq!(centipawns(0.5), 191);
        assert_eq!(centipawns(-0.5), -191);
        assert_eq!(centipawns(1.0), MAX_CP);
        assert_eq!(centipawns(-1.0), -MAX_CP);
        assert_eq!(centipawns(f32::NAN), 0);
    }

    #[test]
    fn permille_sums_to_1000() {
        assert_eq!(wdl_permille([0.3333, 0.3333, 0.3334]), [333, 334, 333]);
        assert_eq!(wdl_permille([1.0, 0.0, 0.0]), [1000, 0, 0]);
        assert_eq!(wdl_permille([0.6, 0.0, 0.6]), [600, 0, 400]);
        assert_eq!(wdl_permille([f32::NAN, 0.5, 0.5]), [0, 500, 500]);
    }

    #[test]
    fn nps() {
        let info = SearchInfo {
            nodes: 500,
            time_ms: 250,
            wdl: [0.0, 1.0, 0.0],
            pv: vec![],
        };
        assert_eq!(info.nps(), 2000);
        assert_eq!(SearchInfo { time_ms: 0, ..info }.nps(), 0);
    }
}
