//! The SYSTOR'15 paper (android-krait) reproduced from mechanisms: Table 1's allocation, live heap and GC counts
//! under default CMS, Table 3's scheduling statistics of fg and bg, and the trends of Corollary 1 that hold.
//! `docs/reproduction-android.md` (written by `gclab reproduce --paper android`) shows every number, including
//! the corollaries gclab does not reproduce yet.

use std::sync::OnceLock;

use gclab_core::Summary;
use gclab_core::reproduce::android::{Job, run_job};
use gclab_core::reproduce::marks::{Quantity, within};
use gclab_core::reproduce::paper_android::{JAVA, TABLE1};

fn run(preset: &'static str, kind: &'static str, u: f64) -> Summary {
    run_job(&Job::new(preset, kind, u), &[]).expect("android run")
}

/// Table 1's benchmarks under default CMS, run once for all tests.
fn cms() -> &'static Vec<Summary> {
    static R: OnceLock<Vec<Summary>> = OnceLock::new();
    R.get_or_init(|| TABLE1.iter().map(|r| run(r.preset, "cms", 0.75)).collect())
}

/// GC-ALLOC counts gclab knowingly misses (docs/models-android.md, "Known deviations"): the foreground
/// collections of the large-live-set programs need large objects (which jump the 128 KiB concurrent-start window
/// or find no free range under the footprint limit — modelled, `[android.large_objects]`) whose sizes no
/// benchmark publishes, so the presets have none.
const KNOWN_ALLOC_DEVIATIONS: [&str; 3] = ["android/quadrant", "android/pandora", "android/javac"];

#[test]
fn table1_allocation_objects_and_live_heap_within_10_percent() {
    for (row, s) in TABLE1.iter().zip(cms()) {
        let mib = |b: u64| b as f64 / 1048576.0;
        let live = mib(s
            .mean_live_bytes
            .expect("android summaries carry the mean live heap"));
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

/// Table 1 counts outside the honest tolerance (±10 %; counts ≤ 10: ±max(1, 20 %)) today, each a documented
/// deviation (docs/models-android.md, docs/reproduction-android.md): a count may join the passing ones, not leave.
const KNOWN_COUNT_MISSES: [(&str, &str); 4] = [
    ("android/pandora", "concurrent"),
    ("android/pandora", "trim"),
    ("android/javac", "concurrent"),
    ("android/jack", "concurrent"),
];

#[test]
fn table1_gc_counts_within_tolerance_except_the_known_deviations() {
    let mut misses = Vec::new();
    for (row, s) in TABLE1.iter().zip(cms()) {
        let n = |k: &str| s.collections_by_trigger.get(k).copied().unwrap_or(0);
        // Explicit GCs are an input: the harness makes exactly Table 1's calls.
        assert_eq!(n("explicit"), row.explicit, "{} explicit GCs", row.preset);
        for (key, paper) in [
            ("concurrent", row.conc),
            ("alloc", row.alloc),
            ("trim", row.trims),
        ] {
            if !within(Quantity::Count, n(key) as f64, paper as f64) {
                misses.push((row.preset, key, n(key), paper));
            }
        }
    }
    let unexpected: Vec<_> = misses
        .iter()
        .filter(|(p, key, _, _)| {
            let known_alloc = *key == "alloc" && KNOWN_ALLOC_DEVIATIONS.contains(p);
            !(known_alloc || KNOWN_COUNT_MISSES.contains(&(*p, *key)))
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "GC counts outside Table 1's tolerance (±10 %; counts ≤ 10: ±max(1, 20 %)): {unexpected:?}"
    );
}

#[test]
fn heap_contentions_rank_as_in_table1() {
    // Table 1: lusearch 2.63 M ≫ xalan 438 k ≫ jack 4133; the single-threaded programs barely contend.
    let c = |p: &str| {
        let i = TABLE1
            .iter()
            .position(|r| r.preset == p)
            .expect("preset in Table 1");
        cms()[i]
            .heap_contentions
            .expect("android summaries count contentions")
    };
    assert!(
        c("android/lusearch") > 4 * c("android/xalan"),
        "lusearch {} vs xalan {}",
        c("android/lusearch"),
        c("android/xalan")
    );
    assert!(
        c("android/xalan") > 100 * c("android/jack").max(1),
        "xalan {} vs jack {}",
        c("android/xalan"),
        c("android/jack")
    );
}

#[test]
fn fg_has_fewer_migrations_than_cms_and_bg_more_delayed_time() {
    // Table 3: fg's migrations are below CMS's on every Java benchmark (g.mean 0.55) — gclab has that on
    // xalan, javac and jack and in the geometric mean; on lusearch its contention sleeps make fg migrate as
    // often as CMS (docs/models-android.md, Known deviations). bg's delayed time is above CMS's (g.mean 1.04).
    let (mut fg_ratio, mut bg_ratio) = (1.0f64, 1.0f64);
    for p in JAVA {
        let cms = run(p, "cms", 0.75);
        let fg = run(p, "fg", 0.75);
        let bg = run(p, "bg", 0.75);
        let m = |s: &Summary| s.migrations.expect("migrations") as f64;
        if p != "android/lusearch" {
            assert!(
                m(&fg) <= m(&cms),
                "{p}: fg {} > cms {} migrations",
                m(&fg),
                m(&cms)
            );
        }
        fg_ratio *= m(&fg) / m(&cms);
        let d = |s: &Summary| s.delayed_time_s.expect("delayed time");
        bg_ratio *= d(&bg) / d(&cms);
    }
    let n = 1.0 / JAVA.len() as f64;
    assert!(
        fg_ratio.powf(n) < 1.0,
        "fg migrations g.mean {:.3} (paper 0.55)",
        fg_ratio.powf(n)
    );
    assert!(
        bg_ratio.powf(n) > 1.0,
        "bg delayed time g.mean {:.3} (paper 1.04)",
        bg_ratio.powf(n)
    );
}

#[test]
fn programs_run_longer_in_tighter_heaps() {
    // Corollary 1 (Fig. 6), the time half: targetUtil 0.9 takes longer than 0.1. xalan, javac and jack at the
    // presets' seed; lusearch's difference is within its seed noise (its room is clamped to minFree above 0.5 and
    // its cycles overlap its four mutators): at seed 1 the tight heap is 0.7 % faster, on seeds 2–5 3–13 % slower
    // (docs/models-android.md, Known deviations) — so it is checked on most of seeds 1–5.
    for p in JAVA {
        let seeds: &[u64] = if p == "android/lusearch" {
            &[1, 2, 3, 4, 5]
        } else {
            &[1]
        };
        let mut longer = 0;
        for &seed in seeds {
            let at = |u: f64| {
                run_job(
                    &Job {
                        seed,
                        ..Job::new(p, "cms", u)
                    },
                    &[],
                )
                .expect("android run")
            };
            let (loose, tight) = (at(0.1), at(0.9));
            assert!(
                tight.collections > loose.collections,
                "{p} seed {seed}: a tighter heap collects more often"
            );
            longer += usize::from(tight.execution_time_s > loose.execution_time_s);
        }
        assert!(
            longer * 2 > seeds.len(),
            "{p}: longer when tight on {longer} of {} seeds",
            seeds.len()
        );
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
