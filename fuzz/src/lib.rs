//! The entry points of gclab's fuzz targets (one per parser; `fuzz_targets/*.rs` call them). Each feeds arbitrary
//! bytes to the same public function the CLI and the app use and drives the result to the end, as they do. Errors
//! are fine; a panic, an allocation beyond libFuzzer's limits or a hang is a finding. Every finding's minimised
//! input lives in `tests/fixtures/fuzz/<target>/`, replayed by `tests/integration/fuzz_regressions.rs`.

use std::io::Cursor;
use std::path::PathBuf;

use gclab_core::importers::{self, Format, Imported, PauseSink, PauseSpans};
use gclab_core::metrics::mmu::MmuCurve;
use gclab_core::scenario::Scenario;
use gclab_core::importers::alloc::{self as import, ImportReport};
use gclab_core::input::Lines;
use gclab_core::trace::{BINARY_MAGIC, Form, TraceError, TraceHeader, TraceReader, TraceWriter};

/// Reads a whole trace from `bytes` (either form, possibly compressed), event by event.
fn read_trace(name: &str, bytes: Vec<u8>) -> Result<u64, TraceError> {
    let mut n = 0;
    for ev in TraceReader::from_read(name, Box::new(Cursor::new(bytes)))? {
        ev?;
        n += 1;
    }
    Ok(n)
}

/// `trace_text`: [`TraceReader::from_read`] on the raw bytes (sniffing, decompression, the text form).
pub fn trace_text(data: &[u8]) {
    let _ = read_trace("fuzz.gctrace.txt", data.to_vec());
}

/// `trace_binary`: [`TraceReader::from_read`] on the binary magic followed by the bytes (the header and records).
pub fn trace_binary(data: &[u8]) {
    let mut bytes = BINARY_MAGIC.to_vec();
    bytes.extend_from_slice(data);
    let _ = read_trace("fuzz.gctrace", bytes);
}

/// False when `GCLAB_FUZZ_NO_MMU` is set: the GC-log targets then stop after the import, to explore the parsers
/// alone.
fn with_mmu() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("GCLAB_FUZZ_NO_MMU").is_none())
}

/// What `gclab mmu` does with an imported file: span, step functions, the MMU at a few windows (unless
/// `GCLAB_FUZZ_NO_MMU`), pause stats.
fn use_imported<S: PauseSink>(data: &Imported<S>) {
    let span = data.default_span_ns();
    let series = data.util_series(span);
    if with_mmu() {
        let curve = MmuCurve::new(&series);
        let width = span.1.saturating_sub(span.0);
        for w in [1_000_000, width / 3, width] {
            if w > 0 {
                let _ = curve.mmu(w);
            }
        }
    }
    let _ = data.pause_stats(span);
    let _ = data.warnings().messages();
}

fn gc_import(name: &str, data: &[u8], format: Format) {
    if let Ok((_, imported)) = importers::import_bytes(name, data, format) {
        use_imported(&imported);
    }
}

/// `jvm_log`: [`importers::import_bytes`] as a HotSpot unified log.
pub fn jvm_log(data: &[u8]) {
    gc_import("fuzz.log", data, Format::Jvm);
}

/// `logcat`: [`importers::import_bytes`] as Android logcat.
pub fn logcat(data: &[u8]) {
    gc_import("fuzz.logcat", data, Format::Logcat);
}

/// `gc_csv`: the first byte picks the pause CSV, the utilisation CSV or format detection (`auto`); the rest is
/// the file.
pub fn gc_csv(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let format = match pick % 3 {
        0 => Format::PausesCsv,
        1 => Format::UtilCsv,
        _ => Format::Auto,
    };
    gc_import("fuzz.csv", rest, format);
}

/// `pause_spans`: the streaming path `gclab mmu` takes ([`importers::import_reader_as`] keeping [`PauseSpans`]).
/// The first byte picks the format (HotSpot log, logcat, pause CSV, utilisation CSV or detection); the rest is the
/// file, read through a 7-byte buffer so that lines cross buffer ends.
pub fn pause_spans(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let format = match pick % 5 {
        0 => Format::Jvm,
        1 => Format::Logcat,
        2 => Format::PausesCsv,
        3 => Format::UtilCsv,
        _ => Format::Auto,
    };
    let src = std::io::BufReader::with_capacity(7, rest);
    if let Ok((_, imported)) = importers::import_reader_as::<PauseSpans>("fuzz.gc", src, format) {
        use_imported(&imported);
    }
}

/// Runs a trace importer into an in-memory binary trace and reads the result back: whatever an importer writes,
/// the reader must accept.
fn trace_import<F>(name: &str, import: F)
where
    F: FnOnce(
        &mut dyn FnMut(&TraceHeader) -> Result<TraceWriter<Vec<u8>>, TraceError>,
    ) -> Result<(ImportReport, TraceWriter<Vec<u8>>), TraceError>,
{
    let mut make = |h: &TraceHeader| {
        TraceWriter::new(Vec::new(), Form::Binary, h)
            .map_err(|e| TraceError::file("out", e.to_string()))
    };
    let Ok((report, w)) = import(&mut make) else {
        return;
    };
    let _ = report.warnings.messages();
    let out = match w.finish() {
        Ok(out) => out,
        Err(e) => panic!("{name}: finishing the in-memory trace failed: {e}"),
    };
    if let Err(e) = read_trace("out", out) {
        panic!("{name}: the importer wrote a trace the reader rejects: {e}");
    }
}

/// `objects_csv`: the objects-CSV trace importer on the bytes (possibly compressed).
pub fn objects_csv(data: &[u8]) {
    trace_import("objects_csv", |make| {
        let lines: Lines = gclab_core::input::Lines::of_bytes("fuzz.csv", data.to_vec())?;
        import::objects_csv::import(lines, make)
    });
}

/// `heaptrack`: heaptrack's raw-capture importer on the bytes (possibly compressed).
pub fn heaptrack(data: &[u8]) {
    trace_import("heaptrack", |make| {
        let lines: Lines = gclab_core::input::Lines::of_bytes("fuzz.heaptrack", data.to_vec())?;
        import::heaptrack::import(lines, make)
    });
}

/// `et2`: the Elephant Tracks 2 importer (it reads a path twice): the bytes are written to a per-process file.
pub fn et2(data: &[u8]) {
    let dir = std::env::temp_dir().join(format!("gclab-fuzz-et2-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let path: PathBuf = dir.join("trace");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    trace_import("et2", |make| import::et2::import("fuzz.et2", &path, make));
}

/// `scenario`: a scenario file's text through [`Scenario::from_toml_str`] (as `Scenario::load` reads it: the
/// file must be UTF-8), then written back and parsed again.
pub fn scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(s) = Scenario::from_toml_str(text, "fuzz.toml", None, &[]) {
        let again = s.to_toml_string();
        let _ = Scenario::from_toml_str(&again, "fuzz-again.toml", None, &[]);
    }
}
