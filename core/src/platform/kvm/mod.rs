//! The kvm-soc platform (JVM'02 §3): one in-order core at `kvm.clock_hz`, a heap of SRAM banks with a permanent
//! space at its end, KVM's first-fit allocator and compacting mark-sweep collector ([`gc`]), a trigger policy
//! (base, k-allocation, adaptive), bank supply gating, and the energy of Fig. 5 ([`energy`]).
//!
//! The loop: the workload draws a request (compute, size, lifetime); the mutator computes; deaths that are due
//! happen; a cache entry first evicts the program's oldest one when free memory is short (`cache` lifetimes);
//! the trigger may collect; first-fit places the object (collecting, compacting if needed, on failure;
//! out-of-memory ends the run as a result); gated banks the object lands in wake (350 cycles each). Time is an
//! integer cycle count, converted to [`SimTime`] once per record.

pub mod config;
mod energy;
mod gc;

use crate::collector::{AllocRequest, BuiltinTrigger, Trigger, TriggerPolicy};
use crate::error::SimError;
use crate::heap::{BankState, Banks, FreeList};
use crate::progress::{Cancel, Progress};
use crate::run::{GcEvent, LayoutRecorder, ObjectEvents, OccupancySample, Pause, Run};
use crate::scenario::{InitialBankState, Scenario};
use crate::units::SimTime;
use crate::workload::{
    AllocDraw, AllocSource, DeathQueue, DrawStream, Lifetime, LiveState, WorkloadTapes,
};

/// An object in the dynamic heap. Its id is its index, also its layout id. 12 bytes: the engine reaches objects
/// by id in allocation order, so half the footprint of `u64` fields keeps more of them in cache. Addresses and
/// sizes fit 32 bits because scenario validation caps `heap.size` at 4 GiB (the size is stored minus one, so a
/// whole 4 GiB object fits too).
#[derive(Debug, Clone, Copy)]
struct Obj {
    addr32: u32,
    size_m1: u32,
    dead: bool,
    freed: bool,
}

impl Obj {
    fn new(addr: u64, size: u64) -> Self {
        debug_assert!(
            size >= 1 && addr + size <= 1 << 32,
            "heap.size is at most 4 GiB"
        );
        Obj {
            addr32: addr as u32,
            size_m1: (size - 1) as u32,
            dead: false,
            freed: false,
        }
    }

    /// Start address. `[bytes]`
    fn addr(&self) -> u64 {
        u64::from(self.addr32)
    }

    /// Size, header and alignment included. `[bytes]`
    fn size(&self) -> u64 {
        u64::from(self.size_m1) + 1
    }

    /// Moves it (compaction). `addr` in `[bytes]`.
    fn set_addr(&mut self, addr: u64) {
        self.addr32 = addr as u32;
    }
}

/// Engine state of one kvm-soc run.
struct KvmSim<'s> {
    sc: &'s Scenario,
    ns_per_cycle: u64,
    now: u64,
    mutator_cycles: u64,
    gc_cycles: u64,
    stall_cycles: u64,
    objs: Vec<Obj>,
    /// Ids that may still be in the heap (allocated, perhaps freed since): filtered lazily, when a keyframe or a
    /// compaction needs the resident set.
    maybe_resident: Vec<u32>,
    /// Ids that became unreachable since the last collection (the next sweep frees exactly these).
    dead_since_gc: Vec<u32>,
    /// Objects in the heap, live or dead.
    resident_objects: u64,
    /// Objects in the heap overlapping each bank (a bank with none after a sweep may be gated).
    bank_objects: Vec<u32>,
    free: FreeList,
    banks: Banks,
    bank_size: u64,
    perm_start: u64,
    /// `live_state = "permanent"`: immortal objects go to the permanent space.
    permanent_state: bool,
    /// Banks not wholly inside the permanent space (fixed for the run).
    dyn_banks: usize,
    /// `heap.alignment − 1` (a power of two, scenario validation): sizes round up with a mask, not a division.
    align_mask: u64,
    live_bytes: u64,
    dead_bytes: u64,
    peak_live: u64,
    alloc_index: u64,
    bytes_since_gc: u64,
    allocated_bytes: u64,
    deaths: DeathQueue,
    due: Vec<u32>,
    phase_objs: Vec<Vec<u32>>,
    killed_phases: usize,
    /// The program's cache entries, oldest first (some may have died of age since).
    cache: std::collections::VecDeque<u32>,
    /// `workload.cache_free_bytes`: free memory under which a new entry evicts the oldest. `[bytes]`
    cache_free_bytes: u64,
    policy: BuiltinTrigger,
    heap_acc_gc: f64,
    occupancy: Vec<OccupancySample>,
    gc_events: Vec<GcEvent>,
    pauses: Vec<Pause>,
    layout: Option<LayoutRecorder>,
    /// Collections per [`Trigger`], indexed by its discriminant.
    trigger_counts: [u64; Trigger::COUNT],
    scratch: gc::GcScratch,
    /// The trigger wants the first-fit look-ahead (cached from the policy).
    needs_placement: bool,
}

/// Runs a kvm-soc scenario, its generated workload replayed from `tapes` when given (bit-identical either way).
/// `objects`: stream the objects' events there instead of keeping a layout (`gclab trace record`).
pub fn simulate(
    sc: &Scenario,
    tapes: Option<&WorkloadTapes>,
    objects: Option<Box<dyn ObjectEvents>>,
    cancel: &Cancel,
    progress: &mut dyn Progress,
) -> Result<Run, SimError> {
    let mut sim = KvmSim::new(sc);
    if let Some(o) = objects {
        sim.layout = Some(LayoutRecorder::streaming(o));
    }
    let mut workload = DrawStream::of(sc.recorded(), sc.workload(), sc.seed(), tapes);
    let total_work = sc.work_allocations().max(1) as f64;
    let mut work_done = 0u64;
    let mut oom = false;
    sim.needs_placement = sim.policy.needs_placement();
    sim.start();
    while let Some(d) = workload.next(sim.now) {
        if sim.alloc_index.is_multiple_of(1024) {
            if cancel.is_cancelled() {
                return Err(SimError::Cancelled);
            }
            progress.report(work_done as f64 / total_work);
        }
        if d.source == AllocSource::Work {
            work_done += 1;
        }
        sim.now += d.compute_cycles;
        sim.mutator_cycles += d.compute_cycles;
        sim.kill_due(d.phase);
        let before = sim.gc_events.len();
        if !sim.allocate(&d) {
            oom = true;
            break;
        }
        // Each collection that just ran lets the program's waiting thread allocate (workload.on_collection) —
        // unless that thread is the one allocating: a collection inside its own burst is no switch to it (else,
        // with collections as frequent as its allocations, k ≤ the burst size, it would allocate without end).
        if d.source != AllocSource::Collection {
            for _ in before..sim.gc_events.len() {
                workload.after_collection();
            }
        }
    }
    progress.report(1.0);
    Ok(sim.finish(oom))
}

impl<'s> KvmSim<'s> {
    fn new(sc: &'s Scenario) -> Self {
        let f = sc.file();
        // Room for the expected allocations (the program's own plus ~25 % for a timer) avoids regrowing the
        // per-object vectors, which otherwise copies them ~log n times.
        let expect = (sc.work_allocations() as usize).saturating_mul(5) / 4;
        let heap = f.heap.size.0;
        let bank_size = f.heap.bank_size.0;
        let align = f.heap.alignment;
        let perm = sc.workload().effective().permanent_bytes.0.div_ceil(align) * align;
        let perm_start = heap.saturating_sub(perm);
        let e = &f.kvm.energy;
        let mem_bytes = (heap + e.stack_sram_size.0 + e.rom_size.0).max(1) as f64;
        let leak_per_byte_cycle = e.leakage_per_cycle_over_access * e.sram_access_j / mem_bytes;
        let initial = match f.heap.initial_bank_state {
            InitialBankState::Gated => BankState::Gated,
            InitialBankState::Active => BankState::Active,
        };
        let nbanks = (heap / bank_size) as usize;
        KvmSim {
            sc,
            ns_per_cycle: 1_000_000_000 / f.kvm.clock_hz,
            now: 0,
            mutator_cycles: 0,
            gc_cycles: 0,
            stall_cycles: 0,
            objs: Vec::with_capacity(expect),
            maybe_resident: Vec::new(),
            dead_since_gc: Vec::new(),
            resident_objects: 0,
            bank_objects: vec![0; nbanks],
            free: FreeList::from_chunks([(0, perm_start)]),
            banks: Banks::new(
                nbanks,
                bank_size,
                initial,
                leak_per_byte_cycle * bank_size as f64,
                e.gated_leakage_fraction,
                e.resync_cycles,
            ),
            bank_size,
            perm_start,
            dyn_banks: (perm_start.div_ceil(bank_size) as usize).min(nbanks),
            align_mask: align - 1,
            live_bytes: 0,
            dead_bytes: 0,
            peak_live: 0,
            alloc_index: 0,
            bytes_since_gc: 0,
            allocated_bytes: 0,
            deaths: DeathQueue::default(),
            due: Vec::new(),
            phase_objs: vec![Vec::new(); sc.workload().effective().phases.len()],
            permanent_state: sc.workload().live_state == LiveState::Permanent,
            killed_phases: 0,
            cache: std::collections::VecDeque::new(),
            cache_free_bytes: sc.workload().cache_free_bytes.map_or(0, |b| b.0),
            policy: BuiltinTrigger::new(&f.collector),
            heap_acc_gc: 0.0,
            occupancy: Vec::with_capacity(expect + expect / 8),
            gc_events: Vec::new(),
            pauses: Vec::new(),
            layout: f
                .record
                .layout
                .then(|| LayoutRecorder::with_capacity(expect)),
            trigger_counts: [0; Trigger::COUNT],
            scratch: gc::GcScratch::default(),
            needs_placement: false,
        }
    }

    fn time(&self) -> SimTime {
        SimTime(self.now * self.ns_per_cycle)
    }

    /// Free bytes of the dynamic heap — what KVM's `Runtime.freeMemory()` reports: garbage not yet collected is
    /// not free. `[bytes]`
    fn free_bytes(&self) -> u64 {
        self.perm_start
            .saturating_sub(self.live_bytes + self.dead_bytes)
    }

    fn sample(&mut self) {
        let t = self.time();
        let free = self.free_bytes();
        self.occupancy.push(OccupancySample {
            time: t,
            live_bytes: self.live_bytes,
            dead_bytes: self.dead_bytes,
            free_bytes: free,
        });
    }

    /// Start-up: the permanent space is written, powering its banks.
    fn start(&mut self) {
        let heap = self.sc.file().heap.size.0;
        if self.perm_start < heap {
            let stall = self
                .banks
                .wake_range(self.perm_start, heap - self.perm_start, self.now);
            self.now += stall;
            self.stall_cycles += stall;
        }
        self.sample();
    }

    fn mark_dead(&mut self, id: u32) {
        let t = self.time();
        let o = &mut self.objs[id as usize];
        if o.dead {
            return;
        }
        o.dead = true;
        self.live_bytes -= o.size();
        self.dead_bytes += o.size();
        self.dead_since_gc.push(id);
        if let Some(l) = self.layout.as_mut() {
            l.death(id, t);
        }
    }

    /// Deaths due at this request: lifetimes that have run out, and phase-scoped objects of ended phases.
    fn kill_due(&mut self, phase: usize) {
        while self.killed_phases < phase.min(self.phase_objs.len()) {
            let ids = std::mem::take(&mut self.phase_objs[self.killed_phases]);
            for id in ids {
                self.mark_dead(id);
            }
            self.killed_phases += 1;
        }
        let mut due = std::mem::take(&mut self.due);
        self.deaths.pop_due(self.alloc_index, &mut due);
        for id in due.drain(..) {
            self.mark_dead(id);
        }
        self.due = due;
    }

    /// Powered banks of the dynamic heap (those not wholly inside the permanent space). O(1): a bank holding
    /// permanent data is woken at start-up and never gated, so every gated bank is a dynamic one.
    fn powered_dynamic_banks(&self) -> usize {
        debug_assert_eq!(
            self.dyn_banks.saturating_sub(self.banks.gated_count()),
            (0..self.dyn_banks)
                .filter(|b| self.banks.state(*b) != BankState::Gated)
                .count(),
            "gated banks lie in the dynamic heap"
        );
        self.dyn_banks.saturating_sub(self.banks.gated_count())
    }

    /// One allocation; false when the heap cannot hold it even after a compacting collection.
    fn allocate(&mut self, d: &AllocDraw) -> bool {
        let size = d.size_bytes.saturating_add(self.align_mask) & !self.align_mask;
        if self.permanent_state && d.lifetime == Lifetime::Immortal {
            self.allocate_permanent(size);
            return true;
        }
        if size > self.perm_start {
            return false;
        }
        if matches!(d.lifetime, Lifetime::Cached(_)) {
            self.evict_if_short();
        }
        let place = if self.needs_placement {
            self.free.peek(size)
        } else {
            None
        };
        let activates = place.is_some_and(|a| self.banks.any_gated_in(a, size));
        let powered_after = match place {
            Some(a) if activates => self.powered_dynamic_banks() + self.banks.gated_in(a, size),
            _ => self.powered_dynamic_banks(),
        };
        self.offer_to_trigger(size, activates, powered_after);
        let addr = match self.free.allocate(size) {
            Some(a) => a,
            None => {
                self.collect(Trigger::Alloc, Some(size));
                match self.free.allocate(size) {
                    Some(a) => a,
                    None => return false,
                }
            }
        };
        let stall = self.banks.wake_range(addr, size, self.now);
        self.now += stall;
        self.stall_cycles += stall;
        let id = self.objs.len() as u32;
        self.objs.push(Obj::new(addr, size));
        self.maybe_resident.push(id);
        self.resident_objects += 1;
        for b in self.banks.spanned(addr, size) {
            self.bank_objects[b] += 1;
        }
        let t = self.time();
        if let Some(l) = self.layout.as_mut() {
            l.alloc(addr, size, t, d.site);
        }
        self.live_bytes += size;
        self.peak_live = self.peak_live.max(self.live_bytes);
        self.alloc_index += 1;
        self.bytes_since_gc += size;
        self.allocated_bytes += size;
        match d.lifetime {
            Lifetime::Allocations(n) => self.deaths.push(self.alloc_index + n, id),
            Lifetime::PhaseEnd(p) => {
                if p < self.killed_phases {
                    self.mark_dead(id);
                } else if let Some(v) = self.phase_objs.get_mut(p) {
                    v.push(id);
                }
            }
            Lifetime::Cached(n) => {
                self.deaths.push(self.alloc_index + n, id);
                self.cache.push_back(id);
            }
            Lifetime::Immortal => {}
        }
        self.sample();
        true
    }

    /// Shows the trigger the allocation of `size` bytes about to happen (whether it wakes a bank, and the dynamic
    /// banks powered after it) and runs the collection it asks for, if any.
    fn offer_to_trigger(&mut self, size: u64, activates: bool, powered_after: usize) {
        let req = AllocRequest {
            alloc_index: self.alloc_index,
            size_bytes: size,
            heap_bytes: self.live_bytes + self.dead_bytes,
            bytes_since_gc: self.bytes_since_gc,
            bank_size: self.bank_size,
            activates_bank: activates,
            powered_banks_after: powered_after as u64,
        };
        if let Some(tr) = self.policy.before_alloc(&req) {
            self.collect(tr, None);
        }
    }

    /// An immortal object under `live_state = "permanent"`: KVM puts it in the permanent space (reserved at
    /// start-up, always powered, never collected), so it takes no room in the dynamic heap and no bank is woken.
    /// It is still an allocation: the triggers see the request (a k-allocation count, a due forced collection).
    fn allocate_permanent(&mut self, size: u64) {
        self.offer_to_trigger(size, false, self.powered_dynamic_banks());
        self.alloc_index += 1;
        self.allocated_bytes += size;
        self.sample();
    }

    /// The program is about to insert a cache entry: with less than `cache_free_bytes` free (as KVM's
    /// `Runtime.freeMemory()` reports it — the free list; uncollected garbage is not free) it drops its oldest
    /// live entry first, which becomes garbage for the next collection.
    fn evict_if_short(&mut self) {
        if self.free_bytes() >= self.cache_free_bytes {
            return;
        }
        while let Some(id) = self.cache.pop_front() {
            if !self.objs[id as usize].dead {
                self.mark_dead(id);
                return;
            }
        }
    }
}
