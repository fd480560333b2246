//! [`ByteSize`]: a size field that scenario files may write as an integer of bytes or as a string with a unit
//! (`"16KiB"`, `"8MiB"`). It serializes back exactly, so a saved scenario loads to the same sizes: as a string with
//! the largest binary unit that divides it (`"16KiB"`), else as the integer of bytes (`1025`; a string of digits
//! above 2^63 − 1, which TOML integers cannot hold).

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{format_bytes, format_bytes_exact, parse_bytes};

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
        match (format_bytes_exact(self.0), i64::try_from(self.0)) {
            (Some(text), _) => s.serialize_str(&text),
            (None, Ok(n)) => s.serialize_i64(n),
            (None, Err(_)) => s.serialize_str(&self.0.to_string()),
        }
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

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<ByteSize, E> {
        super::wide_u64::whole(v).map(ByteSize).map_err(E::custom)
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
