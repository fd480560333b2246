//! KVM's compacting mark-sweep collector (JVM'02 §3.1), stop-the-world: mark from the roots (fixed root cost plus
//! per live object and byte), sweep every chunk of the dynamic heap (objects and free chunks) into a new
//! address-ordered free list, and — only when the collection was forced by an allocation whose size still
//! exceeds the largest free chunk — slide all live objects to the bottom of the heap. The permanent space is
//! neither marked, swept nor moved. After the collection every bank holding no live object (and no permanent
//! data) is supply-gated. Costs come from `[kvm.gc]`.

use super::KvmSim;
use crate::collector::{CollectionOutcome, Trigger};
use crate::heap::FreeList;
use crate::run::{GcEvent, Pause, PauseKind};

impl KvmSim<'_> {
    /// Runs one collection now. `need`: the size of the allocation that failed, if one did.
    pub(super) fn collect(&mut self, trigger: Trigger, need: Option<u64>) {
        let costs = self.sc.file().kvm.gc.clone();
        let start = self.time();
        let heap_before = self.live_bytes + self.dead_bytes;
        self.sample();

        // Objects allocated since the last collection join the address-ordered resident list.
        let mut fresh = std::mem::take(&mut self.fresh);
        fresh.sort_unstable_by_key(|id| self.objs[*id as usize].addr);
        let walked = self.resident.len() + fresh.len() + self.free.chunk_count();
        let mut survivors: Vec<u32> = Vec::with_capacity(self.resident.len() + fresh.len());
        let mut freed_ids: Vec<u32> = Vec::new();
        let mut freed_bytes = 0u64;
        {
            let (mut i, mut j) = (0, 0);
            let resident = std::mem::take(&mut self.resident);
            while i < resident.len() || j < fresh.len() {
                let take_resident = j >= fresh.len()
                    || (i < resident.len()
                        && self.objs[resident[i] as usize].addr
                            < self.objs[fresh[j] as usize].addr);
                let id = if take_resident {
                    i += 1;
                    resident[i - 1]
                } else {
                    j += 1;
                    fresh[j - 1]
                };
                let o = self.objs[id as usize];
                if o.dead {
                    freed_bytes += o.size;
                    freed_ids.push(id);
                } else {
                    survivors.push(id);
                }
            }
        }
        let live_objects = survivors.len() as u64;
        let mut cycles = costs.root_scan_cycles
            + costs.mark_cycles_per_object * live_objects
            + (costs.mark_cycles_per_byte * self.live_bytes as f64).round() as u64
            + costs.sweep_cycles_per_chunk * walked as u64;
        self.heap_acc_gc += costs.mark_accesses_per_object * live_objects as f64
            + costs.mark_accesses_per_byte * self.live_bytes as f64
            + costs.sweep_accesses_per_chunk * walked as f64;

        // Sweep: the gaps between survivors become the free list.
        let mut chunks = Vec::with_capacity(survivors.len() + 1);
        let mut cursor = 0u64;
        for id in &survivors {
            let o = self.objs[*id as usize];
            if o.addr > cursor {
                chunks.push((cursor, o.addr - cursor));
            }
            cursor = o.addr + o.size;
        }
        if self.perm_start > cursor {
            chunks.push((cursor, self.perm_start - cursor));
        }
        self.free = FreeList::from_chunks(chunks);

        // Compaction, only when the failed allocation still does not fit (§3.1, occasion (i)).
        let mut moved: Vec<(u32, u64)> = Vec::new();
        let mut moved_bytes = 0u64;
        let mut stall = 0u64;
        if need.is_some_and(|s| self.free.largest() < s) {
            let mut to = 0u64;
            for id in &survivors {
                let o = &mut self.objs[*id as usize];
                if o.addr != to {
                    moved_bytes += o.size;
                    o.addr = to;
                    moved.push((*id, to));
                }
                to += o.size;
            }
            cycles += costs.compact_cycles_per_object * moved.len() as u64
                + (costs.compact_cycles_per_byte * moved_bytes as f64).round() as u64;
            self.heap_acc_gc += costs.compact_accesses_per_byte * moved_bytes as f64;
            self.free = FreeList::from_chunks([(to, self.perm_start - to)]);
            // Sliding writes into every bank below the new top: gated ones must wake first.
            stall = self.banks.wake_range(0, to, self.now);
        }
        self.now += cycles + stall;
        self.gc_cycles += cycles;
        self.stall_cycles += stall;
        let end = self.time();

        // Reclaim, then gate every bank without live or permanent data.
        for id in &freed_ids {
            if let Some(l) = self.layout.as_mut() {
                l.freed(*id, end);
            }
        }
        for (id, addr) in &moved {
            if let Some(l) = self.layout.as_mut() {
                l.moved(*id, end, *addr);
            }
        }
        self.dead_bytes = 0;
        let mut occupied = vec![false; self.banks.count()];
        for id in &survivors {
            let o = self.objs[*id as usize];
            occupied[self.banks.bank_of(o.addr)..=self.banks.bank_of(o.addr + o.size - 1)]
                .fill(true);
        }
        let heap = self.sc.file().heap.size.0;
        if self.perm_start < heap {
            occupied[self.banks.bank_of(self.perm_start)..=self.banks.bank_of(heap - 1)].fill(true);
        }
        self.banks.gate_unoccupied(&occupied, self.now);
        self.resident = survivors;

        *self
            .triggers
            .entry(trigger.summary_key().to_string())
            .or_insert(0) += 1;
        self.gc_events.push(GcEvent {
            start,
            end,
            trigger,
            alloc_index: self.alloc_index,
            heap_bytes_before: heap_before,
            live_bytes_after: self.live_bytes,
            freed_bytes,
            moved_bytes,
            live_objects,
            work_cycles: cycles,
            stall_cycles: stall,
            powered_banks_after: self.banks.powered() as u32,
        });
        self.pauses.push(Pause {
            mutator: 0,
            start,
            end,
            kind: PauseKind::Safepoint,
        });
        self.policy.after_collection(&CollectionOutcome {
            alloc_index: self.alloc_index,
            heap_bytes_before: heap_before,
            live_bytes_after: self.live_bytes,
            trigger,
        });
        self.bytes_since_gc = 0;
        self.sample();
        if let Some(l) = self.layout.as_mut() {
            let resident = &self.resident;
            l.maybe_keyframe(end, || resident.clone());
        }
    }
}
