//! `logcat`: Android GC lines, Dalvik and ART, with or without logcat's prefix.
//!
//! * Dalvik 2.3: `GC_CONCURRENT freed 2049K, 65% free 3571K/9991K, external 4703K/5261K, paused 2ms+2ms`
//! * Dalvik 4.x: `GC_FOR_ALLOC freed 89K, 17% free 15805K/19020K, paused 2ms+5ms, total 63ms`
//! * ART 5–13: `Background concurrent copying GC freed 1234(56KB) AllocSpace objects, 0(0B) LOS objects, 49% free,
//!   3MB/6MB, paused 123us total 12.3ms`
//! * ART 14+: `… GC freed 33MB AllocSpace bytes, 79(29MB) LOS objects, …, paused 184us,4.675ms total 780.407ms`
//!
//! Dalvik's concurrent GCs print two pauses (root marking, re-mark) joined by `+`; ART joins several with `,`.
//! Prefixes: `threadtime` (`01-02 03:04:05.678  pid  tid D tag: `), `time` (`01-02 03:04:05.678: D/tag(pid): `),
//! Android Studio (`… pid-tid/package D/tag: `), `brief` (`D/tag(pid): `), a year (`2013-04-27 …`), Flutter's
//! `[+12 ms]` (time since the previous line), or none. A line is written when its GC ends: its time stamp marks
//! the end of the GC, which began `total` earlier (or the sum of the pauses when no total is logged). The first
//! pause is placed at the start of the GC and the others back to back ending at its end. Without any time stamp
//! the GCs are laid end to end, each taking its logged total, and a warning says so. Each pid is a mutator.

mod placed;
mod prefix;
mod split;

use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::lines::{LineParser, parse_stream_split, parse_text};
use super::{
    ImportError, MAX_TIME_NS, OUT_OF_RANGE, Pause, PauseSeries, PauseSink, Warnings,
    duration_token_ns, size_token_bytes,
};
use crate::importers::tokens::trim;
use placed::{Placed, finish};
use prefix::{pid, time_prefix};

/// Which runtime wrote a GC line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Android 2.x–4.x `dalvikvm`.
    Dalvik,
    /// Android 5+ ART.
    Art,
}

/// A logcat time stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogTime {
    /// `MM-DD hh:mm:ss.mmm` (year optional) in milliseconds on a calendar clock. `[ms]`
    Clock(i64),
    /// Flutter's `[+N ms]`: time since the previous line. `[ms]`
    Delta(i64),
}

/// A parsed GC line.
#[derive(Debug, Clone, PartialEq)]
pub struct GcLine {
    /// Runtime.
    pub dialect: Dialect,
    /// When the line was written (the end of the GC), if the line carries a stamp.
    pub time: Option<LogTime>,
    /// Process id, if the prefix carries one.
    pub pid: Option<String>,
    /// Dalvik reason (`GC_CONCURRENT`) or ART cause (`Background`, `Alloc`, `Explicit`, …).
    pub reason: String,
    /// ART collector (`concurrent copying`, `young concurrent mark compact`, …); `None` for Dalvik.
    pub collector: Option<String>,
    /// The logged pauses, in order. `[ns]`
    pub pauses_ns: Vec<u64>,
    /// The GC's logged total time. `[ns]`
    pub total_ns: Option<u64>,
    /// Heap in use after the GC and heap size. `[bytes]`
    pub heap_used_bytes: Option<u64>,
    /// Heap size after the GC. `[bytes]`
    pub heap_total_bytes: Option<u64>,
    /// Bytes freed (AllocSpace plus LOS for ART). `[bytes]`
    pub freed_bytes: Option<u64>,
}

/// What one logcat line is.
#[derive(Debug, Clone, PartialEq)]
pub enum LogcatLine {
    /// A GC with its pauses.
    Gc(GcLine),
    /// About GC but without pauses (heap growth, blocking-GC waits, heap clamps).
    Info,
    /// Not about GC.
    Other,
    /// Looks like a GC line but cannot be read.
    Malformed(&'static str),
}

/// Messages about GC that carry no pause.
const INFO: [&str; 8] = [
    "Grow heap",
    "Clamp target GC heap",
    "WaitForGcToComplete",
    "Waiting for a blocking GC",
    "Starting a blocking GC",
    "Forcing collection of SoftReferences",
    "GC_FOR_ALLOC blocked",
    "Explicit GC",
];

/// Searchers for the words every line is searched for, built once (a `str::find` builds one per call).
static GC_WORD: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("GC_"));
static GC_FREED: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(" GC freed "));
static INFO_WORDS: LazyLock<Vec<Finder<'static>>> =
    LazyLock::new(|| INFO.iter().map(Finder::new).collect());
static FREED: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(" freed "));
static PAUSED: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("paused "));
static TOTAL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("total "));
static PCT_FREE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("% free"));

/// Where an ART message starts in `head`, the text before its ` GC freed `: after the last `: ` or `﹕ ` (the
/// separators logcat's formats put before a message; `): ` ends where its `: ` does), else 0. One backward scan for
/// `:` and U+FE55's last byte instead of a search per separator.
fn message_start(head: &str) -> usize {
    let b = head.as_bytes();
    memchr::memrchr2_iter(b':', 0x95, b)
        .find(|&p| {
            b.get(p + 1) == Some(&b' ') && (b[p] == b':' || p >= 2 && b[p - 2..p] == [0xEF, 0xB9])
        })
        .map_or(0, |p| p + 2)
}

/// `s.split_once(needle)` with a searcher built once: the first match splits `s` around it (a match of a valid
/// UTF-8 needle in a `str` starts and ends on character boundaries).
fn split_once_with<'s>(s: &'s str, f: &Finder<'_>) -> Option<(&'s str, &'s str)> {
    let i = f.find(s.as_bytes())?;
    Some((&s[..i], &s[i + f.needle().len()..]))
}

/// `s.split_once(b)` for an ASCII byte `b`, by `memchr` (the `char` search finds the same place, slower).
fn cut(s: &str, b: u8) -> Option<(&str, &str)> {
    let i = memchr::memchr(b, s.as_bytes())?;
    Some((&s[..i], &s[i + 1..]))
}

/// `s` up to its first ASCII byte `b`, or all of it (`s.split(b).next()`).
fn before(s: &str, b: u8) -> &str {
    cut(s, b).map_or(s, |(head, _)| head)
}

/// Where the GC message starts in `rest`, and its dialect.
fn find_message(rest: &str) -> Option<(usize, Dialect)> {
    let mut from = 0;
    while let Some(i) = GC_WORD.find(&rest.as_bytes()[from..]).map(|i| i + from) {
        let word_end = memchr::memchr(b' ', &rest.as_bytes()[i..]).map_or(rest.len(), |e| i + e);
        let word_ok = rest[i + 3..word_end]
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c == b'_');
        let at_start = i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphanumeric();
        if word_ok && at_start && rest[word_end..].starts_with(" freed ") {
            return Some((i, Dialect::Dalvik));
        }
        from = i + 3;
    }
    let gc = GC_FREED.find(rest.as_bytes())?;
    Some((message_start(&rest[..gc]), Dialect::Art))
}

/// Parses one logcat line.
pub fn parse_line(line: &str) -> LogcatLine {
    let (time, rest) = time_prefix(line);
    parse_after_time(time, rest)
}

/// Parses a line whose time stamp `time` is split off already (`rest` is what follows it).
fn parse_after_time(time: Option<LogTime>, rest: &str) -> LogcatLine {
    let mut pauses = Vec::new();
    match parse_borrowed(time, rest, &mut pauses) {
        Parsed::Gc(g) => LogcatLine::Gc(GcLine {
            dialect: g.dialect,
            time: g.time,
            pid: g.pid.map(str::to_string),
            reason: g.reason.to_string(),
            collector: g.collector.map(str::to_string),
            pauses_ns: pauses,
            total_ns: g.total_ns,
            heap_used_bytes: g.heap_used_bytes,
            heap_total_bytes: g.heap_total_bytes,
            freed_bytes: g.freed_bytes,
        }),
        Parsed::Info => LogcatLine::Info,
        Parsed::Other => LogcatLine::Other,
        Parsed::Malformed(why) => LogcatLine::Malformed(why),
    }
}

/// A [`GcLine`] borrowing its words from the line, its pauses in the caller's buffer: what the importer reads
/// each line into, with no allocation per line.
#[derive(Debug)]
struct GcRef<'a> {
    dialect: Dialect,
    time: Option<LogTime>,
    pid: Option<&'a str>,
    reason: &'a str,
    collector: Option<&'a str>,
    total_ns: Option<u64>,
    heap_used_bytes: Option<u64>,
    heap_total_bytes: Option<u64>,
    freed_bytes: Option<u64>,
}

/// [`LogcatLine`] with a [`GcRef`].
#[derive(Debug)]
enum Parsed<'a> {
    Gc(GcRef<'a>),
    Info,
    Other,
    Malformed(&'static str),
}

/// [`parse_after_time`] into a [`GcRef`], the pauses appended to `pauses` (a GC only: any other line leaves it as
/// it was).
fn parse_borrowed<'a>(time: Option<LogTime>, rest: &'a str, pauses: &mut Vec<u64>) -> Parsed<'a> {
    let at = pauses.len();
    let parsed = parse_gc(time, rest, pauses);
    if !matches!(parsed, Parsed::Gc(_)) {
        pauses.truncate(at);
    }
    parsed
}

/// [`parse_borrowed`]'s work; it may leave pauses behind on a line that is not a GC.
fn parse_gc<'a>(time: Option<LogTime>, rest: &'a str, pauses: &mut Vec<u64>) -> Parsed<'a> {
    let first = pauses.len();
    let Some((at, dialect)) = find_message(rest) else {
        return if INFO_WORDS.iter().any(|f| f.find(rest.as_bytes()).is_some()) {
            Parsed::Info
        } else if rest.contains("paused ") && (rest.contains(" GC") || rest.contains("GC_")) {
            Parsed::Malformed("a GC line without `freed` (expected `… GC freed …, paused …`)")
        } else {
            Parsed::Other
        };
    };
    let msg = trim(&rest[at..]);
    let mut gc = GcRef {
        dialect,
        time,
        pid: pid(&rest[..at]),
        reason: "",
        collector: None,
        total_ns: None,
        heap_used_bytes: None,
        heap_total_bytes: None,
        freed_bytes: None,
    };
    let Some((head, tail)) = split_once_with(msg, &FREED) else {
        return Parsed::Malformed("a GC line without `freed`");
    };
    match dialect {
        Dialect::Dalvik => gc.reason = trim(head),
        Dialect::Art => {
            let mut head = trim(head);
            while let Some(h) = head.strip_suffix(" GC") {
                head = h;
            }
            let (cause, collector) = cut(head, b' ').unwrap_or((head, ""));
            gc.reason = cause;
            gc.collector = Some(collector.trim()).filter(|c| !c.is_empty());
        }
    }
    let Some((before, paused)) = split_once_with(tail, &PAUSED) else {
        return Parsed::Malformed("a GC line without a `paused` field");
    };
    let (paused, total) = match split_once_with(paused, &TOTAL) {
        Some((p, t)) => (p, Some(t)),
        None => (paused, None),
    };
    let list = trim(trim(paused).trim_end_matches(','));
    for p in list.split(['+', ',']) {
        match duration_token_ns(p) {
            Some(ns) => pauses.push(ns),
            None => {
                pauses.truncate(first);
                break;
            }
        }
    }
    if pauses.len() == first {
        return Parsed::Malformed(
            "a `paused` field that is not durations (expected e.g. 2ms+3ms or 123us)",
        );
    }
    if let Some(t) = total {
        let tok = t.split([',', ' ']).next().unwrap_or_default();
        match duration_token_ns(tok) {
            Some(ns) => gc.total_ns = Some(ns),
            None => {
                return Parsed::Malformed(
                    "a `total` field that is not a duration (expected e.g. 30ms)",
                );
            }
        }
    }
    // `65% free 3571K/9991K` (Dalvik) or `49% free, 3MB/6MB` (ART).
    if let Some((_, f)) = split_once_with(before, &PCT_FREE) {
        let heap = f
            .trim_start_matches(',')
            .split_whitespace()
            .next()
            .unwrap_or_default();
        if let Some((used, total)) = cut(heap.trim_end_matches(','), b'/') {
            gc.heap_used_bytes = size_token_bytes(used);
            gc.heap_total_bytes = size_token_bytes(total);
        }
    }
    gc.freed_bytes = freed(dialect, before);
    Parsed::Gc(gc)
}

/// Freed bytes: `2049K` / `<1K` (Dalvik); `1234(56KB) AllocSpace objects, 0(0B) LOS objects` or `5MB AllocSpace
/// bytes, …` (ART).
fn freed(dialect: Dialect, text: &str) -> Option<u64> {
    let first = trim(before(text, b','));
    match dialect {
        Dialect::Dalvik => size_token_bytes(first.trim_start_matches('<')),
        Dialect::Art => {
            let inner = |s: &str| match cut(s, b'(') {
                Some((_, r)) => size_token_bytes(before(r, b')')),
                None => size_token_bytes(s.split_whitespace().next().unwrap_or_default()),
            };
            let second = cut(text, b',').map(|(_, rest)| before(rest, b','));
            let los = second.map_or(Some(0), |s| inner(trim(s)));
            inner(first)?.checked_add(los.unwrap_or(0))
        }
    }
}

/// True for a readable Dalvik or ART GC line (format detection).
pub fn looks_like(line: &str) -> bool {
    matches!(parse_line(line), LogcatLine::Gc(_))
}

/// Parses a logcat capture (`text` of the file called `file`).
pub fn parse(file: &str, text: &str) -> Result<PauseSeries, ImportError> {
    parse_text::<Parser<Vec<Pause>>>(file, text)
}

/// Parses a logcat capture line by line from `src` (the file called `file`): memory holds one line and the GCs
/// found, whatever the size of the capture, parsed on every core. Invalid UTF-8 is replaced (and counted in the
/// warnings).
pub fn parse_read(
    file: &str,
    src: impl std::io::BufRead + Send,
) -> Result<PauseSeries, ImportError> {
    parse_read_as(file, src)
}

/// [`parse_read`] keeping the pauses as `S` ([`PauseSink`]).
pub fn parse_read_as<S: PauseSink>(
    file: &str,
    src: impl std::io::BufRead + Send,
) -> Result<PauseSeries<S>, ImportError> {
    parse_stream_split::<Parser<S>>(file, src, "logcat")
}

/// [`parse_read`] reading `segment_bytes` at a time and parsing `chunk_lines` lines a job (at least one line
/// each): what a small capture goes through when it is a large one's piece, read on every core. The result, error
/// included, must be the same for any sizes; the `logcat` fuzz target and this module's tests check that it is.
pub fn parse_read_cut(
    file: &str,
    src: impl std::io::BufRead + Send,
    segment_bytes: usize,
    chunk_lines: usize,
) -> Result<PauseSeries, ImportError> {
    super::lines::parse_stream_split_by::<Parser<Vec<Pause>>>(
        file,
        src,
        "logcat",
        (segment_bytes, chunk_lines),
    )
}

/// A logcat parser fed one line at a time ([`parse`], [`parse_read`]).
#[derive(Debug, Default)]
struct Parser<S> {
    warnings: Warnings,
    /// The GCs read, placed as they come (nothing of a GC line is kept but its pauses and phase).
    placed: Placed<S>,
    clock: Option<i64>,
    any_time: bool,
    untimed_after_time: usize,
    /// The pauses of the line being read (kept to save an allocation per line).
    pauses: Vec<u64>,
}

impl<S: PauseSink> Parser<S> {
    /// Takes in line `line`, stamped `time`, parsed as `parsed` with its pauses `pauses`.
    fn take(&mut self, line: usize, time: Option<LogTime>, parsed: Parsed<'_>, pauses: &[u64]) {
        self.clock = match time {
            Some(LogTime::Clock(ms)) => Some(ms),
            Some(LogTime::Delta(d)) => Some(self.clock.unwrap_or(0).saturating_add(d)),
            None => self.clock,
        };
        self.any_time |= time.is_some();
        match parsed {
            Parsed::Gc(g)
                if pauses.iter().fold(0u64, |a, &p| a.saturating_add(p)) >= MAX_TIME_NS
                    || g.total_ns.is_some_and(|t| t >= MAX_TIME_NS) =>
            {
                self.warnings.skip(line, OUT_OF_RANGE);
            }
            Parsed::Gc(g) => {
                if time.is_none() && self.clock.is_some() {
                    self.untimed_after_time += 1;
                }
                self.placed.gc(line, &g, pauses, self.clock);
            }
            Parsed::Info => {}
            Parsed::Other => self.warnings.skip(line, "not a GC line"),
            Parsed::Malformed(why) => self.warnings.skip(line, why),
        }
    }
}

impl<S: PauseSink> LineParser for Parser<S> {
    type Output = PauseSeries<S>;

    fn warnings(&mut self) -> &mut Warnings {
        &mut self.warnings
    }

    /// Line `line` (1-based) of the capture.
    fn line(&mut self, line: usize, raw: &str) {
        if raw.trim().is_empty() {
            return;
        }
        let (time, rest) = time_prefix(raw);
        let mut pauses = std::mem::take(&mut self.pauses);
        pauses.clear();
        let parsed = parse_borrowed(time, rest, &mut pauses);
        self.take(line, time, parsed, &pauses);
        self.pauses = pauses;
    }

    /// The pauses of the whole capture (`file` names it in errors).
    fn finish(self, file: &str) -> Result<PauseSeries<S>, ImportError> {
        finish(
            file,
            self.warnings,
            self.placed,
            self.any_time,
            self.untimed_after_time,
        )
    }
}

#[cfg(test)]
mod tests;
