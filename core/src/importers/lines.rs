//! The GC-log importers' line-by-line driver ([`LineParser`] with [`parse_text`] and [`parse_stream`]) over the
//! input layer's one line reader ([`Lines::read_all`]): what the reader passed over (invalid UTF-8 replaced, lines
//! over [`MAX_LINE_BYTES`] skipped) becomes warnings, and an input with nothing but blank lines an error.

use std::io::BufRead;

use super::{ImportError, ImportErrorKind, MAX_LINE_BYTES, Warnings};
use crate::input::lines::{LineReport, Lines};

/// An error when the input held nothing but blank lines (`what`: the format, for the message).
fn require_text(report: &LineReport, file: &str, what: &str) -> Result<(), ImportError> {
    if report.nonblank {
        return Ok(());
    }
    if report.too_long.0 > 0 {
        // Not empty: every line with text was over the cap.
        return Err(ImportError::new(
            file,
            report.too_long.1,
            ImportErrorKind::LineTooLong {
                limit_bytes: MAX_LINE_BYTES,
                expected: format!("{what} lines"),
            },
        ));
    }
    Err(ImportError::new(
        file,
        1,
        ImportErrorKind::Empty(format!("{what} data")),
    ))
}

/// Adds the notes on replaced and skipped lines to `w`.
fn note(report: &LineReport, w: &mut Warnings) {
    let (n, first) = report.invalid_utf8;
    if n > 0 {
        w.note(format!(
            "{n} line(s) with invalid UTF-8 (first at line {first}) read with U+FFFD replacement characters"
        ));
    }
    let (n, first) = report.too_long;
    if n > 0 {
        w.note(format!(
            "{n} line(s) longer than {} MiB skipped (first at line {first})",
            MAX_LINE_BYTES >> 20
        ));
    }
}

/// A GC-log format's parser fed one line at a time (the HotSpot and logcat importers): [`parse_text`] and
/// [`parse_stream`] drive it the same way for every format.
pub(crate) trait LineParser: Default {
    /// What a finished parse gives.
    type Output;
    /// Line `no` (1-based) of the input.
    fn line(&mut self, no: usize, raw: &str);
    /// The warnings the parse collects (the reader's own notes join them).
    fn warnings(&mut self) -> &mut Warnings;
    /// The result, once every line was fed (`file` names the input in errors).
    fn finish(self, file: &str) -> Result<Self::Output, ImportError>;
}

/// Parses `text` (the whole file called `file`) with `P`.
pub(crate) fn parse_text<P: LineParser>(file: &str, text: &str) -> Result<P::Output, ImportError> {
    let mut p = P::default();
    for (i, raw) in text.lines().enumerate() {
        p.line(i + 1, raw);
    }
    p.finish(file)
}

/// Parses `src` (the file called `file`, a `what` such as "logcat") with `P` line by line: memory holds one line
/// and what `P` keeps, whatever the size of the input. Invalid UTF-8 is replaced (and counted in the warnings).
pub(crate) fn parse_stream<P: LineParser>(
    file: &str,
    src: impl BufRead,
    what: &str,
) -> Result<P::Output, ImportError> {
    let mut p = P::default();
    let report = Lines::buffered(file, src)
        .read_all(|no, line| p.line(no, line))
        .map_err(|(at, e)| ImportError::new(file, at, ImportErrorKind::Io(e.to_string())))?;
    require_text(&report, file, what)?;
    note(&report, p.warnings());
    p.finish(file)
}
