//! Variant ids as used in configs, bundles and `UCI_Variant`.

use std::fmt;
use std::str::FromStr;

/// The five variants (`docs/rules.md`, "Variant ids").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VariantId {
    Losers,
    Viking,
    Hnefatafl,
    Loki,
    Shakti,
}

impl VariantId {
    /// All variants, in the order of `docs/rules.md`.
    pub const ALL: [VariantId; 5] = [
        VariantId::Losers,
        VariantId::Viking,
        VariantId::Hnefatafl,
        VariantId::Loki,
        VariantId::Shakti,
    ];

    /// The id string (`losers`, `viking`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            VariantId::Losers => "losers",
            VariantId::Viking => "viking",
            VariantId::Hnefatafl => "hnefatafl",
            VariantId::Loki => "loki",
            VariantId::Shakti => "shakti",
        }
    }
}

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for an unknown variant id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {0:?} (expected one of: losers, viking, hnefatafl, loki, shakti)")]
pub struct UnknownVariant(pub String);

impl FromStr for VariantId {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        VariantId::ALL
            .into_iter()
            .find(|v| v.as_str() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}
