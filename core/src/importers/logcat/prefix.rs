//! A logcat line's prefix: its time stamp (`MM-DD hh:mm:ss.mmm`, a year optional, or Flutter's `[+N ms]`) and the
//! pid before the GC message (`D/tag( 4852)`, `12766-12766/pkg`, or threadtime's first number).

use super::{LogTime, before};
use crate::importers::jvm_log::days_from_civil;
use crate::importers::tokens::trim_start;

/// Splits a leading time stamp off `line`.
pub(super) fn time_prefix(line: &str) -> (Option<LogTime>, &str) {
    let t = trim_start(line);
    // Flutter: `[+10733 ms]`, `[  +14 ms]`.
    if let Some((inside, rest)) = t.strip_prefix('[').and_then(|r| r.split_once(']')) {
        let ms = inside
            .trim()
            .strip_prefix('+')
            .and_then(|v| v.trim().strip_suffix("ms"));
        if let Some(v) = ms.and_then(|v| v.trim().parse::<i64>().ok()) {
            return (Some(LogTime::Delta(v)), rest);
        }
    }
    let b = t.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|s| s.iter().all(u8::is_ascii_digit))
    };
    // Only read where `digits` said every byte is a digit (at most four): no parse, no overflow.
    let num = |r: std::ops::Range<usize>| {
        (b.get(r).unwrap_or_default().iter()).fold(0i64, |a, &d| a * 10 + i64::from(d - b'0'))
    };
    let (year, at) = if digits(0..4) && b.get(4) == Some(&b'-') {
        (num(0..4), 5)
    } else {
        (2001, 0)
    };
    let shape = digits(at..at + 2)
        && b.get(at + 2) == Some(&b'-')
        && digits(at + 3..at + 5)
        && b.get(at + 5) == Some(&b' ')
        && digits(at + 6..at + 8)
        && b.get(at + 8) == Some(&b':')
        && digits(at + 9..at + 11)
        && b.get(at + 11) == Some(&b':')
        && digits(at + 12..at + 14)
        && b.get(at + 14) == Some(&b'.')
        && digits(at + 15..at + 18);
    if !shape {
        return (None, t);
    }
    let days = days_from_civil(year, num(at..at + 2), num(at + 3..at + 5));
    let secs = ((days * 24 + num(at + 6..at + 8)) * 60 + num(at + 9..at + 11)) * 60
        + num(at + 12..at + 14);
    let ms = secs * 1000 + num(at + 15..at + 18);
    (Some(LogTime::Clock(ms)), &t[at + 18..])
}

/// The pid in a prefix: `D/tag( 4852)`, `12766-12766/pkg`, or threadtime's first number.
pub(super) fn pid(prefix: &str) -> Option<&str> {
    if let Some(i) = memchr::memrchr(b'(', prefix.as_bytes()) {
        let p = before(&prefix[i + 1..], b')').trim();
        if !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()) {
            return Some(p);
        }
    }
    let mut words = prefix.trim_start_matches(':').split_whitespace();
    let first = words.next()?;
    let p = first.split(['-', '/']).next().unwrap_or_default();
    (!p.is_empty() && p.bytes().all(|c| c.is_ascii_digit())).then_some(p)
}
