//! `lokizero train`.

use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::Args;
use train::{ConfigOverride, RunConfig, RunOptions};

/// Arguments of `lokizero train`.
#[derive(Args, Debug)]
#[allow(
    rustdoc::invalid_html_tags,
    reason = "the doc comments are also the --help text, where <variant> is a placeholder"
)]
pub struct TrainArgs {
    /// Run config (TOML). It may start with `extends = "<base.toml>"` (a
    /// path relative to it) and list only the keys that differ.
    #[arg(long, default_value = "configs/shakti.toml")]
    config: PathBuf,
    /// Override one config key after `extends` is resolved; repeatable, a
    /// later --set wins. KEY is dotted, section first (`--set
    /// selfplay.games_per_generation=64`, `--set search.c_puct=1.5`; a
    /// top-level key has none: `--set seed=7`). VALUE is read as a TOML
    /// value (64, 1.5, true, '"text"', '[[0, 0.002]]'); text that is not
    /// one is taken as a string (`--set
    /// selfplay.branch_book=configs/books/losers-endgames.txt`). The run
    /// directory's config.toml records the config with every override.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<ConfigOverride>,
    /// Run directory (checkpoints, replay, metrics). Default: runs/<variant>.
    /// Re-running with the same directory resumes.
    #[arg(long)]
    run_dir: Option<PathBuf>,
    /// Backend: cpu (burn flex), or wgpu / cuda (GPU; need a build with
    /// --features wgpu or cuda).
    #[arg(long, default_value = "cpu")]
    device: model::Backend,
    /// Backend of the self-play network when it should differ from
    /// --device: `--device wgpu --selfplay-device cpu` trains on the GPU
    /// and plays on the CPU's fused path (faster for small networks on a
    /// many-core machine; docs/benchmarks.md, "GPU").
    #[arg(long)]
    selfplay_device: Option<model::Backend>,
    /// Override the number of generations of the config.
    #[arg(long, value_parser = super::plain_int::<u32>)]
    generations: Option<u32>,
    /// Stop once the run has used this many CPU-seconds in total (all
    /// threads; checked after each generation, so the last one completes).
    /// For comparing settings at equal compute. With --store: the trainer's
    /// CPU time plus what the workers report for the chunks it trained on.
    #[arg(long, value_name = "SECONDS", value_parser = super::plain_f64)]
    cpu_budget: Option<f64>,
    /// Start from this bundle (e.g. models/hnefatafl) instead of an
    /// untrained network: its generation number and training totals carry
    /// on, `--generations N` trains N more. The config's network shape must
    /// match the bundle's. Ignored when the run directory already has
    /// checkpoints (the run resumes instead).
    #[arg(long, value_name = "BUNDLE")]
    init_from: Option<PathBuf>,
    /// Keep the run in an object store instead of --run-dir:
    /// `s3://BUCKET/PREFIX` (endpoint, region and credentials from the
    /// AWS_* environment variables) or a folder. Self-play workers
    /// (`lokizero selfplay --store URL`) on any machine add games to it;
    /// without --trainer-only this process also plays whenever no
    /// generation is due (docs/distributed.md).
    #[arg(long, value_name = "URL", conflicts_with = "run_dir")]
    store: Option<String>,
    /// With --store: only train (and publish bundles), never play; the
    /// games come from workers.
    #[arg(long, requires = "store")]
    trainer_only: bool,
    /// With --store: seconds between listings of the store while no
    /// generation is due.
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS", value_parser = super::plain_f64)]
    poll: f64,
    /// With --store: seconds the trainer's lease lives without renewal (it
    /// is renewed every third of that); a second trainer is refused while
    /// it lives.
    #[arg(long, default_value_t = 60, value_name = "SECONDS", value_parser = super::plain_int::<u64>)]
    lease_ttl: u64,
    /// Serve the web lab on this address while the run trains (port 0
    /// picks a free one; the address is printed): the run's variant is
    /// played by its newest generation, replaced as each one is written,
    /// and the run's page at /runs shows its generations, learning curve
    /// and newest self-play games. The lab stops when training ends
    /// (`lokizero serve --follow RUN_DIR` serves a run on its own). Not
    /// with --store (`lokizero serve --store URL` shows such a run).
    #[arg(long, value_name = "ADDR", conflicts_with = "store")]
    serve: Option<std::net::SocketAddr>,
    /// Hide progress bars.
    #[arg(long)]
    quiet: bool,
}

/// `--poll` as a duration.
///
/// # Errors
/// A negative, zero or non-finite value.
pub fn poll_duration(seconds: f64) -> Result<std::time::Duration> {
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 3600.0) {
        return Err(anyhow!(
            "--poll must be in (0, 3600] seconds, got {seconds}"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// The trainer of a distributed run on `url`.
fn run_on_store(
    args: &TrainArgs,
    url: &str,
    config: &RunConfig,
    device: &burn::tensor::Device,
) -> Result<()> {
    train::cluster::check_store_config(config)?;
    let store = std::sync::Arc::new(store::Store::open(url)?);
    store.check_reachable()?;
    let options = train::cluster::TrainerOptions {
        progress: !args.quiet,
        play: !args.trainer_only,
        poll: poll_duration(args.poll)?,
        lease_ttl: std::time::Duration::from_secs(args.lease_ttl.max(3)),
        init_from: args.init_from.clone(),
        cpu_budget_seconds: args.cpu_budget,
    };
    if !args.quiet {
        eprintln!(
            "training {} for {} in {} ({}; a generation every {} new games)",
            config.variant,
            generations_text(config.generations),
            store.describe(),
            if args.trainer_only {
                "trainer only: the games come from workers"
            } else {
                "playing when no generation is due"
            },
            config.selfplay.games_per_generation
        );
    }
    let pointer = rules::with_variant!(config.variant, G => train::cluster::run_trainer::<G>(config, store.clone(), device, &options)?);
    println!(
        "finished generation {}; bundle: {}/{}",
        pointer.generation,
        store.describe(),
        pointer.bundle
    );
    Ok(())
}

/// Run the main job.
pub fn run(args: TrainArgs) -> Result<()> {
    // clap's `requires` does not fire for this flag; checked here.
    if args.trainer_only && args.store.is_none() {
        return Err(anyhow!(
            "--trainer-only needs --store (a local run always plays its own games)"
        ));
    }
    let mut config = RunConfig::load_with_overrides(&args.config, &args.set)?;
    if let Some(g) = args.generations {
        config.generations = g;
        config
            .validate()
            .map_err(|e| anyhow!("--generations: {e}"))?;
    }
    super::set_threads(config.threads);
    let device = args.device.device()?;
    if let Some(b) = args.cpu_budget {
        if !(b.is_finite() && b > 0.0) {
            return Err(anyhow!(
                "--cpu-budget must be a positive number of seconds, got {b}"
            ));
        }
    }
    if let Some(url) = &args.store {
        return run_on_store(&args, url, &config, &device);
    }
    let run_dir = args
        .run_dir
        .unwrap_or_else(|| PathBuf::from("runs").join(config.variant.as_str()));
    let options = RunOptions {
        progress: !args.quiet,
        cpu_budget_seconds: args.cpu_budget,
        selfplay_device: args
            .selfplay_device
            .map(model::Backend::device)
            .transpose()
            .map_err(|e| anyhow!("--selfplay-device: {e}"))?,
        init_from: args.init_from,
    };
    if !args.quiet {
        eprintln!(
            "training {} for {} into {} ({} games of self-play per generation; re-run to resume)",
            config.variant,
            generations_text(config.generations),
            run_dir.display(),
            config.selfplay.games_per_generation
        );
    }
    let _lab = args
        .serve
        .map(|addr| super::serve::serve_beside(addr, &run_dir, config.variant))
        .transpose()?;
    let summary = rules::with_variant!(config.variant, G => train::run::<G>(&config, &run_dir, &device, &options)?);
    println!(
        "{} generation {}; bundle: {}",
        if summary.trained > 0 {
            "finished"
        } else {
            "nothing trained; the newest is"
        },
        summary.generation,
        summary.bundle.display()
    );
    Ok(())
}

/// `1 generation`, `8 generations`.
fn generations_text(n: u32) -> String {
    if n == 1 {
        "1 generation".into()
    } else {
        format!("{n} generations")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    #[test]
    fn one_generation_is_singular() {
        assert_eq!(generations_text(1), "1 generation");
        assert_eq!(generations_text(0), "0 generations");
        assert_eq!(generations_text(8), "8 generations");
    }

    #[derive(Parser)]
    struct TrainCli {
        #[command(flatten)]
        train: TrainArgs,
    }

    #[test]
    fn set_is_repeatable_parsed_and_explained_in_help() {
        let cli = TrainCli::try_parse_from([
            "x",
            "--set",
            "selfplay.games_per_generation=64",
            "--set",
            "seed=7",
        ])
        .unwrap();
        let keys: Vec<String> = cli.train.set.iter().map(ConfigOverride::key).collect();
        assert_eq!(keys, ["selfplay.games_per_generation", "seed"]);
        let e = TrainCli::try_parse_from(["x", "--set", "seed"])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("expected KEY=VALUE"), "{e}");
        let help = TrainCli::command().render_long_help().to_string();
        assert!(help.contains("--set <KEY=VALUE>"), "{help}");
        assert!(help.contains("TOML value"), "{help}");
        assert!(help.contains("extends"), "{help}");
    }
}
