//! The android-krait engine's heap accounting: placing allocated cohorts and large objects as pieces with
//! lifetimes drawn from the profile's Table 1 distribution (deaths happen as the allocation clock passes them),
//! occupancy samples, and the heap sizing after a collection (models.md §1.4, Eq. (1) or the source form of
//! [`super::heap_sizing`]; GenCMS §3.1; mechanism 5 of issue #16: what Dalvik measures after a GC).

use std::cmp::Reverse;

use super::config::SizingLive;
use super::heap_sizing::{SizingParams, limits_after_gc};
use super::layout::NO_PIECE;
use super::state::Sim;
use crate::run::OccupancySample;
use crate::units::SimTime;

impl Sim<'_> {
    /// Heap sizing after a collection (models.md §1.4; GenCMS §3.1).
    pub(super) fn resize_heap(&mut self, minor: bool) {
        let params = SizingParams::of(&self.cfg.heap, self.target_util, self.growth_limit);
        if minor {
            let soft = (self.allocated + self.young_room).min(self.growth_limit);
            self.soft_limit = soft;
            self.conc_start = (soft >= params.concurrent_min_limit_bytes)
                .then(|| soft - params.concurrent_start_delta_bytes);
            if self.allocated > self.major_soft_limit {
                self.next_major = true;
            }
            if let Some(m) = self.mspace.as_mut() {
                m.set_limit(soft);
            }
            return;
        }
        // Mechanism 5: Dalvik sizes from `bytesAllocated` after the sweep (survivors + floating garbage + what
        // was allocated during the cycle); the ablation sizes from the reachable bytes.
        let live = match self.cfg.heap.sizing_live {
            SizingLive::BytesAllocated => self.allocated,
            SizingLive::Reachable => self.heap_bytes(self.live).min(self.allocated),
        };
        let l = limits_after_gc(live, &params);
        self.soft_limit = l.soft_limit_bytes;
        if let Some(m) = self.mspace.as_mut() {
            m.set_limit(l.soft_limit_bytes);
        }
        self.conc_start = l.concurrent_start_bytes;
        self.major_soft_limit = l.soft_limit_bytes;
        self.young_room = l.soft_limit_bytes.saturating_sub(self.allocated);
        self.next_major = false;
    }

    /// What `n` requested bytes add to Dalvik's `bytesAllocated`: their dlmalloc chunks (`countAllocation`,
    /// dalvik/vm/alloc/HeapSource.cpp) under `android.heap.chunk_accounting`, else `n`.
    pub(super) fn heap_bytes(&self, n: u64) -> u64 {
        let h = &self.cfg.heap;
        if !h.chunk_accounting {
            return n;
        }
        let f = 1.0 + h.chunk_overhead_bytes / self.prof.mean_object_bytes();
        (n as f64 * f).round() as u64
    }

    /// The requested bytes whose chunks fill `heap` bytes of `bytesAllocated` (the inverse of
    /// [`Sim::heap_bytes`], rounded down).
    pub(super) fn request_bytes(&self, heap: u64) -> u64 {
        let h = &self.cfg.heap;
        if !h.chunk_accounting {
            return heap;
        }
        let f = 1.0 + h.chunk_overhead_bytes / self.prof.mean_object_bytes();
        (heap as f64 / f).floor() as u64
    }

    /// Allocates a cohort of `n` bytes: its pieces get lifetimes; the allocation clock moves; deaths happen.
    pub(super) fn place_cohort(&mut self, n: u64, site: u32) {
        let k = u64::from(self.cfg.engine.pieces_per_cohort).min(n.max(1));
        self.place_pieces(n, k, site);
    }

    /// Allocates one large object of `n` bytes: a single piece with one lifetime.
    pub(super) fn place_object(&mut self, n: u64, site: u32) {
        self.place_pieces(n, 1, site);
    }

    /// Allocates `n` bytes as `k` pieces, each with its own lifetime; the allocation clock moves; deaths happen.
    fn place_pieces(&mut self, n: u64, k: u64, site: u32) {
        let piece = n / k;
        for i in 0..k {
            let b = if i + 1 == k {
                n - piece * (k - 1)
            } else {
                piece
            };
            self.clock_bytes += b;
            let life = self.lifetimes.quantile(self.rng.next_f64());
            let death = if life.is_finite() {
                self.clock_bytes + life.round() as u64
            } else {
                u64::MAX
            };
            let piece = match self.layout.as_mut() {
                Some(l) => l.place(b, SimTime(self.now), site),
                None => NO_PIECE,
            };
            self.pieces.push(Reverse((death, b, self.epoch, piece)));
        }
        let heap = self.heap_bytes(n);
        self.allocated += heap;
        if let Some(m) = self.mspace.as_mut() {
            m.allocate(heap);
        }
        self.footprint = self.footprint.max(self.allocated);
        self.live += n;
        self.young_alloc += n;
        while let Some(Reverse((death, b, epoch, piece))) = self.pieces.peek().copied() {
            if death > self.clock_bytes {
                break;
            }
            self.pieces.pop();
            if let Some(l) = self.layout.as_mut() {
                l.died(piece, SimTime(self.now));
            }
            self.live -= b;
            self.dead += b;
            if epoch == self.epoch {
                self.dead_young += b;
                self.dead_pieces_young.push((b, piece));
            } else {
                self.dead_pieces_old.push((b, piece));
            }
        }
        self.peak_live = self.peak_live.max(self.live);
        self.live_clock_sum += self.live as f64 * n as f64;
        self.sample_occupancy();
    }

    pub(super) fn sample_occupancy(&mut self) {
        let used = self.heap_bytes(self.live + self.dead);
        self.occupancy.push(OccupancySample {
            time: SimTime(self.now),
            live_bytes: self.live,
            dead_bytes: self.dead,
            free_bytes: self.soft_limit.saturating_sub(used),
        });
    }
}
