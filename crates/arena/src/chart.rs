//! PNG chart of ladder ratings: Elo per player with 95 % error bars,
//! drawn with `plotters` (bitmap backend) and an embedded font (a subset
//! of DejaVu Sans, `assets/DejaVuSans-ascii.ttf`), so it renders on a
//! headless machine without system fonts.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

/// Printable-ASCII subset of DejaVu Sans (licence in `assets/`).
static FONT: &[u8] = include_bytes!("../assets/DejaVuSans-ascii.ttf");

/// A chart that could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// The embedded font was rejected.
    #[error("embedded chart font is invalid")]
    Font,
    /// plotters failed (drawing or encoding the PNG).
    #[error("drawing chart {path}: {message}")]
    Draw {
        /// Output file.
        path: String,
        /// plotters' message.
        message: String,
    },
    /// Writing the file failed.
    #[error("writing chart {path}: {source}")]
    Io {
        /// Output file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// One bar of the chart.
#[derive(Clone, Debug)]
pub struct ChartEntry {
    /// Player name (non-ASCII characters are drawn as `?`).
    pub name: String,
    /// Elo.
    pub elo: f64,
    /// Lower end of the 95 % interval.
    pub lower: f64,
    /// Upper end of the 95 % interval.
    pub upper: f64,
}

/// Non-ASCII characters (absent from the embedded font) as `?`.
fn ascii(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii() && !c.is_ascii_control() {
                c
            } else {
                '?'
            }
        })
        .collect()
}

/// `[lo, hi]` covering the finite `values` and 0, padded by 10 % (at least `min_pad`).
fn padded_range(values: impl Iterator<Item = f64>, min_pad: f64) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let pad = ((hi - lo) * 0.1).max(min_pad);
    (lo - pad, hi + pad)
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

/// A plotters drawing error, as its message (plotters' error type is
/// generic over the backend).
struct DrawFailure(String);

impl<E: std::fmt::Display> From<E> for DrawFailure {
    fn from(e: E) -> Self {
        DrawFailure(e.to_string())
    }
}

/// Render a `width`×`height` PNG with `draw` onto a temporary file next to
/// `path`, then rename it into place (atomic: a reader never sees half a
/// chart, and a failure leaves any older chart untouched).
fn render_png(
    path: &Path,
    width: u32,
    height: u32,
    draw: impl FnOnce(&Area<'_>) -> Result<(), DrawFailure>,
) -> Result<(), ChartError> {
    register_font("sans-serif", FontStyle::Normal, FONT).map_err(|_| ChartError::Font)?;
    let file = path
        .file_name()
        .map_or_else(|| "chart".into(), |f| f.to_string_lossy().to_string());
    // `.tmp-` prefix: the run directory's start-up clean-up
    // (`fsio::remove_stale_temps`) removes it after a kill; the
    // `.png` suffix tells plotters the format.
    let tmp = path.with_file_name(format!(".tmp-{}-{file}.png", std::process::id()));
    let drawn = {
        let root = BitMapBackend::new(&tmp, (width, height)).into_drawing_area();
        root.fill(&WHITE)
            .map_err(DrawFailure::from)
            .and_then(|_| draw(&root))
            .and_then(|_| root.present().map_err(DrawFailure::from))
    };
    if let Err(DrawFailure(message)) = drawn {
        let _ = std::fs::remove_file(&tmp);
        return Err(ChartError::Draw {
            path: path.display().to_string(),
            message,
        });
    }
    std::fs::rename(&tmp, path).map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        ChartError::Io {
            path: path.display().to_string(),
            source,
        }
    })
}

const BLUE: RGBColor = RGBColor(31, 119, 180);

/// Draw `entries` (in the given order, left to right) as a `width`×`height`
/// PNG at `path`, written atomically. Non-finite values are left out.
///
/// # Errors
/// [`ChartError`].
pub fn draw_ratings(
    path: &Path,
    title: &str,
    entries: &[ChartEntry],
    width: u32,
    height: u32,
) -> Result<(), ChartError> {
    let (lo, hi) = padded_range(entries.iter().flat_map(|e| [e.elo, e.lower, e.upper]), 25.0);
    let n = entries.len().max(1);
    let names: Vec<String> = entries.iter().map(|e| ascii(&e.name)).collect();
    render_png(path, width, height, |root| {
        let e2s = |e: DrawingAreaErrorKind<_>| e.to_string();
        let mut chart = ChartBuilder::on(root)
            .caption(ascii(title), ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(60)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), lo..hi)
            .map_err(e2s)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n + 1)
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    names.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc("Elo (95% interval)")
            .label_style(("sans-serif", 14))
            .draw()
            .map_err(e2s)?;
        let finite = || {
            entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.elo.is_finite())
        };
        chart
            .draw_series(
                finite()
                    .filter(|(_, e)| e.lower.is_finite() && e.upper.is_finite())
                    .map(|(i, e)| {
                        ErrorBar::new_vertical(
                            i as f64,
                            e.lower,
                            e.elo,
                            e.upper,
                            BLUE.stroke_width(2),
                            12,
                        )
                    }),
            )
            .map_err(e2s)?;
        chart
            .draw_series(finite().map(|(i, e)| Circle::new((i as f64, e.elo), 5, BLUE.filled())))
            .map_err(e2s)?;
        chart
            .draw_series(finite().map(|(i, e)| {
                Text::new(
                    format!("{:+.0}", e.elo),
                    (i as f64 + 0.08, e.elo),
                    ("sans-serif", 14).into_font(),
                )
            }))
            .map_err(e2s)?;
        Ok(())
    })
}

/// One point of a learning curve.
#[derive(Clone, Debug)]
pub struct CurvePoint {
    /// Generation number (labels the point).
    pub generation: u32,
    /// CPU time spent by the run up to this generation, hours.
    pub cpu_hours: f64,
    /// Elo relative to the series' reference.
    pub elo: f64,
    /// Lower end of the 95 % interval.
    pub lower: f64,
    /// Upper end of the 95 % interval.
    pub upper: f64,
}

/// One line of a learning curve: the Elo of the run's generations
/// against one reference (generation 0 through the chained matches, or a
/// fixed anchor such as `uct:256`).
#[derive(Clone, Debug)]
pub struct CurveSeries {
    /// Legend text (the reference).
    pub name: String,
    /// The points, in generation order.
    pub points: Vec<CurvePoint>,
}

/// Line colours of the series, in order (matplotlib's first six).
const PALETTE: [RGBColor; 6] = [
    BLUE,
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// At most this many points of a learning-curve series carry an interval
/// and a generation label.
const MAX_LABELLED_POINTS: usize = 15;

/// Widest 95 % interval (Elo) a learning curve's frame is sized to hold;
/// the ends of wider ones are clipped to the frame.
const MAX_FRAMED_INTERVAL: f64 = 600.0;

/// Draw learning curves (Elo vs CPU-hours, one line per series with 95 %
/// error bars and generation labels, a legend) as a PNG at `path`, written
/// atomically. Points with a non-finite Elo or CPU time are left out; so is
/// a series with no point left.
///
/// # Errors
/// [`ChartError`].
pub fn draw_learning_curve(
    path: &Path,
    title: &str,
    series: &[CurveSeries],
    width: u32,
    height: u32,
) -> Result<(), ChartError> {
    let finite = |s: &CurveSeries| -> Vec<CurvePoint> {
        s.points
            .iter()
            .filter(|p| p.elo.is_finite() && p.cpu_hours.is_finite())
            .cloned()
            .collect()
    };
    let lines: Vec<(String, Vec<CurvePoint>)> = series
        .iter()
        .map(|s| (s.name.clone(), finite(s)))
        .filter(|(_, p)| !p.is_empty())
        .collect();
    let all = || lines.iter().flat_map(|(_, p)| p.iter());
    // The range holds the points and every interval up to
    // `MAX_FRAMED_INTERVAL` wide (40-game matches: about +-100 Elo); the
    // wider ones of ten-game matches (+-500 Elo and more) would flatten
    // the curve, so their ends outside the frame are clipped to it.
    let framed = |p: &CurvePoint| p.upper - p.lower <= MAX_FRAMED_INTERVAL;
    let (lo, hi) = padded_range(
        all().flat_map(|p| {
            let ends = framed(p).then_some([p.lower, p.upper]);
            std::iter::once(p.elo).chain(ends.into_iter().flatten())
        }),
        100.0,
    );
    // Long runs: intervals and generation labels on every `stride`-th
    // point only, so a hundred generations stay readable.
    let most = lines.iter().map(|(_, p)| p.len()).max().unwrap_or(0);
    let stride = most.div_ceil(MAX_LABELLED_POINTS).max(1);
    let x_max = all().map(|p| p.cpu_hours).fold(0.0f64, f64::max).max(1e-3) * 1.08;
    // From 0 unless every point is far from it (a run carried on from a
    // trained bundle): then from just before the first point.
    let x_first = all().map(|p| p.cpu_hours).fold(f64::INFINITY, f64::min);
    let x_min = if x_first > 0.5 * x_max {
        x_first - 0.1 * (x_max - x_first)
    } else {
        0.0
    };
    render_png(path, width, height, |root| {
        let e2s = |e: DrawingAreaErrorKind<_>| e.to_string();
        let mut chart = ChartBuilder::on(root)
            .caption(ascii(title), ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d(x_min..x_max, lo..hi)
            .map_err(e2s)?;
        chart
            .configure_mesh()
            .x_desc("CPU-hours")
            .y_desc("Elo difference (95% interval)")
            .label_style(("sans-serif", 14))
            .draw()
            .map_err(e2s)?;
        for (i, (name, pts)) in lines.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|p| (p.cpu_hours, p.elo)),
                    colour,
                ))
                .map_err(e2s)?
                .label(ascii(&format!("vs {name}")))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
            let shown = || {
                pts.iter()
                    .enumerate()
                    .filter(|(k, _)| (k + 1) % stride == 0 || *k == 0)
            };
            chart
                .draw_series(
                    shown()
                        .map(|(_, p)| p)
                        .filter(|p| p.lower.is_finite() && p.upper.is_finite())
                        .map(|p| {
                            let (l, u) = (p.lower.clamp(lo, hi), p.upper.clamp(lo, hi));
                            ErrorBar::new_vertical(p.cpu_hours, l, p.elo, u, colour, 8)
                        }),
                )
                .map_err(e2s)?;
            chart
                .draw_series(shown().map(|(_, p)| {
                    Text::new(
                        format!("g{}", p.generation),
                        (p.cpu_hours, p.elo),
                        ("sans-serif", 12).into_font(),
                    )
                }))
                .map_err(e2s)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(e2s)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_a_png() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ladder.png");
        let entries = vec![
            ChartEntry {
                name: "random".into(),
                elo: 0.0,
                lower: 0.0,
                upper: 0.0,
            },
            ChartEntry {
                name: "greedy".into(),
                elo: 150.0,
                lower: 90.0,
                upper: 210.0,
            },
            ChartEntry {
                name: "uct:100".into(),
                elo: 320.0,
                lower: 250.0,
                upper: 390.0,
            },
        ];
        draw_ratings(&path, "test ladder", &entries, 640, 400).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert!(bytes.len() > 2000);
        // Only the PNG is left in the folder (no temporary file).
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn draws_a_learning_curve() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("curve.png");
        let point = |generation, cpu_hours, elo: f64| CurvePoint {
            generation,
            cpu_hours,
            elo,
            lower: elo - 40.0,
            upper: elo + 40.0,
        };
        let points = vec![
            point(0, 0.0, 0.0),
            point(1, 0.1, 80.0),
            point(2, 0.2, f64::INFINITY),
            point(3, 0.3, 150.0),
        ];
        let anchor = CurveSeries {
            name: "uct:64".into(),
            points: points
                .iter()
                .map(|p| point(p.generation, p.cpu_hours, -p.elo))
                .collect(),
        };
        let series = [
            CurveSeries {
                name: "generation 0".into(),
                points,
            },
            anchor,
        ];
        draw_learning_curve(&path, "shakti", &series, 640, 400).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
