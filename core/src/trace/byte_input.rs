//! The byte layer under the binary decoder ([`super::binary`]): a buffered stream that knows the offset of every
//! byte ([`ByteInput`]) and the LEB128 varint in both directions: the writer ([`put_varint`]) and the reader with
//! its two ways to fail ([`Cut`]).

use std::io::Read;

/// Bytes buffered ahead of the decoder. `[bytes]`
const BUF_BYTES: usize = 256 * 1024;

/// A buffered byte stream that knows the offset of every byte.
pub(crate) struct ByteInput {
    src: Box<dyn Read + Send>,
    buf: Vec<u8>,
    pub(crate) pos: usize,
    pub(crate) len: usize,
    /// Offset of `buf[0]` in the stream.
    pub(crate) base: u64,
    eof: bool,
}

impl ByteInput {
    pub(crate) fn new(src: Box<dyn Read + Send>) -> Self {
        ByteInput {
            src,
            buf: vec![0; BUF_BYTES],
            pos: 0,
            len: 0,
            base: 0,
            eof: false,
        }
    }

    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Makes at least `need` (≤ the buffer) bytes available unless the stream ends first.
    pub(crate) fn fill(&mut self, need: usize) -> std::io::Result<()> {
        if self.len - self.pos >= need || self.eof {
            return Ok(());
        }
        self.buf.copy_within(self.pos..self.len, 0);
        self.base += self.pos as u64;
        self.len -= self.pos;
        self.pos = 0;
        while self.len < need {
            match self.src.read(&mut self.buf[self.len..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.len += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    pub(crate) fn available(&self) -> &[u8] {
        &self.buf[self.pos..self.len]
    }
}

/// Why a field could not be decoded.
#[derive(Clone, Copy)]
pub(crate) enum Cut {
    /// The bytes ran out.
    End,
    /// A varint longer than 10 bytes or beyond 64 bits.
    Overlong,
}

/// Appends `v` as an LEB128 varint.
pub(crate) fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// Decodes a varint from `s` at `*at`.
#[inline(always)]
pub(crate) fn varint(s: &[u8], at: &mut usize) -> Result<u64, Cut> {
    // Fast path: one byte (small deltas, ids and kinds).
    if let Some(&b) = s.get(*at)
        && b < 0x80
    {
        *at += 1;
        return Ok(u64::from(b));
    }
    let mut v = 0u64;
    let mut shift = 0u32;
    loop {
        let b = *s.get(*at).ok_or(Cut::End)?;
        *at += 1;
        if shift == 63 && b > 1 {
            return Err(Cut::Overlong);
        }
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok(v);
        }
        shift += 7;
        if shift > 63 {
            return Err(Cut::Overlong);
        }
    }
}
