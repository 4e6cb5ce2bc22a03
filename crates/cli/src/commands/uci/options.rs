//! The engine's UCI options: declaration (`uci`) and `setoption` parsing.

use rules::VariantId;

/// Value of `UCI_Variant` that python-chess sends for a plain
/// `chess.Board` (its `uci_variant` is `"chess"`); played as losers, the
/// only variant here on the standard 8x8 board with the standard start.
pub const CHESS_ALIAS: &str = "chess";

/// Largest `Nodes` value offered.
pub const MAX_NODES: u32 = 100_000_000;
/// Largest `Temperature` value offered (hundredths: 1000 = temperature 10).
pub const MAX_TEMPERATURE_CENTI: u32 = 1000;

/// Largest `Contempt` value offered (hundredths: 99 = contempt 0.99).
pub const MAX_CONTEMPT_CENTI: u32 = 99;
/// Largest `PolicyTemperature` value offered (hundredths: 1000 = 10).
pub const MAX_POLICY_TEMPERATURE_CENTI: u32 = 1000;
/// Default `RamLimitMb`: the search tree's memory, in MiB.
pub const DEFAULT_RAM_LIMIT_MB: u64 = 4096;
/// Largest `RamLimitMb` value offered (1 TiB).
pub const MAX_RAM_LIMIT_MB: u64 = 1 << 20;

/// Option values.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `UCI_Variant`.
    pub variant: VariantId,
    /// `BundlePath`; empty = the variant's bundle on the bundle search path.
    pub bundle_path: String,
    /// `Threads`: CPU threads of the search (two batches in flight with two or more) and the network.
    pub threads: usize,
    /// `Nodes`: cap on root visits per move (a Loki move's actions
    /// together); 0 = no cap.
    pub nodes: u32,
    /// `Temperature` in hundredths (100 = 1.0); 0 = best move.
    pub temperature_centi: u32,
    /// `PolicyOnly`: play from the network's policy without search.
    pub policy_only: bool,
    /// `Move Overhead` in milliseconds, kept in reserve on the clock.
    pub move_overhead_ms: u64,
    /// `Contempt` in hundredths ([`search::SearchConfig::contempt`]).
    pub contempt_centi: u32,
    /// `PolicyTemperature` in hundredths, `>= 1`
    /// ([`search::SearchConfig::policy_temperature`]).
    pub policy_temperature_centi: u32,
    /// `Ponder`: the GUI may ask the engine to think on the opponent's
    /// time (`go ponder`); `bestmove` then names the reply it expects
    /// (`bestmove M ponder R`).
    pub ponder: bool,
    /// `RamLimitMb`: the most memory the search tree may hold, in MiB
    /// ([`search::Budget::tree_bytes`], lc0's option of that name); a
    /// search reaching it ends as at a node bound. 0 = no limit.
    pub ram_limit_mb: u64,
}

/// What a `setoption` changed.
#[derive(Clone, Debug, PartialEq)]
pub enum Changed {
    /// `UCI_Variant`; the flag says the value was the `chess` alias.
    Variant { via_chess_alias: bool },
    /// `BundlePath`.
    Bundle,
    /// `Threads`.
    Threads,
    /// `Nodes`, `Temperature`, `PolicyOnly`, `Move Overhead`, `Contempt`,
    /// `PolicyTemperature`, `RamLimitMb`.
    Strength,
    /// `Ponder`.
    Ponder,
}

impl Options {
    /// Defaults, with `variant` as the `UCI_Variant` default.
    pub fn new(variant: VariantId, bundle_path: String, threads: usize) -> Self {
        Options {
            variant,
            bundle_path,
            threads: threads.max(1),
            nodes: 0,
            temperature_centi: 0,
            policy_only: false,
            move_overhead_ms: 50,
            contempt_centi: (search::SearchConfig::for_play().contempt * 100.0).round() as u32,
            policy_temperature_centi: (search::PLAY_POLICY_TEMPERATURE * 100.0).round() as u32,
            ponder: false,
            ram_limit_mb: DEFAULT_RAM_LIMIT_MB,
        }
    }

    /// The `option ...` lines of the `uci` reply.
    pub fn declarations(&self) -> Vec<String> {
        let vars: String = VariantId::ALL
            .iter()
            .map(|v| format!(" var {v}"))
            .chain(std::iter::once(format!(" var {CHESS_ALIAS}")))
            .collect();
        let path = if self.bundle_path.is_empty() {
            "<empty>"
        } else {
            &self.bundle_path
        };
        vec![
            format!(
                "option name UCI_Variant type combo default {}{vars}",
                self.variant
            ),
            format!("option name BundlePath type string default {path}"),
            format!(
                "option name Threads type spin default {} min 1 max {}",
                self.threads,
                crate::commands::MAX_THREADS
            ),
            format!("option name Nodes type spin default 0 min 0 max {MAX_NODES}"),
            format!(
                "option name Temperature type spin default 0 min 0 max {MAX_TEMPERATURE_CENTI}"
            ),
            "option name PolicyOnly type check default false".to_string(),
            format!(
                "option name Move Overhead type spin default {} min 0 max 5000",
                self.move_overhead_ms
            ),
            format!(
                "option name Contempt type spin default {} min 0 max {MAX_CONTEMPT_CENTI}",
                self.contempt_centi
            ),
            format!(
                "option name PolicyTemperature type spin default {} min 1 max {MAX_POLICY_TEMPERATURE_CENTI}",
                self.policy_temperature_centi
            ),
            format!("option name Ponder type check default {}", self.ponder),
            format!(
                "option name RamLimitMb type spin default {} min 0 max {MAX_RAM_LIMIT_MB}",
                self.ram_limit_mb
            ),
        ]
    }

    /// Apply `setoption name <name> value <value>` (names case-insensitive,
    /// as in the UCI specification).
    ///
    /// # Errors
    /// An error naming the option and the bad value; nothing changes then.
    pub fn set(&mut self, name: &str, value: &str) -> anyhow::Result<Changed> {
        let value = value.trim();
        let spin_from = |min: u64, max: u64| -> anyhow::Result<u64> {
            match search::parse_plain_u64(value) {
                Some(v) if (min..=max).contains(&v) => Ok(v),
                _ => anyhow::bail!(
                    "option {}: expected an integer in {min}..={max}, got {value:?}",
                    name.trim()
                ),
            }
        };
        let spin = |max: u64| spin_from(0, max);
        match name.trim().to_ascii_lowercase().as_str() {
            "uci_variant" => {
                if value.eq_ignore_ascii_case(CHESS_ALIAS) {
                    self.variant = VariantId::Losers;
                    return Ok(Changed::Variant {
                        via_chess_alias: true,
                    });
                }
                self.variant = value
                    .parse()
                    .map_err(|e| anyhow::anyhow!("UCI_Variant: {e}"))?;
                Ok(Changed::Variant {
                    via_chess_alias: false,
                })
            }
            "bundlepath" => {
                self.bundle_path = if value == "<empty>" {
                    String::new()
                } else {
                    value.to_string()
                };
                Ok(Changed::Bundle)
            }
            "threads" => {
                self.threads = spin_from(1, crate::commands::MAX_THREADS as u64)? as usize;
                Ok(Changed::Threads)
            }
            "nodes" => {
                self.nodes = spin(u64::from(MAX_NODES))? as u32;
                Ok(Changed::Strength)
            }
            "temperature" => {
                self.temperature_centi = spin(u64::from(MAX_TEMPERATURE_CENTI))? as u32;
                Ok(Changed::Strength)
            }
            "policyonly" => {
                self.policy_only = check(value, "PolicyOnly")?;
                Ok(Changed::Strength)
            }
            "ponder" => {
                self.ponder = check(value, "Ponder")?;
                Ok(Changed::Ponder)
            }
            "move overhead" => {
                self.move_overhead_ms = spin(5000)?;
                Ok(Changed::Strength)
            }
            "contempt" => {
                self.contempt_centi = spin(u64::from(MAX_CONTEMPT_CENTI))? as u32;
                Ok(Changed::Strength)
            }
            "ramlimitmb" => {
                self.ram_limit_mb = spin(MAX_RAM_LIMIT_MB)?;
                Ok(Changed::Strength)
            }
            "policytemperature" => {
                self.policy_temperature_centi =
                    spin_from(1, u64::from(MAX_POLICY_TEMPERATURE_CENTI))? as u32;
                Ok(Changed::Strength)
            }
            _ => anyhow::bail!("unknown option {:?}", name.trim()),
        }
    }

    /// The play search config these options ask for
    /// ([`search::SearchConfig::for_play`] with `Contempt` and
    /// `PolicyTemperature`).
    pub fn search_config(&self) -> search::SearchConfig {
        search::SearchConfig {
            contempt: self.contempt_centi as f32 / 100.0,
            policy_temperature: self.policy_temperature_centi as f32 / 100.0,
            ..search::SearchConfig::for_play()
        }
    }

    /// The bound on the search tree's memory these options ask for, in
    /// bytes (`RamLimitMb`; `None` for 0).
    pub fn tree_bytes(&self) -> Option<u64> {
        (self.ram_limit_mb > 0).then_some(self.ram_limit_mb << 20)
    }

    /// The strength these options ask for.
    pub fn strength(&self) -> bot::Strength {
        bot::Strength {
            max_nodes: (self.nodes > 0).then_some(self.nodes),
            temperature: self.temperature_centi as f32 / 100.0,
            policy_only: self.policy_only,
        }
    }
}

/// The value of a `check` option: `true` or `false` (any case).
fn check(value: &str, name: &str) -> anyhow::Result<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => anyhow::bail!("option {name}: expected true or false, got {value:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_values() {
        let mut o = Options::new(VariantId::Shakti, String::new(), 1);
        assert_eq!(
            o.set("uci_variant", "chess").unwrap(),
            Changed::Variant {
                via_chess_alias: true
            }
        );
        assert_eq!(o.variant, VariantId::Losers);
        assert!(o.set("UCI_Variant", "crazyhouse").is_err());
        assert_eq!(o.variant, VariantId::Losers);
        o.set("Temperature", "150").unwrap();
        o.set("Nodes", "64").unwrap();
        let s = o.strength();
        assert_eq!((s.max_nodes, s.temperature), (Some(64), 1.5));
        assert!(o.set("Nodes", "-1").is_err());
        assert!(o.set("Threads", "0").is_err());
        assert!(o.set("PolicyOnly", "maybe").is_err());
        assert!(o.set("Ponder", "yes").is_err());
        assert_eq!(o.set("ponder", "TRUE").unwrap(), Changed::Ponder);
        assert!(o.ponder);
        assert!(o.set("Hash", "16").is_err());
        assert_eq!(o.tree_bytes(), Some(DEFAULT_RAM_LIMIT_MB << 20));
        o.set("RamLimitMb", "0").unwrap();
        assert_eq!(o.tree_bytes(), None);
        o.set("ramlimitmb", "64").unwrap();
        assert_eq!(o.tree_bytes(), Some(64 << 20));
        assert!(o.set("RamLimitMb", "-1").is_err());
        assert_eq!(o.search_config().policy_temperature, 1.6);
        o.set("Contempt", "30").unwrap();
        o.set("PolicyTemperature", "250").unwrap();
        let c = o.search_config();
        assert_eq!((c.contempt, c.policy_temperature), (0.3, 2.5));
        assert_eq!(c.validate(), Ok(()));
        assert!(o.set("Contempt", "100").is_err());
        for bad in ["0", "-3", "abc", "1001", "+7", "1e2"] {
            let e = o.set("PolicyTemperature", bad).unwrap_err().to_string();
            assert!(
                e.contains("PolicyTemperature: expected an integer in 1..=1000"),
                "{e}"
            );
        }
        assert_eq!(o.search_config().policy_temperature, 2.5);
        let decl = o.declarations();
        assert_eq!(
            decl[0],
            "option name UCI_Variant type combo default losers var losers var viking var hnefatafl var loki var shakti var copenhagen var chess"
        );
        assert_eq!(
            decl[1],
            "option name BundlePath type string default <empty>"
        );
    }
}
