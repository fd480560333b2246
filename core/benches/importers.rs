//! Throughput of the GC-log importers (issue #5, item 10: JVM log import ≥ 200 MB/s) on the real HotSpot logs
//! of `../shared/data/jvm-logs/` (JDK 17: Serial, Parallel, G1, ZGC). Criterion reports bytes per second.
//! Two paths: the parser on text in memory, and `import_file` streaming the file line by line (what `gclab mmu`
//! does; memory flat in the file's size). Run: `cargo bench -p gclab-core --bench importers`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gclab_core::importers::{Format, Imported, import_file, jvm_log};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/jvm-logs")
}

fn logs() -> Vec<(String, String)> {
    let dir = dir();
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

/// The whole path of `gclab mmu`: the file read line by line through one buffer, streamed into the parser.
fn jvm_import_file(c: &mut Criterion) {
    let mut g = c.benchmark_group("jvm-log import from file (streamed)");
    for (name, text) in logs() {
        let path = dir().join(&name);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(&name, |b| {
            b.iter(|| {
                let (_, data) = import_file(&path, Format::Jvm).expect("a real log imports");
                match data {
                    Imported::Pauses(p) => black_box(p.pauses.len()),
                    Imported::Util(u) => black_box(u.series.len()),
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, jvm_import, jvm_import_file);
criterion_main!(benches);
