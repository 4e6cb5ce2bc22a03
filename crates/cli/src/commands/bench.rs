//! `lokizero bench`: throughput of the network, training, search and
//! self-play for one variant (figures go to docs/benchmarks.md).
//!
//! All figures are measured in one process run, so ratios between them are
//! meaningful on a shared, noisy machine; absolute numbers are not.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use burn::tensor::Device;
use clap::Args;
use encoding::Encode;
use model::{Net, NetEvaluator, Precision};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules::VariantId;
use search::{Evaluator, Mcts, SearchConfig};
use selfplay::timed::{EncodeOnly, Timed, TimingLog};
use train::config::TrainBackend;
use train::samples::{sample_batch, Sample};
use train::trainer::Trainer;
use train::RunConfig;

/// Arguments of `lokizero bench`.
#[derive(Args, Debug)]
#[allow(
    rustdoc::invalid_html_tags,
    reason = "the doc comments are also the --help text, where <variant> is a placeholder"
)]
pub struct BenchArgs {
    /// Variant id (its config in configs/<variant>.toml gives the network size).
    #[arg(long)]
    variant: VariantId,
    /// Config with the network size (default: configs/<variant>.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Use the weights of this bundle instead of a fresh network.
    #[arg(long)]
    model: Option<PathBuf>,
    /// What to measure: comma-separated from net, train, search, selfplay
    /// (or none, with --export-bundle / --reference-out).
    #[arg(long, default_value = "net,train,search,selfplay")]
    what: String,
    /// Seconds per measurement (self-play: at least three times this,
    /// rounded up to whole self-play calls, then the network-alone replay).
    #[arg(long, default_value_t = 3.0, value_parser = super::plain_f64)]
    seconds: f64,
    /// Batch sizes for network inference.
    #[arg(long, default_value = "1,16,64,256", value_delimiter = ',')]
    batches: Vec<usize>,
    /// Self-play workers for `--what selfplay` (default: the config's
    /// `selfplay.workers`, as training uses).
    #[arg(long, value_parser = super::plain_int::<usize>)]
    workers: Option<usize>,
    /// Backend: cpu (burn flex; inference also timed on the fused path),
    /// ndarray, wgpu or cuda (each needs a build with that feature).
    #[arg(long, default_value = "cpu")]
    device: model::Backend,
    /// Training step for `--what train`: fast (the hand-written step) or
    /// burn (autodiff); default: the config's `[training] backend`.
    #[arg(long)]
    train_backend: Option<String>,
    /// Batch size for `--what train` (default: the config's
    /// `[training] batch_size`).
    #[arg(long, value_parser = super::plain_int::<usize>)]
    train_batch: Option<usize>,
    /// Write the network input/output of a fixed batch of 4 positions as
    /// JSON (for the onnxruntime comparison in scripts/bench-onnx.sh).
    #[arg(long)]
    reference_out: Option<PathBuf>,
    /// Save the benchmarked network as a bundle (so another runtime can
    /// load the very same weights).
    #[arg(long)]
    export_bundle: Option<PathBuf>,
}

/// Run the benchmarks and print one line per figure.
/// Measurements `--what` accepts.
const MEASUREMENTS: [&str; 5] = ["net", "train", "search", "selfplay", "none"];

/// Refuse arguments that would measure nothing or cannot be timed.
fn check_args(args: &BenchArgs) -> Result<()> {
    if !(args.seconds.is_finite() && (0.0..=86_400.0).contains(&args.seconds)) {
        bail!("--seconds must be from 0 to 86400, got {}", args.seconds);
    }
    if let Some(b) = args.batches.iter().find(|&&b| b == 0 || b > 65_536) {
        bail!("--batches: batch sizes must be from 1 to 65536, got {b}");
    }
    if let Some(b) = args.train_batch.filter(|b| !(1..=65_536).contains(b)) {
        bail!("--train-batch must be from 1 to 65536, got {b}");
    }
    if let Some(b) = args
        .train_backend
        .as_deref()
        .filter(|b| !["fast", "burn"].contains(b))
    {
        bail!("--train-backend must be fast or burn, got {b:?}");
    }
    if let Some(w) = args.workers.filter(|w| !(1..=64).contains(w)) {
        bail!("--workers must be from 1 to 64, got {w}");
    }
    if let Some(w) = args
        .what
        .split(',')
        .map(str::trim)
        .find(|w| !MEASUREMENTS.contains(w))
    {
        bail!(
            "--what: unknown measurement {w:?}; expected a comma-separated list from {}",
            MEASUREMENTS.join(", ")
        );
    }
    Ok(())
}

pub fn run(args: BenchArgs) -> Result<()> {
    check_args(&args)?;
    let config_path = args
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("configs/{}.toml", args.variant)));
    let config = RunConfig::load(&config_path)?;
    if config.variant != args.variant {
        bail!(
            "{} is a config for variant {}, not {}",
            config_path.display(),
            config.variant,
            args.variant
        );
    }
    super::set_threads(config.threads);
    let device = args.device.device()?;
    rules::with_variant!(args.variant, G => bench_for::<G>(&args, &config, &device))
}

/// Positions from random games (realistic middle-game inputs).
fn sample_positions<G: Encode>(n: usize, rng: &mut SmallRng) -> Vec<G> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut g = G::start();
        let plies = rng.random_range(0..40);
        for _ in 0..plies {
            let legal = g.legal_vec();
            if legal.is_empty() {
                break;
            }
            g.play(legal[rng.random_range(0..legal.len())]);
        }
        if g.outcome().is_none() {
            out.push(g);
        }
    }
    out
}

fn timed_loop(seconds: f64, mut work: impl FnMut() -> u64) -> f64 {
    let limit = Duration::from_secs_f64(seconds);
    work(); // warm-up
    let (t, mut items) = (Instant::now(), 0u64);
    while t.elapsed() < limit {
        items += work();
    }
    items as f64 / t.elapsed().as_secs_f64()
}

fn bench_for<G: Encode>(args: &BenchArgs, config: &RunConfig, device: &Device) -> Result<()> {
    // A bundle brings its own network size; the config's is for fresh nets.
    let (net, shape) = match &args.model {
        Some(dir) => {
            let (net, meta) = model::load_bundle::<G>(dir, device)?;
            (net, meta.shape)
        }
        None => {
            let shape = train::run::shape_for::<G>(config);
            (Net::new(&shape, device), shape)
        }
    };
    let mut rng = SmallRng::seed_from_u64(1);
    let positions = sample_positions::<G>(256, &mut rng);
    let threads = rayon::current_num_threads();
    println!(
        "variant {} | net {}x{} | threads {threads} | device {}",
        G::VARIANT,
        shape.blocks,
        shape.filters,
        args.device
    );
    if let Some(dir) = &args.export_bundle {
        model::save_bundle(dir, &net, &model::bundle::meta_for::<G>(&shape, 0, &[]))?;
    }
    if let Some(path) = &args.reference_out {
        write_reference::<G>(path, &net, device, &positions[..4])?;
    }
    let what: Vec<&str> = args.what.split(',').map(str::trim).collect();
    if what.contains(&"net") {
        let mut eval = NetEvaluator::<G>::new(net.clone(), device.clone());
        let mut burn = NetEvaluator::<G>::new_burn(net.clone(), device.clone());
        if eval.is_fused() {
            print_agreement("fused vs burn", &mut eval, &mut burn, &positions);
            let mut int8 = NetEvaluator::<G>::new(net.clone(), device.clone());
            if int8.set_precision(Precision::Int8) == Precision::Int8 {
                println!("int8 kernel: {}", model::quant::int8_kernel());
                print_agreement("int8 vs fused", &mut int8, &mut eval, &positions);
                bench_fp32_int8(eval, int8, args, &positions);
            } else {
                println!("int8: this CPU has no AVX2 or VNNI int8 kernel; fp32 only");
                bench_net("fused", eval, args, &positions);
            }
        }
        bench_net("burn", burn, args, &positions);
    }
    if what.contains(&"train") {
        bench_train::<G>(args, config, &net, device, &positions, &mut rng);
    }
    if what.contains(&"search") {
        bench_search::<G>(args, config);
    }
    if what.contains(&"selfplay") {
        bench_selfplay::<G>(args, config, &net, device);
    }
    Ok(())
}

/// Print how far one path's outputs are from another's on the bench
/// positions (max absolute difference of the policy logits and of the
/// WDL probabilities), so a speed figure never hides a wrong kernel; the
/// equivalence tests hold fused vs burn within 1e-3 and 1e-4
/// (`crates/model/tests/fused_matches_burn.rs`) and int8 vs fused within
/// their stated tolerance (`crates/model/tests/int8_matches_fp32.rs`).
fn print_agreement<G: Encode>(
    label: &str,
    fused: &mut NetEvaluator<G>,
    burn: &mut NetEvaluator<G>,
    positions: &[G],
) {
    let batch: Vec<&G> = positions.iter().take(64).collect();
    let (fp, fv) = fused.forward(&batch);
    let fp = fp.to_vec();
    let (bp, bv) = burn.forward(&batch);
    let max_diff = |a: &[f32], b: &[f32]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max)
    };
    let policy = max_diff(&fp, bp);
    let wdl = max_diff(fv.as_flattened(), bv.as_flattened());
    println!(
        "{label} on {} positions: max |difference| policy logits {policy:.1e}, WDL {wdl:.1e}",
        batch.len()
    );
}

/// Inference positions/s per batch size (encoding included), printed as
/// `net inference (PATH) batch B: R positions/s`.
fn bench_net<G: Encode>(path: &str, mut eval: NetEvaluator<G>, args: &BenchArgs, positions: &[G]) {
    for &b in &args.batches {
        let batch: Vec<&G> = positions.iter().cycle().take(b).collect();
        let rate = timed_loop(args.seconds, || {
            eval.forward(&batch);
            b as u64
        });
        println!("net inference ({path}) batch {b:>4}: {rate:>10.0} positions/s");
    }
}

/// Alternating rounds per batch size of [`bench_fp32_int8`].
const PRECISION_ROUNDS: usize = 3;

/// The fused path in `fp32` and in int8 side by side: per batch size,
/// [`PRECISION_ROUNDS`] rounds of `--seconds / rounds` each on each path,
/// alternating which goes first, so both see the same load on a shared
/// machine; prints each path's median rate and the median of the rounds'
/// int8/fp32 ratios.
fn bench_fp32_int8<G: Encode>(
    mut fp32: NetEvaluator<G>,
    mut int8: NetEvaluator<G>,
    args: &BenchArgs,
    positions: &[G],
) {
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let seconds = args.seconds / PRECISION_ROUNDS as f64;
    for &b in &args.batches {
        let batch: Vec<&G> = positions.iter().cycle().take(b).collect();
        let time = |eval: &mut NetEvaluator<G>| {
            timed_loop(seconds, || {
                eval.forward(&batch);
                b as u64
            })
        };
        let (mut f, mut q, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..PRECISION_ROUNDS {
            let (rf, rq) = if round % 2 == 0 {
                let rf = time(&mut fp32);
                (rf, time(&mut int8))
            } else {
                let rq = time(&mut int8);
                (time(&mut fp32), rq)
            };
            f.push(rf);
            q.push(rq);
            ratio.push(rq / rf);
        }
        let (f, q, ratio) = (median(&mut f), median(&mut q), median(&mut ratio));
        println!("net inference (fused) batch {b:>4}: {f:>10.0} positions/s");
        println!(
            "net inference (int8) batch {b:>4}: {q:>10.0} positions/s, int8/fp32 {ratio:.2} \
             (median of {PRECISION_ROUNDS} alternating rounds)"
        );
    }
}

fn bench_train<G: Encode>(
    args: &BenchArgs,
    config: &RunConfig,
    net: &Net,
    device: &Device,
    positions: &[G],
    rng: &mut SmallRng,
) {
    let samples: Vec<Sample> = positions
        .iter()
        .map(|p| {
            let mut input = vec![0.0; G::input_len()];
            p.encode(&mut input);
            let legal = p.legal_vec();
            let u = 1.0 / legal.len() as f32;
            let policy = legal
                .iter()
                .map(|&a| (p.policy_index(a) as u32, u))
                .collect();
            Sample {
                input,
                policy,
                wdl: [0.0, 1.0, 0.0],
                value_weight: 1.0,
                plies_left: 40,
                legal: legal.iter().map(|&a| p.policy_index(a) as u32).collect(),
            }
        })
        .collect();
    let mut t = config.training.clone();
    t.batch_size = args.train_batch.unwrap_or(t.batch_size);
    t.backend = match args.train_backend.as_deref() {
        Some("fast") => TrainBackend::Fast,
        Some("burn") => TrainBackend::Burn,
        _ => t.backend,
    };
    let mut trainer = Trainer::new::<G>(net.clone(), device, &t);
    let cpu0 = train::cputime::process_cpu_seconds();
    let wall0 = Instant::now();
    let rate = timed_loop(args.seconds, || {
        let batch = sample_batch::<G>(&samples, t.batch_size, t.augment, rng);
        trainer.step::<G>(
            &batch,
            1e-4,
            train::losses::LossWeights {
                value: 1.0,
                moves_left: 1.0,
            },
        );
        t.batch_size as u64
    });
    // CPU time over wall time of the whole loop (warm-up step included):
    // how many cores the step kept busy.
    let cores = cpu0
        .zip(train::cputime::process_cpu_seconds())
        .map(|(a, b)| (b - a) / wall0.elapsed().as_secs_f64());
    println!(
        "training ({}) batch {:>4}: {rate:>10.0} samples/s, {} cores used",
        trainer.backend(),
        t.batch_size,
        cores.map_or("?".to_string(), |c| format!("{c:.2}")),
    );
}

fn bench_search<G: Encode>(args: &BenchArgs, config: &RunConfig) {
    let search = SearchConfig {
        dirichlet_epsilon: 0.0,
        ..config.search.clone()
    };
    let mut eval = EncodeOnly::new();
    let mut rng = SmallRng::seed_from_u64(2);
    let sims = 800;
    let rate = timed_loop(args.seconds, || {
        let mut trees = vec![Mcts::new(G::start(), &search)];
        search::run_batched(
            &mut trees,
            &mut eval,
            sims,
            config.selfplay.leaves_per_tree,
            &mut rng,
        );
        trees[0].visits() as u64
    });
    println!("search, zero-cost evaluator: {rate:>10.0} simulations/s (rules + search + encoding, 1 thread)");
    println!(
        "tree node size:              {:>10} bytes + the action",
        search::NODE_BYTES
    );
    bench_root_proofs::<G>(args);
}

/// The cost of the root proofs of play ([`SearchConfig::for_play`]): 16
/// simulations of a zero-cost evaluator from each of 64 positions of 0-39
/// random plies, with the forcing lines
/// ([`SearchConfig::forcing_depth`]) and without; the difference is their
/// time per root.
fn bench_root_proofs<G: Encode>(args: &BenchArgs) {
    let positions = sample_positions::<G>(64, &mut SmallRng::seed_from_u64(3));
    let per_root = |forcing_depth: u32| {
        let play = SearchConfig {
            forcing_depth,
            ..SearchConfig::for_play()
        };
        let mut rng = SmallRng::seed_from_u64(4);
        let roots_per_s = timed_loop(args.seconds / 2.0, || {
            for g in &positions {
                search::search(g, &mut EncodeOnly::new(), &play, 16, &mut rng);
            }
            positions.len() as u64
        });
        1000.0 / roots_per_s
    };
    let (on, off) = (per_root(search::PLAY_FORCING_DEPTH), per_root(0));
    println!(
        "root proofs at play settings:   {on:>7.2} ms per root with forcing lines (depth {}), {off:.2} without",
        search::PLAY_FORCING_DEPTH
    );
}

/// Self-play as training plays it (`train::run`): calls of
/// `games_per_chunk` games on the config's workers, the real network
/// behind every worker. Then the network alone replays the very batches
/// self-play sent it (same sizes, same order, one at a time, real search
/// leaves as input); the self-play wall time beyond that is the time
/// spent outside the network (rules, search, encoding, idle cores).
fn bench_selfplay<G: Encode>(args: &BenchArgs, config: &RunConfig, net: &Net, device: &Device) {
    let sp = &config.selfplay;
    let workers = args.workers.unwrap_or(sp.workers);
    let games = sp.games_per_chunk.min(sp.games_per_generation).max(1);
    let log = Mutex::new(TimingLog::<G>::default());
    let t = Instant::now();
    let mut stats = selfplay::SelfPlayStats::default();
    let mut seed = 0;
    let start = G::start();
    while t.elapsed().as_secs_f64() < args.seconds.max(1.0) * 3.0 {
        let plan = selfplay::Games {
            start: &start,
            branch_starts: &[],
            search: &config.search,
            config: sp,
            count: games,
            seed,
        };
        let s = selfplay::play_games_parallel(
            &plan,
            workers,
            |_| Timed::new(self_play_net(net, device, config), &log),
            |_| {},
        );
        stats.games += s.games;
        stats.plies += s.plies;
        seed += 1;
    }
    let wall = t.elapsed().as_secs_f64();
    let log = log.into_inner().unwrap_or_else(|e| e.into_inner());
    let alone_net = self_play_net::<G>(net, device, config);
    println!(
        "self-play: {:.1} positions/s, {:.0} games/hour, {:.0} evaluations/s, mean batch {:.0} \
         (workers: {workers}, games per call: {games}, network in {})",
        stats.plies as f64 / wall,
        stats.games as f64 * 3600.0 / wall,
        log.positions as f64 / wall,
        log.mean_batch(),
        alone_net.precision()
    );
    let alone = network_alone(alone_net, &log).as_secs_f64();
    println!(
        "network alone on the same batches: {alone:.2} s of {wall:.2} s self-play \
         (inside the workers' network calls: {:.2} s, summed)",
        log.elapsed.as_secs_f64()
    );
    // Below zero when the workers' overlapping network calls used the
    // cores better than one call at a time did.
    println!(
        "self-play time outside the network: {:.1} %",
        100.0 * (1.0 - alone / wall)
    );
    if let Some(kib) = peak_resident_kib() {
        // With `--what selfplay` alone this is the self-play workers' peak.
        println!(
            "peak resident memory of this process: {:.0} MiB",
            kib as f64 / 1024.0
        );
    }
}

/// The network as self-play runs it: in the config's `[network]
/// precision` (int8 where the CPU has a fast int8 kernel).
fn self_play_net<G: Encode>(net: &Net, device: &Device, config: &RunConfig) -> NetEvaluator<G> {
    NetEvaluator::new(net.clone(), device.clone()).with_precision(config.network.precision)
}

/// Wall time of the network `eval` alone evaluating the batches in
/// `log.sizes`, one call after another on all threads, inputs drawn in
/// turn from the logged search leaves. One untimed call first warms the
/// buffers.
fn network_alone<G: Encode>(mut eval: NetEvaluator<G>, log: &TimingLog<G>) -> Duration {
    let Some(&largest) = log.sizes.iter().max() else {
        return Duration::ZERO;
    };
    let largest = largest as usize;
    let leaves = log.sample.iter().cycle().take(largest);
    let (positions, legal): (Vec<&G>, Vec<&[G::Action]>) =
        leaves.map(|(p, l)| (p, l.as_slice())).unzip();
    // prior_ends[b]: the priors' length for a batch of the first b leaves.
    let prior_ends: Vec<usize> = std::iter::once(0)
        .chain(legal.iter().scan(0, |end, l| {
            *end += l.len();
            Some(*end)
        }))
        .collect();
    let mut priors = vec![0.0; prior_ends[largest]];
    let mut wdl = vec![search::DRAW_WDL; largest];
    let mut run = |b: usize| {
        eval.evaluate(
            &positions[..b],
            &legal[..b],
            &mut priors[..prior_ends[b]],
            &mut wdl[..b],
        )
    };
    run(largest);
    let t = Instant::now();
    for &b in &log.sizes {
        run(b as usize);
    }
    t.elapsed()
}

/// The process's peak resident set size in KiB (`VmHWM` of
/// `/proc/self/status`; `None` where that file does not exist).
fn peak_resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Write a fixed batch's input and the network's raw outputs as JSON.
fn write_reference<G: Encode>(
    path: &Path,
    net: &Net,
    device: &Device,
    positions: &[G],
) -> Result<()> {
    use burn::tensor::{Tensor, TensorData};
    let n = G::input_len();
    let mut input = vec![0.0f32; n * positions.len()];
    for (chunk, p) in input.chunks_exact_mut(n).zip(positions) {
        p.encode(chunk);
    }
    let shape = [positions.len(), G::INPUT_PLANES, G::HEIGHT, G::WIDTH];
    let eval_net = {
        use burn::module::Module;
        net.valid()
    };
    let x = Tensor::<4>::from_data(TensorData::new(input.clone(), shape), device);
    let (policy, value) = eval_net.forward(x);
    let json = serde_json::json!({
        "shape": shape,
        "input": input,
        "policy_logits": policy.into_data().try_into_vec::<f32>().unwrap_or_default(),
        "wdl_logits": value.into_data().try_into_vec::<f32>().unwrap_or_default(),
    });
    fsio::write_atomic(path, json.to_string().as_bytes())?;
    Ok(())
}
