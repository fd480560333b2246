//! Checksummed blocks of the binary form, version 2 (`docs/trace-format.md`): after the magic and the version,
//! the bytes of version 1 (header fields, records, `end`) are cut into blocks, each
//! `varint length (1 to MAX_BLOCK_BYTES), payload, CRC-32 of the payload (4 bytes, little-endian)` — the
//! CRC-32 of zlib, gzip and PNG (`crc32fast`). A flipped bit is found at the block that holds it and reported
//! with the block's number and byte offset, never read as a different event.
//!
//! [`frame`] writes one block; [`BlockReader`] undoes the framing as a stream (memory: one block) and keeps where
//! the recent blocks' payloads lie in the file, so that the decoder names file offsets in its errors
//! ([`BlockMap::file_offset`]).

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};

/// Longest block a reader accepts (a writer cuts blocks of about 60 KiB). `[bytes]`
pub const MAX_BLOCK_BYTES: usize = 1 << 20;
/// Stream bytes behind the read position whose file offsets are kept (twice the decoder's buffer). `[bytes]`
const MAP_KEEP_BYTES: u64 = 1 << 20;

/// Writes `payload` as one block (nothing for an empty payload).
pub fn frame(out: &mut impl Write, payload: &[u8]) -> std::io::Result<()> {
    if payload.is_empty() {
        return Ok(());
    }
    let mut head = Vec::with_capacity(10);
    super::byte_input::put_varint(&mut head, payload.len() as u64);
    out.write_all(&head)?;
    out.write_all(payload)?;
    out.write_all(&crc32fast::hash(payload).to_le_bytes())
}

/// A block that cannot be read: damaged, cut or malformed. Carried inside the `std::io::Error` of a read.
#[derive(Debug, Clone)]
pub struct BlockError {
    /// File offset of the block's length field. `[bytes]`
    pub at: u64,
    /// What is wrong, naming the block.
    pub message: String,
}

impl std::fmt::Display for BlockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BlockError {}

/// Where the payloads of the recent blocks lie: `(stream offset, file offset)` of each block's first payload byte.
#[derive(Debug, Default)]
pub struct BlockMap {
    starts: VecDeque<(u64, u64)>,
}

impl BlockMap {
    /// The file offset of stream byte `stream` (a byte past the last block maps past its payload). Offsets older
    /// than the kept blocks map through the oldest one kept.
    pub fn file_offset(&self, stream: u64) -> u64 {
        let i = self.starts.partition_point(|&(s, _)| s <= stream);
        match i.checked_sub(1).and_then(|i| self.starts.get(i)) {
            Some(&(s, f)) => f + (stream - s),
            None => self.starts.front().map_or(stream, |&(_, f)| f),
        }
    }
}

/// Reads the payloads of the blocks from `src` (positioned after the version) as one stream.
pub struct BlockReader {
    src: Box<dyn Read + Send>,
    /// File offset of the next byte of `src`.
    file_at: u64,
    /// Stream offset of the next payload byte handed out.
    stream_at: u64,
    block: Vec<u8>,
    pos: usize,
    /// Blocks read so far.
    blocks: u64,
    map: Arc<Mutex<BlockMap>>,
}

impl BlockReader {
    /// `src` starts at file offset `file_at`; the returned map follows the blocks as they are read.
    pub fn new(src: Box<dyn Read + Send>, file_at: u64) -> (BlockReader, Arc<Mutex<BlockMap>>) {
        let map = Arc::new(Mutex::new(BlockMap::default()));
        let r = BlockReader {
            src,
            file_at,
            stream_at: 0,
            block: Vec::new(),
            pos: 0,
            blocks: 0,
            map: Arc::clone(&map),
        };
        (r, map)
    }

    fn error(&self, at: u64, message: String) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidData, BlockError { at, message })
    }

    /// Fills `buf` from `src` completely; the bytes read (fewer only at the end of the file).
    fn read_full(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match self.src.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.file_at += n as u64;
        Ok(n)
    }

    /// Reads the next block; `false` at the end of the file (between blocks).
    fn next_block(&mut self) -> std::io::Result<bool> {
        let at = self.file_at;
        let no = self.blocks + 1;
        let mut len = 0u64;
        for i in 0..10u32 {
            let mut b = [0u8; 1];
            if self.read_full(&mut b)? == 0 {
                if i == 0 {
                    return Ok(false);
                }
                return Err(self.error(
                    at,
                    format!("block {no} at byte {at}: the file ends inside its length"),
                ));
            }
            len |= u64::from(b[0] & 0x7f) << (7 * i);
            if b[0] < 0x80 {
                break;
            }
            if i == 9 {
                return Err(self.error(
                    at,
                    format!("block {no} at byte {at}: its length is not a varint"),
                ));
            }
        }
        if len == 0 || len > MAX_BLOCK_BYTES as u64 {
            return Err(self.error(
                at,
                format!(
                    "block {no} at byte {at}: length {len} (expected 1 to {MAX_BLOCK_BYTES} bytes; the file is \
                     damaged)"
                ),
            ));
        }
        let payload_at = self.file_at;
        self.block.resize(len as usize + 4, 0);
        let mut block = std::mem::take(&mut self.block);
        let got = self.read_full(&mut block);
        self.block = block;
        if got? < self.block.len() {
            return Err(self.error(
                at,
                format!("block {no} at byte {at}: the file ends inside it (expected {len} bytes and a checksum)"),
            ));
        }
        let (payload, sum) = self.block.split_at(len as usize);
        let stored = u32::from_le_bytes([sum[0], sum[1], sum[2], sum[3]]);
        let computed = crc32fast::hash(payload);
        if stored != computed {
            return Err(self.error(
                at,
                format!(
                    "block {no} (bytes {at} to {}): checksum mismatch (stored {stored:08x}, computed \
                     {computed:08x}): the file is damaged",
                    self.file_at - 1
                ),
            ));
        }
        self.block.truncate(len as usize);
        self.pos = 0;
        self.blocks = no;
        let mut map = self
            .map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.starts.push_back((self.stream_at, payload_at));
        while map.starts.len() > 2
            && map
                .starts
                .get(1)
                .is_some_and(|&(s, _)| s + MAP_KEEP_BYTES < self.stream_at)
        {
            map.starts.pop_front();
        }
        Ok(true)
    }
}

impl Read for BlockReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.block.len() && !self.next_block()? {
            return Ok(0);
        }
        let n = buf.len().min(self.block.len() - self.pos);
        buf[..n].copy_from_slice(&self.block[self.pos..self.pos + n]);
        self.pos += n;
        self.stream_at += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(parts: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for p in parts {
            frame(&mut out, p).expect("frame");
        }
        out
    }

    fn read_all(bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
        let (mut r, _) = BlockReader::new(Box::new(std::io::Cursor::new(bytes)), 9);
        let mut out = Vec::new();
        r.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn blocks_read_back_as_one_stream_with_file_offsets() {
        let bytes = framed(&[b"hello ", b"world"]);
        assert_eq!(read_all(bytes.clone()).expect("read"), b"hello world");
        let (mut r, map) = BlockReader::new(Box::new(std::io::Cursor::new(bytes)), 9);
        let mut out = Vec::new();
        r.read_to_end(&mut out).expect("read");
        let map = map.lock().expect("map");
        // Block 1: length at 9, payload at 10..16, checksum 16..20; block 2: length at 20, payload from 21.
        assert_eq!(map.file_offset(0), 10, "first payload byte");
        assert_eq!(map.file_offset(6), 21, "second block's first byte");
        assert_eq!(map.file_offset(11), 26, "past the end");
    }

    #[test]
    fn every_flipped_bit_is_an_error_naming_the_block() {
        let bytes = framed(&[b"0123456789abcdef", b"ghijklmnop"]);
        for i in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[i / 8] ^= 1 << (i % 8);
            match read_all(b) {
                Ok(v) => panic!("bit {i}: read without error as {v:?}"),
                Err(e) => {
                    let inner = e.get_ref().and_then(|x| x.downcast_ref::<BlockError>());
                    let msg = inner.map(|b| b.message.clone()).unwrap_or_default();
                    assert!(msg.starts_with("block "), "bit {i}: {e}");
                }
            }
        }
    }
}
