//! Throughput of the GC-log importers (issue #5, item 10: JVM log import ≥ 200 MB/s) on the real HotSpot logs
//! of `../shared/data/jvm-logs/` (JDK 17: Serial, Parallel, G1, ZGC). Criterion reports bytes per second.
//! Two paths: the parser on text in memory, and `import_file` streaming the file line by line (what `gclab mmu`
//! does; memory flat in the file's size). A pause CSV of ~16 MB made from the Go traces' `pauses.csv` (as
//! `scripts/big-inputs.py` makes the 1 GB one, four mutators) is imported the way `gclab mmu` imports it: only the
//! pauses' spans kept (issue 21 item 4), and the way `gclab export-perfetto` does: every field kept
//! (`PauseRecords`) and read back. A utilisation CSV of ~16 MB (Go's `util_system.csv` repeated) is imported as
//! `gclab mmu` imports it. Run: `cargo bench -p gclab-core --bench importers`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gclab_core::importers::{
    Format, Imported, PauseRecords, PauseSink, PauseSpans, import_file, import_file_as, jvm_log,
    pauses_csv,
};

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

/// A pause CSV of at least `bytes`: the Go traces' pauses, shifted by their span per copy, over four mutators.
fn pause_csv(bytes: usize) -> String {
    let go = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/go-mmu");
    let mut rows: Vec<(u64, u64, String)> = Vec::new();
    for trace in ["trace1-p2-gogc100-trees", "trace2-p1-gogc25-churn"] {
        let name = go.join(trace).join("pauses.csv");
        let text = std::fs::read_to_string(&name).unwrap_or_default();
        if let Ok(p) = pauses_csv::parse(&name.display().to_string(), &text) {
            rows.extend(p.pauses.into_iter().map(|x| (x.start_ns, x.end_ns, x.kind)));
        }
    }
    let span = rows.iter().map(|r| r.1).max().unwrap_or(1) + 1;
    let mut out = String::from("start_ns,end_ns,mutator,kind\n");
    let mut copy = 0u64;
    while out.len() < bytes && !rows.is_empty() {
        for (a, b, k) in &rows {
            let shift = copy * span;
            out.push_str(&format!("{},{},m{},{k}\n", a + shift, b + shift, copy % 4));
        }
        copy += 1;
    }
    out
}

/// Benchmarks `import` of `text` (written to a temporary file `file`) as `bench` in group `group`.
fn on_file<R>(
    c: &mut Criterion,
    (group, bench): (&str, &str),
    (file, text): (&str, &str),
    import: impl Fn(&std::path::Path) -> R,
) {
    let path = std::env::temp_dir().join(format!("gclab-bench-{}-{file}", std::process::id()));
    if gclab_core::io::write_file_atomic(&path, text.as_bytes()).is_err() {
        return;
    }
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function(bench, |b| b.iter(|| black_box(import(&path))));
    g.finish();
    let _ = std::fs::remove_file(&path);
}

/// Benchmarks `import` of the ~16 MB pause CSV as group `group`.
fn on_pause_csv_file<R>(c: &mut Criterion, group: &str, import: impl Fn(&std::path::Path) -> R) {
    let text = pause_csv(16 << 20);
    on_file(c, (group, "go-pauses-16MB"), ("pauses.csv", &text), import);
}

/// `path` imported as `format`, its pauses kept as `S` (as `gclab mmu` or `export-perfetto` keep them).
fn import_as<S: PauseSink>(path: &std::path::Path, format: Format) -> Imported<S> {
    let (_, data) = import_file_as::<S>(path, format, Default::default(), Default::default())
        .expect("the file imports");
    data
}

/// `gclab mmu`'s import of a pause CSV from a file: rows read by the `csv` crate, only the spans kept.
fn pause_csv_import_file(c: &mut Criterion) {
    on_pause_csv_file(
        c,
        "pause CSV import from file (spans)",
        |path| match import_as::<PauseSpans>(path, Format::PausesCsv) {
            Imported::Pauses(p) => p.span_ns.1 as usize,
            Imported::Util(u) => u.series.len(),
        },
    );
}

/// `gclab export-perfetto`'s import of a pause CSV from a file: every field of every pause kept (in temporary files
/// beyond 65,536 pauses), then read back in input order.
fn pause_csv_records_file(c: &mut Criterion) {
    on_pause_csv_file(
        c,
        "pause CSV import from file (records, read back)",
        |path| match import_as::<PauseRecords>(path, Format::PausesCsv) {
            Imported::Pauses(p) => p.pauses.iter().map(|x| x.end_ns).max(),
            Imported::Util(u) => Some(u.series.len() as u64),
        },
    );
}

/// A utilisation CSV of at least `bytes`: Go's `util_system.csv` of the first trace, shifted by its span per copy.
fn util_csv(bytes: usize) -> String {
    let go = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/go-mmu");
    let text = std::fs::read_to_string(go.join("trace1-p2-gogc100-trees/util_system.csv"))
        .unwrap_or_default();
    let rows: Vec<(u64, &str)> = (text.lines().skip(1))
        .filter_map(|l| l.split_once(','))
        .filter_map(|(t, u)| Some((t.parse().ok()?, u)))
        .collect();
    let span = rows.last().map_or(1, |r| r.0 + 1);
    let mut out = String::from("time_ns,util\n");
    let mut copy = 0u64;
    while out.len() < bytes && !rows.is_empty() {
        for (t, u) in &rows {
            out.push_str(&format!("{},{u}\n", t + copy * span));
        }
        copy += 1;
    }
    out
}

/// `gclab mmu`'s import of a ~16 MB utilisation CSV from a file (its steps in temporary files beyond 2^16).
fn util_csv_import_file(c: &mut Criterion) {
    let text = util_csv(16 << 20);
    let group = ("util CSV import from file", "go-util-16MB");
    on_file(c, group, ("util.csv", &text), |path| {
        match import_as::<PauseSpans>(path, Format::UtilCsv) {
            Imported::Pauses(p) => p.span_ns.1 as usize,
            Imported::Util(u) => u.series.len(),
        }
    });
}

criterion_group!(
    benches,
    jvm_import,
    jvm_import_file,
    pause_csv_import_file,
    pause_csv_records_file,
    util_csv_import_file
);
criterion_main!(benches);
