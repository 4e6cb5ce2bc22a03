//! The variant list, and what is generated from it: the [`VariantId`]
//! enum, its [`Variant`] impls, the [`with_variant!`](crate::with_variant)
//! dispatch and, in other crates, every per-variant check and enum
//! (`docs/adding-a-variant.md`).

use std::fmt;
use std::str::FromStr;

use crate::{Describe, Game};

/// The one list of variants: each entry is its doc, its `VariantId`
/// name, its id text (configs, bundles, `--variant`, `UCI_Variant`) and
/// its game type, in the order of `docs/rules.md`.
///
/// `for_each_variant!(callback! { args })` expands to
/// `callback! { args <entries> }`, each entry written
/// `#[doc = ".."] Name = "name", Type;`, so a `macro_rules!` callback
/// matches them with
/// `$($(#[$doc:meta])* $name:ident = $id:literal, $ty:ty;)*`. The
/// callback is a path (`$crate::m` or a macro in scope); `args` are
/// passed through unchanged. Generated from it: [`VariantId`] (with
/// `ALL`, `as_str` and its serde names), the [`Variant`] impls,
/// [`with_variant!`](crate::with_variant), the checks of
/// [`every_variant_implements!`](crate::every_variant_implements) and the
/// bot's `Bot` enum. A new entry makes the compiler report every impl
/// the new type still lacks.
#[macro_export]
macro_rules! for_each_variant {
    ($($callback:tt)::+ ! { $($args:tt)* }) => {
        $($callback)::+! {
            $($args)*
            /// Losers chess (`docs/rules.md` §1).
            Losers = "losers", $crate::Losers;
            /// Viking chess (`docs/rules.md` §2).
            Viking = "viking", $crate::Viking;
            /// Hnefatafl (`docs/rules.md` §3).
            Hnefatafl = "hnefatafl", $crate::Hnefatafl;
            /// Loki chess (`docs/rules.md` §4).
            Loki = "loki", $crate::Loki;
            /// Shakti (`docs/rules.md` §5).
            Shakti = "shakti", $crate::Shakti;
            /// Copenhagen Hnefatafl (`docs/rules.md` §6).
            Copenhagen = "copenhagen", $crate::Copenhagen;
        }
    };
}

/// A game of the variant list ([`for_each_variant!`]), as opposed to a
/// test game: it has an id for configs, bundles and UCI, and describes
/// itself ([`Describe`]: names, board, move shapes), so the impl generated
/// for a new entry names whichever of the two traits its type lacks. The
/// impls are generated from the list; nothing else implements it.
pub trait Variant: Game + Describe {
    /// Variant id used in configs, bundles and UCI (`docs/rules.md`).
    const VARIANT: VariantId;
}

macro_rules! variant_id {
    ($($(#[$doc:meta])* $name:ident = $id:literal, $ty:ty;)*) => {
        /// A variant of the list ([`for_each_variant!`]); serde reads and
        /// writes it as its id text (`docs/rules.md`, "Variant ids") in
        /// every format, so a binary record (a replay chunk's bincode
        /// header) holds the same bytes as the id string would.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum VariantId {
            $($(#[$doc])* $name,)*
        }

        impl VariantId {
            /// All variants, in the order of `docs/rules.md`.
            pub const ALL: [VariantId; [$($id),*].len()] = [$(VariantId::$name),*];

            /// The id string (`losers`, `viking`, ...).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(VariantId::$name => $id,)*
                }
            }
        }

        $(impl Variant for $ty {
            const VARIANT: VariantId = VariantId::$name;
        })*
    };
}
for_each_variant!(variant_id! {});

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The ids of [`VariantId::ALL`], joined with `", "`.
fn id_list() -> String {
    VariantId::ALL.map(VariantId::as_str).join(", ")
}

/// Error for an unknown variant id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {0:?} (expected one of: {ids})", ids = id_list())]
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

impl serde::Serialize for VariantId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for VariantId {
    /// The id text; an unknown id is an error naming it and the choices.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Run `$body` with the type alias `$G` bound to the game type of the
/// runtime variant id `$variant`. Generated from [`for_each_variant!`]
/// as an exhaustive `match`: every variant of the list has an arm, so the
/// code of `$body` is compiled for every variant type, and its trait
/// bounds are checked for each.
///
/// ```
/// use rules::Variant;
/// let name = rules::with_variant!(rules::VariantId::Shakti, G => G::VARIANT.as_str());
/// assert_eq!(name, "shakti");
/// ```
#[macro_export]
macro_rules! with_variant {
    ($variant:expr, $G:ident => $body:expr) => {
        $crate::for_each_variant!($crate::__with_variant_arms! { ($variant) $G ($body) })
    };
}

/// The `match` of [`with_variant!`], one arm per entry of the list.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_variant_arms {
    (($variant:expr) $G:ident ($body:expr)
     $($(#[$doc:meta])* $name:ident = $id:literal, $ty:ty;)*) => {
        match $variant {
            $($crate::VariantId::$name => {
                type $G = $ty;
                $body
            })*
        }
    };
}

/// A compile-time check that every game type of the list implements the
/// trait `$trait`: a crate that defines a per-variant trait invokes it
/// once, so a new entry in [`for_each_variant!`] without that trait's
/// impl fails to compile at this line, naming the type and the trait.
///
/// ```
/// rules::every_variant_implements!(rules::Game);
/// ```
#[macro_export]
macro_rules! every_variant_implements {
    ($trait:path) => {
        $crate::for_each_variant!($crate::__every_variant_implements! { ($trait) });
    };
}

/// The check of [`every_variant_implements!`].
#[doc(hidden)]
#[macro_export]
macro_rules! __every_variant_implements {
    (($trait:path) $($(#[$doc:meta])* $name:ident = $id:literal, $ty:ty;)*) => {
        const _: fn() = || {
            fn implements<T: ?Sized + $trait>() {}
            $(implements::<$ty>();)*
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_text_and_serde() {
        let ids: Vec<&str> = VariantId::ALL.map(VariantId::as_str).to_vec();
        assert_eq!(
            ids,
            [
                "losers",
                "viking",
                "hnefatafl",
                "loki",
                "shakti",
                "copenhagen"
            ]
        );
        for v in VariantId::ALL {
            assert_eq!(v.as_str().parse::<VariantId>(), Ok(v));
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(json, format!("\"{v}\""));
            assert_eq!(serde_json::from_str::<VariantId>(&json).unwrap(), v);
        }
        assert_eq!(
            "chess".parse::<VariantId>().unwrap_err().to_string(),
            "unknown variant \"chess\" (expected one of: losers, viking, hnefatafl, loki, shakti, copenhagen)"
        );
    }
}
