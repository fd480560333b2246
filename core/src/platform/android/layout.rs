//! The android-krait heap map: where each cohort piece lies in the Dalvik heap's address space, for the app's
//! layout replay (issue #3 item 14: the heap layout must come out of the cohort-level simulation).
//!
//! Dalvik's mark-sweep is non-moving over one dlmalloc space (models.md §1): a piece is placed first-fit in the
//! address range `[0, growth limit)` ([`FreeList`], the kvm-soc allocator) and stays where it is until the sweep
//! that reclaims it returns its range. A piece is a group of objects, so when no single free chunk holds it the
//! piece is split over the lowest chunks — no fragmentation failure is invented that the byte accounting of the
//! engine does not have. Placement granularity is the piece (a cohort of `engine.cohort_bytes` split in
//! `engine.pieces_per_cohort`), not dlmalloc's per-object bins.
//!
//! The map only observes — every result is the same with it on or off — except for **large objects**
//! (`[android.large_objects]`): one object must lie in one free range, below dlmalloc's footprint limit. The map
//! answers [`AndroidLayout::fits_whole`] for them, which is Dalvik's "frag case" (a request fails with enough free
//! bytes but no chunk to hold it; the TODO in `tryMalloc`, dalvik/vm/alloc/Heap.cpp, names it). With large objects
//! the engine keeps the map even when `record.layout` is off.

use crate::heap::FreeList;
use crate::run::{HeapLayout, LayoutRecorder};
use crate::units::SimTime;

/// No layout piece (the map is off).
pub(super) const NO_PIECE: u64 = u64::MAX;

/// The heap map of one run.
#[derive(Debug)]
pub(super) struct AndroidLayout {
    rec: LayoutRecorder,
    free: FreeList,
    /// Per piece: its first layout id and how many parts it was placed in.
    parts: Vec<(u32, u32)>,
    /// Per layout id: (address, bytes, reclaimed).
    spans: Vec<(u64, u64, bool)>,
    /// Layout ids that may be resident (filtered when a keyframe is taken).
    maybe_resident: Vec<u32>,
    /// Ranges the sweep has reclaimed but not yet returned to `free` ([`AndroidLayout::settle_free`]).
    freed: Vec<(u64, u64)>,
    /// dlmalloc's footprint: the highest address placed since the last trim. `[bytes]`
    footprint: u64,
    /// The address range's end (the growth limit). `[bytes]`
    heap_bytes: u64,
}

impl AndroidLayout {
    /// An empty heap of `heap_bytes` with `initial_live` bytes of live data at its bottom (present before the
    /// run, never freed), recorded by `rec`.
    pub(super) fn new(heap_bytes: u64, initial_live: u64, rec: LayoutRecorder) -> Self {
        let mut l = AndroidLayout {
            rec,
            free: FreeList::from_chunks([(0, heap_bytes)]),
            parts: Vec::new(),
            spans: Vec::new(),
            maybe_resident: Vec::new(),
            freed: Vec::new(),
            footprint: 0,
            heap_bytes,
        };
        if initial_live > 0 {
            l.place(initial_live, SimTime(0), u32::MAX);
        }
        l
    }

    /// Returns the reclaimed ranges to the free list: once before the list is next read, not once per sweep
    /// buffer — a concurrent sweep reclaims hundreds of buffers between two allocations, and every return merges
    /// the whole list. The result is the same: the list is always the maximal chunks of the free address set
    /// (allocation only shrinks a chunk from its start, a return coalesces neighbours), so returning several
    /// disjoint batches one by one or at once leaves the same chunks.
    fn settle_free(&mut self) {
        if self.freed.is_empty() {
            return;
        }
        self.freed.sort_unstable_by_key(|f| f.0);
        self.free.free_sorted(&self.freed);
        self.freed.clear();
    }

    /// Places a piece of `bytes` at `t` for allocating thread `site`; returns its piece index.
    pub(super) fn place(&mut self, bytes: u64, t: SimTime, site: u32) -> u64 {
        self.settle_free();
        let first = self.spans.len() as u32;
        let mut left = bytes;
        while left > 0 {
            // First fit for the whole rest, else the largest chunk available (split over chunks).
            let take = if self.free.peek(left).is_some() {
                left
            } else {
                self.free.largest().min(left)
            };
            let Some(addr) = (take > 0).then(|| self.free.allocate(take)).flatten() else {
                // The accounting never exceeds the growth limit; should the map run out, the rest goes unmapped.
                break;
            };
            self.footprint = self.footprint.max(addr + take);
            let id = self.rec.alloc(addr, take, t, site);
            self.spans.push((addr, take, false));
            self.maybe_resident.push(id);
            left -= take;
        }
        let idx = self.parts.len() as u64;
        self.parts.push((first, self.spans.len() as u32 - first));
        idx
    }

    /// Whether one object of `bytes` fits in a single free range below dlmalloc's footprint limit, which is the
    /// soft limit when that is at or above the footprint and the footprint otherwise (Dalvik 4.4 `setSoftLimit`:
    /// a heap sized below its footprint may not grow past it; models.md §1.2–§1.4). First fit takes the lowest
    /// range that holds the object, so if that one ends past the limit every other does too.
    pub(super) fn fits_whole(&mut self, bytes: u64, soft_limit_bytes: u64) -> bool {
        self.settle_free();
        let limit = soft_limit_bytes.max(self.footprint);
        self.free.peek(bytes).is_some_and(|a| a + bytes <= limit)
    }

    /// The daemon's trim (`mspace_trim`): the footprint drops to the end of the highest piece in place.
    pub(super) fn trim(&mut self) {
        self.settle_free();
        let top = self
            .free
            .chunks()
            .last()
            .filter(|(start, len)| start + len >= self.heap_bytes)
            .map_or(self.heap_bytes, |(start, _)| start);
        self.footprint = top;
    }

    fn ids(&self, piece: u64) -> std::ops::Range<u32> {
        let (first, n) = self.parts.get(piece as usize).copied().unwrap_or((0, 0));
        first..first + n
    }

    /// Piece `piece` became unreachable at `t` (it stays in place until a sweep reclaims it; the engine keeps
    /// which collection that is).
    pub(super) fn died(&mut self, piece: u64, t: SimTime) {
        if piece == NO_PIECE {
            return;
        }
        for id in self.ids(piece) {
            self.rec.death(id, t);
        }
    }

    /// A sweep batch at `t` frees these pieces: they return their ranges (before the free list is next read);
    /// a keyframe when one is due.
    pub(super) fn reclaim(&mut self, pieces: impl Iterator<Item = u64>, t: SimTime) {
        for p in pieces {
            for id in self.ids(p) {
                let s = &mut self.spans[id as usize];
                if !s.2 {
                    s.2 = true;
                    self.freed.push((s.0, s.1));
                    self.rec.freed(id, t);
                }
            }
        }
        if self.rec.wants_keyframe() {
            let spans = &self.spans;
            self.maybe_resident.retain(|id| !spans[*id as usize].2);
            self.rec.keyframe(t, self.maybe_resident.clone());
        }
    }

    /// The highest end address of any piece placed. `[bytes]`
    pub(super) fn top(&self) -> Option<u64> {
        self.spans.iter().map(|s| s.0 + s.1).max()
    }

    /// The recorded map.
    pub(super) fn finish(self) -> HeapLayout {
        self.rec.finish()
    }
}
