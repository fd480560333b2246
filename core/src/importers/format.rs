//! The GC-log formats `gclab mmu` reads and the rule that tells them apart by content ([`detect`]), on their own so
//! that the input layer's sniff (`crate::input::head`) and the importers share them without a circle.

use super::error::{ImportError, ImportErrorKind};
use super::{csv_rows, jvm_log, logcat};

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

/// What a GC-log importer expects, for its errors.
pub(crate) const GC_LOG_EXPECTED: &str = "expected a CSV header with start_ns,end_ns or time_ns,util, HotSpot -Xlog:gc lines \
     or logcat GC lines (or give --format)";

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
            ImportErrorKind::UnknownFormat(GC_LOG_EXPECTED.into()),
        )),
        (j, l) if j >= l => Ok(Format::Jvm),
        _ => Ok(Format::Logcat),
    }
}
