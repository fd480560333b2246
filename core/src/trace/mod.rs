//! The gclab trace (DESIGN §7, `docs/trace-format.md`): a versioned per-object event log after the Address-Chain
//! paper. A header (magic, version, time unit, heap geometry, source) and a stream of records: string-table
//! definitions (allocation sites, types, GC kinds) and events `alloc`, `move`, `death`, `access`, `gc_start`,
//! `gc_end`, closed by an `end` record that counts the events.
//!
//! Two forms carry the same model: a text form, one record per line ([`text`]), and a compact binary form with
//! varint/delta encoding ([`binary`]). Both are read by one streaming [`TraceReader`] (an iterator; memory bounded
//! by the string tables, which are capped) that also reads a zstd-compressed file of either form, and written by
//! one streaming [`TraceWriter`]. Importers of real allocation traces live in [`crate::importers::alloc`], trace statistics in [`stats`]. Users of the format
//! live above it: a simulated run recorded as a trace in [`crate::run::record`], a trace replayed as recorded (a
//! scrubbable heap layout) in [`crate::run::recorded`], and as the allocation requests of a simulated program in
//! [`crate::workload::from_trace`].

pub mod binary;
pub mod blocks;
mod byte_input;
pub mod error;
pub mod reader;
pub mod stats;
pub mod text;
pub mod writer;

#[cfg(test)]
mod tests;

use std::path::Path;

pub use error::{Location, TraceError};
pub use reader::TraceReader;
pub use writer::{FileTraceWriter, TraceWriter};

/// The current format version (2: the binary form's records in checksummed blocks, [`blocks`]; the text form is
/// unchanged but for the number). Readers accept every version from 1 up to this one.
pub const VERSION: u32 = 2;
/// First token of a text trace's first line (`gclab-trace 1`).
pub const TEXT_MAGIC: &str = "gclab-trace";
/// First eight bytes of a binary trace.
pub const BINARY_MAGIC: [u8; 8] = *b"\x89GCTRACE";
/// Longest string (site, type, GC kind, source) a reader accepts. `[bytes]`
pub const MAX_STRING_BYTES: usize = 64 * 1024;
/// Most entries a string table may hold.
pub const MAX_TABLE_ENTRIES: usize = 1 << 24;
/// Most bytes all string tables together may hold, each entry counted with [`TABLE_ENTRY_OVERHEAD_BYTES`].
/// `[bytes]`
pub const MAX_TABLE_BYTES: usize = 256 << 20;
/// What one table entry costs beyond its bytes in the [`MAX_TABLE_BYTES`] budget. `[bytes]`
pub const TABLE_ENTRY_OVERHEAD_BYTES: usize = 32;

/// The unit of every event time in a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
    /// CPU cycles (no wall-clock meaning without a clock rate).
    Cycles,
    /// A logical clock: the record number in the source trace.
    Records,
    /// A logical clock: bytes allocated so far.
    Bytes,
}

impl TimeUnit {
    /// All units, in binary-code order.
    pub const ALL: [TimeUnit; 7] = [
        TimeUnit::Ns,
        TimeUnit::Us,
        TimeUnit::Ms,
        TimeUnit::S,
        TimeUnit::Cycles,
        TimeUnit::Records,
        TimeUnit::Bytes,
    ];

    /// Its name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Ns => "ns",
            TimeUnit::Us => "us",
            TimeUnit::Ms => "ms",
            TimeUnit::S => "s",
            TimeUnit::Cycles => "cycles",
            TimeUnit::Records => "records",
            TimeUnit::Bytes => "bytes",
        }
    }

    /// Parses a text-form name.
    pub fn parse(text: &str) -> Option<TimeUnit> {
        TimeUnit::ALL.into_iter().find(|u| u.name() == text)
    }

    /// Its code in the binary form.
    pub fn code(self) -> u64 {
        TimeUnit::ALL.iter().position(|u| *u == self).unwrap_or(0) as u64
    }

    /// The unit of a binary-form code.
    pub fn from_code(code: u64) -> Option<TimeUnit> {
        usize::try_from(code)
            .ok()
            .and_then(|c| TimeUnit::ALL.get(c).copied())
    }

    /// Nanoseconds per unit, for wall-clock units.
    pub fn ns_per_unit(self) -> Option<f64> {
        match self {
            TimeUnit::Ns => Some(1.0),
            TimeUnit::Us => Some(1e3),
            TimeUnit::Ms => Some(1e6),
            TimeUnit::S => Some(1e9),
            TimeUnit::Cycles | TimeUnit::Records | TimeUnit::Bytes => None,
        }
    }
}

/// The heap the trace's addresses live in; 0 in a field means unknown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeapInfo {
    /// Lowest heap address. `[bytes]`
    pub base_addr: u64,
    /// Heap size. `[bytes]`
    pub size_bytes: u64,
    /// Bank (or region) size. `[bytes]`
    pub bank_bytes: u64,
}

/// A trace's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceHeader {
    /// Format version of the file (a writer always writes [`VERSION`]).
    pub version: u32,
    /// Unit of every event time.
    pub time_unit: TimeUnit,
    /// Heap geometry.
    pub heap: HeapInfo,
    /// Free text naming where the trace came from (may be empty).
    pub source: String,
}

impl TraceHeader {
    /// A version-[`VERSION`] header.
    pub fn new(time_unit: TimeUnit, heap: HeapInfo, source: &str) -> Self {
        TraceHeader {
            version: VERSION,
            time_unit,
            heap,
            source: clip_string(source).to_string(),
        }
    }
}

/// The three string tables; an id is an index into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    /// Allocation sites.
    Site,
    /// Types (classes).
    Type,
    /// GC kinds (`gc_start`).
    GcKind,
}

impl Table {
    /// Its keyword in the text form.
    pub fn keyword(self) -> &'static str {
        match self {
            Table::Site => "site",
            Table::Type => "type",
            Table::GcKind => "gc_kind",
        }
    }

    #[inline]
    fn index(self) -> usize {
        match self {
            Table::Site => 0,
            Table::Type => 1,
            Table::GcKind => 2,
        }
    }
}

/// The string tables read so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tables {
    tables: [Vec<String>; 3],
    bytes: usize,
}

impl Tables {
    /// The entries of `table`.
    pub fn get(&self, table: Table) -> &[String] {
        &self.tables[table.index()]
    }

    /// The name of `id` in `table` (`"?"` when undefined).
    pub fn name(&self, table: Table, id: u32) -> &str {
        self.get(table).get(id as usize).map_or("?", String::as_str)
    }

    /// Appends `name` to `table`; `Err` names the limit it would break.
    pub(crate) fn push(&mut self, table: Table, name: String) -> Result<u32, String> {
        if name.len() > MAX_STRING_BYTES {
            return Err(format!(
                "a string of at most {MAX_STRING_BYTES} bytes (got {})",
                name.len()
            ));
        }
        let t = &mut self.tables[table.index()];
        if t.len() >= MAX_TABLE_ENTRIES {
            return Err(format!(
                "at most {MAX_TABLE_ENTRIES} {} entries",
                table.keyword()
            ));
        }
        // Each entry costs its bytes plus a fixed overhead (so that a flood of empty strings is bounded too).
        let cost = name.len() + TABLE_ENTRY_OVERHEAD_BYTES;
        if self.bytes + cost > MAX_TABLE_BYTES {
            return Err(format!(
                "string tables of at most {MAX_TABLE_BYTES} bytes in all"
            ));
        }
        self.bytes += cost;
        t.push(name);
        Ok((t.len() - 1) as u32)
    }

    /// Checks that `id` is defined in `table`.
    #[inline]
    pub(crate) fn check(&self, table: Table, id: u32) -> Result<(), String> {
        let n = self.get(table).len();
        if (id as usize) < n {
            Ok(())
        } else {
            Err(format!(
                "a defined {} id (below {n}), got {id}",
                table.keyword()
            ))
        }
    }
}

/// One event. Ids are the trace's object ids (unique among objects allocated and not yet dead); times are in the
/// header's [`TimeUnit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// An object was allocated.
    Alloc {
        /// Object id.
        id: u64,
        /// Allocation site ([`Table::Site`] id).
        site: u32,
        /// Type ([`Table::Type`] id).
        type_id: u32,
        /// Size. `[bytes]`
        size_bytes: u64,
        /// Address (0 when unknown).
        addr: u64,
        /// Time.
        t: u64,
    },
    /// An object moved.
    Move {
        /// Object id.
        id: u64,
        /// New address.
        addr: u64,
        /// Time.
        t: u64,
    },
    /// An object died (became unreachable, or was freed).
    Death {
        /// Object id.
        id: u64,
        /// Time.
        t: u64,
    },
    /// An object was accessed.
    Access {
        /// Object id.
        id: u64,
        /// Time.
        t: u64,
    },
    /// A collection started.
    GcStart {
        /// GC kind ([`Table::GcKind`] id).
        kind: u32,
        /// Time.
        t: u64,
    },
    /// A collection ended.
    GcEnd {
        /// Time.
        t: u64,
    },
}

impl Event {
    /// Its time.
    pub fn t(&self) -> u64 {
        match *self {
            Event::Alloc { t, .. }
            | Event::Move { t, .. }
            | Event::Death { t, .. }
            | Event::Access { t, .. }
            | Event::GcStart { t, .. }
            | Event::GcEnd { t } => t,
        }
    }
}

/// The two forms of a trace file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// One record per line.
    Text,
    /// Varint/delta-encoded records.
    Binary,
}

impl Form {
    /// The form a path asks for: text when the name ends in `.txt` (e.g. `run.gctrace.txt`), binary otherwise
    /// (e.g. `run.gctrace`).
    pub fn for_path(path: &Path) -> Form {
        let name = path.to_string_lossy().to_ascii_lowercase();
        if name.ends_with(".txt") {
            Form::Text
        } else {
            Form::Binary
        }
    }
}

/// `s` cut to at most [`MAX_STRING_BYTES`] bytes at a character boundary (what writers of imported names use).
pub fn clip_string(s: &str) -> &str {
    if s.len() <= MAX_STRING_BYTES {
        return s;
    }
    let mut end = MAX_STRING_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
