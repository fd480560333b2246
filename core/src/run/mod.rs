//! `Run`: everything a simulation produces — the [`Summary`] and plot-ready timelines (heap occupancy, bank power
//! states, GC events, pauses) plus the [`HeapLayout`] the app replays. A `Run` is immutable once built; views
//! borrow it and never recompute it per frame.

mod csv_files;
pub mod layout;
pub mod record;
pub mod recorded;
pub mod summary;

use serde::{Deserialize, Serialize};

pub use layout::{
    HeapLayout, Keyframe, LayoutRecorder, Move, ObjectEvents, ObjectSpan, PlacedObject,
};
pub use summary::{EnergySummary, MmuPoint, Summary};

use crate::collector::Trigger;
use crate::cpu::{CpuReport, CpuTag};
use crate::heap::BankState;
use crate::units::SimTime;

/// The heap's address geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapGeometry {
    /// Heap size (android-krait: the address range the heap grew to, at most the growth limit). `[bytes]`
    pub heap_bytes: u64,
    /// Bank size. `[bytes]`
    pub bank_bytes: u64,
    /// Number of banks.
    pub banks: u32,
    /// Start of the permanent space (the dynamic heap is `[0, permanent_start)`). `[bytes]`
    pub permanent_start: u64,
}

/// Heap occupancy at an instant: live, dead-not-yet-collected and free bytes of the dynamic heap. `[bytes]`
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OccupancySample {
    /// When.
    pub time: SimTime,
    /// Reachable object bytes. `[bytes]`
    pub live_bytes: u64,
    /// Unreachable bytes not yet reclaimed. `[bytes]`
    pub dead_bytes: u64,
    /// Free bytes of the dynamic heap. `[bytes]`
    pub free_bytes: u64,
}

/// A bank held a power state over `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BankInterval {
    /// Bank index from address 0.
    pub bank: u32,
    /// Power state.
    pub state: BankState,
    /// Start.
    pub start: SimTime,
    /// End.
    pub end: SimTime,
}

/// One collection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GcEvent {
    /// Start.
    pub start: SimTime,
    /// End.
    pub end: SimTime,
    /// Why it ran.
    pub trigger: Trigger,
    /// Allocation clock when it ran. `[allocations]`
    pub alloc_index: u64,
    /// Object bytes before (live + dead). `[bytes]`
    pub heap_bytes_before: u64,
    /// Live bytes after. `[bytes]`
    pub live_bytes_after: u64,
    /// Bytes reclaimed. `[bytes]`
    pub freed_bytes: u64,
    /// Bytes moved by compaction (0 when it did not compact). `[bytes]`
    pub moved_bytes: u64,
    /// Objects marked live.
    pub live_objects: u64,
    /// Work done. `[cycles]`
    pub work_cycles: u64,
    /// Bank resynchronisation stall inside the collection (compaction into gated banks). `[cycles]`
    pub stall_cycles: u64,
    /// Banks powered after it.
    pub powered_banks_after: u32,
}

/// The name a unit variant serialises to (`"alloc"`, `"gated"`, `"concurrent_wait"`: what the JSON says), for
/// the CSV files, traces and exports that name triggers, bank states and pause kinds; `None` for a value that
/// is not a plain string.
pub fn variant_name<T: Serialize>(v: &T) -> Option<String> {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => Some(s),
        _ => None,
    }
}

/// Why a mutator was paused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseKind {
    /// Stopped for a stop-the-world collection or phase.
    Safepoint,
    /// Collecting in the foreground itself.
    Foreground,
    /// Waiting for a concurrent cycle to finish.
    ConcurrentWait,
}

/// The summary's pause metrics: the MMU on the default log-spaced windows over `[0, end_ns]` — the minimum over
/// mutators `0..mutators` (SYSTOR'15 §2.4.2) — and the longest single pause. `[ns]`
pub fn pause_metrics(pauses: &[Pause], mutators: u32, end_ns: u64) -> (Vec<MmuPoint>, u64) {
    use crate::metrics::mmu::{MmuCurve, default_windows_ns};
    let curve = MmuCurve::owned(util_series(pauses, mutators, end_ns));
    let mmu = default_windows_ns(end_ns)
        .into_iter()
        .map(|w| MmuPoint {
            // Divided, not multiplied by 1e-6: 100 µs is 0.1 ms in JSON, not 0.09999999999999999.
            window_ms: w as f64 / 1e6,
            utilization: curve.mmu(w).utilization,
        })
        .collect();
    let max = pauses
        .iter()
        .map(|p| p.end.0 - p.start.0)
        .max()
        .unwrap_or(0);
    (mmu, max)
}

/// The utilisation step functions of mutators `0..mutators` (at least one) over `[0, end_ns]`, from `pauses`.
pub fn util_series(
    pauses: &[Pause],
    mutators: u32,
    end_ns: u64,
) -> Vec<crate::metrics::mmu::UtilSeries> {
    (0..mutators.max(1))
        .map(|i| {
            let p: Vec<(u64, u64)> = pauses
                .iter()
                .filter(|p| p.mutator == i)
                .map(|p| (p.start.0, p.end.0))
                .collect();
            crate::metrics::mmu::UtilSeries::from_pauses(&p, 0, end_ns)
        })
        .collect()
}

/// A mutator pause `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pause {
    /// Mutator index.
    pub mutator: u32,
    /// Start.
    pub start: SimTime,
    /// End.
    pub end: SimTime,
    /// Why.
    pub kind: PauseKind,
}

/// The result of one simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Summary numbers.
    pub summary: Summary,
    /// Length of the run.
    pub duration: SimTime,
    /// Heap geometry.
    pub geometry: HeapGeometry,
    /// Heap occupancy, one sample per allocation and two per collection, ascending.
    pub occupancy: Vec<OccupancySample>,
    /// Bank power-state intervals, by bank then time.
    pub banks: Vec<BankInterval>,
    /// Collections, in order.
    pub gc_events: Vec<GcEvent>,
    /// Mutator pauses, in order.
    pub pauses: Vec<Pause>,
    /// Address history of every object (empty when `record.layout = false`).
    pub layout: HeapLayout,
    /// Leakage energy of each bank. `[J]`
    pub bank_leakage_j: Vec<f64>,
    /// android-krait: the CPU's record (frequency/online spans per core, power over time, energy by use).
    pub cpu: Option<CpuReport>,
    /// android-krait: what each core ran over time (merged spans; empty when `record.layout = false`).
    pub cpu_activity: Vec<CoreActivity>,
    /// android-krait: the threads, indexed as in [`Pause::mutator`] for mutators (mutators first).
    pub threads: Vec<ThreadInfo>,
}

/// A core ran work of one kind over `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreActivity {
    /// Core index.
    pub core: u32,
    /// Start.
    pub start: SimTime,
    /// End.
    pub end: SimTime,
    /// Whose work: mutator, GC or other.
    pub tag: CpuTag,
    /// The thread that ran (index into [`Run::threads`]).
    pub thread: u32,
}

/// A thread of the simulated process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThreadInfo {
    /// Name (`mutator-0`, `GC`, `binder-3`, `JIT`).
    pub name: String,
    /// Runtime (running) time over the run. `[ns]`
    pub cpu_ns: u64,
    /// Times it resumed on another core.
    pub migrations: u64,
    /// Time runnable but waiting for a core. `[ns]`
    pub delayed_ns: u64,
}

impl Run {
    /// A 64-bit fingerprint of everything in the run (FNV-1a over the summary JSON and every timeline), for
    /// determinism tests and stored hashes.
    pub fn fingerprint(&self) -> u64 {
        let mut h = Fnv::default();
        h.write(
            serde_json::to_string(&self.summary)
                .unwrap_or_default()
                .as_bytes(),
        );
        h.u64(self.duration.0);
        for s in &self.occupancy {
            h.u64(s.time.0);
            h.u64(s.live_bytes);
            h.u64(s.dead_bytes);
            h.u64(s.free_bytes);
        }
        for b in &self.banks {
            h.u64(u64::from(b.bank));
            h.u64(b.state as u64);
            h.u64(b.start.0);
            h.u64(b.end.0);
        }
        for g in &self.gc_events {
            h.u64(g.start.0);
            h.u64(g.end.0);
            h.u64(g.trigger as u64);
            h.u64(g.live_bytes_after);
            h.u64(g.moved_bytes);
        }
        for o in &self.layout.objects {
            h.u64(o.addr);
            h.u64(o.alloc.0);
            h.u64(o.death.0);
            h.u64(o.freed.0);
        }
        for e in &self.bank_leakage_j {
            h.u64(e.to_bits());
        }
        for p in &self.pauses {
            h.u64(u64::from(p.mutator));
            h.u64(p.start.0);
            h.u64(p.end.0);
        }
        if let Some(c) = &self.cpu {
            for s in &c.timeline.spans {
                h.u64(u64::from(s.core));
                h.u64(s.start_ns);
                h.u64(u64::from(s.freq_khz.unwrap_or(0)));
            }
            h.u64(c.total_j().to_bits());
        }
        for a in &self.cpu_activity {
            h.u64(u64::from(a.core));
            h.u64(a.start.0);
            h.u64(a.end.0);
            h.u64(u64::from(a.thread));
        }
        h.0
    }

    /// Samples the occupancy at `t` (the last sample at or before it).
    pub fn occupancy_at(&self, t: SimTime) -> Option<OccupancySample> {
        match self.occupancy.partition_point(|s| s.time <= t) {
            0 => None,
            n => Some(self.occupancy[n - 1]),
        }
    }

    /// The power state of `bank` at `t`.
    pub fn bank_state_at(&self, bank: u32, t: SimTime) -> Option<BankState> {
        let from = self.banks.partition_point(|b| b.bank < bank);
        let to = self.banks.partition_point(|b| b.bank <= bank);
        let spans = &self.banks[from..to];
        let i = spans.partition_point(|b| b.start <= t);
        spans
            .get(i.checked_sub(1)?)
            .filter(|b| t < b.end || b.end == self.duration)
            .map(|b| b.state)
    }
}

#[derive(Default)]
struct Fnv(u64);

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        if self.0 == 0 {
            self.0 = 0xCBF2_9CE4_8422_2325;
        }
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01B3);
        }
    }

    fn u64(&mut self, v: u64) {
        self.write(&v.to_le_bytes());
    }
}
