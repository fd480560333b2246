//! The worst disjoint windows, picked as Go's `internal/trace` picks them (`MMUCurve.Examples`, BSD licence,
//! re-implemented): Go's lower bound per band over the 1000 bands of each series, the bands refined from the lowest
//! bound up through a copy of Go's `container/heap`, and Go's accumulator of the worst windows with its skip and
//! overlap rules. Entry point: [`MmuCurve::worst`] and [`MmuCurve::worst_go`].

use super::prepared::{Bands, Prepared, Query};
use super::{MmuCurve, WindowUtil};

impl MmuCurve<'_> {
    /// Go's `MMUCurve.Examples` over every series: bands in order of their bound, refined while the bound is below
    /// `acc`'s; [`MmuCurve::worst`] and [`MmuCurve::worst_go`] differ only in `acc.go_compat`.
    pub(super) fn examples(&self, w_ns: u64, acc: &mut Acc) -> Vec<WindowUtil> {
        if w_ns == 0 || acc.n_worst == 0 {
            return Vec::new();
        }
        let less = |a: &BandBound, b: &BandBound| a.bound < b.bound;
        // Every band of every series (4 M for 60,000 mutators of 67 steps): reserved at its length, not grown by
        // doubling, which held up to twice it at the peak of each query on each core.
        let bands = (self.series.iter().enumerate())
            .map(|(k, (_, p))| p.go_band_count(self.window_of(k, w_ns)))
            .sum();
        let mut heap = Vec::with_capacity(bands);
        for (k, (_, p)) in self.series.iter().enumerate() {
            p.go_bounds(k, self.window_of(k, w_ns), &mut heap);
        }
        go_heap::init(&mut heap, less);
        let queries: Vec<Option<Query>> = (self.series.iter().enumerate())
            .map(|(k, (_, p))| {
                let w = self.window_of(k, w_ns);
                (w > 0 && w < p.end() - p.t(0)).then(|| p.query(w, k))
            })
            .collect();
        while let Some(&b) = heap.first() {
            if b.bound >= acc.bound {
                break;
            }
            let (series, band) = (b.series as usize, b.band as usize);
            let w = self.window_of(series, w_ns);
            let p = &self.series[series].1;
            // A band that cannot change `acc` is passed over: Go's refinement of it would leave the result the same.
            let unchanged = acc.pass_over
                && !acc.go_compat
                && queries[series]
                    .as_ref()
                    .is_some_and(|q| acc.passes_over(p, band, q));
            if !unchanged {
                acc.refined += 1;
                p.band_go(series, band, w, acc);
            }
            go_heap::pop(&mut heap, less);
        }
        let mut out: Vec<Win> = std::mem::take(&mut acc.heap);
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

impl Prepared<'_> {
    /// The first step time after `time`, searching after the cursor `pos` (at a step at or before `time`, as
    /// [`Prepared::advance`] leaves it; `i64::MAX` when none).
    #[inline]
    fn next(&self, pos: usize, time: i64) -> i64 {
        (pos + 1..self.times.len())
            .map(|k| self.times.get(k) as i64)
            .find(|&t| t > time)
            .unwrap_or(i64::MAX)
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
        for i in 0..self.go_band_count(w) {
            out.push(BandBound {
                series: series as u32,
                band: i as u32,
                bound: self.band_bound(&self.go, i, w),
            });
        }
    }

    /// The bands whose windows of `w` Go bounds ([`Prepared::go_bounds`]).
    fn go_band_count(&self, w: i64) -> usize {
        let max_bands = ((w + 2 * (self.go.dur - 1)) / self.go.dur).max(1) as usize;
        (self.go.bands.len() + 1).saturating_sub(max_bands)
    }

    /// The first and last start of the windows of `w` that Go's `bandMMU` evaluates in band `b` (from the band's
    /// start to its end or the last start). `[ns]`
    fn go_band_starts(&self, b: usize, w: i64) -> (i64, i64) {
        let band_start = self.band_start(&self.go, b);
        let end_time = (band_start + self.go.dur).min(self.end() - w);
        (band_start.min(end_time), end_time)
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
        // The right edge's cursor starts at the fine band holding the first window's end, not at the left edge:
        // the same step is found without a search across the window (on disk, a block read per probe).
        let mut right = left.max(self.pos_hint(time + w));
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
}

#[derive(Debug, Clone, Copy)]
struct BandBound {
    /// Series and band (below 2^32: the importers read at most 2^16 series, and a series has at most 1000 bands).
    series: u32,
    band: u32,
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
pub(super) struct Acc {
    mmu: f64,
    bound: f64,
    at: (i64, usize),
    n_worst: usize,
    heap: Vec<Win>,
    /// Go's exact behaviour: only the first overlapping kept window is compared (so overlaps can slip through).
    go_compat: bool,
    /// Bands that cannot change the accumulator are passed over (false: every band is refined, for tests).
    pub(super) pass_over: bool,
    /// Bands refined so far (the rest were passed over or pruned by their bound).
    pub(super) refined: usize,
}

impl Acc {
    pub(super) fn new(n_worst: usize, go_compat: bool) -> Self {
        Acc {
            mmu: 1.0,
            bound: 1.0,
            at: (0, 0),
            n_worst,
            heap: Vec::new(),
            go_compat,
            pass_over: true,
            refined: 0,
        }
    }

    /// Whether refining band `b` of `p` (windows of `q.w`) would leave the accumulator as it is, by
    /// [`Prepared::at_least`] over the band's starts. Two cases, both exact ([`Acc::add_mu`]'s rules):
    /// - it holds its `n_worst` windows and every window of the band is at least its bound (the least bad kept):
    ///   none would be kept;
    /// - it holds fewer (windows so long that fewer disjoint ones fit: its bound is 1, so every band would be
    ///   refined), but some kept window overlaps every window of the band and none of them is worse than it:
    ///   each would be dropped for overlapping a kept window at least as bad, and none lowers the running minimum
    ///   (at most that kept window's).
    fn passes_over(&self, p: &Prepared<'_>, b: usize, q: &Query) -> bool {
        let (lo, hi) = p.go_band_starts(b, q.w);
        if self.heap.len() >= self.n_worst {
            return p.at_least(lo, hi, q, self.bound);
        }
        // A window starting at t overlaps a kept one at u when t + w > u and u + w > t.
        self.heap
            .iter()
            .filter(|u| lo > u.time - q.w && hi < u.time + q.w)
            .map(|u| u.mu)
            .min_by(f64::total_cmp)
            .is_some_and(|mu| p.at_least(lo, hi, q, mu))
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
