//! Import errors and the warnings reporter. An [`ImportError`] names the file, the 1-based line (or the option)
//! and what was expected; [`Warnings`] counts the lines an importer passed over, grouped by reason with their
//! first line numbers, so nothing is dropped silently.

use std::collections::BTreeMap;

/// What is wrong with an input file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportErrorKind {
    /// The file could not be read.
    #[error("cannot read: {0}")]
    Io(String),
    /// Nothing but blank lines.
    #[error("the file is empty (expected {0})")]
    Empty(String),
    /// A line longer than the importers' line cap (and no shorter line with text).
    #[error("the line is longer than the {limit_bytes}-byte line cap (expected {expected})")]
    LineTooLong {
        /// The cap. `[bytes]`
        limit_bytes: usize,
        /// What lines were expected.
        expected: String,
    },
    /// Bytes that are not UTF-8.
    #[error("invalid UTF-8 (expected a text file)")]
    InvalidUtf8,
    /// A required CSV column is absent from the header.
    #[error("missing column `{column}` (expected a header with {expected})")]
    MissingColumn {
        /// The column looked for.
        column: String,
        /// The header that is expected.
        expected: String,
    },
    /// A cell or field does not hold what it should.
    #[error("`{value}` in `{field}` is not {expected}")]
    BadValue {
        /// Column or field name.
        field: String,
        /// The text found.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// A pause ends before it starts.
    #[error("end_ns {end_ns} is before start_ns {start_ns} (expected end_ns ≥ start_ns)")]
    EndBeforeStart {
        /// Start. `[ns]`
        start_ns: u64,
        /// End. `[ns]`
        end_ns: u64,
    },
    /// A step function goes back in time.
    #[error(
        "time_ns {time_ns} is before the previous row's {previous_ns} (expected ascending times)"
    )]
    TimeGoesBack {
        /// This row. `[ns]`
        time_ns: u64,
        /// The previous row of the same series. `[ns]`
        previous_ns: u64,
    },
    /// `--format auto` could not tell what the file is.
    #[error("cannot tell the format: {0}")]
    UnknownFormat(String),
    /// The file parsed, but holds no pause or utilisation data.
    #[error("{0}")]
    NothingUsable(String),
}

/// An input file that cannot be used: file, 1-based line (0 = the whole file) and what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}: {kind}", location(.file, *.line))]
pub struct ImportError {
    /// The file as named on the command line.
    pub file: String,
    /// 1-based line, 0 when the error is about the whole file.
    pub line: usize,
    /// What is wrong.
    pub kind: ImportErrorKind,
}

fn location(file: &str, line: usize) -> String {
    if line == 0 {
        file.to_string()
    } else {
        format!("{file}:{line}")
    }
}

impl ImportError {
    /// An error at `line` of `file`.
    pub fn new(file: &str, line: usize, kind: ImportErrorKind) -> Self {
        ImportError {
            file: file.to_string(),
            line,
            kind,
        }
    }

    /// A `BadValue` error at `line` of `file`.
    pub fn bad_value(file: &str, line: usize, field: &str, value: &str, expected: &str) -> Self {
        ImportError::new(
            file,
            line,
            ImportErrorKind::BadValue {
                field: field.to_string(),
                value: value.to_string(),
                expected: expected.to_string(),
            },
        )
    }
}

/// Warnings reporter: whole-file notes plus skipped lines grouped by reason (count and first line numbers).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Warnings {
    notes: Vec<String>,
    skipped: BTreeMap<String, (usize, Vec<usize>)>,
}

impl Warnings {
    /// How many line numbers are kept per reason.
    const FIRST_LINES: usize = 5;

    /// A note about the whole input (e.g. how pauses were placed).
    pub fn note(&mut self, message: impl Into<String>) {
        self.notes.push(message.into());
    }

    /// Line `line` was not used, for `reason`.
    pub fn skip(&mut self, line: usize, reason: &str) {
        // Look up before allocating the key: a log may skip millions of lines for a handful of reasons.
        let entry = match self.skipped.get_mut(reason) {
            Some(e) => e,
            None => self.skipped.entry(reason.to_string()).or_default(),
        };
        entry.0 += 1;
        if entry.1.len() < Self::FIRST_LINES {
            entry.1.push(line);
        }
    }

    /// Number of lines skipped, all reasons.
    pub fn skipped_lines(&self) -> usize {
        self.skipped.values().map(|(n, _)| n).sum()
    }

    /// The first skipped line and its reason, if any; lines skipped for a reason in `unless` only when no other
    /// reason applies (so that an error names the malformed line rather than the first unrelated one).
    pub fn first_skipped(&self, unless: &[&str]) -> Option<(usize, &str)> {
        let first = |pick: &dyn Fn(&str) -> bool| {
            self.skipped
                .iter()
                .filter(|(r, _)| pick(r))
                .filter_map(|(r, (_, lines))| lines.first().map(|&l| (l, r.as_str())))
                .min()
        };
        first(&|r| !unless.contains(&r)).or_else(|| first(&|_| true))
    }

    /// True when there is nothing to report.
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty() && self.skipped.is_empty()
    }

    /// One line per note and per skip reason, e.g. `3 lines skipped: not a GC line (lines 4, 9, 15)`.
    pub fn messages(&self) -> Vec<String> {
        let mut out = self.notes.clone();
        for (reason, (count, lines)) in &self.skipped {
            let list: Vec<String> = lines.iter().map(ToString::to_string).collect();
            let more = if *count > lines.len() { ", …" } else { "" };
            let (noun, lines_word) = if *count == 1 {
                ("line", "line")
            } else {
                ("lines", "lines")
            };
            out.push(format!(
                "{count} {noun} skipped: {reason} ({lines_word} {}{more})",
                list.join(", ")
            ));
        }
        out
    }
}
