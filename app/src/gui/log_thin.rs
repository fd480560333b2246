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

/// The bucket of time `x` in a span of `duration_s`. `[s]`
fn bucket(x: f64, duration_s: f64) -> usize {
    (((x / duration_s).clamp(0.0, 1.0)) * BUCKETS as f64) as usize
}

/// Keeps the longest pause of each of [`BUCKETS`] time buckets when there are more bars than that; `bars` are
/// `(start [s], length [ms])` in time order.
pub fn bars(bars: Vec<(f64, f64)>, duration_s: f64) -> Vec<(f64, f64)> {
    if bars.len() <= BUCKETS || duration_s <= 0.0 {
        return bars;
    }
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(BUCKETS + 1);
    let mut last_bucket = usize::MAX;
    for (t, len) in bars {
        let b = bucket(t, duration_s);
        match out.last_mut() {
            Some(l) if b == last_bucket => {
                if len > l.1 {
                    *l = (t, len);
                }
            }
            _ => {
                out.push((t, len));
                last_bucket = b;
            }
        }
    }
    out
}

/// A line's points (sorted by time), or a scatter's, with at most its first, lowest, highest and last point in
/// each of [`BUCKETS`] time buckets, in time order: the line through them reaches the same extremes in every
/// pixel column, and its ends are where they were.
pub fn points(points: Vec<PlotPoint>, duration_s: f64) -> Vec<PlotPoint> {
    if points.len() <= 4 * BUCKETS || duration_s <= 0.0 {
        return points;
    }
    let mut out = Vec::with_capacity(4 * BUCKETS + 4);
    let mut i = 0;
    while i < points.len() {
        let b = bucket(points[i].x, duration_s);
        let (mut lo, mut hi, mut j) = (i, i, i);
        while j < points.len() && bucket(points[j].x, duration_s) == b {
            if points[j].y < points[lo].y {
                lo = j;
            }
            if points[j].y > points[hi].y {
                hi = j;
            }
            j += 1;
        }
        let mut keep = [i, lo, hi, j - 1];
        keep.sort_unstable();
        let mut last = usize::MAX;
        for k in keep {
            if k != last {
                out.push(points[k]);
                last = k;
            }
        }
        i = j;
    }
    out
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

/// Pause kinds (each `(kind, bars)`), most frequent first, with the kinds past the first [`MAX_KINDS`] − 1
/// merged into one named for how many they are; each kind's bars in time order.
pub fn kinds(mut kinds: Vec<(String, Vec<(f64, f64)>)>) -> Vec<(String, Vec<(f64, f64)>)> {
    kinds.sort_by_key(|(_, b)| std::cmp::Reverse(b.len()));
    if kinds.len() <= MAX_KINDS {
        return kinds;
    }
    let rest = kinds.split_off(MAX_KINDS - 1);
    let n = rest.len();
    let mut bars: Vec<(f64, f64)> = rest.into_iter().flat_map(|(_, b)| b).collect();
    bars.sort_by(|a, b| a.0.total_cmp(&b.0));
    kinds.push((format!("{n} other kinds"), bars));
    kinds
}

/// The union of `spans`, with spans less than `gap` apart merged (so never more spans than pixels). `[s]`
pub fn spans(spans: impl IntoIterator<Item = (f64, f64)>, gap: f64) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = spans.into_iter().collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (a, b) in v {
        match out.last_mut() {
            Some(l) if a <= l.1 + gap => l.1 = l.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
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
        let thin = points(saw.clone(), 1000.0);
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
            points(short.clone(), 1000.0),
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
        let many: Vec<(String, Vec<(f64, f64)>)> = (0..20)
            .map(|k| {
                (
                    format!("kind {k}"),
                    vec![(f64::from(k), 1.0); k as usize + 1],
                )
            })
            .collect();
        let merged = kinds(many);
        assert_eq!(merged.len(), MAX_KINDS, "capped");
        assert_eq!(merged[0].0, "kind 19", "most frequent first");
        assert_eq!(merged[MAX_KINDS - 1].0, "13 other kinds", "the rest merged");
        let all: usize = merged.iter().map(|(_, b)| b.len()).sum();
        assert_eq!(all, (1..=20).sum::<usize>(), "no pause lost");
    }

    /// A log of 200,000 pauses of 50 kinds, each with heap sizes and a capacity that grows four times (what a
    /// 1 GB log gives by the million), draws bounded series: at most four points a time bucket per heap series,
    /// a step per capacity change, eight kinds with every pause counted — every frame's GPU buffers stay small
    /// (the whole series crashed the app past wgpu's 256 MiB buffer limit).
    #[test]
    fn a_log_of_many_pauses_and_kinds_draws_bounded_series() {
        use crate::gui::log::LogView;
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
        let data = Imported::Pauses(PauseSeries {
            pauses,
            mutators: vec!["jvm".into()],
            span_ns: (0, n * 10_000_000),
            ..PauseSeries::default()
        });
        let v = LogView::build(Path::new("big.log"), Format::Jvm, &data).expect("builds");
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
        let Imported::Pauses(mut p) = data else {
            unreachable!("built above")
        };
        for (i, q) in p.pauses.iter_mut().enumerate() {
            q.heap_total_bytes = Some(if i % 2 == 0 { 64 << 20 } else { 256 << 20 });
        }
        let v = LogView::build(Path::new("big.log"), Format::Logcat, &Imported::Pauses(p))
            .expect("builds");
        assert!(
            v.heap_total.len() <= cap,
            "capacity: {} points",
            v.heap_total.len()
        );
    }
}
