//! What `meshcollide bench` writes: a Markdown report (header with command, date and
//! machine, then one table) and an SVG plot drawn with plotters' SVG backend and its naive
//! font metrics (no system fonts needed: text is written as SVG `<text>`).

use super::Failure;
use plotters::prelude::*;
use std::path::Path;

/// One Markdown table: a header row and rows of cells.
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    pub fn markdown(&self) -> String {
        let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
        let mut s = line(&self.header);
        s += &line(
            &self
                .header
                .iter()
                .map(|_| "---".to_string())
                .collect::<Vec<_>>(),
        );
        for r in &self.rows {
            s += &line(r);
        }
        s
    }
}

/// Writes `DIR/<name>.md`: title, command, date, machine, notes, then the table; the
/// machine line says queries were timed one at a time on one thread, as the papers'
/// experiments time them.
pub fn write_report(
    dir: &Path,
    name: &str,
    title: &str,
    notes: &[String],
    table: &Table,
) -> Result<(), Failure> {
    let timing = "queries timed one at a time on one thread";
    write_report_timed(dir, name, title, notes, table, timing)
}

/// [`write_report`] for an experiment that times otherwise: `timing` ends the machine line.
pub fn write_report_timed(
    dir: &Path,
    name: &str,
    title: &str,
    notes: &[String],
    table: &Table,
    timing: &str,
) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Input(format!("{}: cannot create: {e}", dir.display())))?;
    let cmd: Vec<String> = std::env::args()
        .enumerate()
        .map(|(i, a)| if i == 0 { "meshcollide".into() } else { a })
        .collect();
    let mut s = format!("# {title}\n\n");
    s += &format!("- command: `{}`\n", cmd.join(" "));
    s += &format!("- date: {}\n", utc_now());
    s += &format!("- machine: {}; {timing}\n", machine());
    for n in notes {
        s += &format!("- {n}\n");
    }
    s += "\n";
    s += &table.markdown();
    super::write_text(Some(&dir.join(format!("{name}.md"))), &s)
}

/// The date and time now in UTC (`YYYY-MM-DD HH:MM UTC`), without a date crate.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// CPU model and core count (Linux `/proc/cpuinfo`; "unknown CPU" elsewhere).
fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} cores")
}

/// A line of a plot.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// One chart of a plot.
pub struct Panel {
    pub title: String,
    pub x: String,
    pub y: String,
    pub series: Vec<Series>,
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn pe(e: impl std::fmt::Display) -> Failure {
    Failure::Internal(format!("plot: {e}"))
}

/// Writes `DIR/<name>.svg` with the panels side by side; non-finite points are left out.
pub fn write_plot(dir: &Path, name: &str, panels: &[Panel]) -> Result<(), Failure> {
    let path = dir.join(format!("{name}.svg"));
    let root = SVGBackend::new(&path, (560 * panels.len().max(1) as u32, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(pe)?;
    let areas = root.split_evenly((1, panels.len().max(1)));
    for (area, p) in areas.iter().zip(panels) {
        let pts = || {
            p.series
                .iter()
                .flat_map(|s| s.points.iter())
                .filter(|(x, y)| x.is_finite() && y.is_finite())
        };
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in pts() {
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        if x0 > x1 {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        let pad = |lo: f64, hi: f64| {
            let m = if hi > lo { 0.05 * (hi - lo) } else { 0.5 };
            (lo - m, hi + m)
        };
        let ((x0, x1), (y0, y1)) = (pad(x0, x1), pad(y0, y1));
        let mut chart = ChartBuilder::on(area)
            .caption(&p.title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(pe)?;
        chart
            .configure_mesh()
            .x_desc(p.x.as_str())
            .y_desc(p.y.as_str())
            .draw()
            .map_err(pe)?;
        for (i, s) in p.series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect();
            if pts.len() <= 50 {
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(pe)?;
            }
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(pe)?
                .label(s.name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(pe)?;
    }
    root.present().map_err(pe)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_date_is_plausible() {
        let s = super::utc_now();
        assert!(s.starts_with("20") && s.ends_with("UTC"), "{s}");
    }
}
