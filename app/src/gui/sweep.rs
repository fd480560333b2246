//! The sweep. On kvm-soc (adaptive-GC paper's Fig. 4): heap energy of the k-allocation collector for log-spaced
//! k, with the base and adaptive collectors as reference lines. On android-krait (SYSTOR'15 Figs. 6 and 8): energy
//! and execution time of the five CMS variants for targetUtil 0.1–0.9. Runs on its own named thread ("sweep-worker"), one scenario
//! after another, reporting progress; cancelling sets a flag the core polls. Each point is
//! the scenario with `--set`-style overrides ([`Scenario::with_overrides`]), as `gclab sweep --vary` builds them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, bounded};
use gclab_core::{
    Cancel, CollectorKind, NoProgress, PlatformKind, Scenario, WorkloadTapes, simulate,
    simulate_with,
};
use toml::Value;

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

/// One swept run.
#[derive(Debug, Clone, Copy, PartialEq)]
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
    /// Errors, one line each.
    pub errors: Vec<String>,
}

enum Msg {
    Point(CollectorKind, SweepPoint),
    Error(String),
}

/// The sweep's runtime state, owned by the app.
#[derive(Default)]
pub struct SweepState {
    /// Results so far.
    pub result: Option<SweepResult>,
    rx: Option<Receiver<Msg>>,
    cancel: Option<Arc<AtomicBool>>,
    done: Arc<AtomicU32>,
    total: u32,
    handle: Option<JoinHandle<()>>,
}

impl SweepState {
    /// Starts sweeping `base` (k-allocation over [`K_VALUES`], plus base and adaptive), cancelling any sweep running.
    pub fn start(&mut self, base: &Scenario, repaint: impl Fn() + Send + 'static) {
        self.cancel();
        let jobs = jobs(base);
        let (tx, rx) = bounded::<Msg>(64);
        let flag = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicU32::new(0));
        self.total = jobs.len() as u32;
        self.result = Some(SweepResult {
            name: base.file().name.clone(),
            android: base.platform() == PlatformKind::AndroidKrait,
            ..SweepResult::default()
        });
        let (f2, d2) = (Arc::clone(&flag), Arc::clone(&done));
        self.handle = std::thread::Builder::new()
            .name("sweep-worker".into())
            .spawn(move || {
                let cancel = Cancel::from_flag(Arc::clone(&f2));
                let tapes = WorkloadTapes::new();
                for job in jobs {
                    if f2.load(Ordering::Relaxed) {
                        return;
                    }
                    let msg = match job {
                        Ok((kind, k, sc)) => {
                            match simulate_with(&sc, Some(&tapes), &cancel, &mut NoProgress) {
                                Ok(run) => Msg::Point(
                                    kind,
                                    SweepPoint {
                                        k,
                                        target_util: if sc.platform() == PlatformKind::AndroidKrait
                                        {
                                            sc.file().heap.target_util
                                        } else {
                                            0.0
                                        },
                                        heap_j: run.summary.energy_j.heap,
                                        total_j: run.summary.energy_j.total,
                                        time_s: run.summary.execution_time_s,
                                    },
                                ),
                                Err(e) => Msg::Error(e.to_string()),
                            }
                        }
                        Err(e) => Msg::Error(e),
                    };
                    d2.fetch_add(1, Ordering::Relaxed);
                    if tx.send(msg).is_err() {
                        return;
                    }
                    repaint();
                }
            })
            .ok();
        self.rx = Some(rx);
        self.cancel = Some(flag);
        self.done = done;
    }

    /// Stops the sweep (what it found so far stays).
    pub fn cancel(&mut self) {
        if let Some(f) = self.cancel.take() {
            f.store(true, Ordering::Relaxed);
        }
        self.rx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }

    /// Collects finished points.
    pub fn poll(&mut self) {
        let Some(rx) = &self.rx else { return };
        let Some(r) = &mut self.result else { return };
        for m in rx.try_iter() {
            match m {
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
        if self.handle.as_ref().is_some_and(JoinHandle::is_finished) && rx.is_empty() {
            self.handle = None;
            self.rx = None;
            self.cancel = None;
        }
    }

    /// True while the sweep thread runs.
    pub fn running(&self) -> bool {
        self.rx.is_some()
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

fn jobs(base: &Scenario) -> Vec<Job> {
    if base.platform() == PlatformKind::AndroidKrait {
        let mut v = Vec::new();
        for kind in ANDROID_VARIANTS {
            for i in 1..=9 {
                let u = f64::from(i) / 10.0;
                v.push(
                    base.with_overrides(&[
                        ("collector.kind".into(), Value::String(kind.name().into())),
                        ("heap.target_util".into(), Value::Float(u)),
                    ])
                    .map(|s| (kind, 0, s))
                    .map_err(|e| e.to_string()),
                );
            }
        }
        return v;
    }
    let with = |kind: CollectorKind, k: u64| -> Job {
        let mut set = vec![(
            "collector.kind".to_string(),
            Value::String(kind.name().into()),
        )];
        if kind == CollectorKind::KAllocation {
            set.push(("collector.k".into(), Value::Integer(k as i64)));
        }
        base.with_overrides(&set)
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

/// MinMU curves of the five android-krait variants on the current scenario (SYSTOR'15 Fig. 9), computed on a
/// named background thread ("mmu-variants") on request.
#[derive(Default)]
pub struct VariantCurves {
    /// Curves so far: variant and `(log10 window [ms], MinMU)` points.
    pub curves: Vec<(CollectorKind, Vec<egui_plot::PlotPoint>)>,
    /// Label of the scenario they were computed for.
    pub label: String,
    rx: Option<Receiver<(CollectorKind, Vec<egui_plot::PlotPoint>)>>,
    handle: Option<JoinHandle<()>>,
}

impl VariantCurves {
    /// Starts computing the curves of every variant of `base` (replacing any earlier set).
    pub fn start(&mut self, base: &Scenario, repaint: impl Fn() + Send + 'static) {
        self.stop();
        self.curves.clear();
        self.label = super::analysis::label_of(base);
        let (tx, rx) = bounded(8);
        let scenarios: Vec<(CollectorKind, Scenario)> = ANDROID_VARIANTS
            .iter()
            .filter_map(|k| {
                base.with_overrides(&[("collector.kind".into(), Value::String(k.name().into()))])
                    .ok()
                    .map(|s| (*k, s))
            })
            .collect();
        self.handle = std::thread::Builder::new()
            .name("mmu-variants".into())
            .spawn(move || {
                for (k, sc) in scenarios {
                    let Ok(run) = simulate(&sc, &Cancel::never(), &mut NoProgress) else {
                        continue;
                    };
                    let v = super::analysis::RunView::build(run, sc, 0, 0.0);
                    if tx.send((k, v.mmu_curve)).is_err() {
                        return;
                    }
                    repaint();
                }
            })
            .ok();
        self.rx = Some(rx);
    }

    /// Collects finished curves.
    pub fn poll(&mut self) {
        if let Some(rx) = &self.rx {
            self.curves.extend(rx.try_iter());
            if self.handle.as_ref().is_some_and(JoinHandle::is_finished) && rx.is_empty() {
                self.rx = None;
                self.handle = None;
            }
        }
    }

    /// True while computing.
    pub fn running(&self) -> bool {
        self.rx.is_some()
    }

    /// Forgets the curves (and stops computing).
    pub fn stop(&mut self) {
        self.rx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}
