//! What the importers produce: pauses ([`Pause`], kept whole or as spans, see [`PauseSink`]), heap transitions,
//! concurrent phases and safepoints of a log ([`PauseSeries`]), utilisation step functions ([`UtilizationSeries`]),
//! and the two together as [`Imported`], with the step functions and pause statistics the MMU is measured on.

use super::{MAX_TIME_NS, PauseSink, Warnings};
use crate::metrics::mmu::{Steps, UtilSeries};

/// One stop-the-world pause of one mutator.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pause {
    /// Start. `[ns]`
    pub start_ns: u64,
    /// End. `[ns]`
    pub end_ns: u64,
    /// Index into [`PauseSeries::mutators`].
    pub mutator: usize,
    /// What kind of pause (`Pause Young (Normal)`, `Pause Mark Start`, `GC_CONCURRENT`, `stw_sweep_termination`).
    pub kind: String,
    /// Why it happened (`G1 Evacuation Pause`, `Allocation Failure`, `Background`), when logged.
    pub cause: Option<String>,
    /// The collector's cycle number (`GC(12)`), when logged.
    pub gc_id: Option<u64>,
    /// Heap occupancy before, after, and heap size. `[bytes]`
    pub heap_before_bytes: Option<u64>,
    /// Heap occupancy after the pause. `[bytes]`
    pub heap_after_bytes: Option<u64>,
    /// Heap capacity. `[bytes]`
    pub heap_total_bytes: Option<u64>,
    /// 1-based line of the input it came from.
    pub line: usize,
}

impl Pause {
    /// Length. `[ns]`
    pub fn duration_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

/// A heap transition a log reports outside a pause line: a whole concurrent cycle (ZGC's
/// `Garbage Collection (Warmup) 34M(13%)->22M(9%)`) or a concurrent phase (Shenandoah's
/// `Concurrent cleanup 60M->41M(64M) 0.076ms`). Pauses carry their own transitions in [`Pause`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeapChange {
    /// When occupancy was `before_bytes` (the cycle's or phase's start). `[ns]`
    pub start_ns: u64,
    /// When it was `after_bytes` (its end). `[ns]`
    pub end_ns: u64,
    /// Occupancy before. `[bytes]`
    pub before_bytes: u64,
    /// Occupancy after. `[bytes]`
    pub after_bytes: u64,
    /// Heap capacity, when logged (ZGC: its `Capacity:` row). `[bytes]`
    pub total_bytes: Option<u64>,
    /// What changed it (`Garbage Collection (Warmup)`, `Concurrent cleanup`).
    pub what: String,
    /// The collector's cycle number, when logged.
    pub gc_id: Option<u64>,
    /// 1-based line.
    pub line: usize,
}

/// A concurrent phase: the collector working beside the mutators (`Concurrent Mark 24.851ms`), not a pause.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConcurrentPhase {
    /// Start (end minus the logged duration). `[ns]`
    pub start_ns: u64,
    /// End (the line's time stamp). `[ns]`
    pub end_ns: u64,
    /// The phase as logged (`Concurrent Mark`, `Concurrent marking (unload classes)`).
    pub name: String,
    /// The collector's cycle number, when logged.
    pub gc_id: Option<u64>,
    /// 1-based line.
    pub line: usize,
}

/// A safepoint: every Java thread stopped for a VM operation — a collection's pause or something else
/// (`Safepoint "G1CollectForAllocation", Time since last: …, Total: 15799351 ns`; JDK 9–16's
/// `Total time for which application threads were stopped: X seconds`). Its time includes reaching the safepoint.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Safepoint {
    /// Start (end minus the logged total). `[ns]`
    pub start_ns: u64,
    /// End (the line's time stamp). `[ns]`
    pub end_ns: u64,
    /// The VM operation (`G1CollectForAllocation`, `ZMarkStart`, `Cleanup`; `stopped` for the JDK 9–16 form).
    pub operation: String,
    /// 1-based line.
    pub line: usize,
}

/// Length of the union of `spans` (overlapping and nested spans count once). `[ns]`
pub fn covered_ns(spans: impl IntoIterator<Item = (u64, u64)>) -> u64 {
    union_ns(spans).iter().map(|(a, b)| b - a).sum()
}

/// The union of `(start, end)` spans in any order, as disjoint spans in time order (empty spans left out). `[ns]`
pub fn union_ns(spans: impl IntoIterator<Item = (u64, u64)>) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = spans.into_iter().filter(|(a, b)| b > a).collect();
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
    for (a, b) in v {
        extend_union(&mut out, a, b);
    }
    out
}

/// Adds the span `[a, b)`, given in start order, to `union` (disjoint spans in time order); an empty span adds
/// nothing. `[ns]`
pub(super) fn extend_union(union: &mut Vec<(u64, u64)>, a: u64, b: u64) {
    if b <= a {
        return;
    }
    match union.last_mut() {
        Some(last) if a <= last.1 => last.1 = last.1.max(b),
        _ => union.push((a, b)),
    }
}

/// An MMU table a runtime logged itself (ZGC's `MMU: 2ms/92.4%, …`).
#[derive(Debug, Clone, PartialEq)]
pub struct ReportedMmu {
    /// 1-based line.
    pub line: usize,
    /// Time of the line (same clock as the pauses). `[ns]`
    pub time_ns: u64,
    /// `GC(n)` of the line.
    pub gc_id: Option<u64>,
    /// `(window, utilisation in percent)`. `[ns]`
    pub points: Vec<(u64, f64)>,
}

/// Pauses of one or more mutators, with the observation span they were taken over; the pauses are kept whole
/// (`Vec<Pause>`) or as [`PauseSpans`] (what the MMU needs).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PauseSeries<S = Vec<Pause>> {
    /// Pauses in input order.
    pub pauses: S,
    /// Mutator names (pids, `mutator` column values); at least one.
    pub mutators: Vec<String>,
    /// The default observation span. `[ns]`
    pub span_ns: (u64, u64),
    /// MMU tables logged by the runtime itself.
    pub reported_mmu: Vec<ReportedMmu>,
    /// Heap transitions logged outside pause lines, in time order.
    pub heap_changes: Vec<HeapChange>,
    /// Concurrent phases, in time order (nested phases, such as G1's `Concurrent Mark Cycle` and its parts, are
    /// all kept).
    pub concurrent: Vec<ConcurrentPhase>,
    /// The concurrent phases counted instead of kept, by an importer filling a sink that keeps no phases
    /// ([`PauseSink::PHASES`]): how many, and the time some phase runs (`concurrent` is then empty). `[ns]`
    pub concurrent_counted: Option<(usize, u64)>,
    /// The union of the concurrent phases' spans, disjoint and in time order, for a sink that keeps only that
    /// ([`PauseSink::PHASE_SPANS`]; else empty). `[ns]`
    pub concurrent_union: Vec<(u64, u64)>,
    /// The heap transitions counted instead of kept (`heap_changes` is then empty), as `concurrent_counted`.
    pub heap_changes_counted: Option<usize>,
    /// Safepoints with a time stamp, in time order (HotSpot `-Xlog:safepoint`).
    pub safepoints: Vec<Safepoint>,
    /// The safepoints counted instead of kept (`safepoints` is then empty): how many, and the time they stop the
    /// program in all. `[ns]`
    pub safepoints_counted: Option<(usize, u64)>,
    /// Lines not used and notes.
    pub warnings: Warnings,
}

impl<S: PauseSink> PauseSeries<S> {
    /// The concurrent phases: how many, and the time some phase runs (the length of their union). `[ns]`
    pub fn concurrent_stats(&self) -> (usize, u64) {
        self.concurrent_counted.unwrap_or_else(|| {
            (
                self.concurrent.len(),
                covered_ns(self.concurrent.iter().map(|c| (c.start_ns, c.end_ns))),
            )
        })
    }

    /// Heap transitions logged outside pauses, kept or counted.
    pub fn heap_change_count(&self) -> usize {
        self.heap_changes_counted.unwrap_or(self.heap_changes.len())
    }

    /// The safepoints, kept or counted: how many, and the time they stop the program in all. `[ns]`
    pub fn safepoint_stats(&self) -> (usize, u64) {
        self.safepoints_counted.unwrap_or_else(|| {
            (
                self.safepoints.len(),
                self.safepoints.iter().map(|s| s.end_ns - s.start_ns).sum(),
            )
        })
    }

    /// One utilisation step function per mutator over `span` (pauses clipped to it).
    pub fn util_series(&self, span: (u64, u64)) -> Vec<UtilSeries> {
        // One pass dealing the pauses to their mutators (a pass per mutator was quadratic in a file naming a new
        // mutator on every row).
        let mut per: Vec<Vec<(u64, u64)>> = vec![Vec::new(); self.mutators.len().max(1)];
        for (a, b, m) in self.pauses.spans() {
            if let Some(p) = per.get_mut(m) {
                p.push((a, b));
            }
        }
        (per.iter())
            .map(|p| UtilSeries::from_pauses(p, span.0, span.1))
            .collect()
    }
}

/// A utilisation step function per series (processor or mutator).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UtilizationSeries {
    /// Series names (the `series` column, or `""`).
    pub names: Vec<String>,
    /// One step function per name (in memory, or on disk for a sink that measures: [`PauseSink::STEPS_ON_DISK`]).
    pub series: Vec<Steps>,
    /// Notes.
    pub warnings: Warnings,
}

impl UtilizationSeries {
    /// The step functions restricted to `span` (clamped below [`MAX_TIME_NS`], as [`Imported::util_series`]), each
    /// handed on unchanged where the span covers it ([`Steps::into_clipped`]). Errors are the temporary files'.
    pub fn into_clipped(self, span: (u64, u64)) -> std::io::Result<Vec<Steps>> {
        let span = (span.0.min(MAX_TIME_NS), span.1.min(MAX_TIME_NS));
        (self.series.into_iter())
            .map(|s| s.into_clipped(span.0, span.1))
            .collect()
    }
}

/// Pause count and longest pause inside a span.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PauseStats {
    /// Pauses (or stretches at utilisation 0) overlapping the span.
    pub pauses: usize,
    /// Longest of them, clipped to the span. `[ns]`
    pub max_pause_ns: u64,
}

/// What an importer produced (the pauses kept as `S`, see [`PauseSink`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Imported<S = Vec<Pause>> {
    /// A pause list.
    Pauses(PauseSeries<S>),
    /// A utilisation step function.
    Util(UtilizationSeries),
}

impl<S: PauseSink> Imported<S> {
    /// The default observation span: the pause list's, or the union of the series' spans. `[ns]`
    pub fn default_span_ns(&self) -> (u64, u64) {
        match self {
            Imported::Pauses(p) => p.span_ns,
            Imported::Util(u) => {
                let spans = u.series.iter().filter(|s| s.len() >= 2).map(Steps::span);
                spans
                    .fold(None, |acc: Option<(u64, u64)>, (a, b)| {
                        Some(acc.map_or((a, b), |(x, y)| (x.min(a), y.max(b))))
                    })
                    .unwrap_or((0, 0))
            }
        }
    }

    /// The step functions to measure over `span`. `[ns]`
    pub fn util_series(&self, span: (u64, u64)) -> Vec<UtilSeries> {
        // The exact MMU works below MAX_TIME_NS (its sums would overflow beyond): a span reaching past it is
        // clamped, as every imported time is below it anyway.
        let span = (span.0.min(MAX_TIME_NS), span.1.min(MAX_TIME_NS));
        match self {
            Imported::Pauses(p) => p.util_series(span),
            Imported::Util(u) => (u.series.iter())
                .map(|s| s.to_series().into_clipped(span.0, span.1))
                .collect(),
        }
    }

    /// Pauses overlapping `span` and the longest (for a step function: stretches at utilisation 0).
    pub fn pause_stats(&self, span: (u64, u64)) -> PauseStats {
        let mut st = PauseStats::default();
        let mut add = |a: u64, b: u64| {
            let (a, b) = (a.max(span.0), b.min(span.1));
            if b > a {
                st.pauses += 1;
                st.max_pause_ns = st.max_pause_ns.max(b - a);
            }
        };
        match self {
            Imported::Pauses(p) => p.pauses.spans().for_each(|(a, b, _)| add(a, b)),
            Imported::Util(u) => {
                for s in &u.series {
                    let mut zero_from = None;
                    for (k, (t, v)) in s.iter().enumerate() {
                        let last = k + 1 == s.len();
                        match (v == 0.0 && !last, zero_from) {
                            (true, None) => zero_from = Some(t),
                            (false, Some(a)) => {
                                add(a, t);
                                zero_from = None;
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        st
    }

    /// Lines not used and notes.
    pub fn warnings(&self) -> &Warnings {
        match self {
            Imported::Pauses(p) => &p.warnings,
            Imported::Util(u) => &u.warnings,
        }
    }

    /// MMU tables the runtime logged itself (ZGC).
    pub fn reported_mmu(&self) -> &[ReportedMmu] {
        match self {
            Imported::Pauses(p) => &p.reported_mmu,
            Imported::Util(_) => &[],
        }
    }
}
