//! The SYSTOR'15 reproduction: which runs (`plan`), and the side-by-side report of Table 1, the four
//! corollaries, Table 3 and the abstract's envelope (`report`). The CLI (`gclab reproduce --paper android`) runs
//! the plan in parallel; this module stays single-threaded. Every number comes from simulating the mechanisms;
//! the only calibration is each benchmark's mutator compute per KiB from Table 1's GC CPU column
//! (`scripts/android_calibrate.py`).
//!
//! Cells are scored by the shared rule of [`super::marks`]: every Table 1 / Table 3 cell is labelled *input*,
//! *calibrated* or *predicted*; a predicted cell gets ✓ only within ±10 % (counts ≤ 10: ±max(1, 20 %)) and
//! carries its ratio and its band over seeds 1–5; each corollary check says on how many of seeds 1–5 it holds;
//! the ablation matrix switches each modelled mechanism off alone ([`ABLATIONS`]).

use std::fmt::Write as _;

use super::marks::{Kind, Quantity, Tally, band};

use super::paper_android::{JAVA, TABLE1, TABLE3_DELAYED, TABLE3_MIGRATIONS, VARIANTS};
use crate::run::Summary;
use crate::{Cancel, NoProgress, Scenario, simulate};

/// targetUtil values of Figs. 5–8.
pub const TARGET_UTILS: [f64; 5] = [0.1, 0.3, 0.5, 0.75, 0.9];

/// The estimates and open choices whose effect on the corollaries the report shows: (label, override).
pub const SENSITIVITY: [(&str, &str); 10] = [
    ("contention sleep 5 µs", "android.gc.contention_sleep_us=5"),
    (
        "contention sleep 10 µs",
        "android.gc.contention_sleep_us=10",
    ),
    (
        "contention sleep 40 µs",
        "android.gc.contention_sleep_us=40",
    ),
    ("context switch 2 µs", "android.sched.context_switch_us=2"),
    ("context switch 15 µs", "android.sched.context_switch_us=15"),
    ("tracing 100 ns/object", "android.gc.mark_ns_per_object=100"),
    ("tracing 400 ns/object", "android.gc.mark_ns_per_object=400"),
    ("Eq. (1) as printed", "android.heap.sizing=\"printed\""),
    ("GC daemon at nice 5", "android.sched.daemon_nice=5"),
    (
        "sweep wholly under the lock",
        "android.gc.sweep_locked_fraction=1",
    ),
];

/// Seeds beyond the presets' seed 1 that the report runs for its seed bands and per-seed corollary checks.
pub const EXTRA_SEEDS: [u64; 4] = [2, 3, 4, 5];

/// The ablation matrix: each modelled mechanism of issue #16 switched off alone (label, overrides). Mechanism 3
/// (GC-ALLOC by large objects) has no row: the presets carry no large objects (see the what-if table).
pub const ABLATIONS: [(&str, &[&str]); 8] = [
    ("1 CFS 3.4 tunables off", &["android.sched.cfs_3_4=false"]),
    (
        "1 one run queue, no balancing",
        &["android.sched.per_core_rq=false"],
    ),
    (
        "2 pause ends at wake-up, no idle exit",
        &[
            "android.pauses.end=\"wakeup\"",
            "android.pauses.idle_exit=false",
        ],
    ),
    ("4 trimming free", &["android.gc.trim_us_per_mib=0"]),
    (
        "4 no bg trim of an under-used heap",
        &["android.gc.bg_trim=false"],
    ),
    (
        "5 heap sized from reachable bytes",
        &["android.heap.sizing_live=\"reachable\""],
    ),
    (
        "6 GC work not memory-bound",
        &[
            "android.gc.mark_stall_fraction=0",
            "android.gc.sweep_stall_fraction=0",
            "android.gc.roots_stall_fraction=0",
        ],
    ),
    (
        "7 own System.gc() not a pause",
        &["android.pauses.explicit_gc=false"],
    ),
];

/// What-if runs for the GC-ALLOC deviation (docs/models-android.md, Known deviations): large-object streams
/// (`[android.large_objects]`) on the benchmarks whose foreground GCs gclab misses. No benchmark publishes its
/// size tail, so the presets have none; these show what such a tail would do, not a calibration: (label,
/// overrides).
pub const LARGE_OBJECT_WHAT_IFS: [(&str, [&str; 3]); 3] = [
    (
        "10 % of bytes in 256–512 KiB objects",
        [
            "workload.android.large_objects.share=0.1",
            "workload.android.large_objects.min_kib=256",
            "workload.android.large_objects.max_kib=512",
        ],
    ),
    (
        "30 % in 512 KiB–1 MiB objects",
        [
            "workload.android.large_objects.share=0.3",
            "workload.android.large_objects.min_kib=512",
            "workload.android.large_objects.max_kib=1024",
        ],
    ),
    (
        "50 % in 1–2 MiB objects",
        [
            "workload.android.large_objects.share=0.5",
            "workload.android.large_objects.min_kib=1024",
            "workload.android.large_objects.max_kib=2048",
        ],
    ),
];

/// The benchmarks with foreground GC-ALLOCs in Table 1 (javac 42, Pandora 18, Quadrant 4).
pub const ALLOC_BENCHMARKS: [&str; 3] = ["android/javac", "android/pandora", "android/quadrant"];

/// The benchmarks Corollary 4 names (fg best on lusearch and xalan, bg on javac).
pub const COROLLARY4: [&str; 3] = ["android/lusearch", "android/xalan", "android/javac"];

/// One run of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Preset name.
    pub preset: &'static str,
    /// Collector variant.
    pub kind: &'static str,
    /// heap.target_util.
    pub target_util: f64,
    /// Index into [`SENSITIVITY`] (`None`: the defaults).
    pub sensitivity: Option<usize>,
    /// Index into [`LARGE_OBJECT_WHAT_IFS`] (`None`: the preset's workload).
    pub what_if: Option<usize>,
    /// Index into [`ABLATIONS`] (`None`: every mechanism on).
    pub ablation: Option<usize>,
    /// The run's seed (the presets use 1).
    pub seed: u64,
}

impl Job {
    /// A run with the defaults: seed 1, no sensitivity, what-if or ablation.
    pub fn new(preset: &'static str, kind: &'static str, target_util: f64) -> Job {
        Job {
            preset,
            kind,
            target_util,
            sensitivity: None,
            what_if: None,
            ablation: None,
            seed: 1,
        }
    }
}

/// Which family of runs a result belongs to: the defaults at a seed, a sensitivity setting, an ablation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// Index into [`SENSITIVITY`].
    pub sensitivity: Option<usize>,
    /// Index into [`ABLATIONS`].
    pub ablation: Option<usize>,
    /// Seed.
    pub seed: u64,
}

impl Key {
    /// The defaults at seed `seed`.
    pub fn seed(seed: u64) -> Key {
        Key {
            sensitivity: None,
            ablation: None,
            seed,
        }
    }
}

/// The runs a corollary check needs, per key: every benchmark under CMS at 0.75 (and Quadrant under GenCMS); the
/// Java benchmarks under CMS at 0.1 and 0.9 and under every variant at 0.75.
fn check_jobs(jobs: &mut Vec<Job>, seed: u64, ablation: Option<usize>) {
    let mut push = |preset, kind, u| {
        jobs.push(Job {
            ablation,
            seed,
            ..Job::new(preset, kind, u)
        })
    };
    for row in TABLE1 {
        push(row.preset, "cms", 0.75);
    }
    // Mechanism 7's witness: GenCMS on Quadrant (its explicit GCs are minor collections).
    push("android/quadrant", "gencms", 0.75);
    for p in JAVA {
        push(p, "cms", 0.1);
        push(p, "cms", 0.9);
        for kind in VARIANTS.iter().filter(|k| **k != "cms") {
            push(p, kind, 0.75);
        }
    }
}

/// Every run the report needs: each benchmark under each variant at each targetUtil of the figures.
pub fn plan() -> Vec<Job> {
    let mut jobs = Vec::new();
    for row in TABLE1 {
        for kind in VARIANTS {
            for u in TARGET_UTILS {
                jobs.push(Job::new(row.preset, kind, u));
            }
        }
    }
    for i in 0..SENSITIVITY.len() {
        for p in JAVA {
            for (kind, u) in [("cms", 0.1), ("cms", 0.9), ("cms", 0.75), ("bg", 0.75)] {
                jobs.push(Job {
                    sensitivity: Some(i),
                    ..Job::new(p, kind, u)
                });
            }
        }
        // Corollary 4 compares all five variants at 0.75 (cms and bg are above).
        for p in COROLLARY4 {
            for kind in ["gencms", "cmsfly", "fg"] {
                jobs.push(Job {
                    sensitivity: Some(i),
                    ..Job::new(p, kind, 0.75)
                });
            }
        }
    }
    for i in 0..LARGE_OBJECT_WHAT_IFS.len() {
        for preset in ALLOC_BENCHMARKS {
            jobs.push(Job {
                what_if: Some(i),
                ..Job::new(preset, "cms", 0.75)
            });
        }
    }
    for seed in EXTRA_SEEDS {
        check_jobs(&mut jobs, seed, None);
    }
    for a in 0..ABLATIONS.len() {
        check_jobs(&mut jobs, 1, Some(a));
    }
    jobs
}

/// Runs one job with extra `--set` overrides.
pub fn run_job(job: &Job, sets: &[String]) -> Result<Summary, String> {
    let mut all = sets.to_vec();
    if let Some(i) = job.sensitivity {
        all.push(SENSITIVITY[i].1.to_string());
    }
    if let Some(i) = job.what_if {
        all.extend(LARGE_OBJECT_WHAT_IFS[i].1.iter().map(|s| s.to_string()));
    }
    if let Some(i) = job.ablation {
        all.extend(ABLATIONS[i].1.iter().map(|s| s.to_string()));
    }
    all.push(format!("seed={}", job.seed));
    all.push(format!("collector.kind={}", job.kind));
    all.push(format!("heap.target_util={}", job.target_util));
    let sc = Scenario::load(&format!("preset:{}", job.preset), &all).map_err(|e| e.to_string())?;
    simulate(&sc, &Cancel::never(), &mut NoProgress)
        .map(|r| r.summary)
        .map_err(|e| format!("{} {} u={}: {e}", job.preset, job.kind, job.target_util))
}

/// The results of a plan, looked up by (preset, variant, targetUtil).
#[derive(Debug, Clone)]
pub struct Results<'a> {
    jobs: &'a [Job],
    sums: &'a [Summary],
}

impl<'a> Results<'a> {
    /// Pairs jobs with their summaries (same order).
    pub fn new(jobs: &'a [Job], sums: &'a [Summary]) -> Self {
        Results { jobs, sums }
    }

    /// The summary of one run with the defaults (`None` if it was not in the plan).
    pub fn get(&self, preset: &str, kind: &str, u: f64) -> Option<&'a Summary> {
        self.get_with(None, preset, kind, u)
    }

    /// The summary of one run under sensitivity `sens` (`None`: the defaults).
    pub fn get_with(
        &self,
        sens: Option<usize>,
        preset: &str,
        kind: &str,
        u: f64,
    ) -> Option<&'a Summary> {
        self.find(
            Key {
                sensitivity: sens,
                ablation: None,
                seed: 1,
            },
            None,
            preset,
            kind,
            u,
        )
    }

    /// The summary of one run of family `key`.
    pub fn at(&self, key: Key, preset: &str, kind: &str, u: f64) -> Option<&'a Summary> {
        self.find(key, None, preset, kind, u)
    }

    /// The summary of a large-object what-if run (CMS, 0.75) of `preset`.
    pub fn get_what_if(&self, what_if: usize, preset: &str) -> Option<&'a Summary> {
        self.find(Key::seed(1), Some(what_if), preset, "cms", 0.75)
    }

    fn find(
        &self,
        key: Key,
        what_if: Option<usize>,
        preset: &str,
        kind: &str,
        u: f64,
    ) -> Option<&'a Summary> {
        self.jobs
            .iter()
            .position(|j| {
                j.sensitivity == key.sensitivity
                    && j.ablation == key.ablation
                    && j.seed == key.seed
                    && j.what_if == what_if
                    && j.preset == preset
                    && j.kind == kind
                    && (j.target_util - u).abs() < 1e-9
            })
            .map(|i| &self.sums[i])
    }
}

fn short(preset: &str) -> &str {
    preset.trim_start_matches("android/")
}

fn trig(s: &Summary, key: &str) -> u64 {
    s.collections_by_trigger.get(key).copied().unwrap_or(0)
}

/// Mean mutator utilisation over the default windows (the "best MinMU" measure of Corollary 4).
pub fn mean_mmu(s: &Summary) -> f64 {
    if s.mmu.is_empty() {
        return 0.0;
    }
    s.mmu.iter().map(|p| p.utilization).sum::<f64>() / s.mmu.len() as f64
}

/// Core-time share at ≤ 960 MHz and offline.
pub fn low_and_offline_share(s: &Summary) -> (f64, f64) {
    let Some(t) = &s.time_at_frequency_s else {
        return (0.0, 0.0);
    };
    let total: f64 = t.values().sum();
    if total <= 0.0 {
        return (0.0, 0.0);
    }
    let low: f64 = t
        .iter()
        .filter(|(k, _)| k.parse::<f64>().is_ok_and(|f| f <= 960.0))
        .map(|(_, v)| v)
        .sum();
    (
        low / total,
        t.get("offline").copied().unwrap_or(0.0) / total,
    )
}

fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.max(1e-12).ln()).sum::<f64>() / v.len().max(1) as f64).exp()
}

fn mark(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}

/// Every seed the report runs: the presets' 1, then [`EXTRA_SEEDS`].
fn all_seeds() -> Vec<u64> {
    std::iter::once(1).chain(EXTRA_SEEDS).collect()
}

/// Ours over CMS's for `measure` on each Java benchmark (`kind` at 0.75) within one family of runs.
fn ratios_vs_cms(r: &Results<'_>, key: Key, kind: &str, measure: Measure) -> Vec<f64> {
    JAVA.iter()
        .filter_map(|p| {
            Some(
                measure(r.at(key, p, kind, 0.75)?) / measure(r.at(key, p, "cms", 0.75)?).max(1e-12),
            )
        })
        .collect()
}

/// A number read from a run's summary.
type Measure = fn(&Summary) -> f64;

fn energy(x: &Summary) -> f64 {
    x.energy_j.total
}

fn migrations(x: &Summary) -> f64 {
    x.migrations.unwrap_or(0) as f64
}

fn delayed(x: &Summary) -> f64 {
    x.delayed_time_s.unwrap_or(0.0)
}

/// The four corollaries as the acceptance checks, for one family of runs (a seed, or an ablation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checks {
    /// Corollary 1: Java benchmarks (of 4) slower at targetUtil 0.9 than at 0.1.
    pub c1_slower: usize,
    /// Corollary 1: Java benchmarks (of 4) whose energy moves as the paper's (lusearch lower when tight, the
    /// others higher).
    pub c1_energy: usize,
    /// Corollary 2: Java benchmarks (of 4) with more frequency transitions at 0.9 than at 0.1.
    pub c2_transitions: usize,
    /// Corollary 2: lusearch spends more core time at ≤ 960 MHz or offline at 0.9 than at 0.1.
    pub c2_lusearch_low: bool,
    /// Corollary 2: xalan does not.
    pub c2_xalan_not_low: bool,
    /// Corollary 3: geometric mean of bg/CMS energy over the Java benchmarks.
    pub c3_energy: f64,
    /// Corollary 3: geometric mean of bg/CMS delayed time.
    pub c3_delayed: f64,
    /// Corollary 4: the variant with the best mean MinMU on lusearch, xalan, javac (`None`: a run missing).
    pub c4_best: [Option<&'static str>; 3],
    /// Corollary 4: the benchmarks whose CMS maximum pause exceeds 50 ms.
    pub c4_over_50ms: Vec<&'static str>,
}

impl Checks {
    /// Computes the checks from the runs of family `key`.
    pub fn of(r: &Results<'_>, key: Key) -> Checks {
        let mut c = Checks::default();
        for p in JAVA {
            let (Some(lo), Some(hi)) = (r.at(key, p, "cms", 0.1), r.at(key, p, "cms", 0.9)) else {
                continue;
            };
            c.c1_slower += usize::from(hi.execution_time_s > lo.execution_time_s);
            let down = hi.energy_j.total < lo.energy_j.total;
            c.c1_energy += usize::from(down == (p == "android/lusearch"));
            c.c2_transitions += usize::from(hi.frequency_transitions > lo.frequency_transitions);
            let low = |x: &Summary| {
                let (a, b) = low_and_offline_share(x);
                a + b
            };
            if p == "android/lusearch" {
                c.c2_lusearch_low = low(hi) > low(lo);
            }
            if p == "android/xalan" {
                c.c2_xalan_not_low = low(hi) <= low(lo);
            }
        }
        c.c3_energy = geomean(&ratios_vs_cms(r, key, "bg", energy));
        c.c3_delayed = geomean(&ratios_vs_cms(r, key, "bg", delayed));
        for (i, p) in COROLLARY4.iter().enumerate() {
            let vals: Vec<Option<f64>> = VARIANTS
                .iter()
                .map(|k| r.at(key, p, k, 0.75).map(mean_mmu))
                .collect();
            c.c4_best[i] = if vals.iter().all(Option::is_some) {
                best_of(&vals).map(|b| VARIANTS[b])
            } else {
                None
            };
        }
        c.c4_over_50ms = TABLE1
            .iter()
            .filter(|row| {
                r.at(key, row.preset, "cms", 0.75)
                    .is_some_and(|x| x.max_pause_ms > 50.0)
            })
            .map(|row| row.preset)
            .collect();
        c
    }

    /// Corollary 1 holds: all four slower when tight, all four energies moving as the paper's.
    pub fn c1(&self) -> bool {
        self.c1_slower == 4 && self.c1_energy == 4
    }

    /// Corollary 2 holds: transitions grow on ≥ 3 of 4; lusearch more low/offline time when tight, xalan not.
    pub fn c2(&self) -> bool {
        self.c2_transitions >= 3 && self.c2_lusearch_low && self.c2_xalan_not_low
    }

    /// Corollary 3 holds: bg costs more energy and more delayed time than CMS (geometric means).
    pub fn c3(&self) -> bool {
        self.c3_energy > 1.0 && self.c3_delayed > 1.0
    }

    /// Corollary 4 holds: fg best on lusearch and xalan, bg best on javac, only javac's CMS max pause > 50 ms.
    pub fn c4(&self) -> bool {
        self.c4_best == [Some("fg"), Some("fg"), Some("bg")]
            && self.c4_over_50ms == ["android/javac"]
    }
}

/// Table 1's predicted GC counts (CONC, ALLOC, trims) of family `key` within tolerance, of 18.
fn table1_counts_within(r: &Results<'_>, key: Key) -> usize {
    TABLE1
        .iter()
        .filter_map(|row| r.at(key, row.preset, "cms", 0.75).map(|x| (row, x)))
        .map(|(row, x)| {
            [
                ("concurrent", row.conc),
                ("alloc", row.alloc),
                ("trim", row.trims),
            ]
            .iter()
            .filter(|(k, p)| super::marks::within(Quantity::Count, trig(x, k) as f64, *p as f64))
            .count()
        })
        .sum()
}

/// Table 1's maximum pauses of family `key` within ×1.5 of the paper's (the pause rule), of 6.
fn max_pauses_within_1_5(r: &Results<'_>, key: Key) -> usize {
    TABLE1
        .iter()
        .filter(|row| {
            r.at(key, row.preset, "cms", 0.75).is_some_and(|x| {
                let q = x.max_pause_ms / row.max_pause_ms;
                (1.0 / 1.5..=1.5).contains(&q)
            })
        })
        .count()
}

/// Table 3's cells (bg/fg × migrations/delayed time × 4 benchmarks) of family `key` within ±10 %, of 16.
fn table3_within(r: &Results<'_>, key: Key) -> usize {
    let mut n = 0;
    for (kind, paper_m) in TABLE3_MIGRATIONS {
        let paper_d = TABLE3_DELAYED
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or([0.0; 5], |(_, v)| *v);
        for (f, paper) in [(migrations as Measure, paper_m), (delayed, paper_d)] {
            n += ratios_vs_cms(r, key, kind, f)
                .iter()
                .zip(paper)
                .filter(|(o, p)| super::marks::within(Quantity::Value, **o, *p))
                .count();
        }
    }
    n
}

/// A predicted cell: `ours / paper ✓|✗ ratio (seed band)`, scored into `tally`.
fn predicted_cell(
    tally: &mut Tally,
    q: Quantity,
    seeds: &[f64],
    paper: f64,
    decimals: usize,
) -> String {
    let ours = seeds.first().copied().unwrap_or(f64::NAN);
    let m = tally.score(q, ours, paper);
    format!(
        "{ours:.decimals$} / {paper:.decimals$} {m} [{}]",
        band(seeds, decimals)
    )
}

/// The markdown report.
pub fn report(r: &Results<'_>) -> String {
    let mut s = String::new();
    let d = 0.75;
    let seeds = all_seeds();
    let _ = writeln!(
        s,
        "# Reproduction: gclab vs SYSTOR'15 (android-krait)\n\nWritten by `gclab reproduce --paper android --out \
         docs/reproduction-android.md` (do not edit by hand). Every number comes from simulating the mechanisms \
         (docs/models-android.md).\n\n**How to read the marks.** Every Table 1 and Table 3 cell is *input* (given by \
         the paper: allocated MiB, live MiB, objects, explicit GCs), *calibrated* (GC CPU %: each benchmark's \
         mutator compute per KiB is inferred from it by `scripts/android_calibrate.py`) or *predicted* (everything \
         else). Only predicted cells are scored: ✓ within ±10 % of the paper (counts ≤ 10: ±max(1, 20 %)), followed \
         by the ratio gclab/paper; `[a–b]` is the band over seeds 1–5 (the first number is seed 1, the presets' \
         seed). Corollary checks say on how many of seeds 1–5 they hold.\n"
    );
    // Table 1.
    let _ = writeln!(
        s,
        "## Table 1 under default CMS (targetUtil 0.75)\n\n| benchmark | alloc MiB (input) | live MiB (input) | \
         objects M (input) | CONC | ALLOC | EXPLICIT (input) | trims | heap contentions | max pause ms | GC CPU % \
         (calibrated) |\n|---|---|---|---|---|---|---|---|---|---|---|"
    );
    let mut t1 = Tally::default();
    let mut t1_counts = Tally::default();
    for row in TABLE1 {
        let Some(x) = r.get(row.preset, "cms", d) else {
            continue;
        };
        let per_seed = |f: &dyn Fn(&Summary) -> f64| -> Vec<f64> {
            seeds
                .iter()
                .filter_map(|&sd| r.at(Key::seed(sd), row.preset, "cms", d))
                .map(f)
                .collect()
        };
        let mib = |b: u64| b as f64 / 1048576.0;
        let input =
            |ours: f64, paper: f64| format!("{ours:.2} / {paper:.2} *{}*", Kind::Input.label());
        let mut count = |key: &str, paper: u64| {
            let v = per_seed(&|x| trig(x, key) as f64);
            let c = predicted_cell(&mut t1_counts, Quantity::Count, &v, paper as f64, 0);
            t1.score(Quantity::Count, v[0], paper as f64);
            c
        };
        let conc = count("concurrent", row.conc);
        let alloc = format!(
            "{} (waited {})",
            count("alloc", row.alloc),
            x.alloc_waits.unwrap_or(0)
        );
        let trims = count("trim", row.trims);
        let cont = predicted_cell(
            &mut t1,
            Quantity::Value,
            &per_seed(&|x| x.heap_contentions.unwrap_or(0) as f64),
            row.contentions,
            0,
        );
        let pause = predicted_cell(
            &mut t1,
            Quantity::Value,
            &per_seed(&|x| x.max_pause_ms),
            row.max_pause_ms,
            1,
        );
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {conc} | {alloc} | {} / {} *input* | {trims} | {cont} | {pause} | {:.1} / {:.1} *{}* |",
            short(row.preset),
            input(mib(x.allocated_bytes), row.alloc_mib),
            input(mib(x.mean_live_bytes.unwrap_or(0)), row.live_mib),
            input(x.allocations as f64 / 1e6, row.objects_m),
            trig(x, "explicit"),
            row.explicit,
            100.0 * x.gc_cpu_fraction,
            row.gc_cpu_pct,
            Kind::Calibrated.label()
        );
    }
    let per_seed_counts: Vec<f64> = seeds
        .iter()
        .map(|&sd| table1_counts_within(r, Key::seed(sd)) as f64)
        .collect();
    let per_seed_pauses: Vec<f64> = seeds
        .iter()
        .map(|&sd| max_pauses_within_1_5(r, Key::seed(sd)) as f64)
        .collect();
    let _ = writeln!(
        s,
        "\n{}\n\n- GC counts (CONC, ALLOC, trims): {} of {} within tolerance at seed 1; {} over seeds 1–5 (the issue \
         asks ≥ 12 of 18).\n- Maximum pauses within ×1.5 of Table 1: {} of 6 at seed 1; {} over seeds 1–5 (the issue \
         asks ≥ 4 of 6).\n\nALLOC counts foreground collections; *waited* counts the GC-ALLOC triggers that found a \
         cycle running and waited for it (a concurrent pause), which Table 1 does not count as collections \
         (docs/models-android.md, Known deviations). GC CPU % is the calibration target (Pandora excepted: its 72 \
         background threads cap its GC share; it keeps the estimated compute).\n",
        t1.summary_line("Table 1"),
        t1_counts.within,
        t1_counts.total,
        band(&per_seed_counts, 0),
        per_seed_pauses[0],
        band(&per_seed_pauses, 0)
    );
    let checks: Vec<Checks> = seeds
        .iter()
        .map(|&sd| Checks::of(r, Key::seed(sd)))
        .collect();
    let held = |f: fn(&Checks) -> bool| checks.iter().filter(|c| f(c)).count();
    let per_seed_marks = |f: fn(&Checks) -> bool| {
        checks
            .iter()
            .map(|c| mark(f(c)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    // Corollary 1.
    let _ = writeln!(
        s,
        "## Corollary 1 (Fig. 6): time and energy vs targetUtil under CMS, normalised to 0.75\n\n| benchmark | \
         {} | longer in tighter heaps | energy trend (paper) |\n|---|{}---|---|",
        TARGET_UTILS
            .iter()
            .map(|u| format!("u={u}: T / E"))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(TARGET_UTILS.len())
    );
    for p in JAVA {
        let Some(base) = r.get(p, "cms", d) else {
            continue;
        };
        let cells: Vec<String> = TARGET_UTILS
            .iter()
            .filter_map(|&u| r.get(p, "cms", u))
            .map(|x| {
                format!(
                    "{:.3} / {:.3}",
                    x.execution_time_s / base.execution_time_s,
                    x.energy_j.total / base.energy_j.total
                )
            })
            .collect();
        let (lo, hi) = (r.get(p, "cms", 0.1), r.get(p, "cms", 0.9));
        let (longer, e_down) = match (lo, hi) {
            (Some(a), Some(b)) => (
                b.execution_time_s > a.execution_time_s,
                b.energy_j.total < a.energy_j.total,
            ),
            _ => (false, false),
        };
        let want_down = p == "android/lusearch";
        let t_band: Vec<f64> = seeds
            .iter()
            .filter_map(|&sd| {
                let k = Key::seed(sd);
                Some(
                    r.at(k, p, "cms", 0.9)?.execution_time_s
                        / r.at(k, p, "cms", 0.1)?.execution_time_s,
                )
            })
            .collect();
        let e_band: Vec<f64> = seeds
            .iter()
            .filter_map(|&sd| {
                let k = Key::seed(sd);
                Some(
                    r.at(k, p, "cms", 0.9)?.energy_j.total / r.at(k, p, "cms", 0.1)?.energy_j.total,
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} T(0.9)/T(0.1) [{}] | {} ({}) {} E(0.9)/E(0.1) [{}] |",
            short(p),
            cells.join(" | "),
            mark(longer),
            band(&t_band, 3),
            if e_down {
                "less energy when tight"
            } else {
                "more energy when tight"
            },
            if want_down { "less" } else { "more" },
            mark(e_down == want_down),
            band(&e_band, 3)
        );
    }
    let _ = writeln!(
        s,
        "\n**Corollary 1 check** (all four slower at 0.9 than 0.1; lusearch's energy lower, the others' higher): \
         holds on {} of seeds 1–5 ({}); slower when tight on {} of 4 per seed, energy as the paper on {} of 4.",
        held(Checks::c1),
        per_seed_marks(Checks::c1),
        checks
            .iter()
            .map(|c| c.c1_slower.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        checks
            .iter()
            .map(|c| c.c1_energy.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    // Corollary 2.
    let _ = writeln!(
        s,
        "\n## Corollary 2 (Figs. 5, 7): frequency transitions vs targetUtil, and time at low frequency\n\n| \
         benchmark | transitions at {} (÷ u=0.75) | ≤ 960 MHz + offline share at 0.1 → 0.9 |\n|---|---|---|",
        TARGET_UTILS.map(|u| u.to_string()).join(", ")
    );
    for p in JAVA {
        let Some(base) = r.get(p, "cms", d) else {
            continue;
        };
        let ft: Vec<String> = TARGET_UTILS
            .iter()
            .filter_map(|&u| r.get(p, "cms", u))
            .map(|x| {
                format!(
                    "{:.2}",
                    x.frequency_transitions as f64 / base.frequency_transitions.max(1) as f64
                )
            })
            .collect();
        let share = |u| {
            r.get(p, "cms", u)
                .map(low_and_offline_share)
                .unwrap_or_default()
        };
        let (a, b) = (share(0.1), share(0.9));
        let _ = writeln!(
            s,
            "| {} | {} | {:.1} % + {:.1} % → {:.1} % + {:.1} % |",
            short(p),
            ft.join(", "),
            100.0 * a.0,
            100.0 * a.1,
            100.0 * b.0,
            100.0 * b.1
        );
    }
    let _ = writeln!(
        s,
        "\nPaper: transitions grow with targetUtil for most benchmarks; lusearch at 90 % spends more time at low \
         frequencies and offline than at 10 %, xalan the opposite.\n\n**Corollary 2 check** (transitions at 0.9 > \
         0.1 on ≥ 3 of 4; lusearch more ≤ 960 MHz + offline time at 0.9, xalan not): holds on {} of seeds 1–5 ({}); \
         transitions grow on {} of 4 per seed; lusearch more low/offline when tight on {} seeds, xalan not on {}.",
        held(Checks::c2),
        per_seed_marks(Checks::c2),
        checks
            .iter()
            .map(|c| c.c2_transitions.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        checks.iter().filter(|c| c.c2_lusearch_low).count(),
        checks.iter().filter(|c| c.c2_xalan_not_low).count()
    );
    // Corollary 3 and Table 3.
    let _ = writeln!(
        s,
        "\n## Corollary 3 and Table 3: bg and fg against CMS (targetUtil 0.75)\n\nTable 3 cells: gclab (paper) mark \
         [seeds 1–5]; all *predicted*. Energy has no paper cell (Fig. 8 is a plot).\n\n| variant | measure | {} | \
         g.mean | paper g.mean |\n|---|---|{}---|---|",
        JAVA.map(short).join(" | "),
        "---|".repeat(JAVA.len())
    );
    let mut t3 = Tally::default();
    for (kind, paper_m) in TABLE3_MIGRATIONS {
        let paper_d = TABLE3_DELAYED
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or([0.0; 5], |(_, v)| *v);
        let measures: [(&str, Measure, Option<[f64; 5]>); 3] = [
            ("energy", energy, None),
            ("migrations", migrations, Some(paper_m)),
            ("delayed time", delayed, Some(paper_d)),
        ];
        for (name, f, paper) in measures {
            let by_seed: Vec<Vec<f64>> = seeds
                .iter()
                .map(|&sd| ratios_vs_cms(r, Key::seed(sd), kind, f))
                .collect();
            let col = |i: usize| -> Vec<f64> {
                by_seed.iter().filter_map(|v| v.get(i).copied()).collect()
            };
            let gm: Vec<f64> = by_seed.iter().map(|v| geomean(v)).collect();
            let mut cells = Vec::new();
            for i in 0..JAVA.len() {
                let v = col(i);
                cells.push(match paper {
                    Some(p) => {
                        let m = t3.score(Quantity::Value, v[0], p[i]);
                        format!("{:.2} ({:.2}) {m} [{}]", v[0], p[i], band(&v, 2))
                    }
                    None => format!("{:.3} [{}]", v[0], band(&v, 3)),
                });
            }
            let g = match paper {
                Some(p) => {
                    let m = t3.score(Quantity::Value, gm[0], p[4]);
                    format!("{:.3} {m} [{}] | {:.2}", gm[0], band(&gm, 3), p[4])
                }
                None => format!(
                    "{:.3} [{}] | {}",
                    gm[0],
                    band(&gm, 3),
                    if kind == "bg" { "> 1 (Cor. 3)" } else { "—" }
                ),
            };
            let _ = writeln!(s, "| {kind} | {name} | {} | {g} |", cells.join(" | "));
        }
    }
    let _ = writeln!(
        s,
        "\n{}\n\n**Corollary 3 check** (bg/CMS energy g.mean > 1 and bg/CMS delayed time g.mean > 1): holds on {} \
         of seeds 1–5 ({}); energy g.mean per seed {}; delayed time {}.",
        t3.summary_line("Table 3"),
        held(Checks::c3),
        per_seed_marks(Checks::c3),
        checks
            .iter()
            .map(|c| format!("{:.3}", c.c3_energy))
            .collect::<Vec<_>>()
            .join(", "),
        checks
            .iter()
            .map(|c| format!("{:.3}", c.c3_delayed))
            .collect::<Vec<_>>()
            .join(", ")
    );
    // Corollary 4.
    let _ = writeln!(
        s,
        "\n## Corollary 4 (Fig. 9): mean MinMU over the default windows (targetUtil 0.75); best variant in bold\n\n| \
         benchmark | {} | max pause ms (cms) |\n|---|{}---|",
        VARIANTS.join(" | "),
        "---|".repeat(VARIANTS.len())
    );
    for row in TABLE1 {
        let vals = variant_mmus(r, None, row.preset);
        let best = best_of(&vals);
        let cells: Vec<String> = vals
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Some(v) if Some(i) == best => format!("**{v:.3}**"),
                Some(v) => format!("{v:.3}"),
                None => "—".into(),
            })
            .collect();
        let maxp = r.get(row.preset, "cms", d).map_or(0.0, |x| x.max_pause_ms);
        let _ = writeln!(
            s,
            "| {} | {} | {maxp:.1} |",
            short(row.preset),
            cells.join(" | ")
        );
    }
    let _ = writeln!(
        s,
        "\nPaper: fg best on lusearch and xalan, bg best on javac; only javac has a maximum pause above 50 ms.\n\n\
         **Corollary 4 check** (fg best on lusearch and xalan, bg best on javac, only javac's CMS max pause > 50 ms): \
         holds on {} of seeds 1–5 ({}); best on lusearch / xalan / javac per seed: {}; CMS max pauses > 50 ms: {}.",
        held(Checks::c4),
        per_seed_marks(Checks::c4),
        checks
            .iter()
            .map(|c| c.c4_best.map(|b| b.unwrap_or("—")).join("/"))
            .collect::<Vec<_>>()
            .join(", "),
        checks
            .iter()
            .map(|c| {
                if c.c4_over_50ms.is_empty() {
                    "none".to_string()
                } else {
                    c.c4_over_50ms
                        .iter()
                        .map(|p| short(p))
                        .collect::<Vec<_>>()
                        .join("+")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    summary_section(&mut s, r, &checks, &per_seed_counts, &per_seed_pauses);
    ablation_section(&mut s, r, &checks[0]);
    // Envelope.
    let _ = writeln!(
        s,
        "\n## The abstract's envelope: spread across variants and targetUtil\n\n| benchmark | energy max/min − 1 | \
         time max/min − 1 |\n|---|---|---|"
    );
    for p in JAVA {
        let xs: Vec<&Summary> = VARIANTS
            .iter()
            .flat_map(|k| TARGET_UTILS.iter().filter_map(move |&u| r.get(p, k, u)))
            .collect();
        let spread = |f: &dyn Fn(&Summary) -> f64| {
            let v: Vec<f64> = xs.iter().map(|x| f(x)).collect();
            let (lo, hi) = v
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
            100.0 * (hi / lo.max(1e-12) - 1.0)
        };
        let _ = writeln!(
            s,
            "| {} | {:.1} % | {:.1} % |",
            short(p),
            spread(&|x| x.energy_j.total),
            spread(&|x| x.execution_time_s)
        );
    }
    let _ = writeln!(
        s,
        "\nPaper: on-chip energy moves by roughly 20–30 % and throughput by 10–40 %."
    );
    sensitivity_section(&mut s, r);
    large_object_section(&mut s, r);
    s
}

/// What large objects would do to the GC-ALLOC counts gclab misses: per what-if, CONC and foreground ALLOC
/// collections (and waits) under default CMS.
fn large_object_section(s: &mut String, r: &Results<'_>) {
    let names: Vec<&str> = ALLOC_BENCHMARKS.iter().map(|p| short(p)).collect();
    let _ = writeln!(
        s,
        "\n## What-if: large objects and the missing GC-ALLOC collections\n\nEach cell: CONC / foreground ALLOC \
         (waits for a running cycle) under CMS at 0.75. A large object succeeds or fails whole, so one bigger than \
         the 128 KiB window fails from below the concurrent trigger (a foreground GC with no GC-CONC first), or \
         fails with the bytes free but no single free range below the footprint limit (the frag case). The presets \
         have no large objects: no benchmark publishes its size tail.\n\n| setting | {} |\n|---|{}",
        names.join(" | "),
        "---|".repeat(ALLOC_BENCHMARKS.len())
    );
    let cell = |x: Option<&Summary>| match x {
        Some(x) => format!(
            "{} / {} ({})",
            trig(x, "concurrent"),
            trig(x, "alloc"),
            x.alloc_waits.unwrap_or(0)
        ),
        None => "—".into(),
    };
    let paper: Vec<String> = ALLOC_BENCHMARKS
        .iter()
        .map(|p| match TABLE1.iter().find(|row| row.preset == *p) {
            Some(row) => format!("{} / {}", row.conc, row.alloc),
            None => "—".into(),
        })
        .collect();
    let _ = writeln!(s, "| paper (Table 1) | {} |", paper.join(" | "));
    let rows = std::iter::once(("none (the presets)", None)).chain(
        LARGE_OBJECT_WHAT_IFS
            .iter()
            .enumerate()
            .map(|(i, (l, _))| (*l, Some(i))),
    );
    for (label, what_if) in rows {
        let cells: Vec<String> = ALLOC_BENCHMARKS
            .iter()
            .map(|p| match what_if {
                None => cell(r.get(p, "cms", 0.75)),
                Some(i) => cell(r.get_what_if(i, p)),
            })
            .collect();
        let _ = writeln!(s, "| {label} | {} |", cells.join(" | "));
    }
}

/// Mean MinMU of each variant (in [`VARIANTS`] order) on `preset` at targetUtil 0.75 under sensitivity `sens`.
fn variant_mmus(r: &Results<'_>, sens: Option<usize>, preset: &str) -> Vec<Option<f64>> {
    VARIANTS
        .iter()
        .map(|k| r.get_with(sens, preset, k, 0.75).map(mean_mmu))
        .collect()
}

/// Index of the highest value (the last of equals).
fn best_of(vals: &[Option<f64>]) -> Option<usize> {
    vals.iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// One sensitivity table: `intro` (markdown ending in the column header row's lead), a column per benchmark, a row
/// per setting (defaults first), each cell from `cell(setting, benchmark)`.
fn sensitivity_table(
    s: &mut String,
    intro: &str,
    benches: &[&str],
    cell: impl Fn(Option<usize>, &str) -> String,
) {
    let names: Vec<&str> = benches.iter().map(|p| short(p)).collect();
    let _ = writeln!(
        s,
        "{intro}\n\n| setting | {} |\n|---|{}",
        names.join(" | "),
        "---|".repeat(benches.len())
    );
    for (sens, label) in labels_of_sensitivity() {
        let cells: Vec<String> = benches.iter().map(|p| cell(sens, p)).collect();
        let _ = writeln!(s, "| {label} | {} |", cells.join(" | "));
    }
}

/// How the corollaries move with the estimates: per setting, time and energy at targetUtil 0.9 over 0.1 (CMS),
/// and bg's energy over CMS's, for the four Java benchmarks; then Corollary 4's best variant.
fn sensitivity_section(s: &mut String, r: &Results<'_>) {
    sensitivity_table(
        s,
        "\n## Sensitivity: the corollaries under other estimates\n\nEach cell: T(0.9)/T(0.1), E(0.9)/E(0.1) under \
         CMS; then bg/CMS energy at 0.75. Corollary 1 wants T > 1 everywhere and E < 1 only for lusearch; \
         Corollary 3 wants bg/CMS > 1.",
        &JAVA,
        |sens, p| {
            let g = |k, u| r.get_with(sens, p, k, u);
            match (g("cms", 0.1), g("cms", 0.9), g("cms", 0.75), g("bg", 0.75)) {
                (Some(a), Some(b), Some(c), Some(d)) => format!(
                    "{:.3}, {:.3}; {:.3}",
                    b.execution_time_s / a.execution_time_s,
                    b.energy_j.total / a.energy_j.total,
                    d.energy_j.total / c.energy_j.total
                ),
                _ => "—".into(),
            }
        },
    );
    sensitivity_table(
        s,
        "\nCorollary 4 under the same settings: per benchmark, the variant with the best mean MinMU at 0.75 and \
         fg's mean MinMU minus the best (0 when fg leads). The paper has fg best on lusearch and xalan, bg on \
         javac.",
        &COROLLARY4,
        |sens, p| {
            let vals = variant_mmus(r, sens, p);
            let fg = VARIANTS.iter().position(|k| *k == "fg");
            match (best_of(&vals), fg.and_then(|i| vals[i])) {
                (Some(b), Some(f)) if vals.iter().all(Option::is_some) => {
                    format!("{} ({:+.3})", VARIANTS[b], f - vals[b].unwrap_or(f))
                }
                _ => "—".into(),
            }
        },
    );
}

/// The sensitivity settings with their labels, the defaults first.
fn labels_of_sensitivity() -> Vec<(Option<usize>, &'static str)> {
    std::iter::once((None, "defaults"))
        .chain(
            SENSITIVITY
                .iter()
                .enumerate()
                .map(|(i, (l, _))| (Some(i), *l)),
        )
        .collect()
}

/// The acceptance summary: each corollary and Table 1 rule per seed, and how many seeds it holds on.
fn summary_section(
    s: &mut String,
    r: &Results<'_>,
    checks: &[Checks],
    counts: &[f64],
    pauses: &[f64],
) {
    let _ = r;
    let _ = writeln!(
        s,
        "\n## Summary: the issue's acceptance checks per seed\n\n| check | seeds 1–5 | holds on |\n|---|---|---|"
    );
    let rows: [(&str, Vec<bool>); 6] = [
        ("Corollary 1", checks.iter().map(Checks::c1).collect()),
        ("Corollary 2", checks.iter().map(Checks::c2).collect()),
        ("Corollary 3", checks.iter().map(Checks::c3).collect()),
        ("Corollary 4", checks.iter().map(Checks::c4).collect()),
        (
            "Table 1 GC counts ≥ 12 of 18 within tolerance",
            counts.iter().map(|&n| n >= 12.0).collect(),
        ),
        (
            "Table 1 max pauses within ×1.5 on ≥ 4 of 6",
            pauses.iter().map(|&n| n >= 4.0).collect(),
        ),
    ];
    let mut corollaries = 0;
    for (i, (name, v)) in rows.iter().enumerate() {
        let n = v.iter().filter(|b| **b).count();
        if i < 4 && n >= 4 {
            corollaries += 1;
        }
        let _ = writeln!(
            s,
            "| {name} | {} | {n} of {} |",
            v.iter().map(|b| mark(*b)).collect::<Vec<_>>().join(" "),
            v.len()
        );
    }
    let _ = writeln!(
        s,
        "\n**Summary — corollaries: {corollaries} of 4 hold on at least 4 of seeds 1–5.**"
    );
}

/// The ablation matrix: each mechanism off alone (seed 1) against every check and the scored Table 1/3 columns.
fn ablation_section(s: &mut String, r: &Results<'_>, base: &Checks) {
    let _ = writeln!(
        s,
        "\n## Ablation: each mechanism switched off alone (seed 1)\n\nEach row switches one mechanism of \
         docs/models-android.md off (the overrides in `ABLATIONS`, core/src/reproduce/android.rs) and re-runs the \
         corollary set. C1: slower when tight / energy as the paper (of 4); C2: transitions grow (of 4), lusearch \
         low+offline ↑, xalan not; C3: bg/CMS energy, delayed time (g.mean); C4: best MinMU on lusearch/xalan/javac, \
         CMS max pauses > 50 ms; T1: GC counts within tolerance (of 18), max pauses within ×1.5 (of 6); T3: cells \
         within ±10 % (of 16); then the CMS max pauses of lusearch, xalan and Quadrant (ms) and GenCMS's mean MinMU \
         on Quadrant.\n\n| mechanism off | C1 | C2 | C3 | C4 | T1 counts | T1 pauses | T3 | max pause lus / xal / \
         quad | GenCMS quad MinMU |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    let key = |a| Key {
        sensitivity: None,
        ablation: a,
        seed: 1,
    };
    let rows = std::iter::once(("none (all on)", None)).chain(
        ABLATIONS
            .iter()
            .enumerate()
            .map(|(i, (l, _))| (*l, Some(i))),
    );
    for (label, a) in rows {
        let k = key(a);
        let c = if a.is_none() {
            base.clone()
        } else {
            Checks::of(r, k)
        };
        let pause = |p: &str| {
            r.at(k, p, "cms", 0.75)
                .map_or("—".into(), |x| format!("{:.1}", x.max_pause_ms))
        };
        let gencms = r
            .at(k, "android/quadrant", "gencms", 0.75)
            .map_or("—".into(), |x| format!("{:.3}", mean_mmu(x)));
        let _ = writeln!(
            s,
            "| {label} | {} {}/{} {}/{} | {} {}/{} {}/{} | {} {:.3}, {:.3} | {} {} ({}) | {} | {} | {} | {} / {} / {} | {gencms} |",
            mark(c.c1()),
            c.c1_slower,
            4,
            c.c1_energy,
            4,
            mark(c.c2()),
            c.c2_transitions,
            4,
            mark(c.c2_lusearch_low),
            mark(c.c2_xalan_not_low),
            mark(c.c3()),
            c.c3_energy,
            c.c3_delayed,
            mark(c.c4()),
            c.c4_best.map(|b| b.unwrap_or("—")).join("/"),
            c.c4_over_50ms
                .iter()
                .map(|p| short(p))
                .collect::<Vec<_>>()
                .join("+"),
            table1_counts_within(r, k),
            max_pauses_within_1_5(r, k),
            table3_within(r, k),
            pause("android/lusearch"),
            pause("android/xalan"),
            pause("android/quadrant"),
        );
    }
}
