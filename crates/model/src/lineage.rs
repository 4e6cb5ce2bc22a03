//! Where a bundle came from (`model.json`'s `lineage`): how many
//! generations and CPU-hours of training stand behind it, the bundles it
//! was continued from (`lokizero train --init-from`), and the match that
//! promoted it to shipped.
//!
//! The training loop fills in the generations and CPU-hours of every
//! checkpoint; `lokizero export --promoted-by MATCH.json` adds the SPRT
//! that replaced the previous shipped bundle (`docs/models.md`).

use rules::VariantId;
use serde::{Deserialize, Serialize};

/// The lineage record of one bundle.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lineage {
    /// Generations trained since the untrained network, across every run of
    /// the lineage (generation numbers carry on through `--init-from`).
    pub generations: u32,
    /// Process CPU time of all those generations (self-play, training and
    /// evaluation, all threads), in hours; `None` for bundles trained
    /// before the pipeline recorded it.
    pub cpu_hours: Option<f64>,
    /// The bundles this lineage was continued from with `--init-from`,
    /// oldest first.
    #[serde(default)]
    pub ancestors: Vec<Ancestor>,
    /// The match that made this bundle the shipped one, if any.
    #[serde(default)]
    pub promoted_by: Option<Promotion>,
}

/// A bundle a run started from (`--init-from`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ancestor {
    /// Its generation number.
    pub generation: u32,
    /// Lower-case hex sha256 of its `model.safetensors`.
    pub weights_sha256: String,
}

/// The promotion match: this bundle (player `a`) against the bundle it
/// replaced (player `b`), with the sequential test that decided it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Promotion {
    /// Player spec of the new bundle in that match.
    pub a: String,
    /// Player spec of the replaced bundle.
    pub b: String,
    /// Games played (the SPRT may stop before the game limit).
    pub games: u32,
    /// Wins of `a`.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses of `a`.
    pub losses: u32,
    /// Elo difference of `a` over `b` with its 95 % interval
    /// `[elo_lower, elo_upper]` (arena's trinomial estimate); `None` where
    /// it is infinite (a match stopped early with no loss or no win).
    pub elo: Option<f64>,
    /// Lower end of the 95 % interval (`None`: unbounded).
    pub elo_lower: Option<f64>,
    /// Upper end of the 95 % interval (`None`: unbounded).
    pub elo_upper: Option<f64>,
    /// The SPRT's decision (`"h1"` for a promotion) and its final
    /// log-likelihood ratio (Wald 1945; bounds in the match record).
    pub sprt_decision: String,
    /// Final log-likelihood ratio.
    pub llr: f64,
    /// Seed of the match (openings and colours), to replay it.
    pub seed: Option<u64>,
    /// The bundle this one replaced (its generation and weights sha256),
    /// read by `lokizero export` from the folder it overwrote, since `b`
    /// names a path that then holds the new bundle; `None` when nothing
    /// was replaced, and in records written before this field.
    #[serde(default)]
    pub replaced: Option<Ancestor>,
}

/// Why a match record cannot serve as a promotion.
#[derive(Debug, thiserror::Error)]
pub enum PromotionError {
    /// A field the promotion needs is missing or has the wrong type.
    #[error("the match record has no usable {0} (expected `lokizero match --sprt ... --json` output; counts are whole numbers below 2^32)")]
    Missing(&'static str),
    /// The match was played in another variant than the bundle's.
    #[error("the match was played in {found}, the bundle is {expected}")]
    WrongVariant {
        /// The bundle's variant.
        expected: VariantId,
        /// The match record's variant.
        found: String,
    },
    /// The SPRT did not accept H1: the bundle did not prove stronger.
    #[error("the match's SPRT decided {0:?}, not \"h1\": it does not promote the bundle")]
    NotAccepted(String),
    /// The SPRT says H1 but its LLR lies below its own upper bound, or
    /// that bound is not positive (`ln((1-beta)/alpha) > 0` for any
    /// `alpha + beta < 1`).
    #[error("the match's SPRT says \"h1\" with LLR {llr:.6} and upper bound {upper:.6}: an accepted H1 has a positive upper bound and an LLR at or above it")]
    BelowBound {
        /// The record's log-likelihood ratio.
        llr: f64,
        /// The record's upper bound `ln((1-beta)/alpha)`.
        upper: f64,
    },
}

impl Promotion {
    /// Read a promotion of a bundle of `variant` from the JSON record of
    /// `lokizero match --sprt ... --json`.
    ///
    /// # Errors
    /// [`PromotionError::Missing`] naming an absent field;
    /// [`PromotionError::WrongVariant`] for a match of another variant;
    /// [`PromotionError::NotAccepted`] when the SPRT did not accept H1;
    /// [`PromotionError::BelowBound`] when its LLR does not reach its
    /// upper bound (which must be positive).
    pub fn from_match_json(
        record: &serde_json::Value,
        variant: VariantId,
    ) -> Result<Self, PromotionError> {
        let text = |key: &'static str| {
            record
                .get(key)
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
                .ok_or(PromotionError::Missing(key))
        };
        let count = |key: &'static str| {
            record
                .get(key)
                .and_then(serde_json::Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or(PromotionError::Missing(key))
        };
        let number = |path: &[&str], name: &'static str| {
            path.iter()
                .try_fold(record, |v, k| v.get(k))
                .and_then(serde_json::Value::as_f64)
                .ok_or(PromotionError::Missing(name))
        };
        let played = text("variant")?;
        if played != variant.as_str() {
            return Err(PromotionError::WrongVariant {
                expected: variant,
                found: played,
            });
        }
        // The match's JSON writes an infinite Elo bound as null.
        let bound = |path: &[&str]| {
            path.iter()
                .try_fold(record, |v, k| v.get(k))
                .and_then(serde_json::Value::as_f64)
        };
        let decision = record
            .get("sprt")
            .and_then(|s| s.get("decision"))
            .and_then(serde_json::Value::as_str)
            .ok_or(PromotionError::Missing("sprt.decision"))?;
        if decision != "h1" {
            return Err(PromotionError::NotAccepted(decision.to_string()));
        }
        let llr = number(&["sprt", "llr"], "sprt.llr")?;
        let upper = number(&["sprt", "upper"], "sprt.upper")?;
        if !(llr >= upper && upper > 0.0) {
            return Err(PromotionError::BelowBound { llr, upper });
        }
        Ok(Promotion {
            a: text("a")?,
            b: text("b")?,
            games: count("games")?,
            wins: count("wins")?,
            draws: count("draws")?,
            losses: count("losses")?,
            elo: bound(&["elo", "elo"]),
            elo_lower: bound(&["elo", "lower"]),
            elo_upper: bound(&["elo", "upper"]),
            sprt_decision: decision.to_string(),
            llr,
            seed: record.get("seed").and_then(serde_json::Value::as_u64),
            replaced: None,
        })
    }
}

impl Lineage {
    /// The lineage of a checkpoint at `generation` whose training record
    /// says `cpu_seconds_total` (all generations so far), continuing
    /// `parent`'s ancestors.
    pub fn at_generation(
        generation: u32,
        cpu_seconds_total: Option<f64>,
        parent: Option<&Lineage>,
    ) -> Self {
        Lineage {
            generations: generation,
            cpu_hours: cpu_seconds_total.map(|s| s / 3600.0),
            ancestors: parent.map(|p| p.ancestors.clone()).unwrap_or_default(),
            promoted_by: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sprt_match(decision: &str) -> serde_json::Value {
        serde_json::json!({
            "a": "bundle:new:200", "b": "bundle:models/hnefatafl:200",
            "games": 160, "wins": 78, "draws": 32, "losses": 50,
            "elo": {"elo": 61.4, "lower": 13.6, "upper": 111.7},
            "sprt": {"decision": decision, "llr": 3.08, "upper": 2.94},
            "seed": 2302, "variant": "hnefatafl"
        })
    }

    #[test]
    fn an_accepted_sprt_becomes_the_promotion() {
        let p = Promotion::from_match_json(&sprt_match("h1"), VariantId::Hnefatafl).unwrap();
        assert_eq!((p.games, p.wins, p.draws, p.losses), (160, 78, 32, 50));
        assert_eq!(p.b, "bundle:models/hnefatafl:200");
        assert_eq!(p.seed, Some(2302));
        assert_eq!(p.elo_lower, Some(13.6));
        assert!((p.llr - 3.08).abs() < 1e-9);
    }

    #[test]
    fn an_early_lopsided_sprt_with_unbounded_elo_promotes() {
        let mut record = sprt_match("h1");
        record["elo"] = serde_json::json!({"elo": null, "lower": 120.0, "upper": null});
        let p = Promotion::from_match_json(&record, VariantId::Hnefatafl).unwrap();
        assert_eq!((p.elo, p.elo_lower, p.elo_upper), (None, Some(120.0), None));
    }

    #[test]
    fn a_rejected_or_undecided_sprt_does_not_promote() {
        for decision in ["h0", "undecided"] {
            let err = Promotion::from_match_json(&sprt_match(decision), VariantId::Hnefatafl)
                .unwrap_err();
            assert!(err.to_string().contains(decision), "{err}");
        }
    }

    #[test]
    fn an_h1_short_of_its_bound_does_not_promote() {
        let mut record = sprt_match("h1");
        record["sprt"]["llr"] = 1.5.into();
        let err = Promotion::from_match_json(&record, VariantId::Hnefatafl).unwrap_err();
        assert!(matches!(err, PromotionError::BelowBound { .. }), "{err}");
        record["sprt"]["llr"] = 3.08.into();
        record["sprt"]["upper"] = 0.0.into();
        let err = Promotion::from_match_json(&record, VariantId::Hnefatafl).unwrap_err();
        assert!(err.to_string().contains("upper bound 0.000000"), "{err}");
    }

    #[test]
    fn a_match_without_an_sprt_is_named() {
        let mut record = sprt_match("h1");
        record.as_object_mut().unwrap().remove("sprt");
        let err = Promotion::from_match_json(&record, VariantId::Hnefatafl).unwrap_err();
        assert!(err.to_string().contains("sprt.decision"), "{err}");
    }

    #[test]
    fn a_match_of_another_variant_is_refused() {
        let err = Promotion::from_match_json(&sprt_match("h1"), VariantId::Shakti).unwrap_err();
        assert!(err.to_string().contains("played in hnefatafl"), "{err}");
    }

    #[test]
    fn a_checkpoint_keeps_its_parents_ancestors() {
        let parent = Lineage {
            generations: 20,
            cpu_hours: Some(0.3),
            ancestors: vec![Ancestor {
                generation: 20,
                weights_sha256: "ab".into(),
            }],
            promoted_by: None,
        };
        let child = Lineage::at_generation(21, Some(7200.0), Some(&parent));
        assert_eq!(child.generations, 21);
        assert_eq!(child.cpu_hours, Some(2.0));
        assert_eq!(child.ancestors, parent.ancestors);
    }
}
