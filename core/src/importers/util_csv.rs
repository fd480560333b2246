//! `util-csv`: a mutator-utilisation step function, `time_ns,util` (or `utilization`), one row per step: the
//! value holds from the row's time to the next row's; the last row only ends the trace. An optional `series`
//! column holds several step functions (per processor or per mutator), each ascending in time; the MMU is then
//! the minimum over them. Values must lie in [0, 1]. The rows are parsed on every core (as a pause CSV's), and the
//! steps kept as [`Steps`]: in memory, or for a sink that measures ([`PauseSink::STEPS_ON_DISK`]) in temporary
//! files beyond a few thousand a series (issue 21 item 4).
//!
//! [`PauseSink::STEPS_ON_DISK`]: super::PauseSink::STEPS_ON_DISK

use std::io::Read;

use super::csv_split;
use super::names::{NameIndex, Texts};
use super::pauses_csv::{Header, cell_ns};
use super::{ImportError, ImportErrorKind, UtilizationSeries};
#[cfg(doc)]
use crate::metrics::mmu::SPILL_STEPS;
use crate::metrics::mmu::{Steps, StepsBuilder};

/// Steps all series may hold in memory together (16 bytes each) before the one growing goes to disk, once it holds
/// [`MIN_SPILL`]: without it, a file of many series each under [`SPILL_STEPS`] would be held whole.
const HELD_STEPS: usize = 1 << 22;
/// Steps a series holds before the budget ([`HELD_STEPS`]) can send it to disk (two temporary files each).
const MIN_SPILL: usize = 1 << 12;

const EXPECTED: &str = "time_ns,util (optional series)";

/// Parses a utilisation CSV (`text` of the file called `file`), in memory.
pub fn parse(file: &str, text: &str) -> Result<UtilizationSeries, ImportError> {
    parse_read(file, text.as_bytes())
}

/// [`parse`] streamed from `src`, its rows parsed on every core: memory holds a few segments of rows and the steps.
pub fn parse_read(file: &str, src: impl Read + Send) -> Result<UtilizationSeries, ImportError> {
    parse_split(file, src, csv_split::SIZES, usize::MAX)?.ok_or_else(|| no_rows(file))
}

/// [`parse_read`] cut into segments of `segment_bytes` and chunks of `chunk_bytes` (at least 1 each), a series'
/// steps going to disk from `spill_at` of them: what a small input goes through when it is a large one's piece.
/// The result, error included, must be [`parse_read`]'s; the `gc_csv` fuzz target and the tests check that it is.
pub fn parse_read_cut(
    file: &str,
    src: impl Read + Send,
    segment_bytes: usize,
    chunk_bytes: usize,
    spill_at: usize,
) -> Result<UtilizationSeries, ImportError> {
    let sizes = csv_split::Sizes {
        segment_bytes,
        chunk_bytes,
        ..csv_split::SIZES
    };
    parse_split(file, src, sizes, spill_at)?.ok_or_else(|| no_rows(file))
}

/// A file without a row: no header, so its first column is missing.
fn no_rows(file: &str) -> ImportError {
    match columns(file, &Header::none()) {
        Err(e) => e,
        Ok(_) => ImportError::new(
            file,
            1,
            ImportErrorKind::Empty("utilisation CSV rows".into()),
        ),
    }
}

/// The columns of a utilisation CSV, from its header.
struct Cols {
    time: usize,
    util: usize,
    series: Option<usize>,
    header_line: usize,
}

/// The header's columns, or the error for the first required one missing.
fn columns(file: &str, header: &Header) -> Result<Cols, ImportError> {
    Ok(Cols {
        time: header.require(file, &["time_ns"], EXPECTED)?,
        util: header.require(file, &["util", "utilization"], EXPECTED)?,
        series: header.find(&["series"]),
        header_line: header.line,
    })
}

/// One row: its step, its series (an index into the texts of the rows parsed with it) and its line.
struct Row {
    time_ns: u64,
    util: f64,
    series: usize,
    line: usize,
}

/// [`parse`] over the rows of `src`, the header first, parsed on every core ([`csv_split::rows_on_cores`]; the
/// fields read are trimmed); a series' steps go to temporary files from `spill_at` of them ([`SPILL_STEPS`] for a
/// measurement; `usize::MAX`: never), or from [`MIN_SPILL`] once all series hold [`HELD_STEPS`] in memory.
/// `Ok(None)`: the input has no row.
pub(crate) fn parse_split(
    file: &str,
    src: impl Read + Send,
    sizes: csv_split::Sizes,
    spill_at: usize,
) -> Result<Option<UtilizationSeries>, ImportError> {
    let budget = if spill_at == usize::MAX {
        usize::MAX
    } else {
        HELD_STEPS
    };
    let temp = |line: usize| {
        move |e: std::io::Error| {
            ImportError::new(
                file,
                line,
                ImportErrorKind::Io(format!("temporary file: {e}")),
            )
        }
    };
    let row = |c: &Cols, line: usize, row: &csv::StringRecord, texts: &mut Texts| {
        let time_ns = cell_ns(file, line, row, c.time, "time_ns")?;
        let text = row.get(c.util).unwrap_or("").trim();
        let util = text
            .parse::<f64>()
            .ok()
            .filter(|u| (0.0..=1.0).contains(u))
            .ok_or_else(|| {
                ImportError::bad_value(file, line, "util", text, "a utilisation between 0 and 1")
            })?;
        let name = c.series.and_then(|k| row.get(k)).unwrap_or("").trim();
        Ok(Row {
            time_ns,
            util,
            series: texts.id(name),
            line,
        })
    };
    let mut out = UtilizationSeries::default();
    // Each series' steps and its last time. `[ns]`
    let mut steps: Vec<(StepsBuilder, u64)> = Vec::new();
    let mut names = NameIndex::default();
    // Steps held in memory over all series.
    let mut held = 0usize;
    let apply = |_: &Cols, rows: Vec<Row>, texts: &[String]| {
        // The chunk's series numbered as the rows name them, in file order.
        let mut ids = vec![usize::MAX; texts.len()];
        for r in rows {
            if ids[r.series] == usize::MAX {
                ids[r.series] = names.mutator(&mut out.names, &texts[r.series], file, || r.line)?;
            }
            let k = ids[r.series];
            if k == steps.len() {
                steps.push((StepsBuilder::new(spill_at).map_err(temp(r.line))?, 0));
            }
            let (s, last) = &mut steps[k];
            if !s.is_empty() && r.time_ns < *last {
                return Err(ImportError::new(
                    file,
                    r.line,
                    ImportErrorKind::TimeGoesBack {
                        time_ns: r.time_ns,
                        previous_ns: *last,
                    },
                ));
            }
            *last = r.time_ns;
            let before = s.in_memory();
            s.push(r.time_ns, r.util).map_err(temp(r.line))?;
            held = held - before + s.in_memory();
            if held > budget && s.in_memory() >= MIN_SPILL {
                held -= s.in_memory();
                s.move_to_disk().map_err(temp(r.line))?;
            }
        }
        Ok(())
    };
    let header = |rows: &mut csv_split::ChunkRows<'_>| {
        columns(file, &Header::read(rows)?.unwrap_or_else(Header::none))
    };
    let Some(cols) = csv_split::rows_on_cores(file, src, sizes, header, row, apply)? else {
        return Ok(None);
    };
    out.series = steps.into_iter().map(|(s, _)| s.finish()).collect();
    if let Some(e) = out.series.iter().find_map(Steps::error) {
        return Err(ImportError::new(
            file,
            cols.header_line,
            ImportErrorKind::Io(e.to_string()),
        ));
    }
    if !out.series.iter().any(|s| s.span().1 > s.span().0) {
        return Err(ImportError::new(
            file,
            cols.header_line,
            ImportErrorKind::NothingUsable(
                "no step function with two rows at different times (expected time_ns,util rows; the last row ends \
                 the trace)"
                    .into(),
            ),
        ));
    }
    for (name, s) in out.names.iter().zip(&out.series) {
        if s.span().1 <= s.span().0 {
            out.warnings.note(format!(
                "series `{name}` has no duration (fewer than two times) and is left out"
            ));
        }
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_series() {
        let u = parse(
            "u.csv",
            "time_ns,util,series\n0,1,a\n10,0.5,a\n0,0,b\n20,1,a\n30,0,b\n",
        )
        .unwrap();
        assert_eq!(u.names, vec!["a", "b"], "series");
        assert_eq!(u.series[0].to_series().times, vec![0, 10, 20], "a");
        assert_eq!(u.series[1].to_series().util, vec![0.0, 0.0], "b");
        let e = parse("u.csv", "time_ns,utilization\n0,1\n5,1.5\n").unwrap_err();
        assert!(e.to_string().starts_with("u.csv:3: `1.5` in `util`"), "{e}");
        let e = parse("u.csv", "time_ns,util\n10,1\n5,1\n").unwrap_err();
        assert!(
            e.to_string().starts_with("u.csv:3: time_ns 5 is before"),
            "{e}"
        );
    }

    /// A utilisation CSV of three series (one quoted with a comma, one a quoted line feed), CRLF and blank lines,
    /// padded fields; `bad`: the row where a mistake is put (its kind chosen by `bad % 3`).
    fn series_file(rows: usize, bad: Option<usize>) -> String {
        let mut out = String::from("\u{feff}series,time_ns,util\r\n");
        let names = ["cpu0", "\"gc, stw\"", "\"two\nlines\""];
        for k in 0..rows {
            let (name, t, u) = (names[k % 3], 100 * k as u64, (k * 7 % 11) as f64 / 10.0);
            let row = match bad {
                Some(b) if b == k && b % 3 == 0 => format!("{name},{t},1.5"),
                Some(b) if b == k && b % 3 == 1 => format!("{name},1,0.5"),
                Some(b) if b == k => format!("{name},x,0.5"),
                _ => format!("{name}, {t} , {u}"),
            };
            out.push_str(&row);
            out.push_str(["\n", "\r\n", "\n\n"][k % 3]);
        }
        out
    }

    /// Cut into segments and chunks of a few bytes, read on every core, the steps moved to temporary files from a
    /// few: the series, their steps, warnings and first error are those of the file read whole in memory.
    #[test]
    fn a_file_cut_on_the_cores_with_its_steps_on_disk_reads_as_the_whole_file_in_memory() {
        let mut files: Vec<String> = vec![series_file(400, None), series_file(2, None)];
        files.extend([5, 250, 397, 398, 399].map(|b| series_file(400, Some(b))));
        files.push("time_ns,util\n5,1\n".into());
        files.push("series,time_ns,util\na,0,1\na,5,0\nb,3,1\n".into());
        for text in &files {
            let whole = parse_read("u.csv", text.as_bytes()).map_err(|e| e.to_string());
            for (segment, chunk, spill_at) in [(1, 1, 1), (7, 3, 2), (64, 16, 5), (4096, 300, 64)] {
                let cut = parse_read_cut("u.csv", text.as_bytes(), segment, chunk, spill_at)
                    .map_err(|e| e.to_string());
                assert_eq!(cut, whole, "{segment}/{chunk}/{spill_at} of {text:?}");
                if let Ok(u) = &cut {
                    let on_disk = u.series.iter().any(Steps::on_disk);
                    assert_eq!(
                        on_disk,
                        u.series.iter().any(|s| s.len() >= spill_at),
                        "on disk"
                    );
                }
            }
        }
        let u = parse_read("u.csv", files[0].as_bytes()).expect("good file");
        assert_eq!(u.names, vec!["cpu0", "gc, stw", "two\nlines"], "names");
        assert_eq!(u.series[1].get(1), (400, 0.6), "a padded row");
        let e = parse_read("u.csv", files[3].as_bytes()).expect_err("a mistake");
        assert!(e.to_string().contains("time_ns 1 is before"), "{e}");
    }
}
