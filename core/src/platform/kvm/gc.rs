//! KVM's compacting mark-sweep collector (JVM'02 §3.1), stop-the-world: mark from the roots (fixed root cost plus
//! per live object and byte), sweep every chunk of the dynamic heap (objects and free chunks) into a new
//! address-ordered free list, and — only when the collection was forced by an allocation whose size still
//! exceeds the largest free chunk — slide all live objects to the bottom of the heap. The permanent space is
//! neither marked, swept nor moved. After the collection every bank holding no live object (and no permanent
//! data) is supply-gated. Costs come from `[kvm.gc]`.

use super::KvmSim;
use crate::collector::{CollectionOutcome, Trigger};
use crate::run::{GcEvent, Pause, PauseKind};

/// Buffers a collection reuses from one collection to the next (a run may collect thousands of times).
#[derive(Debug, Default)]
pub(super) struct GcScratch {
    survivors: Vec<u32>,
    freed: Vec<u32>,
    chunks: Vec<(u64, u64)>,
    moved: Vec<(u32, u64)>,
    occupied: Vec<bool>,
}

impl KvmSim<'_> {
    /// Runs one collection now. `need`: the size of the allocation that failed, if one did.
    pub(super) fn collect(&mut self, trigger: Trigger, need: Option<u64>) {
        let costs = &self.sc.file().kvm.gc;
        let start = self.time();
        let heap_before = self.live_bytes + self.dead_bytes;
        self.sample();
        let mut s = std::mem::take(&mut self.scratch);
        s.survivors.clear();
        s.freed.clear();
        s.chunks.clear();
        s.moved.clear();

        // Mark and sweep in one address-ordered pass over the resident objects and those allocated since the
        // last collection (merged), building the new free list from the gaps between survivors.
        let objs = &self.objs;
        self.fresh
            .sort_unstable_by_key(|id| objs[*id as usize].addr);
        let walked = self.resident.len() + self.fresh.len() + self.free.chunk_count();
        let mut freed_bytes = 0u64;
        let mut cursor = 0u64;
        {
            let (resident, fresh) = (&self.resident, &self.fresh);
            let (mut i, mut j) = (0, 0);
            while i < resident.len() || j < fresh.len() {
                let take_resident = j >= fresh.len()
                    || (i < resident.len()
                        && objs[resident[i] as usize].addr < objs[fresh[j] as usize].addr);
                let id = if take_resident {
                    i += 1;
                    resident[i - 1]
                } else {
                    j += 1;
                    fresh[j - 1]
                };
                let o = objs[id as usize];
                if o.dead {
                    freed_bytes += o.size;
                    s.freed.push(id);
                } else {
                    if o.addr > cursor {
                        s.chunks.push((cursor, o.addr - cursor));
                    }
                    cursor = o.addr + o.size;
                    s.survivors.push(id);
                }
            }
        }
        if self.perm_start > cursor {
            s.chunks.push((cursor, self.perm_start - cursor));
        }
        self.fresh.clear();
        self.free.rebuild(s.chunks.iter().copied());
        let live_objects = s.survivors.len() as u64;
        let mut cycles = costs.root_scan_cycles
            + costs.mark_cycles_per_object * live_objects
            + (costs.mark_cycles_per_byte * self.live_bytes as f64).round() as u64
            + costs.sweep_cycles_per_chunk * walked as u64;
        self.heap_acc_gc += costs.mark_accesses_per_object * live_objects as f64
            + costs.mark_accesses_per_byte * self.live_bytes as f64
            + costs.sweep_accesses_per_chunk * walked as f64;

        // Compaction, only when the failed allocation still does not fit (§3.1, occasion (i)).
        let mut moved_bytes = 0u64;
        let mut stall = 0u64;
        if need.is_some_and(|size| self.free.largest() < size) {
            let mut to = 0u64;
            for id in &s.survivors {
                let o = &mut self.objs[*id as usize];
                if o.addr != to {
                    moved_bytes += o.size;
                    o.addr = to;
                    s.moved.push((*id, to));
                }
                to += o.size;
            }
            cycles += costs.compact_cycles_per_object * s.moved.len() as u64
                + (costs.compact_cycles_per_byte * moved_bytes as f64).round() as u64;
            self.heap_acc_gc += costs.compact_accesses_per_byte * moved_bytes as f64;
            self.free.rebuild([(to, self.perm_start - to)]);
            // Sliding writes into every bank below the new top: gated ones must wake first.
            stall = self.banks.wake_range(0, to, self.now);
        }
        self.now += cycles + stall;
        self.gc_cycles += cycles;
        self.stall_cycles += stall;
        let end = self.time();

        if let Some(l) = self.layout.as_mut() {
            for id in &s.freed {
                l.freed(*id, end);
            }
            for (id, addr) in &s.moved {
                l.moved(*id, end, *addr);
            }
        }
        self.dead_bytes = 0;

        // Gate every bank that holds neither a survivor nor permanent data.
        s.occupied.clear();
        s.occupied.resize(self.banks.count(), false);
        for id in &s.survivors {
            let o = self.objs[*id as usize];
            s.occupied[self.banks.bank_of(o.addr)..=self.banks.bank_of(o.addr + o.size - 1)]
                .fill(true);
        }
        let heap = self.sc.file().heap.size.0;
        if self.perm_start < heap {
            s.occupied[self.banks.bank_of(self.perm_start)..=self.banks.bank_of(heap - 1)]
                .fill(true);
        }
        self.banks.gate_unoccupied(&s.occupied, self.now);
        std::mem::swap(&mut self.resident, &mut s.survivors);

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
        self.scratch = s;
    }
}
