//! Import errors: an [`ImportError`] names the file, the 1-based line (or the option) and what was expected. The
//! lines an importer passes over are counted in the input layer's [`crate::input::Warnings`].

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
    /// A CSV record (lines joined by a quoted field) running on past the importers' record cap.
    #[error(
        "the record starting here runs on past the {limit_bytes}-byte record cap (expected CSV rows; a quoted field that is never closed?)"
    )]
    RecordTooLong {
        /// The cap. `[bytes]`
        limit_bytes: usize,
    },
    /// More distinct mutators (or series) than the importers measure.
    #[error(
        "`{name}` is a mutator past the first {limit} (expected at most {limit} distinct mutators or series)"
    )]
    TooManyMutators {
        /// The name that passed the cap.
        name: String,
        /// The cap.
        limit: usize,
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
