//! `util-csv`: a mutator-utilisation step function, `time_ns,util` (or `utilization`), one row per step: the
//! value holds from the row's time to the next row's; the last row only ends the trace. An optional `series`
//! column holds several step functions (per processor or per mutator), each ascending in time; the MMU is then
//! the minimum over them. Values must lie in [0, 1].

use std::io::Read;

use super::csv_rows::{CsvRow, CsvRows};
use super::names::NameIndex;
use super::pauses_csv::{Header, cell_ns};
use super::{ImportError, ImportErrorKind, UtilizationSeries};
use crate::metrics::mmu::UtilSeries;

/// Parses a utilisation CSV (`text` of the file called `file`).
pub fn parse(file: &str, text: &str) -> Result<UtilizationSeries, ImportError> {
    parse_read(file, text.as_bytes())
}

/// [`parse`] streamed from `src` ([`CsvRows`]): memory holds one row and the steps.
pub fn parse_read(file: &str, src: impl Read) -> Result<UtilizationSeries, ImportError> {
    parse_rows(file, CsvRows::new(file, src))
}

/// [`parse`] over the rows of [`CsvRows`], the header first.
pub(crate) fn parse_rows(
    file: &str,
    mut rows: impl Iterator<Item = CsvRow>,
) -> Result<UtilizationSeries, ImportError> {
    const EXPECTED: &str = "time_ns,util (optional series)";
    let header = Header::read(&mut rows)?.unwrap_or_else(Header::none);
    let time = header.require(file, &["time_ns"], EXPECTED)?;
    let util = header.require(file, &["util", "utilization"], EXPECTED)?;
    let series = header.find(&["series"]);
    let mut out = UtilizationSeries::default();
    let mut names = NameIndex::default();
    for r in rows {
        let (line, row) = r?;
        let t = cell_ns(file, line, &row, time, "time_ns")?;
        let text = row.get(util).unwrap_or("");
        let u = text
            .parse::<f64>()
            .ok()
            .filter(|u| (0.0..=1.0).contains(u))
            .ok_or_else(|| {
                ImportError::bad_value(file, line, "util", text, "a utilisation between 0 and 1")
            })?;
        let name = series.and_then(|c| row.get(c)).unwrap_or("");
        let k = names.mutator(&mut out.names, name, file, || line)?;
        if k == out.series.len() {
            out.series.push(UtilSeries::default());
        }
        let s = &mut out.series[k];
        if let Some(&prev) = s.times.last().filter(|&&prev| t < prev) {
            return Err(ImportError::new(
                file,
                line,
                ImportErrorKind::TimeGoesBack {
                    time_ns: t,
                    previous_ns: prev,
                },
            ));
        }
        s.times.push(t);
        s.util.push(u);
    }
    let usable = out
        .series
        .iter()
        .filter(|s| s.span().1 > s.span().0)
        .count();
    if usable == 0 {
        return Err(ImportError::new(
            file,
            header.line,
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
    Ok(out)
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
        assert_eq!(u.series[0].times, vec![0, 10, 20], "a");
        assert_eq!(u.series[1].util, vec![0.0, 0.0], "b");
        let e = parse("u.csv", "time_ns,utilization\n0,1\n5,1.5\n").unwrap_err();
        assert!(e.to_string().starts_with("u.csv:3: `1.5` in `util`"), "{e}");
        let e = parse("u.csv", "time_ns,util\n10,1\n5,1\n").unwrap_err();
        assert!(
            e.to_string().starts_with("u.csv:3: time_ns 5 is before"),
            "{e}"
        );
    }
}
