//! The CSV reader of the pause and utilisation importers: the maintained `csv` crate (RFC 4180 quoting, a record
//! reused from row to row) over a stream whose physical lines are capped at [`MAX_LINE_BYTES`], so that memory
//! holds one record whatever the input (a 2 GB line in a 61 KB zstd file is an error at its line, not an abort).
//! A line holding only white space is skipped; rows may have fewer or more fields than the header. The rows an
//! iterator hands out have their fields trimmed; [`CsvRows::next_row`] lends the one reused record untrimmed (no
//! allocation per row: a caller trims the few fields it reads). Every problem is an [`ImportError`] naming the
//! file and the 1-based line.

use std::collections::VecDeque;
use std::io::Read;

use super::{ImportError, ImportErrorKind, MAX_LINE_BYTES};

/// A row: its 1-based line and fields, or why it cannot be read.
pub(crate) type CsvRow = Result<(usize, csv::StringRecord), ImportError>;

/// The line-cap error a [`LineCapped`] reader returns, with the 1-based line that passed the cap.
#[derive(Debug)]
struct LineTooLong(usize);

impl std::fmt::Display for LineTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {} is longer than {MAX_LINE_BYTES} bytes", self.0)
    }
}

impl std::error::Error for LineTooLong {}

/// Passes `inner` through, fails once a line grows past [`MAX_LINE_BYTES`], and keeps the offsets of the line
/// feeds read ahead of the rows handed out (the `csv` crate's own line count leaves out blank lines).
struct LineCapped<R> {
    inner: R,
    /// Bytes since the last line feed.
    run: usize,
    /// Line feeds seen (and before the stream, when it starts inside a file).
    lines: usize,
    /// Bytes read.
    offset: u64,
    /// Offsets of the line feeds not yet passed by a row (at most one buffer's worth), each with whether a
    /// carriage return stands before it.
    feeds: VecDeque<(u64, bool)>,
    /// The last byte read.
    last: u8,
}

impl<R: Read> Read for LineCapped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let got = &buf[..n];
        // Every line ending here is checked whole (its part in earlier reads is `run`), not only the last one.
        let mut start = 0;
        for i in memchr::memchr_iter(b'\n', got) {
            if self.run + (i - start) > MAX_LINE_BYTES {
                return Err(std::io::Error::other(LineTooLong(self.lines + 1)));
            }
            let before = if i == 0 { self.last } else { got[i - 1] };
            self.feeds
                .push_back((self.offset + i as u64, before == b'\r'));
            self.lines += 1;
            self.run = 0;
            start = i + 1;
        }
        self.run += n - start;
        self.offset += n as u64;
        self.last = got.last().copied().unwrap_or(self.last);
        if self.run > MAX_LINE_BYTES {
            return Err(std::io::Error::other(LineTooLong(self.lines + 1)));
        }
        Ok(n)
    }
}

/// The rows of a CSV stream called `name`, the header first.
pub(crate) struct CsvRows<R: Read> {
    name: String,
    reader: csv::Reader<LineCapped<R>>,
    /// Line feeds before the last row handed out.
    feeds_passed: usize,
    done: bool,
    /// The record reused from row to row (untrimmed).
    rec: csv::StringRecord,
    /// A row read ahead by [`CsvRows::at_end`], handed out next.
    pending: Option<Result<usize, ImportError>>,
}

impl<R: Read> CsvRows<R> {
    pub(crate) fn new(name: &str, src: R) -> Self {
        Self::starting_at(name, src, 1)
    }

    /// [`CsvRows::new`] over a stream whose first byte starts line `first_line` (a piece of a file cut after a
    /// record's line feed: its rows are numbered as the file's).
    pub(crate) fn starting_at(name: &str, src: R, first_line: usize) -> Self {
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .buffer_capacity(64 * 1024)
            .from_reader(LineCapped {
                inner: src,
                run: 0,
                lines: first_line.saturating_sub(1),
                offset: 0,
                feeds: VecDeque::new(),
                last: 0,
            });
        CsvRows {
            name: name.to_string(),
            reader,
            feeds_passed: first_line.saturating_sub(1),
            done: false,
            rec: csv::StringRecord::new(),
            pending: None,
        }
    }

    /// True when no row is left (a row read to tell is handed out next).
    pub(crate) fn at_end(&mut self) -> bool {
        if self.pending.is_none() {
            self.pending = self.advance();
        }
        self.pending.is_none()
    }

    /// The next row in the reused record, its fields untrimmed, with its 1-based line.
    pub(crate) fn next_row(&mut self) -> Option<Result<(usize, &csv::StringRecord), ImportError>> {
        let next = match self.pending.take() {
            Some(p) => Some(p),
            None => self.advance(),
        };
        next.map(|r| r.map(|line| (line, &self.rec)))
    }

    /// Reads the next row that is not blank into `self.rec`.
    fn advance(&mut self) -> Option<Result<usize, ImportError>> {
        while !self.done {
            match self.reader.read_record(&mut self.rec) {
                Ok(false) => self.done = true,
                Ok(true) => {
                    let at = self.rec.position().map_or(0, csv::Position::byte);
                    let line = self.line_at(at);
                    if line == 1
                        && let Some(first) = self.rec.get(0)
                        && let Some(rest) = first.strip_prefix('\u{feff}')
                    {
                        let mut fields: Vec<String> = self.rec.iter().map(str::to_string).collect();
                        fields[0] = rest.to_string();
                        self.rec = csv::StringRecord::from(fields);
                    }
                    if self.rec.len() == 1 && self.rec.get(0).is_some_and(|f| f.trim().is_empty()) {
                        continue;
                    }
                    return Some(Ok(line));
                }
                Err(e) => return Some(Err(self.error(&e))),
            }
        }
        None
    }

    /// The 1-based line of the first byte at or after `offset` that is not a line ending (`csv` places a row
    /// where the previous one ended, before the blank lines it skips); offsets are asked in ascending order.
    fn line_at(&mut self, offset: u64) -> usize {
        let feeds = &mut self.reader.get_mut().feeds;
        let mut at = offset;
        while let Some(&(f, cr)) = feeds.front() {
            if f < at {
            } else if f == at || (cr && f == at + 1) {
                at = f + 1;
            } else {
                break;
            }
            feeds.pop_front();
            self.feeds_passed += 1;
        }
        self.feeds_passed + 1
    }

    fn error(&mut self, e: &csv::Error) -> ImportError {
        self.done = true;
        let at = e
            .position()
            .map_or(self.reader.position().byte(), csv::Position::byte);
        let line = self.line_at(at);
        let kind = match e.kind() {
            csv::ErrorKind::Io(io) => {
                if let Some(LineTooLong(at)) = io.get_ref().and_then(|x| x.downcast_ref()) {
                    return ImportError::new(
                        &self.name,
                        *at,
                        ImportErrorKind::LineTooLong {
                            limit_bytes: MAX_LINE_BYTES,
                            expected: "CSV rows".into(),
                        },
                    );
                }
                ImportErrorKind::Io(io.to_string())
            }
            csv::ErrorKind::Utf8 { .. } => ImportErrorKind::InvalidUtf8,
            _ => ImportErrorKind::Io(e.to_string()),
        };
        ImportError::new(&self.name, line.max(1), kind)
    }
}

impl<R: Read> Iterator for CsvRows<R> {
    type Item = CsvRow;

    fn next(&mut self) -> Option<CsvRow> {
        self.next_row().map(|r| {
            r.map(|(line, rec)| {
                let mut rec = rec.clone();
                rec.trim();
                (line, rec)
            })
        })
    }
}

/// The fields of one CSV line (the header, when telling the format).
pub(crate) fn line_fields(line: &str) -> Vec<String> {
    match CsvRows::new("", line.as_bytes()).next() {
        Some(Ok((_, rec))) => rec.iter().map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<Result<(usize, Vec<String>), String>> {
        CsvRows::new("t.csv", text.as_bytes())
            .map(|r| {
                r.map(|(l, rec)| (l, rec.iter().map(str::to_string).collect()))
                    .map_err(|e| e.to_string())
            })
            .collect()
    }

    #[test]
    fn quotes_blank_lines_and_line_numbers() {
        let got = rows("\u{feff}a,b\n\n  \n1,\"x, y\"\r\n\"say \"\"hi\"\"\", 2 \n");
        assert_eq!(
            got,
            vec![
                Ok((1, vec!["a".into(), "b".into()])),
                Ok((4, vec!["1".into(), "x, y".into()])),
                Ok((5, vec!["say \"hi\"".into(), "2".into()])),
            ],
            "rows"
        );
        assert_eq!(
            line_fields(r#"1,"a, b",  c "#),
            vec!["1", "a, b", "c"],
            "one line"
        );
    }

    #[test]
    fn a_line_past_the_cap_and_invalid_utf8_are_errors_at_their_line() {
        let mut text = b"a,b\n1,2\n".to_vec();
        text.extend(std::iter::repeat_n(b'9', MAX_LINE_BYTES + 10));
        let got: Vec<CsvRow> = CsvRows::new("t.csv", &text[..]).collect();
        let e = got.last().and_then(|r| r.as_ref().err()).expect("an error");
        assert!(e.to_string().starts_with("t.csv:3: "), "{e}");
        assert!(matches!(e.kind, ImportErrorKind::LineTooLong { .. }), "{e}");
        let got: Vec<CsvRow> = CsvRows::new("t.csv", &b"a,b\n1,\xff\n"[..]).collect();
        let e = got.last().and_then(|r| r.as_ref().err()).expect("an error");
        assert!(e.to_string().starts_with("t.csv:2: "), "{e}");
    }
}
