//! `lokizero models`: the bundles this binary can see and where they come
//! from (the search path of [`bot::paths`]); `lokizero models install
//! PATH`: copy bundles (a bundle folder, a models folder, or a tar archive
//! of either) into the user's models folder, verified on the way.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use bot::paths::{self, RootSource};
use clap::{Args, Subcommand};
use model::bundle::{META_FILE, WEIGHTS_FILE};
use rules::VariantId;

/// Arguments of `lokizero models`.
#[derive(Args, Debug)]
pub struct ModelsArgs {
    #[command(subcommand)]
    action: Option<ModelsAction>,
}

#[derive(Subcommand, Debug)]
enum ModelsAction {
    /// List the folders searched for bundles and the bundle each variant
    /// plays with (the default action).
    List,
    /// Copy bundles into a models folder (by default the user's, which
    /// every `lokizero` on this machine searches), after checking that
    /// each loads (sha256 of its weights, variant, rules and encoding).
    Install(InstallArgs),
}

#[derive(Args, Debug)]
struct InstallArgs {
    /// A bundle folder (holding model.json and model.safetensors), a models
    /// folder of bundles (`<variant>/` subfolders, like the repository's
    /// models/), or a tar archive (.tar, .tar.gz, .tgz) of either.
    path: PathBuf,
    /// The models folder to install into (default: the user's data folder,
    /// see `lokizero models`).
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// Run `lokizero models`.
pub fn run(args: ModelsArgs) -> Result<()> {
    match args.action.unwrap_or(ModelsAction::List) {
        ModelsAction::List => list(),
        ModelsAction::Install(a) => install(&a),
    }
}

fn list() -> Result<()> {
    println!(
        "Folders searched for bundles, in order (set {} to add folders first):",
        paths::MODELS_ENV
    );
    for (i, root) in paths::model_roots().iter().enumerate() {
        let state = if root.dir.is_dir() { "" } else { "  (absent)" };
        println!(
            "  {}. {}  [{}]{state}",
            i + 1,
            shown(&root.dir),
            root.source.describe()
        );
    }
    println!();
    println!(
        "{:<10} {:>10}  {:<8} {:<22} folder",
        "variant", "generation", "network", "from"
    );
    for variant in VariantId::ALL {
        let found = paths::bundles_of(variant);
        if found.is_empty() {
            println!(
                "{:<10} {:>10}  (none: `lokizero models install PATH`)",
                variant.as_str(),
                "-"
            );
        }
        for (i, (dir, source)) in found.iter().enumerate() {
            let (generation, network) = summary(dir);
            let note = if i == 0 { "" } else { "  (shadowed)" };
            println!(
                "{:<10} {generation:>10}  {network:<8} {:<22} {}{note}",
                variant.as_str(),
                source.describe(),
                shown(dir)
            );
        }
    }
    Ok(())
}

/// A path as the user should read it: absolute when it exists.
fn shown(path: &Path) -> String {
    path.canonicalize()
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// Generation and `blocks x filters` from a bundle's `model.json` ("?"
/// where unreadable).
fn summary(dir: &Path) -> (String, String) {
    let meta = std::fs::read(dir.join(META_FILE))
        .ok()
        .and_then(|t| serde_json::from_slice::<serde_json::Value>(&t).ok())
        .unwrap_or_default();
    let generation = meta["generation"]
        .as_u64()
        .map_or("?".into(), |g| g.to_string());
    let network = match (
        meta["shape"]["blocks"].as_u64(),
        meta["shape"]["filters"].as_u64(),
    ) {
        (Some(b), Some(f)) => format!("{b} x {f}"),
        _ => "?".into(),
    };
    (generation, network)
}

fn install(args: &InstallArgs) -> Result<()> {
    let dest_root = match &args.dir {
        Some(d) => d.clone(),
        None => paths::user_models_dir()
            .ok_or_else(|| anyhow!("this platform has no user data folder; name one with --dir"))?,
    };
    let unpacked;
    let source = if args.path.is_file() {
        unpacked = tempfile::tempdir().context("creating a temporary folder")?;
        unpack(&args.path, unpacked.path())?;
        unpacked.path().to_path_buf()
    } else if args.path.is_dir() {
        args.path.clone()
    } else {
        bail!("{} does not exist", args.path.display());
    };
    let bundles = find_bundles(&source)?;
    if bundles.is_empty() {
        bail!(
            "{} holds no bundle (a folder with {META_FILE} and {WEIGHTS_FILE}, \
             or folders of them)",
            args.path.display()
        );
    }
    // Check every bundle before installing any.
    let mut checked = Vec::new();
    for dir in bundles {
        let variant = model::bundle::peek_variant(&dir)
            .with_context(|| format!("{} is not a bundle", dir.display()))?;
        let generation = rules::with_variant!(variant, G => verify::<G>(&dir))
            .with_context(|| format!("{} ({variant}) does not load", dir.display()))?;
        if checked.iter().any(|(v, _, _)| *v == variant) {
            bail!("{} holds two {variant} bundles", args.path.display());
        }
        model::bundle::check_replaceable(&dest_root.join(variant.as_str()))?;
        checked.push((variant, generation, dir));
    }
    for (variant, generation, dir) in checked {
        let dest = dest_root.join(variant.as_str());
        let before = dest.join(META_FILE).is_file().then(|| summary(&dest).0);
        fsio::replace_dir_atomic(&dest, |tmp| -> std::io::Result<()> {
            // Weights first: a reader that finds model.json finds its weights.
            for name in [WEIGHTS_FILE, META_FILE] {
                fsio::write_atomic(&tmp.join(name), &std::fs::read(dir.join(name))?)?;
            }
            Ok(())
        })
        .with_context(|| format!("installing into {}", dest.display()))?;
        let replaced = before.map_or(String::new(), |g| format!(" (replaced generation {g})"));
        println!(
            "installed {variant} generation {generation} to {}{replaced}",
            shown(&dest)
        );
        if let Some((first, source)) = paths::bundles_of(variant).into_iter().next() {
            if !paths::same_folder(&first, &dest) {
                println!(
                    "  note: {} ({}) comes first on the search path and is the one played",
                    shown(&first),
                    source.describe()
                );
            } else if source == RootSource::UserData {
                println!("  lokizero plays it from any directory");
            }
        }
    }
    Ok(())
}

/// Load the bundle at `dir` as a `G` network (the sha256 of its weights,
/// its variant, rules and encoding versions and shape are checked);
/// returns its generation.
fn verify<G: encoding::Encode>(dir: &Path) -> Result<u32> {
    let device = model::Backend::Cpu.device()?;
    let (_, meta) = model::load_bundle::<G>(dir, &device)?;
    Ok(meta.generation)
}

/// The bundle folders in `dir`: `dir` itself, or its subfolders that are
/// bundles, or (for an archive with one top folder) those one level down.
fn find_bundles(dir: &Path) -> Result<Vec<PathBuf>> {
    if dir.join(META_FILE).is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let subdirs = sorted_subdirs(dir)?;
    let bundles: Vec<PathBuf> = subdirs
        .iter()
        .filter(|d| d.join(META_FILE).is_file())
        .cloned()
        .collect();
    if bundles.is_empty() && subdirs.len() == 1 {
        return find_bundles(&subdirs[0]);
    }
    Ok(bundles)
}

fn sorted_subdirs(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// Unpack the tar archive `archive` (gzip-compressed or not) into `into`.
/// Only plain files and folders inside `into` are accepted: a link or an
/// entry outside the folder refuses the whole archive.
fn unpack(archive: &Path, into: &Path) -> Result<()> {
    let open = || File::open(archive).with_context(|| format!("cannot open {}", archive.display()));
    let mut magic = [0u8; 2];
    let gzip = open()?.read_exact(&mut magic).is_ok() && magic == [0x1f, 0x8b];
    let reader: Box<dyn Read> = if gzip {
        Box::new(flate2::read::GzDecoder::new(BufReader::new(open()?)))
    } else {
        Box::new(BufReader::new(open()?))
    };
    let unreadable = || format!("{} is not a readable tar archive", archive.display());
    let mut tar = tar::Archive::new(reader);
    for entry in tar.entries().with_context(unreadable)? {
        let mut entry = entry.with_context(unreadable)?;
        let kind = entry.header().entry_type();
        if !(kind.is_file() || kind.is_dir()) {
            bail!(
                "{} holds {} ({:?}), which is not a plain file or folder; \
                 a bundle archive holds only folders and files",
                archive.display(),
                entry
                    .path()
                    .map_or_else(|_| "an entry".into(), |p| p.display().to_string()),
                kind
            );
        }
        // `unpack_in` refuses paths that would land outside `into`.
        if !entry.unpack_in(into).with_context(unreadable)? {
            bail!(
                "{} holds an entry outside its folder ({}); refusing it",
                archive.display(),
                entry
                    .path()
                    .map_or_else(|_| "?".into(), |p| p.display().to_string())
            );
        }
    }
    Ok(())
}
