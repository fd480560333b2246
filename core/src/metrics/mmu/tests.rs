//! Unit tests of the MMU: exact values on hand-made series, pause merging and clipping, agreement with brute force
//! (every integer start) on random series and with an every-step-edge reference on long bursty series, and the
//! worst windows sorted, disjoint and led by the minimum.

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
            // Utilisations 0 and 1 only: exact, and then rank 1 is the MMU to the bit (`gclab mmu` relies on it).
            // (a fractional case can draw only 0s and 1s and be exact too)
            assert!(case % 2 == 0 || curve.exact(), "case {case}: exact");
            if curve.exact() {
                assert_eq!(
                    worst[0].utilization.to_bits(),
                    got.utilization.to_bits(),
                    "case {case} w {w}: rank 1 is the MMU"
                );
            }
            for (i, a) in worst.iter().enumerate() {
                for b in &worst[i + 1..] {
                    assert!(a.utilization <= b.utilization, "sorted");
                    let sp = series[a.series].span();
                    let ww = w.min(sp.1 - sp.0);
                    let disjoint = a.start_ns + ww <= b.start_ns || b.start_ns + ww <= a.start_ns;
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
    // Taking the series clips it the same, covering spans included.
    for (a, b) in [
        (15, 55),
        (0, 100),
        (0, 500),
        (200, 300),
        (10, 20),
        (99, 100),
    ] {
        assert_eq!(s.clone().into_clipped(a, b), s.clipped(a, b), "[{a}, {b}]");
    }
}

#[test]
fn windows_are_log_spaced() {
    let w = default_windows_ns(1_000_000_000);
    assert_eq!(w.first(), Some(&100_000), "from 0.1 ms");
    assert_eq!(w.last(), Some(&1_000_000_000), "to the span");
    assert!(w.windows(2).all(|p| p[0] < p[1]), "ascending");
}

/// Passing over the bands that cannot change the accumulator picks the windows that refining every band picks: on
/// periodic pauses (exact ties in every band, integer sums), on random 0/1 series and on fractional ones.
#[test]
fn passing_over_bands_keeps_the_worst_windows() {
    let mut rng = SimRng::new(21);
    let mut cases: Vec<Vec<UtilSeries>> = Vec::new();
    let periodic: Vec<(u64, u64)> = (0..3000u64)
        .flat_map(|k| {
            [
                (k * 1000 + 100, k * 1000 + 130),
                (k * 1000 + 500, k * 1000 + 507),
            ]
        })
        .collect();
    cases.push(vec![UtilSeries::from_pauses(&periodic, 0, 3_000_000)]);
    for fractional in [false, true] {
        for _ in 0..40 {
            let n = rng.range_inclusive(1, 3) as usize;
            cases.push(
                (0..n)
                    .map(|_| random_series(&mut rng, fractional))
                    .collect(),
            );
        }
    }
    for series in &cases {
        let curve = MmuCurve::new(series);
        let (a, b) = series[0].span();
        for w in [1, 7, 30, 31, 100, 450, 1000, 2500, (b - a) / 2, b - a] {
            let mut all = Acc::new(5, false);
            all.pass_over = false;
            assert_eq!(
                curve.examples(w, &mut Acc::new(5, false)),
                curve.examples(w, &mut all),
                "window {w}"
            );
        }
    }
}

/// Windows so long that fewer disjoint ones fit than are asked for: the accumulator never fills, its bound stays
/// 1 and Go refines every band; a band whose windows all overlap a kept window no better than any of them is
/// passed over instead, with the same windows picked (periodic pauses: every band holds a tie).
#[test]
fn long_windows_pass_over_the_bands_a_kept_window_covers() {
    let periodic: Vec<(u64, u64)> = (0..3000u64)
        .flat_map(|k| {
            [
                (k * 1000 + 100, k * 1000 + 130),
                (k * 1000 + 500, k * 1000 + 507 + k % 7),
            ]
        })
        .collect();
    let series = vec![UtilSeries::from_pauses(&periodic, 0, 3_000_000)];
    let curve = MmuCurve::new(&series);
    for w in [1_000_000, 1_400_000, 2_000_000] {
        let mut all = Acc::new(5, false);
        all.pass_over = false;
        let mut some = Acc::new(5, false);
        let picked = curve.examples(w, &mut some);
        assert_eq!(picked, curve.examples(w, &mut all), "window {w}");
        assert!(
            picked.len() < 5,
            "window {w}: fewer than 5 disjoint windows fit ({} picked)",
            picked.len()
        );
        assert!(
            some.refined * 10 < all.refined,
            "window {w}: {} of {} bands refined",
            some.refined,
            all.refined
        );
    }
}
