//! A log's pauses as the log views draw them: the pause bars by kind, the heap before, after and in use, the heap's
//! capacity and the pause starts to step through, built in two passes over the pauses as the importer kept them
//! (`LogRecords`: a temporary file beyond a few MB), every series thinned as it is built ([`super::log_thin`]). Memory holds the thinned series, not the log
//! (issue 21: a 1 GB pause CSV held as `Vec<Pause>` took 5.0 GB in the app).

use std::collections::HashMap;

use egui_plot::PlotPoint;
use gclab_core::importers::{LogRecords, PauseRef, PauseSeries};

use super::log_thin::{self, Bars, Points, Starts};

/// Pause starts kept to step from pause to pause: every one up to this many, beyond that the earliest of each of
/// this many time buckets (8 bytes each).
const STARTS: usize = 1 << 20;

/// Pauses of one kind, as plot bars.
#[derive(Debug, Clone, PartialEq)]
pub struct PauseKindSeries {
    /// The kind as logged (`Pause Young (Normal)`, `GC_CONCURRENT`).
    pub kind: String,
    /// How many pauses of this kind.
    pub count: usize,
    /// `(start [s], length [ms])`, thinned to the longest of each of `log_thin::BUCKETS` time buckets (one more
    /// for a pause at the span's end).
    pub bars: Vec<(f64, f64)>,
}

/// What the log views draw of a log's pauses (fields as [`super::log::LogView`]'s of the same names).
#[derive(Debug)]
pub(super) struct PauseViews {
    pub(super) pauses: usize,
    pub(super) total_pause_ms: f64,
    pub(super) max_pause_ms: f64,
    pub(super) pause_start_s: Vec<f64>,
    pub(super) kinds: Vec<PauseKindSeries>,
    pub(super) heap_used: Vec<PlotPoint>,
    pub(super) heap_before: Vec<PlotPoint>,
    pub(super) heap_after: Vec<PlotPoint>,
    pub(super) heap_total: Vec<PlotPoint>,
}

/// The pause count, longest and total pause, pause starts, pause bars by kind and heap series of `p`, on a clock
/// whose 0 is time `t0`, over `dur` seconds.
pub(super) fn views(p: &PauseSeries<LogRecords>, t0: u64, dur: f64) -> PauseViews {
    let secs = |ns: u64| ns.saturating_sub(t0) as f64 * 1e-9;
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let len_ms = |q: &PauseRef<'_>| q.end_ns.saturating_sub(q.start_ns) as f64 * 1e-6;
    let mut starts = Starts::new(dur, STARTS);
    let [mut used, mut before, mut after, mut totals] = [(); 4].map(|()| Points::new(dur));
    // Each kind's number, found by hash (a hostile log naming a kind per pause made a linear search quadratic),
    // and its count.
    let mut kind_at: HashMap<&str, usize> = HashMap::new();
    let mut counts: Vec<usize> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let (mut pauses, mut total_ms, mut max_ms) = (0usize, 0.0f64, 0.0f64);
    for q in p.pauses.refs() {
        let (s, e) = (secs(q.start_ns), secs(q.end_ns));
        starts.push(s);
        pauses += 1;
        total_ms += len_ms(&q);
        max_ms = max_ms.max(len_ms(&q));
        let k = *kind_at.entry(q.kind).or_insert_with(|| {
            names.push(q.kind);
            counts.push(0);
            counts.len() - 1
        });
        counts[k] += 1;
        if let Some(b) = q.heap_before_bytes {
            before.push(PlotPoint::new(s, mib(b)));
            used.push(PlotPoint::new(s, mib(b)));
        }
        if let Some(a) = q.heap_after_bytes {
            after.push(PlotPoint::new(e, mib(a)));
            used.push(PlotPoint::new(e, mib(a)));
        }
        if let Some(t) = q.heap_total_bytes {
            totals.push(PlotPoint::new(e, mib(t)));
        }
    }
    // Transitions logged apart from pauses (ZGC cycles, Shenandoah's concurrent cleanup).
    for h in &p.heap_changes {
        let (s, e) = (secs(h.start_ns), secs(h.end_ns));
        before.push(PlotPoint::new(s, mib(h.before_bytes)));
        used.push(PlotPoint::new(s, mib(h.before_bytes)));
        after.push(PlotPoint::new(e, mib(h.after_bytes)));
        used.push(PlotPoint::new(e, mib(h.after_bytes)));
        if let Some(t) = h.total_bytes {
            totals.push(PlotPoint::new(e, mib(t)));
        }
    }
    // The second pass: each pause's bar to the kind it is drawn as (the rarer kinds merged), now that the counts
    // say which kinds those are.
    let (shown, merged, slot) = log_thin::kinds(&counts);
    let mut bars: Vec<Bars> = (0..shown.len() + usize::from(merged > 0))
        .map(|_| Bars::new(dur))
        .collect();
    for q in p.pauses.refs() {
        let k = kind_at.get(q.kind).map_or(0, |&k| slot[k]);
        if let Some(b) = bars.get_mut(k) {
            b.push((secs(q.start_ns), len_ms(&q)));
        }
    }
    let mut kinds: Vec<PauseKindSeries> = shown
        .iter()
        .map(|&k| PauseKindSeries {
            kind: names[k].to_string(),
            count: counts[k],
            bars: Vec::new(),
        })
        .collect();
    if merged > 0 {
        kinds.push(PauseKindSeries {
            kind: format!("{merged} other kinds"),
            count: pauses - kinds.iter().map(|k| k.count).sum::<usize>(),
            bars: Vec::new(),
        });
    }
    for (k, b) in kinds.iter_mut().zip(bars) {
        k.bars = b.finish();
    }
    PauseViews {
        pauses,
        total_pause_ms: total_ms,
        max_pause_ms: max_ms,
        pause_start_s: starts.finish(),
        kinds,
        heap_used: used.finish(),
        heap_before: before.finish(),
        heap_after: after.finish(),
        // Steps, then thinned: a logcat's processes interleave their capacities, a step at every pause.
        heap_total: Points::thin(log_thin::steps(&totals.finish(), dur), dur),
    }
}

#[cfg(test)]
pub(in crate::gui) mod tests {
    use std::path::Path;

    use gclab_core::importers::{Format, Imported, Pause, PauseSink, import_file, union_ns};
    use gclab_core::metrics::mmu::{MmuCurve, UtilSeries};

    use super::*;
    use gclab_core::Cancel;

    /// `p` with its pauses in records, kept in memory up to `spill_at` (a temporary file beyond).
    pub(in crate::gui) fn as_records(p: &PauseSeries, spill_at: usize) -> PauseSeries<LogRecords> {
        let mut records = LogRecords::spilling_at(spill_at);
        p.pauses
            .iter()
            .cloned()
            .for_each(|q: Pause| records.push(q));
        PauseSeries {
            pauses: records,
            mutators: p.mutators.clone(),
            span_ns: p.span_ns,
            reported_mmu: p.reported_mmu.clone(),
            heap_changes: p.heap_changes.clone(),
            // What the app's sink keeps of the phases (`PauseSink::PHASE_SPANS`): their count and union.
            concurrent: Vec::new(),
            concurrent_counted: Some(p.concurrent_stats()),
            concurrent_union: union_ns(p.concurrent.iter().map(|c| (c.start_ns, c.end_ns))),
            heap_changes_counted: p.heap_changes_counted,
            safepoints: p.safepoints.clone(),
            safepoints_counted: p.safepoints_counted,
            warnings: p.warnings.clone(),
        }
    }

    /// The real logs under `tests/fixtures/logs` and a Go trace's pause CSV draw the same from records in a
    /// temporary file (what the app opens a big log into) as from records in memory, and their MinMU is the one
    /// measured on the pauses in memory by `MmuCurve::new` (the app's way before the records).
    #[test]
    fn a_log_in_records_on_disk_draws_as_the_log_in_memory() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        for name in [
            "art-logcat.txt",
            "dalvik-logcat.txt",
            "jdk17-g1-all-decorators-xmx64m.log",
            "jdk17-shenandoah-xmx64m.log",
            "jdk17-zgc-uptimenanos-xmx128m.log",
            // A Go trace's pauses (one of Go's own MMU oracle cases).
            "../../../../shared/data/go-mmu/trace1-p2-gogc100-trees/pauses.csv",
        ] {
            let path = here.join("../tests/fixtures/logs").join(name);
            let (format, data) = import_file(&path, Format::Auto).expect("imports");
            let Imported::Pauses(p) = &data else {
                panic!("{name}: a pause list")
            };
            let in_memory = Imported::Pauses(as_records(p, usize::MAX));
            let on_disk = Imported::Pauses(as_records(p, 2));
            let (Imported::Pauses(m), Imported::Pauses(d)) = (&in_memory, &on_disk) else {
                unreachable!("made above")
            };
            assert!(
                !m.pauses.on_disk() && d.pauses.on_disk(),
                "{name}: in memory and in a file"
            );
            let a = super::super::log::LogView::build(&path, format, &in_memory, &Cancel::never())
                .expect("builds");
            let b = super::super::log::LogView::build(&path, format, &on_disk, &Cancel::never())
                .expect("builds");
            assert!(a.pauses > 0, "{name}: pauses");
            assert_eq!(
                (a.pauses, a.max_pause_ms, a.total_pause_ms),
                (b.pauses, b.max_pause_ms, b.total_pause_ms),
                "{name}: counts"
            );
            assert_eq!(a.kinds, b.kinds, "{name}: bars");
            assert_eq!(a.pause_start_s, b.pause_start_s, "{name}: starts");
            assert!(
                a.pause_start_s.windows(2).all(|w| w[0] <= w[1]),
                "{name}: sorted"
            );
            for (what, x, y) in [
                ("used", &a.heap_used, &b.heap_used),
                ("before", &a.heap_before, &b.heap_before),
                ("after", &a.heap_after, &b.heap_after),
                ("total", &a.heap_total, &b.heap_total),
                ("mmu", &a.mmu_curve, &b.mmu_curve),
            ] {
                assert_eq!(x, y, "{name}: {what}");
            }
            assert_eq!(
                (a.concurrent_s.clone(), a.safepoints, a.gc_fraction),
                (b.concurrent_s.clone(), b.safepoints, b.gc_fraction),
                "{name}: phases"
            );
            // The MinMU as measured on the pauses in memory, on the span's own clock.
            let (t0, _) = data.default_span_ns();
            let series: Vec<UtilSeries> = (data.util_series(p.span_ns).iter())
                .map(|s| UtilSeries {
                    times: s.times.iter().map(|t| t.saturating_sub(t0)).collect(),
                    util: s.util.clone(),
                })
                .collect();
            let curve = MmuCurve::new(&series);
            for q in &b.mmu_curve {
                let w_ns = (10f64.powf(q.x) * 1e6).max(1.0) as u64;
                assert_eq!(
                    q.y,
                    curve.mmu(w_ns).utilization,
                    "{name}: MinMU at {w_ns} ns"
                );
            }
        }
    }
}
