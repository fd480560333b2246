//! Benchmarks of the exact MMU (`metrics::mmu`) on one long series: 500 000 pauses (1 M edges) from a seeded
//! generator, (a) building the step function and the [`MmuCurve`] from the pauses, (b) the MMU at 100 log-spaced
//! windows from 0.1 ms to the span on a built curve. Run: `cargo bench -p gclab-core --bench mmu`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use gclab_core::SimRng;
use gclab_core::metrics::mmu::{MmuCurve, UtilSeries};

/// Number of pauses (two edges each).
const PAUSES: usize = 500_000;

/// The pauses `[start, end)` and the span end: gaps of 1–20 ms, pauses of 0.05–2 ms, seed 1. `[ns]`
fn pauses() -> (Vec<(u64, u64)>, u64) {
    let mut rng = SimRng::new(1);
    let mut pauses = Vec::with_capacity(PAUSES);
    let mut t = 0u64;
    for _ in 0..PAUSES {
        t += rng.range_inclusive(1_000_000, 20_000_000);
        let d = rng.range_inclusive(50_000, 2_000_000);
        pauses.push((t, t + d));
        t += d;
    }
    (pauses, t + 1_000_000)
}

/// 100 log-spaced windows from 0.1 ms to `span`. `[ns]`
fn windows(span: u64) -> Vec<u64> {
    (0..100)
        .map(|i| (1e5 * (span as f64 / 1e5).powf(i as f64 / 99.0)) as u64)
        .collect()
}

fn build(c: &mut Criterion) {
    let (pauses, span) = pauses();
    let mut g = c.benchmark_group("mmu");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    g.throughput(criterion::Throughput::Elements(2 * PAUSES as u64));
    g.bench_function("build series + curve (1M edges)", |b| {
        b.iter(|| {
            let series = [UtilSeries::from_pauses(black_box(&pauses), 0, span)];
            let curve = MmuCurve::new(&series);
            black_box(&curve);
        });
    });
    g.finish();
}

fn query(c: &mut Criterion) {
    let (pauses, span) = pauses();
    let series = [UtilSeries::from_pauses(&pauses, 0, span)];
    let curve = MmuCurve::new(&series);
    let windows = windows(span);
    let mut g = c.benchmark_group("mmu");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    g.throughput(criterion::Throughput::Elements(windows.len() as u64));
    g.bench_function("100 windows (1M edges)", |b| {
        b.iter(|| {
            for &w in &windows {
                black_box(curve.mmu(black_box(w)));
            }
        });
    });
    g.finish();
}

criterion_group!(benches, build, query);
criterion_main!(benches);
