//! The SYSTOR'15 reproduction's markdown report: its introduction, Table 1 under default CMS, and the order of
//! the sections (corollaries in [`super::corollaries`], the rest in [`super::what_if`]).

use std::fmt::Write as _;

use super::super::marks::{Kind, Quantity, Tally, band};
use super::super::paper_android::TABLE1;
use super::checks::{
    Checks, all_seeds, max_pauses_within_1_5, predicted_cell, short, table1_counts_within,
    table1_live, table1_pause_ms, trig,
};
use super::corollaries::{
    corollary1_section, corollary2_section, corollary3_section, corollary4_section,
    envelope_section,
};
use super::movers::movers_section;
use super::what_if::{
    ablation_section, large_object_section, sensitivity_section, summary_section,
};
use super::{Key, Results};
use crate::run::Summary;

/// The markdown report.
pub fn report(r: &Results<'_>) -> String {
    let mut s = String::new();
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
         seed). The predicted Table 1 and Table 3 cells are also the calibration set: the unknowns' search \
         (`scripts/calibrate-android.sh`, docs/calibration-android.md) chose the presets' point to fit them on \
         seeds 1–5, so their marks are fits, not out-of-sample predictions (the search reports the point's fit on \
         seeds 6–10 as well); the corollaries are the validation set, never read to choose it. Corollary checks say \
         on how many of seeds 1–5 they hold.\n"
    );
    let (per_seed_counts, per_seed_pauses) = table1_section(&mut s, r, &seeds);
    let checks: Vec<Checks> = seeds
        .iter()
        .map(|&sd| Checks::of(r, Key::seed(sd)))
        .collect();
    corollary1_section(&mut s, r, &checks);
    corollary2_section(&mut s, r, &checks);
    corollary3_section(&mut s, r, &checks);
    corollary4_section(&mut s, r, &checks);
    summary_section(&mut s, r, &checks, &per_seed_counts, &per_seed_pauses);
    ablation_section(&mut s, r, &checks[0]);
    movers_section(&mut s, r, &checks[0]);
    envelope_section(&mut s, r);
    sensitivity_section(&mut s, r);
    large_object_section(&mut s, r);
    s
}

/// Table 1 under default CMS: input, calibrated and predicted cells; returns the per-seed counts of GC counts
/// and max pauses within tolerance.
fn table1_section(s: &mut String, r: &Results<'_>, seeds: &[u64]) -> (Vec<f64>, Vec<f64>) {
    let d = 0.75;
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
        // Live varies by seed where a few large objects may or may not be immortal (Quadrant): the band shows it.
        let live_bytes = table1_live(row.preset);
        let lives = per_seed(&|x| mib(live_bytes(x)));
        let live = format!(
            "{} [{}]",
            input(mib(live_bytes(x)), row.live_mib),
            band(&lives, 2)
        );
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
            &per_seed(&|x| table1_pause_ms(x)),
            row.max_pause_ms,
            1,
        );
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {conc} | {alloc} | {} / {} *input* | {trims} | {cont} | {pause} | {:.1} / {:.1} *{}* |",
            short(row.preset),
            input(mib(x.allocated_bytes), row.alloc_mib),
            live,
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
         asks ≥ 4 of 6).\n\nLive is read as each preset's profile is built to match it (`workload.android.live_reading`, a calibrated unknown): the run's mean reachable bytes, or for a live set that grows to the run's end (read as a peak) its bytes there; `[a–b]` is the band over seeds 1–5. ALLOC counts foreground collections; *waited* counts the GC-ALLOC triggers that found a \
         cycle running and waited for it (a concurrent pause), which Table 1 does not count as collections \
         (docs/models-android.md, Known deviations). The max pause is Table 1's *Max-Pause* as §2.4 defines it: the \
         longest pause a mutator spends responding to a safepoint or running a foreground collection \
         (`summary.max_stop_pause_ms`); a wait for a running concurrent cycle is left out (`summary.max_pause_ms`, \
         the MinMU and Fig. 9's x-intercept count it). GC CPU % is the calibration target (Pandora excepted: its 72 \
         background threads cap its GC share; it keeps the estimated compute).\n",
        t1.summary_line("Table 1"),
        t1_counts.within,
        t1_counts.total,
        band(&per_seed_counts, 0),
        per_seed_pauses[0],
        band(&per_seed_pauses, 0)
    );
    (per_seed_counts, per_seed_pauses)
}
