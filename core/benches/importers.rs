//! Throughput of the GC-log importers (issue #5, item 10: JVM log import ≥ 200 MB/s) on the real HotSpot logs
//! of `../shared/data/jvm-logs/` (JDK 17: Serial, Parallel, G1, ZGC). Criterion reports bytes per second.
//! Run: `cargo bench -p gclab-core --bench importers`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gclab_core::importers::jvm_log;

fn logs() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/jvm-logs");
    let mut out = Vec::new();
    for name in [
        "jdk17-serial-xmx128m.log",
        "jdk17-parallel-xmx128m.log",
        "jdk17-g1-xmx128m.log",
        "jdk17-zgc-xmx256m.log",
    ] {
        if let Ok(text) = std::fs::read_to_string(dir.join(name)) {
            out.push((name.to_string(), text));
        }
    }
    out
}

fn jvm_import(c: &mut Criterion) {
    let mut g = c.benchmark_group("jvm-log import");
    for (name, text) in logs() {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(&name, |b| {
            b.iter(|| black_box(jvm_log::parse(&name, &text).expect("a real log parses")))
        });
    }
    g.finish();
}

criterion_group!(benches, jvm_import);
criterion_main!(benches);
