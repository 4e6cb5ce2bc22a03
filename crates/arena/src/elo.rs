//! Elo difference from a match score, with a 95 % interval.
//!
//! Model: the logistic Elo curve `s = 1 / (1 + 10^(-d/400))` (expected
//! score `s` of a player `d` Elo stronger), so `d(s) = -400 log10(1/s - 1)`.
//! The interval is the normal approximation on the mean score with draws
//! (trinomial per-game variance), mapped through `d(s)`: exactly the method
//! of cutechess-cli (`projects/lib/src/elo.cpp`, `Elo::errorMargin`) and of
//! the Fishtest "Elo" line (its trinomial, non-pentanomial variant):
//!
//! - `s = (W + D/2) / N`
//! - per-game variance `σ² = (W (1-s)² + D (1/2-s)² + L s²) / N`
//! - score interval `s ± z σ / √N` with `z = Φ⁻¹(0.975) = 1.959964`
//! - Elo interval `[d(s - zσ/√N), d(s + zσ/√N)]` (asymmetric in Elo).
//!
//! A record without variance (all draws, or a clean sweep) would get a
//! zero-width interval that way; it gets the Wilson score interval instead
//! (E. B. Wilson 1927, "Probable inference, the law of succession, and
//! statistical inference", JASA 22:209), with the binomial variance
//! `s (1 - s)`: `(s + z²/2N ± z √(s(1-s)/N + z²/4N²)) / (1 + z²/N)` —
//! e.g. 16 straight wins give `[+247, +inf]` and 4 draws `[-301, +301]`.

use serde::Serialize;

use crate::wdl::WdlCounts;

/// `Φ⁻¹(0.975)`: the two-sided 95 % normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Elo difference `d(s) = -400 log10(1/s - 1)` for a score `s` in `(0, 1)`;
/// `±inf` at 1 and 0, NaN outside `[0, 1]`.
pub fn elo_from_score(score: f64) -> f64 {
    if !(0.0..=1.0).contains(&score) {
        return f64::NAN;
    }
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Expected score `1 / (1 + 10^(-d/400))` of a player `d` Elo stronger.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Mean score and per-game variance of a W/D/L record (trinomial model).
/// `(0.5, 0.0)` for an empty record.
pub fn score_and_variance(wdl: &WdlCounts) -> (f64, f64) {
    let n = f64::from(wdl.games());
    if n == 0.0 {
        return (0.5, 0.0);
    }
    let (w, d, l) = (
        f64::from(wdl.wins),
        f64::from(wdl.draws),
        f64::from(wdl.losses),
    );
    let s = (w + 0.5 * d) / n;
    let var = (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n;
    (s, var)
}

/// Wilson's 95 % score interval for a mean score `s` over `n` games.
fn wilson(s: f64, n: f64) -> (f64, f64) {
    let z2 = Z95 * Z95;
    let centre = s + z2 / (2.0 * n);
    let half = Z95 * (s * (1.0 - s) / n + z2 / (4.0 * n * n)).sqrt();
    let denom = 1.0 + z2 / n;
    ((centre - half) / denom, (centre + half) / denom)
}

/// Elo estimate of a match with its 95 % interval, from player A's view.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloEstimate {
    /// Games.
    pub games: u32,
    /// Score of A in `[0, 1]`.
    pub score: f64,
    /// Elo difference A − B (`±inf` for a 100 % / 0 % score).
    pub elo: f64,
    /// Lower end of the 95 % interval, Elo.
    pub lower: f64,
    /// Upper end of the 95 % interval, Elo.
    pub upper: f64,
    /// Half-width `(upper - lower) / 2`, Elo (the "±" cutechess prints).
    pub margin: f64,
    /// Draw ratio `D / N`.
    pub draw_ratio: f64,
}

impl EloEstimate {
    /// Estimate from a W/D/L record (see the module docs for the formulas).
    pub fn from_wdl(wdl: &WdlCounts) -> Self {
        let (s, var) = score_and_variance(wdl);
        let n = f64::from(wdl.games()).max(1.0);
        let (lo_s, hi_s) = if var > 0.0 || wdl.games() == 0 {
            let half = Z95 * var.sqrt() / n.sqrt();
            (s - half, s + half)
        } else {
            wilson(s, n)
        };
        let lower = elo_from_score(lo_s.clamp(0.0, 1.0));
        let upper = elo_from_score(hi_s.clamp(0.0, 1.0));
        EloEstimate {
            games: wdl.games(),
            score: s,
            elo: elo_from_score(s),
            lower,
            upper,
            margin: (upper - lower) / 2.0,
            draw_ratio: f64::from(wdl.draws) / n,
        }
    }

    /// One line such as `Elo +190.9 [+120.3, +301.2] (±90.4), score 75.0 %`;
    /// an infinite estimate or bound (a score of 100 % or 0 %, or near it
    /// in a short match) is named as such, e.g. `Elo +inf (every game won;
    /// 95 % lower bound +247.8)` or `[+117.4, no upper bound]`, with no
    /// `±inf` margin.
    pub fn describe(&self) -> String {
        let tail = format!(
            "score {:.1} %, draws {:.1} %",
            100.0 * self.score,
            100.0 * self.draw_ratio
        );
        if self.elo == f64::INFINITY {
            format!(
                "Elo +inf (every game won; 95 % lower bound {:+.1}), {tail}",
                self.lower
            )
        } else if self.elo == f64::NEG_INFINITY {
            format!(
                "Elo -inf (every game lost; 95 % upper bound {:+.1}), {tail}",
                self.upper
            )
        } else if self.upper == f64::INFINITY {
            format!(
                "Elo {:+.1} 95% [{:+.1}, no upper bound], {tail}",
                self.elo, self.lower
            )
        } else if self.lower == f64::NEG_INFINITY {
            format!(
                "Elo {:+.1} 95% [no lower bound, {:+.1}], {tail}",
                self.elo, self.upper
            )
        } else {
            format!(
                "Elo {:+.1} 95% [{:+.1}, {:+.1}] (±{:.1}), {tail}",
                // `+ 0.0` prints the -0 of an even score as +0.
                self.elo + 0.0,
                self.lower + 0.0,
                self.upper + 0.0,
                self.margin,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate of `wins` wins, `draws` draws and `losses` losses.
    fn estimate(wins: u32, draws: u32, losses: u32) -> EloEstimate {
        EloEstimate::from_wdl(&WdlCounts {
            wins,
            draws,
            losses,
        })
    }

    #[test]
    fn elo_of_published_scores() {
        // 0.75 → 400·log10(3) = 190.848...; 0.5 → 0; 0.25 → −190.85.
        assert!((elo_from_score(0.75) - 190.848_501_887_864_98).abs() < 1e-9);
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!((elo_from_score(0.25) + 190.848_501_887_864_98).abs() < 1e-9);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert!((score_from_elo(190.848_501_887_864_98) - 0.75).abs() < 1e-12);
        // 100 Elo ↔ 0.640065 (standard table value).
        assert!((score_from_elo(100.0) - 0.640_064_999_802_885).abs() < 1e-9);
    }

    #[test]
    fn interval_by_hand() {
        // W=60 D=20 L=20, N=100: s = 0.7,
        // σ² = (60·0.09 + 20·0.04 + 20·0.49)/100 = 0.16, σ/√N = 0.04,
        // score interval 0.7 ± 0.0783986 = [0.6216014, 0.7783986].
        let e = estimate(60, 20, 20);
        assert!((e.score - 0.7).abs() < 1e-12);
        assert!((e.elo - 147.190_714_117_837_76).abs() < 1e-6);
        let lo = elo_from_score(0.7 - Z95 * 0.04);
        let hi = elo_from_score(0.7 + Z95 * 0.04);
        assert!((e.lower - lo).abs() < 1e-9 && (e.upper - hi).abs() < 1e-9);
        assert!((lo - 86.225_015).abs() < 1e-5, "{lo}");
        assert!((hi - 218.251_778).abs() < 1e-5, "{hi}");
        assert!((e.draw_ratio - 0.2).abs() < 1e-12);
    }

    #[test]
    fn even_and_all_draw_records() {
        let e = estimate(0, 10, 0);
        // No variance: Wilson's interval, not a zero-width one. N = 10,
        // z² = 3.841459: half = z √(0.025 + 0.0096037) / 1.3841459 = 0.263407,
        // score [0.236593, 0.763407] → Elo ∓ 203.5.
        assert_eq!(e.elo, 0.0);
        let hi = elo_from_score(0.5 + 0.263_407_f64);
        assert!(
            (e.upper - hi).abs() < 0.05 && (e.lower + hi).abs() < 0.05,
            "{e:?}"
        );
        assert!((e.upper - 203.5).abs() < 0.1, "{}", e.upper);
        // 16 straight wins: lower end 1 / (1 + z²/16) = 0.806392 → +247.85.
        let e = estimate(16, 0, 0);
        assert_eq!((e.elo, e.upper), (f64::INFINITY, f64::INFINITY));
        assert!((e.lower - elo_from_score(1.0 / (1.0 + Z95 * Z95 / 16.0))).abs() < 1e-9);
        assert!((e.lower - 247.85).abs() < 0.1, "{}", e.lower);
        assert_eq!(
            e.describe(),
            "Elo +inf (every game won; 95 % lower bound +247.8), score 100.0 %, draws 0.0 %"
        );
        let one_sided = estimate(3, 1, 0);
        assert!(
            one_sided
                .describe()
                .contains(", no upper bound], score 87.5 %"),
            "{}",
            one_sided.describe()
        );
        let lost = estimate(0, 0, 16);
        assert_eq!(
            lost.describe(),
            "Elo -inf (every game lost; 95 % upper bound -247.8), score 0.0 %, draws 0.0 %"
        );
        let even = estimate(0, 4, 0);
        assert!(
            even.describe().starts_with("Elo +0.0 95% [-"),
            "{}",
            even.describe()
        );
        let e = EloEstimate::from_wdl(&WdlCounts::default());
        assert_eq!(e.games, 0);
        assert_eq!(e.elo, 0.0);
    }
}
