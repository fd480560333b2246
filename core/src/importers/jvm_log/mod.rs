//! `jvm`: HotSpot unified logging (`-Xlog:gc*,safepoint`, JDK 9+), any collector: Serial, Parallel, G1,
//! Shenandoah, ZGC and generational ZGC.
//!
//! A line is `[decorator]…[decorator] message`. Decorators are recognised by their shape, in any order or
//! absent: uptime (`0.532s`, `532ms`, `532000000ns`), wall time (`2024-01-02T03:04:05.678+0100`, `…ms`/`…ns`
//! since the epoch), level, tags, pid/tid. The time stamp is when the line was written, which for a pause summary
//! is the **end** of the pause; the start is the end minus the logged duration. Uptime is preferred; wall times
//! are taken relative to the first one in the file.
//!
//! A pause is a message `[GC(n) ][Y: |O: ]Pause <name> [(group)…] [before->after(total)] <duration>`, e.g.
//! `GC(0) Pause Young (Normal) (G1 Evacuation Pause) 23M->4M(128M) 15.568ms` (Serial, Parallel, G1, Shenandoah) or
//! `GC(5) Pause Mark Start 0.008ms` (ZGC's three pauses, under `gc,phases`). With a heap transition or two groups
//! the last group is the cause; otherwise the groups belong to the kind (`Pause Init Mark (unload classes)`). ZGC
//! causes come from the cycle line `GC(n) Garbage Collection (Allocation Rate)`. ZGC's own `MMU:` lines are kept
//! as [`ReportedMmu`]. Concurrent phases (`GC(n) Concurrent Mark 24.851ms`) become [`ConcurrentPhase`]s, and heap
//! transitions logged outside pause lines (ZGC's cycle line `… (Warmup) 34M(13%)->22M(9%)`, sized by its
//! `Capacity:` row; Shenandoah's `Concurrent cleanup 60M->41M(64M) …`) [`HeapChange`]s. Safepoint lines (`Safepoint "…", … Total: N ns`, JDK 17–25, or `Total time for which
//! application threads were stopped: X seconds`, JDK 9–16) are understood; they become the pauses only when the
//! log has no GC pause line. Other GC-tagged lines (or, when tags are not decorated, lines with a level or time
//! decorator) are understood and carry nothing needed here; every other line is counted in the warnings.

mod parser;
mod split;

use super::{Pause, duration_token_ns, size_token_bytes, tokens};

pub use parser::{parse, parse_read, parse_read_as, parse_read_cut};

/// Skip reasons for lines that are simply not about GC.
const OTHER_TAGS: &str = "tags other than gc or safepoint";
const NOT_GC: &str = "not a HotSpot GC log line";

/// A line's time stamp.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stamp {
    /// Since JVM start. `[ns]`
    Uptime(u64),
    /// Since the Unix epoch. `[ns]`
    Wall(i128),
}

/// A line split into decorators and message.
#[derive(Debug)]
struct Line<'a> {
    stamp: Option<Stamp>,
    tags: Option<&'a str>,
    /// A level decorator (`info`, …) was present: the line is unified logging.
    level: bool,
    decorators: usize,
    message: &'a str,
}

/// Splits the leading `[…]` decorators off `line`.
fn split(line: &str) -> Result<Line<'_>, &'static str> {
    let mut rest = tokens::trim_end(line);
    let mut out = Line {
        stamp: None,
        tags: None,
        level: false,
        decorators: 0,
        message: "",
    };
    while let Some(r) = rest.strip_prefix('[') {
        let close = memchr::memchr(b']', r.as_bytes()).ok_or("a `[` decorator without its `]`")?;
        let d = tokens::trim(&r[..close]);
        rest = &r[close + 1..];
        out.decorators += 1;
        if let Some(stamp) = stamp(d) {
            // Uptime wins over wall time.
            if !matches!(out.stamp, Some(Stamp::Uptime(_))) {
                out.stamp = Some(stamp);
            }
        } else if is_level(d) {
            out.level = true;
        } else if is_tags(d) {
            out.tags = Some(d);
        }
    }
    out.message = tokens::trim(rest.strip_prefix(' ').unwrap_or(rest));
    Ok(out)
}

fn is_level(d: &str) -> bool {
    matches!(d, "trace" | "debug" | "info" | "warning" | "error")
}

fn is_tags(d: &str) -> bool {
    let d = d.as_bytes();
    d.first().is_some_and(u8::is_ascii_lowercase)
        && d.split(|&b| b == b',').all(|t| {
            !t.is_empty()
                && t.iter()
                    .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
}

/// A time decorator: `0.532s`, `532ms`, `532ns` (uptime; epoch when huge) or an ISO 8601 time.
fn stamp(d: &str) -> Option<Stamp> {
    if let Some(n) = d.strip_suffix("ns") {
        let v: u64 = n.parse().ok()?;
        return Some(if v >= 100_000_000_000_000_000 {
            Stamp::Wall(i128::from(v))
        } else {
            Stamp::Uptime(v)
        });
    }
    if let Some(n) = d.strip_suffix("ms") {
        let v: u64 = n.parse().ok()?;
        return Some(if v >= 100_000_000_000 {
            Stamp::Wall(i128::from(v) * 1_000_000)
        } else {
            Stamp::Uptime(v.checked_mul(1_000_000)?)
        });
    }
    if let Some(n) = d.strip_suffix('s') {
        return super::decimal_scaled(n, 9).map(Stamp::Uptime);
    }
    iso_time_ns(d).map(Stamp::Wall)
}

/// `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HHMM|±HH:MM)` in ns since the epoch.
fn iso_time_ns(d: &str) -> Option<i128> {
    let (date, time) = d.split_once('T')?;
    let mut dp = date.splitn(3, '-');
    let (y, mo, da): (i64, i64, i64) = (
        dp.next()?.parse().ok()?,
        dp.next()?.parse().ok()?,
        dp.next()?.parse().ok()?,
    );
    let zone_at = time.find(['+', '-', 'Z']).unwrap_or(time.len());
    let (clock, zone) = time.split_at(zone_at);
    let mut cp = clock.splitn(3, ':');
    let (h, mi): (i64, i64) = (cp.next()?.parse().ok()?, cp.next()?.parse().ok()?);
    let sec_ns = i128::from(super::decimal_scaled(cp.next()?, 9)?);
    let offset_min: i64 = match zone {
        "" | "Z" => 0,
        z => {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            let digits: String = z[1..].chars().filter(char::is_ascii_digit).collect();
            let (zh, zm) = digits.split_at(digits.len().min(2));
            sign * (zh.parse::<i64>().ok()? * 60 + zm.parse::<i64>().unwrap_or(0))
        }
    };
    // Four-digit years only: anything else is garbled, and would overflow the day count.
    if !(0..=9999).contains(&y)
        || !(1..=12).contains(&mo)
        || !(1..=31).contains(&da)
        || !(0..=23).contains(&h)
        || !(0..=59).contains(&mi)
    {
        return None;
    }
    let days = days_from_civil(y, mo, da);
    let minutes = (days * 24 + h) * 60 + mi - offset_min;
    Some(i128::from(minutes) * 60_000_000_000 + sec_ns)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// True for lines that look like HotSpot unified logging of GC or safepoints (format detection).
pub fn looks_like(line: &str) -> bool {
    match split(line) {
        Ok(l) if l.decorators > 0 => {
            l.tags
                .is_some_and(|t| t.split(',').any(|t| t == "gc" || t == "safepoint"))
                || l.message.starts_with("GC(")
        }
        Ok(l) => l.message.starts_with("GC(") && l.message.contains("Pause"),
        Err(_) => false,
    }
}

/// What one message says.
#[derive(Debug)]
enum Message {
    Pause(Pause, u64),
    Safepoint(String, u64),
    Mmu(Vec<(u64, f64)>),
    /// A cycle line (ZGC, generational ZGC): the opening one names the cause; the closing one adds the heap
    /// transition and, in generational ZGC, the cycle's length.
    Cycle {
        what: String,
        cause: String,
        heap: Option<Transition>,
        ns: Option<u64>,
    },
    /// `Concurrent Mark 24.851ms`, possibly with a heap transition before the duration.
    Concurrent {
        name: String,
        heap: Option<Transition>,
        ns: u64,
    },
    /// ZGC's `Capacity:` row: the heap size at the cycle's first column.
    Capacity(u64),
    Info,
}

/// `23M->4M(128M)` or ZGC's `34M(13%)->22M(9%)` (percentages are not a capacity).
#[derive(Debug, Clone, Copy)]
struct Transition {
    before: u64,
    after: u64,
    total: Option<u64>,
}

const BAD_TRANSITION: &str = "a heap transition that is not `before->after(total)` (expected e.g. 23M->4M(128M) or 34M(13%)->22M(9%))";

/// `34M(13%)` → (`34M`, None); `4M(128M)` → (`4M`, Some(`128M`)).
fn size_and_paren(t: &str) -> (&str, Option<&str>) {
    match t.split_once('(') {
        Some((v, rest)) => {
            let inner = rest.strip_suffix(')').unwrap_or(rest);
            (v, (!inner.ends_with('%')).then_some(inner))
        }
        None => (t, None),
    }
}

/// The transition in `token`, or `None` when before or after is not a size (a capacity that is not one is left
/// out).
fn transition(token: &str) -> Option<Transition> {
    let (b, a) = token.split_once("->")?;
    let (b, _) = size_and_paren(b);
    let (a, total) = size_and_paren(a);
    Some(Transition {
        before: size_token_bytes(b)?,
        after: size_token_bytes(a)?,
        total: total.and_then(size_token_bytes),
    })
}

/// The last word of `t` and what precedes it (no allocation: most lines are read and dropped).
fn split_last(t: &str) -> (&str, &str) {
    let t = tokens::trim_end(t);
    // The last ASCII whitespace (as `char::is_whitespace` has it, vertical tab included) found on bytes, unless a
    // non-ASCII byte comes first from the end (it may be Unicode whitespace): then by characters.
    let b = t.as_bytes();
    let at = b
        .iter()
        .rposition(|&c| c >= 0x80 || matches!(c, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r'));
    let split = match at {
        None => None,
        Some(i) if b[i] < 0x80 => Some((&t[..i], &t[i + 1..])),
        Some(_) => t.rsplit_once(char::is_whitespace),
    };
    match split {
        Some((head, last)) => (tokens::trim_end(head), last),
        None => ("", t),
    }
}

/// Splits `… [before->after(total)] [duration]` into the words before them, the transition and the duration.
fn trailing_heap_and_duration(
    text: &str,
) -> Result<(&str, Option<Transition>, Option<u64>), &'static str> {
    let mut rest = text.trim();
    let (head, last) = split_last(rest);
    let ns = (!last.contains("->"))
        .then(|| duration_token_ns(last))
        .flatten();
    if ns.is_some() {
        rest = head;
    }
    let (head, last) = split_last(rest);
    let heap = if last.contains("->") {
        let t = transition(last).ok_or(BAD_TRANSITION)?;
        rest = head;
        Some(t)
    } else {
        None
    };
    Ok((rest, heap, ns))
}

/// Parses a line's message (after the decorators); a pause's `line` is left 0, for the caller to set.
fn message(text: &str) -> Result<(Option<u64>, Message), &'static str> {
    if let Some(sp) = safepoint(text) {
        return sp.map(|(name, ns)| (None, Message::Safepoint(name, ns)));
    }
    let id_and_rest = text
        .strip_prefix("GC(")
        .and_then(|r| memchr::memchr(b')', r.as_bytes()).map(|i| (&r[..i], &r[i + 1..])));
    let (gc_id, rest) = match id_and_rest {
        Some((id, rest)) => (
            Some(id.parse::<u64>().map_err(|_| "`GC(n)` without a number")?),
            rest.trim_start(),
        ),
        None => (None, text),
    };
    // Generational ZGC prefixes its phases with the generation: `Y: `, `O: `.
    let rest = match rest.as_bytes() {
        [g, b':', b' ', ..] if g.is_ascii_alphabetic() => rest[3..].trim_start(),
        _ => rest,
    };
    if let Some(points) = rest.strip_prefix("MMU:") {
        return mmu_points(points)
            .map(|p| (gc_id, Message::Mmu(p)))
            .ok_or("an `MMU:` line without `2ms/99.1%` points");
    }
    for cycle in [
        "Garbage Collection (",
        "Major Collection (",
        "Minor Collection (",
    ] {
        if rest.starts_with(cycle) {
            let (head, heap, ns) = trailing_heap_and_duration(rest)?;
            let cause = name_and_groups(head)
                .1
                .into_iter()
                .next()
                .unwrap_or_default();
            return Ok((
                gc_id,
                Message::Cycle {
                    what: head.to_string(),
                    cause,
                    heap,
                    ns,
                },
            ));
        }
    }
    if rest.starts_with("Concurrent ") {
        let (name, heap, ns) = trailing_heap_and_duration(rest)?;
        // `Concurrent Mark` (a phase opening) and `Concurrent Workers: 1` (set-up) carry no duration.
        return Ok((
            gc_id,
            match ns {
                Some(ns) => Message::Concurrent {
                    name: name.to_string(),
                    heap,
                    ns,
                },
                None => Message::Info,
            },
        ));
    }
    if let Some(cap) = rest.strip_prefix("Capacity:") {
        return Ok((
            gc_id,
            cap.split_whitespace()
                .next()
                .and_then(size_token_bytes)
                .map_or(Message::Info, Message::Capacity),
        ));
    }
    if !rest.starts_with("Pause ") {
        return Ok((gc_id, Message::Info));
    }
    let (body, last) = rest.rsplit_once(' ').unwrap_or((rest, ""));
    let Some(duration_ns) = duration_token_ns(last) else {
        // `[gc,start] GC(0) Pause Young (Normal) (G1 Evacuation Pause)`: the start of a pause.
        return if last.contains("->") || last.ends_with("ms") {
            Err("a `Pause` line whose last field is not a duration (expected e.g. 15.568ms)")
        } else {
            Ok((gc_id, Message::Info))
        };
    };
    let mut pause = Pause {
        gc_id,
        ..Pause::default()
    };
    let mut body = body.trim();
    let (head, last) = split_last(body);
    if !head.is_empty() && last.contains("->") {
        let t = transition(last).ok_or(BAD_TRANSITION)?;
        pause.heap_before_bytes = Some(t.before);
        pause.heap_after_bytes = Some(t.after);
        pause.heap_total_bytes = t.total;
        body = head;
    }
    let (name, groups) = name_and_groups(body);
    let cause_last = pause.heap_after_bytes.is_some() || groups.len() >= 2;
    let kind_groups = if cause_last {
        &groups[..groups.len().saturating_sub(1)]
    } else {
        &groups[..]
    };
    pause.kind = std::iter::once(name.to_string())
        .chain(kind_groups.iter().map(|g| format!("({g})")))
        .collect::<Vec<_>>()
        .join(" ");
    pause.cause = if cause_last {
        groups.last().cloned()
    } else {
        None
    };
    Ok((gc_id, Message::Pause(pause, duration_ns)))
}

/// `Pause Young (Normal) (System.gc())` → (`Pause Young`, [`Normal`, `System.gc()`]); parentheses nest.
fn name_and_groups(body: &str) -> (&str, Vec<String>) {
    let name_end = body.find('(').unwrap_or(body.len());
    let mut groups = Vec::new();
    let (mut depth, mut cur) = (0usize, String::new());
    for c in body[name_end..].chars() {
        match c {
            '(' if depth == 0 => depth = 1,
            '(' => {
                depth += 1;
                cur.push(c);
            }
            ')' if depth == 1 => {
                depth = 0;
                groups.push(std::mem::take(&mut cur).trim().to_string());
            }
            ')' if depth > 1 => {
                depth -= 1;
                cur.push(c);
            }
            _ if depth > 0 => cur.push(c),
            _ => {}
        }
    }
    (body[..name_end].trim(), groups)
}

/// `Safepoint "Name", …, Total: 15799351 ns` or `Total time for which application threads were stopped: X seconds`.
fn safepoint(text: &str) -> Option<Result<(String, u64), &'static str>> {
    if let Some(rest) = text.strip_prefix("Safepoint \"") {
        let (name, fields) = rest.split_once('"')?;
        let total = fields
            .split(',')
            .filter_map(|f| f.trim().strip_prefix("Total:"))
            .next_back()
            .and_then(|v| {
                v.trim()
                    .strip_suffix("ns")
                    .and_then(|n| n.trim().parse::<u64>().ok())
            });
        return Some(
            total
                .map(|ns| (name.to_string(), ns))
                .ok_or("a `Safepoint` line without `Total: N ns`"),
        );
    }
    if let Some(rest) = text.strip_prefix("Total time for which application threads were stopped:")
    {
        let secs = rest.split_whitespace().next().unwrap_or_default();
        return Some(
            super::decimal_scaled(secs, 9)
                .map(|ns| ("stopped".to_string(), ns))
                .ok_or("a safepoint line whose stopped time is not `X seconds`"),
        );
    }
    if text.starts_with("Application time:") {
        return None;
    }
    None
}

/// ` 2ms/92.4%, 5ms/97.0%` → [(2 000 000, 92.4), (5 000 000, 97.0)].
fn mmu_points(text: &str) -> Option<Vec<(u64, f64)>> {
    let points: Option<Vec<(u64, f64)>> = text
        .split(',')
        .map(|p| {
            let (w, u) = p.trim().split_once('/')?;
            Some((duration_token_ns(w)?, u.trim_end_matches('%').parse().ok()?))
        })
        .collect();
    points.filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decorators_in_any_form() {
        let l =
            split("[2024-01-02T03:04:05.678+0100][0.532s][info][gc,phases   ] GC(1) x").unwrap();
        assert_eq!(l.stamp, Some(Stamp::Uptime(532_000_000)), "uptime wins");
        assert_eq!(l.tags, Some("gc,phases"), "tags");
        assert_eq!(l.message, "GC(1) x", "message");
        let l = split("[532ms][gc] m").unwrap();
        assert_eq!(l.stamp, Some(Stamp::Uptime(532_000_000)), "uptimemillis");
        let l = split("[1704161045678ms] m").unwrap();
        assert!(matches!(l.stamp, Some(Stamp::Wall(_))), "timemillis");
        assert_eq!(
            iso_time_ns("1970-01-02T00:00:00.000Z"),
            Some(86_400_000_000_000),
            "iso"
        );
        assert_eq!(
            iso_time_ns("1970-01-01T01:00:00.5+0100"),
            Some(500_000_000),
            "offset"
        );
        assert!(split("[0.5s][info][gc GC(0)").is_err(), "unclosed");
    }

    #[test]
    fn pause_lines_by_structure() {
        let (id, m) =
            message("GC(0) Pause Young (Normal) (G1 Evacuation Pause) 23M->4M(128M) 15.568ms")
                .unwrap();
        let Message::Pause(p, ns) = m else {
            panic!("not a pause")
        };
        assert_eq!((id, ns), (Some(0), 15_568_000), "id, duration");
        assert_eq!(p.kind, "Pause Young (Normal)", "kind");
        assert_eq!(p.cause.as_deref(), Some("G1 Evacuation Pause"), "cause");
        assert_eq!(p.heap_before_bytes, Some(23 << 20), "before");
        assert_eq!(p.heap_total_bytes, Some(128 << 20), "total");
        let (_, m) = message("GC(3) Y: Pause Mark Start (Major) 0.016ms").unwrap();
        let Message::Pause(p, ns) = m else {
            panic!("not a pause")
        };
        assert_eq!(
            (p.kind.as_str(), ns),
            ("Pause Mark Start (Major)", 16_000),
            "gen ZGC"
        );
        let (_, m) = message("GC(2) Pause Full (System.gc()) 10M->5M(128M) 20.123ms").unwrap();
        let Message::Pause(p, _) = m else {
            panic!("not a pause")
        };
        assert_eq!(
            p.cause.as_deref(),
            Some("System.gc()"),
            "nested parentheses"
        );
        let (_, m) = message("GC(0) Pause Init Mark (unload classes) 0.239ms").unwrap();
        let Message::Pause(p, _) = m else {
            panic!("not a pause")
        };
        assert_eq!(p.kind, "Pause Init Mark (unload classes)", "Shenandoah");
        assert!(
            matches!(
                message("GC(0) Pause Young (Normal) (G1 Evacuation Pause)"),
                Ok((_, Message::Info))
            ),
            "start"
        );
        assert!(
            message("GC(0) Pause Young (Normal) 23M->4M(128M) 15.5xms").is_err(),
            "garbled duration"
        );
        let (_, m) = message("Safepoint \"G1CollectForAllocation\", Time since last: 1 ns, Reaching safepoint: 2 ns, At safepoint: 3 ns, Total: 15799351 ns, Threads: 12").unwrap();
        assert!(
            matches!(m, Message::Safepoint(_, 15_799_351)),
            "JDK 25 safepoint"
        );
        let (_, m) = message("GC(67) MMU: 2ms/92.4%, 5ms/97.0%").unwrap();
        assert!(
            matches!(m, Message::Mmu(ref p) if p == &vec![(2_000_000, 92.4), (5_000_000, 97.0)]),
            "mmu"
        );
    }
}
