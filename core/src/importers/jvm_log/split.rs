//! The pure half of the HotSpot parser's line work, so that lines are parsed on every core (issue 21 item 4: a
//! 1 GB G1 log's import ran on one core): [`read_line`] splits a line into decorators and message and parses the
//! message ([`LineItem`]), depending on the line alone. The ordered half, `Parser::take` in `parser.rs` (which
//! implements `importers::lines::SplitLineParser` with both), places it in time (a wall-clock stamp relative to
//! the log's first) and keeps what it says, as the line-by-line reader does.

use super::{Message, Stamp, message, split};
use crate::importers::{MAX_TIME_NS, OUT_OF_RANGE};

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
    let parsed = match message(l.message) {
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
