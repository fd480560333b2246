//! Disk-backed storage for more fixed-size records than memory should hold (issue 21, item 4: `gclab mmu` on a
//! 1 GB input within 200 MB).
//!
//! A [`Spill`] appends records ([`Record`]: a fixed little-endian encoding) to an anonymous temporary file in the
//! system temp folder, a block at a time; only the block being filled lives in memory. It is read back with
//! positional reads, so readers never disturb one another: sequentially ([`Spill::iter`], one block buffered) or
//! by index through [`Paged`], a bounded cache of a few blocks that suits the MMU's forward cursors. A finished
//! spill is shared, read-only, by any number of [`Paged`] readers ([`Paged::reader`]), each with its own cache, so
//! that queries can run on several threads at once (`gclab mmu` answers its windows on every core).
//!
//! Invariants and edge cases:
//! - On Unix the file is unlinked as soon as it is created: a killed process leaves nothing behind. Elsewhere it
//!   is removed when the [`Spill`] is dropped.
//! - An I/O error (a full disk, say) cannot be returned from `push` or `get` without rewriting every caller's
//!   inner loop, so it is sticky: the first one is kept ([`Spill::error`]), later writes are dropped and failed
//!   reads give zeros. A caller must check [`Spill::error`] before trusting what it computed (the MMU does, and
//!   reports it as an error naming the temp folder).

use std::cell::RefCell;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Bytes per block: the unit written, read and cached. Small, because Go's worst-window search reads a few
/// hundred bytes at scattered places (64 KiB blocks made the copying half of the on-disk MMU; docs/mmu.md).
pub const BLOCK_BYTES: usize = 8 << 10;
/// Blocks a [`Paged`] keeps (256 KiB): room for the few cursors an MMU query moves through one array at once.
const CACHE_BLOCKS: usize = 32;
/// Blocks a [`Spill`] writes, and a [`SpillIter`] reads, at once (128 KiB): sequential passes need no small
/// blocks, and a system call per 8 KiB was a fifth of a 1 GB pause CSV's import (issue 21 item 4).
const STREAM_BLOCKS: usize = 16;

/// A record of fixed size with a little-endian encoding.
pub trait Record: Copy + Default + std::fmt::Debug + Send + Sync + 'static {
    /// Encoded size. `[bytes]`
    const SIZE: usize;
    /// Writes the record to `out` (`SIZE` bytes).
    fn put(self, out: &mut [u8]);
    /// Reads a record from `b` (`SIZE` bytes).
    fn take(b: &[u8]) -> Self;
}

macro_rules! record_num {
    ($($t:ty),*) => {$(
        impl Record for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            fn take(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
record_num!(u32, u64, f64);

/// Records read a block at a time by index: what a [`Paged`] reader caches. A [`Spill`] reads them from its file;
/// other sources compute them (the MMU's prefix sums of a pause list, from its spilled step times).
pub trait Blocks<T>: std::fmt::Debug + Send + Sync {
    /// Records held.
    fn len(&self) -> usize;
    /// No record held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Records `[start, start + out.len())` into `out` (as [`Spill::read`]); `buf` is the caller's scratch.
    fn read(&self, start: usize, out: &mut [T], buf: &mut Vec<u8>);
    /// The first I/O error met, if any.
    fn error(&self) -> Option<&str>;
}

/// Records per block of a [`Spill`] or a [`Paged`] reader of `T`: the unit written, read and cached.
pub const fn block_len<T: Record>() -> usize {
    if BLOCK_BYTES / T::SIZE > 0 {
        BLOCK_BYTES / T::SIZE
    } else {
        1
    }
}

/// Records in a temporary file, appended [`STREAM_BLOCKS`] blocks at a time.
#[derive(Debug)]
pub struct Spill<T: Record> {
    file: Option<File>,
    #[cfg(not(unix))]
    path: PathBuf,
    /// Records written to the file.
    flushed: usize,
    /// Records not yet written (fewer than [`STREAM_BLOCKS`] blocks).
    tail: Vec<T>,
    /// Shared by the readers of a finished spill (each on its own thread, perhaps): the first error any met.
    error: OnceLock<String>,
    /// The bytes of one block, reused by every write (no allocation and zeroing per block; a reader has its own).
    scratch: Vec<u8>,
}

impl<T: Record> Spill<T> {
    /// Records per block.
    pub const BLOCK: usize = block_len::<T>();

    /// An empty spill file in the system temp folder.
    pub fn new() -> io::Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir();
        let path: PathBuf = dir.join(format!(
            "gclab-spill-{}-{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        #[cfg(unix)]
        std::fs::remove_file(&path)?;
        Ok(Spill {
            file: Some(file),
            #[cfg(not(unix))]
            path,
            flushed: 0,
            tail: Vec::new(),
            error: OnceLock::new(),
            scratch: Vec::new(),
        })
    }

    /// Records held.
    pub fn len(&self) -> usize {
        self.flushed + self.tail.len()
    }

    /// No record held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first I/O error met, if any (see the module notes).
    pub fn error(&self) -> Option<&str> {
        self.error.get().map(String::as_str)
    }

    fn fail(&self, e: &io::Error) {
        let _ = self.error.set(format!(
            "temporary file in {}: {e}",
            std::env::temp_dir().display()
        ));
    }

    /// Appends `x`.
    pub fn push(&mut self, x: T) {
        self.tail.push(x);
        if self.tail.len() >= Self::BLOCK * STREAM_BLOCKS {
            self.flush_tail();
        }
    }

    fn flush_tail(&mut self) {
        let mut buf = std::mem::take(&mut self.scratch);
        self.write_records(self.flushed, &self.tail, &mut buf);
        self.scratch = buf;
        self.flushed += self.tail.len();
        self.tail.clear();
    }

    /// Writes `xs` as the records from index `at` in the file, encoded in `buf` (unless an error came before).
    fn write_records(&self, at: usize, xs: &[T], buf: &mut Vec<u8>) {
        if self.error.get().is_some() {
            return;
        }
        buf.resize(xs.len() * T::SIZE, 0);
        for (x, out) in xs.iter().zip(buf.chunks_exact_mut(T::SIZE)) {
            x.put(out);
        }
        if let Err(e) = self
            .file
            .as_ref()
            .map_or(Ok(()), |f| write_at(f, buf, (at * T::SIZE) as u64))
        {
            self.fail(&e);
        }
    }

    /// Records `[start, start + out.len())` into `out` (zeros past the end or after an error), through the
    /// caller's byte buffer `buf` (kept by the caller to save an allocation per read).
    pub fn read(&self, start: usize, out: &mut [T], buf: &mut Vec<u8>) {
        let on_disk = self.flushed.saturating_sub(start).min(out.len());
        if on_disk > 0 {
            let ok = self.read_disk(start, on_disk, buf);
            for (x, b) in out.iter_mut().zip(buf.chunks_exact(T::SIZE)) {
                *x = if ok { T::take(b) } else { T::default() };
            }
        }
        for (k, x) in out.iter_mut().enumerate().skip(on_disk) {
            *x = self.tail_record(start + k).unwrap_or_default();
        }
    }

    /// Replaces the records `[start, start + xs.len())` with `xs` (records already pushed; those past the end are
    /// left out): written over themselves in the file, whose pages the page cache still holds after a recent write,
    /// or in the unwritten tail.
    pub fn overwrite(&mut self, start: usize, xs: &[T]) {
        let xs = &xs[..xs.len().min(self.len().saturating_sub(start))];
        let on_disk = self.flushed.saturating_sub(start).min(xs.len());
        if on_disk > 0 {
            let mut buf = std::mem::take(&mut self.scratch);
            self.write_records(start, &xs[..on_disk], &mut buf);
            self.scratch = buf;
        }
        for (k, &x) in xs.iter().enumerate().skip(on_disk) {
            self.tail[start + k - self.flushed] = x;
        }
    }

    /// Records `[start, start + n)` (those there are) as their bytes, [`Record::SIZE`] each, in `out` (replacing
    /// what it held): one read of the file and no decoding, for a reader that decodes them elsewhere (on other
    /// cores). Records on disk read as zeros after an error ([`Spill::error`] says so).
    pub fn read_bytes(&self, start: usize, n: usize, out: &mut Vec<u8>) {
        let n = n.min(self.len().saturating_sub(start));
        let on_disk = self.flushed.saturating_sub(start).min(n);
        if !self.read_disk(start, on_disk, out) {
            out.fill(0);
        }
        out.resize(n * T::SIZE, 0);
        for (k, b) in out.chunks_exact_mut(T::SIZE).enumerate().skip(on_disk) {
            self.tail_record(start + k).unwrap_or_default().put(b);
        }
    }

    /// Record `k` when it is in the unwritten tail.
    fn tail_record(&self, k: usize) -> Option<T> {
        k.checked_sub(self.flushed)
            .and_then(|i| self.tail.get(i))
            .copied()
    }

    /// Reads the `n` records from `start` that are on disk into `buf` (resized to them); false after an error.
    fn read_disk(&self, start: usize, n: usize, buf: &mut Vec<u8>) -> bool {
        buf.resize(n * T::SIZE, 0);
        if n == 0 || self.error.get().is_some() {
            return self.error.get().is_none();
        }
        match self
            .file
            .as_ref()
            .map(|f| read_at(f, buf, (start * T::SIZE) as u64))
        {
            Some(Err(e)) => {
                self.fail(&e);
                false
            }
            _ => true,
        }
    }

    /// The records in order, [`STREAM_BLOCKS`] blocks buffered.
    pub fn iter(&self) -> SpillIter<'_, T> {
        SpillIter {
            spill: self,
            next: 0,
            buf: Vec::new(),
            bytes: Vec::new(),
            at: 0,
        }
    }
}

impl<T: Record> Blocks<T> for Spill<T> {
    fn len(&self) -> usize {
        Spill::len(self)
    }
    fn read(&self, start: usize, out: &mut [T], buf: &mut Vec<u8>) {
        Spill::read(self, start, out, buf);
    }
    fn error(&self) -> Option<&str> {
        Spill::error(self)
    }
}

impl<T: Record> Drop for Spill<T> {
    fn drop(&mut self) {
        drop(self.file.take());
        #[cfg(not(unix))]
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Sequential reader of a [`Spill`], [`STREAM_BLOCKS`] blocks at a time.
#[derive(Debug)]
pub struct SpillIter<'a, T: Record> {
    spill: &'a Spill<T>,
    /// Index of the record after the buffer.
    next: usize,
    buf: Vec<T>,
    bytes: Vec<u8>,
    at: usize,
}

impl<T: Record> Iterator for SpillIter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.at == self.buf.len() {
            let n =
                (Spill::<T>::BLOCK * STREAM_BLOCKS).min(self.spill.len().saturating_sub(self.next));
            if n == 0 {
                return None;
            }
            self.buf.resize(n, T::default());
            self.spill.read(self.next, &mut self.buf, &mut self.bytes);
            self.next += n;
            self.at = 0;
        }
        self.at += 1;
        Some(self.buf[self.at - 1])
    }
}

/// A finished [`Spill`] (or other [`Blocks`]) read by index through a cache of [`CACHE_BLOCKS`] blocks (least
/// recently used out). The source is shared with the other readers made by [`Paged::reader`]; the cache is this
/// reader's.
#[derive(Debug)]
pub struct Paged<T: Record> {
    spill: Arc<dyn Blocks<T>>,
    cache: RefCell<Cache<T>>,
}

#[derive(Debug)]
struct Cache<T> {
    /// `(block, records, last use)`.
    slots: Vec<(usize, Vec<T>, u64)>,
    /// Most blocks held (at most [`CACHE_BLOCKS`]).
    cap: usize,
    clock: u64,
    /// Slot of the last hit, and of the one before (a different slot).
    last: usize,
    prev: usize,
    /// The bytes of one block, reused by every miss.
    bytes: Vec<u8>,
}

impl<T: Record> Paged<T> {
    /// Reads `spill` by index.
    pub fn new(mut spill: Spill<T>) -> Self {
        // Written: its write buffers go (up to 256 KiB a spill: hundreds of series on disk held them all).
        spill.scratch = Vec::new();
        spill.tail.shrink_to_fit();
        Self::with(Arc::new(spill))
    }

    /// Reads the records of `source` by index, a block of [`block_len`] at a time.
    pub fn with(spill: Arc<dyn Blocks<T>>) -> Self {
        Self::capped(spill, CACHE_BLOCKS)
    }

    fn capped(spill: Arc<dyn Blocks<T>>, blocks: usize) -> Self {
        let cap = blocks.clamp(1, CACHE_BLOCKS);
        Paged {
            spill,
            cache: RefCell::new(Cache {
                slots: Vec::with_capacity(cap),
                cap,
                clock: 0,
                last: 0,
                prev: 0,
                bytes: Vec::new(),
            }),
        }
    }

    /// Another reader of the same records with its own (empty) cache: to be moved to another thread, while
    /// this one stays. An I/O error met by either is seen by both ([`Paged::error`]).
    pub fn reader(&self) -> Self {
        Self::with(Arc::clone(&self.spill))
    }

    /// [`Paged::reader`] keeping at most `blocks` blocks (1 to [`CACHE_BLOCKS`]): many readers at once (a curve of
    /// hundreds of series on disk) share a memory budget instead of each holding 256 KiB.
    pub fn reader_keeping(&self, blocks: usize) -> Self {
        Self::capped(Arc::clone(&self.spill), blocks)
    }

    /// Drops the blocks held (the records are read again when asked).
    pub fn forget(&self) {
        let mut c = self.cache.borrow_mut();
        c.slots = Vec::new();
        (c.last, c.prev) = (0, 0);
    }

    /// The records read, shared (for a source derived from them).
    pub fn source(&self) -> Arc<dyn Blocks<T>> {
        Arc::clone(&self.spill)
    }

    /// Records held.
    pub fn len(&self) -> usize {
        self.spill.len()
    }

    /// No record held.
    pub fn is_empty(&self) -> bool {
        self.spill.is_empty()
    }

    /// The first I/O error met, if any.
    pub fn error(&self) -> Option<&str> {
        self.spill.error()
    }

    /// Record `k` (`T::default()` past the end).
    #[inline(always)]
    pub fn get(&self, k: usize) -> T {
        let block = k / block_len::<T>();
        let i = k % block_len::<T>();
        let mut c = self.cache.borrow_mut();
        let last = c.last;
        if let Some((b, v, _)) = c.slots.get(last)
            && *b == block
        {
            return v.get(i).copied().unwrap_or_default();
        }
        // Two cursors (a window's edges) alternate between two blocks: the one before is checked inline too.
        let prev = c.prev;
        let hit = (c.slots.get(prev))
            .filter(|s| s.0 == block)
            .map(|s| s.1.get(i).copied().unwrap_or_default());
        if let Some(x) = hit {
            (c.last, c.prev) = (prev, last);
            return x;
        }
        self.miss(&mut c, block, i)
    }

    #[cold]
    #[inline(never)]
    fn miss(&self, c: &mut Cache<T>, block: usize, i: usize) -> T {
        c.clock += 1;
        let now = c.clock;
        let slot = match c.slots.iter().position(|s| s.0 == block) {
            Some(s) => s,
            None => {
                let start = block * block_len::<T>();
                let n = block_len::<T>().min(self.spill.len().saturating_sub(start));
                let s = if c.slots.len() < c.cap {
                    c.slots.push((block, Vec::new(), now));
                    c.slots.len() - 1
                } else {
                    (0..c.slots.len())
                        .min_by_key(|&s| c.slots[s].2)
                        .unwrap_or(0)
                };
                let Cache { slots, bytes, .. } = c;
                let (b, v, _) = &mut slots[s];
                *b = block;
                v.resize(n, T::default());
                self.spill.read(start, v, bytes);
                s
            }
        };
        c.slots[slot].2 = now;
        if slot != c.last {
            c.prev = c.last;
        }
        c.last = slot;
        c.slots[slot].1.get(i).copied().unwrap_or_default()
    }
}

#[cfg(unix)]
fn write_at(f: &File, buf: &[u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(f, buf, at)
}

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, at)
}

#[cfg(not(unix))]
fn write_at(mut f: &File, buf: &[u8], at: u64) -> io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    f.seek(SeekFrom::Start(at))?;
    f.write_all(buf)
}

#[cfg(not(unix))]
fn read_at(mut f: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    f.seek(SeekFrom::Start(at))?;
    f.read_exact(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spilled_records_read_back_in_order_by_index_and_across_blocks() {
        let mut s = Spill::<u64>::new().expect("temp file");
        // Some written in full writes, the rest in the tail.
        let n = (STREAM_BLOCKS + CACHE_BLOCKS + 3) * Spill::<u64>::BLOCK + 17;
        for k in 0..n as u64 {
            s.push(k * 3);
        }
        assert_eq!(s.len(), n, "len");
        assert!(
            s.iter().enumerate().all(|(k, v)| v == 3 * k as u64),
            "sequential"
        );
        assert_eq!(s.iter().count(), n, "count");
        // Bytes of any range, across the written blocks and the tail, past the end cut to what is there.
        let mut bytes = Vec::new();
        for (start, len) in [
            (0, 5),
            (n - 20, 40),
            (1, n),
            (n, 3),
            (Spill::<u64>::BLOCK - 2, 4),
        ] {
            s.read_bytes(start, len, &mut bytes);
            let want: Vec<u8> = (start..(start + len).min(n))
                .flat_map(|k| (3 * k as u64).to_le_bytes())
                .collect();
            assert_eq!(bytes, want, "bytes of {start}+{len}");
        }
        let p = Paged::new(s);
        for k in [
            0,
            n - 1,
            5,
            Spill::<u64>::BLOCK,
            2 * Spill::<u64>::BLOCK - 1,
            17,
            n - 2,
        ] {
            assert_eq!(p.get(k), 3 * k as u64, "record {k}");
        }
        // More distinct blocks than the cache holds, in a cycle.
        for round in 0..3 {
            for b in 0..CACHE_BLOCKS + 4 {
                let k = b * Spill::<u64>::BLOCK + round;
                assert_eq!(p.get(k), 3 * k as u64, "record {k}");
            }
        }
        assert_eq!(p.get(n), 0, "past the end");
        assert!(p.error().is_none(), "no error");
    }

    #[test]
    fn a_reader_keeping_one_block_or_forgetting_reads_every_record() {
        let mut s = Spill::<u64>::new().expect("temp file");
        let n = (STREAM_BLOCKS + 2) * Spill::<u64>::BLOCK + 5;
        (0..n as u64).for_each(|k| s.push(k + 7));
        let p = Paged::new(s);
        let one = p.reader_keeping(1);
        for k in (0..n).rev().step_by(97).chain([0, n - 1, 1]) {
            assert_eq!(one.get(k), k as u64 + 7, "record {k}");
            p.forget();
            assert_eq!(p.get(k), k as u64 + 7, "record {k} after forgetting");
        }
    }

    #[test]
    fn floats_round_trip_bit_for_bit() {
        let mut s = Spill::<f64>::new().expect("temp file");
        let xs = [0.1, -0.0, f64::MIN_POSITIVE, 1.0 / 3.0, f64::MAX];
        for x in xs {
            s.push(x);
        }
        let back: Vec<f64> = s.iter().collect();
        assert!(
            back.iter().zip(xs).all(|(a, b)| a.to_bits() == b.to_bits()),
            "bits"
        );
    }
}
