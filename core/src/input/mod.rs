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

pub(crate) mod head;
pub mod lines;
pub mod warnings;

pub use head::{Head, InputKind, NoKind, SNIFF_BYTES, SNIFF_LINES, classify, read_head};
pub use lines::{Line, LineReport, Lines, MAX_LINE_BYTES};
pub use warnings::Warnings;

use std::io::BufReader;
use std::path::Path;

use crate::importers::Format;
use crate::importers::alloc::{self as trace_import, ImportFormat};
use crate::trace::TraceError;
use crate::trace::reader::decompressed;

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
/// an Elephant Tracks `trace*` file is that trace; otherwise the decompressed content's prefix ([`read_head`]) is
/// told by [`sniff_head`].
pub fn sniff(path: &Path) -> Result<InputKind, InputError> {
    let name = path.display().to_string();
    if is_scenario_path(path) && !path.is_dir() {
        return Ok(InputKind::Scenario);
    }
    let file = trace_import::et2::trace_file(path);
    let head = prefix(&name, &file)?;
    sniff_head(&name, &head)
}

/// [`classify`] worded as an [`InputError`] naming `name`.
pub fn sniff_head(name: &str, head: &Head) -> Result<InputKind, InputError> {
    classify(name, head).map_err(|u| {
        let (line, what) = match u {
            NoKind::Empty => (1, "empty file"),
            NoKind::Format { line } => (line, "cannot tell the format"),
        };
        InputError::Unknown {
            file: name.to_string(),
            line,
            message: format!("{what}: {EXPECTED}"),
        }
    })
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

/// The decompressed [`Head`] of `file`.
fn prefix(name: &str, file: &Path) -> Result<Head, InputError> {
    let f = std::fs::File::open(file)
        .map_err(|e| InputError::Read(TraceError::file(name, format!("cannot read: {e}"))))?;
    let src = decompressed(name, Box::new(f)).map_err(InputError::Read)?;
    read_head(&mut BufReader::new(src))
        .map_err(|e| InputError::Read(TraceError::file(name, format!("cannot read: {e}"))))
}

#[cfg(test)]
mod tests;
