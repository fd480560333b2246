//! Importers of real pause data for the exact MMU (DESIGN §6): a pause list as CSV ([`pauses_csv`]), a
//! utilisation step function as CSV ([`util_csv`]), HotSpot unified GC logs ([`jvm_log`]) and Android logcat GC
//! lines ([`logcat`]). Each turns a file into a [`PauseSeries`] or a [`UtilizationSeries`] with times in integer
//! nanoseconds, ready for [`crate::metrics::mmu`].
//!
//! Errors are fatal only when nothing usable remains or a CSV cell is wrong; they name the file, the 1-based line
//! and what was expected ([`ImportError`]). Log lines that are not understood are never dropped silently: they are
//! counted in a [`Warnings`] reporter, grouped by reason with their first line numbers.

mod csv_rows;
mod error;
pub mod jvm_log;
pub mod logcat;
pub mod pauses_csv;
mod sink;
pub mod util_csv;

use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::metrics::mmu::UtilSeries;

pub use error::{ImportError, ImportErrorKind, Warnings};
pub use sink::{PauseSink, PauseSpans};

/// Input format of `gclab mmu`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Decide from the content (CSV header, log line patterns).
    Auto,
    /// `start_ns,end_ns[,mutator][,kind]`: one row per pause.
    PausesCsv,
    /// `time_ns,util[,series]`: a utilisation step function.
    UtilCsv,
    /// HotSpot unified logging (`-Xlog:gc*,safepoint`).
    Jvm,
    /// Android logcat with Dalvik or ART GC lines.
    Logcat,
}

impl Format {
    /// All names accepted by `--format`.
    pub const NAMES: &'static str = "auto, pauses-csv, util-csv, jvm, logcat";

    /// Parses a `--format` value.
    pub fn parse(text: &str) -> Option<Format> {
        Some(match text {
            "auto" => Format::Auto,
            "pauses-csv" => Format::PausesCsv,
            "util-csv" => Format::UtilCsv,
            "jvm" => Format::Jvm,
            "logcat" => Format::Logcat,
            _ => return None,
        })
    }

    /// The `--format` name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::PausesCsv => "pauses-csv",
            Format::UtilCsv => "util-csv",
            Format::Jvm => "jvm",
            Format::Logcat => "logcat",
        }
    }
}

/// One stop-the-world pause of one mutator.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pause {
    /// Start. `[ns]`
    pub start_ns: u64,
    /// End. `[ns]`
    pub end_ns: u64,
    /// Index into [`PauseSeries::mutators`].
    pub mutator: usize,
    /// What kind of pause (`Pause Young (Normal)`, `Pause Mark Start`, `GC_CONCURRENT`, `stw_sweep_termination`).
    pub kind: String,
    /// Why it happened (`G1 Evacuation Pause`, `Allocation Failure`, `Background`), when logged.
    pub cause: Option<String>,
    /// The collector's cycle number (`GC(12)`), when logged.
    pub gc_id: Option<u64>,
    /// Heap occupancy before, after, and heap size. `[bytes]`
    pub heap_before_bytes: Option<u64>,
    /// Heap occupancy after the pause. `[bytes]`
    pub heap_after_bytes: Option<u64>,
    /// Heap capacity. `[bytes]`
    pub heap_total_bytes: Option<u64>,
    /// 1-based line of the input it came from.
    pub line: usize,
}

impl Pause {
    /// Length. `[ns]`
    pub fn duration_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

/// A heap transition a log reports outside a pause line: a whole concurrent cycle (ZGC's
/// `Garbage Collection (Warmup) 34M(13%)->22M(9%)`) or a concurrent phase (Shenandoah's
/// `Concurrent cleanup 60M->41M(64M) 0.076ms`). Pauses carry their own transitions in [`Pause`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeapChange {
    /// When occupancy was `before_bytes` (the cycle's or phase's start). `[ns]`
    pub start_ns: u64,
    /// When it was `after_bytes` (its end). `[ns]`
    pub end_ns: u64,
    /// Occupancy before. `[bytes]`
    pub before_bytes: u64,
    /// Occupancy after. `[bytes]`
    pub after_bytes: u64,
    /// Heap capacity, when logged (ZGC: its `Capacity:` row). `[bytes]`
    pub total_bytes: Option<u64>,
    /// What changed it (`Garbage Collection (Warmup)`, `Concurrent cleanup`).
    pub what: String,
    /// The collector's cycle number, when logged.
    pub gc_id: Option<u64>,
    /// 1-based line.
    pub line: usize,
}

/// A concurrent phase: the collector working beside the mutators (`Concurrent Mark 24.851ms`), not a pause.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConcurrentPhase {
    /// Start (end minus the logged duration). `[ns]`
    pub start_ns: u64,
    /// End (the line's time stamp). `[ns]`
    pub end_ns: u64,
    /// The phase as logged (`Concurrent Mark`, `Concurrent marking (unload classes)`).
    pub name: String,
    /// The collector's cycle number, when logged.
    pub gc_id: Option<u64>,
    /// 1-based line.
    pub line: usize,
}

/// A safepoint: every Java thread stopped for a VM operation — a collection's pause or something else
/// (`Safepoint "G1CollectForAllocation", Time since last: …, Total: 15799351 ns`; JDK 9–16's
/// `Total time for which application threads were stopped: X seconds`). Its time includes reaching the safepoint.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Safepoint {
    /// Start (end minus the logged total). `[ns]`
    pub start_ns: u64,
    /// End (the line's time stamp). `[ns]`
    pub end_ns: u64,
    /// The VM operation (`G1CollectForAllocation`, `ZMarkStart`, `Cleanup`; `stopped` for the JDK 9–16 form).
    pub operation: String,
    /// 1-based line.
    pub line: usize,
}

/// Length of the union of `spans` (overlapping and nested spans count once). `[ns]`
pub fn covered_ns(spans: impl IntoIterator<Item = (u64, u64)>) -> u64 {
    let mut v: Vec<(u64, u64)> = spans.into_iter().filter(|(a, b)| b > a).collect();
    v.sort_unstable();
    let (mut total, mut reach) = (0u64, 0u64);
    for (a, b) in v {
        let a = a.max(reach);
        if b > a {
            total += b - a;
            reach = b;
        }
    }
    total
}

/// An MMU table a runtime logged itself (ZGC's `MMU: 2ms/92.4%, …`).
#[derive(Debug, Clone, PartialEq)]
pub struct ReportedMmu {
    /// 1-based line.
    pub line: usize,
    /// Time of the line (same clock as the pauses). `[ns]`
    pub time_ns: u64,
    /// `GC(n)` of the line.
    pub gc_id: Option<u64>,
    /// `(window, utilisation in percent)`. `[ns]`
    pub points: Vec<(u64, f64)>,
}

/// Pauses of one or more mutators, with the observation span they were taken over; the pauses are kept whole
/// (`Vec<Pause>`) or as [`PauseSpans`] (what the MMU needs).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PauseSeries<S = Vec<Pause>> {
    /// Pauses in input order.
    pub pauses: S,
    /// Mutator names (pids, `mutator` column values); at least one.
    pub mutators: Vec<String>,
    /// The default observation span. `[ns]`
    pub span_ns: (u64, u64),
    /// MMU tables logged by the runtime itself.
    pub reported_mmu: Vec<ReportedMmu>,
    /// Heap transitions logged outside pause lines, in time order.
    pub heap_changes: Vec<HeapChange>,
    /// Concurrent phases, in time order (nested phases, such as G1's `Concurrent Mark Cycle` and its parts, are
    /// all kept).
    pub concurrent: Vec<ConcurrentPhase>,
    /// Safepoints with a time stamp, in time order (HotSpot `-Xlog:safepoint`).
    pub safepoints: Vec<Safepoint>,
    /// Lines not used and notes.
    pub warnings: Warnings,
}

impl<S: PauseSink> PauseSeries<S> {
    /// One utilisation step function per mutator over `span` (pauses clipped to it).
    pub fn util_series(&self, span: (u64, u64)) -> Vec<UtilSeries> {
        (0..self.mutators.len().max(1))
            .map(|m| {
                let p: Vec<(u64, u64)> = self
                    .pauses
                    .spans()
                    .filter(|p| p.2 == m)
                    .map(|p| (p.0, p.1))
                    .collect();
                UtilSeries::from_pauses(&p, span.0, span.1)
            })
            .collect()
    }
}

/// A utilisation step function per series (processor or mutator).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UtilizationSeries {
    /// Series names (the `series` column, or `""`).
    pub names: Vec<String>,
    /// One step function per name.
    pub series: Vec<UtilSeries>,
    /// Notes.
    pub warnings: Warnings,
}

/// Pause count and longest pause inside a span.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PauseStats {
    /// Pauses (or stretches at utilisation 0) overlapping the span.
    pub pauses: usize,
    /// Longest of them, clipped to the span. `[ns]`
    pub max_pause_ns: u64,
}

/// What an importer produced (the pauses kept as `S`, see [`PauseSink`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Imported<S = Vec<Pause>> {
    /// A pause list.
    Pauses(PauseSeries<S>),
    /// A utilisation step function.
    Util(UtilizationSeries),
}

impl<S: PauseSink> Imported<S> {
    /// The default observation span: the pause list's, or the union of the series' spans. `[ns]`
    pub fn default_span_ns(&self) -> (u64, u64) {
        match self {
            Imported::Pauses(p) => p.span_ns,
            Imported::Util(u) => {
                let spans = u
                    .series
                    .iter()
                    .filter(|s| s.times.len() >= 2)
                    .map(UtilSeries::span);
                spans
                    .fold(None, |acc: Option<(u64, u64)>, (a, b)| {
                        Some(acc.map_or((a, b), |(x, y)| (x.min(a), y.max(b))))
                    })
                    .unwrap_or((0, 0))
            }
        }
    }

    /// The step functions to measure over `span`. `[ns]`
    pub fn util_series(&self, span: (u64, u64)) -> Vec<UtilSeries> {
        // The exact MMU works below MAX_TIME_NS (its sums would overflow beyond): a span reaching past it is
        // clamped, as every imported time is below it anyway.
        let span = (span.0.min(MAX_TIME_NS), span.1.min(MAX_TIME_NS));
        match self {
            Imported::Pauses(p) => p.util_series(span),
            Imported::Util(u) => u.series.iter().map(|s| s.clipped(span.0, span.1)).collect(),
        }
    }

    /// Pauses overlapping `span` and the longest (for a step function: stretches at utilisation 0).
    pub fn pause_stats(&self, span: (u64, u64)) -> PauseStats {
        let mut st = PauseStats::default();
        let mut add = |a: u64, b: u64| {
            let (a, b) = (a.max(span.0), b.min(span.1));
            if b > a {
                st.pauses += 1;
                st.max_pause_ns = st.max_pause_ns.max(b - a);
            }
        };
        match self {
            Imported::Pauses(p) => p.pauses.spans().for_each(|(a, b, _)| add(a, b)),
            Imported::Util(u) => {
                for s in &u.series {
                    let mut zero_from = None;
                    for (k, (&t, &v)) in s.times.iter().zip(&s.util).enumerate() {
                        let last = k + 1 == s.times.len();
                        match (v == 0.0 && !last, zero_from) {
                            (true, None) => zero_from = Some(t),
                            (false, Some(a)) => {
                                add(a, t);
                                zero_from = None;
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        st
    }

    /// Lines not used and notes.
    pub fn warnings(&self) -> &Warnings {
        match self {
            Imported::Pauses(p) => &p.warnings,
            Imported::Util(u) => &u.warnings,
        }
    }

    /// MMU tables the runtime logged itself (ZGC).
    pub fn reported_mmu(&self) -> &[ReportedMmu] {
        match self {
            Imported::Pauses(p) => &p.reported_mmu,
            Imported::Util(_) => &[],
        }
    }
}

/// Every time and duration an importer yields is below this (about 146 years): the range the exact MMU works in.
/// A log stamp or duration beyond it is garbled; its line is skipped with [`OUT_OF_RANGE`]. `[ns]`
pub const MAX_TIME_NS: u64 = crate::units::MAX_TIME_NS;
/// The skip reason of a line whose time or duration reaches [`MAX_TIME_NS`].
pub(crate) const OUT_OF_RANGE: &str =
    "a time or duration beyond 2^62 ns (146 years): expected a plausible time stamp";

/// Longest line the log importers read; a longer line is skipped (and counted in the warnings). `[bytes]`
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// Lines read ahead to tell the format (`--format auto`).
const DETECT_LINES: usize = 2000;
/// Most bytes read ahead to tell the format. `[bytes]`
const DETECT_BYTES: usize = 4 << 20;

/// Reads and imports `path` (named `path.display()` in errors); returns the format used and the data. HotSpot and
/// logcat logs are streamed line by line: memory holds one line and the pauses found, not the file. A gzip-,
/// zstd- or bzip2-compressed file (a rotated `gc.log.0.gz`, Go's `util_system_sweep.csv.gz`) is decompressed on the
/// fly, found by its magic bytes; line numbers in errors are then those of the decompressed text.
pub fn import_file(path: &Path, format: Format) -> Result<(Format, Imported), ImportError> {
    import_file_watched(path, format, Arc::default(), Arc::default())
}

/// `src` (the file called `name`) with any compression undone.
fn decompressed(name: &str, src: Box<dyn Read>) -> Result<Box<dyn Read>, ImportError> {
    crate::trace::reader::decompressed(name, src)
        .map_err(|e| ImportError::new(name, 0, ImportErrorKind::Io(e.message)))
}

/// [`import_file`] that adds every byte it reads to `bytes_read` (for a progress bar) and stops with an I/O
/// error ("cancelled") at its next read once `cancel` is set — for callers on another thread than the one waiting.
pub fn import_file_watched(
    path: &Path,
    format: Format,
    bytes_read: Arc<AtomicU64>,
    cancel: Arc<AtomicBool>,
) -> Result<(Format, Imported), ImportError> {
    import_file_as(path, format, bytes_read, cancel)
}

/// [`import_file_watched`] keeping the pauses as `S`: [`PauseSpans`] for a measurement that needs only their
/// times (`gclab mmu`), so that memory holds 24 bytes a pause instead of the whole records.
pub fn import_file_as<S: PauseSink>(
    path: &Path,
    format: Format,
    bytes_read: Arc<AtomicU64>,
    cancel: Arc<AtomicBool>,
) -> Result<(Format, Imported<S>), ImportError> {
    let name = path.display().to_string();
    let f = std::fs::File::open(path)
        .map_err(|e| ImportError::new(&name, 0, ImportErrorKind::Io(e.to_string())))?;
    // Progress counts the file's own (compressed) bytes, so that it runs up to the file's size.
    let watched = Box::new(Watched {
        inner: f,
        bytes_read,
        cancel,
    });
    let src = decompressed(&name, watched)?;
    import_reader_as(&name, BufReader::with_capacity(256 * 1024, src), format)
}

/// A reader that counts what it reads and refuses to read once cancelled.
struct Watched<R> {
    inner: R,
    bytes_read: Arc<AtomicU64>,
    cancel: Arc<AtomicBool>,
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(std::io::Error::other("cancelled"));
        }
        let n = self.inner.read(buf)?;
        self.bytes_read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Imports the bytes of a file called `name`.
pub fn import_bytes(
    name: &str,
    bytes: &[u8],
    format: Format,
) -> Result<(Format, Imported), ImportError> {
    import_reader(name, bytes, format)
}

/// Imports a file called `name` read from `src`. Logs (HotSpot, logcat) are parsed line by line as they are read,
/// invalid UTF-8 replaced and counted in the warnings; CSV files are read whole and must be UTF-8. With
/// [`Format::Auto`] the format is told from the first 2000 lines.
pub fn import_reader(
    name: &str,
    src: impl BufRead,
    format: Format,
) -> Result<(Format, Imported), ImportError> {
    import_reader_as(name, src, format)
}

/// [`import_reader`] keeping the pauses as `S`.
pub fn import_reader_as<S: PauseSink>(
    name: &str,
    mut src: impl BufRead,
    format: Format,
) -> Result<(Format, Imported<S>), ImportError> {
    let io = |e: std::io::Error| ImportError::new(name, 0, ImportErrorKind::Io(e.to_string()));
    let mut head = Vec::new();
    let format = match format {
        Format::Auto => {
            let mut eof = false;
            // At most DETECT_LINES lines and DETECT_BYTES bytes are held to tell the format.
            for _ in 0..DETECT_LINES {
                if head.len() >= DETECT_BYTES {
                    break;
                }
                let n = (&mut src)
                    .take(MAX_LINE_BYTES as u64)
                    .read_until(b'\n', &mut head)
                    .map_err(io)?;
                if n == 0 || n < MAX_LINE_BYTES && !head.ends_with(b"\n") {
                    eof = true;
                    break;
                }
                if !head.ends_with(b"\n") {
                    break;
                }
            }
            let text = String::from_utf8_lossy(&head);
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            if eof && text.trim().is_empty() {
                return Err(ImportError::new(
                    name,
                    1,
                    ImportErrorKind::Empty(format!("{} data", describe(format))),
                ));
            }
            detect(name, text)?
        }
        f => f,
    };
    let data = match format {
        Format::Jvm => Imported::Pauses(jvm_log::parse_read_as(
            name,
            std::io::Cursor::new(head).chain(src),
        )?),
        Format::Logcat | Format::Auto => Imported::Pauses(logcat::parse_read_as(
            name,
            std::io::Cursor::new(head).chain(src),
        )?),
        Format::PausesCsv | Format::UtilCsv => {
            import_csv(name, std::io::Cursor::new(head).chain(src), format)?
        }
    };
    Ok((format, data))
}

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

/// Imports a pause or utilisation CSV streamed from `src` (UTF-8; see `csv_rows`).
fn import_csv<S: PauseSink>(
    name: &str,
    src: impl BufRead,
    format: Format,
) -> Result<Imported<S>, ImportError> {
    let mut rows = csv_rows::CsvRows::new(name, src).peekable();
    if rows.peek().is_none() {
        return Err(ImportError::new(
            name,
            1,
            ImportErrorKind::Empty(format!("{} data", describe(format))),
        ));
    }
    Ok(match format {
        Format::UtilCsv => Imported::Util(util_csv::parse_rows(name, rows)?),
        _ => Imported::Pauses(pauses_csv::parse_rows(name, rows)?),
    })
}

fn describe(format: Format) -> &'static str {
    match format {
        Format::Auto => "pause CSV, utilisation CSV, HotSpot GC log or logcat",
        Format::PausesCsv => "pause CSV (start_ns,end_ns)",
        Format::UtilCsv => "utilisation CSV (time_ns,util)",
        Format::Jvm => "HotSpot GC log",
        Format::Logcat => "logcat",
    }
}

/// Tells the format from the content: a CSV header names its columns; logs are recognised by their GC lines
/// among the first 2000 lines.
pub fn detect(name: &str, text: &str) -> Result<Format, ImportError> {
    let (first_no, first) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())
        .map_or((0, ""), |(i, l)| (i + 1, l.trim()));
    let header: Vec<String> = csv_rows::line_fields(first)
        .iter()
        .map(|f| f.to_lowercase())
        .collect();
    let has = |c: &str| header.iter().any(|h| h == c);
    if has("start_ns") || has("end_ns") {
        return Ok(Format::PausesCsv);
    }
    if has("time_ns") || has("util") || has("utilization") {
        return Ok(Format::UtilCsv);
    }
    let (mut jvm, mut logcat) = (0, 0);
    for line in text.lines().take(2000) {
        if jvm_log::looks_like(line) {
            jvm += 1;
        }
        if logcat::looks_like(line) {
            logcat += 1;
        }
    }
    match (jvm, logcat) {
        (0, 0) => Err(ImportError::new(
            name,
            first_no,
            ImportErrorKind::UnknownFormat(
                "expected a CSV header with start_ns,end_ns or time_ns,util, HotSpot -Xlog:gc lines or logcat \
                 GC lines (or give --format)"
                    .into(),
            ),
        )),
        (j, l) if j >= l => Ok(Format::Jvm),
        _ => Ok(Format::Logcat),
    }
}

/// Parses a decimal number times 10^`scale` as an integer, exactly (`"15.568"`, 6 → 15 568 000); rounds half up
/// beyond the available digits. `None` for anything but digits with at most one point.
pub(crate) fn decimal_scaled(text: &str, scale: u32) -> Option<u64> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut v: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    v = v.checked_mul(10u64.checked_pow(scale)?)?;
    let digits = frac.as_bytes();
    let mut place = 10u64.pow(scale);
    for (i, &d) in digits.iter().enumerate() {
        place /= 10;
        let d = u64::from(d - b'0');
        if place == 0 {
            if i < digits.len() && d >= 5 {
                v = v.checked_add(1)?;
            }
            break;
        }
        v = v.checked_add(d * place)?;
    }
    Some(v)
}

/// A duration token with its unit (`15.568ms`, `0.081s`, `123us`, `12ns`, `2ms`) in nanoseconds.
pub(crate) fn duration_token_ns(token: &str) -> Option<u64> {
    let t = token.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (num, unit) = t.split_at(split);
    let scale = match unit {
        "ns" => 0,
        "us" | "µs" => 3,
        "ms" => 6,
        "s" => 9,
        _ => return None,
    };
    decimal_scaled(num, scale)
}

/// A size with a binary unit (`23M`, `4096K`, `1.5G`, `12KB`, `48B`, `5MB`) in bytes.
pub(crate) fn size_token_bytes(token: &str) -> Option<u64> {
    let t = token.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (num, unit) = t.split_at(split);
    let shift = match unit {
        "B" => 0,
        "K" | "KB" | "k" => 10,
        "M" | "MB" => 20,
        "G" | "GB" => 30,
        "T" | "TB" => 40,
        _ => return None,
    };
    let milli = decimal_scaled(num, 3)?;
    u64::try_from((u128::from(milli) << shift) / 1000).ok()
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watched_import_counts_its_bytes_and_stops_when_cancelled() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/logs/jdk17-serial-xmx128m.log");
        let size = std::fs::metadata(&path).expect("fixture").len();
        let (read, cancel) = (
            Arc::new(AtomicU64::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let (_, data) = import_file_watched(&path, Format::Auto, read.clone(), cancel.clone())
            .expect("imports");
        assert_eq!(
            read.load(Ordering::Relaxed),
            size,
            "every byte counted once"
        );
        assert_eq!(data, import_file(&path, Format::Auto).expect("imports").1);
        cancel.store(true, Ordering::Relaxed);
        let e = import_file_watched(&path, Format::Auto, Arc::default(), cancel)
            .expect_err("cancelled");
        assert!(e.to_string().contains("cancelled"), "{e}");
    }

    #[test]
    fn decimals_are_exact() {
        assert_eq!(decimal_scaled("15.568", 6), Some(15_568_000), "ms");
        assert_eq!(decimal_scaled("0.532", 9), Some(532_000_000), "s");
        assert_eq!(decimal_scaled("7", 3), Some(7000), "integer");
        assert_eq!(decimal_scaled("1.23456789", 3), Some(1235), "rounded");
        assert_eq!(decimal_scaled("1.2.3", 3), None, "two points");
        assert_eq!(decimal_scaled("", 3), None, "empty");
        assert_eq!(duration_token_ns("424us"), Some(424_000), "us");
        assert_eq!(duration_token_ns("1.008s"), Some(1_008_000_000), "s");
        assert_eq!(duration_token_ns("12"), None, "no unit");
        assert_eq!(size_token_bytes("23M"), Some(23 << 20), "M");
        assert_eq!(size_token_bytes("12KB"), Some(12 << 10), "KB");
        assert_eq!(size_token_bytes("48B"), Some(48), "B");
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = ImportError::bad_value("p.csv", 3, "end_ns", "x", "an integer of ns");
        assert_eq!(
            e.to_string(),
            "p.csv:3: `x` in `end_ns` is not an integer of ns",
            "line"
        );
        let e = ImportError::new("p.csv", 0, ImportErrorKind::Io("gone".into()));
        assert_eq!(e.to_string(), "p.csv: cannot read: gone", "whole file");
    }

    #[test]
    fn logs_stream_with_invalid_utf8_and_long_lines_as_warnings() {
        let good = "[0.5s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 23M->4M(128M) 1.5ms\r\n\
                    [0.9s][info][gc] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 23M->4M(128M) 2ms\n";
        let whole = jvm_log::parse("a.log", good).unwrap();
        let streamed = jvm_log::parse_read("a.log", good.as_bytes()).unwrap();
        assert_eq!(whole, streamed, "the same pauses either way");
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(good.as_bytes());
        bytes.extend_from_slice(b"[1.0s][info][gc] GC(2) Pause Young (\xff) 23M->4M(128M) 3ms\n");
        bytes.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        bytes.extend_from_slice(
            b"\n[1.5s][info][gc] GC(3) Pause Full (System.gc()) 9M->3M(128M) 4ms",
        );
        let (format, data) = import_bytes("b.log", &bytes, Format::Auto).unwrap();
        assert_eq!(format, Format::Jvm, "detected");
        let Imported::Pauses(p) = data else {
            panic!("pauses")
        };
        assert_eq!(p.pauses.len(), 4, "the replaced line still counts");
        assert_eq!(p.pauses[3].line, 5, "line numbers after a long line");
        assert_eq!(
            p.warnings.messages(),
            vec![
                "1 line(s) with invalid UTF-8 (first at line 3) read with U+FFFD replacement characters"
                    .to_string(),
                "1 line(s) longer than 1 MiB skipped (first at line 4)".to_string()
            ],
            "notes"
        );
        let e = import_bytes("e.log", b"\n \n", Format::Jvm).unwrap_err();
        assert_eq!(
            e.to_string(),
            "e.log:1: the file is empty (expected HotSpot GC log data)",
            "empty"
        );
    }

    #[test]
    fn warnings_group_by_reason() {
        let mut w = Warnings::default();
        for l in [4, 9, 15] {
            w.skip(l, "not a GC line");
        }
        w.note("laid end to end");
        assert_eq!(w.skipped_lines(), 3, "count");
        assert_eq!(
            w.messages(),
            vec![
                "laid end to end".to_string(),
                "3 lines skipped: not a GC line (lines 4, 9, 15)".to_string()
            ],
            "messages"
        );
        assert_eq!(w.first_skipped(&[]), Some((4, "not a GC line")), "first");
        w.skip(20, "bad pause");
        assert_eq!(
            w.first_skipped(&["not a GC line"]),
            Some((20, "bad pause")),
            "the telling one"
        );
    }
}
