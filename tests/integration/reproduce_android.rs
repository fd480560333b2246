//! The SYSTOR'15 paper (android-krait) reproduced from mechanisms: Table 1's allocation, live heap and GC counts
//! under default CMS, Table 3's scheduling statistics of fg and bg, and the mechanisms behind Corollary 1's trend. Each test checks a mechanism the paper's numbers come from; how close
//! the numbers come is scored in the report, not asserted.
//! `docs/reproduction-android.md` (written by `gclab reproduce --paper android`) shows every number, including
//! the corollaries gclab does not reproduce yet.

use std::sync::OnceLock;

use gclab_core::Summary;
use gclab_core::reproduce::android::{Job, run_job, table1_live};
use gclab_core::reproduce::paper_android::{JAVA, TABLE1};

fn run(preset: &'static str, kind: &'static str, u: f64) -> Summary {
    run_job(&Job::new(preset, kind, u), &[]).expect("android run")
}

/// Table 1's benchmarks under default CMS, run once for all tests.
fn cms() -> &'static Vec<Summary> {
    static R: OnceLock<Vec<Summary>> = OnceLock::new();
    R.get_or_init(|| TABLE1.iter().map(|r| run(r.preset, "cms", 0.75)).collect())
}

#[test]
fn table1_allocation_objects_and_live_heap_within_10_percent() {
    for (row, s) in TABLE1.iter().zip(cms()) {
        let mib = |b: u64| b as f64 / 1048576.0;
        // Live as the preset's profile is built to match it (the run's mean reachable bytes, or a growing live
        // set's bytes at the run's end: a calibrated unknown), averaged over seeds 1–5: where a few large objects
        // may or may not be immortal (Quadrant) one seed's end-of-run live varies by ±20 %.
        let live_bytes = table1_live(row.preset);
        let live = (1..=5)
            .map(|seed| {
                let job = Job {
                    seed,
                    ..Job::new(row.preset, "cms", 0.75)
                };
                let x = if seed == 1 {
                    s.clone()
                } else {
                    run_job(&job, &[]).expect("android run")
                };
                mib(live_bytes(&x))
            })
            .sum::<f64>()
            / 5.0;
        let alloc = mib(s.allocated_bytes);
        let objects = s.allocations as f64 / 1e6;
        for (what, ours, paper) in [
            ("alloc MiB", alloc, row.alloc_mib),
            ("live MiB", live, row.live_mib),
            ("objects M", objects, row.objects_m),
        ] {
            assert!(
                (ours / paper - 1.0).abs() <= 0.10,
                "{} {what}: gclab {ours:.2}, Table 1 {paper:.2}",
                row.preset
            );
        }
    }
}

#[test]
fn table1_explicit_gcs_are_the_harness_calls_and_only_programs_with_idle_time_trim() {
    // Explicit GCs are an input: the harness makes exactly Table 1's calls. Trims follow Dalvik 4.3's only CMS
    // trigger, HeapTrimmer after 5 s without a GC request: the Java benchmarks allocate without pause and never
    // trim; Quadrant's and Pandora's idle phases can (Table 1 counts one trim per Java benchmark, which gclab
    // misses: a ✓ within the count tolerance). Every collection has one trigger; waits are not collections. How many of
    // Table 1's predicted counts gclab meets is scored in docs/reproduction-android.md, not asserted here: it
    // depends on the calibrated point.
    let mut idle_trims = 0;
    for (row, s) in TABLE1.iter().zip(cms()) {
        let n = |k: &str| s.collections_by_trigger.get(k).copied().unwrap_or(0);
        assert_eq!(n("explicit"), row.explicit, "{} explicit GCs", row.preset);
        let java = !matches!(row.preset, "android/quadrant" | "android/pandora");
        if java {
            assert_eq!(
                n("trim"),
                0,
                "{}: the 5 s trim timer never fires",
                row.preset
            );
        } else {
            idle_trims += n("trim");
        }
        // Under CMS a trim is the daemon returning pages, not a collection (GenCMS collects before it).
        assert_eq!(
            n("concurrent") + n("alloc") + n("explicit"),
            s.collections,
            "{}: every collection has one trigger",
            row.preset
        );
    }
    // Quadrant's and Pandora's idle phases give the timer its 5 s (how often depends on the calibrated point).
    assert!(idle_trims > 0, "the apps with idle phases trim");
}

#[test]
fn heap_contentions_grow_with_the_mutators_that_allocate_at_once() {
    // Table 1 ranks lusearch 2.63 M ≫ xalan 438 k: both multi-threaded DaCapo programs, lusearch allocating 2.8×
    // as many objects. The mechanism: a contention is a heap-lock take that finds the lock held, so contentions
    // grow with the number of mutators allocating at once and with the allocation rate. The mutator counts are
    // set here (DaCapo's per-CPU threads are a calibrated unknown, 1–4).
    let c = |p: &str, m: u32| {
        let kind = format!("workload.android.mutators={m}");
        crate::support::run(p, &[&kind])
            .summary
            .heap_contentions
            .expect("android summaries count contentions")
    };
    let mut at4 = Vec::new();
    for p in ["android/lusearch", "android/xalan"] {
        let counts = [c(p, 1), c(p, 2), c(p, 4)];
        eprintln!("{p}: contentions with 1, 2, 4 mutators {counts:?}");
        assert!(
            counts[0] < counts[1] && counts[1] < counts[2],
            "{p}: contentions with 1, 2, 4 mutators {counts:?}"
        );
        at4.push(counts[2]);
    }
    assert!(
        at4[0] > 2 * at4[1],
        "4 mutators each: lusearch {} vs xalan {}",
        at4[0],
        at4[1]
    );
}

#[test]
fn fg_has_fewer_migrations_on_single_mutator_programs_and_bg_more_delayed_time() {
    // Table 3: fg's migrations are below CMS's (g.mean 0.55). The mechanism: fg has no GC daemon, so a
    // single-mutator program (javac, jack) has no thread of its own competing for its core — checked there; on
    // the multi-threaded ones gclab's contention sleeps move threads as much as the daemon did
    // (docs/models-android.md, Known deviations). bg's delayed time above CMS's (g.mean 1.04) is the calibration
    // rule's constraint: the presets' point keeps it above 1 on seeds 1–5 (docs/calibration-android.md).
    let mut bg_ratio = 1.0f64;
    for p in JAVA {
        let cms = run(p, "cms", 0.75);
        let bg = run(p, "bg", 0.75);
        if matches!(p, "android/javac" | "android/jack") {
            let fg = run(p, "fg", 0.75);
            let m = |s: &Summary| s.migrations.expect("migrations") as f64;
            assert!(
                m(&fg) < m(&cms),
                "{p}: fg {} >= cms {} migrations",
                m(&fg),
                m(&cms)
            );
        }
        let d = |s: &Summary| s.delayed_time_s.expect("delayed time");
        bg_ratio *= d(&bg) / d(&cms);
    }
    let n = 1.0 / JAVA.len() as f64;
    assert!(
        bg_ratio.powf(n) > 1.0,
        "bg delayed time g.mean {:.3} (paper 1.04)",
        bg_ratio.powf(n)
    );
}

#[test]
fn tighter_heaps_collect_more_often_and_slow_the_single_threaded_javac() {
    // Corollary 1 (Fig. 6) from its mechanism: targetUtil 0.9 leaves less room above the live set than 0.1, so
    // every Java benchmark collects more often; javac (one mutator, a fifth of its CPU in GC) then waits for the
    // cycles its allocation outruns and takes longer. Whether the multi-threaded ones also take longer is the
    // corollary, checked per seed in docs/reproduction-android.md, not here.
    for p in JAVA {
        let (loose, tight) = (run(p, "cms", 0.1), run(p, "cms", 0.9));
        assert!(
            tight.collections > loose.collections,
            "{p}: a tighter heap collects more often ({} vs {})",
            tight.collections,
            loose.collections
        );
        if p == "android/javac" {
            assert!(
                tight.execution_time_s > loose.execution_time_s,
                "{p}: {:.3} s tight vs {:.3} s loose",
                tight.execution_time_s,
                loose.execution_time_s
            );
        }
    }
}

/// `docs/reproduction-android.md` is exactly what `gclab reproduce --paper android` writes from today's model, and
/// the README quotes every summary line of it verbatim.
#[test]
fn the_committed_android_report_is_current_and_the_readme_quotes_its_summaries() {
    let out = gclab_tests::gclab(&["reproduce", "--paper", "android", "--out", "-"]);
    assert!(
        out.status.success(),
        "gclab reproduce --paper android failed: {out:?}"
    );
    let fresh = String::from_utf8(out.stdout).expect("utf-8 report");
    let root = gclab_tests::repo_root();
    let committed = std::fs::read_to_string(root.join("docs/reproduction-android.md"))
        .expect("docs/reproduction-android.md");
    assert!(
        fresh == committed,
        "docs/reproduction-android.md is stale: run `gclab reproduce --paper android --out docs/reproduction-android.md`"
    );
    let lines = gclab_core::reproduce::kvm_report::summary_lines(&fresh);
    assert!(
        lines.len() >= 3,
        "the report has its summary lines: {lines:?}"
    );
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    for l in lines {
        assert!(
            readme.contains(l),
            "README.md does not quote the android report's summary line {l:?}"
        );
    }
}
