//! End of a kvm-soc run: energy of each component (JVM'02 §3.3, Fig. 5) and the summary.
//!
//! * Leakage: the whole memory (heap + stack SRAM + ROM) leaks `leakage_per_cycle_over_access` × one SRAM
//!   access's dynamic energy per cycle, spread evenly over its bytes. Heap banks leak by power state (see
//!   `heap::banks`); the stack SRAM is always on; the ROM partitions the program uses are on from first use
//!   (start-up) and never off.
//! * Dynamic: accesses × energy per access — mutator heap accesses per cycle, allocation writes per byte,
//!   collector accesses per object/byte/chunk; stack and ROM accesses per busy cycle.
//! * Datapath: energy per busy cycle; a resynchronisation stall costs `cpu_stall_energy_fraction` of that.

use super::KvmSim;
use crate::collector::Trigger;
use crate::heap::BankState;
use crate::run::{BankInterval, EnergySummary, HeapGeometry, Run, Summary};
use crate::units::SimTime;

impl KvmSim<'_> {
    pub(super) fn finish(mut self, out_of_memory: bool) -> Run {
        self.sample();
        let f = self.sc.file();
        let e = &f.kvm.energy;
        let total_cycles = self.now;
        let busy = (self.mutator_cycles + self.gc_cycles) as f64;
        let heap = f.heap.size.0;
        let mem_bytes = (heap + e.stack_sram_size.0 + e.rom_size.0).max(1) as f64;
        let leak_per_byte_cycle = e.leakage_per_cycle_over_access * e.sram_access_j / mem_bytes;

        let banks = std::mem::replace(
            &mut self.banks,
            crate::heap::Banks::new(0, 1, BankState::Active, 0.0, 0.0, 0),
        );
        let (spans, bank_leak, wakeups) = banks.finish(total_cycles);
        let heap_leakage: f64 = bank_leak.iter().sum();
        // The mutator's heap accesses: per cycle of its compute and per byte it allocates — products of the run's
        // integer totals (summing them per allocation cost a floating-point add each).
        let heap_acc_mutator = self.mutator_cycles as f64 * e.mutator_heap_accesses_per_cycle
            + self.allocated_bytes as f64 * e.alloc_accesses_per_byte;
        let heap_dyn_mutator = heap_acc_mutator * e.sram_access_j;
        let heap_dyn_gc = self.heap_acc_gc * e.sram_access_j;
        let heap_dynamic = heap_dyn_mutator + heap_dyn_gc;
        let stack_leak = leak_per_byte_cycle * e.stack_sram_size.0 as f64 * total_cycles as f64;
        let stack_dyn = e.stack_accesses_per_cycle * busy * e.sram_access_j;
        let rom_used = self.sc.workload().rom_bytes_used.0.min(e.rom_size.0) as f64;
        let rom_leak = leak_per_byte_cycle * rom_used * total_cycles as f64;
        let rom_dyn = e.rom_accesses_per_cycle * busy * e.rom_access_j;
        let cpu_busy = busy * e.cpu_energy_per_cycle_j;
        let cpu_stall =
            self.stall_cycles as f64 * e.cpu_energy_per_cycle_j * e.cpu_stall_energy_fraction;
        let per_cycle_other = e.stack_accesses_per_cycle * e.sram_access_j
            + e.rom_accesses_per_cycle * e.rom_access_j;
        let gc = self.gc_cycles as f64 * (e.cpu_energy_per_cycle_j + per_cycle_other) + heap_dyn_gc;
        let mutator = self.mutator_cycles as f64 * (e.cpu_energy_per_cycle_j + per_cycle_other)
            + heap_dyn_mutator;
        let heap_e = heap_leakage + heap_dynamic;
        let stack = stack_leak + stack_dyn;
        let rom = rom_leak + rom_dyn;
        let cpu = cpu_busy + cpu_stall;
        let memory = heap_e + stack + rom;
        let energy = EnergySummary {
            total: cpu + memory,
            cpu,
            memory,
            heap: heap_e,
            heap_leakage,
            heap_dynamic,
            rom,
            stack,
            gc,
            mutator,
            ..EnergySummary::default()
        };

        let ns = self.ns_per_cycle;
        let duration = SimTime(total_cycles * ns);
        let powered_cycles: u64 = spans
            .iter()
            .filter(|s| s.state != BankState::Gated)
            .map(|s| s.end_cycles - s.start_cycles)
            .sum();
        let bank_intervals: Vec<BankInterval> = spans
            .iter()
            .map(|s| BankInterval {
                bank: s.bank,
                state: s.state,
                start: SimTime(s.start_cycles * ns),
                end: SimTime(s.end_cycles * ns),
            })
            .collect();
        // KVM runs its green threads on one VM thread: every pause stops the one mutator.
        let (mmu, max_pause_ns) = crate::run::pause_metrics(&self.pauses, 1, duration.0);
        let summary = Summary {
            platform: "kvm-soc".into(),
            collector: f.collector.kind.name().into(),
            execution_time_s: duration.as_secs_f64(),
            allocations: self.alloc_index,
            allocated_bytes: self.allocated_bytes,
            collections: self.gc_events.len() as u64,
            collections_by_trigger: Trigger::count_map(&self.trigger_counts),
            energy_j: energy,
            gc_cpu_fraction: if busy > 0.0 {
                self.gc_cycles as f64 / busy
            } else {
                0.0
            },
            max_pause_ms: max_pause_ns as f64 * 1e-6,
            frequency_transitions: 0,
            execution_cycles: Some(total_cycles),
            out_of_memory,
            mmu,
            bank_wakeups: Some(wakeups),
            mean_powered_banks: Some(if total_cycles > 0 {
                powered_cycles as f64 / total_cycles as f64
            } else {
                0.0
            }),
            peak_live_bytes: self.peak_live,
            migrations: None,
            delayed_time_s: None,
            time_at_frequency_s: None,
            heap_contentions: None,
            context_switches: None,
            mean_live_bytes: None,
            end_live_bytes: None,
            pauses_by_kind: None,
            max_stop_pause_ms: None,
            alloc_waits: None,
            page_faults: None,
        };
        Run {
            summary,
            duration,
            geometry: HeapGeometry {
                heap_bytes: heap,
                bank_bytes: self.bank_size,
                banks: (heap / self.bank_size) as u32,
                permanent_start: self.perm_start,
            },
            occupancy: std::mem::take(&mut self.occupancy),
            banks: bank_intervals,
            gc_events: std::mem::take(&mut self.gc_events),
            pauses: std::mem::take(&mut self.pauses),
            layout: self.layout.take().map(|l| l.finish()).unwrap_or_default(),
            bank_leakage_j: bank_leak,
            cpu: None,
            cpu_activity: Vec::new(),
            threads: Vec::new(),
        }
    }
}
