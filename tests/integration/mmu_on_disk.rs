//! The on-disk MMU (`MmuCurve::from_pauses_on_disk`, used by `gclab mmu` on inputs too big for memory) against
//! the in-memory one, forced onto disk with tiny sort runs and spill thresholds: on every real log and Go
//! recording in `../shared/data` (and the test fixtures) the MMU at every default window and at odd windows is
//! bit-for-bit the same, and so are the worst windows (`worst` and Go's `worst_go`), with several mutators too.

use std::path::PathBuf;

use gclab_core::importers::{Format, Imported, PauseSpans, import_file, import_reader_as};
use gclab_core::metrics::mmu::{LiveSteps, MmuCurve, default_windows_ns};
use gclab_tests::{repo_root, shared_data};

fn inputs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let dirs = [
        shared_data().join("jvm-logs"),
        repo_root().join("tests/fixtures/logs"),
    ];
    for dir in dirs {
        for e in std::fs::read_dir(&dir).expect("log folder").flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "log") {
                out.push(p);
            }
        }
    }
    for e in std::fs::read_dir(shared_data().join("go-mmu"))
        .expect("go-mmu")
        .flatten()
    {
        out.push(e.path().join("pauses.csv"));
    }
    out.sort();
    assert!(out.len() >= 6, "expected the real logs, found {out:?}");
    out
}

fn same(a: &MmuCurve, b: &MmuCurve, w: u64, what: &str) {
    let (x, y) = (a.mmu(w), b.mmu(w));
    assert_eq!(
        x.utilization.to_bits(),
        y.utilization.to_bits(),
        "{what}: MMU at {w} ns: {} in memory, {} on disk",
        x.utilization,
        y.utilization
    );
    assert_eq!(
        a.worst(w, 5),
        b.worst(w, 5),
        "{what}: worst windows at {w} ns"
    );
    assert_eq!(
        a.worst_go(w, 5),
        b.worst_go(w, 5),
        "{what}: Go's worst at {w} ns"
    );
}

#[test]
fn the_mmu_on_disk_is_bit_for_bit_the_mmu_in_memory_on_every_real_log() {
    for path in inputs() {
        let (_, data) = import_file(&path, Format::Auto).expect("import");
        let Imported::Pauses(p) = &data else {
            panic!("{}: expected pauses", path.display());
        };
        let span = p.span_ns;
        let series = data.util_series(span);
        let memory = MmuCurve::new(&series);
        let spans = || p.pauses.iter().map(|q| (q.start_ns, q.end_ns, q.mutator));
        // Backwards, so that they go through the sort and the merge (in order, they need neither).
        let backwards = || spans().collect::<Vec<_>>().into_iter().rev();
        // Runs of 7 pauses, every series on disk from 16 steps; and the default (all in memory at this size).
        for (run, spill) in [(7, 16), (3, 1), (1 << 20, 1 << 16)] {
            let ordered = MmuCurve::on_disk_with(spans, p.mutators.len(), span, run, spill);
            let sorted = MmuCurve::on_disk_with(backwards, p.mutators.len(), span, run, spill);
            for (disk, order) in [(ordered, "in order"), (sorted, "backwards")] {
                let disk = disk.expect("temp files");
                let what = format!(
                    "{} ({order}, runs of {run}, spill from {spill})",
                    path.display()
                );
                let mut windows = default_windows_ns(span.1 - span.0);
                windows.extend([1, 999_999, 3_333_333, (span.1 - span.0) / 3]);
                for w in windows {
                    same(&memory, &disk, w, &what);
                }
                assert!(disk.error().is_none(), "{what}: no I/O error");
            }
        }
    }
}

#[test]
fn on_every_real_log_the_worst_window_is_the_mmu_to_the_bit() {
    // `gclab mmu` searches only the worst windows on a list of pauses and reports the first one's utilisation
    // as the MMU (`MmuCurve::exact`): both searches are exact, and on whole nanoseconds they agree to the bit.
    for path in inputs() {
        let (_, data) = import_file(&path, Format::Auto).expect("import");
        let span = data.default_span_ns();
        let series = data.util_series(span);
        let curve = MmuCurve::new(&series);
        assert!(
            curve.exact(),
            "{}: a list of pauses is exact",
            path.display()
        );
        let mut windows = default_windows_ns(span.1 - span.0);
        windows.extend([1, 999_999, 3_333_333, (span.1 - span.0) / 3]);
        for w in windows {
            let (mmu, worst) = (curve.mmu(w), curve.worst(w, 5));
            assert_eq!(
                worst.first().map(|x| x.utilization.to_bits()),
                Some(mmu.utilization.to_bits()),
                "{}: window {w} ns: worst {worst:?}, MMU {mmu:?}",
                path.display()
            );
        }
    }
}

#[test]
fn several_mutators_and_a_narrower_span_on_disk_match_memory() {
    // The G1 log's pauses dealt to three mutators round robin, over the middle half of the log.
    let (spans, (a, b)) = g1_dealt_round_robin(3);
    let span = (a + (b - a) / 4, b - (b - a) / 4);
    let series = series_per_mutator(&spans, 4, span);
    let memory = MmuCurve::new(&series);
    // In order (each mutator's pauses go straight to its steps) and shuffled (sorted on disk in runs of 5).
    let mut shuffled = spans.clone();
    let n = shuffled.len();
    for i in 0..n {
        shuffled.swap(i, (i * 7919 + 13) % n);
    }
    for (list, order) in [(&spans, "in order"), (&shuffled, "shuffled")] {
        let disk =
            MmuCurve::on_disk_with(|| list.iter().copied(), 4, span, 5, 8).expect("temp files");
        for w in default_windows_ns(span.1 - span.0) {
            same(
                &memory,
                &disk,
                w,
                &format!("three mutators of four, {order}"),
            );
        }
    }
}

#[test]
#[allow(clippy::disallowed_methods)] // two threads querying views at once is what is checked
fn views_of_a_curve_on_disk_queried_on_two_threads_at_once_match_memory() {
    // `gclab mmu` answers its windows on every core, each query on its own view (own block caches, shared files).
    let (spans, span) = g1_dealt_round_robin(2);
    let series = series_per_mutator(&spans, 2, span);
    let disk = MmuCurve::on_disk_with(|| spans.iter().copied(), 2, span, 5, 8).expect("temp files");
    let windows = default_windows_ns(span.1 - span.0);
    std::thread::scope(|s| {
        for first in [0, 1] {
            let (view, series, windows) = (disk.view(), &series, &windows);
            s.spawn(move || {
                let memory = MmuCurve::new(series);
                for &w in windows.iter().skip(first) {
                    same(&memory, &view, w, &format!("view from window {first}"));
                }
            });
        }
    });
    assert!(disk.error().is_none(), "no I/O error");
}

#[test]
fn steps_made_while_the_pauses_are_read_are_the_curve_made_after() {
    // The G1 log's pauses dealt to three mutators, an empty pause among them, over the log's span from 0.
    let (mut spans, (_, b)) = g1_dealt_round_robin(3);
    spans.insert(spans.len() / 2, (spans[0].1, spans[0].1, 1));
    let live = |list: &[(u64, u64, usize)]| {
        let mut l = LiveSteps::default();
        list.iter().for_each(|&(a, b, m)| {
            l.add(m, a, b);
        });
        l
    };
    let span = (0, b + 1000);
    let series = series_per_mutator(&spans, 4, span);
    let memory = MmuCurve::new(&series);
    let made = (live(&spans).into_curve(4, span))
        .expect("the steps stand for this span")
        .expect("temp files");
    for w in default_windows_ns(span.1) {
        same(&memory, &made, w, "steps made as the pauses came");
    }
    // Where they cannot stand for the curve, none is given: a span that clips, pauses too far out of order, a
    // seventeenth mutator.
    assert!(
        live(&spans).into_curve(4, (1, b)).is_none(),
        "a later start"
    );
    let last_end = spans.iter().map(|s| s.1).max().unwrap_or(0);
    assert!(
        live(&spans).into_curve(4, (0, last_end - 1)).is_none(),
        "an earlier end"
    );
    // More in-order pauses than a mutator's reorder buffer holds (4096), then one from before them all.
    let mut late: Vec<(u64, u64, usize)> = (1..6000).map(|k| (10 * k, 10 * k + 5, 0)).collect();
    late.push((1, 2, 0));
    assert!(
        live(&late[..5000]).into_curve(1, (0, 60_000)).is_some(),
        "in order"
    );
    assert!(
        live(&late).into_curve(1, (0, 60_000)).is_none(),
        "one too late"
    );
    let mut many = spans.clone();
    many.push((b, b + 1, 16));
    assert!(live(&many).into_curve(17, span).is_none(), "17 mutators");
}

#[test]
fn a_pause_csv_read_for_the_mmu_gives_its_curve_as_it_is_read() {
    // What `gclab mmu` does with a pause CSV too big to measure in memory (more than 2^20 pauses, so the sink
    // spills): its steps are made in the import's ordered job, and are the curve made from the spilled pauses.
    let n: u64 = (1 << 20) + 5000;
    let mut text = String::from("start_ns,end_ns,mutator\n");
    let mut spans = Vec::with_capacity(n as usize);
    for k in 0..n {
        let (a, m) = (1000 * k + (k * 7919) % 300, (k % 3 == 0) as usize);
        let e = a + 20 + (k * 104729) % 600;
        text.push_str(&format!("{a},{e},m{m}\n"));
        // Mutators are numbered as they first appear: `m1` (row 0) is 0.
        spans.push((a, e, 1 - m));
    }
    let (_, data) = import_reader_as::<PauseSpans>("p.csv", text.as_bytes(), Format::PausesCsv)
        .expect("import");
    let Imported::Pauses(mut p) = data else {
        panic!("expected pauses");
    };
    assert!(p.pauses.on_disk(), "spilled");
    let span = p.span_ns;
    let made = (p.pauses.take_live_curve(2, span))
        .expect("made as read")
        .expect("temp files");
    assert!(p.pauses.take_live_curve(2, span).is_none(), "given once");
    let disk =
        MmuCurve::from_pauses_on_disk(|| spans.iter().copied(), 2, span).expect("temp files");
    for w in [1_500, 40_000, span.1 / 3] {
        same(&disk, &made, w, "pause CSV");
    }
}

/// Pauses as (start, end, mutator).
type Spans = Vec<(u64, u64, usize)>;

/// The JDK 17 G1 log's pauses dealt to `k` mutators round robin, and the log's span.
fn g1_dealt_round_robin(k: usize) -> (Spans, (u64, u64)) {
    let path = shared_data().join("jvm-logs/jdk17-g1-xmx128m.log");
    let (_, data) = import_file(&path, Format::Auto).expect("import");
    let Imported::Pauses(p) = &data else {
        panic!("expected pauses");
    };
    let spans = (p.pauses.iter().enumerate())
        .map(|(i, q)| (q.start_ns, q.end_ns, i % k))
        .collect();
    (spans, p.span_ns)
}

/// The utilisation series of mutators `0..n` from `spans` (start, end, mutator) over `span`.
fn series_per_mutator(
    spans: &[(u64, u64, usize)],
    n: usize,
    span: (u64, u64),
) -> Vec<gclab_core::metrics::mmu::UtilSeries> {
    (0..n)
        .map(|m| {
            let mine: Vec<(u64, u64)> = (spans.iter())
                .filter(|s| s.2 == m)
                .map(|s| (s.0, s.1))
                .collect();
            gclab_core::metrics::mmu::UtilSeries::from_pauses(&mine, span.0, span.1)
        })
        .collect()
}
