//! A logged pause's slice event written field by field, byte for byte what `serde_json` writes for the
//! `SliceEvent` of `PauseArgs` in `perfetto.rs` (keys in name order, absent arguments left out, compact, numbers
//! through `serde_json`'s own formatter, non-finite floats as `null`, strings escaped by `serde_json` only when they
//! hold a byte it escapes).
//! The constant keys are written as they are instead of being escaped for every pause.

use std::io::{self, Write};

use serde_json::ser::{CompactFormatter, Formatter};

use super::{PID, PauseArgs};

/// `{"args":{…},"cat":"gc","dur":…,"name":…,"ph":"X","pid":1,"tid":…,"ts":…}` for one pause.
pub(super) fn pause_slice<W: Write>(
    w: &mut W,
    tid: u64,
    name: &str,
    ts_us: f64,
    dur_us: f64,
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
    float(w, dur_us.max(0.0))?;
    w.write_all(b",\"name\":")?;
    string(w, name)?;
    w.write_all(b",\"ph\":\"X\",\"pid\":")?;
    CompactFormatter.write_u64(w, PID)?;
    w.write_all(b",\"tid\":")?;
    CompactFormatter.write_u64(w, tid)?;
    w.write_all(b",\"ts\":")?;
    float(w, ts_us)?;
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
        let floats = [
            0.0,
            -0.0,
            1.5,
            1e-7,
            123456789.123,
            1e21,
            f64::NAN,
            f64::INFINITY,
            -3.25,
        ];
        let opts = [None, Some(0u64), Some(u64::MAX)];
        for (i, name) in names.iter().enumerate() {
            for (j, &f) in floats.iter().enumerate() {
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
                pause_slice(&mut mine, 100 + j as u64, name, f, -f, &a).unwrap();
                let want = serde_json::to_vec(&SliceEvent {
                    args: &a,
                    cat: "gc",
                    dur: (-f).max(0.0),
                    name,
                    ph: "X",
                    pid: PID,
                    tid: 100 + j as u64,
                    ts: f,
                })
                .unwrap();
                assert_eq!(
                    String::from_utf8(mine).unwrap(),
                    String::from_utf8(want).unwrap()
                );
            }
        }
    }
}
