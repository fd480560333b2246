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
//! Times are integer nanoseconds (below 2⁶³); sums are f64 integrals from the first step time, computed as Go does.

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
        times.push(span_start);
        util.push(1.0);
        for (a, b) in p {
            let n = times.len();
            if n >= 2 && a <= times[n - 1] {
                // Overlaps or touches the previous pause, whose end is the last entry: merge.
                times[n - 1] = times[n - 1].max(b);
            } else if n == 1 && a == span_start {
                util[0] = 0.0;
                times.push(b);
                util.push(1.0);
            } else {
                times.extend([a, b]);
                util.extend([0.0, 1.0]);
            }
        }
        if times.last().copied().unwrap_or(span_start) < span_end {
            times.push(span_end);
            util.push(1.0);
        }
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
        let (lo, hi) = (a.max(s0), b.min(s1));
        if hi <= lo || self.times.len() < 2 {
            return UtilSeries::default();
        }
        let first = self.times.partition_point(|&t| t <= lo).saturating_sub(1);
        let mut out = UtilSeries {
            times: vec![lo],
            util: vec![self.util.get(first).copied().unwrap_or(1.0)],
        };
        for (&t, &u) in self.times.iter().zip(&self.util).skip(first + 1) {
            if t >= hi {
                break;
            }
            out.times.push(t);
            out.util.push(u);
        }
        out.times.push(hi);
        out.util.push(0.0);
        out
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

/// Number of bands per series (Go's `bandsPerSeries`): keeps [`MmuCurve::worst`] identical to Go.
const BANDS_PER_SERIES: usize = 1000;
/// Steps per band of the finer band set that [`MmuCurve::mmu`] prunes with.
const STEPS_PER_FINE_BAND: usize = 2;

#[derive(Debug, Clone, Copy)]
struct Band {
    /// Lowest utilisation of a step that holds somewhere in the band.
    min_util: f64,
    /// Integral of utilisation from the series start to the band start. `[ns]`
    cum_util: f64,
    /// Index of the step holding at the band start.
    pos: usize,
}

/// Equal bands over a series: `bands[i]` starts at `t0 + i·dur`; one extra band past the end holds the total.
#[derive(Debug, Default)]
struct Bands {
    bands: Vec<Band>,
    dur: i64,
}

/// One series prepared for queries: prefix sums, band summaries, candidate steps.
#[derive(Debug)]
struct Prepared<'a> {
    /// Step times (below 2⁶³). `[ns]`
    times: &'a [u64],
    /// Utilisation of each step; see [`Prepared::u`] for the end marker.
    util: &'a [f64],
    /// `sums[k]` = integral from `times[0]` to `times[k]`. `[ns]`
    sums: Vec<f64>,
    /// Go's 1000 bands (worst windows) and the fine bands (MMU).
    go: Bands,
    fine: Fine,
    /// Steps where utilisation falls (candidate left edges) and rises (candidate right edges).
    falls: Vec<u32>,
    rises: Vec<u32>,
    /// Longest stretch at utilisation 0 and its start: windows up to that long have MMU 0. `[ns]`
    zero_run: (i64, i64),
}

/// Fine bands of equal duration, about [`STEPS_PER_FINE_BAND`] steps each, plus one past the end.
#[derive(Debug, Default)]
struct Fine {
    dur: i64,
    /// Integral from the series start to each band start. `[ns]`
    cum: Vec<f64>,
    /// Last step at or before each band start.
    pos: Vec<u32>,
    /// First fall / rise at or after each band start.
    fall_lo: Vec<u32>,
    rise_lo: Vec<u32>,
}

impl<'a> Prepared<'a> {
    fn new(s: &'a UtilSeries) -> Option<Self> {
        let n = s.times.len().min(s.util.len());
        let times = &s.times[..n];
        let ok = n >= 2 && n < u32::MAX as usize && times[n - 1] > times[0];
        if !ok || times.windows(2).any(|w| w[1] < w[0]) || times[n - 1] >= i64::MAX as u64 {
            return None;
        }
        let mut p = Prepared {
            times,
            util: &s.util[..n],
            sums: Vec::with_capacity(n),
            go: Bands::default(),
            fine: Fine::default(),
            falls: Vec::new(),
            rises: Vec::new(),
            zero_run: (0, 0),
        };
        let mut sum = 0.0;
        p.sums.push(0.0);
        for k in 1..n {
            sum += p.util[k - 1] * (times[k] - times[k - 1]) as f64;
            p.sums.push(sum);
            if p.u(k) < p.u(k - 1) {
                p.falls.push(k as u32);
            } else if p.u(k) > p.u(k - 1) {
                p.rises.push(k as u32);
            }
        }
        let mut run_start = None;
        for k in 0..n {
            match (p.u(k) == 0.0 && k + 1 < n, run_start) {
                (true, None) => run_start = Some(p.t(k)),
                (false, Some(a)) => {
                    if p.t(k) - a > p.zero_run.0 {
                        p.zero_run = (p.t(k) - a, a);
                    }
                    run_start = None;
                }
                _ => {}
            }
        }
        p.go = p.bands(BANDS_PER_SERIES.min(n));
        p.fine = p.fine_bands((n / STEPS_PER_FINE_BAND).max(1));
        Some(p)
    }

    fn fine_bands(&self, num_bands: usize) -> Fine {
        let dur = self.end() - self.t(0);
        let mut f = Fine {
            dur: ((dur + num_bands as i64 - 1) / num_bands as i64).max(1),
            ..Fine::default()
        };
        let (mut pos, mut fall, mut rise) = (0, 0, 0);
        for i in 0..=num_bands {
            let start = self.t(0) + i as i64 * f.dur;
            f.cum.push(self.advance(&mut pos, start));
            f.pos.push(pos as u32);
            while self
                .falls
                .get(fall)
                .is_some_and(|&k| self.t(k as usize) < start)
            {
                fall += 1;
            }
            while self
                .rises
                .get(rise)
                .is_some_and(|&k| self.t(k as usize) < start)
            {
                rise += 1;
            }
            f.fall_lo.push(fall as u32);
            f.rise_lo.push(rise as u32);
        }
        f
    }

    /// `num_bands` equal bands plus one past the end (Go's `newMMUSeries`).
    fn bands(&self, num_bands: usize) -> Bands {
        let n = self.util.len();
        let dur = self.end() - self.t(0);
        let mut out = Bands {
            bands: Vec::with_capacity(num_bands + 1),
            dur: ((dur + num_bands as i64 - 1) / num_bands as i64).max(1),
        };
        let mut pos = 0;
        for i in 0..=num_bands {
            let start = self.band_start(&out, i);
            let cum_util = self.advance(&mut pos, start);
            let mut min_util: f64 = 1.0;
            let mut k = pos;
            while k < n && self.t(k) < start + out.dur {
                min_util = min_util.min(self.u(k));
                k += 1;
            }
            out.bands.push(Band {
                min_util,
                cum_util,
                pos,
            });
        }
        out
    }

    /// Step `k`'s time. `[ns]`
    fn t(&self, k: usize) -> i64 {
        self.times[k] as i64
    }

    /// Step `k`'s utilisation; the end marker counts as 0 (Go's final event), which matters only past the end.
    fn u(&self, k: usize) -> f64 {
        if k + 1 >= self.util.len() {
            0.0
        } else {
            self.util[k]
        }
    }

    fn end(&self) -> i64 {
        self.t(self.util.len() - 1)
    }

    fn band_start(&self, b: &Bands, i: usize) -> i64 {
        i as i64 * b.dur + self.t(0)
    }

    /// Integral up to `time`, moving the cursor `pos` to the last step at or before `time` (Go's `advance`:
    /// a short forward scan, else a binary search from the cursor).
    fn advance(&self, pos: &mut usize, time: i64) -> f64 {
        let n = self.util.len();
        if *pos + 8 < n && self.t(*pos + 8) > time {
            while self.t(*pos + 1) <= time {
                *pos += 1;
            }
        } else {
            let from = *pos;
            let ahead = self.times[from..].partition_point(|&t| t as i64 <= time);
            *pos = (from + ahead).saturating_sub(1);
        }
        let tp = self.t(*pos);
        let partial = if time != tp {
            self.u(*pos) * (time - tp) as f64
        } else {
            0.0
        };
        self.sums[*pos] + partial
    }

    /// The first step time after `time`, searching from the cursor (`i64::MAX` when none).
    fn next(&self, pos: usize, time: i64) -> i64 {
        self.times[pos..]
            .iter()
            .map(|&t| t as i64)
            .find(|&t| t > time)
            .unwrap_or(i64::MAX)
    }

    fn pos_at(&self, time: i64) -> usize {
        self.times
            .partition_point(|&t| t as i64 <= time)
            .saturating_sub(1)
    }

    /// Go's lower bound of the utilisation of every window of `w` starting in band `i` (`mkBandUtil`): the band
    /// minima for the partly covered bands, the exact integral for the fully covered ones.
    fn band_bound(&self, b: &Bands, i: usize, w: i64) -> f64 {
        let bd = b.dur;
        let min_bands = ((w + bd - 1) / bd).max(1) as usize;
        let max_bands = ((w + 2 * (bd - 1)) / bd).max(1) as usize;
        let bands = &b.bands;
        let (l, r1, r2) = (
            bands[i].min_util,
            bands[i + min_bands - 1].min_util,
            bands[i + max_bands - 1].min_util,
        );
        let min_band = l.min(r1.min(r2));
        let mut util = if min_bands == 1 {
            min_band * w as f64
        } else {
            let mid = if min_band == l {
                r1.min(r2)
            } else if min_band == r1 {
                l.min(r2)
            } else {
                l.min(r1)
            };
            min_band * bd as f64 + mid * (w % bd) as f64
        };
        if min_bands > 2 {
            util += bands[i + min_bands - 1].cum_util - bands[i + 1].cum_util;
        }
        util / w as f64
    }

    /// Band bounds for windows of `w` in Go's order and form (`mkBandUtil`).
    fn go_bounds(&self, series: usize, w: i64, out: &mut Vec<BandBound>) {
        let max_bands = ((w + 2 * (self.go.dur - 1)) / self.go.dur).max(1) as usize;
        let n_util = (self.go.bands.len() + 1).saturating_sub(max_bands);
        for i in 0..n_util {
            out.push(BandBound {
                series,
                band: i,
                bound: self.band_bound(&self.go, i, w),
            });
        }
    }

    /// Lower bound of the utilisation of windows of `w` starting in fine bands `[i, j)`: one minus the time lost
    /// in every fine band such a window can touch (`m` = most bands one window touches), over `w`. The lost time
    /// is padded by `slack_ns` so that rounding in the prefix sums can never prune a band holding the minimum.
    fn group_bound(&self, i: usize, j: usize, q: &Query) -> f64 {
        1.0 - (self.group_lost(i, j, q) + q.slack_ns) / q.w as f64
    }

    /// Branch and bound over groups of 4ᵏ fine bands, in time order; leaves are swept exactly.
    fn visit(&self, i: usize, g: usize, q: &Query, best: &mut Best) {
        if i > q.last_band || best.mu == 0.0 {
            return;
        }
        let j = (i + g).min(q.last_band + 1);
        if self.group_bound(i, j, q) >= best.mu {
            return;
        }
        if g == 1 {
            self.sweep(i, q, best);
            return;
        }
        for k in 0..4 {
            self.visit(i + k * (g / 4), g / 4, q, best);
        }
    }

    /// Every fine band in order, pruned by its own bound (for windows too short for groups to prune).
    fn scan(&self, q: &Query, best: &mut Best) {
        let cum = &self.fine.cum;
        let reach = (q.m as i64 * self.fine.dur) as f64 + q.slack_ns;
        // Band i can hold a lower window iff cum[i + m] − cum[i] < reach − (1 − best)·w.
        let mut c = reach - (1.0 - best.mu) * q.w as f64;
        for i in 0..=q.last_band {
            let top = i + q.m;
            let prune = if top < cum.len() {
                cum[top] - cum[i] >= c
            } else {
                self.group_bound(i, i + 1, q) >= best.mu
            };
            if !prune {
                self.sweep(i, q, best);
                if best.mu == 0.0 {
                    return;
                }
                c = reach - (1.0 - best.mu) * q.w as f64;
            }
        }
    }

    /// Time lost in the fine bands that windows starting in bands `[i, j)` can touch. `[ns]`
    fn group_lost(&self, i: usize, j: usize, q: &Query) -> f64 {
        let f = &self.fine;
        let top = (j - 1 + q.m).min(f.cum.len() - 1);
        ((top - i) as i64 * f.dur) as f64 - (f.cum[top] - f.cum[i])
    }

    /// Descends from the top group losing the most time to a leaf along the most lost time, and sweeps it.
    fn greedy(&self, top: usize, q: &Query, best: &mut Best) {
        let most_lost = |from: usize, to: usize, g: usize| {
            let (mut at, mut most) = (from, f64::NEG_INFINITY);
            let mut i = from;
            while i <= to.min(q.last_band) {
                let lost = self.group_lost(i, (i + g).min(q.last_band + 1), q);
                if lost > most {
                    (at, most) = (i, lost);
                }
                i += g;
            }
            at
        };
        let mut g = top;
        let mut i = most_lost(0, q.last_band, g);
        while g > 1 {
            g /= 4;
            i = most_lost(i, i + 3 * g, g);
        }
        self.sweep(i, q, best);
    }

    /// Exact minimum over window starts in fine band `i`: the left edge on each fall and the right edge on each
    /// rise inside the band, each with a forward cursor for the other edge.
    fn sweep(&self, i: usize, q: &Query, best: &mut Best) {
        let (times, util, sums, f) = (self.times, self.util, &self.sums, &self.fine);
        let n = times.len();
        let w = q.w;
        let start = self.t(0) + i as i64 * f.dur;
        let stop = (start + f.dur).min(self.end() - w + 1);
        let j = i + q.w_bands;
        let mut thr = best.mu * w as f64;
        let mut found: Option<(f64, i64)> = None;
        // Left edge on a fall: the start is the step time.
        let mut r = f.pos[j] as usize;
        for &k in &self.falls[f.fall_lo[i] as usize..f.fall_lo[i + 1] as usize] {
            let k = k as usize;
            let s = times[k] as i64;
            if s >= stop {
                break;
            }
            let e = s + w;
            while r + 1 < n && times[r + 1] as i64 <= e {
                r += 1;
            }
            // At the end marker (r = n − 1) the partial length is 0, so its value does not matter.
            let num = sums[r] + util[r] * (e - times[r] as i64) as f64 - sums[k];
            if num <= thr {
                thr = num;
                found = Some((num, s));
            }
        }
        // Right edge on a rise: the end is the step time.
        let mut l = f.pos[i] as usize;
        for &k in &self.rises[f.rise_lo[j] as usize..] {
            let k = k as usize;
            let s = times[k] as i64 - w;
            if s < start {
                continue;
            }
            if s >= stop {
                break;
            }
            while times[l + 1] as i64 <= s {
                l += 1;
            }
            let num = sums[k] - (sums[l] + util[l] * (s - times[l] as i64) as f64);
            if num <= thr {
                thr = num;
                found = Some((num, s));
            }
        }
        if let Some((num, s)) = found {
            let mu = num / w as f64;
            if mu < best.mu {
                *best = Best {
                    mu,
                    at: s,
                    series: q.series,
                };
            }
        }
    }

    /// Worst-window mode: Go's `bandMMU`, step for step. Go evaluates a band that starts after the last possible
    /// start once at its own start, past the end of the series; unless `acc.go_compat`, it is evaluated at the
    /// last possible start instead.
    fn band_go(&self, si: usize, b: usize, w: i64, acc: &mut Acc) {
        let band_start = self.band_start(&self.go, b);
        let end_time = (band_start + self.go.dur).min(self.end() - w);
        let mut time = band_start;
        let mut left = self.go.bands[b].pos;
        if band_start > end_time && !acc.go_compat {
            left = self.pos_at(end_time);
            time = end_time;
        }
        let mut right = left;
        loop {
            let l = self.advance(&mut left, time);
            let mu = (self.advance(&mut right, time + w) - l) / w as f64;
            if acc.add_mu(time, mu, w, si) || time == end_time {
                break;
            }
            let min_time = time + ((mu - acc.bound) * w as f64) as i64;
            let t1 = self.next(left, time);
            let t2 = self.next(right, time + w).saturating_sub(w);
            time = if t1 < t2 { t1 } else { t2 };
            time = time.max(min_time).min(end_time);
        }
    }

    /// Utilised time in the window of `w` starting at `s` (with searches; for the two ends of the range). `[ns]`
    fn window_num(&self, s: i64, w: i64) -> f64 {
        let mut pos = self.pos_at(s);
        let l = self.advance(&mut pos, s);
        self.advance(&mut pos, s + w) - l
    }
}

/// One MMU query on one series: window, most fine bands a window touches, last band holding a start.
#[derive(Debug)]
struct Query {
    w: i64,
    /// Whole fine bands in `w`, and the most fine bands one window can touch.
    w_bands: usize,
    m: usize,
    last_band: usize,
    series: usize,
    /// Padding of lost time against rounding in the prefix sums. `[ns]`
    slack_ns: f64,
}

/// The running minimum: utilisation, window start, series.
#[derive(Debug, Clone, Copy)]
struct Best {
    mu: f64,
    at: i64,
    series: usize,
}

#[derive(Debug, Clone, Copy)]
struct BandBound {
    series: usize,
    band: usize,
    bound: f64,
}

#[derive(Debug, Clone, Copy)]
struct Win {
    time: i64,
    mu: f64,
    series: usize,
}

/// Go's accumulator: running minimum plus a max-heap of the `n_worst` worst disjoint windows.
#[derive(Debug)]
struct Acc {
    mmu: f64,
    bound: f64,
    at: (i64, usize),
    n_worst: usize,
    heap: Vec<Win>,
    /// Go's exact behaviour: only the first overlapping kept window is compared (so overlaps can slip through).
    go_compat: bool,
}

impl Acc {
    fn new(n_worst: usize, go_compat: bool) -> Self {
        Acc {
            mmu: 1.0,
            bound: 1.0,
            at: (0, 0),
            n_worst,
            heap: Vec::new(),
            go_compat,
        }
    }
}

fn win_less(a: &Win, b: &Win) -> bool {
    if a.mu != b.mu {
        a.mu > b.mu
    } else {
        a.time > b.time
    }
}

impl Acc {
    fn add_mu(&mut self, time: i64, mu: f64, w: i64, series: usize) -> bool {
        if mu < self.mmu {
            self.mmu = mu;
            self.at = (time, series);
        }
        self.bound = self.mmu;
        if self.heap.len() < self.n_worst || self.heap.first().is_some_and(|h| mu < h.mu) {
            // Keep the first of two overlapping windows unless the new one is strictly worse.
            let overlaps = |u: &Win| time + w > u.time && u.time + w > time;
            let keep = if self.go_compat {
                let first = self.heap.iter().position(overlaps);
                let keep = first.is_some_and(|i| self.heap[i].mu <= mu);
                if let (false, Some(i)) = (keep, first) {
                    go_heap::remove(&mut self.heap, i, win_less);
                }
                keep
            } else {
                let keep = self.heap.iter().any(|u| overlaps(u) && u.mu <= mu);
                while let (false, Some(i)) = (keep, self.heap.iter().position(overlaps)) {
                    go_heap::remove(&mut self.heap, i, win_less);
                }
                keep
            };
            if !keep {
                go_heap::push(&mut self.heap, Win { time, mu, series }, win_less);
                if self.heap.len() > self.n_worst {
                    go_heap::pop(&mut self.heap, win_less);
                }
            }
        }
        match self.heap.first() {
            Some(h) if self.heap.len() >= self.n_worst => self.bound = self.bound.max(h.mu),
            _ => self.bound = 1.0,
        }
        self.heap.len() == self.n_worst && self.heap.first().is_some_and(|h| h.mu == 0.0)
    }
}

/// Go's `container/heap` (same sift order), so that ties between equal bounds break as in Go.
mod go_heap {
    fn down<T>(h: &mut [T], i0: usize, n: usize, less: fn(&T, &T) -> bool) -> bool {
        let mut i = i0;
        loop {
            let j1 = 2 * i + 1;
            if j1 >= n {
                break;
            }
            let j = if j1 + 1 < n && less(&h[j1 + 1], &h[j1]) {
                j1 + 1
            } else {
                j1
            };
            if !less(&h[j], &h[i]) {
                break;
            }
            h.swap(i, j);
            i = j;
        }
        i > i0
    }

    fn up<T>(h: &mut [T], mut j: usize, less: fn(&T, &T) -> bool) {
        while j > 0 {
            let i = (j - 1) / 2;
            if !less(&h[j], &h[i]) {
                break;
            }
            h.swap(i, j);
            j = i;
        }
    }

    pub fn init<T>(h: &mut [T], less: fn(&T, &T) -> bool) {
        let n = h.len();
        for i in (0..n / 2).rev() {
            down(h, i, n, less);
        }
    }

    pub fn push<T>(h: &mut Vec<T>, x: T, less: fn(&T, &T) -> bool) {
        h.push(x);
        let j = h.len() - 1;
        up(h, j, less);
    }

    pub fn pop<T>(h: &mut Vec<T>, less: fn(&T, &T) -> bool) -> Option<T> {
        let n = h.len().checked_sub(1)?;
        h.swap(0, n);
        down(h, 0, n, less);
        h.pop()
    }

    pub fn remove<T>(h: &mut Vec<T>, i: usize, less: fn(&T, &T) -> bool) -> Option<T> {
        let n = h.len().checked_sub(1)?;
        if n != i {
            h.swap(i, n);
            if !down(h, i, n, less) {
                up(h, i, less);
            }
        }
        h.pop()
    }
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
            let q = Query {
                w,
                w_bands: (w / dur) as usize,
                m: ((w + 2 * (dur - 1)) / dur).max(1) as usize,
                last_band: ((p.end() - w - p.t(0)) / dur) as usize,
                series: k,
                slack_ns: 1.0 + p.sums.last().map_or(0.0, |s| s.abs()) * 1e-12,
            };
            // Groups of 4^k fine bands prune only when a group is much shorter than the window; the lowest bound
            // is refined first so that the minimum is low early, then everything in time order.
            let mut top = 1;
            while 4 * top * dur as usize * 2 <= w as usize && (q.last_band + 1) / top > 16 {
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
        self.examples(w_ns, Acc::new(k, false))
    }

    /// Exactly Go 1.19's `MMUCurve.Examples(w, k)`, quirks included: the windows can overlap (even repeat) when
    /// a new window overlaps two kept ones, and one can start past the end of the series. For comparing with
    /// `go tool trace`; prefer [`MmuCurve::worst`].
    pub fn worst_go(&self, w_ns: u64, k: usize) -> Vec<WindowUtil> {
        self.examples(w_ns, Acc::new(k, true))
    }

    fn examples(&self, w_ns: u64, mut acc: Acc) -> Vec<WindowUtil> {
        if w_ns == 0 || acc.n_worst == 0 {
            return Vec::new();
        }
        let less = |a: &BandBound, b: &BandBound| a.bound < b.bound;
        let mut heap = Vec::new();
        for (k, (_, p)) in self.series.iter().enumerate() {
            p.go_bounds(k, self.window_of(k, w_ns), &mut heap);
        }
        go_heap::init(&mut heap, less);
        while let Some(&b) = heap.first() {
            if b.bound >= acc.bound {
                break;
            }
            let w = self.window_of(b.series, w_ns);
            self.series[b.series]
                .1
                .band_go(b.series, b.band, w, &mut acc);
            go_heap::pop(&mut heap, less);
        }
        let mut out: Vec<Win> = acc.heap;
        out.sort_by(|a, b| a.mu.total_cmp(&b.mu).then(a.time.cmp(&b.time)));
        out.into_iter()
            .map(|w| WindowUtil {
                start_ns: w.time.max(0) as u64,
                utilization: w.mu.clamp(0.0, 1.0),
                series: self.series.get(w.series).map_or(0, |s| s.0),
            })
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SimRng;

    /// Mean utilisation of `[s, s+w]` by direct summation over the steps.
    fn window_mean(s: &UtilSeries, start: u64, w: u64) -> f64 {
        let end = start + w;
        let mut acc = 0.0;
        for k in 0..s.times.len() - 1 {
            let (a, b) = (s.times[k].max(start), s.times[k + 1].min(end));
            if b > a {
                acc += (b - a) as f64 * s.util[k];
            }
        }
        acc / w as f64
    }

    /// Brute force: every integer start.
    fn brute_mmu(series: &[UtilSeries], w: u64) -> f64 {
        let mut best: f64 = 1.0;
        for s in series {
            let (a, b) = s.span();
            let w = w.min(b - a);
            for start in a..=b - w {
                best = best.min(window_mean(s, start, w));
            }
        }
        best
    }

    fn random_series(rng: &mut SimRng, fractional: bool) -> UtilSeries {
        let start = rng.range_inclusive(0, 50);
        let mut t = start;
        let mut times = vec![];
        let mut util = vec![];
        let steps = rng.range_inclusive(1, 40);
        for _ in 0..steps {
            times.push(t);
            util.push(if fractional {
                (rng.range_inclusive(0, 4) as f64) / 4.0
            } else {
                rng.range_inclusive(0, 1) as f64
            });
            t += rng.range_inclusive(0, 60);
        }
        times.push(t + 1);
        util.push(0.0);
        UtilSeries { times, util }
    }

    #[test]
    fn single_pause_mmu_is_exact() {
        // One 10 ns pause at [40, 50) in [0, 100].
        let s = UtilSeries::from_pauses(&[(40, 50)], 0, 100);
        let one = std::slice::from_ref(&s);
        assert_eq!(mmu_at(one, 10).utilization, 0.0, "window = pause");
        assert!((mmu_at(one, 20).utilization - 0.5).abs() < 1e-12, "20 ns");
        assert!(
            (mmu_at(one, 100).utilization - 0.9).abs() < 1e-12,
            "whole span"
        );
        assert!(mmu_at(one, 5).utilization.abs() < 1e-12, "inside the pause");
        assert_eq!(mmu_at(one, 10).start_ns, 40, "where");
    }

    #[test]
    fn overlapping_pauses_merge() {
        let s = UtilSeries::from_pauses(&[(10, 30), (20, 40), (40, 45)], 0, 100);
        assert_eq!(s.times, vec![0, 10, 45, 100], "merged edges");
        assert_eq!(s.util[..3], [1.0, 0.0, 1.0], "steps");
        let s = UtilSeries::from_pauses(&[(0, 5), (90, 120)], 0, 100);
        assert_eq!(s.times, vec![0, 5, 90, 100], "clipped at both ends");
        assert_eq!(s.util[..3], [0.0, 1.0, 0.0], "starts paused");
    }

    #[test]
    fn matches_brute_force_on_random_series() {
        let mut rng = SimRng::new(7);
        for case in 0..300 {
            let n = rng.range_inclusive(1, 3);
            let series: Vec<UtilSeries> = (0..n)
                .map(|_| random_series(&mut rng, case % 2 == 0))
                .collect();
            let curve = MmuCurve::new(&series);
            for w in [1, 2, 3, 7, 10, 25, 60, 100, 400, 5000] {
                let got = curve.mmu(w);
                let want = brute_mmu(&series, w);
                assert!(
                    (got.utilization - want).abs() < 1e-12,
                    "case {case} w {w}: {got:?} vs {want}"
                );
                let s = &series[got.series];
                let ww = w.min(s.span().1 - s.span().0);
                let at = window_mean(s, got.start_ns, ww);
                assert!(
                    (at - want).abs() < 1e-12,
                    "case {case} w {w}: reported start {got:?}"
                );
                let worst = curve.worst(w, 5);
                assert!(
                    (worst[0].utilization - want).abs() < 1e-12,
                    "case {case} w {w}: rank 1"
                );
                for (i, a) in worst.iter().enumerate() {
                    for b in &worst[i + 1..] {
                        assert!(a.utilization <= b.utilization, "sorted");
                        let sp = series[a.series].span();
                        let ww = w.min(sp.1 - sp.0);
                        let disjoint =
                            a.start_ns + ww <= b.start_ns || b.start_ns + ww <= a.start_ns;
                        let same = a.series == b.series;
                        assert!(disjoint || !same, "case {case} w {w}: overlap {a:?} {b:?}");
                    }
                }
            }
        }
    }

    /// Reference over every step-aligned start (both edges), O(n²): for long series.
    fn candidate_mmu(s: &UtilSeries, w: u64) -> f64 {
        let (a, b) = s.span();
        let w = w.min(b - a);
        let mut starts = vec![a, b - w];
        for &t in &s.times {
            starts.push(t);
            starts.push(t.saturating_sub(w));
        }
        starts
            .into_iter()
            .filter(|&t| t >= a && t + w <= b)
            .map(|t| window_mean(s, t, w))
            .fold(1.0, f64::min)
    }

    #[test]
    fn long_series_match_the_candidate_reference() {
        let mut rng = SimRng::new(11);
        for case in 0..6 {
            let mut pauses = vec![];
            let mut t = 0;
            for _ in 0..1500 {
                // Bursty: mostly short gaps, now and then a long quiet stretch.
                t += if rng.range_inclusive(0, 9) == 0 {
                    rng.range_inclusive(1, 50_000)
                } else {
                    rng.range_inclusive(1, 900)
                };
                let d = rng.range_inclusive(1, 300);
                pauses.push((t, t + d));
                t += d;
            }
            let s = if case % 2 == 0 {
                UtilSeries::from_pauses(&pauses, 0, t + 10)
            } else {
                let mut s = UtilSeries::from_pauses(&pauses, 0, t + 10);
                for (k, u) in s.util.iter_mut().enumerate() {
                    *u = if *u == 0.0 {
                        (k % 3) as f64 / 4.0
                    } else {
                        1.0 - (k % 5) as f64 / 8.0
                    };
                }
                s
            };
            let curve = MmuCurve::new(std::slice::from_ref(&s));
            for w in [
                1, 50, 299, 300, 301, 700, 2_000, 9_000, 40_000, 200_000, 1_000_000, 10_000_000,
            ] {
                let got = curve.mmu(w).utilization;
                let want = candidate_mmu(&s, w);
                assert!(
                    (got - want).abs() < 1e-12,
                    "case {case} w {w}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn clipping_keeps_the_steps_inside() {
        let s = UtilSeries::from_pauses(&[(10, 20), (50, 60)], 0, 100);
        let c = s.clipped(15, 55);
        assert_eq!(c.times, vec![15, 20, 50, 55], "clipped");
        assert_eq!(c.util[..3], [0.0, 1.0, 0.0], "steps");
        assert_eq!(s.clipped(0, 100), s, "whole span unchanged");
        assert!(s.clipped(200, 300).times.is_empty(), "outside");
    }

    #[test]
    fn windows_are_log_spaced() {
        let w = default_windows_ns(1_000_000_000);
        assert_eq!(w.first(), Some(&100_000), "from 0.1 ms");
        assert_eq!(w.last(), Some(&1_000_000_000), "to the span");
        assert!(w.windows(2).all(|p| p[0] < p[1]), "ascending");
    }

    /// `cargo test -p gclab-core --release -- --ignored million --nocapture`: 500 000 pauses (1 M edges), 100
    /// log-spaced windows from 0.1 ms to the span.
    #[test]
    #[ignore = "timing; run in release"]
    fn million_edges_timing() {
        let mut rng = SimRng::new(1);
        let mut pauses = Vec::with_capacity(500_000);
        let mut t = 0u64;
        for _ in 0..500_000 {
            t += rng.range_inclusive(1_000_000, 20_000_000);
            let d = rng.range_inclusive(50_000, 2_000_000);
            pauses.push((t, t + d));
            t += d;
        }
        let span = t + 1_000_000;
        let started = std::time::Instant::now();
        let series = [UtilSeries::from_pauses(&pauses, 0, span)];
        let stepped = started.elapsed();
        let curve = MmuCurve::new(&series);
        let built = started.elapsed();
        let windows: Vec<u64> = (0..100)
            .map(|i| (1e5 * (span as f64 / 1e5).powf(i as f64 / 99.0)) as u64)
            .collect();
        let queried = std::time::Instant::now();
        let mmu: Vec<f64> = windows.iter().map(|&w| curve.mmu(w).utilization).collect();
        let windows_time = queried.elapsed();
        let total = started.elapsed();
        eprintln!(
            "1M edges: steps {stepped:?}, build {built:?}, 100 windows {windows_time:?}, total {total:?}; mmu[30]={:.4} mmu[60]={:.4}",
            mmu[30], mmu[60]
        );
        assert!(mmu.iter().all(|u| (0.0..=1.0).contains(u)), "in range");
    }
}
