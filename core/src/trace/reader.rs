//! `TraceReader`: opens a trace of either form (sniffed from its first bytes; a zstd-, gzip- or bzip2-compressed
//! file is decompressed on the fly) and yields its events as an iterator, with the string tables growing as definitions
//! are read. Memory is bounded: one read buffer, one line, and the capped string tables.
//! Also the decompression helpers the importers share ([`open_decompressed`]).

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::binary::BinDecoder;
use super::text::TextDecoder;
use super::{BINARY_MAGIC, Event, Form, Tables, TraceError, TraceHeader};

/// First bytes of a zstd frame.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// First bytes of a gzip member.
pub const GZIP_MAGIC: [u8; 2] = [0x1F, 0x8B];
/// First bytes of a bzip2 stream.
pub const BZIP2_MAGIC: [u8; 3] = *b"BZh";

/// Reads concatenated zstd frames as one stream.
struct ZstdFrames {
    dec: Option<
        ruzstd::decoding::StreamingDecoder<
            BufReader<Box<dyn Read + Send>>,
            ruzstd::decoding::FrameDecoder,
        >,
    >,
}

impl Read for ZstdFrames {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let Some(dec) = self.dec.as_mut() else {
                return Ok(0);
            };
            let n = dec.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let mut src = self.dec.take().map(|d| d.into_inner());
            let more = match src.as_mut() {
                Some(s) => !s.fill_buf()?.is_empty(),
                None => false,
            };
            if let (true, Some(s)) = (more, src) {
                self.dec = Some(
                    ruzstd::decoding::StreamingDecoder::new(s)
                        .map_err(|_| std::io::Error::other("bad zstd frame header"))?,
                );
            }
        }
    }
}

/// Reads up to `n` bytes from the start of `src` and returns them with a reader that yields the whole stream.
pub fn peek(
    mut src: Box<dyn Read + Send>,
    n: usize,
) -> std::io::Result<(Vec<u8>, Box<dyn Read + Send>)> {
    let mut head = vec![0u8; n];
    let mut got = 0;
    while got < n {
        match src.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(got);
    let whole: Box<dyn Read + Send> = Box::new(Cursor::new(head.clone()).chain(src));
    Ok((head, whole))
}

/// Opens `path` and undoes a zstd, gzip or bzip2 compression found by its magic bytes (once). `name` is used in
/// errors.
pub fn open_decompressed(name: &str, path: &Path) -> Result<Box<dyn Read + Send>, TraceError> {
    let f = File::open(path).map_err(|e| TraceError::file(name, format!("cannot open: {e}")))?;
    decompressed(name, Box::new(f))
}

/// A reader that adds every byte it reads to a shared counter (for a progress display on another thread).
pub struct CountingRead<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R> CountingRead<R> {
    /// `inner`, counting into `count`.
    pub fn new(inner: R, count: Arc<AtomicU64>) -> Self {
        CountingRead { inner, count }
    }
}

impl<R: Read> Read for CountingRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// [`open_decompressed`], adding the file's bytes read (compressed) to `read`.
pub fn open_decompressed_counted(
    name: &str,
    path: &Path,
    read: &Arc<AtomicU64>,
) -> Result<Box<dyn Read + Send>, TraceError> {
    let f = File::open(path).map_err(|e| TraceError::file(name, format!("cannot open: {e}")))?;
    decompressed(name, Box::new(CountingRead::new(f, Arc::clone(read))))
}

/// How far a decompressor has read its compressed input, so that its failures can be told apart: the input ended
/// (a truncated file) or held bad data (a corrupt one).
#[derive(Default)]
struct Consumed {
    bytes: AtomicU64,
    at_end: AtomicBool,
}

/// The compressed input, counting what the decompressor takes.
struct Counted {
    inner: Box<dyn Read + Send>,
    seen: Arc<Consumed>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.seen.bytes.fetch_add(n as u64, Ordering::Relaxed);
        if n == 0 && !buf.is_empty() {
            self.seen.at_end.store(true, Ordering::Relaxed);
        }
        Ok(n)
    }
}

/// A decompressor whose errors are one plain sentence (the decoders' own texts can be Rust `Debug` output):
/// `zstd data ends early at compressed byte N: the file is truncated` or `… is corrupt at compressed byte N`.
struct Plain {
    dec: Box<dyn Read + Send>,
    what: &'static str,
    seen: Arc<Consumed>,
}

impl Read for Plain {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.dec.read(buf).map_err(|e| {
            let at = self.seen.bytes.load(Ordering::Relaxed);
            let msg = if self.seen.at_end.load(Ordering::Relaxed)
                || e.kind() == std::io::ErrorKind::UnexpectedEof
            {
                format!(
                    "{} data ends early at compressed byte {at}: the file is truncated (expected a complete {} stream)",
                    self.what, self.what
                )
            } else {
                format!(
                    "{} data is corrupt near compressed byte {at} (expected a valid {} stream)",
                    self.what, self.what
                )
            };
            std::io::Error::new(std::io::ErrorKind::InvalidData, msg)
        })
    }
}

/// `src` with a zstd, gzip or bzip2 compression (found by its magic bytes) undone. Decompression errors are plain
/// sentences saying whether the file is truncated or corrupt.
pub fn decompressed(
    name: &str,
    src: Box<dyn Read + Send>,
) -> Result<Box<dyn Read + Send>, TraceError> {
    let io = |e: std::io::Error| TraceError::byte(name, 0, format!("cannot read: {e}"));
    let (head, src) = peek(src, 4).map_err(io)?;
    let seen = Arc::new(Consumed::default());
    let counted: Box<dyn Read + Send> = Box::new(Counted {
        inner: src,
        seen: Arc::clone(&seen),
    });
    let (dec, what): (Box<dyn Read + Send>, &'static str) = if head.starts_with(&ZSTD_MAGIC) {
        let dec = ruzstd::decoding::StreamingDecoder::new(BufReader::new(counted)).map_err(|_| {
            TraceError::byte(
                name,
                0,
                "bad zstd frame header: expected a zstd stream (the file is truncated or corrupt)",
            )
        })?;
        (Box::new(ZstdFrames { dec: Some(dec) }), "zstd")
    } else if head.starts_with(&GZIP_MAGIC) {
        (Box::new(flate2::read::MultiGzDecoder::new(counted)), "gzip")
    } else if head.starts_with(&BZIP2_MAGIC) {
        (Box::new(bzip2::read::MultiBzDecoder::new(counted)), "bzip2")
    } else {
        return Ok(counted);
    };
    Ok(Box::new(Plain { dec, what, seen }))
}

enum Decoder {
    Text(TextDecoder),
    Binary(BinDecoder),
}

/// A streaming reader of a gclab trace: an iterator of events. After the first error it yields nothing more.
pub struct TraceReader {
    header: TraceHeader,
    tables: Tables,
    form: Form,
    dec: Decoder,
    events: u64,
    done: bool,
}

impl std::fmt::Debug for TraceReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceReader")
            .field("header", &self.header)
            .field("form", &self.form)
            .field("events", &self.events)
            .finish_non_exhaustive()
    }
}

impl TraceReader {
    /// Opens the trace at `path` (named `path.display()` in errors).
    pub fn open(path: &Path) -> Result<TraceReader, TraceError> {
        let name = path.display().to_string();
        let f =
            File::open(path).map_err(|e| TraceError::file(&name, format!("cannot open: {e}")))?;
        TraceReader::from_read(&name, Box::new(f))
    }

    /// Reads a trace of either form (possibly zstd-compressed) from `src`, called `name` in errors.
    pub fn from_read(name: &str, src: Box<dyn Read + Send>) -> Result<TraceReader, TraceError> {
        let io = |e: std::io::Error| TraceError::byte(name, 0, format!("cannot read: {e}"));
        let (head, mut src) = peek(src, BINARY_MAGIC.len()).map_err(io)?;
        let mut head = head;
        if head.starts_with(&ZSTD_MAGIC)
            || head.starts_with(&GZIP_MAGIC)
            || head.starts_with(&BZIP2_MAGIC)
        {
            src = decompressed(name, src)?;
            (head, src) = peek(src, BINARY_MAGIC.len()).map_err(io)?;
        }
        let (form, dec, header) = if head.starts_with(&BINARY_MAGIC) {
            let (d, h) = BinDecoder::open(name, src)?;
            (Form::Binary, Decoder::Binary(d), h)
        } else if head.is_empty() {
            return Err(TraceError::byte(
                name,
                0,
                "empty file: expected a gclab trace (`gclab-trace 1` or the binary magic \\x89GCTRACE)",
            ));
        } else if head[0] == BINARY_MAGIC[0] || head.contains(&0) {
            return Err(TraceError::byte(
                name,
                0,
                "not a gclab trace: expected the magic bytes \\x89GCTRACE (binary) or `gclab-trace 1` (text)",
            ));
        } else {
            // Text (or not a trace at all: the text decoder names line 1 and what it expected).
            let (d, h) =
                TextDecoder::open(name, Box::new(BufReader::with_capacity(64 * 1024, src)))?;
            (Form::Text, Decoder::Text(d), h)
        };
        Ok(TraceReader {
            header,
            tables: Tables::default(),
            form,
            dec,
            events: 0,
            done: false,
        })
    }

    /// The header.
    pub fn header(&self) -> &TraceHeader {
        &self.header
    }

    /// The string tables defined so far (all of them once the iterator has ended).
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// The file's form.
    pub fn form(&self) -> Form {
        self.form
    }

    /// Events read so far.
    pub fn events_read(&self) -> u64 {
        self.events
    }
}

impl Iterator for TraceReader {
    type Item = Result<Event, TraceError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = match &mut self.dec {
            Decoder::Text(d) => d.next(&mut self.tables, self.events),
            Decoder::Binary(d) => d.next(&mut self.tables, self.events),
        };
        match r {
            Ok(Some(ev)) => {
                self.events += 1;
                Some(Ok(ev))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
