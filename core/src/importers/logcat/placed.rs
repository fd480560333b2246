//! Logcat GCs placed in time as they are read ([`Placed`]): pauses and concurrent phases on the capture's clock
//! (pushed to a [`PauseSink`]), then moved to one time axis starting at the earliest ([`finish`]).
//!
//! Memory does not grow with the capture beyond what the sink keeps: a start on the capture's clock is held as a
//! 64-bit offset from the first GC's start inside the pause itself (its `start_ns`, its duration in `end_ns`),
//! and moved to the origin in place at the end. Only a start more than 2⁶³ ns (292 years) before the first GC —
//! a garbled date — is kept aside exactly (`far`). A sink that keeps no phases whole ([`PauseSink::WHOLE_PHASES`]
//! false: `gclab mmu`, `export-perfetto`, the app) does not keep the concurrent phases either: [`PhaseUnion`]
//! counts them and the time some phase runs, and hands the app their union.

use super::{Dialect, GcRef};
use crate::importers::names::NameIndex;
use crate::importers::phases::PhaseUnion;
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
    /// The pauses and concurrent phases so far: `start_ns` holds the start's offset from `base` (as i64 bits),
    /// `end_ns` the duration. `[ns]`
    out: PauseSeries<S>,
    /// Concurrent phases counted, not kept (a sink without phases).
    union: PhaseUnion,
    /// Start of the first GC on the capture's clock: the offsets' origin. `[ns]`
    base: Option<i128>,
    /// Starts more than 2⁶³ ns before `base`, by pause and by kept phase index. `[ns]`
    far_pauses: Vec<(usize, i128)>,
    far_phases: Vec<(usize, i128)>,
    /// The earliest start. `[ns]`
    min_start: Option<i128>,
    /// The latest end of a pause stored as an offset, as offset + duration from `base`. `[ns]`
    max_end_off: i128,
    /// End of the untimed GCs laid end to end. `[ns]`
    cursor_ns: i128,
    /// The latest GC end. `[ns]`
    last_line_ns: i128,
    /// The mutators' (pids') numbers in `out.mutators`.
    mutators: NameIndex,
    /// The first GC of a pid past [`crate::importers::MAX_MUTATORS`]: the capture's error.
    too_many: Option<ImportError>,
}

/// `a − base` as i64: saturated above (such a start is always out of range, as the origin is at most `base`);
/// `None` more than 2⁶³ ns below.
fn offset(a: i128, base: i128) -> Option<i64> {
    let off = a - base;
    (off >= i128::from(i64::MIN)).then(|| off.min(i128::from(i64::MAX)) as i64)
}

impl<S: PauseSink> Placed<S> {
    /// The offset of `a` to store, recording it in `far` (as index `k`) when it does not fit.
    fn place(&mut self, a: i128, k: usize, phase: bool) -> u64 {
        let base = *self.base.get_or_insert(a);
        match offset(a, base) {
            Some(off) => off as u64,
            None => {
                let far = if phase {
                    &mut self.far_phases
                } else {
                    &mut self.far_pauses
                };
                far.push((k, a));
                0
            }
        }
    }

    /// Places GC `g` of line `line` with its pauses `pauses_ns`, read at capture time `t` (ms; `None` before any
    /// time stamp).
    pub(super) fn gc(&mut self, line: usize, g: &GcRef<'_>, pauses_ns: &[u64], t: Option<i64>) {
        if self.too_many.is_some() {
            return;
        }
        self.gcs += 1;
        let sum = pauses_ns.iter().fold(0u64, |a, &p| a.saturating_add(p));
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
        self.min_start = Some(self.min_start.map_or(start, |m| m.min(start)));
        let name = g.pid.unwrap_or_default();
        let mutator = match (self.mutators).mutator(&mut self.out.mutators, name, "", || line) {
            Ok(m) => m,
            Err(e) => {
                // Kept for `finish`, which names the file; the GCs after it are not placed.
                self.too_many.get_or_insert(e);
                return;
            }
        };
        let (kind, cause) = if S::NAMES {
            match g.dialect {
                Dialect::Dalvik => (g.reason.to_string(), None),
                Dialect::Art => (
                    g.collector.unwrap_or("GC").to_string(),
                    Some(g.reason.to_string()),
                ),
            }
        } else {
            (String::new(), None)
        };
        if total > sum {
            if S::WHOLE_PHASES {
                let off = self.place(start, self.out.concurrent.len(), true);
                self.out.concurrent.push(ConcurrentPhase {
                    start_ns: off,
                    end_ns: total,
                    name: kind.clone(),
                    line,
                    ..ConcurrentPhase::default()
                });
            } else {
                let base = *self.base.get_or_insert(start);
                self.union.push(start - base, total);
            }
        }
        // First pause at the GC start; the others back to back, ending at the GC end.
        let mut at = end
            - pauses_ns
                .iter()
                .skip(1)
                .map(|&p| i128::from(p))
                .sum::<i128>();
        for (k, &p) in pauses_ns.iter().enumerate() {
            let a = if k == 0 {
                start
            } else {
                at += i128::from(p);
                at - i128::from(p)
            };
            let off = self.place(a, self.out.pauses.len(), false);
            self.max_end_off = self.max_end_off.max(i128::from(off as i64) + i128::from(p));
            let pause = Pause {
                start_ns: off,
                end_ns: p,
                mutator,
                kind: kind.clone(),
                cause: cause.clone(),
                heap_after_bytes: g.heap_used_bytes,
                heap_total_bytes: g.heap_total_bytes,
                heap_before_bytes: g
                    .heap_used_bytes
                    .zip(g.freed_bytes)
                    .and_then(|(u, f)| u.checked_add(f)),
                line,
                ..Pause::default()
            };
            self.out.pauses.push(pause);
        }
    }
}

/// Start number `k` on the capture's clock: `base` plus the stored offset, or the exact start kept aside.
fn start_of(
    far: &mut std::iter::Peekable<std::vec::IntoIter<(usize, i128)>>,
    k: usize,
    base: i128,
    off: u64,
) -> i128 {
    match far.next_if(|f| f.0 == k) {
        Some((_, a)) => a,
        None => base + i128::from(off as i64),
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
    if let Some(e) = &placed.too_many {
        return Err(ImportError::new(file, e.line, e.kind.clone()));
    }
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
        union,
        base,
        far_pauses,
        far_phases,
        min_start,
        max_end_off,
        last_line_ns,
        ..
    } = placed;
    let base = base.unwrap_or(0);
    let origin = min_start.unwrap_or(0).min(last_line_ns);
    let in_range = |ns: i128| u64::try_from(ns).ok().filter(|&v| v < MAX_TIME_NS);
    // Every start an offset from `base` (none kept aside) and every end in range: each pause moves by the same
    // amount, which a sink on disk applies as it reads them back instead of rewriting them all. Every start is
    // at or after the origin (the earliest start), so only the latest end needs checking.
    if far_pauses.is_empty() && base - origin + max_end_off < i128::from(MAX_TIME_NS) {
        out.pauses.place_all(base - origin);
    } else {
        // `retain_mut` visits the pauses in order, so the k-th visit is the k-th pause.
        let mut far = far_pauses.into_iter().peekable();
        let mut k = 0;
        out.pauses.retain_mut(|p| {
            let a = start_of(&mut far, k, base, p.start_ns);
            k += 1;
            // Stamps more than 146 years apart (a garbled date) cannot all be placed: the far ones are skipped.
            let Some(end) = in_range(a - origin + i128::from(p.end_ns)) else {
                warnings.skip(p.line, OUT_OF_RANGE);
                return false;
            };
            p.start_ns = end - p.end_ns;
            p.end_ns = end;
            true
        });
    }
    if S::WHOLE_PHASES {
        let mut far = far_phases.into_iter().peekable();
        let mut k = 0;
        out.concurrent.retain_mut(|c| {
            let a = start_of(&mut far, k, base, c.start_ns);
            k += 1;
            // Skipped with the GC's pauses when out of range (above).
            if let (Some(a), Some(b)) = (
                in_range(a - origin),
                in_range(a - origin + i128::from(c.end_ns)),
            ) {
                c.start_ns = a;
                c.end_ns = b;
                true
            } else {
                false
            }
        });
        out.concurrent.sort_by_key(|c| (c.start_ns, c.line));
    } else {
        let spans = S::PHASE_SPANS.then_some(&mut out.concurrent_union);
        let counted = union.finish(origin - base, spans).map_err(|e| {
            ImportError::new(file, 1, ImportErrorKind::Io(format!("temporary file: {e}")))
        })?;
        out.concurrent_counted = Some(counted);
    }
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
