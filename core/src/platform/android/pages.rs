//! Heap pages faulted in (issue #16 mechanism 4, SYSTOR'15 §4.1.2: bg's energy is "due to heap synchronization
//! … and trimming operations triggered when the heap is under utilized"). Dalvik allocates with `mspace_calloc`
//! under the heap lock (android-4.3_r1 vm/alloc/HeapSource.cpp `dvmHeapSourceAlloc`), so the first write to a
//! heap page that `trimHeaps` returned with `madvise(MADV_DONTNEED)` — or that was never touched — is a page
//! fault in which the kernel zero-fills a fresh 4 KiB page (Linux 3.4 mm/memory.c `do_anonymous_page`), taken
//! while the mutator holds the heap lock. The resident pages are the footprint's high-water mark since the last
//! trim (`Sim::footprint`; dlmalloc serves requests from freed chunks before it extends into untouched space,
//! and a trim releases every whole free page, so after it only the bytes in use stay resident).

use super::state::Sim;
use crate::cpu::Work;

/// A Krait page: Linux 3.4's ARM `PAGE_SIZE`. `[bytes]`
const PAGE_BYTES: u64 = 4096;

impl Sim<'_> {
    /// The page faults of an allocation of `need` heap bytes, taken with the heap lock held: counted in
    /// `page_faults`, and returned as work (`android.heap.fault_us_per_page` each; none when it is 0).
    pub(super) fn fault_in(&mut self, need: u64) -> Work {
        let top = self.allocated + need;
        if top <= self.footprint {
            return Work::default();
        }
        let pages = top.div_ceil(PAGE_BYTES) - self.footprint.div_ceil(PAGE_BYTES);
        self.page_faults += pages;
        let h = &self.cfg.heap;
        if h.fault_us_per_page <= 0.0 {
            return Work::default();
        }
        self.work_us(pages as f64 * h.fault_us_per_page, h.fault_stall_fraction)
    }
}
