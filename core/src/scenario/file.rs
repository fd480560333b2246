//! `ScenarioFile`: the serde mirror of a scenario TOML file — every knob, its unit, default and allowed range.
//! Missing fields take their defaults (`#[serde(default)]`, so older files keep loading); unknown fields are
//! errors (`deny_unknown_fields`, so typos are caught). Ranges are checked once, by
//! [`crate::Scenario::from_file`]; `docs/scenario.md` lists every field.

use serde::{Deserialize, Serialize};

use crate::platform::android::config::AndroidConfig;
use crate::units::ByteSize;

/// The newest scenario format version this build writes; it reads every version up to it.
pub const FORMAT_VERSION: u32 = 1;

/// Which simulated machine runs the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PlatformKind {
    /// One 100 MHz core, a heap of supply-gated SRAM banks, ROM and stack SRAM (Chen et al., JVM'02 §3.3).
    #[default]
    KvmSoc,
    /// Four Krait cores with ondemand and hotplug under a Dalvik heap (Hussein et al., SYSTOR'15 §2).
    AndroidKrait,
}

/// Which collector (and with it, which GC trigger) runs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "kebab-case")]
pub enum CollectorKind {
    /// KVM's compacting mark-sweep, collecting only when an allocation fails (JVM'02 §3.1).
    #[default]
    Base,
    /// The base collector, also run once after every `k` allocations (JVM'02 §3.2).
    KAllocation,
    /// The base collector triggered by the k1/k2 bank rules of JVM'02 §2.
    Adaptive,
    /// Dalvik concurrent mark-sweep (SYSTOR'15 §2.2).
    Cms,
    /// Generational CMS (SYSTOR'15 §3.1).
    Gencms,
    /// CMS with on-the-fly root scanning (SYSTOR'15 §3.2).
    Cmsfly,
    /// CMS with every collection left to the GC daemon: mutators never collect, they force the allocation past
    /// the soft limit and signal the daemon (SYSTOR'15 §3.3 "background").
    Bg,
    /// CMS with no GC daemon: the allocating mutator collects at boosted priority holding the heap lock
    /// (SYSTOR'15 §3.3 "foreground").
    Fg,
}

impl CollectorKind {
    /// Every variant, in menu order.
    pub const ALL: [CollectorKind; 8] = [
        CollectorKind::Base,
        CollectorKind::KAllocation,
        CollectorKind::Adaptive,
        CollectorKind::Cms,
        CollectorKind::Gencms,
        CollectorKind::Cmsfly,
        CollectorKind::Bg,
        CollectorKind::Fg,
    ];

    /// The name used in scenario files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            CollectorKind::Base => "base",
            CollectorKind::KAllocation => "k-allocation",
            CollectorKind::Adaptive => "adaptive",
            CollectorKind::Cms => "cms",
            CollectorKind::Gencms => "gencms",
            CollectorKind::Cmsfly => "cmsfly",
            CollectorKind::Bg => "bg",
            CollectorKind::Fg => "fg",
        }
    }

    /// True for the collectors of the kvm-soc platform (base, k-allocation, adaptive).
    pub fn is_kvm(self) -> bool {
        matches!(
            self,
            CollectorKind::Base | CollectorKind::KAllocation | CollectorKind::Adaptive
        )
    }
}

/// How the adaptive trigger's b() counts banks (JVM'02 §2 leaves the physical reading open).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BankCount {
    /// b(s) = ⌈s / B⌉ over dynamic object bytes for both terms, evaluated at every allocation: the formula read
    /// literally, as if the heap were always packed.
    Bytes,
    /// Evaluated when first-fit would place the object in a gated bank — §4.3: the GC "is invoked just in time
    /// before the new bank is activated" — with b(h+s) the dynamic banks that would then be powered (where the
    /// object physically lands) and b(h+s−g) = ⌈(h+s−g)/B⌉, the banks the data would need once the estimated
    /// garbage is gone. The default: §4.3 and Fig. 6 describe this behaviour.
    #[default]
    OnActivation,
}

/// When the adaptive collector's forced collection fires relative to the allocation that crosses `B` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ForcedTiming {
    /// Before placing the allocation that would make the bytes since the last GC exceed B (the same decision
    /// point as the other rules, which include s_i).
    #[default]
    Before,
    /// At the first allocation after B bytes have been allocated.
    After,
}

/// The power state of heap banks that have never held an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum InitialBankState {
    /// Supply-gated until first used (JVM'02 §4.3: a new bank "is activated"; §3.3: ROM partitions likewise).
    #[default]
    Gated,
    /// Powered from the start; gated only after a collection finds them empty.
    Active,
}

/// `[collector]`: which collector runs and its trigger's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CollectorConfig {
    /// Collector variant. Default `base`.
    pub kind: CollectorKind,
    /// k-allocation period: collect once after every `k` allocations. `[allocations]`, default 100, range 1–10⁹.
    #[serde(with = "crate::units::wide_u64")]
    pub k: u64,
    /// Adaptive: L, the interval the room freed in one bank must last. `[allocations]`, default 20, range 0–10⁹.
    #[serde(with = "crate::units::wide_u64")]
    pub lookahead_allocations: u64,
    /// Adaptive: forced collection after this many bytes without one. `[bytes]`, default = `heap.bank_size`
    /// (JVM'02 §2 uses the bank size B), range 1 B – heap size.
    pub forced_bytes: Option<ByteSize>,
    /// Adaptive: how and when b() counts banks. Default `on-activation`.
    pub bank_count: BankCount,
    /// Adaptive: when the forced collection fires. Default `before`.
    pub forced_timing: ForcedTiming,
    /// k-allocation: whether a collection forced by an allocation failure restarts the k counter. Default false
    /// (Table 2: Kshape's k = 500 count of 93 ≈ 45 periodic + 48 failure collections needs an unreset counter).
    pub failure_resets_k: bool,
}

impl Default for CollectorConfig {
    fn default() -> Self {
        CollectorConfig {
            kind: CollectorKind::Base,
            k: 100,
            lookahead_allocations: 20,
            forced_bytes: None,
            bank_count: BankCount::OnActivation,
            forced_timing: ForcedTiming::Before,
            failure_resets_k: false,
        }
    }
}

/// `[heap]`: the heap's geometry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HeapConfig {
    /// Heap size. `[bytes]`, default 128 KiB (JVM'02 §3.3), range 4 KiB – 4 GiB. On android-krait it is Dalvik's
    /// heapgrowthlimit, default 96 MiB (SYSTOR'15 Table 2) [P].
    pub size: ByteSize,
    /// Bank size: the unit of supply gating. `[bytes]`, default 16 KiB (JVM'02 §3.3), range 1 KiB – heap size;
    /// must divide the heap size. On android-krait default 1 MiB (the lanes of the layout view).
    pub bank_size: ByteSize,
    /// Power state of banks never used yet. Default `gated`.
    pub initial_bank_state: InitialBankState,
    /// Object alignment: sizes round up to a multiple. `[bytes]`, default 4 (KVM's word), range 1–64, power of 2.
    #[serde(with = "crate::units::wide_u64")]
    pub alignment: u64,
    /// android-krait: Dalvik's heaptargetutilization — the heap is sized to live / targetUtil after each
    /// collection (SYSTOR'15 Eq. (1), models.md §1.4). Larger means a tighter heap. Default 0.75 (Table 2) [P],
    /// range 0.1–0.9 (`-XX:HeapTargetUtilization`).
    pub target_util: f64,
}

impl Default for HeapConfig {
    fn default() -> Self {
        HeapConfig {
            size: ByteSize(128 * 1024),
            bank_size: ByteSize(16 * 1024),
            initial_bank_state: InitialBankState::Gated,
            alignment: 4,
            target_util: 0.75,
        }
    }
}

/// `[kvm.gc]`: the work the compacting mark-sweep collector does, in cycles and heap accesses. Estimates [E]
/// for an interpreter-era collector on a 5-stage RISC core; `docs/models-kvm.md` gives the reasoning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KvmGcCosts {
    /// Fixed cost per collection: thread stacks, global roots, class table. `[cycles]`, default 4000.
    #[serde(with = "crate::units::wide_u64")]
    pub root_scan_cycles: u64,
    /// Marking, per live object (header test-and-set, push/pop). `[cycles]`, default 40.
    #[serde(with = "crate::units::wide_u64")]
    pub mark_cycles_per_object: u64,
    /// Marking, per live byte (scanning fields for pointers). `[cycles/byte]`, default 0.5.
    pub mark_cycles_per_byte: f64,
    /// Sweeping, per heap chunk walked (object or free chunk header). `[cycles]`, default 12.
    #[serde(with = "crate::units::wide_u64")]
    pub sweep_cycles_per_chunk: u64,
    /// Compaction, per moved object (forwarding, pointer update). `[cycles]`, default 60.
    #[serde(with = "crate::units::wide_u64")]
    pub compact_cycles_per_object: u64,
    /// Compaction, per moved byte (copy). `[cycles/byte]`, default 1.0.
    pub compact_cycles_per_byte: f64,
    /// Heap accesses while marking, per live object. `[accesses]`, default 3.
    pub mark_accesses_per_object: f64,
    /// Heap accesses while marking, per live byte (one per 4-byte word). `[accesses/byte]`, default 0.25.
    pub mark_accesses_per_byte: f64,
    /// Heap accesses while sweeping, per chunk. `[accesses]`, default 2.
    pub sweep_accesses_per_chunk: f64,
    /// Heap accesses while compacting, per moved byte (read + write per word). `[accesses/byte]`, default 0.5.
    pub compact_accesses_per_byte: f64,
}

impl Default for KvmGcCosts {
    fn default() -> Self {
        KvmGcCosts {
            root_scan_cycles: 4000,
            mark_cycles_per_object: 40,
            mark_cycles_per_byte: 0.5,
            sweep_cycles_per_chunk: 12,
            compact_cycles_per_object: 60,
            compact_cycles_per_byte: 1.0,
            mark_accesses_per_object: 3.0,
            mark_accesses_per_byte: 0.25,
            sweep_accesses_per_chunk: 2.0,
            compact_accesses_per_byte: 0.5,
        }
    }
}

/// `[kvm.energy]`: the memory and datapath energy model of JVM'02 §3.3 (Fig. 5's components).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KvmEnergy {
    /// Dynamic energy of one SRAM access (heap and stack). `[J]`, default 2.5e-11 (CACTI 16 KiB bank at 90 nm,
    /// models.md §4.2: 0.023 nJ read, 0.034 nJ write → 0.025 nJ).
    pub sram_access_j: f64,
    /// Dynamic energy of one ROM access. `[J]`, default 2.0e-11 [E].
    pub rom_access_j: f64,
    /// Per-cycle leakage of the whole memory (ROM + heap + stack SRAM), as a multiple of one SRAM access's dynamic
    /// energy. Default 1.0 — JVM'02 §3.3: "the leakage energy per cycle of the entire memory is equal to the
    /// dynamic energy consumed per access". Range 0–100.
    pub leakage_per_cycle_over_access: f64,
    /// Leakage of a supply-gated bank, as a fraction of an active bank's. Default 0.05 (JVM'02 §3.3). Range 0–1.
    pub gated_leakage_fraction: f64,
    /// Cycles to resynchronise a gated bank on first access. `[cycles]`, default 350 (JVM'02 §3.3).
    #[serde(with = "crate::units::wide_u64")]
    pub resync_cycles: u64,
    /// Heap accesses per mutator cycle (object fields and the bytecodes the heap holds). Sets the heap's
    /// dynamic/leakage balance. `[accesses/cycle]`, default 0.10 [E]: ~30 % of instructions are loads/stores at
    /// CPI ≈ 1, about a third of them to the heap (the rest to the Java stack and VM variables).
    pub mutator_heap_accesses_per_cycle: f64,
    /// Heap accesses when an object is allocated, per byte (header and zeroing, one per word). Default 0.25.
    pub alloc_accesses_per_byte: f64,
    /// Stack/VM-variable SRAM accesses per busy cycle. `[accesses/cycle]`, default 0.20 [E].
    pub stack_accesses_per_cycle: f64,
    /// ROM (KVM code and libraries) accesses per busy cycle, after the on-chip caches. Default 0.05 [E].
    pub rom_accesses_per_cycle: f64,
    /// Size of the stack/VM SRAM, always powered. `[bytes]`, default 32 KiB (JVM'02 §3.3).
    pub stack_sram_size: ByteSize,
    /// Size of the ROM holding KVM and its libraries. `[bytes]`, default 128 KiB (JVM'02 §3.3).
    pub rom_size: ByteSize,
    /// Datapath energy per busy cycle. `[J]`, default 1.5e-10 [E] (0.15 nJ per instruction for a 0.10 µm
    /// 5-stage core at 1 V, the order SimplePower reports).
    pub cpu_energy_per_cycle_j: f64,
    /// Datapath energy per stalled cycle (bank resynchronisation), as a fraction of a busy cycle's. Default 0.3 [E].
    pub cpu_stall_energy_fraction: f64,
}

impl Default for KvmEnergy {
    fn default() -> Self {
        KvmEnergy {
            sram_access_j: 2.5e-11,
            rom_access_j: 2.0e-11,
            leakage_per_cycle_over_access: 1.0,
            gated_leakage_fraction: 0.05,
            resync_cycles: 350,
            mutator_heap_accesses_per_cycle: 0.10,
            alloc_accesses_per_byte: 0.25,
            stack_accesses_per_cycle: 0.20,
            rom_accesses_per_cycle: 0.05,
            stack_sram_size: ByteSize(32 * 1024),
            rom_size: ByteSize(128 * 1024),
            cpu_energy_per_cycle_j: 1.5e-10,
            cpu_stall_energy_fraction: 0.3,
        }
    }
}

/// `[kvm]`: the kvm-soc platform (JVM'02 §3.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KvmConfig {
    /// Core clock. `[Hz]`, default 100 MHz (microSPARC-IIep), range 1 MHz – 1 GHz; must divide 1 GHz.
    #[serde(with = "crate::units::wide_u64")]
    pub clock_hz: u64,
    /// Collector costs.
    pub gc: KvmGcCosts,
    /// Energy model.
    pub energy: KvmEnergy,
}

impl Default for KvmConfig {
    fn default() -> Self {
        KvmConfig {
            clock_hz: 100_000_000,
            gc: KvmGcCosts::default(),
            energy: KvmEnergy::default(),
        }
    }
}

/// What the run records besides the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecordConfig {
    /// Keep per-object records and layout keyframes for the heap-layout replay. Default true.
    pub layout: bool,
}

impl Default for RecordConfig {
    fn default() -> Self {
        RecordConfig { layout: true }
    }
}

/// A scenario file as written: every section optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScenarioFile {
    /// Format version of the file. Default 1 (the current one); a newer version is an error.
    pub format_version: u32,
    /// A short name shown in the app and in summaries.
    pub name: String,
    /// One or two sentences on what the scenario shows.
    pub description: String,
    /// Which platform runs it. Default `kvm-soc`.
    pub platform: PlatformKind,
    /// Seed of every random draw. Same scenario + seed → bit-identical run. Default 1.
    #[serde(with = "crate::units::wide_u64")]
    pub seed: u64,
    /// `[workload]`: `profile = "kvm/kwml"` (an embedded profile) or a path relative to the scenario file, plus
    /// any profile field to override (`[workload.timer]`, `[[workload.phases]]`, …).
    pub workload: toml::Table,
    /// `[collector]`.
    pub collector: CollectorConfig,
    /// `[heap]`.
    pub heap: HeapConfig,
    /// `[kvm]`.
    pub kvm: KvmConfig,
    /// `[android]`.
    pub android: AndroidConfig,
    /// `[record]`.
    pub record: RecordConfig,
}

impl Default for ScenarioFile {
    fn default() -> Self {
        ScenarioFile {
            format_version: FORMAT_VERSION,
            name: String::new(),
            description: String::new(),
            platform: PlatformKind::KvmSoc,
            seed: 1,
            workload: toml::Table::new(),
            collector: CollectorConfig::default(),
            heap: HeapConfig::default(),
            kvm: KvmConfig::default(),
            android: AndroidConfig::default(),
            record: RecordConfig::default(),
        }
    }
}
