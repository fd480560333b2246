//! The input layer's one content rule: how much of a source is looked at ([`read_head`]) and what that prefix is
//! ([`classify`]) — shared by [`super::sniff`] (a file) and the GC-log importer's `Format::Auto` (a stream), so a
//! source's kind is told one way.

use std::io::{BufRead, Read};
use std::path::Path;

use super::lines::MAX_LINE_BYTES;
use crate::importers::alloc::{ImportFormat, detect_text};
use crate::importers::format::{Format, detect};
use crate::trace::{BINARY_MAGIC, Form, TEXT_MAGIC};

/// Most lines of the (decompressed) prefix read to tell a file's kind: as many as a GC log may need.
pub const SNIFF_LINES: usize = 2000;
/// Most bytes of the (decompressed) prefix read to tell a file's kind. `[bytes]`
pub const SNIFF_BYTES: usize = 4 << 20;

/// What a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A scenario (`*.toml`, or `preset:NAME` through [`super::sniff_arg`]).
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

/// The prefix of a source that tells its kind: at most [`SNIFF_LINES`] lines, [`SNIFF_BYTES`] bytes and lines of at
/// most [`MAX_LINE_BYTES`] (a longer line is cut there and ends the prefix).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Head {
    /// The bytes read, to be read again before the rest of the source.
    pub bytes: Vec<u8>,
    /// True when the source ended inside the prefix.
    pub eof: bool,
}

/// Reads the [`Head`] of `src` (already decompressed): the one rule for how much of a source is looked at.
pub fn read_head(src: &mut impl BufRead) -> std::io::Result<Head> {
    let mut head = Head::default();
    for _ in 0..SNIFF_LINES {
        if head.bytes.len() >= SNIFF_BYTES {
            break;
        }
        let n = (&mut *src)
            .take(MAX_LINE_BYTES as u64)
            .read_until(b'\n', &mut head.bytes)?;
        if n == 0 || n < MAX_LINE_BYTES && !head.bytes.ends_with(b"\n") {
            head.eof = true;
            break;
        }
        if !head.bytes.ends_with(b"\n") {
            break;
        }
    }
    Ok(head)
}

/// Why a prefix tells no kind (the caller words it: [`sniff`] as an [`InputError`], the GC-log importer as its own
/// error kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoKind {
    /// Nothing but blank lines up to the end.
    Empty,
    /// No rule matches; the 1-based line of the first text.
    Format {
        /// The first line with text.
        line: usize,
    },
}

/// What a source named `name` is from its [`Head`] (the name counts only for `*.gctrace`/`*.gct`/`*.gctb`: content
/// that is not recognised there is still a trace, so that the trace reader reports what is wrong with it). The one
/// content rule of the input layer: [`crate::trace`]'s magic bytes, the allocation-trace shapes of
/// [`crate::importers::alloc`], then the GC-log patterns of [`crate::importers::detect`].
pub fn classify(name: &str, head: &Head) -> Result<InputKind, NoKind> {
    let bytes = &head.bytes;
    if bytes.starts_with(&BINARY_MAGIC) {
        return Ok(InputKind::Trace(Form::Binary));
    }
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let first_record = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    if first_record.is_some_and(|l| l.starts_with(TEXT_MAGIC)) {
        return Ok(InputKind::Trace(Form::Text));
    }
    let ext = Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if matches!(ext.as_str(), "gctrace" | "gct" | "gctb") {
        let binary = bytes.first() == Some(&BINARY_MAGIC[0]) || bytes.contains(&0);
        return Ok(InputKind::Trace(if binary {
            Form::Binary
        } else {
            Form::Text
        }));
    }
    if text.trim().is_empty() {
        return Err(if head.eof {
            NoKind::Empty
        } else {
            NoKind::Format { line: 0 }
        });
    }
    if let Some(f) = detect_text(text) {
        return Ok(InputKind::AllocTrace(f));
    }
    match detect(name, text) {
        Ok(f) => Ok(InputKind::GcLog(f)),
        Err(_) => Err(NoKind::Format {
            line: text
                .lines()
                .position(|l| !l.trim().is_empty())
                .map_or(1, |i| i + 1),
        }),
    }
}
