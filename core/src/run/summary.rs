//! `Summary`: the numbers of a run that scripts rely on (DESIGN §5), serialized as the `summary` object of
//! `gclab run --json` and `gclab sweep --json`. Optional fields are omitted on platforms that lack them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Energy of a run, split as the adaptive-GC paper's Fig. 5 does. `[J]`
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct EnergySummary {
    /// Everything: CPU + memory. `[J]`
    pub total: f64,
    /// CPU datapath (busy and stalled cycles). `[J]`
    pub cpu: f64,
    /// All memories: heap + ROM + stack. `[J]`
    pub memory: f64,
    /// Heap SRAM: leakage + dynamic. `[J]`
    pub heap: f64,
    /// Heap leakage (active, waking and gated banks). `[J]`
    pub heap_leakage: f64,
    /// Heap dynamic energy (accesses by mutator, allocator and collector). `[J]`
    pub heap_dynamic: f64,
    /// ROM holding KVM and its libraries. `[J]`
    pub rom: f64,
    /// Stack and VM-variable SRAM. `[J]`
    pub stack: f64,
    /// Dynamic energy caused by GC work (datapath + memory accesses). `[J]`
    pub gc: f64,
    /// Dynamic energy caused by the mutator (datapath + memory accesses). `[J]`
    pub mutator: f64,
    /// android-krait: cores busy with other threads (binder, JIT, …). `[J]`
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub other: Option<f64>,
    /// android-krait: cores online and idle (incl. idle-mode entry costs). `[J]`
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub idle: Option<f64>,
    /// android-krait: cores offline. `[J]`
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub offline: Option<f64>,
    /// android-krait: L2/uncore. `[J]`
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub uncore: Option<f64>,
}

/// One point of an MMU curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MmuPoint {
    /// Window length. `[ms]`
    pub window_ms: f64,
    /// Minimum mutator utilisation at that window, 0–1.
    pub utilization: f64,
}

/// The summary of one run (DESIGN §5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Platform that ran it.
    pub platform: String,
    /// Collector that ran.
    pub collector: String,
    /// Simulated wall time of the whole run. `[s]`
    pub execution_time_s: f64,
    /// Objects allocated. `[allocations]`
    pub allocations: u64,
    /// Bytes allocated (aligned sizes). `[bytes]`
    pub allocated_bytes: u64,
    /// Collections started, all kinds.
    pub collections: u64,
    /// Collections per trigger key (`alloc`, `k_allocation`, `adaptive`, …); absent keys are 0.
    pub collections_by_trigger: BTreeMap<String, u64>,
    /// Energy. `[J]`
    pub energy_j: EnergySummary,
    /// Share of CPU time spent in GC work, 0–1.
    pub gc_cpu_fraction: f64,
    /// Longest mutator pause. `[ms]`
    pub max_pause_ms: f64,
    /// DVFS frequency changes over all cores (0 on single-frequency platforms).
    pub frequency_transitions: u64,
    /// Total cycles, GC and resynchronisation included (kvm-soc). `[cycles]`
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub execution_cycles: Option<u64>,
    /// True when the run ended because an allocation could not be satisfied.
    pub out_of_memory: bool,
    /// MMU on the default log-spaced windows.
    pub mmu: Vec<MmuPoint>,
    /// Heap banks woken from the gated state (kvm-soc).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub bank_wakeups: Option<u64>,
    /// Time-averaged number of powered (non-gated) heap banks (kvm-soc).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mean_powered_banks: Option<f64>,
    /// Highest live-object bytes seen. `[bytes]`
    pub peak_live_bytes: u64,
    /// Threads resumed on another core (android-krait).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub migrations: Option<u64>,
    /// Runnable-but-waiting time (android-krait). `[s]`
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub delayed_time_s: Option<f64>,
    /// Core-seconds at each frequency in MHz, and `"offline"` (android-krait). `[s]`
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub time_at_frequency_s: Option<BTreeMap<String, f64>>,
    /// Times a thread failed to take the heap lock and slept (android-krait; SYSTOR'15 Table 1).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub heap_contentions: Option<u64>,
    /// Switches of a core to another thread (android-krait).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub context_switches: Option<u64>,
    /// Reachable bytes averaged over the allocation clock (android-krait; Table 1's Live). `[bytes]`
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mean_live_bytes: Option<u64>,
    /// Reachable bytes when the run ends (android-krait; Table 1's Live read as a peak, for a live set that only
    /// grows). `[bytes]`
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub end_live_bytes: Option<u64>,
    /// Mutator pauses by kind: `safepoint`, `foreground`, `concurrent_wait` → count (android-krait).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub pauses_by_kind: Option<BTreeMap<String, u64>>,
    /// Longest pause a mutator spent responding to a safepoint or running a foreground collection: SYSTOR'15
    /// §2.4's *Max-Pause* of Table 1, which leaves out the waits for a running concurrent cycle that
    /// `max_pause_ms` (like the MinMU) counts (android-krait). `[ms]`
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub max_stop_pause_ms: Option<f64>,
    /// GC-ALLOC triggers that found a collection running and waited for it instead of collecting in the
    /// foreground (android-krait; SYSTOR'15 §2.1). Not in `collections_by_trigger.alloc`, which counts
    /// collections.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub alloc_waits: Option<u64>,
    /// Heap pages an allocation touched for the first time since the daemon's last trim — page faults in which
    /// the kernel zero-fills a 4 KiB page (android-krait; `android.heap.fault_us_per_page`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub page_faults: Option<u64>,
}
