//! KVM's compacting mark-sweep collector (JVM'02 §3.1), stop-the-world: mark from the roots (fixed root cost plus
//! per live object and byte), sweep every chunk of the dynamic heap (objects and free chunks) into a new
//! address-ordered free list, and — only when the collection was forced by an allocation whose size still
//! exceeds the largest free chunk — slide all live objects to the bottom of the heap. The permanent space is
//! neither marked, swept nor moved. After the collection every bank holding no live object (and no permanent
//! data) is supply-gated. Costs come from `[kvm.gc]`.
//!
//! The simulation charges the collector for every object and chunk it would visit, but computes the outcome
//! incrementally: the free space after a sweep is the old free chunks plus the objects that died since the last
//! collection, coalesced; live counts and per-bank occupancy are kept as objects come and go. A run with
//! thousands of collections thus costs O(dead objects + free chunks) per collection, not O(live objects).

use super::KvmSim;
use crate::collector::{CollectionOutcome, Trigger, TriggerPolicy};
use crate::run::{GcEvent, Pause, PauseKind};

/// Buffers a collection reuses from one collection to the next (a run may collect thousands of times).
#[derive(Debug, Default)]
pub(super) struct GcScratch {
    freed: Vec<(u64, u64)>,
    /// The freed ranges as `addr << 32 | (size − 1)` (addresses and sizes fit 32 bits: heap.size ≤ 4 GiB), so
    /// that address order is the order of one `u64` — sorting those is about twice as fast as sorting pairs.
    freed_keys: Vec<u64>,
    /// The radix sort's second buffer.
    radix_tmp: Vec<u64>,
    survivors: Vec<u32>,
    moved: Vec<(u32, u64)>,
    occupied: Vec<bool>,
}

/// Sorts packed `addr << 32 | (size − 1)` keys by address (addresses are distinct). Few keys: a comparison sort;
/// many (a base collector's sweep frees thousands): an LSD radix sort over the address bits above the alignment,
/// 8 bits a pass — O(n) instead of O(n log n) and free of the comparison sort's branch mispredictions.
fn sort_by_address(keys: &mut Vec<u64>, tmp: &mut Vec<u64>, align_shift: u32, addr_bits: u32) {
    if keys.len() < 256 {
        keys.sort_unstable();
        return;
    }
    let mut shift = 32 + align_shift;
    tmp.clear();
    tmp.resize(keys.len(), 0);
    let end = (32 + addr_bits.max(align_shift + 1)).min(u64::BITS);
    while shift < end {
        let mut count = [0usize; 257];
        for k in keys.iter() {
            count[((k >> shift) & 0xff) as usize + 1] += 1;
        }
        for b in 1..257 {
            count[b] += count[b - 1];
        }
        for k in keys.iter() {
            let b = ((k >> shift) & 0xff) as usize;
            tmp[count[b]] = *k;
            count[b] += 1;
        }
        std::mem::swap(keys, tmp);
        shift += 8;
    }
}

impl KvmSim<'_> {
    /// Runs one collection now. `need`: the size of the allocation that failed, if one did.
    pub(super) fn collect(&mut self, trigger: Trigger, need: Option<u64>) {
        let costs = &self.sc.file().kvm.gc;
        let start = self.time();
        let heap_before = self.live_bytes + self.dead_bytes;
        self.sample();
        let mut s = std::mem::take(&mut self.scratch);

        // The work a mark-sweep does: mark the live objects, walk every object and free chunk.
        let dead = std::mem::take(&mut self.dead_since_gc);
        let live_objects = self.resident_objects - dead.len() as u64;
        let walked = self.resident_objects + self.free.chunk_count() as u64;
        let mut cycles = costs.root_scan_cycles
            + costs.mark_cycles_per_object * live_objects
            + (costs.mark_cycles_per_byte * self.live_bytes as f64).round() as u64
            + costs.sweep_cycles_per_chunk * walked;
        self.heap_acc_gc += costs.mark_accesses_per_object * live_objects as f64
            + costs.mark_accesses_per_byte * self.live_bytes as f64
            + costs.sweep_accesses_per_chunk * walked as f64;

        // Its outcome: the dead objects' space joins the free list.
        s.freed_keys.clear();
        let mut freed_bytes = 0u64;
        for id in &dead {
            let o = &mut self.objs[*id as usize];
            o.freed = true;
            freed_bytes += o.size();
            s.freed_keys.push(o.addr() << 32 | u64::from(o.size_m1));
            for b in self.banks.spanned(o.addr(), o.size()) {
                self.bank_objects[b] -= 1;
            }
        }
        self.resident_objects = live_objects;
        let align_shift = self.sc.file().heap.alignment.trailing_zeros();
        sort_by_address(
            &mut s.freed_keys,
            &mut s.radix_tmp,
            align_shift,
            u64::BITS - self.perm_start.leading_zeros(),
        );
        s.freed.clear();
        s.freed.extend(
            s.freed_keys
                .iter()
                .map(|k| (k >> 32, (k & 0xffff_ffff) + 1)),
        );
        self.free.free_sorted(&s.freed);

        // Compaction, only when the failed allocation still does not fit (§3.1, occasion (i)).
        let mut moved_bytes = 0u64;
        let mut stall = 0u64;
        s.moved.clear();
        if need.is_some_and(|size| self.free.largest() < size) {
            self.refresh_resident();
            s.survivors.clear();
            s.survivors.extend_from_slice(&self.maybe_resident);
            let objs = &self.objs;
            s.survivors
                .sort_unstable_by_key(|id| objs[*id as usize].addr32);
            self.bank_objects.fill(0);
            let mut to = 0u64;
            for id in &s.survivors {
                let o = &mut self.objs[*id as usize];
                if o.addr() != to {
                    moved_bytes += o.size();
                    o.set_addr(to);
                    s.moved.push((*id, to));
                }
                for b in self.banks.spanned(to, o.size()) {
                    self.bank_objects[b] += 1;
                }
                to += o.size();
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
            for id in &dead {
                l.freed(*id, end);
            }
            for (id, addr) in &s.moved {
                l.moved(*id, end, *addr);
            }
        }
        self.dead_bytes = 0;
        self.dead_since_gc = dead;
        self.dead_since_gc.clear();

        // Gate every bank that holds neither a survivor nor permanent data.
        let heap = self.sc.file().heap.size.0;
        let perm_bank = if self.perm_start < heap {
            self.banks.bank_of(self.perm_start)
        } else {
            usize::MAX
        };
        s.occupied.clear();
        s.occupied.extend(
            self.bank_objects
                .iter()
                .enumerate()
                .map(|(b, n)| *n > 0 || b >= perm_bank),
        );
        self.banks.gate_unoccupied(&s.occupied, self.now);

        self.trigger_counts[trigger as usize] += 1;
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
        if self.layout.as_ref().is_some_and(|l| l.wants_keyframe()) {
            self.refresh_resident();
            if let Some(l) = self.layout.as_mut() {
                l.keyframe(end, self.maybe_resident.clone());
            }
        }
        self.scratch = s;
    }

    /// Drops freed ids from `maybe_resident` (amortised: each id is dropped once).
    fn refresh_resident(&mut self) {
        let objs = &self.objs;
        self.maybe_resident.retain(|id| !objs[*id as usize].freed);
    }
}

#[cfg(test)]
mod tests {
    use super::sort_by_address;
    use crate::rng::SimRng;

    /// The radix path orders exactly as a comparison sort, for every alignment and heap size it meets.
    #[test]
    fn radix_sort_by_address_equals_a_comparison_sort() {
        let mut rng = SimRng::new(11);
        let mut tmp = Vec::new();
        for (align_shift, heap_bits) in [(0, 12), (3, 17), (3, 20), (6, 32), (0, 33)] {
            for n in [0usize, 1, 255, 256, 3000] {
                // Distinct aligned addresses below 2^heap_bits, random sizes.
                let slots = (1u64 << (heap_bits - align_shift)).min(1 << 24);
                let mut addrs: Vec<u64> = (0..n as u64 * 3)
                    .map(|_| rng.range_inclusive(0, slots - 1) << align_shift)
                    .collect();
                addrs.sort_unstable();
                addrs.dedup();
                addrs.truncate(n);
                let mut keys: Vec<u64> = addrs
                    .iter()
                    .map(|a| a << 32 | rng.range_inclusive(0, 4095))
                    .collect();
                // Shuffle (Fisher–Yates) so the input is in no particular order.
                for i in (1..keys.len()).rev() {
                    keys.swap(i, rng.range_inclusive(0, i as u64) as usize);
                }
                let mut want = keys.clone();
                want.sort_unstable();
                sort_by_address(&mut keys, &mut tmp, align_shift, heap_bits);
                assert_eq!(
                    keys, want,
                    "align 2^{align_shift}, heap 2^{heap_bits}, {n} keys"
                );
            }
        }
    }
}
