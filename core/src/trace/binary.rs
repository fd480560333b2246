//! The binary form (version 2; version 1 is read too): magic, varint header, then one tag byte per record and LEB128 varints, with object
//! ids, addresses and times delta-encoded (zigzag) against the previous record so that a typical `alloc` takes
//! 7–12 bytes. [`BinEncoder`] writes records into a byte buffer; [`BinDecoder`] reads them from a buffered stream
//! and reports the byte offset of any bad or cut record. See `docs/trace-format.md` for the byte layout.

use std::io::Read;
use std::sync::{Arc, Mutex};

use super::blocks::{BlockError, BlockMap, BlockReader};
use super::byte_input::put_varint;
use super::byte_input::{ByteInput, Cut, varint};

use super::{
    BINARY_MAGIC, Event, HeapInfo, MAX_STRING_BYTES, Table, Tables, TimeUnit, TraceError,
    TraceHeader, VERSION,
};

/// `end` record: the event count follows.
pub const TAG_END: u8 = 0x00;
/// Site definition: a string follows.
pub const TAG_SITE: u8 = 0x01;
/// Type definition: a string follows.
pub const TAG_TYPE: u8 = 0x02;
/// GC-kind definition: a string follows.
pub const TAG_GC_KIND: u8 = 0x03;
/// `alloc`.
pub const TAG_ALLOC: u8 = 0x10;
/// `move`.
pub const TAG_MOVE: u8 = 0x11;
/// `death`.
pub const TAG_DEATH: u8 = 0x12;
/// `access`.
pub const TAG_ACCESS: u8 = 0x13;
/// `gc_start`.
pub const TAG_GC_START: u8 = 0x14;
/// `gc_end`.
pub const TAG_GC_END: u8 = 0x15;

/// Longest fixed part of a record: a tag and six 10-byte varints.
const MAX_RECORD_BYTES: usize = 1 + 6 * 10;

fn zigzag(delta: u64) -> u64 {
    let d = delta as i64;
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> u64 {
    ((z >> 1) as i64 ^ -((z & 1) as i64)) as u64
}

fn put_string(buf: &mut Vec<u8>, s: &str) {
    put_varint(buf, s.len() as u64);
    buf.extend_from_slice(s.as_bytes());
}

/// Delta state shared by encoder and decoder.
#[derive(Debug, Clone, Copy, Default)]
struct Deltas {
    next_alloc_id: u64,
    last_id: u64,
    last_addr: u64,
    last_t: u64,
}

/// Encodes the header and records of one binary trace.
#[derive(Debug, Default)]
pub struct BinEncoder {
    d: Deltas,
}

impl BinEncoder {
    /// Appends the magic and the version: the bytes before the first block.
    pub fn preamble(&mut self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&BINARY_MAGIC);
        put_varint(buf, u64::from(VERSION));
    }

    /// Appends the header fields after the version (the start of the first block's payload).
    pub fn header(&mut self, buf: &mut Vec<u8>, h: &TraceHeader) {
        put_varint(buf, h.time_unit.code());
        put_varint(buf, h.heap.base_addr);
        put_varint(buf, h.heap.size_bytes);
        put_varint(buf, h.heap.bank_bytes);
        put_string(buf, &h.source);
    }

    /// Appends a string-table definition.
    pub fn def(&mut self, buf: &mut Vec<u8>, table: Table, name: &str) {
        buf.push(match table {
            Table::Site => TAG_SITE,
            Table::Type => TAG_TYPE,
            Table::GcKind => TAG_GC_KIND,
        });
        put_string(buf, name);
    }

    /// Appends an event.
    pub fn event(&mut self, buf: &mut Vec<u8>, ev: &Event) {
        let d = &mut self.d;
        let t = ev.t();
        match *ev {
            Event::Alloc {
                id,
                site,
                type_id,
                size_bytes,
                addr,
                ..
            } => {
                buf.push(TAG_ALLOC);
                put_varint(buf, zigzag(id.wrapping_sub(d.next_alloc_id)));
                put_varint(buf, u64::from(site));
                put_varint(buf, u64::from(type_id));
                put_varint(buf, size_bytes);
                put_varint(buf, zigzag(addr.wrapping_sub(d.last_addr)));
                d.next_alloc_id = id.wrapping_add(1);
                d.last_id = id;
                d.last_addr = addr;
            }
            Event::Move { id, addr, .. } => {
                buf.push(TAG_MOVE);
                put_varint(buf, zigzag(id.wrapping_sub(d.last_id)));
                put_varint(buf, zigzag(addr.wrapping_sub(d.last_addr)));
                d.last_id = id;
                d.last_addr = addr;
            }
            Event::Death { id, .. } | Event::Access { id, .. } => {
                buf.push(if matches!(ev, Event::Death { .. }) {
                    TAG_DEATH
                } else {
                    TAG_ACCESS
                });
                put_varint(buf, zigzag(id.wrapping_sub(d.last_id)));
                d.last_id = id;
            }
            Event::GcStart { kind, .. } => {
                buf.push(TAG_GC_START);
                put_varint(buf, u64::from(kind));
            }
            Event::GcEnd { .. } => buf.push(TAG_GC_END),
        }
        put_varint(buf, zigzag(t.wrapping_sub(d.last_t)));
        d.last_t = t;
    }

    /// Appends the `end` record.
    pub fn end(&mut self, buf: &mut Vec<u8>, events: u64) {
        buf.push(TAG_END);
        put_varint(buf, events);
    }
}

/// Reads the records of a binary trace after its magic.
pub(crate) struct BinDecoder {
    name: String,
    input: ByteInput,
    d: Deltas,
    version: u32,
    /// Version 2: where the blocks' payloads lie in the file (errors name file offsets).
    blocks: Option<Arc<Mutex<BlockMap>>>,
}

/// Reads from `src` until `buf` is full or the stream ends; the bytes read.
fn read_full(src: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match src.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The format version after the magic, read a byte at a time (the version decides how the rest is read): the
/// version and its length in bytes.
fn read_version(name: &str, src: &mut dyn Read) -> Result<(u64, u64), TraceError> {
    let start = BINARY_MAGIC.len() as u64;
    let mut bytes = Vec::with_capacity(10);
    loop {
        let mut b = [0u8; 1];
        let n = read_full(src, &mut b)
            .map_err(|e| TraceError::byte(name, start, format!("cannot read: {e}")))?;
        if n == 0 {
            return Err(TraceError::byte(
                name,
                start + bytes.len() as u64,
                format!(
                    "unexpected end of file inside the format version (which starts at byte {start})"
                ),
            ));
        }
        bytes.push(b[0]);
        if b[0] < 0x80 || bytes.len() == 10 {
            break;
        }
    }
    let mut at = 0;
    let v = varint(&bytes, &mut at).map_err(|_| {
        TraceError::byte(
            name,
            start,
            "the format version: a varint longer than 64 bits (expected at most 10 bytes)",
        )
    })?;
    Ok((v, bytes.len() as u64))
}

impl BinDecoder {
    /// Reads the magic and header from `src`.
    pub(crate) fn open(
        name: &str,
        mut src: Box<dyn Read + Send>,
    ) -> Result<(BinDecoder, TraceHeader), TraceError> {
        let mut magic = [0u8; BINARY_MAGIC.len()];
        let n = read_full(&mut src, &mut magic)
            .map_err(|e| TraceError::byte(name, 0, format!("cannot read: {e}")))?;
        if n < magic.len() || magic != BINARY_MAGIC {
            return Err(TraceError::byte(
                name,
                0,
                "not a binary gclab trace: expected the magic bytes 89 47 43 54 52 41 43 45 (\\x89GCTRACE)",
            ));
        }
        let version_at = BINARY_MAGIC.len() as u64;
        let (version, len) = read_version(name, &mut src)?;
        if version == 0 || version > u64::from(VERSION) {
            return Err(TraceError::byte(
                name,
                version_at,
                format!(
                    "unsupported format version {version} (this reader knows versions 1 to {VERSION})"
                ),
            ));
        }
        let body_at = version_at + len;
        let (input, blocks) = if version >= 2 {
            let (r, map) = BlockReader::new(src, body_at);
            (ByteInput::new(Box::new(r)), Some(map))
        } else {
            let mut input = ByteInput::new(src);
            input.base = body_at;
            (input, None)
        };
        let mut dec = BinDecoder {
            name: name.to_string(),
            input,
            d: Deltas::default(),
            version: version as u32,
            blocks,
        };
        let unit_at = dec.input.offset();
        let code = dec.header_varint("the time-unit code")?;
        let time_unit = TimeUnit::from_code(code).ok_or_else(|| {
            dec.err(
                unit_at,
                format!("unknown time-unit code {code}: expected 0 to 6"),
            )
        })?;
        let heap = HeapInfo {
            base_addr: dec.header_varint("the heap base address")?,
            size_bytes: dec.header_varint("the heap size")?,
            bank_bytes: dec.header_varint("the bank size")?,
        };
        let source = dec.string("the source string")?;
        let header = TraceHeader {
            version: dec.version,
            time_unit,
            heap,
            source,
        };
        Ok((dec, header))
    }

    /// The file offset of stream offset `at` (the same before version 2).
    fn file_at(&self, at: u64) -> u64 {
        match &self.blocks {
            Some(m) => m
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .file_offset(at),
            None => at,
        }
    }

    /// An error at stream offset `at` (named by its file offset).
    #[cold]
    fn err(&self, at: u64, message: impl Into<String>) -> TraceError {
        TraceError::byte(&self.name, self.file_at(at), message)
    }

    fn fill(&mut self, need: usize) -> Result<(), TraceError> {
        let at = self.input.offset();
        self.input.fill(need).map_err(|e| {
            match e.get_ref().and_then(|x| x.downcast_ref::<BlockError>()) {
                Some(b) => TraceError::byte(&self.name, b.at, b.message.clone()),
                None => self.err(at, format!("cannot read: {e}")),
            }
        })
    }

    fn header_varint(&mut self, what: &str) -> Result<u64, TraceError> {
        self.fill(10)?;
        let start = self.input.offset();
        let mut at = 0;
        match varint(self.input.available(), &mut at) {
            Ok(v) => {
                self.input.pos += at;
                Ok(v)
            }
            Err(c) => Err(self.cut(c, start, what)),
        }
    }

    fn cut(&self, c: Cut, record_at: u64, what: &str) -> TraceError {
        match c {
            Cut::End => self.err(
                self.input.base + self.input.len as u64,
                format!(
                    "unexpected end of file inside {what} (which starts at byte {})",
                    self.file_at(record_at)
                ),
            ),
            Cut::Overlong => self.err(
                record_at,
                format!("{what}: a varint longer than 64 bits (expected at most 10 bytes)"),
            ),
        }
    }

    /// A length-prefixed UTF-8 string of at most [`MAX_STRING_BYTES`].
    fn string(&mut self, what: &str) -> Result<String, TraceError> {
        let start = self.input.offset();
        let len = self.header_varint(what)?;
        if len > MAX_STRING_BYTES as u64 {
            return Err(self.err(
                start,
                format!("{what}: length {len} exceeds the limit of {MAX_STRING_BYTES} bytes"),
            ));
        }
        let len = len as usize;
        self.fill(len)?;
        if self.input.available().len() < len {
            return Err(self.cut(Cut::End, start, what));
        }
        let bytes = &self.input.available()[..len];
        let s = std::str::from_utf8(bytes)
            .map_err(|e| {
                self.err(
                    self.input.offset() + e.valid_up_to() as u64,
                    format!("{what}: invalid UTF-8 (expected a UTF-8 string)"),
                )
            })?
            .to_string();
        self.input.pos += len;
        Ok(s)
    }

    /// The next event (string definitions are added to `tables` on the way), or `None` after the `end` record
    /// whose count matched `events` (the events read so far).
    pub(crate) fn next(
        &mut self,
        tables: &mut Tables,
        events: u64,
    ) -> Result<Option<Event>, TraceError> {
        loop {
            if self.input.len - self.input.pos < MAX_RECORD_BYTES {
                self.fill(MAX_RECORD_BYTES)?;
            }
            let start = self.input.offset();
            let s = self.input.available();
            let Some(&tag) = s.first() else {
                return Err(self.err(
                    start,
                    "unexpected end of file: expected a record or the end record (tag 0x00)",
                ));
            };
            let table = match tag {
                TAG_SITE => Some(Table::Site),
                TAG_TYPE => Some(Table::Type),
                TAG_GC_KIND => Some(Table::GcKind),
                _ => None,
            };
            if let Some(table) = table {
                self.input.pos += 1;
                let what = format!("the {} definition", table.keyword());
                let name = self.string(&what)?;
                tables
                    .push(table, name)
                    .map_err(|e| self.err(start, format!("expected {e}")))?;
                continue;
            }
            return self.event(tag, start, tables, events);
        }
    }

    #[inline(always)]
    fn event(
        &mut self,
        tag: u8,
        start: u64,
        tables: &Tables,
        events: u64,
    ) -> Result<Option<Event>, TraceError> {
        let decoded = decode(tag, self.input.available(), &self.d);
        let (ev, nd, used) = match decoded {
            Ok(v) => v,
            Err(c) => return Err(self.decode_error(tag, c, start)),
        };
        self.input.pos += used;
        if tag == TAG_END {
            return self.end(ev.t(), start, events).map(|()| None);
        }
        let ok = match ev {
            Event::Alloc { site, type_id, .. } => {
                (site as usize) < tables.get(Table::Site).len()
                    && (type_id as usize) < tables.get(Table::Type).len()
            }
            Event::GcStart { kind, .. } => (kind as usize) < tables.get(Table::GcKind).len(),
            _ => true,
        };
        if !ok {
            return Err(self.undefined(&ev, tag, start, tables));
        }
        self.d = nd;
        Ok(Some(ev))
    }

    #[cold]
    fn decode_error(&self, tag: u8, c: Cut, start: u64) -> TraceError {
        match record_name(tag) {
            Some(what) => self.cut(c, start, what),
            None => self.err(
                start,
                format!("unknown record tag 0x{tag:02x}: expected 0x00-0x03 or 0x10-0x15"),
            ),
        }
    }

    #[cold]
    fn undefined(&self, ev: &Event, tag: u8, start: u64, tables: &Tables) -> TraceError {
        let check = match *ev {
            Event::Alloc { site, type_id, .. } => tables
                .check(Table::Site, site)
                .and_then(|()| tables.check(Table::Type, type_id)),
            Event::GcStart { kind, .. } => tables.check(Table::GcKind, kind),
            _ => Ok(()),
        };
        let what = record_name(tag).unwrap_or("a record");
        self.err(
            start,
            format!("{what}: expected {}", check.err().unwrap_or_default()),
        )
    }

    /// Checks the `end` record's count and that nothing follows it.
    #[cold]
    fn end(&mut self, declared: u64, start: u64, events: u64) -> Result<(), TraceError> {
        if declared != events {
            return Err(self.err(
                start,
                format!("the end record counts {declared} events but {events} were read"),
            ));
        }
        self.fill(1)?;
        if !self.input.available().is_empty() {
            return Err(self.err(
                self.input.offset(),
                "data after the end record: expected the end of the file",
            ));
        }
        Ok(())
    }
}

/// What a tag's record is called in errors (`None`: not a record tag).
fn record_name(tag: u8) -> Option<&'static str> {
    Some(match tag {
        TAG_END => "the end record",
        TAG_ALLOC => "an alloc record",
        TAG_MOVE => "a move record",
        TAG_DEATH => "a death record",
        TAG_ACCESS => "an access record",
        TAG_GC_START => "a gc_start record",
        TAG_GC_END => "a gc_end record",
        _ => return None,
    })
}

/// Decodes the event record with `tag` at the start of `s` (tag included) against the delta state `d`: the event
/// (for `end`, a `GcEnd` carrying the count), the new delta state and the bytes used.
#[inline(always)]
fn decode(tag: u8, s: &[u8], d: &Deltas) -> Result<(Event, Deltas, usize), Cut> {
    let mut at = 1;
    let mut nd = *d;
    let ev = match tag {
        TAG_ALLOC => {
            let id = d.next_alloc_id.wrapping_add(unzigzag(varint(s, &mut at)?));
            let site = varint(s, &mut at)?;
            let type_id = varint(s, &mut at)?;
            let size_bytes = varint(s, &mut at)?;
            let addr = d.last_addr.wrapping_add(unzigzag(varint(s, &mut at)?));
            let t = d.last_t.wrapping_add(unzigzag(varint(s, &mut at)?));
            nd.next_alloc_id = id.wrapping_add(1);
            nd.last_id = id;
            nd.last_addr = addr;
            Event::Alloc {
                id,
                site: u32::try_from(site).unwrap_or(u32::MAX),
                type_id: u32::try_from(type_id).unwrap_or(u32::MAX),
                size_bytes,
                addr,
                t,
            }
        }
        TAG_DEATH | TAG_ACCESS => {
            let id = d.last_id.wrapping_add(unzigzag(varint(s, &mut at)?));
            let t = d.last_t.wrapping_add(unzigzag(varint(s, &mut at)?));
            nd.last_id = id;
            if tag == TAG_DEATH {
                Event::Death { id, t }
            } else {
                Event::Access { id, t }
            }
        }
        TAG_MOVE => {
            let id = d.last_id.wrapping_add(unzigzag(varint(s, &mut at)?));
            let addr = d.last_addr.wrapping_add(unzigzag(varint(s, &mut at)?));
            let t = d.last_t.wrapping_add(unzigzag(varint(s, &mut at)?));
            nd.last_id = id;
            nd.last_addr = addr;
            Event::Move { id, addr, t }
        }
        TAG_GC_START => {
            let kind = varint(s, &mut at)?;
            let t = d.last_t.wrapping_add(unzigzag(varint(s, &mut at)?));
            Event::GcStart {
                kind: u32::try_from(kind).unwrap_or(u32::MAX),
                t,
            }
        }
        TAG_GC_END => Event::GcEnd {
            t: d.last_t.wrapping_add(unzigzag(varint(s, &mut at)?)),
        },
        TAG_END => {
            let n = varint(s, &mut at)?;
            return Ok((Event::GcEnd { t: n }, nd, at));
        }
        _ => return Err(Cut::Overlong),
    };
    nd.last_t = ev.t();
    Ok((ev, nd, at))
}
