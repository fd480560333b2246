//! The HotSpot parser's line work split for the parse on every core ([`SplitLineParser`],
//! `importers::lines::parse_stream_split`; issue 21 item 4: a 1 GB G1 log's import ran on one core): the pure part,
//! [`read_line`], splits a line into decorators and message and parses the message ([`LineItem`]); the ordered part,
//! `Parser::take`, places it in time (a wall-clock stamp is taken relative to the log's first) and keeps what it
//! says, as the line-by-line reader does.

use super::parser::Parser;
use super::{Message, Stamp, message, split};
use crate::importers::lines::SplitLineParser;
use crate::importers::{MAX_TIME_NS, OUT_OF_RANGE, PauseSink};

/// What the pure part makes of a line.
#[derive(Debug)]
pub(super) enum LineItem {
    /// Nothing but white space.
    Blank,
    /// Decorators that do not close (why).
    Unsplit(&'static str),
    /// Decorated with tags, none of them `gc` or `safepoint`: the message is not read.
    OtherTags,
    /// A line with its message parsed.
    Read(ReadLine),
}

/// A line's decorators as the ordered part needs them, and its message parsed.
#[derive(Debug)]
pub(super) struct ReadLine {
    /// The line has decorators (it counts as unified logging's).
    pub decorated: bool,
    pub stamp: Option<Stamp>,
    /// Tagged `gc` or `safepoint`, or marked as unified logging otherwise: an `Info` message is not a warning.
    pub understood: bool,
    pub parsed: Said,
}

/// What a line's message says, kept small for the many lines that say nothing needed (a G1 log's phase lines):
/// only the others are boxed.
#[derive(Debug)]
pub(super) enum Said {
    /// Nothing needed here ([`Message::Info`]).
    Info,
    /// Why the line is skipped.
    Skip(&'static str),
    /// The message's `GC(n)` id and what it says (a pause's `line` is 0 here, set by the ordered part).
    Message(Box<(Option<u64>, Message)>),
}

/// The pure part of reading line `raw`: it depends on the line alone.
pub(super) fn read_line(raw: &str) -> LineItem {
    if !raw.as_bytes().first().is_some_and(u8::is_ascii_graphic) && raw.trim().is_empty() {
        return LineItem::Blank;
    }
    let l = match split(raw) {
        Ok(l) => l,
        Err(why) => return LineItem::Unsplit(why),
    };
    let gc_tagged = l.tags.is_some_and(|t| {
        (t.as_bytes().split(|&b| b == b',')).any(|t| t == b"gc" || t == b"safepoint")
    });
    if l.decorators > 0 && l.tags.is_some() && !gc_tagged {
        return LineItem::OtherTags;
    }
    let parsed = match message(l.message, 0) {
        Ok((_, Message::Pause(_, ns) | Message::Safepoint(_, ns))) if ns >= MAX_TIME_NS => {
            Said::Skip(OUT_OF_RANGE)
        }
        Ok((_, Message::Info)) => Said::Info,
        Ok(said) => Said::Message(Box::new(said)),
        Err(why) => Said::Skip(why),
    };
    // Without tags, a level or time decorator still marks unified logging (`-Xlog:gc*:file:uptime`).
    let understood = gc_tagged
        || (l.tags.is_none() && (l.level || l.stamp.is_some()))
        || l.message.starts_with("GC(")
        || l.message.starts_with("Using ");
    LineItem::Read(ReadLine {
        decorated: l.decorators > 0,
        stamp: l.stamp,
        understood,
        parsed,
    })
}

impl<S: PauseSink> SplitLineParser for Parser<S> {
    type Item = LineItem;

    fn parse(_text: &str, raw: &str, _extra: &mut Vec<u64>) -> LineItem {
        read_line(raw)
    }

    fn apply(&mut self, no: usize, _text: &str, item: &LineItem, _extra: &[u64]) {
        self.take(no, item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::importers::Pause;
    use crate::importers::lines::assert_read_on_cores_as_line_by_line;

    fn log(name: &str) -> String {
        crate::importers::shared_data(&format!("jvm-logs/{name}"))
    }

    /// `text` with each uptime decorator (`[0.516s]`) rewritten by `stamp` (ms of uptime → the new decorator, or
    /// none).
    fn restamped(text: &str, stamp: impl Fn(u64) -> String) -> String {
        let mut out = String::new();
        for line in text.lines() {
            let rest = line.strip_prefix('[').and_then(|r| r.split_once("s]"));
            match rest.and_then(|(t, rest)| Some((crate::importers::decimal_scaled(t, 3)?, rest))) {
                Some((ms, rest)) => out.push_str(&format!("{}{rest}\n", stamp(ms))),
                None => out.push_str(&format!("{line}\n")),
            }
        }
        out
    }

    /// A log read on every core in small segments (many rounds, a GC's lines split across them) gives what the
    /// line-by-line reader gives — the same pauses, causes, phases, safepoints, heap changes, ZGC MMU lines, span
    /// and warnings — on the four real logs of `../shared/data` one after the other with blank, unclosed,
    /// other-tagged, non-GC, garbled, out-of-range and invalid UTF-8 lines among them; on the G1 log with
    /// wall-clock stamps (times relative to the first, a state the ordered part keeps); and without decorators
    /// (pauses laid end to end).
    #[test]
    fn a_log_parsed_on_every_core_is_the_log_parsed_line_by_line() {
        let mut mixed: Vec<u8> = Vec::new();
        for name in [
            "jdk17-g1-xmx128m.log",
            "jdk17-parallel-xmx128m.log",
            "jdk17-serial-xmx128m.log",
            "jdk17-zgc-xmx256m.log",
        ] {
            for (k, line) in log(name).lines().enumerate() {
                mixed.extend_from_slice(line.as_bytes());
                mixed.push(b'\n');
                match k % 11 {
                    0 => mixed.extend_from_slice(b"\n \t \n"),
                    1 => mixed.extend_from_slice(b"[0.5s][info][gc GC(0) Pause Young 1ms\n"),
                    2 => mixed.extend_from_slice(b"[0.5s][info][class,load] java.lang.Object\n"),
                    3 => mixed.extend_from_slice(b"some other program said something\n"),
                    4 => mixed.extend_from_slice(
                        b"[0.5s][info][gc] GC(9) Pause Young (Normal) 23M->4M(128M) 15.5xms\n",
                    ),
                    5 => mixed
                        .extend_from_slice(b"[99999999999.0s][info][gc] GC(9) Pause Full 1.0ms\n"),
                    6 => mixed
                        .extend_from_slice(b"[0.6s][info][gc] GC(9) Pause Full (\xff\xfe) 2.0ms\n"),
                    7 => mixed.extend_from_slice(b"[info][gc] GC(9) Pause Remark 3.0ms\n"),
                    _ => {}
                }
            }
        }
        let g1 = log("jdk17-g1-xmx128m.log");
        let wall = restamped(&g1, |ms| format!("[{}ms]", 1_704_161_045_000 + ms));
        let bare = restamped(&g1, |_| String::new());
        for (what, input) in [
            ("mixed", mixed),
            ("wall clock", wall.into_bytes()),
            ("no decorators", bare.into_bytes()),
        ] {
            let one = assert_read_on_cores_as_line_by_line::<Parser<Vec<Pause>>>(
                what,
                &input,
                "HotSpot GC log",
            );
            assert!(one.pauses.len() > 40, "{what}: {} pauses", one.pauses.len());
        }
    }
}
