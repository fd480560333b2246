//! Benchmarks of the kvm-soc platform (issue #2, item 19): all nine JVM'02 applications under base, the six
//! k-allocation collectors and adaptive — 72 runs — on one core, with the full recording the app uses (layout
//! included) and without it (what sweeps use). Each pass starts from an empty [`WorkloadTapes`] store, as a
//! sweep or `gclab reproduce` does: each application's workload is drawn once, by its first run, and replayed
//! by the other seven. The "draws each" figure is every run drawing its workload itself (plain `simulate`).
//! Run: `cargo bench -p gclab-core --bench kvm`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gclab_core::reproduce::kvm::collector_sets;
use gclab_core::scenario::presets::KVM_APPS;
use gclab_core::{Cancel, NoProgress, Scenario, WorkloadTapes, simulate, simulate_with};

fn scenarios(layout: bool) -> Vec<Scenario> {
    let mut out = Vec::new();
    for app in KVM_APPS {
        for set in collector_sets() {
            let mut s = set.clone();
            s.push(format!("record.layout={layout}"));
            out.push(Scenario::load(&format!("preset:{app}"), &s).expect("preset"));
        }
    }
    out
}

fn all_72_runs(c: &mut Criterion) {
    for layout in [true, false] {
        let scs = scenarios(layout);
        let allocations: u64 = scs
            .iter()
            .map(|s| {
                simulate(s, &Cancel::never(), &mut NoProgress)
                    .expect("runs")
                    .summary
                    .allocations
            })
            .sum();
        let name = if layout {
            "kvm/72 runs (with layout)"
        } else {
            "kvm/72 runs (summary only)"
        };
        let mut g = c.benchmark_group("kvm");
        g.sample_size(10);
        g.throughput(criterion::Throughput::Elements(allocations));
        g.bench_function(name, |b| {
            b.iter(|| {
                let tapes = WorkloadTapes::new();
                for s in &scs {
                    black_box(
                        simulate_with(s, Some(&tapes), &Cancel::never(), &mut NoProgress)
                            .expect("runs"),
                    );
                }
            });
        });
        if !layout {
            g.bench_function("kvm/72 runs (summary only, draws each)", |b| {
                b.iter(|| {
                    for s in &scs {
                        black_box(simulate(s, &Cancel::never(), &mut NoProgress).expect("runs"));
                    }
                });
            });
        }
        g.finish();
    }
}

fn one_kwml_k10(c: &mut Criterion) {
    let s = Scenario::load(
        "preset:kvm/kwml",
        &[
            "collector.kind=k-allocation".into(),
            "collector.k=10".into(),
        ],
    )
    .expect("preset");
    c.bench_function("kvm/kwml k=10 (heaviest single run)", |b| {
        b.iter(|| black_box(simulate(&s, &Cancel::never(), &mut NoProgress).expect("runs")));
    });
}

criterion_group!(benches, all_72_runs, one_kwml_k10);
criterion_main!(benches);
