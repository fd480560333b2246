//! A GC log's plotted series thinned to what a plot can show (issue 21, nothing lost): a 1 GB G1 log's 0.8 M
//! pauses gave 1.6 M heap points, which egui tessellated into a 353 MB index buffer, past wgpu's 256 MiB buffer
//! limit — the app panicked on its first frame of the Overview. Every series [`super::log::LogView`] draws is
//! bounded here: at most [`BUCKETS`] time buckets (more than a wide plot has pixel columns), each keeping what its
//! column shows, and at most [`MAX_KINDS`] pause kinds, the rarer ones merged.

use egui_plot::PlotPoint;

/// Time buckets a plotted series keeps at most (the longest pause, or a line's extremes, of each).
pub const BUCKETS: usize = 3000;
/// Pause kinds drawn apart at most; the rarer ones are drawn as one (a log may name thousands). A G1 log has six.
pub const MAX_KINDS: usize = 8;

/// The bucket of time `x` in a span of `duration_s`, of [`BUCKETS`]. `[s]`
#[cfg(test)]
fn bucket(x: f64, duration_s: f64) -> usize {
    bucket_of(x, duration_s, BUCKETS)
}

/// The bucket of time `x` in a span of `duration_s` cut into `buckets` (`buckets` for the span's end). `[s]`
fn bucket_of(x: f64, duration_s: f64, buckets: usize) -> usize {
    (((x / duration_s).clamp(0.0, 1.0)) * buckets as f64) as usize
}

/// Bars `(start [s], length [ms])` pushed in any order, thinned as they come: kept whole up to as many as
/// there are buckets, then the longest of each time bucket (of equal ones, the earlier) — so memory stays bounded
/// whatever the log's size (a 1 GB pause CSV's 19.6 M pauses). [`Bars::finish`] gives them in time order.
#[derive(Debug)]
pub struct Bars {
    duration_s: f64,
    buckets: usize,
    raw: Vec<(f64, f64)>,
    kept: Vec<Option<(f64, f64)>>,
}

impl Bars {
    /// Bars over a span of `duration_s`, in [`BUCKETS`] buckets.
    pub fn new(duration_s: f64) -> Self {
        Bars::in_buckets(duration_s, BUCKETS)
    }

    /// Bars over a span of `duration_s`, in `buckets` buckets.
    pub fn in_buckets(duration_s: f64, buckets: usize) -> Self {
        Bars {
            duration_s,
            buckets: buckets.max(1),
            raw: Vec::new(),
            kept: Vec::new(),
        }
    }

    /// Adds the bar `(start [s], length [ms])`.
    pub fn push(&mut self, bar: (f64, f64)) {
        if !self.kept.is_empty() {
            self.fold(bar);
            return;
        }
        self.raw.push(bar);
        if self.raw.len() > self.buckets && self.duration_s > 0.0 {
            self.kept = vec![None; self.buckets + 1];
            for b in std::mem::take(&mut self.raw) {
                self.fold(b);
            }
        }
    }

    fn fold(&mut self, (t, len): (f64, f64)) {
        let b = &mut self.kept[bucket_of(t, self.duration_s, self.buckets)];
        match b {
            Some(k) if len < k.1 || (len == k.1 && t >= k.0) => {}
            _ => *b = Some((t, len)),
        }
    }

    /// The bars kept, in time order.
    pub fn finish(self) -> Vec<(f64, f64)> {
        if self.kept.is_empty() {
            let mut v = self.raw;
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            return v;
        }
        self.kept.into_iter().flatten().collect()
    }
}

/// Times pushed in any order, thinned as they come: kept whole up to `buckets`, then the earliest of each of
/// `buckets` time buckets (8 bytes each). [`Starts::finish`] gives them in time order. `[s]`
#[derive(Debug)]
pub struct Starts {
    duration_s: f64,
    buckets: usize,
    raw: Vec<f64>,
    /// Per bucket, the earliest time (infinity: none).
    kept: Vec<f64>,
}

impl Starts {
    /// Times over a span of `duration_s`, in `buckets` buckets.
    pub fn new(duration_s: f64, buckets: usize) -> Self {
        Starts {
            duration_s,
            buckets: buckets.max(1),
            raw: Vec::new(),
            kept: Vec::new(),
        }
    }

    /// Adds time `t`. `[s]`
    pub fn push(&mut self, t: f64) {
        if self.kept.is_empty() {
            self.raw.push(t);
            if self.raw.len() <= self.buckets || self.duration_s <= 0.0 {
                return;
            }
            self.kept = vec![f64::INFINITY; self.buckets + 1];
            for r in std::mem::take(&mut self.raw) {
                self.fold(r);
            }
        } else {
            self.fold(t);
        }
    }

    fn fold(&mut self, t: f64) {
        let b = &mut self.kept[bucket_of(t, self.duration_s, self.buckets)];
        *b = b.min(t);
    }

    /// The times kept, in time order. `[s]`
    pub fn finish(self) -> Vec<f64> {
        if self.kept.is_empty() {
            let mut v = self.raw;
            v.sort_by(f64::total_cmp);
            return v;
        }
        self.kept.into_iter().filter(|t| t.is_finite()).collect()
    }
}

/// A line's points, or a scatter's, pushed in any order and thinned as they come: kept whole up to four a
/// bucket, then the first, lowest, highest and last point of each of [`BUCKETS`] time buckets — the line through
/// them reaches the same extremes in every pixel column, and its ends are where they were — in bounded memory.
/// [`Points::finish`] gives them in time order.
#[derive(Debug)]
pub struct Points {
    duration_s: f64,
    raw: Vec<PlotPoint>,
    /// Per bucket: first, lowest, highest, last.
    kept: Vec<Option<[PlotPoint; 4]>>,
}

impl Points {
    /// Points over a span of `duration_s`.
    pub fn new(duration_s: f64) -> Self {
        Points {
            duration_s,
            raw: Vec::new(),
            kept: Vec::new(),
        }
    }

    /// `points` thinned (any order in, time order out).
    pub fn thin(points: impl IntoIterator<Item = PlotPoint>, duration_s: f64) -> Vec<PlotPoint> {
        let mut t = Points::new(duration_s);
        points.into_iter().for_each(|p| t.push(p));
        t.finish()
    }

    /// Adds `p`.
    pub fn push(&mut self, p: PlotPoint) {
        if !self.kept.is_empty() {
            self.fold(p);
            return;
        }
        self.raw.push(p);
        if self.raw.len() > 4 * BUCKETS && self.duration_s > 0.0 {
            self.kept = vec![None; BUCKETS + 1];
            for q in std::mem::take(&mut self.raw) {
                self.fold(q);
            }
        }
    }

    fn fold(&mut self, p: PlotPoint) {
        let b = &mut self.kept[bucket_of(p.x, self.duration_s, BUCKETS)];
        match b {
            None => *b = Some([p; 4]),
            Some([first, lo, hi, last]) => {
                if p.x < first.x {
                    *first = p;
                }
                if p.y < lo.y {
                    *lo = p;
                }
                if p.y > hi.y {
                    *hi = p;
                }
                if p.x >= last.x {
                    *last = p;
                }
            }
        }
    }

    /// The points kept, in time order.
    pub fn finish(self) -> Vec<PlotPoint> {
        let by_x = |a: &PlotPoint, b: &PlotPoint| a.x.total_cmp(&b.x);
        if self.kept.is_empty() {
            let mut v = self.raw;
            v.sort_by(by_x);
            return v;
        }
        let mut out = Vec::with_capacity(4 * BUCKETS);
        for mut four in self.kept.into_iter().flatten() {
            four.sort_by(by_x);
            let start = out.len();
            for p in four {
                if !out[start..].contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }
}

/// A step line through `levels` (time-sorted `(time [s], level)`: the level from that time on), drawn to
/// `end_s`: a level equal to the one before adds no step.
pub fn steps(levels: &[PlotPoint], end_s: f64) -> Vec<PlotPoint> {
    let mut out: Vec<PlotPoint> = Vec::new();
    for &p in levels {
        match out.last().copied() {
            Some(last) if last.y == p.y => {}
            Some(last) => {
                out.push(PlotPoint::new(p.x, last.y));
                out.push(p);
            }
            None => out.push(p),
        }
    }
    if let Some(last) = out.last().copied() {
        out.push(PlotPoint::new(end_s, last.y));
    }
    out
}

/// The pause kinds drawn, from each kind's count (in the order first seen): the most frequent first, all of them
/// when there are at most [`MAX_KINDS`], else the first [`MAX_KINDS`] − 1 and a last one named for how many kinds
/// it merges. Returns the names drawn and, per kind counted, the index of the one it is drawn as.
pub fn kinds(counts: &[usize]) -> (Vec<usize>, usize, Vec<usize>) {
    let mut order: Vec<usize> = (0..counts.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(counts[k]));
    let shown = if counts.len() <= MAX_KINDS {
        counts.len()
    } else {
        MAX_KINDS - 1
    };
    let mut slot = vec![shown; counts.len()];
    for (i, &k) in order.iter().take(shown).enumerate() {
        slot[k] = i;
    }
    order.truncate(shown);
    (order, counts.len() - shown, slot)
}

/// The union of `spans`, with spans less than `gap` apart merged (so never more spans than pixels). `[s]`
/// Spans in time order (as the importers give concurrent phases) are merged as they come; any out of order are
/// set aside and merged in afterwards, so memory holds the union, not every span.
pub fn spans(spans: impl IntoIterator<Item = (f64, f64)>, gap: f64) -> Vec<(f64, f64)> {
    let merge = |out: &mut Vec<(f64, f64)>, (a, b): (f64, f64)| match out.last_mut() {
        Some(l) if a <= l.1 + gap => l.1 = l.1.max(b),
        _ => out.push((a, b)),
    };
    let (mut out, mut late) = (Vec::new(), Vec::new());
    for s in spans {
        match out.last() {
            Some(&(a, _)) if s.0 < a => late.push(s),
            _ => merge(&mut out, s),
        }
    }
    if late.is_empty() {
        return out;
    }
    late.append(&mut out);
    late.sort_by(|a, b| a.0.total_cmp(&b.0));
    late.into_iter().fold(Vec::new(), |mut o, s| {
        merge(&mut o, s);
        o
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sawtooth of a million points (a 1 GB log's heap in use) keeps at most four points a bucket, its global
    /// lowest and highest points, and its ends; a short series is kept whole.
    #[test]
    fn a_million_points_keep_each_columns_extremes_and_the_ends() {
        let n: u32 = 1_000_000;
        let saw: Vec<PlotPoint> = (0..n)
            .map(|i| {
                PlotPoint::new(
                    f64::from(i) * 1e-3,
                    ((u64::from(i) * 7919) % 1000) as f64
                        + f64::from(u8::from(i == 500_000)) * 5000.0,
                )
            })
            .collect();
        let thin = Points::thin(saw.clone(), 1000.0);
        assert!(thin.len() <= 4 * BUCKETS, "{} points", thin.len());
        assert!(thin.windows(2).all(|w| w[0].x <= w[1].x), "time order");
        assert_eq!(thin.first().map(|p| p.x), Some(0.0), "first point");
        assert_eq!(
            thin.last().map(|p| p.x),
            saw.last().map(|p| p.x),
            "last point"
        );
        let top = |s: &[PlotPoint]| s.iter().map(|p| p.y).fold(f64::MIN, f64::max);
        let bottom = |s: &[PlotPoint]| s.iter().map(|p| p.y).fold(f64::MAX, f64::min);
        assert_eq!(
            (top(&thin), bottom(&thin)),
            (top(&saw), bottom(&saw)),
            "extremes"
        );
        // Every bucket's extremes survive, not only the global ones.
        for b in [0, 1, 1234, BUCKETS - 1] {
            let in_b = |s: &[PlotPoint]| -> Vec<PlotPoint> {
                s.iter()
                    .copied()
                    .filter(|p| bucket(p.x, 1000.0) == b)
                    .collect()
            };
            assert_eq!(top(&in_b(&thin)), top(&in_b(&saw)), "bucket {b} highest");
            assert_eq!(
                bottom(&in_b(&thin)),
                bottom(&in_b(&saw)),
                "bucket {b} lowest"
            );
        }
        let short: Vec<PlotPoint> = saw[..100].to_vec();
        assert_eq!(
            Points::thin(short.clone(), 1000.0),
            short,
            "a short series is kept"
        );
    }

    #[test]
    fn steps_only_where_the_level_changes_and_kinds_past_the_cap_merge() {
        let levels: Vec<PlotPoint> = (0..100_000)
            .map(|i| PlotPoint::new(f64::from(i), if i < 50_000 { 128.0 } else { 256.0 }))
            .collect();
        let s = steps(&levels, 2e5);
        let xy: Vec<(f64, f64)> = s.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(
            xy,
            [
                (0.0, 128.0),
                (50_000.0, 128.0),
                (50_000.0, 256.0),
                (2e5, 256.0)
            ],
            "one step"
        );
        // Kind k of 20 counted k + 1 times: the seven most frequent drawn apart, the other 13 as one.
        let counts: Vec<usize> = (1..=20).collect();
        let (shown, merged, slot) = kinds(&counts);
        assert_eq!(shown, [19, 18, 17, 16, 15, 14, 13], "most frequent first");
        assert_eq!(
            (shown.len() + 1, merged),
            (MAX_KINDS, 13),
            "capped, the rest merged"
        );
        assert!(
            slot[..13].iter().all(|&s| s == MAX_KINDS - 1),
            "the rarer ones drawn as one"
        );
        assert_eq!(slot[19], 0);
        let (all, none, _) = kinds(&[3, 5, 4]);
        assert_eq!((all, none), (vec![1, 2, 0], 0), "a few kinds all drawn");
    }

    /// Spans in or out of time order give the same union; starts past the cap keep each bucket's earliest.
    #[test]
    fn spans_merge_in_any_order_and_starts_keep_each_buckets_earliest() {
        let sorted: Vec<(f64, f64)> = (0..1000)
            .map(|i| (f64::from(i), f64::from(i) + 0.3))
            .collect();
        let mut shuffled = sorted.clone();
        shuffled.reverse();
        shuffled.swap(10, 500);
        assert_eq!(
            spans(sorted.clone(), 0.8),
            [(0.0, 999.3)],
            "gaps below 0.8 merged"
        );
        assert_eq!(spans(shuffled.clone(), 0.8), [(0.0, 999.3)]);
        assert_eq!(spans(shuffled, 0.5), spans(sorted, 0.5), "the same union");
        let mut st = Starts::new(100.0, 10);
        (0..1000).rev().for_each(|i| st.push(f64::from(i) * 0.1));
        let kept = st.finish();
        assert_eq!(kept.len(), 10, "one a bucket");
        assert_eq!(kept[..3], [0.0, 10.0, 20.0], "each bucket's earliest");
        let mut few = Starts::new(100.0, 10);
        [3.0, 1.0, 2.0].iter().for_each(|&t| few.push(t));
        assert_eq!(few.finish(), [1.0, 2.0, 3.0], "kept whole, sorted");
    }

    /// Bars and points pushed out of time order come out as the sorted series thinned: a short series whole, a
    /// long one with the longest bar of each bucket.
    #[test]
    fn bars_in_any_order_keep_the_longest_of_each_bucket() {
        let bars: Vec<(f64, f64)> = (0..100_000u32)
            .map(|i| (f64::from((i * 7919) % 100_000) * 1e-2, f64::from(i % 97)))
            .collect();
        let mut b = Bars::new(1000.0);
        bars.iter().for_each(|&x| b.push(x));
        let kept = b.finish();
        assert!(kept.len() <= BUCKETS + 1, "{} bars", kept.len());
        assert!(kept.windows(2).all(|w| w[0].0 < w[1].0), "time order");
        for k in [0, 17, BUCKETS - 1] {
            let longest = |s: &[(f64, f64)]| {
                (s.iter().filter(|x| bucket(x.0, 1000.0) == k))
                    .map(|x| x.1)
                    .fold(0.0, f64::max)
            };
            assert_eq!(longest(&kept), longest(&bars), "bucket {k}");
        }
        let mut few = Bars::new(1000.0);
        [(3.0, 1.0), (1.0, 2.0), (2.0, 3.0)]
            .iter()
            .for_each(|&x| few.push(x));
        assert_eq!(
            few.finish(),
            [(1.0, 2.0), (2.0, 3.0), (3.0, 1.0)],
            "kept whole, sorted"
        );
        let mut rev: Vec<PlotPoint> = (0..50_000)
            .map(|i| PlotPoint::new(f64::from(i), 1.0))
            .collect();
        let sorted = Points::thin(rev.clone(), 5e4);
        rev.reverse();
        assert_eq!(Points::thin(rev, 5e4), sorted, "order in does not matter");
    }

    /// A log of 200,000 pauses of 50 kinds, each with heap sizes and a capacity that grows four times (what a
    /// 1 GB log gives by the million), draws bounded series: at most four points a time bucket per heap series,
    /// a step per capacity change, eight kinds with every pause counted — every frame's GPU buffers stay small
    /// (the whole series crashed the app past wgpu's 256 MiB buffer limit).
    #[test]
    fn a_log_of_many_pauses_and_kinds_draws_bounded_series() {
        use crate::gui::log::LogView;
        use crate::gui::log_pauses::tests::as_records;
        use gclab_core::Cancel;
        use gclab_core::importers::{Format, Imported, Pause, PauseSeries};
        use std::path::Path;
        let n = 200_000u64;
        let pauses: Vec<Pause> = (0..n)
            .map(|i| Pause {
                start_ns: i * 10_000_000,
                end_ns: i * 10_000_000 + 1_000_000 + (i * 7919) % 3_000_000,
                kind: format!("Pause kind {}", i % 50),
                heap_before_bytes: Some((64 + (i * 31) % 64) << 20),
                heap_after_bytes: Some((16 + (i * 17) % 16) << 20),
                heap_total_bytes: Some((128 << 20) * (1 + i * 4 / n)),
                line: usize::try_from(i).unwrap_or(0) + 1,
                ..Pause::default()
            })
            .collect();
        let mut p = PauseSeries {
            pauses,
            mutators: vec!["jvm".into()],
            span_ns: (0, n * 10_000_000),
            ..PauseSeries::default()
        };
        let build = |p: &PauseSeries, format| {
            let records = Imported::Pauses(as_records(p, usize::MAX));
            LogView::build(Path::new("big.log"), format, &records, &Cancel::never())
                .expect("builds")
        };
        let v = build(&p, Format::Jvm);
        let cap = 4 * BUCKETS;
        for (name, s) in [
            ("in use", &v.heap_used),
            ("before", &v.heap_before),
            ("after", &v.heap_after),
        ] {
            assert!(s.len() <= cap, "{name}: {} points", s.len());
            assert!(
                s.len() > 1000,
                "{name}: still a series ({} points)",
                s.len()
            );
        }
        assert_eq!(
            v.heap_total.len(),
            2 + 2 * 3,
            "capacity: four levels, three steps"
        );
        assert_eq!(v.kinds.len(), MAX_KINDS, "kinds capped");
        assert_eq!(
            v.kinds.iter().map(|k| k.count).sum::<usize>(),
            200_000,
            "every pause counted"
        );
        assert!(v.kinds.iter().all(|k| k.bars.len() <= BUCKETS));
        assert_eq!(v.pauses, 200_000);
        // A logcat's processes interleave their heaps: a capacity step at every pause, thinned too.
        for (i, q) in p.pauses.iter_mut().enumerate() {
            q.heap_total_bytes = Some(if i % 2 == 0 { 64 << 20 } else { 256 << 20 });
        }
        let v = build(&p, Format::Logcat);
        assert!(
            v.heap_total.len() <= cap,
            "capacity: {} points",
            v.heap_total.len()
        );
    }
}
