//! The logcat parser's line work split for the parse on every core ([`SplitLineParser`],
//! `importers::lines::parse_stream_split`): the pure part finds a line's time stamp and GC words and keeps them as
//! places in the segment's text ([`LineItem`]); the ordered part rebuilds the [`GcRef`] from them and takes the line
//! in as the line-by-line reader does (`Parser::take`).

use std::ops::Range;

use super::{Dialect, GcRef, LogTime, Parsed, Parser, parse_borrowed, time_prefix};
use crate::importers::PauseSink;
use crate::importers::lines::SplitLineParser;

/// A line as [`SplitLineParser::parse`] leaves it for [`SplitLineParser::apply`]: its time stamp and what it is,
/// the words of a GC as places in the parsed text and its pauses as a place in the extra values.
#[derive(Debug)]
pub(super) enum LineItem {
    Blank,
    Line(Option<LogTime>, Kind),
}

#[derive(Debug)]
pub(super) enum Kind {
    Gc(GcSpans),
    Info,
    Other,
    Malformed(&'static str),
}

/// A [`GcRef`] with its words as places in a text and its pauses as a place in a list.
#[derive(Debug)]
pub(super) struct GcSpans {
    dialect: Dialect,
    pid: Option<Range<usize>>,
    reason: Range<usize>,
    collector: Option<Range<usize>>,
    total_ns: Option<u64>,
    heap_used_bytes: Option<u64>,
    heap_total_bytes: Option<u64>,
    freed_bytes: Option<u64>,
    pauses: Range<usize>,
}

/// Where `part`, a slice of `text`, lies in it.
fn place(text: &str, part: &str) -> Range<usize> {
    let at = (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
    at..at + part.len()
}

impl<S: PauseSink> SplitLineParser for Parser<S> {
    type Item = LineItem;

    fn parse(text: &str, raw: &str, extra: &mut Vec<u64>) -> LineItem {
        if super::trim(raw).is_empty() {
            return LineItem::Blank;
        }
        let (time, rest) = time_prefix(raw);
        let at = extra.len();
        let kind = match parse_borrowed(time, rest, extra) {
            Parsed::Gc(g) => Kind::Gc(GcSpans {
                dialect: g.dialect,
                pid: g.pid.map(|p| place(text, p)),
                reason: place(text, g.reason),
                collector: g.collector.map(|c| place(text, c)),
                total_ns: g.total_ns,
                heap_used_bytes: g.heap_used_bytes,
                heap_total_bytes: g.heap_total_bytes,
                freed_bytes: g.freed_bytes,
                pauses: at..extra.len(),
            }),
            Parsed::Info => Kind::Info,
            Parsed::Other => Kind::Other,
            Parsed::Malformed(why) => Kind::Malformed(why),
        };
        LineItem::Line(time, kind)
    }

    fn apply(&mut self, no: usize, text: &str, item: &LineItem, extra: &[u64]) {
        let LineItem::Line(time, kind) = item else {
            return;
        };
        let word = |r: &Range<usize>| text.get(r.clone()).unwrap_or_default();
        let (parsed, pauses) = match kind {
            Kind::Gc(g) => (
                Parsed::Gc(GcRef {
                    dialect: g.dialect,
                    time: *time,
                    pid: g.pid.as_ref().map(word),
                    reason: word(&g.reason),
                    collector: g.collector.as_ref().map(word),
                    total_ns: g.total_ns,
                    heap_used_bytes: g.heap_used_bytes,
                    heap_total_bytes: g.heap_total_bytes,
                    freed_bytes: g.freed_bytes,
                }),
                extra.get(g.pauses.clone()).unwrap_or_default(),
            ),
            Kind::Info => (Parsed::Info, &[][..]),
            Kind::Other => (Parsed::Other, &[][..]),
            Kind::Malformed(why) => (Parsed::Malformed(why), &[][..]),
        };
        self.take(no, *time, parsed, pauses);
    }
}
