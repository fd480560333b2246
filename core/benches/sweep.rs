//! Benchmarks of the distributed sweep (issue 20): points per second on ONE core for a kvm-soc and an android-krait
//! preset (each point = its scenario built from the plan + the simulation, summary only, workload tapes shared as
//! `gclab sweep run` shares them), the cost of writing one point file atomically (render, temp file, fsync, rename),
//! and the merge rate (point files read in index order, streamed into the sweep JSON). docs/sweeps.md turns these
//! into the wall time of a 1 M-point study. Run: `cargo bench -p gclab-core --bench sweep`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gclab_core::sweep::SweepPlan;
use gclab_core::sweep::merge::{DirSource, MergeOutputs, Sink, merge};
use gclab_core::sweep::point::{point_path, render_point, write_atomic};
use gclab_core::{Cancel, NoProgress, WorkloadTapes, simulate_with};

fn plan(spec: &str, set: &[&str], vary: &[&str]) -> SweepPlan {
    let set: Vec<String> = set.iter().map(|s| (*s).to_string()).collect();
    let vary: Vec<String> = vary.iter().map(|s| (*s).to_string()).collect();
    SweepPlan::new(spec, &set, &vary).expect("plan").0
}

/// Points of `plan`, round-robin, one per iteration: the per-core rate of `gclab sweep run`.
fn points_per_core(c: &mut Criterion, name: &str, plan: &SweepPlan, samples: usize) {
    let base = plan.base_scenario().expect("base");
    let tapes = WorkloadTapes::new();
    let mut g = c.benchmark_group("sweep");
    g.sample_size(samples);
    g.throughput(Throughput::Elements(1));
    let mut i = 0;
    g.bench_function(name, |b| {
        b.iter(|| {
            let sc = plan.scenario_at(&base, i % plan.len()).expect("point");
            i += 1;
            let run =
                simulate_with(&sc, Some(&tapes), &Cancel::never(), &mut NoProgress).expect("runs");
            black_box(run.summary.energy_j.total)
        });
    });
    g.finish();
}

fn kvm_points(c: &mut Criterion) {
    let p = plan(
        "preset:kvm/calculator",
        &[],
        &[
            "collector.kind=base,k-allocation,adaptive",
            "heap.bank_size=4KiB,8KiB,16KiB,32KiB",
            "seed=1,2,3,4,5",
        ],
    );
    points_per_core(c, "kvm/calculator point (1 core)", &p, 50);
}

fn android_points(c: &mut Criterion) {
    let p = plan(
        "preset:android/quadrant",
        &["collector.kind=gencms"],
        &["heap.target_util=0.5,0.6,0.7,0.8,0.9"],
    );
    points_per_core(c, "android/quadrant point (1 core)", &p, 10);
}

/// A results folder of `n` kvm points (one real summary, written under every index).
fn results(n: u64) -> (SweepPlan, PathBuf) {
    let seeds: Vec<String> = (1..=n).map(|s| s.to_string()).collect();
    let vary = format!("seed={}", seeds.join(","));
    let p = plan("preset:kvm/calculator", &[], &[&vary]);
    let base = p.base_scenario().expect("base");
    let sc = p.scenario_at(&base, 0).expect("point");
    let run = simulate_with(&sc, None, &Cancel::never(), &mut NoProgress).expect("runs");
    let dir = std::env::temp_dir().join(format!("gclab-bench-sweep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for i in 0..n {
        let text = render_point(&p, i, &run.summary);
        write_atomic(&point_path(&dir, i, n), text.as_bytes()).expect("write");
    }
    (p, dir)
}

fn point_files(c: &mut Criterion) {
    let n = 2000;
    let (p, dir) = results(n);
    let base = p.base_scenario().expect("base");
    let run = simulate_with(
        &p.scenario_at(&base, 0).expect("point"),
        None,
        &Cancel::never(),
        &mut NoProgress,
    )
    .expect("runs");
    let mut g = c.benchmark_group("sweep");
    g.sample_size(20);
    g.throughput(Throughput::Elements(1));
    let scratch = dir.join("scratch");
    let mut i = 0;
    g.bench_function("write one point file (render, fsync, rename)", |b| {
        b.iter(|| {
            let text = render_point(&p, i % n, &run.summary);
            write_atomic(&point_path(&scratch, i % n, n), text.as_bytes()).expect("write");
            i += 1;
        });
    });
    g.throughput(Throughput::Elements(n));
    g.bench_function("merge 2000 point files to JSON", |b| {
        b.iter(|| {
            let mut src = DirSource::new(&dir, n);
            let mut sink = std::io::sink();
            let outs = MergeOutputs {
                json: Some(Sink {
                    name: "sink".into(),
                    out: &mut sink,
                }),
                ..MergeOutputs::default()
            };
            merge(&p, &mut src, "bench", outs, &mut |_| {}).expect("merge");
        });
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, kvm_points, android_points, point_files);
criterion_main!(benches);
