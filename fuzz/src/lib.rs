//! The entry points of gclab's fuzz targets (one per parser; `fuzz_targets/*.rs` call them) and of their
//! regression test (`tests/integration/fuzz_regressions.rs` includes this file as a module and replays every
//! finding through the same function). Each feeds bytes, called `name`, to the same public function the CLI and
//! the app use and drives the result to the end, as they do; it returns the input's error, if any. Errors are
//! fine; a panic, an allocation beyond libFuzzer's limits or a hang is a finding. Every finding's minimised input
//! lives in `tests/fixtures/fuzz/<target>/`.

use std::io::Cursor;
use std::path::PathBuf;

use gclab_core::importers::alloc::{self as import, ImportReport};
use gclab_core::importers::{
    self, Format, Imported, Pause, PauseRecords, PauseRun, PauseSink, PauseSpans,
};
use gclab_core::input::Lines;
use gclab_core::metrics::mmu::MmuCurve;
use gclab_core::scenario::Scenario;
use gclab_core::trace::{BINARY_MAGIC, Form, TraceError, TraceHeader, TraceReader, TraceWriter};

/// What an entry point gives back: `Err` is the input's error message (it names the input).
pub type Outcome = Result<(), String>;

/// An entry point: the bytes of an input called `name`, driven to the end.
pub type Entry = fn(&str, &[u8]) -> Outcome;

/// Every target by name, with its entry point.
pub const TARGETS: [(&str, Entry); 11] = [
    ("trace_text", trace_text),
    ("trace_binary", trace_binary),
    ("jvm_log", jvm_log),
    ("logcat", logcat),
    ("gc_csv", gc_csv),
    ("pause_spans", pause_spans),
    ("pause_records", pause_records),
    ("objects_csv", objects_csv),
    ("heaptrack", heaptrack),
    ("et2", et2),
    ("scenario", scenario),
];

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
pub fn trace_text(name: &str, data: &[u8]) -> Outcome {
    read_trace(name, data.to_vec())
        .map(drop)
        .map_err(|e| e.to_string())
}

/// `trace_binary`: [`TraceReader::from_read`] on the binary magic followed by the bytes (the header and records).
pub fn trace_binary(name: &str, data: &[u8]) -> Outcome {
    let mut bytes = BINARY_MAGIC.to_vec();
    bytes.extend_from_slice(data);
    read_trace(name, bytes).map(drop).map_err(|e| e.to_string())
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

fn gc_import(name: &str, data: &[u8], format: Format) -> Outcome {
    let (_, imported) = importers::import_bytes(name, data, format).map_err(|e| e.to_string())?;
    use_imported(&imported);
    Ok(())
}

/// A signature of the importers' `parse_read_cut` (a GC log's lines read in segments and jobs of given sizes).
type CutReader =
    fn(&str, &[u8], usize, usize) -> Result<importers::PauseSeries, importers::ImportError>;

/// Differential: the lines cut into about three segments, ending at a byte the input's length picks, and jobs of
/// 1–3 lines, read on every core as a large log's are, give what one segment of one job gives (a difference is a
/// finding). About three rounds, not one per byte: each round starts the cores' threads (1-byte segments ran at
/// 49 inputs a second).
fn lines_cut(name: &str, data: &[u8], cut: CutReader) {
    let (segment, chunk) = (1 + data.len() / 3 + data.len() % 29, 1 + data.len() % 3);
    let whole = cut(name, data, usize::MAX, usize::MAX).map_err(|e| e.to_string());
    let small = cut(name, data, segment, chunk).map_err(|e| e.to_string());
    assert_eq!(
        whole, small,
        "cut into {segment}-byte segments, {chunk}-line jobs"
    );
}

/// `jvm_log`: [`importers::import_bytes`] as a HotSpot unified log, and the differential of its reader on every
/// core ([`importers::jvm_log::parse_read_cut`]).
pub fn jvm_log(name: &str, data: &[u8]) -> Outcome {
    lines_cut(name, data, |n, d, s, c| {
        importers::jvm_log::parse_read_cut(n, d, s, c)
    });
    gc_import(name, data, Format::Jvm)
}

/// `logcat`: [`importers::import_bytes`] as Android logcat, and the differential of its reader on every core
/// ([`importers::logcat::parse_read_cut`]).
pub fn logcat(name: &str, data: &[u8]) -> Outcome {
    lines_cut(name, data, |n, d, s, c| {
        importers::logcat::parse_read_cut(n, d, s, c)
    });
    gc_import(name, data, Format::Logcat)
}

/// `gc_csv`: the first byte picks the pause CSV, the utilisation CSV or format detection (`auto`); the rest is
/// the file.
pub fn gc_csv(name: &str, data: &[u8]) -> Outcome {
    let Some((&pick, rest)) = data.split_first() else {
        return Ok(());
    };
    let format = match pick % 3 {
        0 => Format::PausesCsv,
        1 => Format::UtilCsv,
        _ => Format::Auto,
    };
    if format == Format::PausesCsv {
        // Differential: the rows cut into tiny segments and chunks, read on every core, as a large file's are,
        // give what one reader gives (a difference is a finding).
        let (segment, chunk) = (1 + usize::from(pick / 3 % 17), 1 + usize::from(pick / 51));
        let whole = importers::pauses_csv::parse_read_cut(name, rest, usize::MAX, usize::MAX);
        let cut = importers::pauses_csv::parse_read_cut(name, rest, segment, chunk);
        assert_eq!(
            whole.as_ref().map_err(ToString::to_string),
            cut.as_ref().map_err(ToString::to_string),
            "cut into {segment}-byte segments, {chunk}-byte chunks"
        );
    }
    if format == Format::UtilCsv {
        // Differential likewise, the cut parse also moving every series' steps to temporary files from a few.
        let (segment, chunk) = (1 + usize::from(pick / 3 % 17), 1 + usize::from(pick / 51));
        let spill_at = 1 + usize::from(pick % 7);
        let whole = importers::util_csv::parse_read(name, rest);
        let cut = importers::util_csv::parse_read_cut(name, rest, segment, chunk, spill_at);
        assert_eq!(
            whole.as_ref().map_err(ToString::to_string),
            cut.as_ref().map_err(ToString::to_string),
            "cut into {segment}-byte segments, {chunk}-byte chunks, on disk from {spill_at} steps"
        );
    }
    gc_import(name, rest, format)
}

/// `pause_spans`: the streaming path `gclab mmu` takes ([`importers::import_reader_as`] keeping [`PauseSpans`]).
/// The first byte picks the format (HotSpot log, logcat, pause CSV, utilisation CSV or detection); the rest is the
/// file, read through a 7-byte buffer so that lines cross buffer ends.
pub fn pause_spans(name: &str, data: &[u8]) -> Outcome {
    let Some((&pick, rest)) = data.split_first() else {
        return Ok(());
    };
    let format = match pick % 5 {
        0 => Format::Jvm,
        1 => Format::Logcat,
        2 => Format::PausesCsv,
        3 => Format::UtilCsv,
        _ => Format::Auto,
    };
    let src = std::io::BufReader::with_capacity(7, rest);
    let (_, imported) =
        importers::import_reader_as::<PauseSpans>(name, src, format).map_err(|e| e.to_string())?;
    use_imported(&imported);
    Ok(())
}

/// `pause_records`: the path `gclab export-perfetto` takes, against the whole pauses. The first byte picks the
/// format (as [`pause_spans`]), a spill threshold (1–8 pauses) and a run length (1–8); the rest is the file. The
/// pauses kept as [`PauseRecords`] — as the importer leaves them, and pushed again into records that go to
/// temporary files after a few — must read back, whole and in runs, as the `Vec<Pause>` import of the same bytes.
pub fn pause_records(name: &str, data: &[u8]) -> Outcome {
    let Some((&pick, rest)) = data.split_first() else {
        return Ok(());
    };
    let format = [
        Format::Jvm,
        Format::Logcat,
        Format::PausesCsv,
        Format::UtilCsv,
        Format::Auto,
    ][usize::from(pick % 5)];
    let (spill_at, run) = (
        1 + usize::from(pick / 5 % 8),
        1 + usize::from(pick / 40 % 8),
    );
    let import = |src: &[u8]| importers::import_reader_as::<Vec<Pause>>(name, src, format);
    let (_, whole) = import(rest).map_err(|e| e.to_string())?;
    let (_, kept) = importers::import_reader_as::<PauseRecords>(name, rest, format)
        .map_err(|e| e.to_string())?;
    let (Imported::Pauses(whole), Imported::Pauses(kept)) = (whole, kept) else {
        return Ok(());
    };
    let want = &whole.pauses;
    assert_eq!(
        kept.pauses.iter().collect::<Vec<_>>(),
        *want,
        "{name}: records as imported"
    );
    let mut spilled: PauseRecords = PauseRecords::spilling_at(spill_at);
    want.iter().cloned().for_each(|p| spilled.push(p));
    assert_eq!(
        spilled.iter().collect::<Vec<_>>(),
        *want,
        "{name}: spilled records"
    );
    let (mut runs, mut buf, mut at) = (spilled.runs(), PauseRun::default(), 0);
    loop {
        runs.next_run(run, &mut buf);
        if buf.is_empty() {
            break;
        }
        for (x, p) in spilled.run_pauses(&buf, 0..buf.len()).zip(&want[at..]) {
            assert_eq!(
                &x.to_pause(),
                p,
                "{name}: pause {at} read back in runs of {run}"
            );
            at += 1;
        }
    }
    assert_eq!(at, want.len(), "{name}: every pause in runs of {run}");
    Ok(())
}

/// Runs a trace importer into an in-memory binary trace and reads the result back: whatever an importer writes,
/// the reader must accept (a panic otherwise).
fn trace_import<F>(name: &str, import: F) -> Outcome
where
    F: FnOnce(
        &mut dyn FnMut(&TraceHeader) -> Result<TraceWriter<Vec<u8>>, TraceError>,
    ) -> Result<(ImportReport, TraceWriter<Vec<u8>>), TraceError>,
{
    let mut make = |h: &TraceHeader| {
        TraceWriter::new(Vec::new(), Form::Binary, h)
            .map_err(|e| TraceError::file("out", e.to_string()))
    };
    let (report, w) = import(&mut make).map_err(|e| e.to_string())?;
    let _ = report.warnings.messages();
    let out = match w.finish() {
        Ok(out) => out,
        Err(e) => panic!("{name}: finishing the in-memory trace failed: {e}"),
    };
    if let Err(e) = read_trace("out", out) {
        panic!("{name}: the importer wrote a trace the reader rejects: {e}");
    }
    Ok(())
}

/// `objects_csv`: the objects-CSV trace importer on the bytes (possibly compressed).
pub fn objects_csv(name: &str, data: &[u8]) -> Outcome {
    trace_import(name, |make| {
        import::objects_csv::import(Lines::of_bytes(name, data.to_vec())?, make)
    })
}

/// `heaptrack`: heaptrack's raw-capture importer on the bytes (possibly compressed).
pub fn heaptrack(name: &str, data: &[u8]) -> Outcome {
    trace_import(name, |make| {
        import::heaptrack::import(Lines::of_bytes(name, data.to_vec())?, make)
    })
}

/// `et2`: the Elephant Tracks 2 importer (it reads a path twice): the bytes are written to a per-process file,
/// removed after the import (the corpus replay in the tests left one folder per run in the temporary folder).
pub fn et2(name: &str, data: &[u8]) -> Outcome {
    let dir = std::env::temp_dir().join(format!("gclab-fuzz-et2-{}", std::process::id()));
    let path: PathBuf = dir.join("trace");
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, data))
        .map_err(|e| format!("{name}: {}: {e}", path.display()))?;
    let outcome = trace_import(name, |make| import::et2::import(name, &path, make));
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

/// `scenario`: a scenario file's text through [`Scenario::from_toml_str`] (as `Scenario::load` reads it: the
/// file must be UTF-8), then written back and parsed again.
pub fn scenario(name: &str, data: &[u8]) -> Outcome {
    let text = std::str::from_utf8(data)
        .map_err(|e| format!("{name}: not UTF-8 ({e}): expected a scenario's TOML text"))?;
    let s = Scenario::from_toml_str(text, name, None, &[]).map_err(|e| e.to_string())?;
    let again = s.to_toml_string();
    Scenario::from_toml_str(&again, name, None, &[]).map_err(|e| e.to_string())?;
    Ok(())
}
