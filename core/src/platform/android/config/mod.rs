//! `[android]`: every parameter of the android-krait platform that is not the workload — Dalvik heap sizing
//! (models.md §1), GC work costs (models.md §5), the scheduler (CFS-like) and the CPU (`[android.cpu]`,
//! [`crate::cpu::CpuConfig`]). Each field says its unit, default, range and source: [P] published (paper, source
//! code, data sheet), [E] an estimate stated with its reasoning, [D] derived.

use serde::{Deserialize, Serialize};

use crate::cpu::CpuConfig;
use crate::units::ByteSize;

mod sched;
mod system;
pub use sched::{AndroidSched, BoostRule};
pub(super) use system::SYSTEM_CLASSES;
pub use system::{AndroidSystem, SystemClass};

/// `[android.heap]`: Dalvik heap sizing (SYSTOR'15 Table 2, models.md §1.1–§1.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AndroidHeap {
    /// heapstartsize: the soft limit before the first collection. `[bytes]`, default 8 MiB (Table 2) [P].
    pub start_size: ByteSize,
    /// heapminfree. `[bytes]`, default 2 MiB (Table 2) [P].
    pub min_free: ByteSize,
    /// heapmaxfree. `[bytes]`, default 8 MiB (Table 2) [P].
    pub max_free: ByteSize,
    /// δ = CONCURRENT_START: a concurrent GC starts this far below the soft limit. `[bytes]`, default 128 KiB [P].
    pub concurrent_start_delta: ByteSize,
    /// CONCURRENT_MIN_FREE: no concurrent GC when the soft limit is below this. `[bytes]`, default 256 KiB [P].
    pub concurrent_min_limit: ByteSize,
    /// Which sizing rule runs: `source` (Dalvik 4.4, the default — see `heap_sizing`) or `printed` (Eq. (1)).
    pub sizing: SizingRule,
    /// The GC daemon trims the heap when no GC request arrives this long after a concurrent GC. `[ms]`, default
    /// 5000 (HEAP_TRIM_IDLE_TIME_MS) [P], range 1–10⁷.
    pub trim_idle_ms: u64,
    /// What "live" means when a (major) collection re-sizes the heap (mechanism 5, issue #16). See [`SizingLive`].
    pub sizing_live: SizingLive,
    /// Dalvik's byte accounting (source audit of issue #16): `countAllocation` adds `mspace_usable_size(ptr) +
    /// HEAP_SOURCE_CHUNK_OVERHEAD` to `bytesAllocated` and `countFree` subtracts the same [P: Dalvik
    /// android-4.3_r1 vm/alloc/HeapSource.cpp], i.e. each object's dlmalloc chunk, not its requested size — so
    /// the soft limit, the concurrent-start threshold and the post-GC sizing all see `chunk_overhead_bytes` more
    /// per object. Default false until the calibration search is re-run with it (docs/models-android.md, "Source audit"); false counts requested bytes (the model before).
    pub chunk_accounting: bool,
    /// Chunk bytes beyond the request, per object: dlmalloc's chunk is `(n + 4 + 7) & ~7` bytes on 32-bit ARM
    /// (a 4-byte head, 8-byte alignment; usable size + HEAP_SOURCE_CHUNK_OVERHEAD (= sizeof(size_t)) equals the
    /// chunk size), so an object whose size is a multiple of 4 — Dalvik's instance sizes are — costs 4 or 8 bytes
    /// more, 6 on average [D: dlmalloc.c `pad_request`, HeapSource.h]: 10–18 % of Table 1's 34–62 B mean
    /// objects. Large objects are charged the same share (a simplification: the presets have none). `[bytes]`,
    /// range 0–64.
    pub chunk_overhead_bytes: f64,
    /// Issue #16 mechanism 3, allocation failure below the soft limit ([`super::mspace`]): Dalvik's `setSoftLimit`
    /// lets the mspace's *footprint* grow to the target (`mspace_set_footprint_limit`) whenever the target is
    /// above the current footprint, so a request fails when no free chunk holds it and the top chunk cannot
    /// grow — with bytes free in holes too small for it (the object-size tail, `workload.android.tail_share`)
    /// or in fragments (`frag_share`), before `bytesAllocated` reaches the concurrent trigger [P: Dalvik
    /// android-4.3_r1 vm/alloc/HeapSource.cpp `setSoftLimit`, `dvmHeapSourceAlloc`, `getAllocLimit`;
    /// dlmalloc's bins]. Default false (new; the calibration search decides); false: only `bytesAllocated`
    /// against the soft limit (the model before).
    pub footprint_limit: bool,
    /// Under `footprint_limit`: the share of the free bytes below dlmalloc's top chunk, after a collection,
    /// that lie in chunks no later request fits (isolated dead objects between live ones, split remainders).
    /// Default 0.05 [E], range 0–0.3 (docs/models-android.md, "Calibration").
    pub frag_share: f64,
    /// A heap page's first touch since the daemon's last trim: Dalvik allocates with `mspace_calloc` under the
    /// heap lock (`dvmHeapSourceAlloc`), so the first write to a page `trimHeaps` returned with `madvise` (or one
    /// never touched) is a page fault in which the kernel zero-fills a fresh 4 KiB page (Linux 3.4
    /// mm/memory.c `do_anonymous_page`) — the cost §4.1.2's "trimming operations" bring back on the
    /// mutators. Pages are counted by the footprint's high-water mark since the last trim (dlmalloc reuses
    /// freed chunks before it extends into untouched space). `[µs per 4 KiB page]`, default 0 (no fault cost,
    /// the model before); range 1–10 (docs/models-android.md, "Calibration").
    pub fault_us_per_page: f64,
    /// The memory-stall share of a page fault's time: clearing the page is its most expensive part (Lameter
    /// 2004, "prezeroing" patches) and streams 4 KiB to memory. Default 0.5 [E], range 0–1.
    pub fault_stall_fraction: f64,
}

/// The "live" bytes `dvmHeapSourceGrowForUtilization` sizes the heap from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SizingLive {
    /// Dalvik's `bytesAllocated` of the active heap after the sweep (dalvik/vm/alloc/HeapSource.cpp,
    /// `dvmHeapSourceGrowForUtilization`: `currentHeapUsed = heap->bytesAllocated`; models.md §1.4) [P]: the
    /// collection's survivors plus the garbage that died after its root-scan snapshot (floating garbage) plus
    /// everything allocated while it ran — allocations during the concurrent phases get live bits and are not
    /// reclaimed (models.md §1.6 step 2). At high allocation rates this exceeds Table 1's live size. The default.
    #[default]
    BytesAllocated,
    /// The reachable bytes at the cycle's end (what Table 1's Live column estimates) — the ablation of
    /// mechanism 5.
    Reachable,
}

impl Default for AndroidHeap {
    fn default() -> Self {
        AndroidHeap {
            start_size: ByteSize(8 << 20),
            min_free: ByteSize(2 << 20),
            max_free: ByteSize(8 << 20),
            concurrent_start_delta: ByteSize(128 << 10),
            concurrent_min_limit: ByteSize(256 << 10),
            sizing: SizingRule::Source,
            trim_idle_ms: 5000,
            sizing_live: SizingLive::BytesAllocated,
            chunk_accounting: false,
            chunk_overhead_bytes: 6.0,
            footprint_limit: false,
            frag_share: 0.05,
            fault_us_per_page: 0.0,
            fault_stall_fraction: 0.5,
        }
    }
}

/// Which sizing rule runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SizingRule {
    /// Dalvik 4.4's `dvmHeapSourceGrowForUtilization`: live / targetUtil, clamped. The default.
    #[default]
    Source,
    /// SYSTOR'15 Eq. (1) as printed: live + clamp((1 − targetUtil)·live, minFree, maxFree).
    Printed,
}

/// `[android.gc]`: the work a Dalvik collection does, as time at `reference_mhz` plus the share of that time
/// stalled on memory (models.md §5: `T(f) = cycles/f + T_mem`). Estimates [E]; `docs/models-android.md` gives
/// the reasoning. Marking is memory-bound (pointer chasing), the mutator mostly compute-bound.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AndroidGcCosts {
    /// The clock the times below are given at. `[MHz]`, default 2150.4 (the top operating point), range 1–5000.
    pub reference_mhz: f64,
    /// Root scan, fixed part (global roots, class table). `[µs]`, default 150 [E].
    pub root_scan_base_us: f64,
    /// Root scan, per thread stack. `[µs]`, default 30 [E].
    pub root_scan_per_thread_us: f64,
    /// Tracing, per reachable object (header test-and-set, mark-stack push/pop, the cache miss to reach it).
    /// `[ns]`, default 200 [E]: with the per-byte term, javac's 0.27 M live objects and 10 MiB trace in ≈ 59 ms at
    /// the top clock, matching its 99 ms maximum pause (Table 1) with the sweep on top.
    pub mark_ns_per_object: f64,
    /// Tracing, per MiB of reachable objects (scanning their fields). `[µs/MiB]`, default 500 [E].
    pub mark_us_per_mib: f64,
    /// Re-mark, fixed part (re-scan roots, references, swap bitmaps). `[µs]`, default 200 [E].
    pub remark_base_us: f64,
    /// Re-mark, per MiB allocated during the concurrent mark (dirty cards to re-scan). `[µs/MiB]`, default 600 [E].
    pub remark_us_per_mib_allocated: f64,
    /// GenCMS minor collections: scanning the card table and dirty old objects for pointers into the young
    /// space, per MiB of old space. `[µs/MiB]`, default 150 [E].
    pub card_scan_us_per_mib: f64,
    /// Sweeping, per object freed (`mspace_bulk_free`). `[ns]`, default 40 [E].
    pub sweep_ns_per_object_freed: f64,
    /// Sweeping, per MiB freed (walking the mark bitmaps). `[µs/MiB]`, default 200 [E].
    pub sweep_us_per_mib_freed: f64,
    /// Share of the sweep done holding the heap lock: `sweepBitmapCallback` frees each buffer of dead objects
    /// under `dvmLockHeap` (`countFree` and `mspace_bulk_free` touch every dead chunk); only the walk over the live
    /// and mark bitmaps that fills the buffer runs unlocked [P: Dalvik android-4.3_r1 vm/alloc/MarkSweep.cpp,
    /// HeapSource.cpp, HeapBitmap.cpp]. Default 0.9 [E] (docs/models-android.md, "Calibration": searched 0.6–1.0),
    /// accepted 0–1.
    pub sweep_locked_fraction: f64,
    /// Sweep batches (the lock is taken once per batch) under `sweep_per_buffer = false`. Default 8 [E], range
    /// 1–1000.
    pub sweep_batches: u32,
    /// Trimming, per MiB of free heap returned (`mspace_trim` + `madvise`). `[µs/MiB]`, default 300 [E].
    pub trim_us_per_mib: f64,
    /// bg only (§3.3): after a daemon cycle, when forced allocations had grown the heap past the soft limit the
    /// cycle has just set, the daemon trims the pages above it — the reading gclab gives §4.1.2's "trimming
    /// operations triggered when the heap is under utilized" (the authors' bg trim trigger is not published;
    /// Dalvik 4.3 trims only after 5 s without a request). Default true [E]; false is the ablation.
    pub bg_trim: bool,
    /// Memory-stall share of marking at the reference clock. Default 0.55 (models.md §5: 0.5–0.6) [E].
    pub mark_stall_fraction: f64,
    /// Memory-stall share of sweeping. Default 0.4 (models.md §5) [E].
    pub sweep_stall_fraction: f64,
    /// Memory-stall share of root scanning and re-mark. Default 0.4 [E].
    pub roots_stall_fraction: f64,
    /// Allocation, per object (dlmalloc + zeroing), done holding the heap lock. `[ns]`, default 120 [E].
    pub alloc_ns_per_object: f64,
    /// A thread that fails to take the heap lock sleeps (futex wait, wake-up on release, rescheduling) this
    /// long before it allocates. `[µs]`, default 20 [E] (futex wake + idle exit + switch on a Krait core).
    pub contention_sleep_us: f64,
    /// Reaching a safepoint: the suspend-check poll a running mutator executes before it stops. `[µs]`, default
    /// 20 [E].
    pub safepoint_poll_us: f64,
    /// Share of the suspensions that find a computing mutator inside a call-free chained JIT loop (issue #16,
    /// mechanism 12). Dalvik 4.3's trace JIT polls for suspension only on invokes and returns
    /// (`TEMPLATE_INVOKE_METHOD_CHAIN`, `TEMPLATE_RETURN` read `breakFlags`) and on leaving the code cache
    /// (`dvmJitGetTraceAddrThread` returns NULL once `breakFlags` is set); a backward branch polls only under
    /// `-Xjitsuspendpoll` or in loop mode (`genSuspendPoll`), and chained translations branch to each other
    /// directly, so a thread in such a loop runs on until it leaves it — `waitForThreadSuspend` unchains every
    /// translation only after its first 250 ms round [P: Dalvik android-4.3_r1 vm/compiler/codegen/arm/
    /// CodegenDriver.cpp, vm/compiler/template/armv5te/TEMPLATE_RETURN.S, vm/interp/Jit.cpp, vm/Thread.cpp].
    /// A fraction, range 0–1; default 0 (every thread reaches its poll at once: the model before, and the
    /// ablation). Not published: a calibration unknown (docs/models-android.md, "Calibration").
    pub jit_loop_share: f64,
    /// Mean of what is left of such a loop when the suspension arrives: exponential (memoryless), cut at the
    /// 250 ms after which `waitForThreadSuspend` unchains every translation. The loop allocates nothing (an
    /// allocation would meet the heap lock the collector holds, and `dvmLockHeap` waits in `THREAD_VMWAIT`, a
    /// state the collector counts as stopped): it is the thread's own compute done early, repaid from its next
    /// computes. `[µs]` at the reference clock; range 0–250000; default 0.
    pub jit_loop_run_us: f64,
    /// How the collector learns that the world has stopped (issue #16). Dalvik's `dvmSuspendAllThreads` walks
    /// the thread list and, for each thread still `THREAD_RUNNING`, polls it with `dvmIterativeSleep`: it sleeps
    /// `minSleep` = 1 ms, then 2, 4, 8 ms … (doubling; a fresh sequence for each thread, restarted after
    /// `FIRST_SLEEP` = 250 ms), so a thread that stops at 1.5 ms is seen at 3 ms and one stopping at 20 ms at 31 ms
    /// — nobody signals the collector [P: Dalvik android-4.3_r1 vm/Thread.cpp `waitForThreadSuspend`,
    /// vm/Misc.cpp `dvmIterativeSleep`]. This is that first sleep. `[µs]`; 1000 is the source; default 0 = the
    /// collector is woken the instant the last thread stops (the model before; the ablation). Range 0–10⁶.
    pub suspend_poll_first_us: f64,
    /// The app's background threads stop at safepoints too (issue #16): `dvmSuspendAllThreads` suspends every
    /// thread on the VM's thread list but its caller, and waits for each one still `THREAD_RUNNING` [P: Dalvik
    /// android-4.3_r1 vm/Thread.cpp]. The model's background threads run Java code while they run [E]: a running
    /// or runnable one must reach its suspend-check poll before the world has stopped — at its lower priority
    /// (`android.sched.background_nice`) it may wait for a core — and one woken meanwhile stops at once, until
    /// the world restarts. Default false (the model before: they ran through every stop), and false in the presets
    /// (docs/models-android.md, "Background threads stopping with the world"); CMSFly's on-the-fly scan
    /// (§3.2) leaves them running, their stacks scanned with the global roots.
    pub suspend_background: bool,
    /// The concurrent sweep takes the heap lock once per buffer of freed pointers (source audit of issue #16):
    /// `dvmHeapBitmapSweepWalk` collects garbage pointers in `pointerBuf[4 * HB_BITS_PER_WORD]` and calls
    /// `sweepBitmapCallback` — `dvmLockHeap`, `dvmHeapSourceFreeList`, `dvmUnlockHeap` when `isConcurrent` —
    /// whenever fewer than a bitmap word's worth of slots are left, so every flush frees at least
    /// `sweep_objects_per_lock` objects [P: Dalvik android-4.3_r1 vm/alloc/HeapBitmap.cpp, MarkSweep.cpp]. The
    /// batches of a cycle are then ⌈objects freed / sweep_objects_per_lock⌉ (hundreds per collection), and a
    /// computing mutator meets a batch's short hold only if it allocates during it. A cycle that holds the lock
    /// throughout (stop-the-world, fg) frees in one batch. Default false until the calibration search is re-run with it (docs/models-android.md, "Source audit"); false: `sweep_batches` fixed batches,
    /// each stalling every computing mutator (the model before).
    pub sweep_per_buffer: bool,
    /// Objects freed per heap-lock take of the concurrent sweep: 4 × 32 − 32 = 96 on 32-bit ARM (a flush happens
    /// at the first bitmap word that leaves fewer than 32 free slots, so a flush holds 96 plus part of one
    /// word's garbage, a few objects more for 34–62 B objects) [P: HeapBitmap.cpp]. Range 1–10⁶.
    pub sweep_objects_per_lock: u32,
    /// The trim runs holding the heap lock (source audit of issue #16): `gcDaemonThread` calls `dvmLockHeap()`
    /// before `trimHeaps()` and unlocks after it [P: Dalvik android-4.3_r1 vm/alloc/HeapSource.cpp], so a
    /// mutator that allocates meanwhile blocks. Default false until the calibration search is re-run with it (docs/models-android.md, "Source audit"); false: the trim takes no lock (the model before).
    pub trim_locked: bool,
    /// Trimming, per chunk of the Java heap: `trimHeaps` walks every chunk with `mspace_inspect_all` (calling
    /// `releasePagesInRange` on each) after `mspace_trim` [P: HeapSource.cpp]; gclab counts the in-use chunks
    /// (bytes allocated / mean object size). `[ns]`, default 10 [E] (a header load and an add per chunk, chunks
    /// adjacent in memory: 5–20 ns on Krait at the top clock), range 0–10⁶.
    pub trim_ns_per_chunk: f64,
    /// Trimming the native heap: `trimHeaps` then runs `dlmalloc_trim(0)` and `dlmalloc_inspect_all` over the
    /// process's native malloc heap [P: HeapSource.cpp], whose size no benchmark publishes. `[µs]`, default 100
    /// [E] (a native heap of a few MiB, ~10⁴ chunks at ~10 ns), range 0–10⁶.
    pub trim_native_us: f64,
    /// CMSFly (SYSTOR'15 §3.2: "Once a mutator thread has had its stack roots marked we immediately signal it to
    /// resume execution"): a thread resumed after its scan that blocks and is woken again before the last
    /// thread's scan runs on. False (the model before, the default until the calibration search decides): it is
    /// stopped at a safepoint again and waits for the end of the whole root phase — a global safepoint §3.2's
    /// on-the-fly scan does not have.
    pub fly_scanned_run: bool,
    /// fg's collecting mutator (SYSTOR'15 §3.3) keeps the heap lock for its whole cycle. The paper says both that
    /// fg runs "concurrently to other mutators" (§3.3) and that the mutator "boosts its priority while keeping the
    /// heap locked" (§4.1.2). True (the model before): the lock is held throughout, so the other mutators stop at
    /// their next allocation. False: the mutator runs Dalvik's own concurrent spec (`dvmCollectGarbageInternal`
    /// with `isConcurrent`: `dvmUnlockHeap` after the roots and after the re-mark, the sweep's per-buffer takes)
    /// at boosted priority, so the others allocate on until they reach the soft limit and then wait for it, as
    /// under CMS [P: Dalvik android-4.3_r1 vm/alloc/Heap.cpp]. The presets keep true, §4.1.2's explicit
    /// statement; the sensitivity tables of `docs/reproduction-android.md` show what false moves.
    pub fg_holds_lock: bool,
    /// While a foreground cycle runs, another mutator whose allocation would pass the soft limit waits for the
    /// cycle: Dalvik's `tryMalloc` calls `dvmWaitForConcurrentGcToComplete` whenever `gcRunning` is set
    /// [P: Dalvik android-4.3_r1 vm/alloc/Heap.cpp], the path the presets keep (true). False is a what-if, not
    /// Dalvik 4.3: the others force the allocation within the growth limit and run on, as §3.3's bg mutators do —
    /// one reading of fg running "concurrently to other mutators". `docs/reproduction-android.md` reports what it
    /// moves (Corollary 4's what-if).
    pub fg_others_wait: bool,
    /// The zygote heap every collection scans (issue #16): after a fork the zygote's heap is immune, and a partial
    /// collection copies its live bits into the mark bitmap (`dvmMarkImmuneObjects`), then
    /// `dvmHeapScanMarkedObjects` walks the whole mark bitmap and calls `scanObject` on every set bit — each live
    /// zygote object's fields are scanned for pointers into the app's heap, in every cycle; a full collection
    /// (`GC_EXPLICIT`) marks it too [P: Dalvik android-4.3_r1 vm/alloc/MarkSweep.cpp, HeapSource.cpp,
    /// HeapBitmap.cpp]. Live zygote objects; default 0 (no zygote: the model before, until the calibration search
    /// is re-run with it), range 0–10⁷; docs/models-android.md gives the sourced estimate. Not added to GenCMS's
    /// minor cycles, whose old-space scan is `card_scan_us_per_mib`.
    pub zygote_objects: f64,
    /// Scanning one immune zygote object in address order (a bitmap bit, the class pointer, its reference
    /// fields, each compared with the immune limit; nothing pushed): cheaper than tracing an app object, which is
    /// reached by a pointer. `[ns]` at the reference clock, default 40 [E], range 0–10⁶; stalled on memory as
    /// marking is (`mark_stall_fraction`).
    pub zygote_scan_ns_per_object: f64,
    /// A full collection traces the zygote heap instead of scanning it (issue #16, mechanism 9's full case): an
    /// explicit `System.gc()` runs `GC_EXPLICIT`, whose spec is not partial, so `dvmHeapSourceGetImmuneLimit`
    /// returns no immune limit and `markObject` marks, pushes and scans the zygote's reachable objects like the
    /// app's — at `mark_ns_per_object`, not `zygote_scan_ns_per_object` [P: Dalvik android-4.3_r1
    /// vm/alloc/Heap.cpp `kGcExplicitSpec`, HeapSource.cpp `dvmHeapSourceGetImmuneLimit`, MarkSweep.cpp]. Only
    /// the per-object term: the zygote's bytes are not known. Default false (every collection scans it: the model
    /// before; the ablation).
    pub full_gc_traces_zygote: bool,
    /// Where a full collection's cost per zygote object lies between the scan and an app object's trace (session
    /// 24): `zygote_scan_ns_per_object + share × (mark_ns_per_object − zygote_scan_ns_per_object)`. In Dalvik 4.3
    /// both kinds walk the same mark bitmap in address order and `scanObject` every set bit — the zygote's bits
    /// copied in by `dvmMarkImmuneObjects` for a partial one, set by marking for a full one
    /// (`dvmHeapScanMarkedObjects`, `dvmHeapBitmapScanWalk`) — so a zygote object is scanned once either way; a full
    /// one also marks what its references reach (`markObjectNonNull`: a bitmap test-and-set where a partial one
    /// only compares with the immune limit) and pushes a newly marked object below the finger, to be scanned off
    /// the stack out of address order [P: Dalvik android-4.3_r1 vm/alloc/MarkSweep.cpp]. An app object's
    /// `mark_ns_per_object` also pays for reaching objects strewn among garbage; the zygote is dense and all live.
    /// So the share is in [0, 1] and not published [E]; default 1 (an app object's cost: the model before).
    pub zygote_full_trace_share: f64,
}

impl Default for AndroidGcCosts {
    fn default() -> Self {
        AndroidGcCosts {
            reference_mhz: 2150.4,
            root_scan_base_us: 150.0,
            root_scan_per_thread_us: 30.0,
            mark_ns_per_object: 200.0,
            mark_us_per_mib: 500.0,
            remark_base_us: 200.0,
            remark_us_per_mib_allocated: 600.0,
            card_scan_us_per_mib: 150.0,
            sweep_ns_per_object_freed: 40.0,
            sweep_us_per_mib_freed: 200.0,
            sweep_locked_fraction: 0.9,
            sweep_batches: 8,
            trim_us_per_mib: 300.0,
            bg_trim: true,
            mark_stall_fraction: 0.55,
            sweep_stall_fraction: 0.4,
            roots_stall_fraction: 0.4,
            alloc_ns_per_object: 120.0,
            safepoint_poll_us: 20.0,
            jit_loop_share: 0.0,
            jit_loop_run_us: 0.0,
            suspend_poll_first_us: 0.0,
            suspend_background: false,
            contention_sleep_us: 20.0,
            sweep_per_buffer: false,
            sweep_objects_per_lock: 96,
            trim_locked: false,
            trim_ns_per_chunk: 10.0,
            trim_native_us: 100.0,
            fly_scanned_run: false,
            fg_holds_lock: true,
            fg_others_wait: true,
            zygote_objects: 0.0,
            zygote_scan_ns_per_object: 40.0,
            full_gc_traces_zygote: false,
            zygote_full_trace_share: 1.0,
        }
    }
}

/// `[android.engine]`: simulation granularity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AndroidEngine {
    /// Objects are allocated in cohorts of about this many bytes per thread (one heap-lock acquisition each).
    /// `[bytes]`, default 32 KiB, range 256 B – 16 MiB.
    pub cohort_bytes: ByteSize,
    /// Each cohort is split into this many pieces, each with its own lifetime. Default 8, range 1–256.
    pub pieces_per_cohort: u32,
}

impl Default for AndroidEngine {
    fn default() -> Self {
        AndroidEngine {
            cohort_bytes: ByteSize(32 << 10),
            pieces_per_cohort: 8,
        }
    }
}

/// When a mutator's pause ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PauseEnd {
    /// When the thread runs again. SYSTOR'15's profiler sits in the VM (§2.4.2: it "records the values δ … for
    /// each mutator, with time stamps"), and a Dalvik thread leaves its suspend wait itself
    /// (`dvmWaitForSuspend` → `dvmChangeStatus(RUNNING)` run by the thread), so the recorded pause includes the
    /// runnable-but-waiting time until the scheduler gives it a core — the "scheduler preemptions" §4.3 credits
    /// for fg's better MinMU. The default [P: paper text, Dalvik 4.4 source].
    #[default]
    Dispatch,
    /// When the collector makes the thread runnable (what a collector-side log would record).
    Wakeup,
}

/// `[android.pauses]`: what counts as a mutator pause (SYSTOR'15 §2.4.2 and Table 1's Max. Pause).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AndroidPauses {
    /// `dispatch` (default) or `wakeup`: see [`PauseEnd`].
    pub end: PauseEnd,
    /// Mechanism 7 (issue #16): count a mutator's own `System.gc()` — which it runs itself (Dalvik 4.4's
    /// GC_EXPLICIT) — as a foreground pause. Default true: §2.1 says that for GC-EXPLICIT "the mutator performs a
    /// foreground collection cycle", and §2.4.2's category (ii) is "when a mutator performs a foreground GC
    /// cycle"; the calling thread does no Java work until `System.gc()` returns [P]. False (the model before
    /// #16) leaves only the other mutators' safepoint stops, which gave GenCMS on Quadrant a MinMU of 1.000.
    pub explicit_gc: bool,
    /// Mechanism 2 (issue #16): a thread dispatched onto an idle core starts only after the core leaves its
    /// low-power mode — the `qcom,latency-us` of the mode the MSM LPM governor chose (WFI 1 µs, retention 35 µs,
    /// standalone power collapse 300 µs, power collapse 500 µs; msm8974-v2-pm.dtsi, models.md §3.3) [P]. The
    /// exit counts as delayed time (the task is on the run queue) and, under `end = "dispatch"`, as part of the
    /// pause. It changes what is recorded, not the schedule: cpuidle counts the exit as idle time (what ondemand
    /// sees) and the mode's entry/exit energy is charged on entry. Default true.
    pub idle_exit: bool,
    /// Whether a mutator blocked on the heap lock while a collection holds it records a concurrent pause.
    /// SYSTOR'15 §2.4.2 names three kinds of pause — stopped at a safepoint, running a foreground GC, waiting
    /// for a concurrent cycle to finish (`dvmWaitForConcurrentGcToComplete`) — and Table 1 counts a failed
    /// heap-lock take separately, as *Heap Contentions* (§2.4.1: "the number of times a thread fails to acquire
    /// the heap lock"); a thread blocked in `dvmLockHeap` is in neither wait the profiler names. True counts it
    /// as waiting for the cycle (the model before), false leaves it a contention only.
    pub lock_waits: bool,
}

impl Default for AndroidPauses {
    fn default() -> Self {
        AndroidPauses {
            end: PauseEnd::Dispatch,
            explicit_gc: true,
            idle_exit: true,
            lock_waits: true,
        }
    }
}

/// `[android]`: the android-krait platform (SYSTOR'15 §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct AndroidConfig {
    /// Heap sizing.
    pub heap: AndroidHeap,
    /// GC costs.
    pub gc: AndroidGcCosts,
    /// Scheduler.
    pub sched: AndroidSched,
    /// Simulation granularity.
    pub engine: AndroidEngine,
    /// What counts as a mutator pause.
    pub pauses: AndroidPauses,
    /// The phone's other processes (surfaceflinger, system_server, kernel threads); off by default.
    pub system: AndroidSystem,
    /// The Krait CPU: operating points, power, ondemand, hotplug.
    pub cpu: CpuConfig,
}

fn finite_in(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), (String, String)> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err((
            format!("android.{field}"),
            format!("expected a number in [{lo}, {hi}], got {v}"),
        ))
    }
}

impl AndroidConfig {
    /// Checks every range; `Err((field, expectation))` with the field's dotted path from the file's root.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let h = &self.heap;
        for (f, v) in [
            ("heap.start_size", h.start_size.0),
            ("heap.min_free", h.min_free.0),
            ("heap.max_free", h.max_free.0),
        ] {
            finite_in(f, v as f64, 64.0 * 1024.0, 4.0 * (1u64 << 30) as f64)?;
        }
        if h.min_free.0 > h.max_free.0 {
            return Err((
                "android.heap.min_free".into(),
                format!(
                    "expected at most heap.max_free ({}), got {}",
                    h.max_free, h.min_free
                ),
            ));
        }
        finite_in(
            "heap.concurrent_start_delta",
            h.concurrent_start_delta.0 as f64,
            0.0,
            64.0 * 1048576.0,
        )?;
        finite_in(
            "heap.concurrent_min_limit",
            h.concurrent_min_limit.0 as f64,
            0.0,
            64.0 * 1048576.0,
        )?;
        finite_in("heap.trim_idle_ms", h.trim_idle_ms as f64, 1.0, 1e7)?;
        finite_in(
            "heap.chunk_overhead_bytes",
            h.chunk_overhead_bytes,
            0.0,
            64.0,
        )?;
        finite_in("heap.frag_share", h.frag_share, 0.0, 0.9)?;
        finite_in("heap.fault_us_per_page", h.fault_us_per_page, 0.0, 1e6)?;
        finite_in(
            "heap.fault_stall_fraction",
            h.fault_stall_fraction,
            0.0,
            1.0,
        )?;
        let g = &self.gc;
        finite_in("gc.reference_mhz", g.reference_mhz, 1.0, 5000.0)?;
        finite_in("gc.zygote_objects", g.zygote_objects, 0.0, 1e7)?;
        finite_in(
            "gc.suspend_poll_first_us",
            g.suspend_poll_first_us,
            0.0,
            1e6,
        )?;
        finite_in("gc.jit_loop_share", g.jit_loop_share, 0.0, 1.0)?;
        finite_in(
            "gc.zygote_full_trace_share",
            g.zygote_full_trace_share,
            0.0,
            1.0,
        )?;
        finite_in("gc.jit_loop_run_us", g.jit_loop_run_us, 0.0, 250_000.0)?;
        finite_in(
            "gc.zygote_scan_ns_per_object",
            g.zygote_scan_ns_per_object,
            0.0,
            1e6,
        )?;
        for (f, v) in [
            ("gc.root_scan_base_us", g.root_scan_base_us),
            ("gc.root_scan_per_thread_us", g.root_scan_per_thread_us),
            ("gc.mark_ns_per_object", g.mark_ns_per_object),
            ("gc.mark_us_per_mib", g.mark_us_per_mib),
            ("gc.sweep_ns_per_object_freed", g.sweep_ns_per_object_freed),
            ("gc.remark_base_us", g.remark_base_us),
            (
                "gc.remark_us_per_mib_allocated",
                g.remark_us_per_mib_allocated,
            ),
            ("gc.card_scan_us_per_mib", g.card_scan_us_per_mib),
            ("gc.sweep_us_per_mib_freed", g.sweep_us_per_mib_freed),
            ("gc.trim_us_per_mib", g.trim_us_per_mib),
            ("gc.trim_ns_per_chunk", g.trim_ns_per_chunk),
            ("gc.trim_native_us", g.trim_native_us),
            ("gc.alloc_ns_per_object", g.alloc_ns_per_object),
            ("gc.safepoint_poll_us", g.safepoint_poll_us),
            ("gc.contention_sleep_us", g.contention_sleep_us),
        ] {
            finite_in(f, v, 0.0, 1e9)?;
        }
        for (f, v) in [
            ("gc.sweep_locked_fraction", g.sweep_locked_fraction),
            ("gc.mark_stall_fraction", g.mark_stall_fraction),
            ("gc.sweep_stall_fraction", g.sweep_stall_fraction),
            ("gc.roots_stall_fraction", g.roots_stall_fraction),
        ] {
            finite_in(f, v, 0.0, 1.0)?;
        }
        finite_in("gc.sweep_batches", f64::from(g.sweep_batches), 1.0, 1000.0)?;
        finite_in(
            "gc.sweep_objects_per_lock",
            f64::from(g.sweep_objects_per_lock),
            1.0,
            1e6,
        )?;
        let s = &self.sched;
        finite_in("sched.latency_ms", s.latency_ms, 0.1, 1000.0)?;
        finite_in(
            "sched.min_granularity_ms",
            s.min_granularity_ms,
            0.01,
            1000.0,
        )?;
        finite_in(
            "sched.wakeup_granularity_ms",
            s.wakeup_granularity_ms,
            0.0,
            1000.0,
        )?;
        finite_in("sched.context_switch_us", s.context_switch_us, 0.0, 1e6)?;
        finite_in("sched.migration_cost_us", s.migration_cost_us, 0.0, 1e6)?;
        finite_in("sched.hz", f64::from(s.hz), 10.0, 1000.0)?;
        finite_in("sched.migration_us", s.migration_us, 0.0, 1e6)?;
        for (f, v) in [
            ("sched.boost_nice", s.boost_nice),
            ("sched.daemon_nice", s.daemon_nice),
            ("sched.background_nice", s.background_nice),
        ] {
            finite_in(f, f64::from(v), -20.0, 19.0)?;
        }
        let e = &self.engine;
        finite_in(
            "engine.cohort_bytes",
            e.cohort_bytes.0 as f64,
            256.0,
            16.0 * 1048576.0,
        )?;
        finite_in(
            "engine.pieces_per_cohort",
            f64::from(e.pieces_per_cohort),
            1.0,
            256.0,
        )?;
        self.system.validate()?;
        self.cpu
            .validate()
            .map_err(|(f, m)| (format!("android.cpu.{f}"), m))
    }
}
