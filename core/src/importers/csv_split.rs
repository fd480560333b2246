//! A CSV's rows parsed on every core ([`rows_on_cores`]; issue 21 item 4: a 1 GB pause CSV's import was 2.2 s of
//! its 5.7 s `gclab mmu`, on one core). The input is read in segments of about [`SEGMENT_BYTES`], each cut after
//! the end of a record and cut again into chunks of about [`CHUNK_BYTES`] likewise; while one segment's chunks are
//! parsed on the cores ([`crate::parallel`]), each by its own [`CsvRows`] (the one CSV reader) numbering lines as
//! the file does, the segment before is applied in file order and the one after is read, each by one job — the
//! rounds the GC logs' lines go through too ([`super::rounds`]). Where records end is `csv_core`'s own answer (the
//! reader under `csv`, with the same settings) or, in a segment without a double quote, every line feed's.
//! The result is the sequential one's, first error included: a chunk's parse stops at its first error, and the
//! chunks are applied in order up to it. Memory: three segments and two segments' parsed rows; a record (lines
//! joined by a quoted field) is held whole only up to [`MAX_RECORD_BYTES`].

use std::io::Read;
use std::ops::Range;
use std::sync::Mutex;

use super::csv_rows::CsvRows;
use super::names::Texts;
use super::rounds::{in_rounds, stopped};
use super::{ImportError, ImportErrorKind, MAX_LINE_BYTES};

/// Bytes read at a time into one segment. `[bytes]`
const SEGMENT_BYTES: usize = 4 << 20;
/// Bytes of rows parsed by one job. `[bytes]`
const CHUNK_BYTES: usize = 1 << 20;
/// The longest record: one line up to the line cap, or lines joined by a quoted field. `[bytes]`
pub(crate) const MAX_RECORD_BYTES: usize = 16 * MAX_LINE_BYTES;
/// The sizes [`rows_on_cores`] reads and parses by.
pub(crate) const SIZES: Sizes = Sizes {
    segment_bytes: SEGMENT_BYTES,
    chunk_bytes: CHUNK_BYTES,
    max_record_bytes: MAX_RECORD_BYTES,
};

/// How [`rows_on_cores`] cuts its input (tests make all three small: many rounds, many jobs, a low cap). `[bytes]`
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sizes {
    pub segment_bytes: usize,
    pub chunk_bytes: usize,
    /// The longest record; past it, the input is an error.
    pub max_record_bytes: usize,
}

/// The rows of one chunk: its bytes behind a prefix, `\r` unless the chunk opens the file. A reader strips a
/// byte-order mark only from the start of what it reads; behind the prefix (an empty line to the reader, no line to
/// the line count) a mark opening a later line stays, as in the file read whole.
pub(crate) type ChunkRows<'a> = CsvRows<std::io::Chain<&'a [u8], &'a [u8]>>;

/// [`ChunkRows`] of `bytes` (whose first line is `first_line`; `opens_file`: they start the file).
fn chunk_rows<'a>(
    file: &str,
    bytes: &'a [u8],
    first_line: usize,
    opens_file: bool,
) -> ChunkRows<'a> {
    let prefix: &[u8] = if opens_file { b"" } else { b"\r" };
    CsvRows::starting_at(file, prefix.chain(bytes), first_line)
}

/// What one chunk's rows became: the items up to the first error, the texts they refer to by index (see
/// [`rows_on_cores`]), and that error.
type Parsed<T> = (Vec<T>, Texts, Option<ImportError>);

/// [`Parsed`] kept for the next round, whose apply job moves the items out (the jobs see a round's state by `&`).
type Kept<T> = (Slot<T>, Texts, Option<ImportError>);

/// Parses the rows of the CSV `src` (called `file`): `header` reads the header from the first rows and makes the
/// context `C`; `parse` makes an item of each further row (its 1-based line, its untrimmed fields, and the texts
/// local to the rows parsed together, where it may put a text and refer to it by number); `apply` takes
/// each group's items and its texts, in file order (its error is the input's, after the rows before). `Ok(None)`:
/// no row at all (a file of blank lines).
pub(crate) fn rows_on_cores<C: Sync, T: Send>(
    file: &str,
    src: impl Read + Send,
    sizes: Sizes,
    header: impl FnOnce(&mut ChunkRows<'_>) -> Result<C, ImportError>,
    parse: impl Fn(&C, usize, &csv::StringRecord, &mut Texts) -> Result<T, ImportError> + Sync,
    apply: impl FnMut(&C, Vec<T>, &[String]) -> Result<(), ImportError> + Send,
) -> Result<Option<C>, ImportError> {
    let mut cutter = Cutter {
        src,
        carry: Vec::new(),
        line: 1,
        done: false,
        handed: 0,
        sizes: Sizes {
            segment_bytes: sizes.segment_bytes.max(1),
            chunk_bytes: sizes.chunk_bytes.max(1),
            max_record_bytes: sizes.max_record_bytes.max(1),
        },
    };
    // The header and the rest of the first segment with rows, here (a small file ends here, on this thread).
    let mut apply = apply;
    let ctx = loop {
        let Some(seg) = cutter.next(file) else {
            return Ok(None);
        };
        let mut rows = chunk_rows(file, &seg.bytes, seg.first_line, seg.opens_file);
        if rows.at_end() {
            match seg.error {
                Some(e) => return Err(e),
                None => continue,
            }
        }
        let ctx = header(&mut rows)?;
        let (items, texts, error) = parse_rows(&ctx, &mut rows, &parse);
        apply(&ctx, items, &texts.list)?;
        if let Some(e) = error.or(seg.error) {
            return Err(e);
        }
        break ctx;
    };
    let cutter = Mutex::new(cutter);
    let read = || Ok(cutter.lock().map_err(|_| stopped(file))?.next(file));
    let parse_chunk = |seg: &Segment, k: usize| {
        let (range, first_line) = seg.chunks[k].clone();
        let opens_file = seg.opens_file && range.start == 0;
        let mut rows = chunk_rows(file, &seg.bytes[range], first_line, opens_file);
        let (items, texts, error) = parse_rows(&ctx, &mut rows, &parse);
        (Slot::new(items), texts, error)
    };
    // A chunk's error comes after its items; the segment's own (a read error) after all its chunks.
    let apply_segment = |seg: &Segment, kept: &[Kept<T>]| {
        for (items, texts, error) in kept {
            apply(&ctx, items.take(), &texts.list)?;
            if let Some(e) = error {
                return Err(e.clone());
            }
        }
        seg.error.clone().map_or(Ok(()), Err)
    };
    let pieces = |seg: &Segment| seg.chunks.len();
    in_rounds(file, "import-csv", read, pieces, parse_chunk, apply_segment)?;
    Ok(Some(ctx))
}

/// The rows of `rows` parsed to items, up to the first error.
fn parse_rows<C, T>(
    ctx: &C,
    rows: &mut ChunkRows<'_>,
    parse: &impl Fn(&C, usize, &csv::StringRecord, &mut Texts) -> Result<T, ImportError>,
) -> Parsed<T> {
    let (mut items, mut texts) = (Vec::new(), Texts::default());
    while let Some(row) = rows.next_row() {
        match row.and_then(|(line, rec)| parse(ctx, line, rec, &mut texts)) {
            Ok(item) => items.push(item),
            Err(e) => return (items, texts, Some(e)),
        }
    }
    (items, texts, None)
}

/// The items of one chunk, moved out once by the job that applies them (the jobs see the round's state by `&`).
struct Slot<T>(Mutex<Vec<T>>);

impl<T> Slot<T> {
    fn new(items: Vec<T>) -> Self {
        Slot(Mutex::new(items))
    }

    fn take(&self) -> Vec<T> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

/// Bytes of the input from the start of a record to the end of one, cut into chunks that start records.
struct Segment {
    bytes: Vec<u8>,
    /// It starts the file.
    opens_file: bool,
    /// 1-based line of the first byte.
    first_line: usize,
    /// Each chunk's bytes and first line.
    chunks: Vec<(Range<usize>, usize)>,
    /// What ends the input after this segment's rows: a read error, or a record past the cap.
    error: Option<ImportError>,
}

/// Reads `src` and cuts it after the ends of records.
struct Cutter<R> {
    src: R,
    /// Bytes read and not handed out; they start a record.
    carry: Vec<u8>,
    /// 1-based line of `carry`'s first byte.
    line: usize,
    /// `src` is at its end or failed: no more reads.
    done: bool,
    /// Bytes handed out in segments so far.
    handed: u64,
    sizes: Sizes,
}

impl<R: Read> Cutter<R> {
    /// The next segment (`None` at the end). A read error, or a record longer than the cap, ends the input with
    /// the rows before it in a last segment.
    fn next(&mut self, file: &str) -> Option<Segment> {
        if self.done && self.carry.is_empty() {
            return None;
        }
        let Sizes {
            segment_bytes,
            chunk_bytes,
            max_record_bytes,
        } = self.sizes;
        let mut buf = std::mem::take(&mut self.carry);
        let (mut error, mut io_error) = (None, None);
        let mut target = segment_bytes;
        let (ends, cut) = loop {
            if buf.len() < target && !self.done {
                let want = (target - buf.len()) as u64;
                match (&mut self.src).take(want).read_to_end(&mut buf) {
                    Ok(n) if (n as u64) < want => self.done = true,
                    Ok(_) => {}
                    Err(e) => {
                        self.done = true;
                        io_error = Some(e.to_string());
                    }
                }
            }
            let ends = record_ends(&buf, chunk_bytes, self.handed == 0);
            if self.done {
                // The last record needs no line feed; after a read error, only whole records are kept.
                let Some(e) = io_error.take() else {
                    break (ends, buf.len());
                };
                // Read as far as the record it failed in, which is where the sequential reader says it failed.
                let cut = ends.last().copied().unwrap_or(0);
                let line = self.line + lines_in(&buf[..cut]);
                error = Some(ImportError::new(file, line, ImportErrorKind::Io(e)));
                break (ends, cut);
            }
            let tail = ends.last().map_or(0, |&e| e);
            if buf.len() - tail > max_record_bytes {
                // A record without an end in sight: nothing after it is read.
                self.done = true;
                let line = self.line + lines_in(&buf[..tail]);
                error = Some(too_long(file, &buf[tail..], line, max_record_bytes));
                break (ends, tail);
            }
            if tail > 0 && buf.len() >= target {
                break (ends, tail);
            }
            // Doubling: each look for an end rescans the buffer, which stays linear in all.
            target = buf.len().saturating_add(segment_bytes.max(buf.len()));
        };
        self.carry = if error.is_none() {
            buf.split_off(cut)
        } else {
            Vec::new()
        };
        buf.truncate(cut);
        let first_line = self.line;
        let mut chunks = Vec::new();
        let mut start = 0;
        for end in ends.into_iter().filter(|&e| e < cut).chain([cut]) {
            if end > start {
                chunks.push((start..end, self.line));
                self.line += lines_in(&buf[start..end]);
                start = end;
            }
        }
        let opens_file = self.handed == 0;
        self.handed += buf.len() as u64;
        Some(Segment {
            bytes: buf,
            opens_file,
            first_line,
            chunks,
            error,
        })
    }
}

/// Line feeds in `bytes`.
fn lines_in(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// The error for `tail`, a record (starting at line `line`) that runs past `cap` bytes: a line past the line cap
/// in it (as the sequential reader says), else the record's own length.
fn too_long(file: &str, tail: &[u8], line: usize, cap: usize) -> ImportError {
    let mut start = 0;
    for (k, end) in memchr::memchr_iter(b'\n', tail)
        .chain([tail.len()])
        .enumerate()
    {
        if end - start > MAX_LINE_BYTES {
            return ImportError::new(
                file,
                line + k,
                ImportErrorKind::LineTooLong {
                    limit_bytes: MAX_LINE_BYTES,
                    expected: "CSV rows".into(),
                },
            );
        }
        start = end + 1;
    }
    let blank = tail.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let skipped = lines_in(&tail[..blank]);
    ImportError::new(
        file,
        line + skipped,
        ImportErrorKind::RecordTooLong { limit_bytes: cap },
    )
}

/// Offsets just past ends of records in `bytes` (which starts a record), ascending: the first at or after each
/// `every` bytes from the previous, and the last. Without a double quote every line feed ends a record (no field
/// can hold one); otherwise `csv_core`'s reader, as `csv` configures it by default, says where records end (a
/// byte-order mark skipped only when `bytes` open the file).
fn record_ends(bytes: &[u8], every: usize, opens_file: bool) -> Vec<usize> {
    let mut out = Vec::new();
    if memchr::memchr(b'"', bytes).is_none() {
        let mut at = every;
        while let Some(i) = bytes.get(at..).and_then(|rest| memchr::memchr(b'\n', rest)) {
            out.push(at + i + 1);
            at = (at + i + 1).saturating_add(every);
        }
        if let Some(i) = memchr::memrchr(b'\n', bytes)
            && out.last() != Some(&(i + 1))
        {
            out.push(i + 1);
        }
        return out;
    }
    let mut reader = csv_core::Reader::new();
    let (mut fields, mut ends) = ([0u8; 4096], [0usize; 64]);
    if !opens_file {
        // As for the chunks' readers (`chunk_rows`): a mark opening a later line is not the file's.
        let _ = reader.read_record(b"\r", &mut fields, &mut ends);
    }
    let (mut pos, mut next, mut last) = (0, every, None);
    // An empty input would tell the reader the data ended (and end the open record): never given.
    while pos < bytes.len() {
        let (result, read, _, _) = reader.read_record(&bytes[pos..], &mut fields, &mut ends);
        pos += read;
        match result {
            csv_core::ReadRecordResult::Record => {
                last = Some(pos);
                if pos >= next {
                    out.push(pos);
                    next = pos.saturating_add(every);
                }
            }
            csv_core::ReadRecordResult::OutputFull | csv_core::ReadRecordResult::OutputEndsFull => {
            }
            csv_core::ReadRecordResult::InputEmpty | csv_core::ReadRecordResult::End => break,
        }
    }
    if let Some(l) = last
        && out.last() != Some(&l)
    {
        out.push(l);
    }
    out
}

#[cfg(test)]
#[path = "csv_split_tests.rs"]
mod tests;
