//! What a generation reports: the Elo chain, the progress line, the
//! resignation figures and the learning-curve chart.

use arena::chart::{CurvePoint, CurveSeries};
use arena::evaluate::{EvalSummary, MatchSummary};
use arena::{EloEstimate, WdlCounts};
use encoding::Encode;
use selfplay::resign::{calibrate_threshold, false_positive_rate};
use selfplay::{GameRecord, SelfPlayConfig};

use super::RunDir;
use crate::metrics::{read_metrics, GenerationMetrics, ResignMetrics};

/// One link of the Elo chain: the match against the reference with one
/// virtual draw added (the ladder's prior, see `arena::ladder`), so a clean
/// sweep gives a large finite step instead of an infinite one. Interval:
/// this match's only (the reference's own uncertainty is not added).
pub(crate) fn chain_step(m: &MatchSummary) -> EloEstimate {
    EloEstimate::from_wdl(&WdlCounts {
        wins: m.wins,
        draws: m.draws + 1,
        losses: m.losses,
    })
}

/// `; vs gen-N: W/D/L (Elo ±), vs random: ..., promoted` for the progress
/// line.
pub(super) fn eval_line(e: &EvalSummary, best: u32) -> String {
    let m = |m: &MatchSummary| {
        format!(
            "{}: +{} ={} -{} (Elo {:+.0} [{:+.0}, {:+.0}])",
            m.opponent,
            m.wins,
            m.draws,
            m.losses,
            // `+ 0.0` turns the -0 of an even score into +0 for printing.
            m.elo + 0.0,
            m.elo_lower + 0.0,
            m.elo_upper + 0.0
        )
    };
    let mut parts: Vec<String> = e.vs_previous.iter().map(m).collect();
    parts.extend(e.baselines.iter().map(m));
    let verdict = if e.promote {
        "promoted".to_string()
    } else {
        format!("not promoted (self-play stays on gen-{best:06})")
    };
    format!("; {}; {verdict}", parts.join(", "))
}

/// The one line a finished generation prints (with `--quiet` too: one
/// line per generation is the log).
pub(crate) fn print_generation_line(m: &GenerationMetrics, eval: Option<&EvalSummary>) {
    eprintln!(
        "generation {}: {} games, {} positions, policy loss {:.3}, value loss {:.3}, draws {:.0}%{}",
        m.generation,
        m.games,
        m.selfplay_positions,
        m.policy_loss,
        m.value_loss,
        100.0 * m.draw_rate,
        eval.map_or(String::new(), |e| eval_line(e, m.selfplay_generation)),
    );
}

/// Redraw `learning-curve.png` from the metrics log against CPU-hours:
/// the chained Elo against generation 0 (at the origin), and the Elo
/// difference to each fixed opponent of `[eval]` (random, greedy, the
/// anchors). A chart is a convenience: a failure is reported and the run
/// goes on.
pub(super) fn write_learning_curve<E: Encode>(dir: &RunDir) {
    let Ok(records) = read_metrics(&dir.metrics()) else {
        return;
    };
    if let Err(e) = draw_learning_curve::<E>(&records, &dir.learning_curve()) {
        eprintln!("warning: {e}");
    }
}

/// Draw the learning curve of the metrics `records` into the PNG file
/// `out`. `Ok(false)` when there is nothing to draw yet (no evaluation),
/// leaving `out` as it was.
///
/// # Errors
/// The chart cannot be drawn or written (the error names `out`).
pub(crate) fn draw_learning_curve<E: Encode>(
    records: &[GenerationMetrics],
    out: &std::path::Path,
) -> Result<bool, arena::chart::ChartError> {
    let point = |r: &GenerationMetrics, (elo, lower, upper): (Option<f64>, f64, f64)| {
        Some(CurvePoint {
            generation: r.generation,
            cpu_hours: r.cpu_seconds_total? / 3600.0,
            elo: elo?,
            lower,
            upper,
        })
    };
    let origin = CurvePoint {
        generation: 0,
        cpu_hours: 0.0,
        elo: 0.0,
        lower: 0.0,
        upper: 0.0,
    };
    let chained = std::iter::once(Some(origin)).chain(records.iter().map(|r| {
        let ends = (
            r.elo_lower.unwrap_or(f64::NAN),
            r.elo_upper.unwrap_or(f64::NAN),
        );
        point(r, (r.elo, ends.0, ends.1))
    }));
    let mut series = vec![CurveSeries {
        name: "generation 0 (chained)".into(),
        points: chained.flatten().collect(),
    }];
    for name in opponents(records) {
        let points = records.iter().filter_map(|r| {
            let m = anchor_results(r).into_iter().find(|m| m.opponent == name)?;
            point(r, (m.elo, m.lower, m.upper))
        });
        series.push(CurveSeries {
            name: name.clone(),
            points: points.collect(),
        });
    }
    // No chain (no match against the previous generation: `games_vs_previous
    // = 0`) leaves the origin alone; no evaluation yet (`[eval] every` past
    // the run's generations) leaves nothing to draw.
    if series[0].points.len() == 1 {
        series.remove(0);
    }
    if series.iter().all(|s| s.points.is_empty()) {
        return Ok(false);
    }
    let title = format!("{}: Elo vs CPU-hours", E::VARIANT);
    arena::chart::draw_learning_curve(out, &title, &series, 800, 480).map(|()| true)
}

/// One match against a fixed opponent, as a metrics record holds it.
struct AnchorResult {
    opponent: String,
    /// Elo difference and its 95 % interval (`None`/NaN where the JSON
    /// has null: an infinite value of a clean sweep).
    elo: Option<f64>,
    lower: f64,
    upper: f64,
}

/// The matches against fixed opponents in record `r`'s evaluation.
fn anchor_results(r: &GenerationMetrics) -> Vec<AnchorResult> {
    let Some(list) = r
        .eval
        .as_ref()
        .and_then(|e| e.get("baselines"))
        .and_then(|b| b.as_array())
    else {
        return Vec::new();
    };
    let num = |m: &serde_json::Value, k: &str| m.get(k).and_then(|v| v.as_f64());
    list.iter()
        .filter_map(|m| {
            Some(AnchorResult {
                opponent: m.get("opponent")?.as_str()?.to_string(),
                elo: num(m, "elo"),
                lower: num(m, "elo_lower").unwrap_or(f64::NAN),
                upper: num(m, "elo_upper").unwrap_or(f64::NAN),
            })
        })
        .collect()
}

/// The fixed opponents (baselines and anchors) named in the records'
/// evaluations, in order of first appearance.
fn opponents(records: &[GenerationMetrics]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for m in records.iter().flat_map(anchor_results) {
        if !names.contains(&m.opponent) {
            names.push(m.opponent);
        }
    }
    names
}

/// The resignation figures of a generation: the threshold used, how many
/// games resigned and were played out, the false-positive rate measured on
/// the played-out games at that threshold, and the threshold calibrated for
/// the next generation ([`selfplay::resign`]).
pub(crate) fn resign_metrics(
    sp: &SelfPlayConfig,
    threshold: f32,
    stats: &selfplay::SelfPlayStats,
) -> ResignMetrics {
    let samples = &stats.resign_samples;
    let fp = false_positive_rate(samples, threshold);
    let next = calibrate_threshold(
        samples,
        sp.resign_fp_target as f64,
        threshold,
        sp.resign_threshold_max,
    );
    // f32 thresholds printed as f64 would show float noise (-0.2 as
    // -0.20000000298023224).
    let round = |x: f32| (x as f64 * 1e6).round() / 1e6;
    ResignMetrics {
        resign_threshold: round(threshold),
        resigned_games: stats.resigned,
        resign_played_out_games: stats.played_out,
        resign_false_positive_rate: fp.map(|(r, _)| r),
        resign_would_have_resigned: fp.map_or(0, |(_, n)| n),
        resign_threshold_next: round(next),
    }
}

/// The resignation threshold for the next self-play: the one calibrated by
/// the last generation that had resignation on (the metrics log keeps it
/// across generations without), capped by `resign_threshold_max`.
pub(super) fn resign_threshold(dir: &RunDir, sp: &SelfPlayConfig) -> f32 {
    let logged = read_metrics(&dir.metrics()).ok().and_then(|lines| {
        lines
            .iter()
            .rev()
            .find_map(|l| l.resign.as_ref().map(|r| r.resign_threshold_next))
    });
    logged
        .map_or(sp.resign_threshold, |v| v as f32)
        .min(sp.resign_threshold_max)
}

/// Mean entropy (nats) of the recorded policy targets of `games`; `None`
/// without recorded positions.
pub(crate) fn mean_target_entropy(games: &[GameRecord]) -> Option<f64> {
    let entropies: Vec<f64> = games
        .iter()
        .flat_map(|r| r.targets.iter().flatten())
        .map(|t| {
            -t.policy
                .iter()
                .filter(|&&p| p > 0.0)
                .map(|&p| p as f64 * (p as f64).ln())
                .sum::<f64>()
        })
        .collect();
    (!entropies.is_empty()).then(|| entropies.iter().sum::<f64>() / entropies.len() as f64)
}

/// Share of `games` for which `pred` holds (0 without games).
pub(crate) fn rate(games: &[GameRecord], pred: impl Fn(&GameRecord) -> bool) -> f64 {
    games.iter().filter(|r| pred(r)).count() as f64 / games.len().max(1) as f64
}
