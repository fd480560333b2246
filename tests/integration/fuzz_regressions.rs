//! Every input under `tests/fixtures/fuzz/<target>/` — the minimised crashes, OOMs and timeouts the `cargo fuzz`
//! targets found (`fuzz/`, docs/fuzzing.md) and hand-made hostile files (huge numbers, wrong magic, cut in the
//! middle of a record, wrong version, invalid UTF-8) — goes through the same public entry point as its fuzz
//! target. Each must give a result or an error without panicking, and an error must name the input.

use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use gclab_core::importers::alloc::{self as import, ImportReport};
use gclab_core::importers::{self, Format, Imported, PauseSink, PauseSpans};
use gclab_core::metrics::mmu::MmuCurve;
use gclab_core::scenario::Scenario;
use gclab_core::trace::{BINARY_MAGIC, Form, TraceError, TraceHeader, TraceReader, TraceWriter};
use gclab_tests::repo_root;

/// The check of one input: `Err` is the input's error message.
type Check = fn(&Path, &[u8]) -> Result<(), String>;

/// The fuzz targets, each with its check.
const TARGETS: [(&str, Check); 10] = [
    ("trace_text", trace_text),
    ("trace_binary", trace_binary),
    ("jvm_log", jvm_log),
    ("logcat", logcat),
    ("gc_csv", gc_csv),
    ("pause_spans", pause_spans),
    ("objects_csv", objects_csv),
    ("heaptrack", heaptrack),
    ("et2", et2),
    ("scenario", scenario),
];

fn name_of(path: &Path) -> String {
    path.display().to_string()
}

fn read_trace(name: &str, bytes: Vec<u8>) -> Result<u64, TraceError> {
    let mut n = 0;
    for ev in TraceReader::from_read(name, Box::new(Cursor::new(bytes)))? {
        ev?;
        n += 1;
    }
    Ok(n)
}

fn trace_text(path: &Path, bytes: &[u8]) -> Result<(), String> {
    read_trace(&name_of(path), bytes.to_vec())
        .map(drop)
        .map_err(|e| e.to_string())
}

fn trace_binary(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut b = BINARY_MAGIC.to_vec();
    b.extend_from_slice(bytes);
    read_trace(&name_of(path), b)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// What `gclab mmu` does with an imported file.
fn use_imported<S: PauseSink>(data: &Imported<S>) {
    let span = data.default_span_ns();
    let series = data.util_series(span);
    let curve = MmuCurve::new(&series);
    let width = span.1.saturating_sub(span.0);
    for w in [1_000_000, width / 3, width] {
        if w > 0 {
            let _ = curve.mmu(w);
        }
    }
    let _ = data.pause_stats(span);
    let _ = data.warnings().messages();
}

fn gc_import(path: &Path, bytes: &[u8], format: Format) -> Result<(), String> {
    let (_, data) =
        importers::import_bytes(&name_of(path), bytes, format).map_err(|e| e.to_string())?;
    use_imported(&data);
    Ok(())
}

fn jvm_log(path: &Path, bytes: &[u8]) -> Result<(), String> {
    gc_import(path, bytes, Format::Jvm)
}

fn logcat(path: &Path, bytes: &[u8]) -> Result<(), String> {
    gc_import(path, bytes, Format::Logcat)
}

fn gc_csv(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let Some((&pick, rest)) = bytes.split_first() else {
        return Ok(());
    };
    let format = match pick % 3 {
        0 => Format::PausesCsv,
        1 => Format::UtilCsv,
        _ => Format::Auto,
    };
    gc_import(path, rest, format)
}

type Made = Result<(ImportReport, TraceWriter<Vec<u8>>), TraceError>;

/// A trace importer into an in-memory binary trace, read back: whatever an importer writes, the reader accepts.
/// The file path `gclab mmu` takes: [`importers::import_file_as`] keeping [`PauseSpans`]; the first byte picks
/// the format as in the fuzz target, so the rest is written to a temporary file and imported from there.
fn pause_spans(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let Some((&pick, rest)) = bytes.split_first() else {
        return Ok(());
    };
    let format = match pick % 5 {
        0 => Format::Jvm,
        1 => Format::Logcat,
        2 => Format::PausesCsv,
        3 => Format::UtilCsv,
        _ => Format::Auto,
    };
    let dir = std::env::temp_dir().join(format!("gclab-pause-spans-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join(path.file_name().ok_or("a fixture without a file name")?);
    std::fs::write(&file, rest).map_err(|e| e.to_string())?;
    let got = importers::import_file_as::<PauseSpans>(
        &file,
        format,
        Default::default(),
        Default::default(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    // The error names the file read (the temporary copy); the check below wants the fixture's name.
    let (_, data) = got.map_err(|e| e.to_string().replace(&name_of(&file), &name_of(path)))?;
    use_imported(&data);
    Ok(())
}

fn trace_import(
    path: &Path,
    import: impl FnOnce(
        &mut dyn FnMut(&TraceHeader) -> Result<TraceWriter<Vec<u8>>, TraceError>,
    ) -> Made,
) -> Result<(), String> {
    let mut make = |h: &TraceHeader| {
        TraceWriter::new(Vec::new(), Form::Binary, h)
            .map_err(|e| TraceError::file("out", e.to_string()))
    };
    let (_, w) = import(&mut make).map_err(|e| e.to_string())?;
    let out = w.finish().expect("finishing an in-memory trace");
    if let Err(e) = read_trace("out", out) {
        panic!(
            "{}: the importer wrote a trace the reader rejects: {e}",
            path.display()
        );
    }
    Ok(())
}

fn objects_csv(path: &Path, bytes: &[u8]) -> Result<(), String> {
    trace_import(path, |make| {
        import::objects_csv::import(
            gclab_core::input::Lines::of_bytes(&name_of(path), bytes.to_vec())?,
            make,
        )
    })
}

fn heaptrack(path: &Path, bytes: &[u8]) -> Result<(), String> {
    trace_import(path, |make| {
        import::heaptrack::import(
            gclab_core::input::Lines::of_bytes(&name_of(path), bytes.to_vec())?,
            make,
        )
    })
}

fn et2(path: &Path, _: &[u8]) -> Result<(), String> {
    trace_import(path, |make| import::et2::import(&name_of(path), path, make))
}

fn scenario(path: &Path, _: &[u8]) -> Result<(), String> {
    let spec = name_of(path);
    let s = Scenario::load(&spec, &[]).map_err(|e| e.to_string())?;
    let again = s.to_toml_string();
    Scenario::from_toml_str(&again, &spec, path.parent(), &[]).map_err(|e| e.to_string())?;
    Ok(())
}

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = repo_root().join("tests/fixtures/fuzz").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn fuzz_findings_and_hostile_inputs_give_errors_not_panics() {
    let mut failures = Vec::new();
    let mut total = 0;
    for (target, check) in TARGETS {
        let files = inputs(target);
        assert!(!files.is_empty(), "tests/fixtures/fuzz/{target}/ is empty");
        for path in files {
            total += 1;
            let bytes = std::fs::read(&path).expect("read the input");
            match catch_unwind(AssertUnwindSafe(|| check(&path, &bytes))) {
                Ok(Ok(())) => eprintln!("{target}: {}: ok", path.display()),
                Ok(Err(e)) => {
                    eprintln!("{target}: {e}");
                    if !e.contains(&name_of(&path)) {
                        failures.push(format!(
                            "{target}: the error `{e}` does not name {}",
                            path.display()
                        ));
                    }
                }
                Err(_) => failures.push(format!("{target}: {} panicked", path.display())),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{total} inputs");
}
