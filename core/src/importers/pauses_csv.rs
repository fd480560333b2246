//! `pauses-csv`: one row per stop-the-world pause of one mutator. Columns are found by header name:
//! `start_ns` and `end_ns` (integer nanoseconds, `end_ns ≥ start_ns`) are required; `mutator` (any text; default
//! one mutator) and `kind` are optional; other columns are ignored. The default observation span is
//! `[0, last end]`. Fields may be double-quoted (RFC 4180); blank lines are skipped.

use std::io::Read;

use super::csv_rows::{CsvRow, CsvRows};
use super::{ImportError, ImportErrorKind, Pause, PauseSeries, PauseSink};

/// The header of a CSV file: column positions by lower-case name.
#[derive(Debug)]
pub(crate) struct Header {
    names: Vec<String>,
    /// 1-based line of the header.
    pub line: usize,
}

impl Header {
    /// No header (an input without lines): every column is missing.
    pub fn none() -> Header {
        Header {
            names: Vec::new(),
            line: 1,
        }
    }

    /// Reads the header (the first line) from `lines`; the rest of `lines` are the rows. `Ok(None)`: no line.
    pub fn read(rows: &mut impl Iterator<Item = CsvRow>) -> Result<Option<Header>, ImportError> {
        Ok(rows.next().transpose()?.map(|(line, rec)| Header {
            names: rec.iter().map(str::to_lowercase).collect(),
            line,
        }))
    }

    pub fn find(&self, names: &[&str]) -> Option<usize> {
        names
            .iter()
            .find_map(|n| self.names.iter().position(|h| h == n))
    }

    /// Position of a required column, or the error naming it.
    pub fn require(
        &self,
        file: &str,
        names: &[&str],
        expected: &str,
    ) -> Result<usize, ImportError> {
        self.find(names).ok_or_else(|| {
            ImportError::new(
                file,
                self.line,
                ImportErrorKind::MissingColumn {
                    column: names.first().copied().unwrap_or_default().to_string(),
                    expected: expected.to_string(),
                },
            )
        })
    }
}

/// Cell `col` of a row as integer nanoseconds.
pub(crate) fn cell_ns(
    file: &str,
    line: usize,
    row: &csv::StringRecord,
    col: usize,
    name: &str,
) -> Result<u64, ImportError> {
    let cell = row.get(col).unwrap_or("");
    // The usual cell, up to 18 digits and nothing else (below 10¹⁸ < MAX_TIME_NS): read in one pass. Anything else
    // (blanks around it, a sign, more digits, junk) is read by `str::parse`, with the same value for these.
    let digits = cell.as_bytes();
    if (1..=18).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit) {
        return Ok((digits.iter()).fold(0, |v, &d| v * 10 + u64::from(d - b'0')));
    }
    let text = cell.trim();
    text.parse::<u64>()
        .ok()
        .filter(|&v| v < super::MAX_TIME_NS)
        .ok_or_else(|| {
            ImportError::bad_value(file, line, name, text, "an integer number of nanoseconds")
        })
}

/// Parses a pause CSV (`text` of the file called `file`).
pub fn parse(file: &str, text: &str) -> Result<PauseSeries, ImportError> {
    parse_read(file, text.as_bytes())
}

/// [`parse`] streamed from `src` ([`CsvRows`]): memory holds one row and the pauses.
pub fn parse_read(file: &str, src: impl Read) -> Result<PauseSeries, ImportError> {
    parse_rows(file, CsvRows::new(file, src))
}

/// [`parse`] over the rows of [`CsvRows`], the header first; a row's fields are trimmed as they are read.
pub(crate) fn parse_rows<S: PauseSink, R: Read>(
    file: &str,
    mut rows: CsvRows<R>,
) -> Result<PauseSeries<S>, ImportError> {
    const EXPECTED: &str = "start_ns,end_ns (optional mutator, kind)";
    let header = Header::read(&mut rows)?.unwrap_or_else(Header::none);
    let start = header.require(file, &["start_ns"], EXPECTED)?;
    let end = header.require(file, &["end_ns"], EXPECTED)?;
    let mutator = header.find(&["mutator"]);
    let kind = header.find(&["kind"]);
    let mut out = PauseSeries::<S>::default();
    let mut last_end = 0;
    while let Some(r) = rows.next_row() {
        let (line, row) = r?;
        let start_ns = cell_ns(file, line, row, start, "start_ns")?;
        let end_ns = cell_ns(file, line, row, end, "end_ns")?;
        if end_ns < start_ns {
            return Err(ImportError::new(
                file,
                line,
                ImportErrorKind::EndBeforeStart { start_ns, end_ns },
            ));
        }
        let name = mutator.and_then(|c| row.get(c)).unwrap_or("").trim();
        let m = match out.mutators.iter().position(|n| n == name) {
            Some(m) => m,
            None => {
                out.mutators.push(name.to_string());
                out.mutators.len() - 1
            }
        };
        last_end = last_end.max(end_ns);
        out.pauses.push(Pause {
            start_ns,
            end_ns,
            mutator: m,
            // Only a sink that keeps names gets one (no allocation per row for `gclab mmu`).
            kind: if S::NAMES {
                kind.and_then(|c| row.get(c))
                    .map_or("pause", str::trim)
                    .to_string()
            } else {
                String::new()
            },
            line,
            ..Pause::default()
        });
    }
    if out.pauses.is_empty() {
        return Err(ImportError::new(
            file,
            header.line,
            ImportErrorKind::NothingUsable(
                "no pause rows after the header (expected start_ns,end_ns rows)".into(),
            ),
        ));
    }
    if out.mutators.is_empty() {
        out.mutators.push(String::new());
    }
    out.pauses.shrink_to_fit();
    out.span_ns = (0, last_end);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_by_name_and_errors_by_line() {
        let p = parse(
            "p.csv",
            "kind,end_ns,start_ns,mutator\nsweep,20,10,a\n\nmark,50,40,b\n",
        )
        .unwrap();
        assert_eq!(p.pauses.len(), 2, "two rows");
        assert_eq!(
            (p.pauses[1].start_ns, p.pauses[1].end_ns, p.pauses[1].line),
            (40, 50, 4),
            "by name"
        );
        assert_eq!(p.mutators, vec!["a", "b"], "mutators");
        assert_eq!(p.span_ns, (0, 50), "span");
        let e = parse("p.csv", "start_ns,end_ns\n1,2\n3,x\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.csv:3: `x` in `end_ns` is not an integer number of nanoseconds",
            "cell"
        );
        let e = parse("p.csv", "start_ns,stop\n1,2\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("p.csv:1: missing column `end_ns`"),
            "{e}"
        );
        let e = parse("p.csv", "start_ns,end_ns\n5,3\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("p.csv:2: end_ns 3 is before start_ns 5"),
            "{e}"
        );
    }

    /// A cell of digits alone is read in one pass; every cell gives what `str::parse` after `trim` gives.
    #[test]
    fn digit_cells_read_fast_are_the_cells_parse_reads() {
        let cells = [
            "0",
            "000123",
            "999999999999999999",
            "1000000000000000000",
            "4611686018427387903",
            "4611686018427387904",
            "18446744073709551616",
            " 5 ",
            "+5",
            "",
            "-1",
            "1e3",
            "12 3",
            "\u{a0}7",
        ];
        for cell in cells {
            let row = csv::StringRecord::from(vec![cell]);
            let slow = cell
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|&v| v < super::super::MAX_TIME_NS);
            assert_eq!(
                cell_ns("p.csv", 2, &row, 0, "start_ns").ok(),
                slow,
                "`{cell}`"
            );
        }
    }
}
