//! Serde for `u64` scenario fields (seeds, counts, cycles) over their whole range, as `#[serde(with = …)]`.
//!
//! TOML integers are `i64`, so a seed of 2^63 or more cannot be written as one, and `--set seed=…` hands such a
//! value over as a string. Reading accepts an integer ≥ 0, a string of decimal digits (`"18446744073709551615"`)
//! and a float that is a whole number in range (`--set collector.k=1e6`); anything else is an error saying what
//! was expected (`1e20` is too large, `-1` is negative, `2.5` is not whole). Writing gives an integer up to
//! 2^63 − 1 and a string of digits above it, so every value round-trips through TOML and JSON.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

/// Writes `v` as an integer, or as a string of digits above `i64::MAX`.
pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    match i64::try_from(*v) {
        Ok(n) => s.serialize_i64(n),
        Err(_) => s.serialize_str(&v.to_string()),
    }
}

/// Reads an integer ≥ 0, a string of digits or a whole float in range.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    d.deserialize_any(WideVisitor)
}

/// A float that is a whole number in `0..=u64::MAX`, as `u64`.
pub fn whole(v: f64) -> Result<u64, String> {
    if v.is_nan() || v.fract() != 0.0 {
        Err(format!("{v} is not a whole number"))
    } else if v < 0.0 {
        Err(format!("{v} is negative (expected a whole number ≥ 0)"))
    } else if v >= 18_446_744_073_709_551_616.0 {
        Err(format!(
            "{v:e} is too large (expected a whole number up to {})",
            u64::MAX
        ))
    } else {
        Ok(v as u64)
    }
}

struct WideVisitor;

impl Visitor<'_> for WideVisitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a whole number from 0 to {}", u64::MAX)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        u64::try_from(v)
            .map_err(|_| E::custom(format!("{v} is negative (expected a whole number ≥ 0)")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
        whole(v).map_err(E::custom)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        let t = v.trim().replace('_', "");
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            t.parse::<u64>().map_err(|_| {
                E::custom(format!(
                    "{v} is too large (expected a whole number up to {})",
                    u64::MAX
                ))
            })
        } else {
            Err(E::custom(format!(
                "`{v}` is not a whole number (expected 0 to {})",
                u64::MAX
            )))
        }
    }
}

/// The same for `Option<u64>` fields.
pub mod option {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `Some(v)` as [`super::serialize`] does, `None` as nothing.
    pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(n) => super::serialize(n, s),
            None => s.serialize_none(),
        }
    }

    /// Reads what [`super::deserialize`] reads.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        #[derive(Deserialize)]
        struct Wide(#[serde(with = "super")] u64);
        Option::<Wide>::deserialize(d).map(|o| o.map(|w| w.0))
    }
}
