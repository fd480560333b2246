//! Minimum mutator utilisation, exact. For a window length w, MMU(w) is the minimum over window positions
//! `[s, s+w]` inside the observation span of the mean utilisation in the window (SYSTOR'15 §2.4.2; Cheng & Blelloch
//! 2001). Utilisation is a step function (1 − share of the mutator stopped); the windowed mean is piecewise linear
//! in s with breakpoints where either window edge meets a step, so its minimum is at a breakpoint where the slope
//! turns from falling to rising — the left edge on a falling step or the right edge on a rising step — or at an end
//! of the range of starts. Every such candidate is evaluated; nothing is sampled. With several series (mutators,
//! processors) the MMU is the minimum over the series.
//!
//! [`MmuCurve::mmu`] prunes with bounds and sweeps the rest. Each series is cut into equal *fine bands* of about
//! two steps; windows starting in a band can lose at most the time lost in the bands they can touch, which gives
//! a lower bound per band (and per group of 4ᵏ bands) from prefix sums alone. Groups and bands whose bound is not
//! below the running minimum are skipped; the others are swept exactly, the left edge on every falling step and
//! the right edge on every rising step, the other edge found by a forward cursor (two pointers, no searches).
//! Windows no longer than the longest stretch at utilisation 0 have MMU 0 without a search.
//!
//! [`MmuCurve::worst`] finds the five worst disjoint windows the way Go's `internal/trace` does
//! (`MMUCurve.Examples`, BSD licence, re-implemented here): 1000 bands with Go's bound, refined from the lowest
//! bound up through Go's `container/heap`, the same skip rule and the same keep-the-first overlap rule, so it
//! picks Go's windows; [`MmuCurve::worst_go`] also keeps Go's two quirks (see there) for comparisons.
//!
//! Times are integer nanoseconds (below 2⁶², the importers' bound: band arithmetic runs in i128 where a product of
//! two such times could pass 2⁶³); sums are f64 integrals from the first step time, computed as Go does.

mod col;
mod on_cores;
mod on_disk;
mod prepared;
mod steps;
mod sums;
#[cfg(test)]
mod tests;
mod worst;

use crate::io::spill::BLOCK_BYTES;
pub use on_cores::Answers;
pub use on_disk::LiveSteps;
pub use steps::{SPILL_STEPS, Steps, StepsBuilder};

/// The block caches of one view of a curve on disk, in all. `[bytes]`
const VIEW_CACHE_BYTES: usize = 16 << 20;
use prepared::{Best, Prepared};
use worst::Acc;

/// A utilisation step function: `util[i]` holds on `[times[i], times[i+1])`; the last time ends the series.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UtilSeries {
    /// Step times, ascending. `[ns]`
    pub times: Vec<u64>,
    /// Utilisation of each step in [0, 1] (the last entry only marks the end; it is treated as 0, as Go does).
    pub util: Vec<f64>,
}

impl UtilSeries {
    /// The step function of one mutator stopped during `pauses` (`[start, end)` ns, any order, may overlap) over
    /// the span `[span_start, span_end]`; pauses are clipped to the span.
    pub fn from_pauses(pauses: &[(u64, u64)], span_start: u64, span_end: u64) -> Self {
        let mut p: Vec<(u64, u64)> = pauses
            .iter()
            .map(|&(a, b)| (a.max(span_start), b.min(span_end)))
            .filter(|(a, b)| b > a)
            .collect();
        p.sort_unstable();
        let mut times = Vec::with_capacity(2 * p.len() + 2);
        let mut util = Vec::with_capacity(2 * p.len() + 2);
        let mut emit = |t, u| {
            times.push(t);
            util.push(u);
        };
        let mut steps = StepsFromPauses::new(span_start);
        for (a, b) in p {
            steps.pause(a, b, &mut emit);
        }
        steps.finish(span_end, &mut emit);
        UtilSeries { times, util }
    }

    /// Start and end of the series. `[ns]`
    pub fn span(&self) -> (u64, u64) {
        (
            self.times.first().copied().unwrap_or(0),
            self.times.last().copied().unwrap_or(0),
        )
    }

    /// The series restricted to `[a, b]` (unchanged when it already lies inside; empty when it does not overlap).
    pub fn clipped(&self, a: u64, b: u64) -> UtilSeries {
        let (s0, s1) = self.span();
        if a <= s0 && b >= s1 {
            return self.clone();
        }
        self.clip_inside(a, b)
    }

    /// [`UtilSeries::clipped`] taking the series: one the span covers is handed back as it is, without a copy (a
    /// utilisation CSV's steps are the input's size: a 100 MB file's copy was a third of `gclab mmu`'s memory).
    pub fn into_clipped(self, a: u64, b: u64) -> UtilSeries {
        let (s0, s1) = self.span();
        if a <= s0 && b >= s1 {
            return self;
        }
        self.clip_inside(a, b)
    }

    /// The part of the series inside `[a, b]`, which does not cover it.
    fn clip_inside(&self, a: u64, b: u64) -> UtilSeries {
        let mut out = UtilSeries::default();
        let steps = |k| {
            (self.times.iter().copied())
                .zip(self.util.iter().copied())
                .skip(k)
        };
        let clipped = steps::clip_steps(
            self.times.len(),
            self.span(),
            (a, b),
            |lo| self.times.partition_point(|&t| t <= lo),
            steps,
            |t, u| {
                out.times.push(t);
                out.util.push(u);
                Ok::<(), std::convert::Infallible>(())
            },
        );
        let Ok(()) = clipped;
        out
    }
}

/// The steps of one mutator made from its pauses as they come, sorted by `(start, end)`, clipped to the span and
/// not empty ([`UtilSeries::from_pauses`] in memory, [`MmuCurve::from_pauses_on_disk`] streamed): a pause
/// overlapping or touching the previous one extends it, so the last step is held back until the next comes.
#[derive(Debug)]
pub(super) struct StepsFromPauses {
    /// The step held back: time, utilisation. `[ns]`
    last: (u64, f64),
    /// Steps so far, the held one included.
    n: usize,
    span_start: u64,
}

impl StepsFromPauses {
    pub(super) fn new(span_start: u64) -> Self {
        StepsFromPauses {
            last: (span_start, 1.0),
            n: 1,
            span_start,
        }
    }

    fn push(&mut self, step: (u64, f64), emit: &mut impl FnMut(u64, f64)) {
        emit(self.last.0, self.last.1);
        self.last = step;
        self.n += 1;
    }

    /// Adds the pause `[a, b)`.
    pub(super) fn pause(&mut self, a: u64, b: u64, emit: &mut impl FnMut(u64, f64)) {
        if self.n >= 2 && a <= self.last.0 {
            // Overlaps or touches the previous pause, whose end is the held step: merge.
            self.last.0 = self.last.0.max(b);
        } else if self.n == 1 && a == self.span_start {
            self.last.1 = 0.0;
            self.push((b, 1.0), emit);
        } else {
            self.push((a, 0.0), emit);
            self.push((b, 1.0), emit);
        }
    }

    /// Ends the series at `span_end` and emits the held step.
    pub(super) fn finish(mut self, span_end: u64, emit: &mut impl FnMut(u64, f64)) {
        if self.last.0 < span_end {
            self.push((span_end, 1.0), emit);
        }
        emit(self.last.0, self.last.1);
    }
}

/// A window with its utilisation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowUtil {
    /// Window start. `[ns]`
    pub start_ns: u64,
    /// Mean utilisation in it, 0–1.
    pub utilization: f64,
    /// Series (mutator) index it belongs to.
    pub series: usize,
}

/// Several series prepared once for many window queries: O(n) to build (prefix sums, Go's 1000 bands, about n/2
/// fine bands); then each [`MmuCurve::mmu`] visits the bands whose bound is below the running minimum and each
/// [`MmuCurve::worst`] replays Go's band refinement.
#[derive(Debug)]
pub struct MmuCurve<'a> {
    series: Vec<(usize, Prepared<'a>)>,
    start_ns: u64,
}

impl<'a> MmuCurve<'a> {
    /// Prepares `series` (series with fewer than two steps, no duration or unsorted times are left out).
    pub fn new(series: &'a [UtilSeries]) -> Self {
        MmuCurve {
            series: series
                .iter()
                .enumerate()
                .filter_map(|(i, s)| Prepared::new(s).map(|p| (i, p)))
                .collect(),
            start_ns: series.iter().map(|s| s.span().0).min().unwrap_or(0),
        }
    }

    /// [`MmuCurve::new`] taking `series`: a curve that owns its steps, to keep beside what it measures and ask
    /// again (the app's MinMU curve and its worst windows share one).
    pub fn owned(series: Vec<UtilSeries>) -> MmuCurve<'static> {
        let start_ns = series.iter().map(|s| s.span().0).min().unwrap_or(0);
        MmuCurve {
            series: series
                .into_iter()
                .enumerate()
                .filter_map(|(i, s)| Prepared::owned(s).map(|p| (i, p)))
                .collect(),
            start_ns,
        }
    }

    /// The same curve, borrowed, with its own block caches for the arrays on disk (nothing is copied but the
    /// caches' handles): views can be moved to other threads and queried beside one another and beside `self`,
    /// each answer the same as `self`'s. The I/O errors of any are seen by all ([`MmuCurve::error`]).
    pub fn view(&self) -> MmuCurve<'_> {
        // The view's block caches share VIEW_CACHE_BYTES: 32 blocks per array for a few arrays on disk, fewer for
        // hundreds of series on disk (600 mutators once held 256 KiB per array per view: 300 MB).
        let arrays: usize = self.series.iter().map(|(_, p)| p.arrays_on_disk()).sum();
        let blocks = VIEW_CACHE_BYTES / BLOCK_BYTES / arrays.max(1);
        MmuCurve {
            series: (self.series.iter())
                .map(|(i, p)| (*i, p.view(blocks.max(4))))
                .collect(),
            start_ns: self.start_ns,
        }
    }

    /// Steps in all series: what a query's time grows with (a worst-window search over a 1 GB pause CSV's
    /// 39 M steps takes about 0.8 s on one core).
    pub fn steps(&self) -> usize {
        self.series.iter().map(|(_, p)| p.times.len()).sum()
    }

    /// Whether every window's utilised time is an exact integer of nanoseconds (every series' utilisations are 0
    /// or 1 and its span is below 2⁵³ ns, as for any list of pauses): then every way of computing a window's
    /// utilisation gives the same bits, and the first of [`MmuCurve::worst`]'s windows, the lowest (Go's search
    /// is exact too), has bit for bit the utilisation [`MmuCurve::mmu`] finds — `gclab mmu` asks only the one.
    pub fn exact(&self) -> bool {
        !self.series.is_empty() && self.series.iter().all(|(_, p)| p.exact)
    }

    fn window_of(&self, k: usize, w_ns: u64) -> i64 {
        let p = &self.series[k].1;
        (w_ns.min(i64::MAX as u64) as i64).min(p.end() - p.t(0))
    }

    /// Exact MMU at window `w_ns` (clamped to each series' span): the minimum and where it is. 1 when there is
    /// nothing to measure; 0 for a zero window.
    pub fn mmu(&self, w_ns: u64) -> WindowUtil {
        let mut best = Best {
            mu: 1.0,
            at: self.start_ns as i64,
            series: 0,
        };
        if w_ns == 0 {
            best.mu = 0.0;
        }
        for (k, (_, p)) in self.series.iter().enumerate() {
            if best.mu == 0.0 {
                break;
            }
            let w = self.window_of(k, w_ns);
            if w <= p.zero_run.0 {
                best = Best {
                    mu: 0.0,
                    at: p.zero_run.1,
                    series: k,
                };
                break;
            }
            for s in [p.t(0), p.end() - w] {
                let mu = p.window_num(s, w) / w as f64;
                if mu < best.mu {
                    best = Best {
                        mu,
                        at: s,
                        series: k,
                    };
                }
            }
            let dur = p.fine.dur;
            let q = p.query(w, k);
            // Groups of 4^k fine bands prune only when a group is much shorter than the window; the lowest bound
            // is refined first so that the minimum is low early, then everything in time order.
            let mut top = 1;
            // In i128: a band of a span near 2⁶² ns times 8·top would overflow 64 bits.
            while 8 * top as i128 * i128::from(dur) <= i128::from(w) && (q.last_band + 1) / top > 16
            {
                top *= 4;
            }
            if top == 1 {
                // Seed with the windows around the longest stop (starting at it, ending with it): cheaper than a
                // greedy pass over every band, and for short windows usually the worst place.
                let (len, at) = p.zero_run;
                for s in [at, at + len - w] {
                    let i = ((s.clamp(p.t(0), p.end() - w) - p.t(0)) / dur) as usize;
                    p.sweep(i.min(q.last_band), &q, &mut best);
                }
                p.scan(&q, &mut best);
            } else {
                p.greedy(top, &q, &mut best);
                for i in (0..=q.last_band).step_by(top) {
                    p.visit(i, top, &q, &mut best);
                }
            }
        }
        WindowUtil {
            start_ns: best.at.max(0) as u64,
            utilization: best.mu.clamp(0.0, 1.0),
            series: self.series.get(best.series).map_or(0, |s| s.0),
        }
    }

    /// The `k` worst disjoint windows of `w_ns`, worst first (ties: earlier first), chosen as Go's
    /// `MMUCurve.Examples` chooses them — bands in order of their lower bound, a window kept unless it overlaps a
    /// kept one that is at least as bad, the least bad dropped when more than `k` are kept — but compared with
    /// every kept window (Go compares with the first overlapping one only) and never past the end of a series.
    pub fn worst(&self, w_ns: u64, k: usize) -> Vec<WindowUtil> {
        self.examples(w_ns, &mut Acc::new(k, false))
    }

    /// Exactly Go 1.19's `MMUCurve.Examples(w, k)`, quirks included: the windows can overlap (even repeat) when
    /// a new window overlaps two kept ones, and one can start past the end of the series. For comparing with
    /// `go tool trace`; prefer [`MmuCurve::worst`].
    pub fn worst_go(&self, w_ns: u64, k: usize) -> Vec<WindowUtil> {
        self.examples(w_ns, &mut Acc::new(k, true))
    }
}

/// Exact MMU of `series` at window `w_ns` (clamped to the span); the minimum and where it is. For many windows
/// build one [`MmuCurve`] instead.
pub fn mmu_at(series: &[UtilSeries], w_ns: u64) -> WindowUtil {
    MmuCurve::new(series).mmu(w_ns)
}

/// The `k` worst windows of length `w_ns` that do not overlap, worst first (as Go's `worst_*.csv`).
pub fn worst_windows(series: &[UtilSeries], w_ns: u64, k: usize) -> Vec<WindowUtil> {
    MmuCurve::new(series).worst(w_ns, k)
}

/// The default log-spaced windows: 1-2-5 steps from 0.1 ms up to the span, and the span itself. `[ns]`
pub fn default_windows_ns(span_ns: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut decade: u64 = 100_000;
    'outer: loop {
        for m in [1u64, 2, 5] {
            let w = decade.saturating_mul(m);
            if w >= span_ns {
                break 'outer;
            }
            out.push(w);
        }
        decade = decade.saturating_mul(10);
    }
    if span_ns > 0 {
        out.push(span_ns);
    }
    out
}
