//! `lokizero export`: ship a checkpoint as a bundle (e.g. into models/),
//! verified on the way and with its measured strength recorded; and/or
//! write its network as an ONNX model (`--onnx`, [`model::onnx`]).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use clap::Args;
use encoding::Encode;
use model::bundle::{load_bundle, peek_variant, save_bundle};
use model::lineage::{Ancestor, Promotion};

/// Arguments of `lokizero export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Source bundle (e.g. runs/shakti/checkpoints/gen-000008).
    #[arg(long)]
    model: PathBuf,
    /// Destination folder (replaced atomically), e.g. models/shakti.
    /// Needed unless --onnx is given.
    #[arg(long, required_unless_present = "onnx")]
    out: Option<PathBuf>,
    /// Also (or only) write the network as an ONNX model to this file:
    /// input `planes` [batch, C, H, W], outputs `policy_logits`
    /// [batch, P*H*W], `wdl_logits` and `wdl` [batch, 3] (docs/models.md,
    /// "ONNX").
    #[arg(long, value_name = "FILE")]
    onnx: Option<PathBuf>,
    /// JSON files with match results (`lokizero match --json` or `play
    /// --json` output) to record as the bundle's measured strength (with
    /// --out), after the records the source bundle already has (a
    /// training checkpoint has none), in the order given. A record's
    /// bundle players are renamed: this bundle (same weights, wherever the
    /// match found it) as the --out folder, the bundle it replaces there
    /// as `G<generation>`; a record with this bundle as player B is
    /// refused.
    #[arg(long, requires = "out")]
    strength: Vec<PathBuf>,
    /// JSON record of the SPRT match (`lokizero match A B --sprt ...
    /// --json`, A = this bundle, B = the shipped one) that promotes this
    /// bundle: recorded as `lineage.promoted_by` in its model.json, its
    /// players renamed as for --strength. Refused unless the SPRT accepted
    /// H1.
    #[arg(long, value_name = "MATCH_JSON", requires = "out")]
    promoted_by: Option<PathBuf>,
    /// Replace an existing bundle at --out even when its model.json names
    /// another variant than --model's (without it, that is refused; a
    /// bundle of the same variant is always replaced).
    #[arg(long)]
    force: bool,
}

/// Verify, annotate and write the bundle.
pub fn run(args: ExportArgs) -> Result<()> {
    let variant = peek_variant(&args.model)?;
    rules::with_variant!(variant, G => export_for::<G>(&args))
}

fn export_for<G: Encode>(args: &ExportArgs) -> Result<()> {
    if let (Some(out), false) = (&args.out, args.force) {
        check_same_variant(out, G::VARIANT)?;
    }
    let device = model::Backend::Cpu.device()?;
    let (net, meta) = load_bundle::<G>(&args.model, &device)?;
    // The ONNX model is made first (a network it cannot write stops the
    // export before anything is written) and written last (a refused
    // bundle export leaves no file behind).
    let onnx = match &args.onnx {
        Some(_) => Some(
            model::onnx::onnx_model(&net, &meta)
                .with_context(|| format!("--model {}", args.model.display()))?,
        ),
        None => None,
    };
    let generation = meta.generation;
    if let Some(out) = &args.out {
        export_bundle::<G>(args, out, &net, meta)?;
    }
    if let (Some(path), Some(bytes)) = (&args.onnx, onnx) {
        fsio::write_atomic(path, &bytes)
            .with_context(|| format!("cannot write --onnx {}", path.display()))?;
        println!(
            "wrote {} generation {generation} as ONNX to {} ({} bytes)",
            G::VARIANT,
            path.display(),
            bytes.len()
        );
    }
    Ok(())
}

fn export_bundle<G: Encode>(
    args: &ExportArgs,
    out: &Path,
    net: &model::Net,
    mut meta: model::BundleMeta,
) -> Result<()> {
    let mut results = match meta.strength.get("matches") {
        Some(serde_json::Value::Array(records)) => records.clone(),
        _ => Vec::new(),
    };
    let earlier = meta
        .lineage
        .as_ref()
        .and_then(|l| l.promoted_by.as_ref())
        .and_then(|p| p.replaced.clone());
    let names = Names::new(out, &meta.weights_sha256, earlier);
    for path in &args.strength {
        let mut record = read_json(path)?;
        check_record(&record, G::VARIANT)
            .with_context(|| format!("--strength {}", path.display()))?;
        let side = |key: &str| {
            let spec = record[key].as_str()?;
            Some(names.player(spec, played_weights(&record, key)))
        };
        let (a, b) = (side("a"), side("b"));
        if b.as_ref().is_some_and(|b| b.is_this) && !a.as_ref().is_some_and(|a| a.is_this) {
            return Err(anyhow!(
                "--strength {}: this bundle is player B of the match; a record is kept from \
                 player A's view (play the match with this bundle first)",
                path.display()
            ));
        }
        for (key, player) in [("a", a), ("b", b)] {
            if let Some(name) = player.and_then(|p| p.name) {
                record[key] = name.into();
            }
        }
        results.push(record);
    }
    if !results.is_empty() {
        meta.strength = serde_json::json!({ "matches": results });
    }
    let mut lineage = meta.take_lineage();
    if let Some(path) = &args.promoted_by {
        let record = read_json(path)?;
        let promotion = Promotion::from_match_json(&record, G::VARIANT)
            .with_context(|| format!("--promoted-by {}", path.display()))?;
        let weights = [played_weights(&record, "a"), played_weights(&record, "b")];
        check_players(&promotion, weights, &meta.weights_sha256, &names)
            .with_context(|| format!("--promoted-by {}", path.display()))?;
        let replaced = replaced_bundle(out, &promotion, weights[1], &meta.weights_sha256)
            .with_context(|| format!("--promoted-by {}", path.display()))?;
        // A re-export replaces nothing itself: the bundle keeps naming the
        // one its promotion replaced.
        let replaced = replaced.or_else(|| {
            let earlier = lineage.promoted_by.as_ref()?;
            earlier.replaced.clone()
        });
        let name = |spec: &str, weights| {
            names
                .player(spec, weights)
                .name
                .unwrap_or_else(|| spec.to_string())
        };
        lineage.promoted_by = Some(Promotion {
            replaced,
            a: name(&promotion.a, weights[0]),
            b: name(&promotion.b, weights[1]),
            ..promotion
        });
    }
    meta.lineage = Some(lineage);
    save_bundle(out, net, &meta)?;
    println!(
        "exported {} generation {} to {}",
        G::VARIANT,
        meta.generation,
        out.display()
    );
    Ok(())
}

/// Refuse to replace a bundle at `out` whose `model.json` names another
/// variant than `variant` (`--force` skips this). Anything else at `out`
/// (nothing, an empty folder, a bundle of `variant`, a folder that is not
/// a bundle) is left to `save_bundle`'s own checks.
fn check_same_variant(out: &Path, variant: rules::VariantId) -> Result<()> {
    let Ok(text) = std::fs::read(out.join(model::bundle::META_FILE)) else {
        return Ok(());
    };
    let existing = serde_json::from_slice::<serde_json::Value>(&text)
        .ok()
        .and_then(|m| m["variant"].as_str().map(str::to_string));
    match existing {
        Some(existing) if existing != variant.as_str() => Err(anyhow!(
            "--out {} holds a {existing} bundle, --model is a {variant} bundle; \
             refusing to replace it (use another --out, or --force to replace it)",
            out.display()
        )),
        _ => Ok(()),
    }
}

/// A promotion is a match of this bundle (A) against another bundle (B):
/// both must be bundle players, A's weights (as the record states them,
/// [`played_weights`], else as its folder holds them, where it is at
/// hand) must be the ones exported (`sha256` of the source bundle), and B
/// must not be this bundle ([`Names::player`]).
fn check_players(
    promotion: &Promotion,
    [a_weights, b_weights]: [Option<&str>; 2],
    sha256: &str,
    names: &Names,
) -> Result<()> {
    let bundle_path = |spec: &str| match arena::PlayerSpec::parse(spec) {
        Ok(arena::PlayerSpec::Bundle { path, .. }) => Some(path),
        _ => None,
    };
    let (Some(a), Some(b)) = (bundle_path(&promotion.a), bundle_path(&promotion.b)) else {
        return Err(anyhow!(
            "the match must be this bundle (A) against the shipped bundle (B), not {} vs {}",
            promotion.a,
            promotion.b
        ));
    };
    if names.player(&promotion.b, b_weights).is_this {
        return Err(anyhow!(
            "player B of the match ({}) has the weights exported: a promotion is won against \
             another bundle",
            b.display()
        ));
    }
    let a_sha256 = match a_weights {
        Some(weights) => weights.to_string(),
        None => match bundle_identity(&a) {
            Some(identity) => identity.weights_sha256,
            None => {
                eprintln!(
                    "note: {} is not at hand; cannot check that player A is this bundle",
                    a.display()
                );
                return Ok(());
            }
        },
    };
    if a_sha256 != sha256 {
        return Err(anyhow!(
            "player A of the match ({}) has other weights than the bundle exported",
            a.display()
        ));
    }
    Ok(())
}

/// The bundle at `out` that a promoted bundle replaces, as generation and
/// weights sha256 (`None` when `out` holds no bundle, or holds these very
/// weights: a re-export). Refused when the match's player B had other
/// weights than that bundle (`b_weights`, as the record states them, else
/// its folder's, where it is at hand): the promotion must be won against
/// the bundle it replaces.
fn replaced_bundle(
    out: &Path,
    promotion: &Promotion,
    b_weights: Option<&str>,
    sha256: &str,
) -> Result<Option<Ancestor>> {
    let Some(old) = bundle_identity(out) else {
        return Ok(None);
    };
    if old.weights_sha256 == sha256 {
        return Ok(None);
    }
    if let Ok(arena::PlayerSpec::Bundle { path, .. }) = arena::PlayerSpec::parse(&promotion.b) {
        let b = b_weights
            .map(str::to_string)
            .or_else(|| bundle_identity(&path).map(|b| b.weights_sha256));
        if let Some(b) = b {
            if b != old.weights_sha256 {
                return Err(anyhow!(
                    "player B of the match ({}) has other weights than the bundle at --out {} \
                     that this export replaces",
                    path.display(),
                    out.display()
                ));
            }
        }
    }
    Ok(Some(old))
}

/// How the export names a record's bundle players for a reader of the
/// exported `model.json`, instead of the folder a match found them in (a
/// run directory, a scratch copy): this bundle (the exported weights) by
/// the `--out` folder (`bundle:models/viking:1s`), the bundle this export
/// replaces at `--out` as `G<generation>` (`bundle:G201:200`, the notation
/// of `docs/models.md`). Other players keep their names. A record of
/// `lokizero match` states the weights each bundle player loaded
/// (`weights_a`, `weights_b`), which name it exactly; for an older record
/// without them the weights are read from the player's folder, where it is
/// at hand.
struct Names {
    /// `--out` as given, without a trailing `/`; `None` when it cannot
    /// stand in a player spec (it has a `:`).
    out: Option<String>,
    /// `--out` resolved, to recognise a player found there.
    out_real: Option<PathBuf>,
    sha256: String,
    /// The bundle at `--out` now, when it is not this one: the bundle
    /// this export replaces.
    replaced: Option<Ancestor>,
    /// The bundle the source's own promotion replaced (on a re-export, the
    /// one this bundle replaced when first exported).
    earlier: Option<Ancestor>,
    /// Whether `--out` holds these very weights already (a re-export).
    reexport: bool,
}

/// A record's player as [`Names::player`] sees it.
struct Player {
    /// Its name for readers; `None`: the name stays.
    name: Option<String>,
    /// Whether it is a bundle at hand with the exported weights.
    is_this: bool,
}

impl Names {
    fn new(out: &Path, sha256: &str, earlier: Option<Ancestor>) -> Self {
        let at_out = bundle_identity(out);
        let shown = out.display().to_string();
        let shown = shown.trim_end_matches('/');
        Names {
            out: (!shown.is_empty() && !shown.contains(':')).then(|| shown.to_string()),
            out_real: out.canonicalize().ok(),
            sha256: sha256.to_string(),
            reexport: at_out.as_ref().is_some_and(|a| a.weights_sha256 == sha256),
            replaced: at_out.filter(|a| a.weights_sha256 != sha256),
            earlier,
        }
    }

    /// The player `spec` of a match record, which loaded the weights
    /// `weights` (as the record states them; `None` in older records:
    /// then read from its folder). Without stated weights, a bundle folder
    /// found at `--out` held, when the match was played, the bundle there
    /// before this export; on a re-export that bundle is gone, so its name
    /// stays.
    fn player(&self, spec: &str, weights: Option<&str>) -> Player {
        let spec = spec.trim();
        let keep = |is_this| Player {
            name: None,
            is_this,
        };
        let Ok(arena::PlayerSpec::Bundle { path, .. }) = arena::PlayerSpec::parse(spec) else {
            return keep(false);
        };
        let folder = path.display().to_string();
        let Some(rest) = spec
            .strip_prefix("bundle:")
            .and_then(|s| s.strip_prefix(folder.as_str()))
        else {
            return keep(false);
        };
        let (sha256, at_out) = match weights {
            Some(weights) => (weights.to_string(), false),
            None => {
                let Some(identity) = bundle_identity(&path) else {
                    eprintln!(
                        "note: {} is not at hand; the player keeps the name {spec}",
                        path.display()
                    );
                    return keep(false);
                };
                let at_out = self.out_real.is_some() && path.canonicalize().ok() == self.out_real;
                (identity.weights_sha256, at_out)
            }
        };
        let is_this = sha256 == self.sha256 && !(at_out && self.reexport);
        let name = if at_out {
            self.replaced.as_ref().map(|r| format!("G{}", r.generation))
        } else if is_this {
            if self.out.is_none() {
                eprintln!(
                    "note: --out has a ':', which a player spec cannot hold; \
                     the player keeps the name {spec}"
                );
            }
            self.out.clone()
        } else {
            [&self.replaced, &self.earlier]
                .into_iter()
                .flatten()
                .find(|r| r.weights_sha256 == sha256)
                .map(|r| format!("G{}", r.generation))
        };
        Player {
            name: name.map(|name| format!("bundle:{name}{rest}")),
            is_this,
        }
    }
}

/// The weights a record's player `key` (`"a"`, `"b"`) loaded, as
/// `lokizero match --json` states them (`weights_a`, `weights_b`: 64 hex
/// digits); `None` for a player without a bundle and in older records.
fn played_weights<'r>(record: &'r serde_json::Value, key: &str) -> Option<&'r str> {
    record
        .get(format!("weights_{key}"))?
        .as_str()
        .filter(|w| w.len() == 64 && w.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Generation and weights sha256 from a bundle folder's `model.json`, if
/// it has one that says both.
fn bundle_identity(dir: &Path) -> Option<Ancestor> {
    let text = std::fs::read(dir.join(model::bundle::META_FILE)).ok()?;
    let meta = serde_json::from_slice::<serde_json::Value>(&text).ok()?;
    Some(Ancestor {
        generation: u32::try_from(meta["generation"].as_u64()?).ok()?,
        weights_sha256: meta["weights_sha256"].as_str()?.to_string(),
    })
}

/// One JSON document (a `--json` record of `lokizero match` or `play`).
/// Check that `record` is a match record (`lokizero match --json` or
/// `play --json`) of `variant`: an object naming the opponent `b`, with
/// `wins`, `draws` and `losses` adding up to `games`, and, where it names
/// its variant, this one.
fn check_record(record: &serde_json::Value, variant: rules::VariantId) -> Result<()> {
    let object = record
        .as_object()
        .ok_or_else(|| anyhow!("not a match record: expected a JSON object"))?;
    let count = |key: &str| {
        object
            .get(key)
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| anyhow!("not a match record: no whole number `{key}`"))
    };
    let (wins, draws, losses, games) = (
        count("wins")?,
        count("draws")?,
        count("losses")?,
        count("games")?,
    );
    if wins + draws + losses != games || games == 0 {
        return Err(anyhow!(
            "not a match record: {wins} wins, {draws} draws and {losses} losses in {games} games"
        ));
    }
    if !object.get("b").is_some_and(serde_json::Value::is_string) {
        return Err(anyhow!("not a match record: no opponent `b`"));
    }
    if let Some(played) = object.get("variant") {
        if played.as_str() != Some(variant.as_str()) {
            return Err(anyhow!(
                "a match of variant {played}, not of this bundle's {variant}"
            ));
        }
    }
    Ok(())
}

fn read_json(path: &Path) -> Result<serde_json::Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(text.trim()).with_context(|| format!("{} is not JSON", path.display()))
}
