//! Minimum mutator utilisation, exact. For a window length w, MMU(w) is the minimum over window positions
//! `[s, s+w]` inside the observation span of the mean utilisation in the window (SYSTOR'15 §2.4.2; Cheng & Blelloch
//! 2001). Utilisation is a step function (1 − share of the mutator stopped); the windowed mean is piecewise linear
//! in s with breakpoints where either window edge meets a step, so the minimum is at one of those positions —
//! every candidate is evaluated, nothing is sampled. With several series (mutators, processors) the MMU is the
//! minimum over the series. Times are integer nanoseconds; the arithmetic is in f64 over integer offsets.

/// A utilisation step function: `util[i]` holds on `[times[i], times[i+1])`; the last time ends the series.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UtilSeries {
    /// Step times, ascending. `[ns]`
    pub times: Vec<u64>,
    /// Utilisation of each step in [0, 1] (the last entry is ignored: it only marks the end).
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
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(p.len());
        for (a, b) in p {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        let mut times = vec![span_start];
        let mut util = vec![1.0];
        for (a, b) in merged {
            if a == *times.last().unwrap_or(&span_start) {
                if let Some(u) = util.last_mut() {
                    *u = 0.0;
                }
            } else {
                times.push(a);
                util.push(0.0);
            }
            times.push(b);
            util.push(1.0);
        }
        if *times.last().unwrap_or(&span_start) < span_end {
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

    /// Cumulative utilised time at each step time. `[ns]`
    fn prefix(&self) -> Vec<f64> {
        let mut acc = Vec::with_capacity(self.times.len());
        let mut sum = 0.0;
        acc.push(0.0);
        for i in 1..self.times.len() {
            sum += (self.times[i] - self.times[i - 1]) as f64 * self.util[i - 1];
            acc.push(sum);
        }
        acc
    }
}

/// Cumulative integral of a series at any time, evaluated with a moving cursor (queries must not go backwards
/// by more than the cursor can re-find; it binary-searches when they do).
struct Integral<'a> {
    s: &'a UtilSeries,
    prefix: Vec<f64>,
}

impl Integral<'_> {
    fn at(&self, t: u64) -> f64 {
        let times = &self.s.times;
        let i = times.partition_point(|&x| x <= t);
        if i == 0 {
            return 0.0;
        }
        let i = (i - 1).min(times.len() - 1);
        self.prefix[i]
            + (t.saturating_sub(times[i])) as f64 * self.s.util.get(i).copied().unwrap_or(0.0)
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

/// Exact MMU of each series at window `w_ns` (clamped to the span); returns the minimum and where it is.
pub fn mmu_at(series: &[UtilSeries], w_ns: u64) -> WindowUtil {
    let mut best = WindowUtil {
        start_ns: 0,
        utilization: f64::INFINITY,
        series: 0,
    };
    for (si, s) in series.iter().enumerate() {
        let (a, b) = s.span();
        if b <= a {
            continue;
        }
        let w = w_ns.clamp(1, b - a);
        let integral = Integral {
            s,
            prefix: s.prefix(),
        };
        let last_start = b - w;
        let mut eval = |start: u64| {
            let u = (integral.at(start + w) - integral.at(start)) / w as f64;
            if u < best.utilization {
                best = WindowUtil {
                    start_ns: start,
                    utilization: u.clamp(0.0, 1.0),
                    series: si,
                };
            }
        };
        eval(a);
        for &t in &s.times {
            if t >= a && t <= last_start {
                eval(t);
            }
            if t >= a + w && t - w <= last_start {
                eval(t - w);
            }
        }
    }
    if !best.utilization.is_finite() {
        best.utilization = 1.0;
    }
    best
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

/// The `k` worst windows of length `w_ns` that do not overlap, worst first (as Go's `worst_*.csv`).
pub fn worst_windows(series: &[UtilSeries], w_ns: u64, k: usize) -> Vec<WindowUtil> {
    let mut cands: Vec<WindowUtil> = Vec::new();
    for (si, s) in series.iter().enumerate() {
        let (a, b) = s.span();
        if b <= a {
            continue;
        }
        let w = w_ns.clamp(1, b - a);
        let integral = Integral {
            s,
            prefix: s.prefix(),
        };
        let last_start = b - w;
        let mut push = |start: u64| {
            let u = (integral.at(start + w) - integral.at(start)) / w as f64;
            cands.push(WindowUtil {
                start_ns: start,
                utilization: u.clamp(0.0, 1.0),
                series: si,
            });
        };
        push(a);
        for &t in &s.times {
            if t >= a && t <= last_start {
                push(t);
            }
            if t >= a + w && t - w <= last_start {
                push(t - w);
            }
        }
    }
    cands.sort_by(|x, y| {
        x.utilization
            .total_cmp(&y.utilization)
            .then(x.start_ns.cmp(&y.start_ns))
    });
    let mut picked: Vec<WindowUtil> = Vec::new();
    for c in cands {
        if picked.len() >= k {
            break;
        }
        let overlaps = picked.iter().any(|p| {
            p.series == c.series && c.start_ns < p.start_ns + w_ns && p.start_ns < c.start_ns + w_ns
        });
        if !overlaps {
            picked.push(c);
        }
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_pause_mmu_is_exact() {
        // One 10 ns pause at [40, 50) in [0, 100].
        let s = UtilSeries::from_pauses(&[(40, 50)], 0, 100);
        assert_eq!(mmu_at(std::slice::from_ref(&s), 10).utilization, 0.0);
        assert!((mmu_at(std::slice::from_ref(&s), 20).utilization - 0.5).abs() < 1e-12);
        assert!((mmu_at(std::slice::from_ref(&s), 100).utilization - 0.9).abs() < 1e-12);
        assert!((mmu_at(&[s], 5).utilization).abs() < 1e-12);
    }

    #[test]
    fn overlapping_pauses_merge() {
        let s = UtilSeries::from_pauses(&[(10, 30), (20, 40), (40, 45)], 0, 100);
        assert_eq!(s.times, vec![0, 10, 45, 100]);
        assert_eq!(s.util[..3], [1.0, 0.0, 1.0]);
    }

    #[test]
    fn windows_are_log_spaced() {
        let w = default_windows_ns(1_000_000_000);
        assert_eq!(w.first(), Some(&100_000));
        assert_eq!(w.last(), Some(&1_000_000_000));
        assert!(w.windows(2).all(|p| p[0] < p[1]));
    }
}
