//! Units carried in types and names: simulation time, cycles, bytes, energy.
//!
//! * [`SimTime`] — simulated wall time, an integer count of **nanoseconds** since the run started. All timelines
//!   of a [`crate::Run`] use it; integer time keeps runs bit-identical across machines.
//! * Cycles are plain `u64` counts and always carry `_cycles` in their names; a platform converts them to
//!   [`SimTime`] with its clock ([`cycles_to_time`]).
//! * Bytes are `u64` and carry `_bytes` in their names; [`format_bytes`] prints them with binary units; a size
//!   a file or the command line gives is a [`ByteSize`] (`size.rs`: an integer or `"16KiB"`, written back exactly).
//! * Energy is `f64` **joules** (`_j`), power `f64` **watts** (`_w`).

mod size;
pub mod wide_u64;

use serde::{Deserialize, Serialize};

pub use size::ByteSize;

/// Simulated time in nanoseconds since the start of the run. `[ns]`
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct SimTime(pub u64);

impl SimTime {
    /// Time zero: the start of a run.
    pub const ZERO: SimTime = SimTime(0);

    /// Nanoseconds since the start. `[ns]`
    pub fn as_nanos(self) -> u64 {
        self.0
    }

    /// Seconds since the start, as a float for plots and summaries. `[s]`
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }

    /// Milliseconds since the start, as a float. `[ms]`
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 * 1e-6
    }
}

/// Converts a cycle count at `clock_hz` into simulated time, rounding down to whole nanoseconds.
/// Exact for clocks that divide 1 GHz (the kvm-soc's 100 MHz gives 10 ns per cycle).
pub fn cycles_to_time(cycles: u64, clock_hz: u64) -> SimTime {
    // u128 keeps the product exact for any realistic cycle count.
    let ns = (u128::from(cycles) * 1_000_000_000u128) / u128::from(clock_hz.max(1));
    SimTime(u64::try_from(ns).unwrap_or(u64::MAX))
}

/// One KiB. `[bytes]`
pub const KIB: u64 = 1024;
/// One MiB. `[bytes]`
pub const MIB: u64 = 1024 * 1024;

/// Formats a byte count with a binary unit: `512 B`, `16 KiB`, `1.5 MiB`.
pub fn format_bytes(bytes: u64) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= MIB {
        format!("{:.2} MiB", bytes as f64 / MIB as f64)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else if bytes >= KIB {
        format!("{:.1} KiB", bytes as f64 / KIB as f64)
    } else {
        format!("{bytes} B")
    }
}

/// One GiB. `[bytes]`
pub const GIB: u64 = 1024 * MIB;

/// Formats a byte count exactly, for files that are read back: the largest binary unit that divides it (`16KiB`,
/// `8MiB`, `2GiB`), or `None` when no unit is exact (the caller then writes the integer of bytes). 0 is `None`.
pub fn format_bytes_exact(bytes: u64) -> Option<String> {
    [(GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")]
        .into_iter()
        .find(|(unit, _)| bytes > 0 && bytes.is_multiple_of(*unit))
        .map(|(unit, name)| format!("{}{name}", bytes / unit))
}

/// Parses a byte size: an integer (`16384`) or a number with a binary unit (`"16KiB"`, `"8 MiB"`, `"512B"`,
/// `"1.5KiB"`). Units: B, KiB, MiB, GiB. The decimal-looking `KB`, `MB`, `GB` (and `K`, `M`, `G`) are refused
/// rather than guessed: papers and tools disagree on whether `KB` is 1000 or 1024 bytes.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix('-')
        && rest.starts_with(|c: char| c.is_ascii_digit() || c == '.')
    {
        return Err(format!("size `{t}` is negative (expected bytes ≥ 0)"));
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num = num.replace('_', "");
    let unit = unit.trim();
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" => KIB,
        "mib" => MIB,
        "gib" => GIB,
        "k" | "kb" | "m" | "mb" | "g" | "gb" => {
            let binary = format!("{}iB", unit[..1].to_ascii_uppercase());
            return Err(format!(
                "ambiguous size unit `{unit}` in `{t}` (expected {binary} for binary units, or the number of bytes)"
            ));
        }
        other => {
            return Err(format!(
                "unknown size unit `{other}` (expected B, KiB, MiB or GiB)"
            ));
        }
    };
    if num.is_empty() {
        return Err(format!(
            "`{t}` is not a size (expected e.g. 16384, \"16KiB\" or \"8MiB\")"
        ));
    }
    if let Ok(n) = num.parse::<u64>() {
        return n.checked_mul(mult).ok_or_else(|| {
            format!(
                "size `{t}` is too large (expected at most {} bytes)",
                u64::MAX
            )
        });
    }
    let f: f64 = num
        .parse()
        .map_err(|_| format!("`{t}` is not a size (expected e.g. 16384 or \"16KiB\")"))?;
    let v = f * mult as f64;
    if !(v.is_finite() && (0.0..1.8e19).contains(&v)) || v.fract() != 0.0 {
        return Err(format!("size `{t}` is not a whole number of bytes"));
    }
    Ok(v as u64)
}

/// Every time and duration gclab reads — from logs, traces or the command line — is below this (about 146 years):
/// the range in which the exact MMU's sums cannot overflow. `[ns]`
pub const MAX_TIME_NS: u64 = 1 << 62;

/// Parses a duration with a unit (`ns`, `us`, `ms`, `s`) into nanoseconds: > 0 and below [`MAX_TIME_NS`].
pub fn parse_duration_ns(text: &str) -> Result<u64, String> {
    match parse_ns(text, false)? {
        0 => Err(format!(
            "duration `{}` is out of range (expected > 0)",
            text.trim()
        )),
        v => Ok(v),
    }
}

/// Parses a point in time in nanoseconds: a bare integer (`25000000`) or a number with a unit (`25ms`, `0.5s`);
/// 0 allowed, below [`MAX_TIME_NS`].
pub fn parse_time_ns(text: &str) -> Result<u64, String> {
    parse_ns(text, true)
}

fn parse_ns(text: &str, bare_ns: bool) -> Result<u64, String> {
    let t = text.trim();
    let too_large = || format!("`{t}` is too large (expected below 2^62 ns, about 146 years)");
    if bare_ns && !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()) {
        return match t.parse::<u64>() {
            Ok(v) if v < MAX_TIME_NS => Ok(v),
            _ => Err(too_large()),
        };
    }
    if t.starts_with('-') {
        return Err(format!("`{t}` is negative (expected a time ≥ 0)"));
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "" => return Err(format!("duration `{t}` needs a unit (ns, us, ms or s)")),
        other => {
            return Err(format!(
                "unknown duration unit `{other}` in `{t}` (expected ns, us, ms or s)"
            ));
        }
    };
    let f: f64 = num
        .parse()
        .map_err(|_| format!("`{t}` is not a duration (expected e.g. 10ms)"))?;
    let exact = f * mult;
    let v = exact.round();
    if !v.is_finite() || v >= MAX_TIME_NS as f64 {
        return Err(too_large());
    }
    // `0.1ms` is 100000.00000000001 in floating point: that is rounding noise, but `1.5ns` is not a time gclab
    // can hold (whole nanoseconds), so it is refused rather than silently rounded.
    if (exact - v).abs() > 1e-6 * v.max(1.0) {
        return Err(format!(
            "`{t}` is not a whole number of nanoseconds (expected e.g. 2ns or 1.5us)"
        ));
    }
    Ok(v as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_bytes("16KiB"), Ok(16 * KIB));
        assert_eq!(parse_bytes("8 MiB"), Ok(8 * MIB));
        assert_eq!(parse_bytes("1.5KiB"), Ok(1536));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert!(parse_bytes("12 parsecs").is_err());
        assert!(parse_bytes("KiB").is_err());
        assert!(parse_bytes("0.3B").is_err());
    }

    #[test]
    fn kb_is_refused_not_read_as_kib() {
        let e = parse_bytes("128KB").expect_err("KB is ambiguous");
        assert!(e.contains("ambiguous") && e.contains("KiB"), "{e}");
        assert!(
            parse_bytes("2m").is_err(),
            "single-letter units are ambiguous too"
        );
    }

    #[test]
    fn a_negative_size_says_negative() {
        let e = parse_bytes("-128KiB").expect_err("negative");
        assert!(e.contains("negative"), "{e}");
    }

    #[test]
    fn exact_sizes_use_the_largest_exact_unit_or_none() {
        assert_eq!(format_bytes_exact(1024).as_deref(), Some("1KiB"));
        assert_eq!(format_bytes_exact(3 * GIB).as_deref(), Some("3GiB"));
        assert_eq!(format_bytes_exact(1536 * KIB).as_deref(), Some("1536KiB"));
        assert_eq!(format_bytes_exact(1025), None);
        assert_eq!(format_bytes_exact(0), None);
    }

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration_ns("10ms"), Ok(10_000_000));
        assert_eq!(parse_duration_ns("1.5us"), Ok(1500));
        assert!(parse_duration_ns("10").is_err());
    }

    #[test]
    fn command_line_times_share_the_importers_cap() {
        assert!(
            parse_duration_ns("4611686018ms").is_ok(),
            "just below 2^62 ns"
        );
        let e = parse_duration_ns("4611686019s").expect_err("beyond 2^62 ns");
        assert!(e.contains("too large"), "{e}");
        assert_eq!(parse_time_ns("0"), Ok(0));
        assert_eq!(parse_time_ns("4611686018427387903"), Ok(MAX_TIME_NS - 1));
        assert!(parse_time_ns("4611686018427387904").is_err(), "2^62");
        assert!(parse_time_ns("9223372036854775807").is_err(), "2^63 − 1");
        assert!(parse_time_ns("-5ms").is_err(), "negative");
    }

    #[test]
    fn a_fraction_of_a_nanosecond_is_refused_not_rounded() {
        let e = parse_duration_ns("1.5ns").expect_err("half a nanosecond");
        assert!(e.contains("whole number of nanoseconds"), "{e}");
        assert!(parse_time_ns("0.0000000015s").is_err());
        // Floating-point noise is not a fraction: 0.1 ms is 100000.00000000001 ns in f64.
        assert_eq!(parse_duration_ns("0.1ms"), Ok(100_000));
        assert_eq!(parse_duration_ns("0.3s"), Ok(300_000_000));
        assert_eq!(parse_duration_ns("2ns"), Ok(2));
    }

    #[test]
    fn cycles_convert_exactly_at_100mhz() {
        assert_eq!(cycles_to_time(350, 100_000_000), SimTime(3500));
        assert_eq!(format_bytes(16 * KIB), "16 KiB");
    }
}
