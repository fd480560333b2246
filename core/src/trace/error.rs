//! `TraceError`: what went wrong reading, importing or writing a trace, and where — the file, then a 1-based line
//! (text inputs) or a byte offset (binary inputs; of the decompressed stream for a compressed file).

use std::fmt;

/// Where in a file an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// The whole file (e.g. it cannot be opened).
    File,
    /// A 1-based line.
    Line(u64),
    /// A byte offset from the start.
    Byte(u64),
}

/// An input that cannot be used (or an output that cannot be written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    /// The file as named by the caller.
    pub file: String,
    /// Where in it.
    pub at: Location,
    /// What is wrong, saying what was expected.
    pub message: String,
    /// The file is an output that could not be created or written (not a bad input): callers tell the two apart
    /// by this, never by the message's text.
    pub writing: bool,
}

impl TraceError {
    /// An error at `at` of `file`.
    pub fn new(file: &str, at: Location, message: impl Into<String>) -> Self {
        TraceError {
            file: file.to_string(),
            at,
            message: message.into(),
            writing: false,
        }
    }

    /// An output `file` that cannot be created or written.
    pub fn writing(file: &str, message: impl Into<String>) -> Self {
        TraceError {
            writing: true,
            ..TraceError::file(file, message)
        }
    }

    /// An error at 1-based `line` of `file`.
    pub fn line(file: &str, line: u64, message: impl Into<String>) -> Self {
        TraceError::new(file, Location::Line(line), message)
    }

    /// An error at byte `offset` of `file`.
    pub fn byte(file: &str, offset: u64, message: impl Into<String>) -> Self {
        TraceError::new(file, Location::Byte(offset), message)
    }

    /// An error about the whole of `file`.
    pub fn file(file: &str, message: impl Into<String>) -> Self {
        TraceError::new(file, Location::File, message)
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Location::File => write!(f, "{}: {}", self.file, self.message),
            Location::Line(n) => write!(f, "{}:{n}: {}", self.file, self.message),
            Location::Byte(n) => write!(f, "{}: byte {n}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for TraceError {}
