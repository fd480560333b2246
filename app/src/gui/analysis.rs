//! `RunView`: a finished [`Run`] plus everything the views derive from it once (STYLE §17) — decimated occupancy
//! series, GC instants, the MinMU curve on a fine log grid, the energy breakdown of the adaptive-GC paper's Fig. 5.
//! Built on the worker thread right after the simulation, so a frame only borrows it.
//!
//! A trace or a GC log (issue #5) can feed the same views by producing a `Run` and calling [`RunView::build`].

use std::sync::Arc;

use egui_plot::PlotPoint;
use gclab_core::BankState;
use gclab_core::CpuTag;
use gclab_core::CpuTimeline;
use gclab_core::metrics::mmu::{MmuCurve, UtilSeries, WindowUtil};
use gclab_core::{Run, Scenario};

/// Occupancy samples kept for plotting: never more points than a wide screen has pixels (min/max per bucket).
const OCCUPANCY_BUCKETS: usize = 2500;
/// Points on the MinMU curve.
const MMU_POINTS: usize = 48;

/// One part of the energy bar (adaptive-GC Fig. 5 order: CPU, then memory from heap leakage to stack).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnergyPart {
    /// CPU datapath.
    Cpu,
    /// Heap leakage while banks were active.
    HeapActive,
    /// Heap leakage while banks were waking.
    HeapWaking,
    /// Heap leakage while banks were gated.
    HeapGated,
    /// Heap dynamic energy (accesses).
    HeapDynamic,
    /// ROM.
    Rom,
    /// Stack and VM SRAM.
    Stack,
}

impl EnergyPart {
    /// One sentence on what the part is.
    pub fn explain(self) -> &'static str {
        match self {
            EnergyPart::Cpu => {
                "the processor datapath: busy cycles and stalls waiting for banks to wake"
            }
            EnergyPart::HeapActive => "leakage of heap banks while powered",
            EnergyPart::HeapWaking => "leakage while a gated bank is resynchronised",
            EnergyPart::HeapGated => "leakage of supply-gated banks (5 % of an active bank's)",
            EnergyPart::HeapDynamic => {
                "energy of heap reads and writes by program, allocator and collector"
            }
            EnergyPart::Rom => "the ROM holding the VM and its libraries",
            EnergyPart::Stack => "the always-powered stack and VM-variable SRAM",
        }
    }

    /// Every part, in bar order.
    pub const ALL: [EnergyPart; 7] = [
        EnergyPart::Cpu,
        EnergyPart::HeapActive,
        EnergyPart::HeapWaking,
        EnergyPart::HeapGated,
        EnergyPart::HeapDynamic,
        EnergyPart::Rom,
        EnergyPart::Stack,
    ];

    /// Legend text.
    pub fn label(self) -> &'static str {
        match self {
            EnergyPart::Cpu => "CPU",
            EnergyPart::HeapActive => "heap leakage, active banks",
            EnergyPart::HeapWaking => "heap leakage, waking banks",
            EnergyPart::HeapGated => "heap leakage, gated banks",
            EnergyPart::HeapDynamic => "heap dynamic",
            EnergyPart::Rom => "ROM",
            EnergyPart::Stack => "stack SRAM",
        }
    }
}

/// How a run's energy splits into bars: the kvm-soc's memories (the adaptive-GC paper's Fig. 5), or the
/// android-krait CPU by what its cores did (the SYSTOR paper's GC/mutator attribution; memories are not modelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnergyScheme {
    /// CPU, heap leakage by bank state, heap dynamic, ROM, stack ([`EnergyPart::ALL`]).
    #[default]
    Memories,
    /// CPU busy collecting, running the program, running other threads; idle, offline, uncore.
    CpuByUse,
}

impl EnergyScheme {
    /// `(legend, one-sentence explanation)` of each of the seven parts, in bar order; an empty legend is unused.
    pub fn names(self) -> [(&'static str, &'static str); 7] {
        match self {
            EnergyScheme::Memories => EnergyPart::ALL.map(|p| (p.label(), p.explain())),
            EnergyScheme::CpuByUse => [
                (
                    "cores collecting (GC)",
                    "cores running the collector: the GC daemon, or a mutator collecting in the foreground",
                ),
                (
                    "cores running the program",
                    "cores running the benchmark's own threads",
                ),
                (
                    "cores running other threads",
                    "cores running the process's other threads (JIT, binder, finalizer, …)",
                ),
                (
                    "idle cores",
                    "online cores with nothing to run (idle states included)",
                ),
                ("offline cores", "cores hotplug took offline"),
                ("uncore (L2, bus)", "the shared L2 cache and interconnect"),
                ("", ""),
            ],
        }
    }

    /// Whether the first part (the CPU) can be left out to compare the memories.
    pub fn cpu_optional(self) -> bool {
        self == EnergyScheme::Memories
    }
}

/// Energy of a run split into seven parts (by [`EnergyScheme`]), plus dynamic energy by cause. `[J]`
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EnergyBreakdown {
    /// What the parts are.
    pub scheme: EnergyScheme,
    /// Per part, in the scheme's order. `[J]`
    pub parts: [f64; 7],
    /// Dynamic energy caused by GC work. `[J]`
    pub gc: f64,
    /// Dynamic energy caused by the mutator. `[J]`
    pub mutator: f64,
    /// Total. `[J]`
    pub total: f64,
}

impl EnergyBreakdown {
    /// The breakdown of `run`; heap leakage is split by the time each bank spent in each state, weighted by the
    /// gated-leakage fraction (active and waking banks leak fully). A run that attributes its CPU energy by use
    /// (android-krait) is split that way.
    pub fn of(run: &Run, gated_fraction: f64) -> EnergyBreakdown {
        let e = &run.summary.energy_j;
        if let (Some(other), Some(idle), Some(offline), Some(uncore)) =
            (e.other, e.idle, e.offline, e.uncore)
        {
            return EnergyBreakdown {
                scheme: EnergyScheme::CpuByUse,
                parts: [e.gc, e.mutator, other, idle, offline, uncore, 0.0],
                gc: e.gc,
                mutator: e.mutator,
                total: e.total,
            };
        }
        let (mut act, mut wak, mut gat) = (0.0, 0.0, 0.0);
        for b in &run.banks {
            let d = b.end.0.saturating_sub(b.start.0) as f64;
            match b.state {
                BankState::Active => act += d,
                BankState::Waking => wak += d,
                BankState::Gated => gat += d * gated_fraction,
            }
        }
        let w = act + wak + gat;
        let split = |x: f64| if w > 0.0 { e.heap_leakage * x / w } else { 0.0 };
        let (la, lw, lg) = if w > 0.0 {
            (split(act), split(wak), split(gat))
        } else {
            (e.heap_leakage, 0.0, 0.0)
        };
        EnergyBreakdown {
            scheme: EnergyScheme::Memories,
            parts: [e.cpu, la, lw, lg, e.heap_dynamic, e.rom, e.stack],
            gc: e.gc,
            mutator: e.mutator,
            total: e.total,
        }
    }
}

/// A run and what the views derive from it.
pub struct RunView {
    /// The run.
    pub run: Arc<Run>,
    /// The scenario that made it.
    pub scenario: Scenario,
    /// Request generation that produced it.
    pub generation: u64,
    /// Short label (collector, k, heap/bank size, seed).
    pub label: String,
    /// Run length. `[s]`
    pub duration_s: f64,
    /// Occupancy sample times. `[s]`
    pub occ_t: Vec<f64>,
    /// Live bytes at those times. `[KiB]`
    pub occ_live: Vec<f64>,
    /// Live + dead bytes. `[KiB]`
    pub occ_used: Vec<f64>,
    /// Zeros (the floor of the filled areas).
    pub occ_zero: Vec<f64>,
    /// `occ_live` as points, for lines.
    pub live_line: Vec<PlotPoint>,
    /// `occ_used` as points.
    pub used_line: Vec<PlotPoint>,
    /// Powered bank capacity after each GC (step line). `[s, KiB]`
    pub powered_line: Vec<PlotPoint>,
    /// Start of each collection. `[s]`
    pub gc_start_s: Vec<f64>,
    /// The MinMU curve: `(log10 window [ms], utilisation)`.
    pub mmu_curve: Vec<PlotPoint>,
    /// Per-mutator utilisation prepared for MMU queries: the MinMU curve above came from it, and the worst
    /// windows ask it again (prepared once per run).
    pub mmu: SharedMmu,
    /// Energy breakdown.
    pub energy: EnergyBreakdown,
    /// Per-core CPU timeline, on platforms with a CPU model (android-krait).
    pub cpu: Option<CpuTimeline>,
    /// GC work per core: `(core, start, end)`. `[ns]`
    pub gc_on_cores: Vec<(u32, u64, u64)>,
    /// Time spent building this view on the worker (simulation excluded). `[s]`
    pub derive_s: f64,
    /// Time the simulation took. `[s]`
    pub simulate_s: f64,
}

impl std::fmt::Debug for RunView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RunView({}, gen {})", self.label, self.generation)
    }
}

/// A short label of a scenario's controlled settings.
pub fn label_of(sc: &Scenario) -> String {
    let f = sc.file();
    let mut s = format!("{} ", f.collector.kind.name());
    if f.collector.kind == gclab_core::CollectorKind::KAllocation {
        s += &format!("k={} ", f.collector.k);
    }
    s += &format!(
        "· heap {} / bank {} · seed {}",
        f.heap.size, f.heap.bank_size, f.seed
    );
    s
}

/// Min/max decimation of `(t, y)` pairs into at most `2 × buckets` points, in time order.
fn decimate(n: usize, buckets: usize, mut at: impl FnMut(usize) -> (f64, f64, f64)) -> Vec<usize> {
    if n <= 2 * buckets {
        return (0..n).collect();
    }
    let mut out = Vec::with_capacity(2 * buckets + 1);
    let per = n.div_ceil(buckets);
    let mut i = 0;
    while i < n {
        let end = (i + per).min(n);
        let (mut lo, mut hi) = (i, i);
        let (mut lov, mut hiv) = (f64::INFINITY, f64::NEG_INFINITY);
        for j in i..end {
            let (_, _, used) = at(j);
            if used < lov {
                lov = used;
                lo = j;
            }
            if used > hiv {
                hiv = used;
                hi = j;
            }
        }
        out.push(lo.min(hi));
        if lo != hi {
            out.push(lo.max(hi));
        }
        i = end;
    }
    if out.last() != Some(&(n - 1)) {
        out.push(n - 1);
    }
    out
}

/// The utilisation step functions of `run`'s mutators (one per mutator index).
pub fn util_series(run: &Run) -> Vec<UtilSeries> {
    let n = run.pauses.iter().map(|p| p.mutator + 1).max().unwrap_or(1);
    gclab_core::util_series(&run.pauses, n, run.duration.0)
}

/// A prepared MMU kept with a view for later queries. Behind a lock: a prepared series may read a spilled file
/// through a cache, which one thread at a time may use; shared, so that a big curve's worst windows can be searched
/// on a task of their own.
pub type SharedMmu = std::sync::Arc<std::sync::Mutex<MmuCurve<'static>>>;

/// `curve` kept for later queries.
pub fn shared_mmu(curve: MmuCurve<'static>) -> SharedMmu {
    std::sync::Arc::new(std::sync::Mutex::new(curve))
}

/// The `k` worst windows of `window_ms` in `curve`, or why they cannot be trusted (a temporary file of a curve on
/// disk failed).
pub fn worst_windows(
    curve: &SharedMmu,
    window_ms: f64,
    k: usize,
) -> Result<Vec<WindowUtil>, String> {
    let w = (window_ms * 1e6).max(1.0) as u64;
    // A panic while another query held the lock leaves the prepared series unchanged (queries only read).
    let curve = curve
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let windows = curve.worst(w, k);
    curve
        .error()
        .map_or(Ok(windows), |e| Err(format!("worst windows: {e}")))
}

impl RunView {
    /// Derives every view's data from `run`.
    pub fn build(run: Run, scenario: Scenario, generation: u64, simulate_s: f64) -> RunView {
        let t0 = std::time::Instant::now();
        let kib = |b: u64| b as f64 / 1024.0;
        let occ = &run.occupancy;
        let keep = decimate(occ.len(), OCCUPANCY_BUCKETS, |i| {
            let o = &occ[i];
            (
                o.time.as_secs_f64(),
                kib(o.live_bytes),
                kib(o.live_bytes + o.dead_bytes),
            )
        });
        let n = keep.len();
        let (mut occ_t, mut occ_live, mut occ_used) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let (mut live_line, mut used_line) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for i in keep {
            let o = &occ[i];
            let t = o.time.as_secs_f64();
            let (l, u) = (kib(o.live_bytes), kib(o.live_bytes + o.dead_bytes));
            occ_t.push(t);
            occ_live.push(l);
            occ_used.push(u);
            live_line.push(PlotPoint::new(t, l));
            used_line.push(PlotPoint::new(t, u));
        }
        let curve = MmuCurve::owned(util_series(&run));
        let span_ms = run.duration.as_millis_f64().max(1e-3);
        let lo = (0.01f64).min(span_ms / 10.0).log10();
        let hi = span_ms.log10();
        let mmu_curve = (0..MMU_POINTS)
            .map(|i| {
                let x = lo + (hi - lo) * i as f64 / (MMU_POINTS - 1) as f64;
                let w_ns = (10f64.powf(x) * 1e6).max(1.0) as u64;
                PlotPoint::new(x, curve.mmu(w_ns).utilization)
            })
            .collect();
        let mut v = RunView {
            label: label_of(&scenario),
            duration_s: run.duration.as_secs_f64(),
            occ_zero: vec![0.0; n],
            occ_t,
            occ_live,
            occ_used,
            live_line,
            used_line,
            powered_line: powered_steps(&run),
            gc_start_s: run
                .gc_events
                .iter()
                .map(|g| g.start.as_secs_f64())
                .collect(),
            mmu_curve,
            mmu: shared_mmu(curve),
            energy: EnergyBreakdown::of(&run, scenario.file().kvm.energy.gated_leakage_fraction),
            cpu: run.cpu.as_ref().map(|c| c.timeline.clone()),
            gc_on_cores: run
                .cpu_activity
                .iter()
                .filter(|a| a.tag == CpuTag::Gc)
                .map(|a| (a.core, a.start.0, a.end.0))
                .collect(),
            derive_s: 0.0,
            simulate_s,
            generation,
            scenario,
            run: Arc::new(run),
        };
        v.derive_s = t0.elapsed().as_secs_f64();
        v
    }

    /// The collection at or after `t` (seconds), or before it when `forward` is false.
    pub fn gc_near(&self, t: f64, forward: bool) -> Option<f64> {
        let eps = 1e-12;
        if forward {
            let i = self.gc_start_s.partition_point(|&g| g <= t + eps);
            self.gc_start_s.get(i).copied()
        } else {
            let i = self.gc_start_s.partition_point(|&g| g < t - eps);
            i.checked_sub(1).map(|i| self.gc_start_s[i])
        }
    }
}

/// Powered (non-gated) bank capacity over time as a step line. `[s, KiB]`
fn powered_steps(run: &Run) -> Vec<PlotPoint> {
    let bank_kib = run.geometry.bank_bytes as f64 / 1024.0;
    // Events: (+1 at start of a non-gated interval, -1 at its end).
    let mut ev: Vec<(u64, i32)> = Vec::new();
    for b in &run.banks {
        if b.state != BankState::Gated {
            ev.push((b.start.0, 1));
            ev.push((b.end.0, -1));
        }
    }
    ev.sort_unstable();
    let mut out = Vec::new();
    let mut n = 0i32;
    let mut i = 0;
    while i < ev.len() {
        let t = ev[i].0;
        let before = n;
        while i < ev.len() && ev[i].0 == t {
            n += ev[i].1;
            i += 1;
        }
        if n != before || out.is_empty() {
            let ts = t as f64 * 1e-9;
            out.push(PlotPoint::new(ts, f64::from(before) * bank_kib));
            out.push(PlotPoint::new(ts, f64::from(n) * bank_kib));
        }
    }
    // Level of detail: a step line with more points than pixels is thinned to the first of each run of steps.
    if out.len() > 8000 {
        let step = out.len() / 4000;
        out = out.into_iter().step_by(step.max(1)).collect();
    }
    out
}
