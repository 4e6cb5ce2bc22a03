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
    /// Destination folder (replaced atomically), e.g. models/shakti: nothing
    /// there yet, or a bundle (a symbolic link is refused: give the folder
    /// it points to). Needed unless --onnx is given.
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
    /// training checkpoint has none; on a re-export, where --out holds
    /// these weights, --out's records first, then the source's it lacks),
    /// in the order given; a record the bundle has already is not added
    /// twice. Player A must be this
    /// bundle. A record's bundle players are renamed, known by the weights
    /// the record says they loaded (else by what their folders hold): this
    /// bundle as the --out folder, the bundle it replaces there and its
    /// ancestors as `G<generation>`. Refused: a record without a variant
    /// or both players, of another variant, one whose player A is not this
    /// bundle, one with this bundle as player B, one with a player found at
    /// --out whose weights are unknown or of no bundle the export knows,
    /// one whose `as_first`/`as_second` do not add up to its totals, one
    /// with a player from a folder named like an ancestor (`G5`) that is
    /// not one; and an --out named like one.
    #[arg(long, requires = "out")]
    strength: Vec<PathBuf>,
    /// JSON record of the SPRT match (`lokizero match A B --sprt ...
    /// --json`, A = this bundle, B = the bundle it replaces at --out, or
    /// on a re-export the one the first export replaced) that promotes
    /// this bundle: recorded as `lineage.promoted_by` in its model.json,
    /// its players renamed as for --strength. Refused unless the SPRT
    /// accepted H1 with an LLR at or above its upper bound, follows from
    /// the record's W/D/L where the record states its settings (`sprt.elo0`,
    /// `elo1`, `alpha`, `beta`, as `match --json` writes them), and the
    /// players' weights are known and those.
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
    // Where the ONNX file goes is checked before the bundle is written, so
    // that a bad --onnx path fails the export with nothing replaced.
    if let Some(path) = &args.onnx {
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let inside_out = args
            .out
            .as_deref()
            .and_then(resolve)
            .zip(resolve(path))
            .is_some_and(|(out, onnx)| onnx.starts_with(out));
        let why = if path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/') {
            Some("it names a folder".to_string())
        } else if !parent.is_dir() {
            Some(format!("{} is not a folder", parent.display()))
        } else if inside_out {
            Some("it is inside the --out folder, which the bundle replaces".to_string())
        } else {
            None
        };
        if let Some(why) = why {
            return Err(anyhow!("cannot write --onnx {}: {why}", path.display()));
        }
    }
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
    let shown = lexical(out).display().to_string();
    let folder = lexical(out)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    if folder.as_deref().is_some_and(looks_like_ancestor) {
        return Err(anyhow!(
            "--out {shown} is named as the records name an ancestor bundle (G<generation>): \
             its records would read as another bundle's; choose another folder name"
        ));
    }
    // A promotion names the bundle it replaces at --out by its model.json.
    if args.promoted_by.is_some()
        && out.join(model::bundle::META_FILE).exists()
        && bundle_identity(out).is_none()
    {
        return Err(anyhow!(
            "--out {shown} holds a model.json that says no generation and sha256 of 64 hex \
             digits: --promoted-by cannot tell which bundle it replaces"
        ));
    }
    let names = Names::new(out, &meta);
    let records = |strength: &serde_json::Value| match strength.get("matches") {
        Some(serde_json::Value::Array(records)) => records.clone(),
        _ => Vec::new(),
    };
    let mut results = records(&meta.strength);
    // A re-export (--out holds these weights) keeps --out's records, then
    // the source's (duplicates go below): nothing measured is lost.
    if names.reexport {
        let kept = bundle_json(out)
            .map(|m| records(&m["strength"]))
            .unwrap_or_default();
        if !kept.is_empty() {
            eprintln!("note: keeping the records of the bundle at --out (the same weights)");
            let from_source = std::mem::replace(&mut results, kept);
            results.extend(from_source);
        }
    }
    // Records that state this bundle's weights as player A's name it by
    // --out, wherever they were exported before.
    if let Some(out_name) = &names.out {
        for record in &mut results {
            let this = record["weights_a"]
                .as_str()
                .is_some_and(|w| w.eq_ignore_ascii_case(&names.sha256));
            if let Some(name) = record["a"]
                .as_str()
                .filter(|_| this)
                .and_then(|a| renamed(a.trim(), out_name))
            {
                record["a"] = name.into();
            }
        }
    }
    // One match is one record (the first kept).
    let mut unique: Vec<serde_json::Value> = Vec::with_capacity(results.len());
    for record in results {
        if !unique.iter().any(|r| same_match(r, &record)) {
            unique.push(record);
        }
    }
    let mut results = unique;
    for path in &args.strength {
        let flag = || format!("--strength {}", path.display());
        let mut record = read_json(path).with_context(flag)?;
        check_record(&record, G::VARIANT).with_context(flag)?;
        let (a, b) = names.players(&record).with_context(flag)?;
        if b.is_this {
            return Err(anyhow!(
                "{}: this bundle is player B of the match; a record is kept from player A's \
                 view (play the match with this bundle first)",
                flag()
            ));
        }
        if a.is_other() || !a.is_bundle {
            return Err(anyhow!(
                "{}: player A of the match ({}) is not the bundle exported; a bundle records \
                 its own matches",
                flag(),
                a.spec
            ));
        }
        for (key, player) in [("a", a), ("b", b)] {
            // Stated weights are kept in lower case, as model.json has them.
            if let Some(weights) = record[format!("weights_{key}")].as_str() {
                record[format!("weights_{key}")] = weights.to_ascii_lowercase().into();
            }
            if let Some(name) = player.name {
                record[key] = name.into();
            }
        }
        if results.iter().any(|r| same_match(r, &record)) {
            eprintln!(
                "note: {}: the bundle has this record already; not added again",
                flag()
            );
            continue;
        }
        results.push(record);
    }
    if !results.is_empty() {
        meta.strength = serde_json::json!({ "matches": results });
    }
    let mut lineage = meta.take_lineage();
    if names.reexport && lineage.promoted_by.is_none() {
        if let Some(promotion) = bundle_lineage(out).and_then(|l| l.promoted_by) {
            eprintln!("note: keeping the promotion of the bundle at --out (the same weights)");
            lineage.promoted_by = Some(promotion);
        }
    }
    if let Some(path) = &args.promoted_by {
        let flag = || format!("--promoted-by {}", path.display());
        let record = read_json(path).with_context(flag)?;
        check_record(&record, G::VARIANT).with_context(flag)?;
        let promotion = Promotion::from_match_json(&record, G::VARIANT).with_context(flag)?;
        let wdl = arena::WdlCounts {
            wins: promotion.wins,
            draws: promotion.draws,
            losses: promotion.losses,
        };
        check_sprt(&record, wdl).with_context(flag)?;
        let (a, b) = names.players(&record).with_context(flag)?;
        let replaced = check_promotion(&a, &b, &names, out).with_context(flag)?;
        let promotion = Promotion {
            replaced,
            a: a.name.unwrap_or(promotion.a.clone()),
            b: b.name.unwrap_or(promotion.b.clone()),
            ..promotion
        };
        if let Some(earlier) = lineage.promoted_by.as_ref().filter(|e| **e != promotion) {
            eprintln!(
                "note: {}: replaces the promotion the bundle had ({} against {})",
                flag(),
                earlier.a,
                earlier.b
            );
        }
        lineage.promoted_by = Some(promotion);
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
/// both must be bundle players, A must have the weights exported (where
/// they are known: [`Names::players`]) and B the weights of the bundle
/// this export replaces at `out`, or on a re-export of the bundle the
/// first export replaced ([`Names::replaced`]). Returns that bundle (`None`
/// where nothing is replaced and none was recorded).
fn check_promotion(a: &Player, b: &Player, names: &Names, out: &Path) -> Result<Option<Ancestor>> {
    if !a.is_bundle || !b.is_bundle {
        return Err(anyhow!(
            "the match must be this bundle (A) against the shipped bundle (B), not {} vs {}",
            a.spec,
            b.spec
        ));
    }
    if b.is_this {
        return Err(anyhow!(
            "player B of the match ({}) has the weights exported: a promotion is won against \
             another bundle",
            b.spec
        ));
    }
    if a.is_other() {
        return Err(anyhow!(
            "player A of the match ({}) has other weights than the bundle exported",
            a.spec
        ));
    }
    let replaced = names.replaced.clone();
    match (&replaced, &b.weights) {
        (Some(old), Some(weights)) if *weights != old.weights_sha256 => Err(anyhow!(
            "player B of the match ({}) has other weights than the bundle {} replaces \
             (generation {} at --out {})",
            b.spec,
            if names.reexport {
                "this bundle"
            } else {
                "this export"
            },
            old.generation,
            out.display()
        )),
        (_, None) => Err(anyhow!(
            "the weights of player B ({}) are unknown (the record does not say them and its \
             folder is not at hand): a promotion names the bundle it was won against \
             (`lokizero match --json` states `weights_b`)",
            b.spec
        )),
        _ => Ok(replaced),
    }
}

/// How the export names a record's bundle players for a reader of the
/// exported `model.json`, instead of the folder a match found them in (a
/// run directory, a scratch copy): this bundle (the exported weights) by
/// the `--out` folder (`bundle:models/viking:1s`), the bundle this export
/// replaces at `--out` and this bundle's ancestors as `G<generation>`
/// (`bundle:G201:200`, the notation of `docs/models.md`). Other players
/// keep their names. A player is known by the weights the record says it
/// loaded (`weights_a`, `weights_b`, written by `lokizero match`); for an
/// older record without them, by what its folder holds, where it is at
/// hand.
struct Names {
    /// `--out` as a player spec's folder (its components, without `.`,
    /// doubled or trailing `/`); `None` when it has a `:` (a spec with
    /// one is read by which folders exist).
    out: Option<String>,
    /// `--out` resolved, to recognise a player found there.
    out_real: Option<PathBuf>,
    sha256: String,
    /// The bundle this export replaces: the one at `--out` when it has
    /// other weights; on a re-export (`--out` holds these weights), the
    /// one the first export there replaced, as `--out`'s promotion (else
    /// the source's) records it.
    replaced: Option<Ancestor>,
    /// Whether `--out` holds these very weights already (a re-export).
    reexport: bool,
    /// Bundles named `G<generation>`: the replaced one and the ancestors.
    known: Vec<Ancestor>,
}

/// A record's player as [`Names::players`] sees it.
struct Player {
    /// Its spec in the record, trimmed.
    spec: String,
    /// Whether it is a bundle player.
    is_bundle: bool,
    /// The weights it loaded, where known (lower-case hex sha256).
    weights: Option<String>,
    /// Its weights are the exported ones.
    is_this: bool,
    /// Its name for readers; `None`: the name stays.
    name: Option<String>,
}

impl Player {
    /// Its weights are known and not the exported ones.
    fn is_other(&self) -> bool {
        self.weights.is_some() && !self.is_this
    }
}

impl Names {
    fn new(out: &Path, meta: &model::BundleMeta) -> Self {
        let sha256 = meta.weights_sha256.clone();
        let at_out = bundle_identity(out);
        let reexport = at_out.as_ref().is_some_and(|a| a.weights_sha256 == sha256);
        let promoted_replaced = |lineage: Option<&model::lineage::Lineage>| {
            lineage?.promoted_by.as_ref()?.replaced.clone()
        };
        let replaced = if reexport {
            promoted_replaced(bundle_lineage(out).as_ref())
                .or_else(|| promoted_replaced(meta.lineage.as_ref()))
        } else {
            at_out
        };
        let ancestors = meta.lineage.as_ref().map(|l| l.ancestors.clone());
        let known = replaced
            .iter()
            .cloned()
            .chain(ancestors.unwrap_or_default())
            .collect();
        let shown = lexical(out).display().to_string();
        if shown.contains(':') {
            eprintln!(
                "note: --out {shown} has a ':', which a player spec reads by the folders that \
                 exist; the records keep this bundle's names"
            );
        }
        Names {
            out: (!shown.is_empty() && !shown.contains(':')).then_some(shown),
            out_real: resolve(out),
            sha256,
            replaced,
            reexport,
            known,
        }
    }

    /// The name of a bundle of [`Names::known`]: `G<generation>`, with
    /// the first 8 hex digits of its weights (`G220-4d3da1ec`) where
    /// another known bundle has the same generation (a grown network keeps
    /// its source's).
    fn ancestor_name(&self, bundle: &Ancestor) -> String {
        let shared = self.known.iter().any(|k| {
            k.generation == bundle.generation && k.weights_sha256 != bundle.weights_sha256
        });
        if shared {
            format!("G{}-{}", bundle.generation, &bundle.weights_sha256[..8])
        } else {
            format!("G{}", bundle.generation)
        }
    }

    /// Players `a` and `b` of a match record.
    ///
    /// # Errors
    /// A `weights_a`/`weights_b` that is not 64 hex digits; a player found
    /// at `--out` with weights of no bundle this export knows (its name
    /// would read as this bundle).
    fn players(&self, record: &serde_json::Value) -> Result<(Player, Player)> {
        Ok((self.player(record, "a")?, self.player(record, "b")?))
    }

    /// Player `key` (`"a"`, `"b"`) of `record`. Its weights are those the
    /// record states, else those its folder holds (a folder found at
    /// `--out` on a re-export held, when the match was played, what was
    /// there before: unknown).
    fn player(&self, record: &serde_json::Value, key: &str) -> Result<Player> {
        let spec = record[key]
            .as_str()
            .ok_or_else(|| anyhow!("not a match record: no player `{key}`"))?
            .trim()
            .to_string();
        let stated = played_weights(record, key)?;
        let mut player = Player {
            spec: spec.clone(),
            is_bundle: false,
            weights: None,
            is_this: false,
            name: None,
        };
        let Ok(arena::PlayerSpec::Bundle { path, .. }) = arena::PlayerSpec::parse(&spec) else {
            return Ok(player);
        };
        player.is_bundle = true;
        let at_out = self.out_real.is_some() && resolve(&path) == self.out_real;
        player.weights = match stated {
            Some(weights) => Some(weights),
            None if at_out && self.reexport && key == "b" => {
                return Err(anyhow!(
                    "player B ({spec}) played from the --out folder, which holds this bundle \
                     now, and the record does not say its weights (a record of an older \
                     lokizero): its name would read as this bundle"
                ));
            }
            None if at_out && self.reexport => None,
            None if at_out && bundle_identity(&path).is_none() => {
                return Err(anyhow!(
                    "player {} ({spec}) played from the --out folder, whose model.json does \
                     not say a generation and a sha256 of 64 hex digits, and the record does \
                     not say its weights: its name would read as this bundle",
                    key.to_uppercase()
                ));
            }
            None => {
                let found = bundle_identity(&path).map(|a| a.weights_sha256);
                if found.is_none() {
                    eprintln!(
                        "note: {} is not at hand (or its model.json says no usable sha256) and \
                         the record does not say its weights; the player keeps the name {spec}",
                        path.display()
                    );
                }
                found
            }
        };
        let folder = path.display().to_string();
        let looks_like_ancestor = looks_like_ancestor(&lexical(&path).display().to_string());
        let Some(weights) = &player.weights else {
            if looks_like_ancestor {
                return Err(anyhow!(
                    "player {} ({spec}) played from a folder named like an ancestor, and \
                     neither the record nor the folder says its weights: readers would take \
                     it for one (state `weights_{key}`, or play from a folder with another name)",
                    key.to_uppercase()
                ));
            }
            return Ok(player);
        };
        player.is_this = *weights == self.sha256;
        let name = if player.is_this {
            self.out.clone()
        } else if let Some(known) = self.known.iter().find(|k| k.weights_sha256 == *weights) {
            Some(self.ancestor_name(known))
        } else if at_out {
            return Err(anyhow!(
                "player {} ({spec}) played from the --out folder with weights {}..., neither \
                 this bundle's nor the replaced bundle's nor an ancestor's: its name would \
                 read as this bundle",
                key.to_uppercase(),
                &weights[..16]
            ));
        } else {
            None
        };
        if name.is_none() && looks_like_ancestor {
            return Err(anyhow!(
                "player {} ({spec}) played from a folder named like an ancestor ({folder}) \
                 with weights {}..., which are no ancestor's: readers would take it for one \
                 (play the match from a folder with another name)",
                key.to_uppercase(),
                &weights[..16]
            ));
        }
        player.name = name.and_then(|name| renamed(&spec, &name));
        Ok(player)
    }
}

/// The weights a record's player `key` (`"a"`, `"b"`) loaded, as
/// `lokizero match --json` states them (`weights_a`, `weights_b`),
/// lower-cased; `None` for a player without a bundle (`null`) and in
/// older records (absent).
///
/// # Errors
/// A value that is not a string of 64 hex digits.
fn played_weights(record: &serde_json::Value, key: &str) -> Result<Option<String>> {
    let field = format!("weights_{key}");
    match record.get(&field) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(w)) if sha256_hex(w).is_some() => Ok(sha256_hex(w)),
        Some(other) => Err(anyhow!(
            "`{field}` is {other}, not the sha256 of a bundle's weights (64 hex digits)"
        )),
    }
}

/// A bundle player's `spec` with its folder replaced by `name`
/// (`bundle:/var/tmp/x:200` as `bundle:G5:200`); `None` for another
/// player.
fn renamed(spec: &str, name: &str) -> Option<String> {
    let Ok(arena::PlayerSpec::Bundle { path, .. }) = arena::PlayerSpec::parse(spec) else {
        return None;
    };
    let folder = path.display().to_string();
    let rest = spec
        .strip_prefix("bundle:")?
        .strip_prefix(folder.as_str())?;
    Some(format!("bundle:{name}{rest}"))
}

/// Whether two match records are one match: equal but for the names of
/// the players whose weights they state (a bundle under another folder
/// name, an earlier `--out`).
fn same_match(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    let unnamed = |r: &serde_json::Value| {
        let mut r = r.clone();
        if let Some(map) = r.as_object_mut() {
            for key in ["a", "b"] {
                if map
                    .get(&format!("weights_{key}"))
                    .is_some_and(serde_json::Value::is_string)
                {
                    map.remove(key);
                }
            }
        }
        r
    };
    unnamed(a) == unnamed(b)
}

/// Whether a bundle player's folder reads as a name [`Names`] gives an
/// ancestor (`G5`, `G220-4d3da1ec`).
fn looks_like_ancestor(folder: &str) -> bool {
    let Some(rest) = folder.strip_prefix('G') else {
        return false;
    };
    let (generation, suffix) = rest.split_once('-').unwrap_or((rest, ""));
    !generation.is_empty()
        && generation.bytes().all(|b| b.is_ascii_digit())
        && suffix.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `path` resolved as far as it exists (links and `..` of the part that
/// exists; the rest appended as written, without `.`), so that two
/// spellings of a folder that does not exist yet compare equal.
fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = path.canonicalize() {
        return Some(real);
    }
    let path = lexical(path);
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(resolve(parent)?.join(name))
}

/// `path` without `.` components, doubled or trailing `/`: the folder a
/// reader would write.
fn lexical(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

/// A bundle folder's `model.json` as JSON, if it has one that parses.
fn bundle_json(dir: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read(dir.join(model::bundle::META_FILE)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// The lineage in a bundle folder's `model.json`, if it has one.
fn bundle_lineage(dir: &Path) -> Option<model::lineage::Lineage> {
    serde_json::from_value(bundle_json(dir)?.get("lineage")?.clone()).ok()
}

/// Generation and weights sha256 from a bundle folder's `model.json`, if
/// it has one that says both.
fn bundle_identity(dir: &Path) -> Option<Ancestor> {
    let meta = bundle_json(dir)?;
    Some(Ancestor {
        generation: u32::try_from(meta["generation"].as_u64()?).ok()?,
        weights_sha256: sha256_hex(meta["weights_sha256"].as_str()?)?,
    })
}

/// `text` as a lower-case sha256 (64 hex digits), if it is one.
fn sha256_hex(text: &str) -> Option<String> {
    (text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| text.to_ascii_lowercase())
}

/// Check that `record` is a match record (`lokizero match --json` or
/// `play --json`) of `variant`: an object naming its variant, this one,
/// and both players `a` and `b`, with `wins`, `draws` and `losses` adding
/// up to `games`.
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
    let sum = wins.checked_add(draws).and_then(|n| n.checked_add(losses));
    if sum != Some(games) || games == 0 {
        return Err(anyhow!(
            "not a match record: {wins} wins, {draws} draws and {losses} losses in {games} games"
        ));
    }
    // The record's split by side (`as_first`, `as_second`), where it has
    // one, adds up to its totals.
    if object.contains_key("as_first") || object.contains_key("as_second") {
        let side = |key: &str| -> Result<[u64; 3]> {
            let counts = match object.get(key) {
                Some(serde_json::Value::Object(counts)) => counts,
                None => {
                    return Err(anyhow!(
                        "not a match record: no `{key}` beside the other side"
                    ))
                }
                Some(other) => {
                    return Err(anyhow!(
                        "not a match record: `{key}` is {other}, not the wins, draws and losses \
                         of one side"
                    ))
                }
            };
            let count = |field: &str| {
                counts
                    .get(field)
                    .and_then(serde_json::Value::as_u64)
                    .ok_or_else(|| anyhow!("not a match record: no whole number `{key}.{field}`"))
            };
            Ok([count("wins")?, count("draws")?, count("losses")?])
        };
        let (first, second) = (side("as_first")?, side("as_second")?);
        let totals = [wins, draws, losses];
        if (0..3).any(|k| first[k].checked_add(second[k]) != Some(totals[k])) {
            return Err(anyhow!(
                "not a match record: the sides (+{} ={} -{} moving first, +{} ={} -{} moving \
                 second) do not add up to +{wins} ={draws} -{losses}",
                first[0],
                first[1],
                first[2],
                second[0],
                second[1],
                second[2]
            ));
        }
        // The colours alternate pair by pair: each side plays half the games.
        let (first_games, second_games): (u64, u64) = (first.iter().sum(), second.iter().sum());
        if first_games.abs_diff(second_games) > 1 {
            return Err(anyhow!(
                "not a match record: {first_games} games moving first and {second_games} moving \
                 second (a match alternates the colours)"
            ));
        }
    }
    for key in ["a", "b"] {
        if !object.get(key).is_some_and(serde_json::Value::is_string) {
            return Err(anyhow!("not a match record: no player `{key}`"));
        }
    }
    match object.get("variant") {
        Some(played) if played.as_str() == Some(variant.as_str()) => Ok(()),
        Some(played) => Err(anyhow!(
            "a match of variant {played}, not of this bundle's {variant}"
        )),
        None => Err(anyhow!("not a match record: no `variant`")),
    }
}

/// Where a promotion record states its SPRT's settings (`sprt.elo0`,
/// `elo1`, `alpha`, `beta`, as `lokizero match --json` writes them), the
/// test run again on its W/D/L (`wdl`) must accept H1 with the LLR the record
/// says. (An older record without them is checked by
/// [`Promotion::from_match_json`] alone: its LLR at its upper bound.)
fn check_sprt(record: &serde_json::Value, wdl: arena::WdlCounts) -> Result<()> {
    let sprt = &record["sprt"];
    const SETTINGS: [&str; 4] = ["elo0", "elo1", "alpha", "beta"];
    if !SETTINGS.iter().any(|key| sprt.get(key).is_some()) {
        return Ok(());
    }
    let setting = |key: &str| {
        sprt.get(key)
            .and_then(serde_json::Value::as_f64)
            .ok_or_else(|| anyhow!("the record's SPRT settings: `sprt.{key}` is not a number"))
    };
    let (elo0, elo1, alpha, beta) = (
        setting("elo0")?,
        setting("elo1")?,
        setting("alpha")?,
        setting("beta")?,
    );
    let config = arena::SprtConfig {
        elo0,
        elo1,
        alpha,
        beta,
    };
    config
        .validate()
        .map_err(|e| anyhow!("the record's SPRT settings: {e}"))?;
    let state = config.state(&wdl);
    let stated = setting("llr")?;
    let (lower, upper) = (setting("lower")?, setting("upper")?);
    if (state.lower - lower).abs() > 1e-6 || (state.upper - upper).abs() > 1e-6 {
        return Err(anyhow!(
            "the record's SPRT bounds ({lower}, {upper}) are not those of its settings \
             ({:.6}, {:.6})",
            state.lower,
            state.upper
        ));
    }
    if state.decision != arena::SprtDecision::H1 || (state.llr - stated).abs() > 1e-6 {
        return Err(anyhow!(
            "the record's SPRT [{elo0}, {elo1}] does not follow from its results: \
             +{} ={} -{} give LLR {:.6} (bounds {:.3}, {:.3}), the record says {stated:.6}",
            wdl.wins,
            wdl.draws,
            wdl.losses,
            state.llr,
            state.lower,
            state.upper
        ));
    }
    Ok(())
}

/// One JSON document (a `--json` record of `lokizero match` or `play`).
fn read_json(path: &Path) -> Result<serde_json::Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(text.trim()).with_context(|| format!("{} is not JSON", path.display()))
}
