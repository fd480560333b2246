//! The sweeps. [`SweepMode::Collector`] — on kvm-soc (adaptive-GC paper's Fig. 4): heap energy of the
//! k-allocation collector for log-spaced k, with the base and adaptive collectors as reference lines; on
//! android-krait (SYSTOR'15 Figs. 6 and 8): energy and execution time of the five CMS variants for targetUtil
//! 0.1–0.9. [`SweepMode::HeapSize`] — the trade-off view (issue #19 item 4): the current scenario at 13 heap sizes
//! from an eighth of its heap to eight times it (steps of √2, each a multiple of the bank size), with energy,
//! longest pause and the MinMU curve of each; on android-krait [`SweepMode::TargetUtil`] instead — targetUtil
//! 0.1–0.9, the knob that sizes its heap ([`tradeoff_mode`]).
//!
//! Runs as a "sweep-worker" [`BackgroundTask`] that spreads the points over the cores with the one parallel runner
//! ([`crate::parallel::map_on_cores`]), reporting each point as it finishes; cancelling fires the task's core
//! [`Cancel`], which every simulation polls. Each point is the scenario with `--set`-style overrides ([`Scenario::with_overrides`]), as
//! `gclab sweep --vary` builds them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use gclab_core::MmuPoint;
use gclab_core::{
    ByteSize, CollectorKind, NoProgress, PlatformKind, Scenario, Set, WorkloadTapes, simulate,
    simulate_with,
};

use crate::background::BackgroundTask;

/// The k values of the sweep. (k = 1 is left out: on kvm/kwml it takes minutes in the core, not milliseconds.)
pub const K_VALUES: [u64; 12] = [2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

/// The variants and targetUtil values of the android-krait sweep.
pub const ANDROID_VARIANTS: [CollectorKind; 5] = [
    CollectorKind::Cms,
    CollectorKind::Gencms,
    CollectorKind::Cmsfly,
    CollectorKind::Bg,
    CollectorKind::Fg,
];

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SweepMode {
    /// kvm-soc: k (and base, adaptive); android-krait: targetUtil × CMS variant.
    #[default]
    Collector,
    /// The heap size (kvm-soc's trade-off view).
    HeapSize,
    /// The target heap utilisation 0.1–0.9 (android-krait's trade-off view: the heap is sized to live ÷ targetUtil
    /// under the growth limit, so a bigger `heap.size` than the live data needs changes nothing — this knob acts).
    TargetUtil,
}

/// targetUtil values of the android-krait trade-off sweep (the range SYSTOR'15 Fig. 6 sweeps).
pub const TARGET_UTILS: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/// What the trade-off view sweeps on `platform`: the heap size on kvm-soc, targetUtil on android-krait (where the
/// heap size binds only near the live size: android/lusearch runs identically at every size from 12 to 768 MiB).
pub fn tradeoff_mode(platform: PlatformKind) -> SweepMode {
    match platform {
        PlatformKind::AndroidKrait => SweepMode::TargetUtil,
        _ => SweepMode::HeapSize,
    }
}

/// Heap sizes of a heap-size sweep around `heap_kib`: 13 log-spaced sizes from ⅛× to 8× (steps of √2), each
/// rounded to a multiple of `bank_kib` and at least `min_kib`, without repeats. `[KiB]`
pub fn heap_sizes(heap_kib: u64, bank_kib: u64, min_kib: u64) -> Vec<u64> {
    let bank = bank_kib.max(1);
    let mut v: Vec<u64> = (-6..=6)
        .map(|i| {
            let want = heap_kib as f64 * 2f64.powf(f64::from(i) / 2.0);
            let banks = (want / bank as f64).round().max(1.0) as u64;
            (banks * bank).max(min_kib.div_ceil(bank) * bank)
        })
        .collect();
    v.dedup();
    v
}

/// One swept run.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPoint {
    /// k (0 for the reference collectors and on android-krait).
    pub k: u64,
    /// Target heap utilisation (android-krait; 0 on kvm-soc).
    pub target_util: f64,
    /// Heap energy. `[J]`
    pub heap_j: f64,
    /// Total energy. `[J]`
    pub total_j: f64,
    /// Execution time. `[s]`
    pub time_s: f64,
    /// The memories' energy (heap, ROM, stack; 0 where not modelled). `[J]`
    pub memory_j: f64,
    /// Heap size. `[KiB]`
    pub heap_kib: u64,
    /// Longest mutator pause. `[ms]`
    pub max_pause_ms: f64,
    /// Collections started.
    pub collections: u64,
    /// The run ended out of memory.
    pub out_of_memory: bool,
    /// MinMU on the summary's log-spaced windows.
    pub mmu: Vec<MmuPoint>,
}

impl SweepPoint {
    /// MinMU at window `w_ms` (the curve's nearest window).
    pub fn minmu_at(&self, w_ms: f64) -> Option<f64> {
        self.mmu
            .iter()
            .min_by(|a, b| {
                (a.window_ms.ln() - w_ms.ln())
                    .abs()
                    .total_cmp(&(b.window_ms.ln() - w_ms.ln()).abs())
            })
            .map(|m| m.utilization)
    }
}

/// The finished (or partial) sweep.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SweepResult {
    /// Name of the scenario swept.
    pub name: String,
    /// k-allocation points, by k.
    pub k_allocation: Vec<SweepPoint>,
    /// The base collector.
    pub base: Option<SweepPoint>,
    /// The adaptive collector.
    pub adaptive: Option<SweepPoint>,
    /// True for the android-krait sweep (targetUtil × variant).
    pub android: bool,
    /// android-krait: points per variant, by targetUtil.
    pub variants: Vec<(CollectorKind, Vec<SweepPoint>)>,
    /// What was varied.
    pub mode: SweepMode,
    /// Trade-off sweep ([`SweepMode::HeapSize`] or [`SweepMode::TargetUtil`]): points by the swept knob.
    pub heap: Vec<SweepPoint>,
    /// Heap-size sweep: the scenario's own heap size. `[KiB]`
    pub current_heap_kib: u64,
    /// targetUtil sweep: the scenario's own targetUtil.
    pub current_target_util: f64,
    /// The platform models the memories' energy (kvm-soc; android-krait's model is the CPU cluster only), so
    /// the memory-only figure means something.
    pub memory_modelled: bool,
    /// Errors, one line each.
    pub errors: Vec<String>,
}

enum Msg {
    Point(CollectorKind, SweepPoint),
    Error(String),
}

/// The sweep's runtime state, owned by the app.
pub struct SweepState {
    /// Results so far.
    pub result: Option<SweepResult>,
    task: BackgroundTask<Msg>,
    done: Arc<AtomicU32>,
    total: u32,
}

impl Default for SweepState {
    fn default() -> Self {
        SweepState {
            result: None,
            task: BackgroundTask::new("sweep-worker", 64),
            done: Arc::default(),
            total: 0,
        }
    }
}

impl SweepState {
    /// Starts sweeping `base` in `mode` (cancelling any sweep running): k-allocation over [`K_VALUES`] plus base
    /// and adaptive, the android variants over targetUtil, or the heap sizes of [`heap_sizes`].
    pub fn start(&mut self, base: &Scenario, mode: SweepMode, wake: &egui::Context) {
        self.cancel();
        let jobs = match mode {
            SweepMode::Collector => jobs(base),
            SweepMode::HeapSize => heap_jobs(base),
            SweepMode::TargetUtil => target_util_jobs(base),
        };
        let done = Arc::new(AtomicU32::new(0));
        self.total = jobs.len() as u32;
        let mut result = SweepResult {
            name: base.file().name.clone(),
            android: mode == SweepMode::Collector && base.platform() == PlatformKind::AndroidKrait,
            mode,
            current_heap_kib: base.file().heap.size.bytes() / 1024,
            current_target_util: base.file().heap.target_util,
            memory_modelled: base.platform() == PlatformKind::KvmSoc,
            ..SweepResult::default()
        };
        let d2 = Arc::clone(&done);
        let started = self.task.start(Some(wake), move |sink| {
            let tapes = WorkloadTapes::new();
            crate::parallel::map_on_cores(&jobs, "sweep", |job| {
                if sink.is_cancelled() {
                    return;
                }
                let msg = match job {
                    Ok((kind, k, sc)) => {
                        match simulate_with(sc, Some(&tapes), sink.cancel(), &mut NoProgress) {
                            Ok(run) => Msg::Point(*kind, point(*k, sc, &run.summary)),
                            Err(e) => Msg::Error(e.to_string()),
                        }
                    }
                    Err(e) => Msg::Error(e.clone()),
                };
                d2.fetch_add(1, Ordering::Relaxed);
                let _ = sink.send(msg);
            });
        });
        if let Err(e) = started {
            result.errors.push(e);
        }
        self.result = Some(result);
        self.done = done;
    }

    /// Stops the sweep (what it found so far stays).
    pub fn cancel(&mut self) {
        self.task.stop();
    }

    /// Collects finished points.
    pub fn poll(&mut self) {
        let msgs = self.task.poll();
        let Some(r) = &mut self.result else { return };
        for m in msgs {
            match m {
                Msg::Point(_, p) if r.mode == SweepMode::HeapSize => {
                    r.heap.push(p);
                    r.heap.sort_by_key(|p| p.heap_kib);
                }
                Msg::Point(_, p) if r.mode == SweepMode::TargetUtil => {
                    r.heap.push(p);
                    r.heap
                        .sort_by(|a, b| a.target_util.total_cmp(&b.target_util));
                }
                Msg::Point(kind, p) if r.android => {
                    match r.variants.iter_mut().find(|(k, _)| *k == kind) {
                        Some((_, v)) => v.push(p),
                        None => r.variants.push((kind, vec![p])),
                    }
                    for (_, v) in &mut r.variants {
                        v.sort_by(|a, b| a.target_util.total_cmp(&b.target_util));
                    }
                }
                Msg::Point(CollectorKind::Base, p) => r.base = Some(p),
                Msg::Point(CollectorKind::Adaptive, p) => r.adaptive = Some(p),
                Msg::Point(_, p) => {
                    r.k_allocation.push(p);
                    r.k_allocation.sort_by_key(|p| p.k);
                }
                Msg::Error(e) => r.errors.push(e),
            }
        }
    }

    /// True while the sweep runs.
    pub fn running(&self) -> bool {
        self.task.running()
    }

    /// Fraction done, 0–1.
    pub fn progress(&self) -> f32 {
        if self.total == 0 {
            return 0.0;
        }
        self.done.load(Ordering::Relaxed) as f32 / self.total as f32
    }
}

impl Drop for SweepState {
    fn drop(&mut self) {
        self.cancel();
    }
}

type Job = Result<(CollectorKind, u64, Scenario), String>;

/// What the sweep keeps of one run.
fn point(k: u64, sc: &Scenario, s: &gclab_core::Summary) -> SweepPoint {
    SweepPoint {
        k,
        target_util: if sc.platform() == PlatformKind::AndroidKrait {
            sc.file().heap.target_util
        } else {
            0.0
        },
        heap_j: s.energy_j.heap,
        total_j: s.energy_j.total,
        time_s: s.execution_time_s,
        memory_j: s.energy_j.memory,
        heap_kib: sc.file().heap.size.bytes() / 1024,
        max_pause_ms: s.max_pause_ms,
        collections: s.collections,
        out_of_memory: s.out_of_memory,
        mmu: s.mmu.clone(),
    }
}

/// The heap-size sweep's points: `base` at each of [`heap_sizes`]; sizes the scenario refuses (below its
/// permanent data, say) are left out.
fn heap_jobs(base: &Scenario) -> Vec<Job> {
    let f = base.file();
    let heap_kib = f.heap.size.bytes() / 1024;
    let bank_kib = (f.heap.bank_size.bytes() / 1024).max(1);
    heap_sizes(heap_kib, bank_kib, 4)
        .into_iter()
        .filter_map(|h| {
            base.with(&[Set::HeapSize(ByteSize(h * 1024))])
                .ok()
                .map(|s| Ok((f.collector.kind, 0, s)))
        })
        .collect()
}

/// The targetUtil sweep's points: `base` (its collector and heap) at each of [`TARGET_UTILS`].
pub fn target_util_jobs(base: &Scenario) -> Vec<Job> {
    let kind = base.file().collector.kind;
    TARGET_UTILS
        .iter()
        .map(|&u| {
            base.with(&[Set::HeapTargetUtil(u)])
                .map(|s| (kind, 0, s))
                .map_err(|e| format!("targetUtil {u}: {e}"))
        })
        .collect()
}

fn jobs(base: &Scenario) -> Vec<Job> {
    if base.platform() == PlatformKind::AndroidKrait {
        let mut v = Vec::new();
        for kind in ANDROID_VARIANTS {
            for i in 1..=9 {
                let u = f64::from(i) / 10.0;
                v.push(
                    base.with(&[Set::CollectorKind(kind), Set::HeapTargetUtil(u)])
                        .map(|s| (kind, 0, s))
                        .map_err(|e| e.to_string()),
                );
            }
        }
        return v;
    }
    let with = |kind: CollectorKind, k: u64| -> Job {
        let mut set = vec![Set::CollectorKind(kind)];
        if kind == CollectorKind::KAllocation {
            set.push(Set::CollectorK(k));
        }
        base.with(&set)
            .map(|s| (kind, k, s))
            .map_err(|e| e.to_string())
    };
    let mut v = vec![
        with(CollectorKind::Base, 0),
        with(CollectorKind::Adaptive, 0),
    ];
    v.extend(
        K_VALUES
            .iter()
            .map(|&k| with(CollectorKind::KAllocation, k)),
    );
    v
}

/// MinMU curves of the five android-krait variants on the current scenario (SYSTOR'15 Fig. 9), computed as an
/// "mmu-variants" [`BackgroundTask`] on request.
pub struct VariantCurves {
    /// Curves so far: variant and `(log10 window [ms], MinMU)` points.
    pub curves: Vec<(CollectorKind, Vec<egui_plot::PlotPoint>)>,
    /// Label of the scenario they were computed for.
    pub label: String,
    task: BackgroundTask<(CollectorKind, Vec<egui_plot::PlotPoint>)>,
}

impl Default for VariantCurves {
    fn default() -> Self {
        VariantCurves {
            curves: Vec::new(),
            label: String::new(),
            task: BackgroundTask::new("mmu-variants", 8),
        }
    }
}

impl VariantCurves {
    /// Starts computing the curves of every variant of `base` (replacing any earlier set).
    pub fn start(&mut self, base: &Scenario, wake: &egui::Context) -> Result<(), String> {
        self.stop();
        self.curves.clear();
        self.label = super::analysis::label_of(base);
        let scenarios: Vec<(CollectorKind, Scenario)> = ANDROID_VARIANTS
            .iter()
            .filter_map(|k| base.with(&[Set::CollectorKind(*k)]).ok().map(|s| (*k, s)))
            .collect();
        self.task
            .start(Some(wake), move |sink| {
                for (k, sc) in scenarios {
                    let Ok(run) = simulate(&sc, sink.cancel(), &mut NoProgress) else {
                        continue;
                    };
                    let v = super::analysis::RunView::build(run, sc, 0, 0.0);
                    if !sink.send((k, v.mmu_curve)) {
                        return;
                    }
                }
            })
            .map(|_| ())
    }

    /// Collects finished curves.
    pub fn poll(&mut self) {
        self.curves.extend(self.task.poll());
    }

    /// True while computing.
    pub fn running(&self) -> bool {
        self.task.running()
    }

    /// Forgets the curves (and stops computing).
    pub fn stop(&mut self) {
        self.task.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_android_trade_off_sweeps_target_util_and_its_points_differ() {
        // #19 item 4: the android trade-off swept heap.size ⅛–8× the preset's 96 MiB and drew 13 identical points
        // (the growth limit binds only near the live size). Its sweep is targetUtil 0.1–0.9: the knob acts.
        let base = Scenario::preset("android/lusearch").expect("preset");
        assert_eq!(
            tradeoff_mode(base.platform()),
            SweepMode::TargetUtil,
            "android sweeps targetUtil"
        );
        assert_eq!(
            tradeoff_mode(Scenario::default_preset().expect("default").platform()),
            SweepMode::HeapSize,
            "kvm-soc keeps the heap-size sweep"
        );
        let jobs = target_util_jobs(&base);
        assert_eq!(jobs.len(), TARGET_UTILS.len(), "one point per targetUtil");
        let points: Vec<SweepPoint> = jobs
            .iter()
            .map(|job| {
                let (_, k, sc) = job.as_ref().expect("a valid point");
                let run =
                    simulate(sc, &gclab_core::Cancel::never(), &mut NoProgress).expect("runs");
                point(*k, sc, &run.summary)
            })
            .collect();
        for p in &points {
            eprintln!(
                "targetUtil {}: {} collections, {} J, max pause {} ms",
                p.target_util, p.collections, p.total_j, p.max_pause_ms
            );
        }
        assert_eq!(
            points.iter().map(|p| p.target_util).collect::<Vec<_>>(),
            TARGET_UTILS.to_vec(),
            "the points carry their targetUtil"
        );
        // Where live ÷ targetUtil leaves more than the minimum free (2 MiB) the heap follows the knob; above that
        // the minimum free binds and the curve is flat — but the ends must differ, and not all points be one run.
        let (lo, hi) = (&points[0], &points[TARGET_UTILS.len() - 1]);
        assert!(
            lo.collections != hi.collections && lo.total_j != hi.total_j,
            "targetUtil 0.1 and 0.9 give different runs: {} vs {} collections, {} vs {} J",
            lo.collections,
            hi.collections,
            lo.total_j,
            hi.total_j
        );
        let mut distinct: Vec<u64> = points.iter().map(|p| p.collections).collect();
        distinct.dedup();
        assert!(
            distinct.len() >= 2,
            "the sweep is not one run repeated: collections {distinct:?}"
        );
    }

    #[test]
    fn heap_sizes_span_an_eighth_to_eight_times_in_whole_banks() {
        let v = heap_sizes(256, 16, 4);
        assert_eq!(v.len(), 13, "13 sizes");
        assert_eq!((v[0], v[6], v[12]), (32, 256, 2048), "⅛×, 1×, 8×");
        assert!(v.iter().all(|h| h % 16 == 0), "whole banks: {v:?}");
        assert!(v.windows(2).all(|w| w[0] < w[1]), "ascending, no repeats");
        let tiny = heap_sizes(16, 16, 4);
        assert_eq!(tiny[0], 16, "never below one bank");
    }
}
