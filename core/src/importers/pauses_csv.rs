//! `pauses-csv`: one row per stop-the-world pause of one mutator. Columns are found by header name:
//! `start_ns` and `end_ns` (integer nanoseconds, `end_ns ≥ start_ns`) are required; `mutator` (any text; default
//! one mutator) and `kind` are optional; other columns are ignored. The default observation span is
//! `[0, last end]`. Fields may be double-quoted (RFC 4180); blank lines are skipped.

use std::io::Read;

use super::csv_rows::CsvRow;
use super::csv_split;
use super::names::{NameIndex, Texts};
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
    if (1..=18).contains(&digits.len()) {
        // One pass: the value, and whether every byte was a digit (a byte below '0' wraps to a large value).
        let (v, all) = (digits.iter()).fold((0u64, true), |(v, all), &d| {
            let x = d.wrapping_sub(b'0');
            (
                v.wrapping_mul(10).wrapping_add(u64::from(x)),
                all & (x < 10),
            )
        });
        if all {
            return Ok(v);
        }
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

/// [`parse`] streamed from `src`: memory holds a few segments of rows and the pauses.
pub fn parse_read(file: &str, src: impl Read + Send) -> Result<PauseSeries, ImportError> {
    match parse_split(file, src, csv_split::SIZES)? {
        Some(p) => Ok(p),
        // No row, so no header: the first column missing is the error (as it always is without a header).
        None => missing(file, &Header::none()).and_then(|_| {
            Err(ImportError::new(
                file,
                1,
                ImportErrorKind::Empty("pause CSV rows".into()),
            ))
        }),
    }
}

/// [`parse_read`] cut into segments of `segment_bytes` and chunks of `chunk_bytes` (at least 1 each): what a small
/// input goes through when it is a large one's piece, read on every core. The result, error included, must be
/// [`parse_read`]'s; the `gc_csv` fuzz target and `csv_split`'s tests check that it is.
pub fn parse_read_cut(
    file: &str,
    src: impl Read + Send,
    segment_bytes: usize,
    chunk_bytes: usize,
) -> Result<Option<PauseSeries>, ImportError> {
    let sizes = csv_split::Sizes {
        segment_bytes,
        chunk_bytes,
        ..csv_split::SIZES
    };
    parse_split(file, src, sizes)
}

const EXPECTED: &str = "start_ns,end_ns (optional mutator, kind)";

/// The columns of a pause CSV, from its header.
struct Cols {
    start: usize,
    end: usize,
    mutator: Option<usize>,
    kind: Option<usize>,
    header_line: usize,
}

/// The header's columns, or the error for the first required one missing.
fn missing(file: &str, header: &Header) -> Result<Cols, ImportError> {
    Ok(Cols {
        start: header.require(file, &["start_ns"], EXPECTED)?,
        end: header.require(file, &["end_ns"], EXPECTED)?,
        mutator: header.find(&["mutator"]),
        kind: header.find(&["kind"]),
        header_line: header.line,
    })
}

/// One row: times, mutator and kind (indices into the texts of the rows parsed with it; the kind only for a sink
/// that keeps names, else [`NO_KIND`]) and line.
struct Row {
    start_ns: u64,
    end_ns: u64,
    mutator: usize,
    line: usize,
    kind: usize,
}

/// A row's kind when the file has no `kind` column (or the sink keeps no names): `pause`.
const NO_KIND: usize = usize::MAX;

/// [`parse`] over the rows of `src`, the header first, parsed on every core ([`csv_split::rows_on_cores`]; a
/// row's fields are trimmed as they are read). `Ok(None)`: the input has no row.
pub(crate) fn parse_split<S: PauseSink>(
    file: &str,
    src: impl Read + Send,
    sizes: csv_split::Sizes,
) -> Result<Option<PauseSeries<S>>, ImportError> {
    let mut out = PauseSeries::<S>::default();
    // Rows are pushed as they are: no fix-up pass follows.
    out.pauses.final_as_pushed();
    let mut last_end = 0;
    let mut mutators = NameIndex::default();
    let row = |c: &Cols, line: usize, row: &csv::StringRecord, names: &mut Texts| {
        let start_ns = cell_ns(file, line, row, c.start, "start_ns")?;
        let end_ns = cell_ns(file, line, row, c.end, "end_ns")?;
        if end_ns < start_ns {
            return Err(ImportError::new(
                file,
                line,
                ImportErrorKind::EndBeforeStart { start_ns, end_ns },
            ));
        }
        let name = c.mutator.and_then(|k| row.get(k)).unwrap_or("").trim();
        let mutator = names.id(name);
        // Only a sink that keeps names gets one, as an index into the same texts (no `String` per row).
        let kind = match c.kind.and_then(|k| row.get(k)) {
            Some(kind) if S::NAMES => names.id(kind.trim()),
            _ => NO_KIND,
        };
        Ok(Row {
            start_ns,
            end_ns,
            mutator,
            line,
            kind,
        })
    };
    let apply = |_: &Cols, rows: Vec<Row>, names: &[String]| {
        // The chunk's mutators numbered in order of first appearance, as the rows name them (a text may also be a
        // kind, which is not a mutator).
        let mut ids = vec![usize::MAX; names.len()];
        for r in &rows {
            if ids[r.mutator] == usize::MAX {
                ids[r.mutator] =
                    mutators.mutator(&mut out.mutators, &names[r.mutator], file, || r.line)?;
            }
        }
        for r in rows {
            last_end = last_end.max(r.end_ns);
            let pause = Pause {
                start_ns: r.start_ns,
                end_ns: r.end_ns,
                mutator: ids[r.mutator],
                line: r.line,
                ..Pause::default()
            };
            out.pauses
                .push_kind(pause, names.get(r.kind).map_or("pause", String::as_str));
        }
        Ok(())
    };
    let header = |rows: &mut csv_split::ChunkRows<'_>| {
        missing(file, &Header::read(rows)?.unwrap_or_else(Header::none))
    };
    let Some(cols) = csv_split::rows_on_cores(file, src, sizes, header, row, apply)? else {
        return Ok(None);
    };
    if out.pauses.is_empty() {
        return Err(ImportError::new(
            file,
            cols.header_line,
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
    Ok(Some(out))
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
