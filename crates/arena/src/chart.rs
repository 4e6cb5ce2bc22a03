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
    register_font("sans-serif", FontStyle::Normal, FONT).map_err(|_| ChartError::Font)?;
    let draw_err = |e: String| ChartError::Draw {
        path: path.display().to_string(),
        message: e,
    };
    let ascii = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii() && !c.is_ascii_control() {
                    c
                } else {
                    '?'
                }
            })
            .collect()
    };
    let finite: Vec<f64> = entries
        .iter()
        .flat_map(|e| [e.elo, e.lower, e.upper])
        .filter(|v| v.is_finite())
        .collect();
    let (mut lo, mut hi) = finite
        .iter()
        .fold((0.0f64, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
    let pad = ((hi - lo) * 0.1).max(25.0);
    lo -= pad;
    hi += pad;
    let n = entries.len().max(1);
    // Drawn to a temporary .png next to the target, then renamed (atomic).
    let file = path
        .file_name()
        .map_or_else(|| "chart".into(), |f| f.to_string_lossy().to_string());
    let tmp = path.with_file_name(format!(".{file}.{}.tmp.png", std::process::id()));
    {
        let root = BitMapBackend::new(&tmp, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| draw_err(e.to_string()))?;
        let names: Vec<String> = entries.iter().map(|e| ascii(&e.name)).collect();
        let mut chart = ChartBuilder::on(&root)
            .caption(ascii(title), ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(60)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), lo..hi)
            .map_err(|e| draw_err(e.to_string()))?;
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
            .map_err(|e| draw_err(e.to_string()))?;
        let blue = RGBColor(31, 119, 180);
        chart
            .draw_series(
                entries
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| {
                        e.elo.is_finite() && e.lower.is_finite() && e.upper.is_finite()
                    })
                    .map(|(i, e)| {
                        ErrorBar::new_vertical(
                            i as f64,
                            e.lower,
                            e.elo,
                            e.upper,
                            blue.stroke_width(2),
                            12,
                        )
                    }),
            )
            .map_err(|e| draw_err(e.to_string()))?;
        chart
            .draw_series(
                entries
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.elo.is_finite())
                    .map(|(i, e)| Circle::new((i as f64, e.elo), 5, blue.filled())),
            )
            .map_err(|e| draw_err(e.to_string()))?;
        chart
            .draw_series(
                entries
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.elo.is_finite())
                    .map(|(i, e)| {
                        Text::new(
                            format!("{:+.0}", e.elo),
                            (i as f64 + 0.08, e.elo),
                            ("sans-serif", 14).into_font(),
                        )
                    }),
            )
            .map_err(|e| draw_err(e.to_string()))?;
        root.present().map_err(|e| draw_err(e.to_string()))?;
    }
    std::fs::rename(&tmp, path).map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        ChartError::Io {
            path: path.display().to_string(),
            source,
        }
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
}
