//! Benchmarks of the android-krait platform (issue #3, item 14): each Table 1 preset under default CMS with the
//! full recording the app uses (per-core activity spans, occupancy, pauses), one run per iteration.
//! Run: `cargo bench -p gclab-core --bench android`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gclab_core::scenario::presets::ANDROID_BENCHMARKS;
use gclab_core::{Cancel, NoProgress, Scenario, simulate};

fn each_preset(c: &mut Criterion) {
    let mut g = c.benchmark_group("android");
    g.sample_size(10);
    for p in ANDROID_BENCHMARKS {
        let sc = Scenario::preset(p).expect("preset");
        g.bench_function(p, |b| {
            b.iter(|| black_box(simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs")))
        });
    }
    g.finish();
}

criterion_group!(benches, each_preset);
criterion_main!(benches);
