//! The bundles the service plays with, and a pool of loaded bots per
//! variant: a search takes a bot (loading another when all are busy, so at
//! most one per search slot) and gives it back when done. A variant's
//! bundle can be replaced while the service runs ([`Catalog::replace`]:
//! a followed training run's newest generation); searches in progress
//! finish with the bot they took, which is then dropped.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use bot::Bot;
use burn::tensor::Device;
use model::{BundleMeta, Precision};
use rules::describe::Shade;
use rules::{Describe, VariantId};
use search::Budget;
use serde::Serialize;
use serde_json::Value;

use crate::error::{ApiError, StartError};

/// One variant's bundle and its idle bots.
struct Entry {
    variant: VariantId,
    dir: PathBuf,
    meta: BundleMeta,
    idle: Mutex<Vec<Bot>>,
}

impl Entry {
    /// The bundle in `dir`, with one bot loaded.
    fn load(variant: VariantId, dir: &Path, device: &Device) -> Result<Entry, bot::BotError> {
        let bot = Bot::load_for(variant, dir, device)?;
        // A bot loaded from a bundle always has its metadata.
        let meta = bot
            .meta()
            .cloned()
            .ok_or_else(|| bot::BotError::Setting("the bundle's model.json was not kept".into()))?;
        Ok(Entry {
            variant,
            dir: dir.to_path_buf(),
            meta,
            idle: Mutex::new(vec![bot]),
        })
    }
}

/// What `GET /api/variants` says about one variant.
#[derive(Clone, Debug, Serialize)]
pub struct VariantInfo {
    /// The variant id ([`VariantId::as_str`]).
    pub id: &'static str,
    /// Display name ([`Describe::NAME`]).
    pub name: &'static str,
    /// Names of the first and the second player ([`Describe::SIDES`]).
    pub sides: [&'static str; 2],
    /// The colour of each side's pieces, first player's first
    /// ([`Describe::COLOURS`]: `"light"` or `"dark"`).
    pub colours: [Shade; 2],
    /// Board width (files) and height (ranks).
    pub width: usize,
    /// Board height (ranks).
    pub height: usize,
    /// Whether a bot plays it (a bundle was found).
    pub bot: bool,
    /// Training generation of the bundle.
    pub generation: Option<u32>,
    /// The bundle's measured strength in one line, from its `model.json`.
    pub strength: Option<String>,
    /// The self-play behind the bundle ([`Trained`]), where its
    /// `model.json` records it.
    pub trained: Option<Trained>,
    /// The variant's rules: its section of `docs/rules.md`
    /// ([`crate::rules_doc::section`]), as Markdown.
    pub rules: Option<&'static str>,
}

/// The self-play games behind a bundle, from its `model.json`. The
/// training record keeps a running total of self-play positions over the
/// whole lineage (`training.selfplay_positions_total`, carried on through
/// `--init-from`) but games only for the last generation
/// (`training.games`), so the lineage's games are estimated: the
/// positions divided by the last generation's positions per game.
#[derive(Clone, Debug, Serialize)]
pub struct Trained {
    /// Generations trained since the untrained network (the lineage's,
    /// else the bundle's generation number).
    pub generations: u32,
    /// Self-play positions recorded for training over the lineage
    /// (`training.selfplay_positions_total`).
    pub positions: u64,
    /// Positions per game in the last generation's self-play
    /// (`training.selfplay_positions / training.games`).
    pub positions_per_game: f64,
    /// The estimated self-play games of the lineage: `positions /
    /// positions_per_game`, rounded.
    pub games: u64,
}

impl Trained {
    /// The record of bundle `meta`; `None` where its training section
    /// lacks the positions or the last generation's games.
    pub fn of(meta: &BundleMeta) -> Option<Trained> {
        let number = |key: &str| meta.training.get(key).and_then(Value::as_u64);
        let positions = number("selfplay_positions_total")?;
        let last_positions = number("selfplay_positions").filter(|&n| n > 0)?;
        let last_games = number("games").filter(|&n| n > 0)?;
        let positions_per_game = last_positions as f64 / last_games as f64;
        Some(Trained {
            generations: meta
                .lineage
                .as_ref()
                .map_or(meta.generation, |l| l.generations),
            positions,
            positions_per_game,
            games: (positions as f64 / positions_per_game).round() as u64,
        })
    }
}

/// The bundles found under the models folder, loaded and checked at
/// start-up; one may be replaced later ([`Catalog::replace`]).
pub struct Catalog {
    entries: RwLock<Vec<Arc<Entry>>>,
    device: Device,
}

impl Catalog {
    /// Load the bundle folder given for each variant (`dirs`: variant and
    /// folder; a folder without `model.json` is skipped, and a variant's
    /// first folder wins); a variant without one has no bot (its games
    /// are human against human).
    ///
    /// # Errors
    /// [`StartError::Bundle`] when a bundle folder exists but does not load
    /// (a broken bundle should stop the start, not a later request).
    pub fn load(dirs: &[(VariantId, PathBuf)]) -> Result<Catalog, StartError> {
        let device = model::Backend::Cpu
            .device()
            .map_err(|e| StartError::Device(e.to_string()))?;
        let mut entries: Vec<Arc<Entry>> = Vec::new();
        for (variant, dir) in dirs {
            if entries.iter().any(|e| e.variant == *variant)
                || !dir.join(model::bundle::META_FILE).is_file()
            {
                continue;
            }
            let entry =
                Entry::load(*variant, dir, &device).map_err(|source| StartError::Bundle {
                    dir: dir.clone(),
                    source,
                })?;
            entries.push(Arc::new(entry));
        }
        Ok(Catalog {
            entries: RwLock::new(entries),
            device,
        })
    }

    /// Make the bundle in `dir` the bot of `variant` (loaded and checked
    /// first; the variant's earlier bundle, if any, stays until this
    /// succeeds). Bots of the earlier bundle still searching finish their
    /// search and are then dropped. Blocking (reads the bundle).
    ///
    /// # Errors
    /// [`bot::BotError`] when the bundle does not load or is of another
    /// variant.
    pub fn replace(&self, variant: VariantId, dir: &Path) -> Result<(), bot::BotError> {
        let entry = Arc::new(Entry::load(variant, dir, &self.device)?);
        let mut entries = self.entries.write().unwrap_or_else(PoisonError::into_inner);
        entries.retain(|e| e.variant != variant);
        entries.push(entry);
        Ok(())
    }

    /// Every variant, with its bundle's generation and strength where a bot plays it.
    pub fn variants(&self) -> Vec<VariantInfo> {
        VariantId::ALL
            .into_iter()
            .map(|variant| {
                let entry = self.entry(variant);
                let entry = entry.as_deref();
                let (name, sides, colours, geometry) = rules::with_variant!(variant, G => (
                    G::NAME,
                    G::SIDES,
                    G::COLOURS,
                    G::GEOMETRY
                ));
                VariantInfo {
                    id: variant.as_str(),
                    name,
                    sides,
                    colours,
                    width: geometry.width,
                    height: geometry.height,
                    bot: entry.is_some(),
                    generation: entry.map(|e| e.meta.generation),
                    strength: entry.and_then(|e| strength_line(&e.meta.strength)),
                    trained: entry.and_then(|e| Trained::of(&e.meta)),
                    rules: crate::rules_doc::section(variant),
                }
            })
            .collect()
    }

    /// Whether a bot plays `variant`.
    pub fn has_bot(&self, variant: VariantId) -> bool {
        self.entry(variant).is_some()
    }

    fn entry(&self, variant: VariantId) -> Option<Arc<Entry>> {
        self.entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|e| e.variant == variant)
            .cloned()
    }

    /// A bot for `variant`: an idle one, or a newly loaded one. Blocking
    /// (loading reads the bundle): call it on a blocking thread.
    ///
    /// # Errors
    /// [`ApiError::NoBot`] without a bundle; [`ApiError::Internal`] if the
    /// bundle no longer loads.
    pub fn take(&self, variant: VariantId) -> Result<Bot, ApiError> {
        let entry = self.entry(variant).ok_or(ApiError::NoBot(variant))?;
        let idle = entry
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        match idle {
            Some(bot) => Ok(bot),
            None => Bot::load_for(variant, &entry.dir, &self.device)
                .map_err(|e| ApiError::Internal(e.to_string())),
        }
    }

    /// Return a bot taken with [`Catalog::take`] to its pool (a bot of a
    /// bundle replaced since is dropped).
    pub fn give_back(&self, bot: Bot) {
        let current = self.entry(bot.variant()).filter(|entry| {
            bot.meta()
                .is_some_and(|m| m.weights_sha256 == entry.meta.weights_sha256)
        });
        if let Some(entry) = current {
            entry
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(bot);
        }
    }
}

/// The headline record of a bundle's `strength` field (`model.json`):
/// the first recorded match against a fixed opponent (not a `bundle:`),
/// else the first match. The README's table of shipped bots and
/// `docs/models.md` show this record, and `/api/variants` reports it
/// through [`strength_line`].
pub fn headline_record(strength: &Value) -> Option<&Value> {
    // A match against a fixed opponent says more to a visitor than the
    // promotion match against the previous bundle; that one only when
    // there is nothing else.
    let matches = strength.get("matches")?.as_array()?;
    let against_bundle = |m: &&Value| {
        m.get("b")
            .and_then(Value::as_str)
            .is_some_and(|b| b.starts_with("bundle:"))
    };
    matches
        .iter()
        .find(|m| !against_bundle(m))
        .or_else(|| matches.first())
}

/// The [`headline_record`] of a bundle's `strength` field in one line,
/// `+W =D -L vs OPPONENT (N games, S simulations)`: the `strength` of
/// `/api/variants`, and the headline cell of the README's table.
pub fn strength_line(strength: &Value) -> Option<String> {
    headline_record(strength).map(record_line)
}

/// The record of a bundle's `strength` field against the strongest
/// opponent at equal or more time: among the matches the bundle played
/// at a time per move (`bundle:PATH:100ms`), those against an outside
/// engine (`uci:`, `htp:`, at any budget) first, then those against `uct`
/// given at least the bundle's time, the most time per bundle time first;
/// of equals, the first (as for the headline). `None` when the bundle has
/// no such record.
/// The README's table shows it beside the headline.
pub fn equal_time_record(strength: &Value) -> Option<&Value> {
    let matches = strength.get("matches")?.as_array()?;
    matches
        .iter()
        .filter_map(|m| {
            let own = seconds_per_move(m.get("a")?.as_str()?)?;
            let b = m.get("b")?.as_str()?;
            // Outside engines rank above any `uct` time ratio.
            let rank = if b.starts_with("uci:") || b.starts_with("htp:") {
                f64::INFINITY
            } else if b.starts_with("uct:") {
                let ratio = seconds_per_move(b)? / own;
                (ratio >= 1.0).then_some(ratio)?
            } else {
                return None;
            };
            Some((rank, m))
        })
        .fold(None, |best: Option<(f64, &Value)>, (rank, m)| match best {
            Some((r, _)) if r >= rank => best,
            _ => Some((rank, m)),
        })
        .map(|(_, m)| m)
}

/// The [`equal_time_record`] in one line, as [`strength_line`].
pub fn equal_time_line(strength: &Value) -> Option<String> {
    equal_time_record(strength).map(record_line)
}

/// The budget and precision a player spec names, read by the match's
/// own parser ([`arena::PlayerSpec::parse`]); `(None, None)` for a spec
/// it refuses.
fn spec_parts(spec: &str) -> (Option<Budget>, Option<Precision>) {
    match arena::PlayerSpec::parse(spec) {
        Ok(arena::PlayerSpec::Bundle {
            budget, precision, ..
        }) => (budget, precision),
        Ok(arena::PlayerSpec::Uct(budget)) => (Some(budget), None),
        _ => (None, None),
    }
}

/// The precision of the bundle in match record `m`: its `precision_a`
/// (as it played), else the `:int8` / `:fp32` suffix of its spec `a`,
/// else the record's `precision` (the match's `--precision`), else
/// `fp32` (records from before the int8 path have no `precision`: they
/// were all `fp32`).
fn record_precision(m: &Value) -> Precision {
    let text = |key: &str| m.get(key).and_then(Value::as_str);
    text("precision_a")
        .and_then(|p| p.parse().ok())
        .or_else(|| spec_parts(text("a")?).1)
        .or_else(|| text("precision")?.parse().ok())
        .unwrap_or(Precision::Fp32)
}

/// The time per move a player spec's budget names (`uct:1s`,
/// `bundle:PATH:250ms`, `bundle:PATH:250ms:fp32`), seconds.
fn seconds_per_move(spec: &str) -> Option<f64> {
    Some(spec_parts(spec).0?.time?.as_secs_f64())
}

/// Match record `m` in one line, `+W =D -L vs OPPONENT (N games,
/// BUDGET)`, with `, fp32` after the budget when the bundle played in a
/// precision other than the play default ([`Precision::default`]).
fn record_line(m: &Value) -> String {
    let count = |key: &str| m.get(key).and_then(Value::as_u64).unwrap_or(0);
    let opponent = m.get("b").and_then(Value::as_str).unwrap_or("?");
    // A bundle opponent is a path (or a `bundle:PATH:N` spec); its last
    // part names it well enough.
    let opponent = match opponent.strip_prefix("bundle:") {
        Some(spec) => spec
            .split(':')
            .next()
            .and_then(|p| p.trim_end_matches('/').rsplit('/').next())
            .unwrap_or(opponent),
        None => opponent,
    };
    let budget = budget_of(m).map_or(String::new(), |b| format!(", {b}"));
    let precision = match record_precision(m) {
        p if p == Precision::default() => String::new(),
        p => format!(", {p}"),
    };
    format!(
        "+{} ={} -{} vs {opponent} ({} games{budget}{precision})",
        count("wins"),
        count("draws"),
        count("losses"),
        count("games"),
    )
}

/// The bundle's search budget in match record `m`: its `simulations`, else
/// the budget its player spec names (`bundle:PATH:200`, `...:250ms`; a
/// match record's `nodes` is only the default of players without one),
/// else `nodes`.
fn budget_of(m: &Value) -> Option<String> {
    if let Some(s) = m.get("simulations").and_then(Value::as_u64) {
        return Some(format!("{s} simulations"));
    }
    let spec = m.get("a").and_then(Value::as_str).unwrap_or("");
    let (budget, _) = spec_parts(spec);
    if let Some(budget) = budget.filter(|_| spec.starts_with("bundle:")) {
        return Some(match (budget.nodes, budget.time) {
            (Some(n), None) => format!("{n} simulations"),
            _ => format!("{budget} per move"),
        });
    }
    let nodes = m.get("nodes").and_then(Value::as_u64)?;
    Some(format!("{nodes} simulations"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strength_line_names_the_first_match() {
        let s = serde_json::json!({"matches": [{"b": "random", "wins": 92, "draws": 4, "losses": 4, "games": 100, "simulations": 200}]});
        assert_eq!(
            strength_line(&s).as_deref(),
            Some("+92 =4 -4 vs random (100 games, 200 simulations, fp32)")
        );
        let s = serde_json::json!({"matches": [{"b": "bundle:/work/main/models/tafl:200", "wins": 78, "draws": 32, "losses": 50, "games": 160}]});
        assert_eq!(
            strength_line(&s).as_deref(),
            Some("+78 =32 -50 vs tafl (160 games, fp32)")
        );
        // A fixed opponent first, then the promotion match.
        let s = serde_json::json!({"matches": [{"b": "bundle:/m/tafl:200", "wins": 78, "draws": 32, "losses": 50, "games": 160}, {"b": "random", "wins": 77, "draws": 23, "losses": 0, "games": 100, "simulations": 200}]});
        assert_eq!(
            strength_line(&s).as_deref(),
            Some("+77 =23 -0 vs random (100 games, 200 simulations, fp32)")
        );
        // The spec's budget, not the match's default `nodes`.
        let s = serde_json::json!({"matches": [{"a": "bundle:cand:200", "b": "bundle:/m/tafl:200", "nodes": 100, "wins": 78, "draws": 32, "losses": 50, "games": 160}]});
        assert_eq!(
            strength_line(&s).as_deref(),
            Some("+78 =32 -50 vs tafl (160 games, 200 simulations, fp32)")
        );
        let s = serde_json::json!({"matches": [{"a": "bundle:models/powers:250ms", "b": "uct:250ms", "nodes": 100, "wins": 33, "draws": 21, "losses": 6, "games": 60}]});
        assert_eq!(
            strength_line(&s).as_deref(),
            Some("+33 =21 -6 vs uct:250ms (60 games, 250ms per move, fp32)")
        );
        assert_eq!(strength_line(&Value::Null), None);
    }

    #[test]
    fn a_record_names_its_precision_unless_it_is_the_play_default() {
        let line = |m: Value| strength_line(&serde_json::json!({ "matches": [m] })).unwrap();
        let m = |a: &str, precision: Option<&str>| {
            let mut m = serde_json::json!({"a": a, "b": "uct:1s", "wins": 1, "draws": 0, "losses": 0, "games": 1});
            if let Some(p) = precision {
                m["precision"] = p.into();
            }
            m
        };
        // The play default (int8) goes unnamed; fp32 is named, from the
        // record or the spec's suffix (which wins); a record without
        // `precision` predates int8 and was fp32.
        let at = "+1 =0 -0 vs uct:1s (1 games, 100ms per move";
        assert_eq!(line(m("bundle:m:100ms", Some("int8"))), format!("{at})"));
        assert_eq!(
            line(m("bundle:m:100ms", Some("fp32"))),
            format!("{at}, fp32)")
        );
        assert_eq!(line(m("bundle:m:100ms", None)), format!("{at}, fp32)"));
        assert_eq!(
            line(m("bundle:m:100ms:fp32", Some("int8"))),
            format!("{at}, fp32)")
        );
        assert_eq!(line(m("bundle:m:100ms:full:int8", None)), format!("{at})"));
        // As the bundle played (a CPU without int8 kernel plays fp32).
        let mut played = m("bundle:m:100ms:int8", Some("int8"));
        played["precision_a"] = "fp32".into();
        assert_eq!(line(played), format!("{at}, fp32)"));
        assert_eq!(seconds_per_move("bundle:m:100ms:fp32"), Some(0.1));
        assert_eq!(seconds_per_move("bundle:models/m"), None);
        assert_eq!(seconds_per_move("uct:1s"), Some(1.0));
    }

    #[test]
    fn the_equal_time_record_is_against_the_strongest_opponent() {
        let record = |a: &str, b: &str, wins: u64| serde_json::json!({"a": a, "b": b, "wins": wins, "draws": 0, "losses": 0, "games": wins});
        // At nodes, against random, against `uct` with less time: none.
        let s = serde_json::json!({"matches": [
            record("bundle:m:200", "uci:/fsf:d6", 1),
            record("bundle:m:250ms", "random", 2),
            record("bundle:m:1s", "uct:250ms", 3),
        ]});
        assert_eq!(equal_time_record(&s), None);
        assert_eq!(equal_time_line(&s), None);
        // The most `uct` time per bundle time, then an outside engine.
        let mut s = serde_json::json!({"matches": [
            record("bundle:m:100ms", "uct:3s", 4),
            record("bundle:m:250ms", "uct:250ms", 5),
            record("bundle:m:100ms", "uct:1s", 6),
        ]});
        assert_eq!(
            equal_time_line(&s).as_deref(),
            Some("+4 =0 -0 vs uct:3s (4 games, 100ms per move, fp32)")
        );
        // Of equals, the first.
        s["matches"]
            .as_array_mut()
            .unwrap()
            .push(record("bundle:m:200ms", "uct:6s", 8));
        assert_eq!(equal_time_record(&s).unwrap()["wins"], 4);
        s["matches"]
            .as_array_mut()
            .unwrap()
            .push(record("bundle:m:1s", "htp:/opt/htp:depth4", 7));
        assert_eq!(equal_time_record(&s).unwrap()["wins"], 7);
        assert_eq!(equal_time_line(&Value::Null), None);
    }
}
