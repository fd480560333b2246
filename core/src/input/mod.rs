//! The one input layer's first step (issue #18 item 1): [`sniff`] tells what a file is — a scenario, a gclab trace,
//! an allocation trace of another tool or a GC log — from its name (`.toml`) and a bounded prefix of its content,
//! read through the one decompression path ([`crate::trace::reader::decompressed`]: zstd, gzip, bzip2 by their
//! magic bytes). Every caller that must decide what to do with a file (`gclab mmu`, `gclab trace import`,
//! `gclab export-perfetto`, the app's loader) asks here; none re-reads an error's text to decide.
//!
//! Each family keeps its own rule over the prefix: [`crate::trace`]'s magic bytes, the allocation-trace shapes of
//! [`crate::importers::alloc`], the GC-log patterns of [`crate::importers::detect`].
//!
//! Below it, what every importer reads through: one line reader ([`Lines`], capped at [`MAX_LINE_BYTES`]) and one
//! warnings type ([`Warnings`]), used alike by the GC-log importers ([`crate::importers`]) and the
//! allocation-trace importers ([`crate::importers::alloc`]).

pub mod lines;
pub mod warnings;

pub use lines::{Line, LineReport, Lines, MAX_LINE_BYTES};
pub use warnings::Warnings;

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::importers::alloc::{self as trace_import, ImportFormat};
use crate::importers::{self, Format};
use crate::trace::reader::decompressed;
use crate::trace::{BINARY_MAGIC, Form, TEXT_MAGIC, TraceError};

/// Most lines of the (decompressed) prefix read to tell a file's kind: as many as a GC log may need.
pub const SNIFF_LINES: usize = 2000;
/// Most bytes of the (decompressed) prefix read to tell a file's kind. `[bytes]`
pub const SNIFF_BYTES: usize = 4 << 20;

/// What a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A scenario (`*.toml`, or `preset:NAME` through [`sniff_arg`]).
    Scenario,
    /// A gclab trace in this form.
    Trace(Form),
    /// An allocation trace of another tool that `gclab trace import` reads (never [`ImportFormat::Gclab`]).
    AllocTrace(ImportFormat),
    /// A GC log or pause/utilisation CSV that `gclab mmu` reads (never [`Format::Auto`]).
    GcLog(Format),
}

impl InputKind {
    /// The kind in words, for messages: `a HotSpot GC log`, `a heaptrack allocation trace`, ….
    pub fn describe(self) -> String {
        match self {
            InputKind::Scenario => "a scenario".into(),
            InputKind::Trace(Form::Binary) => "a gclab trace (binary)".into(),
            InputKind::Trace(Form::Text) => "a gclab trace (text)".into(),
            InputKind::AllocTrace(f) => format!("a {} allocation trace", f.name()),
            InputKind::GcLog(f) => format!("a GC log ({})", f.name()),
        }
    }
}

/// A file whose kind cannot be told: it cannot be read, is empty, or matches no known kind.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InputError {
    /// Opening, reading or decompressing it failed (the reader's error names file and place).
    #[error("{0}")]
    Read(TraceError),
    /// Its content matches no kind, or not the kind the caller needs: the file, the 1-based line looked at
    /// (0: the whole file) and what was expected.
    #[error("{}", located(.file, *.line, .message))]
    Unknown {
        /// The file as named by the caller.
        file: String,
        /// 1-based line, 0 for the whole file.
        line: usize,
        /// What it is or is not, and what was expected.
        message: String,
    },
}

fn located(file: &str, line: usize, message: &str) -> String {
    if line == 0 {
        format!("{file}: {message}")
    } else {
        format!("{file}:{line}: {message}")
    }
}

const EXPECTED: &str = "expected a scenario (.toml), a gclab trace, a GC log (CSV header with start_ns,end_ns \
     or time_ns,util, HotSpot -Xlog:gc lines or logcat GC lines) or an allocation trace (heaptrack's raw \
     capture, Elephant Tracks 2 records or a CSV header with obj and size)";

/// `arg` as given on a command line: `preset:NAME` is a scenario, anything else the file [`sniff`] reads.
pub fn sniff_arg(arg: &str) -> Result<InputKind, InputError> {
    if arg.starts_with("preset:") {
        return Ok(InputKind::Scenario);
    }
    sniff(Path::new(arg))
}

/// True when `path` is named as a scenario (`*.toml`): decided by the name alone, without reading it.
pub fn is_scenario_path(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// What the file at `path` is (named `path.display()` in errors). A `.toml` name is a scenario; a directory holding
/// an Elephant Tracks `trace*` file is that trace; otherwise at most [`SNIFF_LINES`] lines and [`SNIFF_BYTES`] bytes
/// of the decompressed content are read. A file named `*.gctrace`/`*.gct`/`*.gctb` whose content is not recognised
/// is still a trace, so that the trace reader reports what is wrong with it.
pub fn sniff(path: &Path) -> Result<InputKind, InputError> {
    let name = path.display().to_string();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if is_scenario_path(path) && !path.is_dir() {
        return Ok(InputKind::Scenario);
    }
    let file = trace_import::et2::trace_file(path);
    let head = prefix(&name, &file)?;
    if head.starts_with(&BINARY_MAGIC) {
        return Ok(InputKind::Trace(Form::Binary));
    }
    let text = String::from_utf8_lossy(&head);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let first_record = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    if first_record.is_some_and(|l| l.starts_with(TEXT_MAGIC)) {
        return Ok(InputKind::Trace(Form::Text));
    }
    if matches!(ext.as_str(), "gctrace" | "gct" | "gctb") {
        let binary = head.first() == Some(&BINARY_MAGIC[0]) || head.contains(&0);
        return Ok(InputKind::Trace(if binary {
            Form::Binary
        } else {
            Form::Text
        }));
    }
    let first_no = text
        .lines()
        .position(|l| !l.trim().is_empty())
        .map_or(1, |i| i + 1);
    if text.trim().is_empty() {
        return Err(InputError::Unknown {
            file: name,
            line: 1,
            message: format!("empty file: {EXPECTED}"),
        });
    }
    if let Some(f) = trace_import::detect_text(text) {
        return Ok(InputKind::AllocTrace(f));
    }
    match importers::detect(&name, text) {
        Ok(f) => Ok(InputKind::GcLog(f)),
        Err(_) => Err(InputError::Unknown {
            file: name,
            line: first_no,
            message: format!("cannot tell the format: {EXPECTED}"),
        }),
    }
}

/// The GC-log format of `path` for `gclab mmu` and the log views: another kind is an error saying what it is.
pub fn sniff_gc_log(path: &Path) -> Result<Format, InputError> {
    match sniff(path)? {
        InputKind::GcLog(f) => Ok(f),
        other => Err(wrong_kind(
            path,
            other,
            "a GC log: pause CSV, utilisation CSV, HotSpot GC log or logcat (or give --format)",
        )),
    }
}

/// The allocation-trace format of `path` for `gclab trace import` (a gclab trace is [`ImportFormat::Gclab`]): another
/// kind is an error saying what it is.
pub fn sniff_alloc_trace(path: &Path) -> Result<ImportFormat, InputError> {
    match sniff(path)? {
        InputKind::AllocTrace(f) => Ok(f),
        InputKind::Trace(_) => Ok(ImportFormat::Gclab),
        other => Err(wrong_kind(
            path,
            other,
            "heaptrack's raw capture, Elephant Tracks 2 records or a CSV header with obj and size (or give \
             --format heaptrack|et2|objects-csv)",
        )),
    }
}

fn wrong_kind(path: &Path, kind: InputKind, expected: &str) -> InputError {
    InputError::Unknown {
        file: path.display().to_string(),
        line: 0,
        message: format!("this is {}: expected {expected}", kind.describe()),
    }
}

/// The decompressed prefix of `file`: up to [`SNIFF_LINES`] lines, [`SNIFF_BYTES`] bytes and lines of at most
/// [`MAX_LINE_BYTES`].
fn prefix(name: &str, file: &Path) -> Result<Vec<u8>, InputError> {
    let f = std::fs::File::open(file)
        .map_err(|e| InputError::Read(TraceError::file(name, format!("cannot read: {e}"))))?;
    let src = decompressed(name, Box::new(f)).map_err(InputError::Read)?;
    let mut src = BufReader::new(src);
    let mut head = Vec::new();
    for _ in 0..SNIFF_LINES {
        if head.len() >= SNIFF_BYTES {
            break;
        }
        let n = (&mut src)
            .take(MAX_LINE_BYTES as u64)
            .read_until(b'\n', &mut head)
            .map_err(|e| InputError::Read(TraceError::file(name, format!("cannot read: {e}"))))?;
        if n == 0 || !head.ends_with(b"\n") {
            break;
        }
    }
    Ok(head)
}

#[cfg(test)]
mod tests;
