//! `lokizero analyse`: a JSON-lines analysis engine on stdin/stdout, like
//! KataGo's analysis engine (the request and answer are
//! `bot::protocol`'s, shared with the web lab). One request per line:
//!
//! ```json
//! {"id": "a1", "variant": "losers", "position": "startpos", "moves": ["e2e3"], "nodes": 400, "top": 5, "bundle": "models/losers"}
//! ```
//!
//! `id` (any JSON value) is echoed; `variant` may be left out when `bundle`
//! is given (read from its `model.json`); `position` defaults to the start,
//! `moves` to none, the budget (`nodes` and/or `movetime`, e.g. `"250ms"`)
//! to `--nodes` / `--movetime` (200 root visits when neither is given),
//! `top` to 5 (0 = all), `bundle` to `--bundle` or the variant's bundle on the bundle search path.
//! One response line per request:
//!
//! ```json
//! {"id": "a1", "variant": "losers", "position": "<text>", "actions": [{"action","visits","prior","q","wdl","pv"}], "root": {"wdl": [w, d, l], "visits": 400}, "time_ms": 812}
//! ```
//!
//! Values are from the side to move's view; a finished game adds
//! `"outcome"`. A bad request gets `{"id": ..., "error": "..."}` and the
//! engine reads on.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use bot::protocol::{self, AnalyseRequest};
use bot::Bot;
use clap::Args;
use rules::VariantId;
use serde_json::{json, Value};

/// Arguments of `lokizero analyse`.
#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// Bundle for requests without `bundle` (default: the variant's bundle
    /// on the bundle search path, as `lokizero models` lists it).
    #[arg(long)]
    bundle: Option<PathBuf>,
    /// Backend: cpu (default), wgpu or cuda (GPU builds: --features wgpu / cuda).
    #[arg(long, default_value = "cpu")]
    device: model::Backend,
    /// CPU threads (0 = all cores, at most 256): with two or more the
    /// search evaluates two batches of leaves at once, one per thread;
    /// threads past two only help split the network's batches.
    #[arg(long, default_value_t = 1, value_parser = super::parse_threads_or_all)]
    threads: usize,
    /// Precision of the networks: int8 (the default: the trunk's 3x3
    /// convolutions on 8-bit integers, model::quant; used only on the CPU
    /// with AVX2 or VNNI, fp32 elsewhere) or fp32 (the reference).
    #[arg(long, default_value_t = model::Precision::default())]
    precision: model::Precision,
    /// The budget of requests that name none.
    #[command(flatten)]
    budget: super::search_args::BudgetArgs,
}

/// Most nodes one request may ask for.
pub const MAX_NODES: u32 = 10_000_000;
/// Bundles kept loaded at once.
const CACHE: usize = 4;

/// The engine state: loaded bots by (variant, folder).
struct Analyser {
    default_bundle: Option<PathBuf>,
    default_budget: search::Budget,
    device: burn::tensor::Device,
    precision: model::Precision,
    bots: HashMap<(VariantId, PathBuf), Bot>,
}

impl Analyser {
    /// Answer one line (never fails: errors become an error response).
    fn answer(&mut self, line: &str) -> Value {
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return json!({"id": null, "error": format!("request is not JSON: {e}")}),
        };
        if !value.is_object() {
            let kind = match &value {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            };
            return json!({"id": null, "error": format!("bad request: a request is one JSON object per line (such as {{\"variant\": \"losers\"}}), not {kind}")});
        }
        let id = value.get("id").cloned().unwrap_or(Value::Null);
        let request: AnalyseRequest = match serde_json::from_value(value) {
            Ok(r) => r,
            Err(e) => return json!({"id": id, "error": format!("bad request: {e}")}),
        };
        match self.analyse(&request) {
            Ok(v) => v,
            Err(e) => json!({"id": id, "error": crate::error_text(&e)}),
        }
    }

    fn analyse(&mut self, r: &AnalyseRequest) -> Result<Value> {
        let budget = r.budget(&self.default_budget, MAX_NODES)?;
        let given: Option<PathBuf> = r.bundle.clone().or_else(|| self.default_bundle.clone());
        let given = given.as_deref();
        let variant: VariantId = match (r.variant_id()?, given) {
            (Some(v), _) => v,
            (None, Some(path)) => {
                let path = bot::paths::resolve_bundle(VariantId::Losers, Some(path))?;
                model::bundle::peek_variant(&path)?
            }
            (None, None) => anyhow::bail!("request needs \"variant\" or \"bundle\""),
        };
        let bot = self.bot(variant, given)?;
        let position = r.position.as_deref();
        bot.set_position(position, &r.moves)?;
        let analysis = bot.analyse(&budget, r.top())?;
        Ok(protocol::answer(&r.id, bot, &analysis))
    }

    /// The loaded bot for `variant` from `given` (or the shipped bundle).
    fn bot(&mut self, variant: VariantId, given: Option<&Path>) -> Result<&mut Bot> {
        let path = bot::paths::resolve_bundle(variant, given)?;
        let key = (variant, path.clone());
        if !self.bots.contains_key(&key) {
            let mut loaded = Bot::load_for(variant, &path, &self.device)?;
            loaded.set_precision(self.precision);
            loaded.set_pipeline(rayon::current_num_threads() > 1);
            if self.bots.len() >= CACHE {
                self.bots.clear();
            }
            self.bots.insert(key.clone(), loaded);
        }
        self.bots
            .get_mut(&key)
            .context("bundle cache lost an entry")
    }
}

/// Serve requests until end of input.
pub fn run(args: AnalyseArgs) -> Result<()> {
    let pool = super::engine_pool(args.threads)?;
    let device = args.device.device()?;
    let mut analyser = Analyser {
        default_bundle: args.bundle,
        default_budget: args.budget.budget(),
        device,
        precision: args.precision,
        bots: HashMap::new(),
    };
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match stdin.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return Ok(()),
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buf);
        if line.trim().is_empty() {
            continue;
        }
        let response = pool.install(|| analyser.answer(line.trim()));
        writeln!(stdout, "{response}")?;
        stdout.flush()?;
    }
}
