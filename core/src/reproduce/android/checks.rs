//! The SYSTOR'15 reproduction's acceptance checks: the four corollaries of one family of runs ([`Checks`]),
//! the Table 1 / Table 3 within-tolerance counts, and the small measures and helpers the report's sections share.

use super::super::marks::{Quantity, Tally, band};
use super::super::paper_android::{JAVA, TABLE1, TABLE3_DELAYED, TABLE3_MIGRATIONS, VARIANTS};
use super::{COROLLARY4, EXTRA_SEEDS, Key, Results};
use crate::run::Summary;
use crate::scenario::Scenario;
use crate::workload::android::LiveReading;

pub(super) fn short(preset: &str) -> &str {
    preset.trim_start_matches("android/")
}

pub(super) fn trig(s: &Summary, key: &str) -> u64 {
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

pub(super) fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.max(1e-12).ln()).sum::<f64>() / v.len().max(1) as f64).exp()
}

pub(super) fn mark(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}

/// Every seed the report runs: the presets' 1, then [`EXTRA_SEEDS`].
pub(super) fn all_seeds() -> Vec<u64> {
    std::iter::once(1).chain(EXTRA_SEEDS).collect()
}

/// Ours over CMS's for `measure` on each Java benchmark (`kind` at 0.75) within one family of runs.
pub(super) fn ratios_vs_cms(r: &Results<'_>, key: Key, kind: &str, measure: Measure) -> Vec<f64> {
    JAVA.iter()
        .filter_map(|p| {
            Some(
                measure(r.at(key, p, kind, 0.75)?) / measure(r.at(key, p, "cms", 0.75)?).max(1e-12),
            )
        })
        .collect()
}

/// A number read from a run's summary.
pub(super) type Measure = fn(&Summary) -> f64;

pub(super) fn energy(x: &Summary) -> f64 {
    x.energy_j.total
}

pub(super) fn migrations(x: &Summary) -> f64 {
    x.migrations.unwrap_or(0) as f64
}

pub(super) fn delayed(x: &Summary) -> f64 {
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
pub(super) fn table1_counts_within(r: &Results<'_>, key: Key) -> usize {
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
            .filter(|(k, p)| {
                super::super::marks::within(Quantity::Count, trig(x, k) as f64, *p as f64)
            })
            .count()
        })
        .sum()
}

/// Table 1's *Max-Pause* of a run as §2.4 defines it: the longest pause responding to a safepoint or running a
/// foreground collection (waits for a running concurrent cycle left out; `max_pause_ms` counts them, as the MinMU
/// and Fig. 9's x-intercept do). `[ms]`
pub(super) fn table1_pause_ms(x: &Summary) -> f64 {
    x.max_stop_pause_ms.unwrap_or(x.max_pause_ms)
}

/// Table 1's *Live* for the benchmark whose preset is `preset`, as that preset's profile is built to match it
/// (`workload.android.live_reading`, an unknown of the calibration search): the run's mean reachable bytes, or —
/// read as a peak, for a live set that outlives the run (an immortal fraction: the live set grows to its end) —
/// the reachable bytes at the run's end. A steady live set is built to the mean under either reading. The cell is
/// an *input* either way. The preset is read once; the returned reader picks the bytes from each run's summary.
pub fn table1_live(preset: &str) -> impl Fn(&Summary) -> u64 + use<> {
    let grows_to_live = Scenario::load(&format!("preset:{preset}"), &[])
        .ok()
        .and_then(|sc| sc.workload().android.clone())
        .is_some_and(|p| p.live_reading == LiveReading::Peak && p.lifetimes().immortal() > 0.0);
    move |x: &Summary| {
        if grows_to_live {
            x.end_live_bytes.unwrap_or(x.peak_live_bytes)
        } else {
            x.mean_live_bytes.unwrap_or(0)
        }
    }
}

/// Table 1's maximum pauses of family `key` within ×1.5 of the paper's (the pause rule), of 6.
pub(super) fn max_pauses_within_1_5(r: &Results<'_>, key: Key) -> usize {
    TABLE1
        .iter()
        .filter(|row| {
            r.at(key, row.preset, "cms", 0.75).is_some_and(|x| {
                let q = table1_pause_ms(x) / row.max_pause_ms;
                (1.0 / 1.5..=1.5).contains(&q)
            })
        })
        .count()
}

/// Table 3's cells (bg/fg × migrations/delayed time × 4 benchmarks) of family `key` within ±10 %, of 16.
pub(super) fn table3_within(r: &Results<'_>, key: Key) -> usize {
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
                .filter(|(o, p)| super::super::marks::within(Quantity::Value, **o, *p))
                .count();
        }
    }
    n
}

/// A predicted cell: `ours / paper ✓|✗ ratio (seed band)`, scored into `tally`.
pub(super) fn predicted_cell(
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

/// Mean MinMU of each variant (in [`VARIANTS`] order) on `preset` at targetUtil 0.75 under sensitivity `sens`.
pub(super) fn variant_mmus(r: &Results<'_>, sens: Option<usize>, preset: &str) -> Vec<Option<f64>> {
    let key = Key {
        sensitivity: sens,
        ..Key::seed(1)
    };
    variant_mmus_at(r, key, preset)
}

/// [`variant_mmus`] for the run family `key`.
pub(super) fn variant_mmus_at(r: &Results<'_>, key: Key, preset: &str) -> Vec<Option<f64>> {
    VARIANTS
        .iter()
        .map(|k| r.at(key, preset, k, 0.75).map(mean_mmu))
        .collect()
}

/// fg's value minus the best other variant's, from [`variant_mmus`]' values (> 0: fg leads, as Corollary 4
/// wants; a missing fg counts 0).
pub(super) fn fg_lead_of(vals: &[Option<f64>]) -> f64 {
    let fg = VARIANTS.iter().position(|k| *k == "fg");
    let others = (vals.iter().enumerate())
        .filter(|(i, _)| Some(*i) != fg)
        .filter_map(|(_, v)| *v)
        .fold(f64::NEG_INFINITY, f64::max);
    fg.and_then(|i| vals[i]).unwrap_or(0.0) - others
}

/// Index of the highest value (the last of equals).
pub(super) fn best_of(vals: &[Option<f64>]) -> Option<usize> {
    vals.iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// On how many families `f` holds.
pub(super) fn held(checks: &[Checks], f: fn(&Checks) -> bool) -> usize {
    checks.iter().filter(|c| f(c)).count()
}

/// `f`'s mark per family, space-separated.
pub(super) fn per_seed_marks(checks: &[Checks], f: fn(&Checks) -> bool) -> String {
    checks
        .iter()
        .map(|c| mark(f(c)))
        .collect::<Vec<_>>()
        .join(" ")
}
