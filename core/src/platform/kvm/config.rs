//! `[kvm]`: the kvm-soc platform's configuration (JVM'02 §3.3) — clock, collector costs and energy model.

use serde::{Deserialize, Serialize};

use crate::units::ByteSize;

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
