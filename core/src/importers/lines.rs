//! The GC-log importers' line-by-line driver ([`LineParser`] with [`parse_text`] and [`parse_stream`]) over the
//! input layer's one line reader ([`Lines::read_all`]): what the reader passed over (invalid UTF-8 replaced, lines
//! over [`MAX_LINE_BYTES`] skipped) becomes warnings, and an input with nothing but blank lines an error.
//!
//! [`parse_stream_split`] drives a [`SplitLineParser`] — one whose per-line work is a pure parse and an ordered
//! apply — on every core (issue 21 item 4: a logcat's import was 4.3 s of a 1 GB `gclab mmu`'s 7.1; a G1 log's
//! 6.1 of 6.8): the lines are read in segments of about [`SEGMENT_BYTES`], and while one segment's lines are
//! parsed in chunks on the cores, the one before is applied in file order and the one after is read, each by one
//! job ([`super::rounds`]).
//! Memory: three segments and two segments' parsed lines. The result is the sequential one's: the parse depends on
//! the line alone, the apply sees the lines in order.

use std::io::BufRead;
use std::ops::Range;
use std::sync::Mutex;

use super::rounds::{in_rounds, stopped};
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
/// The reference [`parse_stream_split`] is tested against (every importer reads on every core).
#[cfg(test)]
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

/// A [`LineParser`] whose work on a line splits into a pure part, [`SplitLineParser::parse`], that may run on any
/// thread, and [`SplitLineParser::apply`], which changes the parser and runs in file order.
pub(crate) trait SplitLineParser: LineParser + Send {
    /// What the pure part makes of a line.
    type Item: Send + Sync;
    /// Parses `raw`, a line lying in `text` (its spans are kept as places in `text`); a variable number of values
    /// may go to the end of `extra`.
    fn parse(text: &str, raw: &str, extra: &mut Vec<u64>) -> Self::Item;
    /// Line `no`'s item: `text` is the text `parse` saw, `extra` what it put there.
    fn apply(&mut self, no: usize, text: &str, item: &Self::Item, extra: &[u64]);
}

/// Bytes of lines read at a time for [`parse_stream_split`]. `[bytes]`
const SEGMENT_BYTES: usize = 4 << 20;
/// Lines parsed per job.
const CHUNK_LINES: usize = 2048;

/// Lines read for [`parse_stream_split`]: their text one after the other, and each line's number and place.
#[derive(Default)]
struct Segment {
    text: String,
    lines: Vec<(usize, Range<usize>)>,
}

/// [`parse_stream`] with `P`'s parse on every core; the same result.
pub(crate) fn parse_stream_split<P: SplitLineParser>(
    file: &str,
    src: impl BufRead + Send,
    what: &str,
) -> Result<P::Output, ImportError> {
    parse_stream_split_by::<P>(file, src, what, (SEGMENT_BYTES, CHUNK_LINES))
}

/// [`parse_stream_split`] reading `segment_bytes` at a time and parsing `chunk_lines` per job (tests make both
/// small: many rounds, many jobs).
pub(crate) fn parse_stream_split_by<P: SplitLineParser>(
    file: &str,
    src: impl BufRead + Send,
    what: &str,
    (segment_bytes, chunk_lines): (usize, usize),
) -> Result<P::Output, ImportError> {
    let chunk_lines = chunk_lines.max(1);
    // The reader, what it passed over, and whether lines may remain.
    let reader = Mutex::new((Lines::buffered(file, src), LineReport::default(), true));
    let read = || -> Result<Option<Segment>, ImportError> {
        let mut r = reader.lock().map_err(|_| stopped(file))?;
        let (lines, report, more) = &mut *r;
        if !*more {
            return Ok(None);
        }
        let mut seg = Segment::default();
        *more = lines
            .read_some(report, |no, line| {
                let at = seg.text.len();
                seg.text.push_str(line);
                seg.lines.push((no, at..seg.text.len()));
                seg.text.len() < segment_bytes
            })
            .map_err(|(at, e)| ImportError::new(file, at, ImportErrorKind::Io(e.to_string())))?;
        Ok((!seg.lines.is_empty()).then_some(seg))
    };
    let mut p = P::default();
    let parse = |seg: &Segment, k: usize| {
        let a = k * chunk_lines;
        let mut extra = Vec::new();
        let items = (seg.lines[a..(a + chunk_lines).min(seg.lines.len())].iter())
            .map(|(_, at)| P::parse(&seg.text, &seg.text[at.clone()], &mut extra))
            .collect::<Vec<_>>();
        (items, extra)
    };
    let apply = |seg: &Segment, parsed: &[(Vec<P::Item>, Vec<u64>)]| {
        for (chunk, (items, extra)) in seg.lines.chunks(chunk_lines).zip(parsed) {
            for ((no, _), item) in chunk.iter().zip(items) {
                p.apply(*no, &seg.text, item, extra);
            }
        }
        Ok(())
    };
    let pieces = |seg: &Segment| seg.lines.len().div_ceil(chunk_lines);
    in_rounds(file, "import", read, pieces, parse, apply)?;
    let (_, report, _) = reader.into_inner().map_err(|_| stopped(file))?;
    require_text(&report, file, what)?;
    note(&report, p.warnings());
    p.finish(file)
}

/// Reads `input` line by line with `P` ([`parse_stream`]) and, on every core, in segments of 1 byte to 1 MiB and
/// jobs of 1 to 2,048 lines ([`parse_stream_split_by`]: many rounds, a record's lines split across them), asserts
/// that every way gives the same result (`case` names the input in a failure), and returns it.
#[cfg(test)]
pub(crate) fn assert_read_on_cores_as_line_by_line<P: SplitLineParser>(
    case: &str,
    input: &[u8],
    what: &str,
) -> P::Output
where
    P::Output: PartialEq + std::fmt::Debug,
{
    let one = parse_stream::<P>("a.log", input, what).expect("line by line");
    for (segment, chunk) in [(1, 1), (97, 2), (4096, 3), (1 << 20, 2048)] {
        let split = parse_stream_split_by::<P>("a.log", input, what, (segment, chunk))
            .expect("on every core");
        assert_eq!(
            split, one,
            "{case}: segments of {segment} bytes, {chunk} lines a job"
        );
    }
    one
}
