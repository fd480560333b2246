//! The input layer's one line reader ([`Lines`]), shared by the GC-log importers ([`crate::importers`]) and the
//! allocation-trace importers ([`crate::importers::alloc`]). Line ends are found with `memchr` in the source's own
//! buffer, and a line that lies whole in that buffer is handed out without a copy; only a line that straddles two
//! reads is gathered into one reused buffer. Lines are capped at [`MAX_LINE_BYTES`] (terminator included), so
//! memory stays bounded whatever the input; a leading byte-order mark is removed and `\n` or `\r\n` is cut off.
//!
//! Two policies sit on the one reader: [`Lines::read_all`] (GC logs) replaces invalid UTF-8 and skips over-long
//! lines, reporting both in a [`LineReport`]; [`Lines::advance`] (allocation traces) makes either an error naming
//! the file and line.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::trace::TraceError;
use crate::trace::reader::{decompressed, open_decompressed, open_decompressed_counted};

/// Longest line an importer reads, its terminator included; a longer one is skipped (GC logs, counted in the
/// warnings) or an error (allocation traces). `[bytes]`
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Read buffer of a [`Lines`] over an unbuffered source. `[bytes]`
const READ_BUFFER_BYTES: usize = 256 * 1024;

/// One line as [`Lines::next_line`] found it.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// The line's bytes, without its terminator (and, on line 1, without a byte-order mark).
    Bytes(&'a [u8]),
    /// A line longer than [`MAX_LINE_BYTES`]: its rest is passed over by the next call.
    TooLong,
}

/// What [`Lines::read_all`] saw besides the lines it passed on.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LineReport {
    /// Some line holds more than white space.
    pub nonblank: bool,
    /// Lines with invalid UTF-8 (read with U+FFFD), and the first (1-based; 0: none).
    pub invalid_utf8: (usize, usize),
    /// Lines longer than [`MAX_LINE_BYTES`] (skipped), and the first (1-based; 0: none).
    pub too_long: (usize, usize),
}

/// The lines of a source called `name` (in errors), numbered from 1.
pub struct Lines<R = Box<dyn BufRead + Send>> {
    name: String,
    src: R,
    /// A line gathered across reads; the current line in [`Lines::advance`]'s text form.
    buf: Vec<u8>,
    /// The current line as text ([`Lines::advance`]).
    text: String,
    /// Bytes of the source's buffer still held by the line last handed out, consumed at the next call.
    held: usize,
    /// The rest of an over-long line is still to be passed over.
    skipping: bool,
    line_no: usize,
}

impl<R> std::fmt::Debug for Lines<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lines({}:{})", self.name, self.line_no)
    }
}

impl Lines {
    /// Lines of `src` (read through a buffer of its own), called `name` in errors.
    pub fn new(name: &str, src: Box<dyn Read + Send>) -> Self {
        Lines::buffered(
            name,
            Box::new(BufReader::with_capacity(READ_BUFFER_BYTES, src)),
        )
    }

    /// Lines of the file at `path`, decompressed.
    pub fn open(name: &str, path: &Path) -> Result<Self, TraceError> {
        Ok(Lines::new(name, open_decompressed(name, path)?))
    }

    /// [`Lines::open`], adding the file's bytes read (compressed) to `read`.
    pub fn open_counted(
        name: &str,
        path: &Path,
        read: &Arc<AtomicU64>,
    ) -> Result<Self, TraceError> {
        Ok(Lines::new(
            name,
            open_decompressed_counted(name, path, read)?,
        ))
    }

    /// Lines of an in-memory input, decompressed (tests and fuzzing).
    pub fn of_bytes(name: &str, bytes: Vec<u8>) -> Result<Self, TraceError> {
        Ok(Lines::new(
            name,
            decompressed(name, Box::new(std::io::Cursor::new(bytes)))?,
        ))
    }
}

impl<R: BufRead> Lines<R> {
    /// Lines of the buffered source `src`, called `name` in errors.
    pub fn buffered(name: &str, src: R) -> Self {
        Lines {
            name: name.to_string(),
            src,
            buf: Vec::new(),
            text: String::new(),
            held: 0,
            skipping: false,
            line_no: 0,
        }
    }

    /// The input's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// 1-based number of the line last handed out (0 before the first).
    pub fn line_no(&self) -> usize {
        self.line_no
    }

    /// The next line, `None` at the end of the input. An I/O error belongs to line `line_no() + 1`.
    pub fn next_line(&mut self) -> std::io::Result<Option<Line<'_>>> {
        self.src.consume(std::mem::take(&mut self.held));
        if std::mem::take(&mut self.skipping) {
            self.pass_rest()?;
        }
        self.buf.clear();
        loop {
            let (len, end) = {
                let chunk = self.src.fill_buf()?;
                (chunk.len(), memchr::memchr(b'\n', chunk))
            };
            if len == 0 {
                if self.buf.is_empty() {
                    return Ok(None);
                }
                self.line_no += 1;
                return Ok(Some(Line::Bytes(trimmed(&self.buf, self.line_no))));
            }
            let take = end.map_or(len, |i| i + 1);
            if self.buf.len() + take > MAX_LINE_BYTES {
                // Over the cap: pass over what is read, and the rest at the next call.
                self.src.consume(take);
                self.skipping = end.is_none();
                self.line_no += 1;
                return Ok(Some(Line::TooLong));
            }
            if let Some(i) = end {
                self.line_no += 1;
                if self.buf.is_empty() {
                    // The whole line is in the source's buffer: hand it out from there.
                    self.held = i + 1;
                    let chunk = self.src.fill_buf()?;
                    return Ok(Some(Line::Bytes(trimmed(&chunk[..=i], self.line_no))));
                }
                let chunk = self.src.fill_buf()?;
                self.buf.extend_from_slice(&chunk[..=i]);
                self.src.consume(i + 1);
                return Ok(Some(Line::Bytes(trimmed(&self.buf, self.line_no))));
            }
            let chunk = self.src.fill_buf()?;
            self.buf.extend_from_slice(chunk);
            self.src.consume(len);
        }
    }

    /// Passes over the rest of an over-long line, a buffer at a time.
    fn pass_rest(&mut self) -> std::io::Result<()> {
        loop {
            let chunk = self.src.fill_buf()?;
            if chunk.is_empty() {
                return Ok(());
            }
            match memchr::memchr(b'\n', chunk) {
                Some(i) => {
                    self.src.consume(i + 1);
                    return Ok(());
                }
                None => {
                    let n = chunk.len();
                    self.src.consume(n);
                }
            }
        }
    }

    /// Calls `f(line number, line)` for every line (GC logs): invalid UTF-8 is replaced with U+FFFD and lines
    /// longer than [`MAX_LINE_BYTES`] are skipped, both counted in the report. An I/O error is returned with the
    /// 1-based line it belongs to.
    pub fn read_all(
        mut self,
        mut f: impl FnMut(usize, &str),
    ) -> Result<LineReport, (usize, std::io::Error)> {
        let mut report = LineReport::default();
        while self.read_some(&mut report, |no, line| {
            f(no, line);
            true
        })? {}
        Ok(report)
    }

    /// [`Lines::read_all`] a part at a time, adding to `report`: calls `f` for the lines until it returns false
    /// (after that line) or the input ends. True when lines may remain.
    pub fn read_some(
        &mut self,
        report: &mut LineReport,
        mut f: impl FnMut(usize, &str) -> bool,
    ) -> Result<bool, (usize, std::io::Error)> {
        loop {
            let no = self.line_no + 1;
            let line = match self.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => return Ok(false),
                Err(e) => return Err((no, e)),
            };
            let bytes = match line {
                Line::Bytes(b) => b,
                Line::TooLong => {
                    count(&mut report.too_long, no);
                    continue;
                }
            };
            let more = match std::str::from_utf8(bytes) {
                Ok(text) => {
                    if !report.nonblank {
                        report.nonblank = !text.trim().is_empty();
                    }
                    f(no, text)
                }
                Err(_) => {
                    count(&mut report.invalid_utf8, no);
                    let text = String::from_utf8_lossy(bytes);
                    report.nonblank |= !text.trim().is_empty();
                    f(no, &text)
                }
            };
            if !more {
                return Ok(true);
            }
        }
    }

    /// Reads the next line for [`Lines::line`] (allocation traces); false at the end of the input. A line
    /// longer than [`MAX_LINE_BYTES`] or with invalid UTF-8 is an error naming the file and line.
    pub fn advance(&mut self) -> Result<bool, TraceError> {
        let no = self.line_no + 1;
        let mut text = std::mem::take(&mut self.text).into_bytes();
        text.clear();
        let next = match self.next_line() {
            Ok(next) => next,
            Err(e) => {
                return Err(TraceError::line(
                    &self.name,
                    no as u64,
                    format!("cannot read: {e}"),
                ));
            }
        };
        match next {
            None => {
                // Errors after the end name the line after the last.
                self.line_no = no;
                self.text = String::from_utf8(text).unwrap_or_default();
                return Ok(false);
            }
            Some(Line::TooLong) => {
                return Err(self.error(format!(
                    "line longer than {MAX_LINE_BYTES} bytes: expected a line of text"
                )));
            }
            Some(Line::Bytes(b)) => text.extend_from_slice(b),
        }
        match String::from_utf8(text) {
            Ok(s) => {
                self.text = s;
                Ok(true)
            }
            Err(e) => Err(self.error(format!(
                "invalid UTF-8 at column {}: expected text",
                e.utf8_error().valid_up_to() + 1
            ))),
        }
    }

    /// The line last read by [`Lines::advance`], without its ending.
    pub fn line(&self) -> &str {
        &self.text
    }

    /// An error at the current line.
    pub fn error(&self, message: impl Into<String>) -> TraceError {
        TraceError::line(&self.name, self.line_no as u64, message)
    }
}

/// One more line in `(count, first)`.
fn count(c: &mut (usize, usize), no: usize) {
    c.0 += 1;
    if c.1 == 0 {
        c.1 = no;
    }
}

/// `line` without its `\n` or `\r\n`, and on line 1 without a byte-order mark.
fn trimmed(line: &[u8], no: usize) -> &[u8] {
    let mut line = line;
    if let Some(l) = line.strip_suffix(b"\n") {
        line = l.strip_suffix(b"\r").unwrap_or(l);
    }
    if no == 1 {
        line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8], cap: usize) -> (Vec<(usize, String)>, LineReport) {
        let mut got = Vec::new();
        let src = BufReader::with_capacity(cap, bytes);
        let report = Lines::buffered("t", src)
            .read_all(|no, l| got.push((no, l.to_string())))
            .expect("reads");
        (got, report)
    }

    #[test]
    fn lines_across_reads_endings_bom_and_the_cap() {
        let mut bytes = b"\xEF\xBB\xBFone\r\ntwo\n\nth\xffree".to_vec();
        for cap in [1, 3, 7, 4096] {
            let (got, r) = all(&bytes, cap);
            assert_eq!(
                got,
                vec![
                    (1, "one".into()),
                    (2, "two".into()),
                    (3, String::new()),
                    (4, "th\u{fffd}ree".into())
                ],
                "buffer of {cap}"
            );
            assert_eq!(r.invalid_utf8, (1, 4), "buffer of {cap}");
        }
        bytes.push(b'\n');
        bytes.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES));
        bytes.extend_from_slice(b"\nlast");
        let (got, r) = all(&bytes, 64 * 1024);
        assert_eq!(
            got.last(),
            Some(&(6, "last".to_string())),
            "after the long line"
        );
        assert_eq!(r.too_long, (1, 5), "the long line");
        let mut strict = Lines::buffered("t", &bytes[..]);
        for _ in 0..3 {
            assert!(strict.advance().expect("text"), "a line");
        }
        let e = strict.advance().expect_err("invalid UTF-8");
        assert_eq!(
            e.to_string(),
            "t:4: invalid UTF-8 at column 3: expected text"
        );
    }
}
