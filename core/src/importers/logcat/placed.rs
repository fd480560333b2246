//! Logcat GCs placed in time as they are read ([`Placed`]): pauses and concurrent phases on the capture's clock
//! (pushed to a [`PauseSink`]), then moved to one time axis starting at the earliest ([`finish`]).

use super::{Dialect, GcLine};
use crate::importers::{
    ConcurrentPhase, ImportError, ImportErrorKind, MAX_TIME_NS, OUT_OF_RANGE, Pause, PauseSeries,
    PauseSink, Warnings,
};

/// GCs placed on the capture's clock as they are read: end times in ms on the clock; GCs read before any time
/// stamp are laid end to end.
#[derive(Debug, Default)]
pub(super) struct Placed<S> {
    /// GC lines read.
    gcs: usize,
    /// The pauses and concurrent phases so far (times still on the capture's clock, see `starts`).
    out: PauseSeries<S>,
    /// Start of each pause in `out.pauses` on the capture's clock (moved to the origin at the end, in place). `[ns]`
    starts: Vec<i128>,
    /// Span of each phase in `out.concurrent` on the capture's clock. `[ns]`
    concurrent_spans: Vec<(i128, i128)>,
    /// End of the untimed GCs laid end to end. `[ns]`
    cursor_ns: i128,
    /// The latest GC end. `[ns]`
    last_line_ns: i128,
}

impl<S: PauseSink> Placed<S> {
    /// Places GC `g` of line `line`, read at capture time `t` (ms; `None` before any time stamp).
    pub(super) fn gc(&mut self, line: usize, g: &GcLine, t: Option<i64>) {
        self.gcs += 1;
        let sum = g.pauses_ns.iter().fold(0u64, |a, &p| a.saturating_add(p));
        let total = g.total_ns.unwrap_or(0).max(sum);
        let end: i128 = match t {
            Some(ms) => i128::from(ms) * 1_000_000,
            _ => {
                self.cursor_ns += i128::from(total);
                self.cursor_ns
            }
        };
        self.last_line_ns = self.last_line_ns.max(end);
        let start = end - i128::from(total);
        let name = g.pid.clone().unwrap_or_default();
        let mutator = match self.out.mutators.iter().position(|n| *n == name) {
            Some(m) => m,
            None => {
                self.out.mutators.push(name);
                self.out.mutators.len() - 1
            }
        };
        let (kind, cause) = match g.dialect {
            Dialect::Dalvik => (g.reason.clone(), None),
            Dialect::Art => (
                g.collector.clone().unwrap_or_else(|| "GC".into()),
                Some(g.reason.clone()),
            ),
        };
        if total > sum {
            self.concurrent_spans.push((start, end));
            self.out.concurrent.push(ConcurrentPhase {
                name: if S::NAMES {
                    kind.clone()
                } else {
                    String::new()
                },
                line,
                ..ConcurrentPhase::default()
            });
        }
        // First pause at the GC start; the others back to back, ending at the GC end.
        let mut at = end
            - g.pauses_ns
                .iter()
                .skip(1)
                .map(|&p| i128::from(p))
                .sum::<i128>();
        for (k, &p) in g.pauses_ns.iter().enumerate() {
            let (a, b) = if k == 0 {
                (start, start + i128::from(p))
            } else {
                let a = at;
                at += i128::from(p);
                (a, a + i128::from(p))
            };
            let pause = Pause {
                start_ns: 0,
                end_ns: u64::try_from(b - a).unwrap_or(0),
                mutator,
                kind: if S::NAMES {
                    kind.clone()
                } else {
                    String::new()
                },
                cause: cause.clone().filter(|_| S::NAMES),
                heap_after_bytes: g.heap_used_bytes,
                heap_total_bytes: g.heap_total_bytes,
                heap_before_bytes: g
                    .heap_used_bytes
                    .zip(g.freed_bytes)
                    .and_then(|(u, f)| u.checked_add(f)),
                line,
                ..Pause::default()
            };
            self.starts.push(a);
            self.out.pauses.push(pause);
        }
    }
}

/// Moves the placed GCs (`placed`) to one time axis starting at the earliest.
pub(super) fn finish<S: PauseSink>(
    file: &str,
    mut warnings: Warnings,
    placed: Placed<S>,
    any_time: bool,
    untimed_after_time: usize,
) -> Result<PauseSeries<S>, ImportError> {
    if placed.gcs == 0 {
        let (line, why) = warnings
            .first_skipped(&["not a GC line"])
            .map_or((1, String::new()), |(l, r)| (l, format!("; line {l}: {r}")));
        return Err(ImportError::new(
            file,
            line,
            ImportErrorKind::NothingUsable(format!(
                "no Dalvik or ART GC line found{why} (expected e.g. `GC_CONCURRENT freed 2049K, 65% free \
                 3571K/9991K, paused 2ms+3ms, total 30ms` or `Background concurrent copying GC freed …, paused 123us \
                 total 12.3ms`)"
            )),
        ));
    }
    let Placed {
        mut out,
        starts,
        concurrent_spans,
        last_line_ns,
        ..
    } = placed;
    let origin = starts.iter().copied().min().unwrap_or(0).min(last_line_ns);
    let in_range = |ns: i128| u64::try_from(ns).ok().filter(|&v| v < MAX_TIME_NS);
    // `retain_mut` visits the pauses in order, so the k-th visit is the k-th start.
    let mut starts = starts.into_iter();
    out.pauses.retain_mut(|p| {
        let a = starts.next().unwrap_or(origin);
        // Stamps more than 146 years apart (a garbled date) cannot all be placed: the far ones are skipped.
        let Some(end) = in_range(a - origin + i128::from(p.end_ns)) else {
            warnings.skip(p.line, OUT_OF_RANGE);
            return false;
        };
        p.start_ns = end - p.end_ns;
        p.end_ns = end;
        true
    });
    let mut spans = concurrent_spans.into_iter();
    out.concurrent.retain_mut(|c| {
        let (a, b) = spans.next().unwrap_or((origin, origin));
        // Skipped with the GC's pauses when out of range (above).
        if let (Some(a), Some(b)) = (in_range(a - origin), in_range(b - origin)) {
            c.start_ns = a;
            c.end_ns = b;
            true
        } else {
            false
        }
    });
    out.concurrent.sort_by_key(|c| (c.start_ns, c.line));
    if out.pauses.is_empty() {
        let line = warnings.first_skipped(&[]).map_or(1, |(l, _)| l);
        return Err(ImportError::new(
            file,
            line,
            ImportErrorKind::NothingUsable(format!(
                "no GC could be placed in time: {OUT_OF_RANGE}"
            )),
        ));
    }
    out.pauses.shrink_to_fit();
    let last_end = out.pauses.spans().map(|p| p.1).max().unwrap_or(0);
    out.span_ns = (
        0,
        last_end.max(in_range(last_line_ns - origin).unwrap_or(0)),
    );
    if !any_time {
        warnings.note(
            "no time stamps: the GCs are laid end to end, each taking its logged total (or its pauses), so the MMU \
             is a worst case",
        );
    } else if untimed_after_time > 0 {
        warnings.note(format!(
            "{untimed_after_time} GC lines without a time stamp are placed at the previous line's time"
        ));
    }
    out.warnings = warnings;
    Ok(out)
}
