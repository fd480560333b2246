//! The log importers' line reader ([`read_lines`]): one reused buffer, lines capped at [`MAX_LINE_BYTES`]
//! (longer ones skipped a bounded chunk at a time), invalid UTF-8 replaced; what it passed over is reported in a
//! [`LineReport`] that the importers turn into warnings.

use std::io::{BufRead, Read};

use super::{ImportError, ImportErrorKind, MAX_LINE_BYTES, Warnings};

/// What [`read_lines`] saw besides the lines it passed on.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct LineReport {
    /// Some line holds more than white space.
    nonblank: bool,
    /// Lines with invalid UTF-8 (read with U+FFFD), and the first.
    invalid_utf8: (usize, usize),
    /// Lines longer than [`MAX_LINE_BYTES`] (skipped), and the first.
    too_long: (usize, usize),
}

impl LineReport {
    /// An error when the input held nothing but blank lines.
    pub(crate) fn require_text(&self, file: &str, what: &str) -> Result<(), ImportError> {
        if self.nonblank {
            return Ok(());
        }
        if self.too_long.0 > 0 {
            // Not empty: every line with text was over the cap.
            return Err(ImportError::new(
                file,
                self.too_long.1,
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
    pub(crate) fn note(&self, w: &mut Warnings) {
        let (n, first) = self.invalid_utf8;
        if n > 0 {
            w.note(format!(
                "{n} line(s) with invalid UTF-8 (first at line {first}) read with U+FFFD replacement characters"
            ));
        }
        let (n, first) = self.too_long;
        if n > 0 {
            w.note(format!(
                "{n} line(s) longer than {} MiB skipped (first at line {first})",
                MAX_LINE_BYTES >> 20
            ));
        }
    }
}

/// Reads `src` line by line into one reused buffer and calls `f(line number, line)` for each (without its line
/// ending; a leading byte-order mark removed; invalid UTF-8 replaced). Lines longer than [`MAX_LINE_BYTES`] are
/// skipped, so memory stays bounded whatever the input.
pub(crate) fn read_lines(
    file: &str,
    mut src: impl BufRead,
    mut f: impl FnMut(usize, &str),
) -> Result<LineReport, ImportError> {
    let mut report = LineReport::default();
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    let mut no = 0usize;
    loop {
        buf.clear();
        let at = no + 1;
        let io =
            move |e: std::io::Error| ImportError::new(file, at, ImportErrorKind::Io(e.to_string()));
        let n = (&mut src)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(io)?;
        if n == 0 {
            break;
        }
        no += 1;
        if buf.len() > MAX_LINE_BYTES {
            // Skip the rest of the line a bounded chunk at a time.
            while !buf.ends_with(b"\n") {
                buf.clear();
                let m = (&mut src)
                    .take(MAX_LINE_BYTES as u64)
                    .read_until(b'\n', &mut buf)
                    .map_err(io)?;
                if m == 0 {
                    break;
                }
            }
            report.too_long.0 += 1;
            if report.too_long.1 == 0 {
                report.too_long.1 = no;
            }
            continue;
        }
        let mut line: &[u8] = &buf;
        if let Some(l) = line.strip_suffix(b"\n") {
            line = l;
            if let Some(l) = line.strip_suffix(b"\r") {
                line = l;
            }
        }
        if no == 1 {
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        match std::str::from_utf8(line) {
            Ok(text) => {
                report.nonblank |= !text.trim().is_empty();
                f(no, text);
            }
            Err(_) => {
                report.invalid_utf8.0 += 1;
                if report.invalid_utf8.1 == 0 {
                    report.invalid_utf8.1 = no;
                }
                let text = String::from_utf8_lossy(line);
                report.nonblank |= !text.trim().is_empty();
                f(no, &text);
            }
        }
    }
    Ok(report)
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
    let report = read_lines(file, src, |no, line| p.line(no, line))?;
    report.require_text(file, what)?;
    report.note(p.warnings());
    p.finish(file)
}
