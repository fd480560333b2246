//! The HotSpot log parser fed one line at a time (or, from a stream, each line parsed on any core by `split.rs`
//! and taken in here in order): pauses placed at their time stamps as they are read (pushed to a [`PauseSink`]),
//! cycles' causes, heap transitions, concurrent phases and safepoints; at the end, untimed pauses laid end to end
//! and the series assembled ([`parse`], [`parse_read`], [`parse_read_as`], [`parse_read_cut`]).

use std::collections::BTreeMap;

use super::split::{LineItem, Said, read_line};
use super::{Message, NOT_GC, OTHER_TAGS, Stamp, Transition};
use crate::importers::lines::{
    LineParser, SplitLineParser, parse_stream_split, parse_stream_split_by, parse_text,
};
use crate::importers::phases::PhaseUnion;
use crate::importers::{
    ConcurrentPhase, HeapChange, ImportError, ImportErrorKind, MAX_TIME_NS, OUT_OF_RANGE, Pause,
    PauseSeries, PauseSink, ReportedMmu, Safepoint, Warnings,
};

/// Parses a HotSpot unified GC log (`text` of the file called `file`).
pub fn parse(file: &str, text: &str) -> Result<PauseSeries, ImportError> {
    parse_text::<Parser<Vec<Pause>>>(file, text)
}

/// Parses a HotSpot unified GC log from `src` (the file called `file`), its lines parsed on every core in segments
/// of a few MiB: memory holds a few segments and the pauses found, whatever the size of the log. Invalid UTF-8 is
/// replaced (and counted in the warnings).
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
    parse_stream_split::<Parser<S>>(file, src, "HotSpot GC log")
}

/// [`parse_read`] reading `segment_bytes` at a time and parsing `chunk_lines` lines a job (at least one line
/// each): what a small log goes through when it is a large one's piece, read on every core. The result, error
/// included, must be the same for any sizes; the `jvm_log` fuzz target and `split.rs`'s tests check that it is.
pub fn parse_read_cut(
    file: &str,
    src: impl std::io::BufRead + Send,
    segment_bytes: usize,
    chunk_lines: usize,
) -> Result<PauseSeries, ImportError> {
    parse_stream_split_by::<Parser<Vec<Pause>>>(
        file,
        src,
        "HotSpot GC log",
        (segment_bytes, chunk_lines),
    )
}

/// `p` ending at `end_ns` after lasting `ns`. `[ns]`
fn placed(end_ns: u64, ns: u64, mut p: Pause) -> Pause {
    p.end_ns = end_ns;
    p.start_ns = end_ns.saturating_sub(ns);
    p
}

/// A HotSpot log parser fed one line at a time ([`parse`], [`parse_read`]).
#[derive(Debug, Default)]
pub(super) struct Parser<S> {
    reported_mmu: Vec<ReportedMmu>,
    warnings: Warnings,
    origin: Option<i128>,
    last_time: u64,
    /// Pauses with a time stamp, placed (`end_ns` the stamp, `start_ns` the stamp minus the duration) as they
    /// are read: they become the series' pauses without a copy.
    timed: S,
    untimed: Vec<(u64, Pause)>,
    /// Safepoints, kept only while no GC pause has been seen (they are used only when there is none).
    safepoints: Vec<(Option<u64>, u64, String, usize)>,
    causes: BTreeMap<u64, String>,
    decorated_lines: usize,
    /// Time stamp of each cycle's opening line (`[gc,start] GC(0) Garbage Collection (Warmup)`). `[ns]`
    cycle_starts: BTreeMap<u64, u64>,
    /// ZGC's `Capacity:` per cycle. `[bytes]`
    capacities: BTreeMap<u64, u64>,
    heap_changes: Vec<HeapChange>,
    concurrent: Vec<ConcurrentPhase>,
    /// Concurrent phases and cycle transitions without a time stamp (they cannot be placed).
    unplaced: usize,
    /// Every safepoint with a time stamp.
    stopped: Vec<Safepoint>,
    /// A sink without phases ([`PauseSink::PHASES`] false): the concurrent phases, heap transitions and
    /// safepoints counted instead of kept (safepoints: how many, and their time in all); the phases also for a
    /// sink that keeps their union only ([`PauseSink::PHASE_SPANS`]). `[ns]`
    phase_union: PhaseUnion,
    heap_change_count: usize,
    stopped_count: (usize, u64),
}

impl<S: PauseSink> LineParser for Parser<S> {
    type Output = PauseSeries<S>;

    fn warnings(&mut self) -> &mut Warnings {
        &mut self.warnings
    }

    /// Line `line` (1-based) of the log.
    fn line(&mut self, line: usize, raw: &str) {
        self.take(line, &read_line(raw));
    }

    /// The pauses of the whole log (`file` names it in errors).
    fn finish(self, file: &str) -> Result<PauseSeries<S>, ImportError> {
        let Parser {
            reported_mmu,
            mut warnings,
            mut last_time,
            mut timed,
            mut untimed,
            safepoints,
            causes,
            decorated_lines,
            capacities,
            mut heap_changes,
            mut concurrent,
            unplaced,
            mut stopped,
            phase_union,
            heap_change_count,
            stopped_count,
            ..
        } = self;
        stopped.sort_by_key(|s| (s.end_ns, s.line));
        for h in &mut heap_changes {
            if h.total_bytes.is_none() {
                h.total_bytes = h.gc_id.and_then(|id| capacities.get(&id).copied());
            }
        }
        heap_changes.sort_by_key(|h| (h.start_ns, h.line));
        concurrent.sort_by_key(|c| (c.start_ns, c.line));
        if unplaced > 0 {
            warnings.note(format!(
                "{unplaced} concurrent phase(s) or cycle heap transition(s) without a time stamp are not placed"
            ));
        }
        let mut out = PauseSeries {
            mutators: vec!["jvm".into()],
            reported_mmu,
            heap_changes,
            concurrent,
            safepoints: stopped,
            ..PauseSeries::default()
        };
        if !S::WHOLE_PHASES {
            let spans = S::PHASE_SPANS.then_some(&mut out.concurrent_union);
            out.concurrent_counted = Some(phase_union.finish(0, spans).map_err(|e| {
                ImportError::new(file, 1, ImportErrorKind::Io(format!("temporary file: {e}")))
            })?);
        }
        if !S::PHASES {
            out.heap_changes_counted = Some(heap_change_count);
            out.safepoints_counted = Some(stopped_count);
        }
        if timed.is_empty() && untimed.is_empty() && !safepoints.is_empty() {
            warnings.note(format!(
                "no GC pause lines: the {} safepoint pauses are used instead (all safepoints, not only GC ones)",
                safepoints.len()
            ));
            for (t, ns, name, line) in safepoints {
                let p = Pause {
                    kind: "Safepoint".into(),
                    cause: Some(name),
                    line,
                    ..Pause::default()
                };
                match t {
                    Some(t) => timed.push(placed(t, ns, p)),
                    None => untimed.push((ns, p)),
                }
            }
        }
        if timed.is_empty() && untimed.is_empty() {
            let (line, why) = warnings
                .first_skipped(&[OTHER_TAGS, NOT_GC])
                .map_or((1, "no line is a GC pause".to_string()), |(l, r)| {
                    (l, format!("no GC pause found; line {l}: {r}"))
                });
            return Err(ImportError::new(
                file,
                line,
                ImportErrorKind::NothingUsable(format!(
                    "{why} (expected HotSpot unified logging such as `[0.532s][info][gc] GC(0) Pause Young (Normal) \
                     (G1 Evacuation Pause) 23M->4M(128M) 15.568ms`; the JDK 8 -XX:+PrintGCDetails format is not read)"
                )),
            ));
        }
        if !timed.is_empty() && !untimed.is_empty() {
            for (_, p) in &untimed {
                warnings.skip(
                    p.line,
                    "a pause without a time stamp in a log with time stamps",
                );
            }
            untimed.clear();
        }
        if untimed.is_empty() {
            timed.shrink_to_fit();
            out.pauses = timed;
        } else {
            warnings.note(format!(
                "no time stamps (decorators {}): the {} pauses are laid end to end, so the MMU is a lower bound",
                if decorated_lines > 0 { "without uptime or time" } else { "absent" },
                untimed.len()
            ));
            let mut t = 0u64;
            for (ns, mut p) in untimed {
                if t.saturating_add(ns) >= MAX_TIME_NS {
                    warnings.skip(p.line, OUT_OF_RANGE);
                    continue;
                }
                p.start_ns = t;
                t += ns;
                p.end_ns = t;
                out.pauses.push(p);
            }
            last_time = t;
        }
        if S::NAMES {
            out.pauses.retain_mut(|p| {
                if p.cause.is_none() {
                    p.cause = p.gc_id.and_then(|id| causes.get(&id).cloned());
                }
                true
            });
        }
        let last_end = out.pauses.spans().map(|p| p.1).max().unwrap_or(0);
        out.span_ns = (0, last_time.max(last_end));
        out.warnings = warnings;
        Ok(out)
    }
}

impl<S: PauseSink> Parser<S> {
    /// Takes in line `line`, read as `item` ([`read_line`]).
    pub(super) fn take(&mut self, line: usize, item: &LineItem) {
        let r = match item {
            LineItem::Blank => return,
            LineItem::Unsplit(why) => {
                self.warnings.skip(line, why);
                return;
            }
            LineItem::OtherTags => {
                self.decorated_lines += 1;
                self.warnings.skip(line, OTHER_TAGS);
                return;
            }
            LineItem::Read(r) => r,
        };
        self.decorated_lines += usize::from(r.decorated);
        let time_ns = r.stamp.map(|s| match s {
            Stamp::Uptime(ns) => ns,
            Stamp::Wall(ns) => {
                let o = *self.origin.get_or_insert(ns);
                u64::try_from((ns - o).max(0)).unwrap_or(0)
            }
        });
        if time_ns.is_some_and(|t| t >= MAX_TIME_NS) {
            self.warnings.skip(line, OUT_OF_RANGE);
            return;
        }
        if let Some(t) = time_ns {
            self.last_time = self.last_time.max(t);
        }
        let said = match &r.parsed {
            Said::Skip(why) => return self.warnings.skip(line, why),
            Said::Info if !r.understood => return self.warnings.skip(line, NOT_GC),
            Said::Info => return,
            Said::Message(m) => &**m,
        };
        match said {
            (_, Message::Info) => {}
            (
                id,
                Message::Cycle {
                    what,
                    cause,
                    heap,
                    ns,
                },
            ) => {
                let id = *id;
                if let Some(id) = id
                    && !cause.is_empty()
                    && S::NAMES
                {
                    self.causes.insert(id, cause.clone());
                }
                match (time_ns, heap) {
                    (Some(t), None) if ns.is_none() => {
                        if let Some(id) = id {
                            self.cycle_starts.insert(id, t);
                        }
                    }
                    (Some(end), Some(h)) => {
                        let start = match ns {
                            Some(ns) => end.saturating_sub(*ns),
                            None => id
                                .and_then(|i| self.cycle_starts.get(&i).copied())
                                .unwrap_or(end),
                        };
                        self.heap_change(line, id, what, start, end, *h);
                    }
                    (None, Some(_)) => self.unplaced += 1,
                    _ => {}
                }
            }
            (id, Message::Concurrent { name, heap, ns }) => match time_ns {
                Some(end) => {
                    let start = end.saturating_sub(*ns);
                    if let Some(h) = heap {
                        self.heap_change(line, *id, name, start, end, *h);
                    }
                    if S::WHOLE_PHASES {
                        self.concurrent.push(ConcurrentPhase {
                            start_ns: start,
                            end_ns: end,
                            name: name.clone(),
                            gc_id: *id,
                            line,
                        });
                    } else {
                        self.phase_union.push(i128::from(start), end - start);
                    }
                }
                None => self.unplaced += 1,
            },
            (id, Message::Capacity(bytes)) => {
                if let Some(id) = id {
                    self.capacities.entry(*id).or_insert(*bytes);
                }
            }
            (id, Message::Mmu(points)) => self.reported_mmu.push(ReportedMmu {
                line,
                time_ns: time_ns.unwrap_or(self.last_time),
                gc_id: *id,
                points: points.clone(),
            }),
            (_, Message::Safepoint(name, ns)) => {
                let ns = *ns;
                // Kept apart as well while no GC pause has been seen (then they may become the pauses).
                if self.timed.is_empty() && self.untimed.is_empty() {
                    self.safepoints.push((time_ns, ns, name.clone(), line));
                }
                if let Some(end) = time_ns {
                    let start_ns = end.saturating_sub(ns);
                    if S::PHASES {
                        self.stopped.push(Safepoint {
                            start_ns,
                            end_ns: end,
                            operation: name.clone(),
                            line,
                        });
                    } else {
                        self.stopped_count.0 += 1;
                        self.stopped_count.1 += end - start_ns;
                    }
                }
            }
            (_, Message::Pause(p, ns)) => {
                self.safepoints = Vec::new();
                let p = Pause { line, ..p.clone() };
                match time_ns {
                    Some(t) => self.timed.push(placed(t, *ns, p)),
                    None => self.untimed.push((*ns, p)),
                }
            }
        }
    }

    fn heap_change(
        &mut self,
        line: usize,
        gc_id: Option<u64>,
        what: &str,
        start_ns: u64,
        end_ns: u64,
        h: Transition,
    ) {
        if !S::PHASES {
            self.heap_change_count += 1;
            return;
        }
        self.heap_changes.push(HeapChange {
            start_ns,
            end_ns,
            before_bytes: h.before,
            after_bytes: h.after,
            total_bytes: h.total,
            what: what.to_string(),
            gc_id,
            line,
        });
    }
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
