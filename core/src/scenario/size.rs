//! [`ByteSize`]: a size field that scenario files may write as an integer of bytes or as a string with a unit
//! (`"16KiB"`, `"8MiB"`). It always serializes back as a string with a unit, so echoed scenarios stay readable.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::units::{format_bytes, parse_bytes};

/// A size in bytes, read from `16384` or `"16KiB"`. `[bytes]`
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct ByteSize(pub u64);

impl ByteSize {
    /// The size in bytes. `[bytes]`
    pub fn bytes(self) -> u64 {
        self.0
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_bytes(self.0))
    }
}

impl Serialize for ByteSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_bytes(self.0).replace(' ', ""))
    }
}

struct SizeVisitor;

impl Visitor<'_> for SizeVisitor {
    type Value = ByteSize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a size: an integer of bytes or a string such as \"16KiB\" or \"8MiB\"")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<ByteSize, E> {
        u64::try_from(v)
            .map(ByteSize)
            .map_err(|_| E::custom(format!("size {v} is negative (expected bytes ≥ 0)")))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<ByteSize, E> {
        Ok(ByteSize(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<ByteSize, E> {
        parse_bytes(v).map(ByteSize).map_err(E::custom)
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ByteSize, D::Error> {
        d.deserialize_any(SizeVisitor)
    }
}
