//! One series prepared for queries ([`Prepared`]: prefix sums, Go's 1000 bands, the fine bands, the steps where
//! utilisation falls or rises, the longest stop) and the exact MMU search over it that
//! [`MmuCurve::mmu`](super::MmuCurve::mmu) drives: a lower bound per fine band and per group of 4ᵏ fine bands from
//! the prefix sums, branch and bound over the groups, and an exact two-pointer sweep of the bands that survive.

use std::sync::Arc;

use super::UtilSeries;
use super::col::{Col, ColBuilder, Idx};
use super::sums::DerivedSums;
use crate::io::spill::{Paged, block_len};

/// Number of bands per series (Go's `bandsPerSeries`): keeps [`MmuCurve::worst`](super::MmuCurve::worst)
/// identical to Go.
const BANDS_PER_SERIES: usize = 1000;
/// Steps per band of the finer band set that [`MmuCurve::mmu`](super::MmuCurve::mmu) prunes with.
pub(super) const STEPS_PER_FINE_BAND: usize = 2;

#[derive(Debug, Clone, Copy)]
pub(super) struct Band {
    /// Lowest utilisation of a step that holds somewhere in the band.
    pub(super) min_util: f64,
    /// Integral of utilisation from the series start to the band start. `[ns]`
    pub(super) cum_util: f64,
    /// Index of the step holding at the band start.
    pub(super) pos: usize,
}

/// Equal bands over a series: `bands[i]` starts at `t0 + i·dur`; one extra band past the end holds the total.
#[derive(Debug, Default)]
pub(super) struct Bands {
    pub(super) bands: Vec<Band>,
    pub(super) dur: i64,
}

/// One series prepared for queries: prefix sums, band summaries, candidate steps. The per-step arrays are
/// [`Col`]s: borrowed or in memory, or on disk for a series too big for memory ([`Prepared::build`]).
#[derive(Debug)]
pub(super) struct Prepared<'a> {
    /// Step times (below 2⁶²). `[ns]`
    pub(super) times: Col<'a, u64>,
    /// Utilisation of each step; see [`Prepared::u`] for the end marker.
    pub(super) util: Col<'a, f64>,
    /// `sums[k]` = integral from `times[0]` to `times[k]`. `[ns]`
    pub(super) sums: Col<'a, f64>,
    /// Go's 1000 bands (worst windows) and the fine bands (MMU), shared with the views ([`Prepared::view`]).
    pub(super) go: Arc<Bands>,
    pub(super) fine: Arc<Fine>,
    /// Steps where utilisation falls (candidate left edges) and rises (candidate right edges).
    pub(super) falls: Idx<'a>,
    pub(super) rises: Idx<'a>,
    /// Longest stretch at utilisation 0 and its start: windows up to that long have MMU 0. `[ns]`
    pub(super) zero_run: (i64, i64),
    /// Every utilisation is 0 or 1 and the span is below 2⁵³ ns: the sums, and so every window's utilised time,
    /// are integers held exactly in f64, whatever the order of the operations.
    pub(super) exact: bool,
}

/// Fine bands of equal duration, about [`STEPS_PER_FINE_BAND`] steps each, plus one past the end.
#[derive(Debug, Default)]
pub(super) struct Fine {
    pub(super) dur: i64,
    /// Integral from the series start to each band start. `[ns]`
    cum: Vec<f64>,
    /// Last step at or before each band start.
    pos: Vec<u32>,
    /// First fall / rise at or after each band start.
    fall_lo: Vec<u32>,
    rise_lo: Vec<u32>,
}

impl<'a> Prepared<'a> {
    pub(super) fn new(s: &'a UtilSeries) -> Option<Self> {
        let n = s.times.len().min(s.util.len());
        let (times, util) = (Col::Slice(&s.times[..n]), Col::Slice(&s.util[..n]));
        // In memory nothing can fail.
        Self::build(times, util, None).ok().flatten()
    }

    /// [`Prepared::new`] taking the steps (the prepared series owns them).
    pub(super) fn owned(s: UtilSeries) -> Option<Prepared<'static>> {
        // The steps cut to their common length, in memory (where nothing can fail).
        let steps = super::Steps::from(s);
        Prepared::build(steps.times, steps.util, None)
            .ok()
            .flatten()
    }

    /// Prepares the steps `times`/`util` (None when fewer than two, no duration, unsorted or too late). With
    /// `spill = Some(fine_bands)` the derived per-step arrays go to temporary files and the fine bands are at most
    /// `fine_bands` (the result is the same, only the pruning coarser); otherwise all is in memory.
    pub(super) fn build(
        times: Col<'a, u64>,
        util: Col<'a, f64>,
        spill: Option<usize>,
    ) -> std::io::Result<Option<Self>> {
        let n = times.len().min(util.len());
        let ok = n >= 2 && n < u32::MAX as usize && times.get(n - 1) > times.get(0);
        if !ok || times.get(n - 1) >= i64::MAX as u64 {
            return Ok(None);
        }
        // Every index array is reserved at its final length (counted first): growing by doubling would hold up
        // to twice the memory at its peak on a series of millions of steps.
        let u = |k: usize| if k + 1 >= n { 0.0 } else { util.get(k) };
        let (mut falls, mut rises) = (0, 0);
        let mut prev_t = times.get(0);
        let mut exact = times.get(n - 1) - times.get(0) < 1 << 53;
        // A pause list's steps: utilisations taking turns (`util` then needs no array: the end marker's own value
        // is never used but multiplied by a zero length) and so falls and rises at every other step.
        let pair = [util.get(0), util.get(1)];
        let mut alt = n > 2 && util.len() == n;
        let (mut fall_first, mut rise_first, mut falls_every2, mut rises_every2) =
            (0, 0, true, true);
        for k in 1..n {
            let t = times.get(k);
            if t < prev_t {
                return Ok(None);
            }
            prev_t = t;
            let (a, b) = (u(k - 1), u(k));
            exact &= a == 0.0 || a == 1.0;
            if k + 1 < n {
                alt &= b.to_bits() == pair[k & 1].to_bits();
            }
            if b < a {
                if falls == 0 {
                    fall_first = k;
                }
                falls_every2 &= k == fall_first + 2 * falls;
                falls += 1;
            }
            if b > a {
                if rises == 0 {
                    rise_first = k;
                }
                rises_every2 &= k == rise_first + 2 * rises;
                rises += 1;
            }
        }
        let spill_at = if spill.is_some() { 0 } else { usize::MAX };
        // A pause list on disk: its sums are derived from its step times a block at a time ([`DerivedSums`]);
        // only the sum at each block's first step is kept.
        let derived = match (&times, alt && spill.is_some()) {
            (Col::Paged(p), true) => Some(p.source()),
            _ => None,
        };
        let mut starts = Vec::new();
        let mut sums = match derived {
            Some(_) => ColBuilder::new(usize::MAX, 0)?,
            None => ColBuilder::new(spill_at, n)?,
        };
        let mut fall_col = (!falls_every2)
            .then(|| ColBuilder::new(spill_at, falls))
            .transpose()?;
        let mut rise_col = (!rises_every2)
            .then(|| ColBuilder::new(spill_at, rises))
            .transpose()?;
        let mut sum = 0.0;
        let mut push_sum = |k: usize, sum: f64| match derived {
            Some(_) if k.is_multiple_of(block_len::<f64>()) => {
                starts.push(sum);
                Ok(())
            }
            Some(_) => Ok(()),
            None => sums.push(sum),
        };
        push_sum(0, 0.0)?;
        let mut zero_run = (0, 0);
        let mut run_start = None;
        let (mut t_prev, mut u_prev) = (times.get(0), util.get(0));
        for k in 0..n {
            let (t, uk) = (times.get(k), u(k));
            if k >= 1 {
                sum += util.get(k - 1) * (t - t_prev) as f64;
                push_sum(k, sum)?;
                if let (true, Some(c)) = (uk < u_prev, &mut fall_col) {
                    c.push(k as u32)?;
                } else if let (true, Some(c)) = (uk > u_prev, &mut rise_col) {
                    c.push(k as u32)?;
                }
            }
            match (uk == 0.0 && k + 1 < n, run_start) {
                (true, None) => run_start = Some(t as i64),
                (false, Some(a)) => {
                    if t as i64 - a > zero_run.0 {
                        zero_run = (t as i64 - a, a);
                    }
                    run_start = None;
                }
                _ => {}
            }
            (t_prev, u_prev) = (t, uk);
        }
        let idx = |c: Option<ColBuilder<u32>>, first: usize, len: usize| match c {
            Some(c) => Idx::Col(c.finish()),
            None => Idx::Every2 {
                first: first as u32,
                len,
            },
        };
        let mut p = Prepared {
            times,
            util: if alt { Col::Alt(pair, n) } else { util },
            sums: match derived {
                Some(times) => Col::Paged(Box::new(Paged::with(Arc::new(DerivedSums {
                    times,
                    starts,
                    pair,
                })))),
                None => sums.finish(),
            },
            go: Arc::default(),
            fine: Arc::default(),
            falls: idx(fall_col, fall_first, falls),
            rises: idx(rise_col, rise_first, rises),
            zero_run,
            exact,
        };
        p.go = Arc::new(p.bands(BANDS_PER_SERIES.min(n)));
        let fine = (n / STEPS_PER_FINE_BAND).max(1);
        p.fine = Arc::new(p.fine_bands(spill.map_or(fine, |cap| fine.min(cap.max(1)))));
        Ok(Some(p))
    }

    /// The same prepared series, borrowed, with its own block caches for the arrays on disk: a query on it may
    /// run on another thread beside queries on `self` or other views, and gives the same answer.
    pub(super) fn view(&self, blocks: usize) -> Prepared<'_> {
        Prepared {
            times: self.times.view(blocks),
            util: self.util.view(blocks),
            sums: self.sums.view(blocks),
            go: Arc::clone(&self.go),
            fine: Arc::clone(&self.fine),
            falls: self.falls.view(blocks),
            rises: self.rises.view(blocks),
            zero_run: self.zero_run,
            exact: self.exact,
        }
    }

    /// The first I/O error of a spilled array, if any.
    pub(super) fn error(&self) -> Option<&str> {
        (self.times.error())
            .or(self.util.error())
            .or(self.sums.error())
            .or(self.falls.error())
            .or(self.rises.error())
    }

    fn fine_bands(&self, num_bands: usize) -> Fine {
        let dur = self.end() - self.t(0);
        let mut f = Fine {
            dur: ((dur + num_bands as i64 - 1) / num_bands as i64).max(1),
            cum: Vec::with_capacity(num_bands + 1),
            pos: Vec::with_capacity(num_bands + 1),
            fall_lo: Vec::with_capacity(num_bands + 1),
            rise_lo: Vec::with_capacity(num_bands + 1),
        };
        let (mut pos, mut fall, mut rise) = (0, 0, 0);
        for i in 0..=num_bands {
            let start = self.t(0) + i as i64 * f.dur;
            f.cum.push(self.advance(&mut pos, start));
            f.pos.push(pos as u32);
            while fall < self.falls.len() && self.t(self.falls.get(fall) as usize) < start {
                fall += 1;
            }
            while rise < self.rises.len() && self.t(self.rises.get(rise) as usize) < start {
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
    #[inline]
    pub(super) fn t(&self, k: usize) -> i64 {
        self.times.get(k) as i64
    }

    /// Step `k`'s utilisation; the end marker counts as 0 (Go's final event), which matters only past the end.
    #[inline]
    fn u(&self, k: usize) -> f64 {
        if k + 1 >= self.util.len() {
            0.0
        } else {
            self.util.get(k)
        }
    }

    #[inline]
    pub(super) fn end(&self) -> i64 {
        self.t(self.util.len() - 1)
    }

    pub(super) fn band_start(&self, b: &Bands, i: usize) -> i64 {
        i as i64 * b.dur + self.t(0)
    }

    /// Integral up to `time`, moving the cursor `pos` to the last step at or before `time` (Go's `advance`:
    /// a short forward scan, else a binary search from the cursor).
    #[inline]
    pub(super) fn advance(&self, pos: &mut usize, time: i64) -> f64 {
        let n = self.util.len();
        if *pos + 8 < n && self.t(*pos + 8) > time {
            while self.t(*pos + 1) <= time {
                *pos += 1;
            }
        } else {
            *pos = (self.times)
                .partition_point_from(*pos, |t| t as i64 <= time)
                .saturating_sub(1);
        }
        let tp = self.t(*pos);
        let partial = if time != tp {
            self.u(*pos) * (time - tp) as f64
        } else {
            0.0
        };
        self.sums.get(*pos) + partial
    }

    /// The last step at or before `time`, searched from [`Prepared::pos_hint`].
    pub(super) fn pos_at(&self, time: i64) -> usize {
        (self.times)
            .partition_point_from(self.pos_hint(time), |t| t as i64 <= time)
            .saturating_sub(1)
    }

    /// A step at or before the last step at or before `time` (0 when none): the cursor of the fine band holding
    /// `time`, so that a search from it stays within about one band (a few blocks of a spilled array) instead of
    /// galloping from the first step across the whole array.
    pub(super) fn pos_hint(&self, time: i64) -> usize {
        let pos = &self.fine.pos;
        if pos.is_empty() || time < self.t(0) {
            return 0;
        }
        let i = ((time - self.t(0)) / self.fine.dur) as usize;
        pos[i.min(pos.len() - 1)] as usize
    }

    /// The MMU query for windows of `w` (at most the series' length) on this series, series number `series`.
    pub(super) fn query(&self, w: i64, series: usize) -> Query {
        let dur = self.fine.dur;
        Query {
            w,
            w_bands: (w / dur) as usize,
            m: ((i128::from(w) + 2 * i128::from(dur - 1)) / i128::from(dur)).max(1) as usize,
            last_band: ((self.end() - w - self.t(0)) / dur) as usize,
            series,
            slack_ns: 1.0 + self.sums.get(self.sums.len() - 1).abs() * 1e-12,
        }
    }

    /// True when every window of `q.w` starting in `[lo, hi]` (inside the range of starts) has a utilisation of
    /// at least `bound`: the two ends are evaluated, and inside, the utilisation's minimum lies where an edge meets
    /// a step, which the fine bands' exact sweeps visit ([`Prepared::sweep`], every fine band touching the range,
    /// a group passed over when its lower bound reaches `bound`). With integer sums ([`Prepared::exact`]) every
    /// utilisation is computed exactly, so a window at `bound` exactly (a tie) passes; otherwise `bound` is
    /// raised by twice the rounding slack.
    pub(super) fn at_least(&self, lo: i64, hi: i64, q: &Query, bound: f64) -> bool {
        let target = if self.exact {
            bound
        } else {
            bound + 2.0 * q.slack_ns / q.w as f64
        };
        if [lo, hi]
            .iter()
            .any(|&s| self.window_num(s, q.w) / (q.w as f64) < target)
        {
            return false;
        }
        let band = |t: i64| (((t - self.t(0)) / self.fine.dur).max(0) as usize).min(q.last_band);
        let mut best = Best {
            mu: target,
            at: 0,
            series: q.series,
        };
        self.group_at_least(band(lo), band(hi) + 1, q, &mut best, target)
    }

    fn group_at_least(&self, i: usize, j: usize, q: &Query, best: &mut Best, target: f64) -> bool {
        if self.group_bound(i, j, q) >= target {
            return true;
        }
        if j - i <= 1 {
            self.sweep(i, q, best);
            return best.mu >= target;
        }
        let step = (j - i).div_ceil(4);
        (i..j)
            .step_by(step)
            .all(|a| self.group_at_least(a, (a + step).min(j), q, best, target))
    }

    /// Lower bound of the utilisation of windows of `w` starting in fine bands `[i, j)`: `w` less the time lost in
    /// every fine band such a window can touch (`m` = most bands one window touches), over `w`. The lost time is
    /// padded by `slack_ns` so that rounding in the prefix sums can never prune a band holding the minimum; with
    /// integer sums ([`Prepared::exact`]) it is exact and one rounded division monotone, so no padding: tied
    /// windows (a periodic trace) meet the bound and are passed over.
    fn group_bound(&self, i: usize, j: usize, q: &Query) -> f64 {
        let pad = if self.exact { 0.0 } else { q.slack_ns };
        (q.w as f64 - self.group_lost(i, j, q) - pad) / q.w as f64
    }

    /// Branch and bound over groups of 4ᵏ fine bands, in time order; leaves are swept exactly.
    pub(super) fn visit(&self, i: usize, g: usize, q: &Query, best: &mut Best) {
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
    pub(super) fn scan(&self, q: &Query, best: &mut Best) {
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
    pub(super) fn greedy(&self, top: usize, q: &Query, best: &mut Best) {
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
    pub(super) fn sweep(&self, i: usize, q: &Query, best: &mut Best) {
        let (times, util, sums, f) = (&self.times, &self.util, &self.sums, &self.fine);
        let n = times.len();
        let w = q.w;
        let start = self.t(0) + i as i64 * f.dur;
        let stop = (start + f.dur).min(self.end() - w + 1);
        let j = i + q.w_bands;
        let mut thr = best.mu * w as f64;
        let mut found: Option<(f64, i64)> = None;
        // Left edge on a fall: the start is the step time.
        let mut r = f.pos[j] as usize;
        for x in f.fall_lo[i] as usize..f.fall_lo[i + 1] as usize {
            let k = self.falls.get(x) as usize;
            let s = times.get(k) as i64;
            if s >= stop {
                break;
            }
            let e = s + w;
            while r + 1 < n && times.get(r + 1) as i64 <= e {
                r += 1;
            }
            // At the end marker (r = n − 1) the partial length is 0, so its value does not matter.
            let num = sums.get(r) + util.get(r) * (e - times.get(r) as i64) as f64 - sums.get(k);
            if num <= thr {
                thr = num;
                found = Some((num, s));
            }
        }
        // Right edge on a rise: the end is the step time.
        let mut l = f.pos[i] as usize;
        for x in f.rise_lo[j] as usize..self.rises.len() {
            let k = self.rises.get(x) as usize;
            let s = times.get(k) as i64 - w;
            if s < start {
                continue;
            }
            if s >= stop {
                break;
            }
            while times.get(l + 1) as i64 <= s {
                l += 1;
            }
            let num = sums.get(k) - (sums.get(l) + util.get(l) * (s - times.get(l) as i64) as f64);
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

    /// Utilised time in the window of `w` starting at `s` (with searches; for the two ends of the range). `[ns]`
    pub(super) fn window_num(&self, s: i64, w: i64) -> f64 {
        let mut pos = self.pos_at(s);
        let l = self.advance(&mut pos, s);
        pos = pos.max(self.pos_hint(s + w));
        self.advance(&mut pos, s + w) - l
    }
}

/// One MMU query on one series: window, most fine bands a window touches, last band holding a start.
#[derive(Debug)]
pub(super) struct Query {
    pub(super) w: i64,
    /// Whole fine bands in `w`, and the most fine bands one window can touch.
    pub(super) w_bands: usize,
    pub(super) m: usize,
    pub(super) last_band: usize,
    pub(super) series: usize,
    /// Padding of lost time against rounding in the prefix sums. `[ns]`
    pub(super) slack_ns: f64,
}

/// The running minimum: utilisation, window start, series.
#[derive(Debug, Clone, Copy)]
pub(super) struct Best {
    pub(super) mu: f64,
    pub(super) at: i64,
    pub(super) series: usize,
}
