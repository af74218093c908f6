//! `--plot`: MB/s against message size as SVG, one file per algorithm.

use super::super::algos::{Algorithm, RowNames};
use super::super::options::size_text;
use super::{display_name, Run};
use std::path::{Path, PathBuf};

/// The SVG file for one algorithm: `FILE` itself, or `FILE-<algo>.svg`
/// when several algorithms were measured.
fn plot_path(path: &Path, algo: &str, several: bool) -> PathBuf {
    if !several {
        return path.to_path_buf();
    }
    let stem = path
        .file_stem()
        .map_or("speed".into(), |s| s.to_string_lossy().into_owned());
    let ext = path
        .extension()
        .map_or("svg".into(), |e| e.to_string_lossy().into_owned());
    path.with_file_name(format!("{stem}-{algo}.{ext}"))
}

/// Draws MB/s against size for each algorithm (log x axis, one line per
/// implementation). Returns the files written.
/// Fails unless the plot files can be created where `path` says: its
/// directory exists and is a directory, and `path` is not one.
pub fn check_destination(path: &Path) -> Result<(), String> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(format!(
                "--plot {}: {} is not a directory",
                path.display(),
                dir.display()
            ))
        }
        Err(e) => {
            return Err(format!(
                "--plot {}: {}: {}",
                path.display(),
                dir.display(),
                crate::stdio::os_message(&e)
            ))
        }
    }
    if path.is_dir() {
        return Err(format!("--plot {}: is a directory", path.display()));
    }
    Ok(())
}

/// Why `--plot` draws no plot for `algo`, if it does not: a size that
/// picks a message set is no point on a message-size axis.
pub fn unplottable(algo: &Algorithm) -> Option<&'static str> {
    match algo.rows {
        RowNames::Custom(_) => Some("its sizes pick message sets, not message lengths"),
        _ => None,
    }
}

pub fn draw(run: &Run, path: &Path) -> Result<Vec<(PathBuf, &'static str)>, String> {
    use plotters::prelude::*;
    let several = run.algos.len() > 1;
    let mut written = Vec::new();
    for (ai, algo) in run.algos.iter().enumerate() {
        let file = plot_path(path, algo.name, several);
        let err = |e: &dyn std::fmt::Display| format!("{}: cannot draw plot: {e}", file.display());
        if unplottable(algo).is_some() {
            continue;
        }
        // One series per runnable implementation; size 0 has no place on a
        // log axis and no throughput.
        let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for c in run.cells.iter().filter(|c| c.algo == ai && c.size > 0) {
            let Some(mb) = c.stats().and_then(|s| s.mb_s(c.bytes)) else {
                continue;
            };
            let name = display_name(run, c);
            match series.iter_mut().find(|(n, _)| *n == name) {
                Some((_, pts)) => pts.push((c.size as f64, mb)),
                None => series.push((name, vec![(c.size as f64, mb)])),
            }
        }
        if series.is_empty() {
            continue;
        }
        let xs = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.0));
        let (xmin, xmax) = xs.fold((f64::INFINITY, 0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
        let (xmin, xmax) = if xmin == xmax {
            (xmin / 2.0, xmax * 2.0)
        } else {
            (xmin, xmax)
        };
        let ymax = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|q| q.1))
            .fold(0f64, f64::max)
            * 1.1;
        {
            let root = SVGBackend::new(&file, (1000, 620)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| err(&e))?;
            let caption = format!(
                "{}: throughput against message size ({}, {})",
                algo.name, run.header.cpu, run.header.date
            );
            let mut chart = ChartBuilder::on(&root)
                .caption(caption, ("sans-serif", 18))
                .margin(20)
                .x_label_area_size(50)
                .y_label_area_size(70)
                .build_cartesian_2d(
                    (xmin * 0.9..xmax * 1.1).log_scale().base(2.0),
                    0f64..ymax.max(1.0),
                )
                .map_err(|e| err(&e))?;
            chart
                .configure_mesh()
                // Powers of two only: 16, 32, ..., 1K, ..., 16K.
                .x_labels(16)
                .x_desc("message size (bytes, log scale)")
                .y_desc("MB/s (10^6 bytes/s)")
                .x_label_formatter(&|x| size_text(x.round() as usize))
                .y_label_formatter(&|y| format!("{y:.0}"))
                .draw()
                .map_err(|e| err(&e))?;
            for (i, (name, pts)) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                    .map_err(|e| err(&e))?
                    .label(name.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
                    .map_err(|e| err(&e))?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|e| err(&e))?;
            root.present().map_err(|e| err(&e))?;
        }
        written.push((file, algo.name));
    }
    Ok(written)
}
