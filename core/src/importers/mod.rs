//! Importers of real pause data for the exact MMU (DESIGN §6): a pause list as CSV ([`pauses_csv`]), a
//! utilisation step function as CSV ([`util_csv`]), HotSpot unified GC logs ([`jvm_log`]) and Android logcat GC
//! lines ([`logcat`]). Each turns a file into a [`PauseSeries`] or a [`UtilizationSeries`] with times in integer
//! nanoseconds, ready for [`crate::metrics::mmu`].
//!
//! Errors are fatal only when nothing usable remains or a CSV cell is wrong; they name the file, the 1-based line
//! and what was expected ([`ImportError`]). Log lines that are not understood are never dropped silently: they are
//! counted in a [`Warnings`] reporter, grouped by reason with their first line numbers.

pub mod alloc;
mod csv_rows;
mod csv_split;
mod error;
pub(crate) mod format;
pub mod jvm_log;
mod lines;
pub mod logcat;
mod names;
mod pause_records;
mod pause_store;
pub mod pauses_csv;
mod phases;
mod rounds;
mod series;
mod sink;
mod tokens;
pub mod util_csv;

use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub use crate::input::lines::MAX_LINE_BYTES;
pub use crate::input::warnings::Warnings;
pub use error::{ImportError, ImportErrorKind};
use format::GC_LOG_EXPECTED;
pub use format::{Format, detect};
pub use names::MAX_MUTATORS;
pub use pause_records::{LogRecords, PauseRecords, PauseRef};
pub use pause_store::{PauseRun, RunReader};
pub use series::{
    ConcurrentPhase, HeapChange, Imported, Pause, PauseSeries, PauseStats, ReportedMmu, Safepoint,
    UtilizationSeries, covered_ns, union_ns,
};
pub use sink::{PauseSink, PauseSpans};

use crate::input::head::{InputKind, NoKind, classify, read_head};
use crate::progress::{Cancel, Progress};
pub(crate) use tokens::{decimal_scaled, duration_token_ns, size_token_bytes};

/// Every time and duration an importer yields is below this (about 146 years): the range the exact MMU works in.
/// A log stamp or duration beyond it is garbled; its line is skipped with [`OUT_OF_RANGE`]. `[ns]`
pub const MAX_TIME_NS: u64 = crate::units::MAX_TIME_NS;
/// The skip reason of a line whose time or duration reaches [`MAX_TIME_NS`].
pub(crate) const OUT_OF_RANGE: &str =
    "a time or duration beyond 2^62 ns (146 years): expected a plausible time stamp";

/// Reads and imports `path` (named `path.display()` in errors); returns the format used and the data. HotSpot and
/// logcat logs are streamed line by line: memory holds one line and the pauses found, not the file. A gzip-,
/// zstd- or bzip2-compressed file (a rotated `gc.log.0.gz`, Go's `util_system_sweep.csv.gz`) is decompressed on the
/// fly, found by its magic bytes; line numbers in errors are then those of the decompressed text.
pub fn import_file(path: &Path, format: Format) -> Result<(Format, Imported), ImportError> {
    import_file_watched(
        path,
        format,
        Box::new(crate::progress::NoProgress),
        &Cancel::never(),
    )
}

/// `src` (the file called `name`) with any compression undone.
fn decompressed(
    name: &str,
    src: Box<dyn Read + Send>,
) -> Result<Box<dyn Read + Send>, ImportError> {
    crate::trace::reader::decompressed(name, src)
        .map_err(|e| ImportError::new(name, 0, ImportErrorKind::Io(e.message)))
}

/// [`import_file`] that reports to `progress` the share of the file's (compressed) bytes read so far, and stops with
/// an I/O error ("cancelled") at its next read once `cancel` says so — for callers on another thread than the one
/// waiting (the app's loader).
pub fn import_file_watched<S: PauseSink>(
    path: &Path,
    format: Format,
    mut progress: Box<dyn Progress + Send>,
    cancel: &Cancel,
) -> Result<(Format, Imported<S>), ImportError> {
    let size = std::fs::metadata(path).map_or(0, |m| m.len()).max(1);
    let mut read = 0u64;
    let count = move |n: usize| {
        read += n as u64;
        progress.report((read as f64 / size as f64).min(1.0));
    };
    import_file_cancellable(path, format, Box::new(count), cancel.clone())
}

/// [`import_file`] keeping the pauses as `S`: [`PauseSpans`] for a measurement that needs only their times
/// (`gclab mmu`), so that memory holds 24 bytes a pause instead of the whole records; adds every byte it reads to
/// `bytes_read` and stops once `cancel` is set.
pub fn import_file_as<S: PauseSink>(
    path: &Path,
    format: Format,
    bytes_read: Arc<AtomicU64>,
    cancel: Arc<AtomicBool>,
) -> Result<(Format, Imported<S>), ImportError> {
    let count = move |n: usize| {
        bytes_read.fetch_add(n as u64, Ordering::Relaxed);
    };
    import_file_cancellable(path, format, Box::new(count), Cancel::from_flag(cancel))
}

/// [`import_file_as`] telling `count` how many bytes each read brought, stopped by core's [`Cancel`].
fn import_file_cancellable<S: PauseSink>(
    path: &Path,
    format: Format,
    count: Box<dyn FnMut(usize) + Send>,
    cancel: Cancel,
) -> Result<(Format, Imported<S>), ImportError> {
    let name = path.display().to_string();
    let f = std::fs::File::open(path)
        .map_err(|e| ImportError::new(&name, 0, ImportErrorKind::Io(e.to_string())))?;
    // Progress counts the file's own (compressed) bytes, so that it runs up to the file's size.
    let watched = Box::new(Watched {
        inner: f,
        count,
        cancel,
    });
    let src = decompressed(&name, watched)?;
    import_reader_as(&name, BufReader::with_capacity(256 * 1024, src), format)
}

/// A reader that tells `count` what it reads and refuses to read once cancelled.
struct Watched<R> {
    inner: R,
    count: Box<dyn FnMut(usize) + Send>,
    cancel: Cancel,
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.cancel.is_cancelled() {
            return Err(std::io::Error::other("cancelled"));
        }
        let n = self.inner.read(buf)?;
        (self.count)(n);
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
    src: impl BufRead + Send,
    format: Format,
) -> Result<(Format, Imported), ImportError> {
    import_reader_as(name, src, format)
}

/// [`import_reader`] keeping the pauses as `S`.
pub fn import_reader_as<S: PauseSink>(
    name: &str,
    mut src: impl BufRead + Send,
    format: Format,
) -> Result<(Format, Imported<S>), ImportError> {
    let io = |e: std::io::Error| ImportError::new(name, 0, ImportErrorKind::Io(e.to_string()));
    let mut head = Vec::new();
    let format = match format {
        // What the source is comes from the input layer's one sniff, over the prefix it reads.
        Format::Auto => {
            let h = read_head(&mut src).map_err(io)?;
            let kind = classify(name, &h);
            head = h.bytes;
            match kind {
                Ok(InputKind::GcLog(f)) => f,
                Ok(other) => {
                    return Err(ImportError::new(
                        name,
                        0,
                        ImportErrorKind::UnknownFormat(format!(
                            "this is {}: {GC_LOG_EXPECTED}",
                            other.describe()
                        )),
                    ));
                }
                Err(NoKind::Empty) => {
                    return Err(ImportError::new(
                        name,
                        1,
                        ImportErrorKind::Empty(format!("{} data", describe(format))),
                    ));
                }
                Err(NoKind::Format { line }) => {
                    return Err(ImportError::new(
                        name,
                        line,
                        ImportErrorKind::UnknownFormat(GC_LOG_EXPECTED.into()),
                    ));
                }
            }
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

/// Imports a pause or utilisation CSV streamed from `src` (UTF-8; see `csv_rows`).
fn import_csv<S: PauseSink>(
    name: &str,
    src: impl BufRead + Send,
    format: Format,
) -> Result<Imported<S>, ImportError> {
    let empty = || {
        ImportError::new(
            name,
            1,
            ImportErrorKind::Empty(format!("{} data", describe(format))),
        )
    };
    if format != Format::UtilCsv {
        return pauses_csv::parse_split(name, src, csv_split::SIZES)?
            .map(Imported::Pauses)
            .ok_or_else(empty);
    }
    let spill_at = match S::STEPS_ON_DISK {
        true => crate::metrics::mmu::SPILL_STEPS,
        false => usize::MAX,
    };
    util_csv::parse_split(name, src, csv_split::SIZES, spill_at)?
        .map(Imported::Util)
        .ok_or_else(empty)
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

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The text of `rel` under `../shared/data` (the lab's real logs), for the importers' tests: from `/work/shared`,
/// or beside the checkout.
#[cfg(test)]
pub(crate) fn shared_data(rel: &str) -> String {
    std::fs::read_to_string(format!("/work/shared/data/{rel}"))
        .or_else(|_| {
            std::fs::read_to_string(format!(
                "{}/../../shared/data/{rel}",
                env!("CARGO_MANIFEST_DIR")
            ))
        })
        .unwrap_or_else(|e| panic!("../shared/data/{rel}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watched_import_reports_its_progress_and_stops_when_cancelled() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/logs/jdk17-serial-xmx128m.log");
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        struct Seen(Arc<std::sync::Mutex<Vec<f64>>>);
        impl Progress for Seen {
            fn report(&mut self, fraction: f64) {
                self.0.lock().expect("lock").push(fraction);
            }
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let (_, data) = import_file_watched::<Vec<Pause>>(
            &path,
            Format::Auto,
            Box::new(Seen(Arc::clone(&seen))),
            &Cancel::from_flag(cancel.clone()),
        )
        .expect("imports");
        let seen = seen.lock().expect("lock").clone();
        assert!(
            seen.windows(2).all(|w| w[0] <= w[1]),
            "the share read only grows: {seen:?}"
        );
        assert_eq!(seen.last(), Some(&1.0), "every byte counted once");
        assert_eq!(data, import_file(&path, Format::Auto).expect("imports").1);
        cancel.store(true, Ordering::Relaxed);
        let e = import_file_watched::<Vec<Pause>>(
            &path,
            Format::Auto,
            Box::new(crate::progress::NoProgress),
            &Cancel::from_flag(cancel),
        )
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
