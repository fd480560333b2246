//! A logged pause's slice event written field by field, byte for byte what `serde_json` writes for the
//! `SliceEvent` of `PauseArgs` in `perfetto.rs` (keys in name order, absent arguments left out, compact, numbers
//! through `serde_json`'s own formatter, non-finite floats as `null`, strings escaped by `serde_json` only when they
//! hold a byte it escapes).
//! The constant keys are written as they are instead of being escaped for every pause, and a time in microseconds
//! is written from its nanoseconds by integer arithmetic ([`micros`]) where that gives `serde_json`'s digits.

use std::io::{self, Write};

use serde_json::ser::{CompactFormatter, Formatter};

use super::{PID, PauseArgs};

/// `{"args":{…},"cat":"gc","dur":…,"name":…,"ph":"X","pid":1,"tid":…,"ts":…}` for one pause starting at `ts_ns`
/// and lasting `dur_ns`, both written in microseconds (`ns as f64 / 1000.0`, as `serde_json` writes that float).
pub(super) fn pause_slice<W: Write>(
    w: &mut W,
    tid: u64,
    name: &str,
    ts_ns: u64,
    dur_ns: u64,
    a: &PauseArgs<'_>,
) -> io::Result<()> {
    w.write_all(b"{\"args\":{")?;
    if let Some(c) = a.cause {
        w.write_all(b"\"cause\":")?;
        string(w, c)?;
        w.write_all(b",")?;
    }
    opt_u64(w, b"\"gc_id\":", a.gc_id)?;
    opt_u64(w, b"\"heap_after_bytes\":", a.heap_after_bytes)?;
    opt_u64(w, b"\"heap_before_bytes\":", a.heap_before_bytes)?;
    opt_u64(w, b"\"heap_total_bytes\":", a.heap_total_bytes)?;
    w.write_all(b"\"line\":")?;
    CompactFormatter.write_u64(w, a.line as u64)?;
    w.write_all(b"},\"cat\":\"gc\",\"dur\":")?;
    micros(w, dur_ns)?;
    w.write_all(b",\"name\":")?;
    string(w, name)?;
    w.write_all(b",\"ph\":\"X\",\"pid\":")?;
    CompactFormatter.write_u64(w, PID)?;
    w.write_all(b",\"tid\":")?;
    CompactFormatter.write_u64(w, tid)?;
    w.write_all(b",\"ts\":")?;
    micros(w, ts_ns)?;
    w.write_all(b"}")
}

/// `key` and `v` followed by a comma, or nothing when `v` is absent.
fn opt_u64<W: Write>(w: &mut W, key: &[u8], v: Option<u64>) -> io::Result<()> {
    if let Some(v) = v {
        w.write_all(key)?;
        CompactFormatter.write_u64(w, v)?;
        w.write_all(b",")?;
    }
    Ok(())
}

/// Below this many nanoseconds a time has at most 15 significant digits in microseconds.
const EXACT_NS: u64 = 1_000_000_000_000_000;

/// `ns / 1000` microseconds as `serde_json` writes the float `ns as f64 / 1000.0` (its shortest round-trip
/// digits). Below [`EXACT_NS`] those digits are the decimal `ns / 1000` itself, trailing zeros dropped (`"2716.381"`,
/// `"2000.0"`, `"0.005"`): `ns` is an exact double, the division rounds to the double nearest that decimal, and
/// decimals of at most 15 significant digits map to distinct doubles (DBL_DIG), so no shorter decimal reads back
/// as the same double. Larger times go through `serde_json`'s float formatter.
fn micros<W: Write>(w: &mut W, ns: u64) -> io::Result<()> {
    if ns >= EXACT_NS {
        return float(w, ns as f64 / 1000.0);
    }
    CompactFormatter.write_u64(w, ns / 1000)?;
    let frac = ns % 1000;
    if frac == 0 {
        return w.write_all(b".0");
    }
    let digits = [
        b'.',
        b'0' + (frac / 100) as u8,
        b'0' + (frac / 10 % 10) as u8,
        b'0' + (frac % 10) as u8,
    ];
    let keep = if !frac.is_multiple_of(10) {
        4
    } else if !frac.is_multiple_of(100) {
        3
    } else {
        2
    };
    w.write_all(&digits[..keep])
}

/// `serde_json`'s `serialize_f64`: `null` for NaN and infinities.
fn float<W: Write>(w: &mut W, v: f64) -> io::Result<()> {
    if v.is_finite() {
        CompactFormatter.write_f64(w, v)
    } else {
        w.write_all(b"null")
    }
}

/// A JSON string: as it is between quotes when `serde_json` would escape none of its bytes (control characters,
/// `"` and `\`), else through `serde_json`.
fn string<W: Write>(w: &mut W, s: &str) -> io::Result<()> {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        w.write_all(b"\"")?;
        w.write_all(s.as_bytes())?;
        w.write_all(b"\"")
    } else {
        serde_json::to_writer(w, s).map_err(io::Error::from)
    }
}

#[cfg(test)]
mod tests {
    use super::super::SliceEvent;
    use super::*;

    /// Every optional field absent and present, names that need escaping and not, odd floats: the bytes equal
    /// `serde_json`'s for the same event.
    #[test]
    fn pause_slices_are_the_bytes_serde_json_writes() {
        let names = ["Pause Young", "a \"q\" \\ b", "tab\there", "é ünï", ""];
        let times_ns = [
            0,
            1,
            10,
            100,
            1500,
            2_716_381,
            123_456_789_123,
            EXACT_NS - 1,
            EXACT_NS,
            u64::MAX,
        ];
        let opts = [None, Some(0u64), Some(u64::MAX)];
        for (i, name) in names.iter().enumerate() {
            for (j, &t) in times_ns.iter().enumerate() {
                let dur = times_ns[(i + j) % times_ns.len()];
                let o = opts[(i + j) % 3];
                let a = PauseArgs {
                    cause: (j % 2 == 0).then_some(names[(i + 1) % names.len()]),
                    gc_id: o,
                    heap_after_bytes: opts[(i + j + 1) % 3],
                    heap_before_bytes: opts[(i + j + 2) % 3],
                    heap_total_bytes: o,
                    line: i * 1000 + j,
                };
                let mut mine = Vec::new();
                pause_slice(&mut mine, 100 + j as u64, name, t, dur, &a).unwrap();
                let want = serde_json::to_vec(&SliceEvent {
                    args: &a,
                    cat: "gc",
                    dur: dur as f64 / 1000.0,
                    name,
                    ph: "X",
                    pid: PID,
                    tid: 100 + j as u64,
                    ts: t as f64 / 1000.0,
                })
                .unwrap();
                assert_eq!(
                    String::from_utf8(mine).unwrap(),
                    String::from_utf8(want).unwrap()
                );
            }
        }
    }

    /// Times from 0 to past [`EXACT_NS`] — every nanosecond near powers of ten and of two and at the boundary, and
    /// 25,000 spread at random over each decade — are written as `serde_json` writes `ns as f64 / 1000.0`.
    #[test]
    fn micros_are_the_digits_serde_json_writes_for_the_float() {
        let check = |ns: u64| {
            let mut mine = Vec::new();
            micros(&mut mine, ns).unwrap();
            let want = serde_json::to_vec(&(ns as f64 / 1000.0)).unwrap();
            assert_eq!(
                String::from_utf8(mine).unwrap(),
                String::from_utf8(want).unwrap(),
                "{ns} ns"
            );
        };
        (0..5000).for_each(check);
        for e in 1..20u32 {
            for base in [10u64.pow(e), 1u64 << (3 * e)] {
                (base.saturating_sub(1000)..base.saturating_add(1000)).for_each(check);
            }
        }
        (EXACT_NS - 5000..EXACT_NS + 5000).for_each(check);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for e in 3..19u32 {
            for _ in 0..25_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                check(10u64.pow(e) + x % (9 * 10u64.pow(e)));
            }
        }
        check(u64::MAX);
    }
}
