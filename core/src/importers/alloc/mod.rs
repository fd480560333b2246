//! Importers of real allocation traces into gclab traces (`gclab trace import`): heaptrack's raw capture
//! ([`heaptrack`]), the per-object CSV form ([`objects_csv`]) and Elephant Tracks 2 ([`et2`]). Inputs may be
//! zstd-, gzip- or bzip2-compressed (found by magic bytes). They read through the input layer's one line reader
//! ([`Lines`]); lines an importer does not know are counted in its one warnings type ([`Warnings`]), never silently
//! dropped; an input with nothing usable is an error.

pub mod et2;
pub mod heaptrack;
pub mod objects_csv;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::input::lines::Lines;
use crate::input::warnings::Warnings;
use crate::trace::{Form, TraceError, TraceHeader, TraceReader, TraceWriter};

/// The input formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportFormat {
    /// heaptrack's raw capture (`+ size trace ptr`, `- ptr`, `c ms`, `t ip parent`, …; numbers in hex).
    Heaptrack,
    /// Elephant Tracks 2 (`N`/`A`/`U`/`M`/`E`/`W` records).
    Et2,
    /// One row per object with columns found by header name (`obj,size,trace,alloc_seq,free_seq,…`).
    ObjectsCsv,
    /// A gclab trace of either form: copied exactly (ids, tables, events), e.g. to convert text ↔ binary.
    Gclab,
}

impl ImportFormat {
    /// Parses a `--format` value.
    pub fn parse(text: &str) -> Option<ImportFormat> {
        match text {
            "heaptrack" => Some(ImportFormat::Heaptrack),
            "et2" => Some(ImportFormat::Et2),
            "objects-csv" => Some(ImportFormat::ObjectsCsv),
            "gclab" => Some(ImportFormat::Gclab),
            _ => None,
        }
    }

    /// Its `--format` name.
    pub fn name(self) -> &'static str {
        match self {
            ImportFormat::Heaptrack => "heaptrack",
            ImportFormat::Et2 => "et2",
            ImportFormat::ObjectsCsv => "objects-csv",
            ImportFormat::Gclab => "gclab",
        }
    }
}

/// What an import produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportReport {
    /// Objects written.
    pub objects: u64,
    /// Events written.
    pub events: u64,
    /// Objects given a death.
    pub deaths: u64,
    /// Lines skipped.
    pub warnings: Warnings,
    /// Remarks on how exact the import is.
    pub notes: Vec<String>,
}

/// Tells an allocation trace's format from the first lines of its (decompressed) `text`, for
/// [`crate::input::sniff`]: a first line `v …` or `+`/`-`/`t` records in hex is heaptrack; Elephant Tracks records
/// are `et2`; a CSV header naming `obj`/`id` and `size` is objects-csv. `None`: none of these.
pub(crate) fn detect_text(text: &str) -> Option<ImportFormat> {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let lower = first.to_ascii_lowercase();
    if lower.contains(',')
        && lower
            .split(',')
            .any(|c| matches!(c.trim(), "obj" | "id" | "object"))
        && lower.split(',').any(|c| c.trim().starts_with("size"))
    {
        return Some(ImportFormat::ObjectsCsv);
    }
    let looks = |pred: &dyn Fn(&str) -> bool| text.lines().take(20).filter(|l| pred(l)).count();
    let heaptrack = looks(&|l: &str| {
        let mut t = l.split(' ');
        matches!(
            t.next(),
            Some("v" | "+" | "-" | "t" | "c" | "m" | "x" | "X" | "I" | "R")
        )
    });
    let et = looks(&|l: &str| {
        let mut t = l.split(' ');
        matches!(t.next(), Some("N" | "A" | "U" | "M" | "E" | "W"))
            && t.all(|x| x.bytes().all(|b| b.is_ascii_digit()))
    });
    if first.starts_with("v ") || (heaptrack > et && heaptrack > 0) {
        Some(ImportFormat::Heaptrack)
    } else if et > 0 {
        Some(ImportFormat::Et2)
    } else {
        None
    }
}

/// Imports `path` (called `name` in errors) in `format`: `make` creates the writer once the importer knows the
/// header; the writer is returned unfinished (the caller writes the `end` record with [`TraceWriter::finish`]).
pub fn import<W, F>(
    name: &str,
    path: &Path,
    format: ImportFormat,
    make: F,
) -> Result<(ImportReport, TraceWriter<W>), TraceError>
where
    W: std::io::Write,
    F: FnOnce(&TraceHeader) -> Result<TraceWriter<W>, TraceError>,
{
    import_counted(name, path, format, &Arc::default(), make)
}

/// [`import`], adding every byte read from the input to `read` (compressed bytes, so that it runs up to the
/// file's size; Elephant Tracks is read twice, so up to twice its size) — for a progress display.
pub fn import_counted<W, F>(
    name: &str,
    path: &Path,
    format: ImportFormat,
    read: &Arc<AtomicU64>,
    make: F,
) -> Result<(ImportReport, TraceWriter<W>), TraceError>
where
    W: std::io::Write,
    F: FnOnce(&TraceHeader) -> Result<TraceWriter<W>, TraceError>,
{
    match format {
        ImportFormat::Heaptrack => heaptrack::import(Lines::open_counted(name, path, read)?, make),
        ImportFormat::ObjectsCsv => {
            objects_csv::import(Lines::open_counted(name, path, read)?, make)
        }
        ImportFormat::Et2 => et2::import_counted(name, path, read, make),
        ImportFormat::Gclab => copy(name, path, read, make),
    }
}

/// Imports `path` (called `name` in errors) in `format` and hands `use_trace` a [`TraceReader`] over the imported
/// trace as it is made — nothing is written to disk: the importer writes the binary form into a pipe on a scoped
/// thread of its own while `use_trace` reads the other end, so memory holds the pipe's buffer whatever the size of
/// the input. Call it once per pass for a consumer that reads the trace twice.
///
/// `Err`: the import failed (its error, not the reader's note that the trace ended early). `Ok(Err)`: `use_trace`
/// failed or stopped early by itself (the importer's broken pipe that follows is not reported).
#[allow(clippy::disallowed_methods)] // the importer's scoped thread feeding the pipe (clippy.toml)
pub fn import_streamed<T, E>(
    name: &str,
    path: &Path,
    format: ImportFormat,
    read: &Arc<AtomicU64>,
    use_trace: impl FnOnce(TraceReader) -> Result<T, E>,
) -> Result<Result<T, E>, TraceError> {
    let (rx, tx) =
        std::io::pipe().map_err(|e| TraceError::file(name, format!("cannot stream: {e}")))?;
    std::thread::scope(|s| {
        let importer = std::thread::Builder::new()
            .name("trace-import".into())
            .spawn_scoped(s, move || {
                let (_, w) = import_counted(name, path, format, read, |h| {
                    TraceWriter::new(tx, Form::Binary, h).map_err(|e| write_error(name, &e))
                })?;
                w.finish().map(drop).map_err(|e| write_error(name, &e))
            })
            .map_err(|e| TraceError::file(name, format!("cannot stream: {e}")))?;
        // The reader (and with it the pipe's read end) is gone once `use_trace` returns, so that an importer still
        // writing sees a broken pipe instead of waiting.
        let used = TraceReader::from_read(name, Box::new(rx)).map(use_trace);
        let imported = importer
            .join()
            .unwrap_or_else(|_| Err(TraceError::file(name, "the importer stopped unexpectedly")));
        match (imported, used) {
            (Ok(()), Ok(used)) => Ok(used),
            (Err(e), Ok(Err(used))) if e.writing => Ok(Err(used)),
            (Err(e), _) | (Ok(()), Err(e)) => Err(e),
        }
    })
}

/// Copies a gclab trace: the same header (at the current version), tables (defined before first use, in id
/// order) and events.
fn copy<W, F>(
    name: &str,
    path: &Path,
    read: &Arc<AtomicU64>,
    make: F,
) -> Result<(ImportReport, TraceWriter<W>), TraceError>
where
    W: std::io::Write,
    F: FnOnce(&TraceHeader) -> Result<TraceWriter<W>, TraceError>,
{
    let f = std::fs::File::open(path)
        .map_err(|e| TraceError::file(name, format!("cannot open: {e}")))?;
    let f = crate::trace::reader::CountingRead::new(f, Arc::clone(read));
    let mut r = crate::trace::TraceReader::from_read(name, Box::new(f))?;
    let mut header = r.header().clone();
    header.version = crate::trace::VERSION;
    let mut w = make(&header)?;
    let mut report = ImportReport::default();
    let io = |e: std::io::Error| write_error(name, &e);
    let sync = |w: &mut TraceWriter<W>, tables: &crate::trace::Tables| -> Result<(), TraceError> {
        for t in [
            crate::trace::Table::Site,
            crate::trace::Table::Type,
            crate::trace::Table::GcKind,
        ] {
            let have = w.tables().get(t).len();
            for s in &tables.get(t)[have..] {
                w.define(t, s).map_err(io)?;
            }
        }
        Ok(())
    };
    while let Some(ev) = r.next() {
        let ev = ev?;
        sync(&mut w, r.tables())?;
        match ev {
            crate::trace::Event::Alloc { .. } => report.objects += 1,
            crate::trace::Event::Death { .. } => report.deaths += 1,
            _ => {}
        }
        w.event(&ev).map_err(io)?;
    }
    sync(&mut w, r.tables())?;
    report.events = w.events();
    Ok((report, w))
}

/// The writer's I/O error as a trace error about `name`.
pub(crate) fn write_error(name: &str, e: &std::io::Error) -> TraceError {
    TraceError::writing(name, format!("cannot write the trace: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Form, TraceReader};

    fn run(format: ImportFormat, bytes: &[u8]) -> Result<Vec<u8>, TraceError> {
        let dir = std::env::temp_dir().join(format!("gclab-import-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = dir.join(format!("in-{}-{n}", format.name()));
        std::fs::write(&p, bytes).expect("write");
        let result = import("in", &p, format, |h| {
            TraceWriter::new(Vec::new(), Form::Binary, h)
                .map_err(|e| TraceError::file("out", e.to_string()))
        });
        let _ = std::fs::remove_file(&p);
        let (_, w) = result?;
        let out = w.finish().expect("finish");
        // Whatever an importer writes, the reader reads.
        let r = TraceReader::from_read("out", Box::new(std::io::Cursor::new(out.clone())))
            .expect("readable");
        for ev in r {
            ev.expect("event");
        }
        Ok(out)
    }

    /// xorshift for the mutations.
    fn rng(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn importers_survive_mutated_inputs() {
        let samples: [(ImportFormat, &[u8]); 3] = [
            (
                ImportFormat::Heaptrack,
                b"v 10400 3\nX prog\nt 7f01 0\nt 7f02 1\n+ 10 2 5000\nc 3\n+ 20 1 6000\n- 5000\n- 9999\nR 5\n",
            ),
            (
                ImportFormat::ObjectsCsv,
                b"obj,size,trace,alloc_seq,free_seq,alloc_t_ms,free_t_ms\n1,8,4,1,3,0,0\n2,16,5,2,,0,\n3,4,4,4,5,1,2\n",
            ),
            (
                ImportFormat::Et2,
                b"N 11 24 3 7 0 1\nW 11 3 1\nN 12 16 3 7 0 1\nU 11 2 12 1\nM 5 12 1W 11 3 1\nE 5 1\n",
            ),
        ];
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        for (format, good) in samples {
            run(format, good).unwrap_or_else(|e| panic!("{format:?}: {e}"));
            for _ in 0..400 {
                let mut b = good.to_vec();
                for _ in 0..1 + rng(&mut x) % 4 {
                    let i = (rng(&mut x) % b.len() as u64) as usize;
                    match rng(&mut x) % 3 {
                        0 => b[i] = rng(&mut x) as u8,
                        1 => b[i] = b"0123456789abcdef ,\n+-NWUM"[(rng(&mut x) % 25) as usize],
                        _ => b.truncate(i),
                    }
                    if b.is_empty() {
                        break;
                    }
                }
                // Errors are fine; panics and unreadable outputs are not.
                let _ = run(format, &b);
            }
        }
    }

    #[test]
    fn a_streamed_import_reads_as_the_written_one_and_reports_the_import_error() {
        let dir = std::env::temp_dir().join(format!("gclab-streamed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let p = dir.join("in.csv");
        let csv = b"obj,size,trace,alloc_seq,free_seq,alloc_t_ms,free_t_ms\n1,8,4,1,3,0,0\n2,16,5,2,,0,\n";
        std::fs::write(&p, csv).expect("write");
        let written = run(ImportFormat::ObjectsCsv, csv).expect("import");
        let events = |r: TraceReader| r.collect::<Result<Vec<_>, _>>();
        let want = events(
            TraceReader::from_read("o", Box::new(std::io::Cursor::new(written))).expect("read"),
        )
        .expect("events");
        let got = import_streamed("in", &p, ImportFormat::ObjectsCsv, &Arc::default(), events)
            .expect("imports")
            .expect("reads");
        assert_eq!(got, want, "the same events, no file written");
        // A consumer that stops at once is its own answer, not the importer's broken pipe.
        let stopped = import_streamed("in", &p, ImportFormat::ObjectsCsv, &Arc::default(), |_| {
            Err::<(), _>("stopped")
        })
        .expect("no import error");
        assert_eq!(stopped, Err("stopped"));
        std::fs::write(&p, b"obj,size,alloc_seq\n1,x,1\n").expect("write");
        let e = import_streamed("in", &p, ImportFormat::ObjectsCsv, &Arc::default(), events)
            .expect_err("the import's error");
        assert!(e.to_string().starts_with("in:2: "), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn et2_deaths_are_last_uses() {
        let out = run(
            ImportFormat::Et2,
            b"N 11 24 3 7 0 1\nN 12 16 3 7 0 1\nW 11 3 1\nU 11 2 12 1\nE 5 1\nW 11 3 1\n",
        )
        .expect("import");
        let evs: Vec<_> = TraceReader::from_read("o", Box::new(std::io::Cursor::new(out)))
            .expect("read")
            .map(|e| e.expect("event"))
            .collect();
        use crate::trace::Event::*;
        let deaths: Vec<(u64, u64)> = evs
            .iter()
            .filter_map(|e| match e {
                Death { id, t } => Some((*id, *t)),
                _ => None,
            })
            .collect();
        // Object 2 (ET id 12) is last named by the U at record 4, object 1 by the W at record 6.
        assert_eq!(deaths, vec![(2, 4), (1, 6)], "{evs:?}");
    }
}
