//! Dalvik's dlmalloc space as free-space bytes (`android.heap.footprint_limit`, issue #16 mechanism 3): where a
//! request can find room below the footprint limit, so that an allocation can **fail with bytes free** — §2.1's
//! GC-ALLOC "when allocation fails" below the soft limit, the "frag case" of `tryMalloc`'s TODO
//! (dalvik/vm/alloc/Heap.cpp).
//!
//! What the source does [P: Dalvik android-4.3_r1 vm/alloc/HeapSource.cpp; dlmalloc 2.8.x malloc.c]:
//! * `setSoftLimit` (run by every re-size): when the new soft limit is below the mspace's current footprint,
//!   the footprint is frozen (`mspace_set_footprint_limit(msp, currentHeapSize)`) and `bytesAllocated` is held
//!   to the soft limit; otherwise the *footprint* may grow to the soft limit and the soft limit is lifted
//!   (`hs->softLimit = SIZE_MAX`). The footprint limit is therefore `max(target, footprint)`.
//! * `concurrentStartBytes` is the limit minus CONCURRENT_START (128 KiB) compared with `bytesAllocated`
//!   (`getAllocLimit`), but the mspace fails a request when no free chunk holds it and the top chunk cannot
//!   grow past the footprint limit. Free bytes below the footprint that no request uses therefore bring the
//!   failure *before* the concurrent trigger: with more than 128 KiB of them, no GC-CONC was signalled and the
//!   mutator collects in the foreground.
//! * dlmalloc serves a small request (< 256 B, MIN_LARGE_SIZE) from a small bin, the designated victim or a
//!   larger free chunk before the top chunk, and a large one from the tree bins (best fit) before the top; a
//!   sweep's frees (`mspace_bulk_free`) coalesce adjacent dead objects into holes.
//!
//! The state is bytes, not addresses: the footprint `F`, the top chunk `C`, and the free holes below it, with
//! `allocated + B + S + U + C = F`:
//! * `B`, **runs**: holes left by objects that were allocated from the top chunk one after another and died
//!   together (the engine's lifetimes are per piece of `engine.cohort_bytes / pieces_per_cohort` consecutive
//!   bytes), large enough for any request of the object-size tail;
//! * `S`, **scattered** holes: left by objects that had been placed in earlier holes, between live objects —
//!   as small as the objects, usable by small requests only;
//! * `U`, **fragments**: the share `frag_share` of the scattered free bytes, after each collection, in chunks no
//!   later request fits.
//!
//! A request's bytes split into small objects (scattered holes first — dlmalloc's small bins and designated
//! victim —, then runs, then the top) and the tail, a share `tail_share` of the bytes in objects of 256 B or more
//! (dlmalloc's tree bins: runs, then the top). A sweep's frees become runs for the tail's own garbage (a dead
//! array leaves a hole its size), for the small garbage that came from the top chunk during the collected epoch,
//! and for the small garbage whose dead neighbours coalesce with it into 256 B or more (`dlmalloc`'s
//! coalescing in `mspace_bulk_free`): with the collection's dead share `d` and independent deaths, runs of dead
//! objects are geometric, and the byte share in runs of at least `k` objects is `d^(k−1)·(k(1 − d) + d)`, `k` =
//! ⌈256 B / mean object⌉. The rest become scattered holes.

/// The mspace's free space. All sizes in bytes of `bytesAllocated` (chunks, as the engine counts them).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Mspace {
    /// dlmalloc's footprint: the extent of the space (in use + free chunks + top chunk). `[bytes]`
    pub(super) footprint: u64,
    /// `mspace_footprint_limit`: the footprint may not grow past it. `[bytes]`
    pub(super) footprint_limit: u64,
    /// The top chunk: free at the end of the space. `[bytes]`
    pub(super) top: u64,
    /// Free runs any request fits. `[bytes]`
    pub(super) runs: u64,
    /// Free scattered holes only small requests fit. `[bytes]`
    pub(super) scattered: u64,
    /// Free holes no request fits (fragmentation). `[bytes]`
    pub(super) frag: u64,
    /// Share of a request's bytes in tail objects (runs or the top only).
    pub(super) tail_share: f64,
    /// Bytes placed since the last collection's snapshot, and how many of them came from the top chunk.
    epoch_bytes: u64,
    epoch_top_bytes: u64,
    /// The collected epoch's share of bytes placed from the top chunk.
    run_share: f64,
    /// The share of the running collection's frees that become runs (set at its snapshot).
    free_run_share: f64,
}

impl Mspace {
    /// A space holding `live` bytes contiguously, the footprint allowed to grow to `limit`; `tail_share` of every
    /// request's bytes in tail objects.
    pub(super) fn new(live: u64, limit: u64, tail_share: f64) -> Mspace {
        Mspace {
            footprint: live,
            footprint_limit: limit.max(live),
            top: 0,
            runs: 0,
            scattered: 0,
            frag: 0,
            tail_share: tail_share.clamp(0.0, 1.0),
            epoch_bytes: 0,
            epoch_top_bytes: 0,
            run_share: 1.0,
            free_run_share: 1.0,
        }
    }

    /// Room for the top-chunk part of requests: the top chunk plus what the footprint may still grow. `[bytes]`
    fn top_room(&self) -> u64 {
        self.top + self.footprint_limit.saturating_sub(self.footprint)
    }

    /// Where `p` bytes of requests go: (from scattered holes, from runs, from the top).
    fn split(&self, p: u64) -> (u64, u64, u64) {
        let tail = (self.tail_share * p as f64).round() as u64;
        let small = p - tail;
        let from_scattered = small.min(self.scattered);
        let to_runs = small - from_scattered + tail;
        let from_runs = to_runs.min(self.runs);
        (from_scattered, from_runs, to_runs - from_runs)
    }

    /// The largest prefix of a request of `need` bytes the space can place. `[bytes]`
    pub(super) fn fit_prefix(&self, need: u64) -> u64 {
        if self.fits(need) {
            return need;
        }
        // Runs and top serve τ·p while the scattered holes last ((1 − τ)·p ≤ S), then every byte.
        let (k, s, tau) = (
            (self.runs + self.top_room()) as f64,
            self.scattered as f64,
            self.tail_share,
        );
        let p = if tau > 0.0 && tau * s / (1.0 - tau).max(1e-9) >= k {
            k / tau
        } else {
            k + s
        };
        (p.floor().max(0.0) as u64).min(need)
    }

    /// Whether the whole request fits.
    pub(super) fn fits(&self, need: u64) -> bool {
        self.split(need).2 <= self.top_room()
    }

    /// Places `n` bytes (holes, runs, then the top chunk, growing the footprint — past the limit only after
    /// [`Mspace::grow_for`]).
    pub(super) fn allocate(&mut self, n: u64) {
        let (s, r, t) = self.split(n);
        self.scattered -= s;
        self.runs -= r;
        if t <= self.top {
            self.top -= t;
        } else {
            self.footprint += t - self.top;
            self.top = 0;
        }
        self.epoch_bytes += n;
        self.epoch_top_bytes += t;
    }

    /// `dvmHeapSourceAllocAndGrow`: the footprint limit rises (to the growth limit in Dalvik) for one request;
    /// afterwards the ideal size is the new footprint.
    pub(super) fn grow_for(&mut self, need: u64) {
        let t = self.split(need).2;
        let extent = self.footprint + t.saturating_sub(self.top);
        self.footprint_limit = self.footprint_limit.max(extent);
    }

    /// The collection's snapshot: the garbage it frees was placed during the epoch that ends here; `dead_share`
    /// of the collected bytes are garbage, in objects of `mean_object_bytes`.
    pub(super) fn snapshot(&mut self, dead_share: f64, mean_object_bytes: f64) {
        if self.epoch_bytes > 0 {
            self.run_share = self.epoch_top_bytes as f64 / self.epoch_bytes as f64;
        }
        self.epoch_bytes = 0;
        self.epoch_top_bytes = 0;
        let k = (256.0 / mean_object_bytes.max(1.0)).ceil().max(1.0);
        let d = dead_share.clamp(0.0, 1.0);
        let coalesced = d.powf(k - 1.0) * (k * (1.0 - d) + d);
        let small = self.run_share + (1.0 - self.run_share) * coalesced;
        self.free_run_share = self.tail_share + (1.0 - self.tail_share) * small;
    }

    /// A sweep batch frees `bytes`: runs and scattered holes in the shares set at the snapshot; small requests
    /// reuse them at once.
    pub(super) fn free(&mut self, bytes: u64) {
        let runs = (bytes as f64 * self.free_run_share).round() as u64;
        self.runs += runs.min(bytes);
        self.scattered += bytes - runs.min(bytes);
    }

    /// After a collection's sweep: the scattered free bytes (old fragments coalesce with new neighbours) split
    /// into usable holes and the fragmentation share `frag_share`.
    pub(super) fn settle(&mut self, frag_share: f64) {
        let interior = self.scattered + self.frag;
        self.frag = (interior as f64 * frag_share.clamp(0.0, 1.0)).round() as u64;
        self.scattered = interior - self.frag;
    }

    /// `setSoftLimit(target)`: the footprint may grow to the target when it is above the footprint; else the
    /// footprint is frozen where it is.
    pub(super) fn set_limit(&mut self, target: u64) {
        self.footprint_limit = target.max(self.footprint);
    }

    /// `mspace_trim`: the top chunk goes back to the OS.
    pub(super) fn trim(&mut self) {
        self.footprint -= self.top;
        self.top = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_request_fails_with_scattered_holes_free_when_runs_and_top_are_used_up() {
        let mut m = Mspace::new(1000, 1000, 0.5);
        m.free_run_share = 0.0;
        m.free(500);
        m.settle(0.0);
        assert_eq!((m.scattered, m.runs), (500, 0));
        // No runs, no top room: the tail half of any request fails.
        assert_eq!(m.fit_prefix(400), 0);
        m.set_limit(1100);
        // 100 B of top: 200 B of requests (100 small in holes, 100 tail in the top).
        assert_eq!(m.fit_prefix(400), 200);
        m.allocate(200);
        assert_eq!((m.scattered, m.top, m.footprint), (400, 0, 1100));
        assert!(!m.fits(2), "400 B free in holes, yet the tail fails");
        m.grow_for(400);
        assert!(m.fits(400), "dvmHeapSourceAllocAndGrow lifts the limit for it");
    }

    #[test]
    fn garbage_placed_from_the_top_frees_runs_and_fragments_hold_bytes_back() {
        let mut m = Mspace::new(0, 1000, 0.0);
        m.allocate(1000);
        m.snapshot(0.0, 40.0);
        m.free(600);
        assert_eq!((m.runs, m.scattered), (600, 0), "all of it came from the top");
        m.allocate(600);
        m.snapshot(0.0, 40.0);
        m.free(600);
        assert_eq!((m.runs, m.scattered), (0, 600), "all of it went into holes, isolated");
        let mut c = m.clone();
        c.snapshot(0.99, 40.0);
        assert!(c.free_run_share > 0.99, "nearly everything dead coalesces");
        m.settle(0.5);
        assert_eq!((m.scattered, m.frag), (300, 300));
        assert_eq!(m.fit_prefix(1000), 300);
        m.set_limit(2000);
        m.allocate(500);
        assert_eq!((m.scattered, m.footprint), (0, 1200));
        let mut t = Mspace::new(0, 100, 0.0);
        t.top = 40;
        t.footprint = 100;
        t.trim();
        assert_eq!(t.footprint, 60);
    }
}
