//! Sequential probability ratio test on Elo (Fishtest's GSPRT).
//!
//! H0: the Elo difference is `elo0`; H1: it is `elo1` (logistic Elo, as in
//! [`crate::elo`]). After each batch of games the log-likelihood ratio is
//! approximated as in Fishtest (M. Van den Bergh, "A simple approximation of
//! the GSPRT", fishtest `stats/LLRcalc.py`; the normal approximation of the
//! generalised LLR on the trinomial W/D/L model):
//!
//! `LLR ≈ N (s1 − s0) (2 s̄ − s0 − s1) / (2 σ²)`,
//!
//! with `s̄`, `σ²` the mean score and per-game variance of the record
//! ([`crate::elo::score_and_variance`]) and `s_i = 1 / (1 + 10^(-elo_i/400))`.
//! Wald's bounds: accept H1 when `LLR ≥ ln((1 − β)/α)`, accept H0 when
//! `LLR ≤ ln(β/(1 − α))` (`α = β = 0.05`: ±2.944).
//!
//! A record without variance has no normal approximation. All draws (or no
//! games) give LLR 0 — so an all-draw match never decides. A clean sweep
//! (only wins, or only losses) uses Wald's exact SPRT for Bernoulli trials
//! on the decisive games instead (Wald 1945, "Sequential tests of
//! statistical hypotheses"): `LLR = W ln(s1/s0) + L ln((1−s1)/(1−s0))`, so
//! enough straight wins do accept H1.

use serde::{Deserialize, Serialize};

use crate::elo::{score_and_variance, score_from_elo};
use crate::wdl::WdlCounts;

/// SPRT settings: the two hypotheses (Elo) and the error rates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtConfig {
    /// Elo difference under H0 (e.g. 0).
    pub elo0: f64,
    /// Elo difference under H1 (e.g. 10); must be greater than `elo0`.
    pub elo1: f64,
    /// False-positive rate α in `(0, 1)`.
    pub alpha: f64,
    /// False-negative rate β in `(0, 1)`.
    pub beta: f64,
}

impl Default for SprtConfig {
    fn default() -> Self {
        SprtConfig {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        }
    }
}

/// Bad SPRT settings.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    /// Text not of the form `elo0,elo1,alpha,beta`.
    #[error("bad SPRT spec {0:?}: expected elo0,elo1,alpha,beta (e.g. 0,10,0.05,0.05)")]
    Syntax(String),
    /// Values out of range.
    #[error("bad SPRT settings: {0}")]
    Range(String),
}

/// What the test says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtDecision {
    /// LLR reached the upper bound: H1 (`elo1`) accepted.
    H1,
    /// LLR reached the lower bound: H0 (`elo0`) accepted.
    H0,
    /// Neither bound reached yet.
    Continue,
}

/// LLR with its bounds and decision.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtState {
    /// Log-likelihood ratio (natural log).
    pub llr: f64,
    /// Lower bound `ln(β/(1−α))`.
    pub lower: f64,
    /// Upper bound `ln((1−β)/α)`.
    pub upper: f64,
    /// The decision.
    pub decision: SprtDecision,
}

impl SprtConfig {
    /// Parse `elo0,elo1,alpha,beta` and validate.
    ///
    /// # Errors
    /// [`SprtError`] naming what is wrong.
    pub fn parse(text: &str) -> Result<Self, SprtError> {
        let parts: Vec<f64> = text
            .split(',')
            .map(|p| p.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| SprtError::Syntax(text.to_string()))?;
        let [elo0, elo1, alpha, beta] = parts[..] else {
            return Err(SprtError::Syntax(text.to_string()));
        };
        let c = SprtConfig {
            elo0,
            elo1,
            alpha,
            beta,
        };
        c.validate()?;
        Ok(c)
    }

    /// Check `elo0 < elo1` (both finite) and `α, β ∈ (0, 1)` with
    /// `α + β < 1`.
    ///
    /// # Errors
    /// [`SprtError::Range`].
    pub fn validate(&self) -> Result<(), SprtError> {
        if !(self.elo0.is_finite() && self.elo1.is_finite()) || self.elo0 >= self.elo1 {
            return Err(SprtError::Range(format!(
                "elo0 = {} and elo1 = {} must be finite with elo0 < elo1 \
                 (H0 is the smaller Elo difference)",
                self.elo0, self.elo1
            )));
        }
        let unit = |x: f64| x > 0.0 && x < 1.0;
        if !(unit(self.alpha) && unit(self.beta)) || self.alpha + self.beta >= 1.0 {
            return Err(SprtError::Range(format!(
                "alpha = {} and beta = {} must lie in (0, 1) with alpha + beta < 1",
                self.alpha, self.beta
            )));
        }
        Ok(())
    }

    /// Wald's bounds `(ln(β/(1−α)), ln((1−β)/α))`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The approximate GSPRT log-likelihood ratio of a record; for a
    /// record without variance, 0 (all draws) or Wald's Bernoulli LLR (a
    /// clean sweep); see the module docs.
    pub fn llr(&self, wdl: &WdlCounts) -> f64 {
        let (s, var) = score_and_variance(wdl);
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        if var > 0.0 && var.is_finite() {
            return f64::from(wdl.games()) * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var);
        }
        f64::from(wdl.wins) * (s1 / s0).ln()
            + f64::from(wdl.losses) * ((1.0 - s1) / (1.0 - s0)).ln()
    }

    /// LLR, bounds and decision for a record.
    pub fn state(&self, wdl: &WdlCounts) -> SprtState {
        let llr = self.llr(wdl);
        let (lower, upper) = self.bounds();
        let decision = if llr >= upper {
            SprtDecision::H1
        } else if llr <= lower {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        };
        SprtState {
            llr,
            lower,
            upper,
            decision,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_for_five_percent() {
        let c = SprtConfig::default();
        let (lo, hi) = c.bounds();
        // ln(0.05/0.95) = −2.944438979...
        assert!((lo + 2.944_438_979_166_44).abs() < 1e-12);
        assert!((hi - 2.944_438_979_166_44).abs() < 1e-12);
    }

    #[test]
    fn llr_by_hand() {
        // elo0 = 0, elo1 = 10: s0 = 0.5, s1 = 1/(1+10^(-1/40)) = 0.514387...
        // W=600 D=200 L=400, N=1200: s = 700/1200 = 0.583333...,
        // σ² = (600 (5/12)² + 200 (1/12)² + 400 (7/12)²)/1200 = 0.2013889...
        // LLR = 1200 · 0.0143874 · (1.1666667 − 1.0143874) / (2 · 0.2013889)
        //     = 6.52729...
        let c = SprtConfig::default();
        let wdl = WdlCounts {
            wins: 600,
            draws: 200,
            losses: 400,
        };
        let s1 = 1.0 / (1.0 + 10f64.powf(-10.0 / 400.0));
        let s = 700.0 / 1200.0;
        let var = (600.0 * (1.0 - s) * (1.0 - s) + 200.0 * (0.5 - s) * (0.5 - s) + 400.0 * s * s)
            / 1200.0;
        let expected = 1200.0 * (s1 - 0.5) * (2.0 * s - 0.5 - s1) / (2.0 * var);
        assert!((c.llr(&wdl) - expected).abs() < 1e-9);
        assert!((c.llr(&wdl) - 6.527_290_47).abs() < 1e-6, "{}", c.llr(&wdl));
        assert_eq!(c.state(&wdl).decision, SprtDecision::H1);
        // The mirror record goes to H0.
        let mirror = WdlCounts {
            wins: 400,
            draws: 200,
            losses: 600,
        };
        assert_eq!(c.state(&mirror).decision, SprtDecision::H0);
    }

    #[test]
    fn all_draws_never_decide() {
        let c = SprtConfig::default();
        let wdl = WdlCounts {
            wins: 0,
            draws: 10_000,
            losses: 0,
        };
        assert_eq!(c.llr(&wdl), 0.0);
        assert_eq!(c.state(&wdl).decision, SprtDecision::Continue);
    }

    #[test]
    fn clean_sweeps_use_walds_bernoulli_sprt() {
        // elo0 = 0, elo1 = 10: ln(s1/s0) = ln(0.5143871841 / 0.5) = 0.0283682...
        let c = SprtConfig::default();
        let sweep = |wins, losses| WdlCounts {
            wins,
            draws: 0,
            losses,
        };
        let step = (1.0 / (1.0 + 10f64.powf(-10.0 / 400.0)) / 0.5).ln();
        assert!((step - 0.028_368_16).abs() < 1e-8, "{step}");
        assert!((c.llr(&sweep(16, 0)) - 16.0 * step).abs() < 1e-12);
        assert_eq!(c.state(&sweep(16, 0)).decision, SprtDecision::Continue);
        // ceil(2.944439 / 0.0283649) = 104 straight wins accept H1.
        assert_eq!(c.state(&sweep(103, 0)).decision, SprtDecision::Continue);
        assert_eq!(c.state(&sweep(104, 0)).decision, SprtDecision::H1);
        // A wider hypothesis pair decides sooner: 0 vs 200 Elo.
        let wide = SprtConfig { elo1: 200.0, ..c };
        assert_eq!(wide.state(&sweep(12, 0)).decision, SprtDecision::H1);
        // Straight losses go to H0.
        assert!(c.llr(&sweep(0, 16)) < 0.0);
        assert_eq!(c.state(&sweep(0, 120)).decision, SprtDecision::H0);
    }

    #[test]
    fn parse_and_validate() {
        let c = SprtConfig::parse("0, 5, 0.05, 0.1").unwrap();
        assert_eq!((c.elo0, c.elo1, c.alpha, c.beta), (0.0, 5.0, 0.05, 0.1));
        assert!(SprtConfig::parse("0,5,0.05").is_err());
        assert!(SprtConfig::parse("0,0,0.05,0.05").is_err());
        assert!(SprtConfig::parse("0,5,0.6,0.5").is_err());
        assert!(SprtConfig::parse("a,b,c,d").is_err());
    }

    #[test]
    fn elo0_must_be_below_elo1() {
        assert_eq!(
            SprtConfig::parse("50,0,0.05,0.05").unwrap_err().to_string(),
            "bad SPRT settings: elo0 = 50 and elo1 = 0 must be finite with elo0 < elo1 \
             (H0 is the smaller Elo difference)"
        );
        assert_eq!(
            SprtConfig::parse("10,10,0.05,0.05")
                .unwrap_err()
                .to_string(),
            "bad SPRT settings: elo0 = 10 and elo1 = 10 must be finite with elo0 < elo1 \
             (H0 is the smaller Elo difference)"
        );
        assert!(SprtConfig::parse("-10,0,0.05,0.05").is_ok());
    }
}
