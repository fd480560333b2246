//! The android-krait engine's shared state: the [`Sim`] struct (threads, cores, event queue, heap, the running
//! collection, records) and the small types the engine's parts share. The parts are `impl Sim` blocks in their
//! own files — the main loop and work accounting in [`super::sim`], the scheduler in [`super::sched`] and
//! [`super::balance`], what the threads *do* in [`super::program`] and [`super::daemon`], collections in
//! [`super::cycle`] and [`super::placement`] — and each imports only this file (and leaf helpers), never another
//! part, so the engine has no import circle (issue #18). Times are integer ns; work is [`Work`] (cycles + memory
//! stall) re-timed whenever the core's clock changes.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::config::AndroidConfig;
use super::layout::AndroidLayout;
pub(super) use super::queue::{Ev, EventQueue, Resume};
use crate::collector::Trigger;
use crate::cpu::{Cpu, CpuTag, Work};
use crate::rng::SimRng;
use crate::run::{CoreActivity, GcEvent, OccupancySample, Pause, PauseKind};
use crate::scenario::CollectorKind;
use crate::workload::{AndroidProfile, LifetimeCdf};

/// Which thread of the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Mutator(u32),
    Daemon,
    Background,
    Jit,
    /// A thread of another process on the phone, of class `.0` ([`super::system`]).
    System(u8),
}

/// Why a thread is not runnable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Block {
    /// Waiting for the heap lock.
    Lock,
    /// Waiting for the running collection to end (a concurrent pause).
    WaitGc,
    /// Stopped at a safepoint.
    Suspended,
    /// A collector waiting for every mutator to reach its safepoint.
    WaitSuspend,
    /// At the end-of-iteration barrier.
    Barrier,
    /// Sleeping on a timer.
    Sleep,
    /// The GC daemon (or JIT) waiting for a request.
    Idle,
    /// Finished.
    Done,
}

/// A thread's scheduling state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TState {
    Running(usize),
    Runnable,
    Blocked(Block),
}

/// What the thread's current work item is; its completion decides what comes next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Nothing (blocked).
    None,
    /// Mutator compute before allocating its next cohort.
    Compute,
    /// Allocating a cohort, holding the heap lock.
    Alloc,
    /// Executing the suspend-check poll on the way to a safepoint.
    Poll,
    /// Collector work of a phase.
    Gc(GcStep),
    /// A background thread's burst.
    Background,
    /// One JIT compilation.
    Compile,
}

/// The phases of a collection that are work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GcStep {
    /// Scanning roots (all threads' stacks, or one thread's under CMSFly).
    Roots,
    /// Concurrent (or, in a foreground GC, stop-the-world) tracing.
    Mark,
    /// Stop-the-world re-mark of dirty cards and roots.
    Remark,
    /// Sweep batch, the part walked without the lock.
    SweepWalk,
    /// Sweep batch, the part freed holding the lock.
    SweepFree,
    /// Returning free pages to the OS.
    Trim,
    /// The daemon, signalled, getting a core.
    Wake,
    /// A collector back from one of its suspend-poll sleeps, getting a core to look at the threads again
    /// ([`super::suspend`]).
    SuspendPoll,
}

#[derive(Debug, Clone)]
pub(super) struct Thread {
    pub(super) name: String,
    pub(super) role: Role,
    pub(super) nice: i32,
    pub(super) state: TState,
    pub(super) vruntime: u64,
    pub(super) last_core: Option<usize>,
    pub(super) runnable_since: u64,
    pub(super) seg_start: u64,
    pub(super) work: Work,
    pub(super) step: Step,
    pub(super) tag: CpuTag,
    /// Interrupted work and step, restored after a safepoint.
    pub(super) saved: Option<(Work, Step, CpuTag)>,
    /// Woken while the world was stopped: what to do once resumed.
    pub(super) deferred: Option<Resume>,
    /// What a mutator does when the collection it waits for ends.
    pub(super) on_gc_end: Option<Resume>,
    /// Invalidates stale completion and timer events.
    pub(super) token: u64,
    /// Start of the current pause of a mutator, and its kind.
    pub(super) pause: Option<(u64, PauseKind)>,
    /// The pause is over for the collector but the thread has not run yet (`android.pauses.end = "dispatch"`):
    /// it closes when the thread gets a core, or blocks again first.
    pub(super) pause_ending: bool,
    /// Where the mutator's last recorded pause ends: after a core's idle exit that is later than the dispatch
    /// ([`Sim::close_pause_at`]), and a pause starting before it starts there instead, so that one mutator's pauses
    /// never overlap (an overlap would count the same stopped time twice). `[ns]`
    pub(super) pause_closed_until: u64,
    pub(super) cpu_ns: u64,
    pub(super) migrations: u64,
    pub(super) delayed_ns: u64,
    /// The core whose run queue holds the thread while it is runnable (`android.sched.per_core_rq`).
    pub(super) rq_core: usize,
    /// When the thread last ran (`se.exec_start`, for `task_hot`). `[ns]`
    pub(super) last_ran_ns: u64,
}

#[derive(Debug, Clone, Default)]
pub(super) struct CoreSlot {
    pub(super) running: Option<usize>,
    pub(super) last_thread: Option<usize>,
    pub(super) slice_token: u64,
    pub(super) activity_start: u64,
}

/// Per-mutator program position.
#[derive(Debug, Clone)]
pub(super) struct MutState {
    pub(super) iteration: u32,
    pub(super) left_in_iteration: u64,
    pub(super) cohort: u64,
    pub(super) after_gc_for_alloc: bool,
    pub(super) explicit_left: u32,
    /// Context-switch time owed for heap-lock contentions, added to the next compute. `[µs]`
    pub(super) switch_debt_us: f64,
    /// Compute already done in a chained JIT loop that ran past its step's end (mechanism 12): taken off the
    /// next computes (at most half of each), so the loop moves the mutator's work, never adds to it. `[µs]` at
    /// the reference clock
    pub(super) loop_ahead_us: f64,
    /// What the mutator does when its sleep ends.
    pub(super) after_sleep: Resume,
    /// Compute cut short when an interleaved allocation found the heap lock held by the collector: resumed once
    /// the lock has been taken and released ([`Sim::stall_on_heap_lock`]).
    pub(super) lock_interrupted: Option<Work>,
    /// The pending request is one large object (`[android.large_objects]`): it succeeds or fails whole.
    pub(super) large: bool,
    /// Large-object bytes owed to the stream: grows with every small cohort by `share / (1 − share)` of it.
    pub(super) large_credit_bytes: f64,
    /// Size of the next large object, drawn when the previous one was requested (0: not drawn yet). `[bytes]`
    pub(super) next_large_bytes: u64,
    /// The pending request was granted past the limits (`dvmHeapSourceAllocAndGrow`): it is placed wherever it fits.
    pub(super) grown: bool,
}

impl Default for MutState {
    fn default() -> Self {
        MutState {
            iteration: 0,
            left_in_iteration: 0,
            cohort: 0,
            after_gc_for_alloc: false,
            explicit_left: 0,
            switch_debt_us: 0.0,
            loop_ahead_us: 0.0,
            after_sleep: Resume::Next,
            lock_interrupted: None,
            large: false,
            large_credit_bytes: 0.0,
            next_large_bytes: 0,
            grown: false,
        }
    }
}

/// One piece of a cohort: dies when the allocation clock reaches `death`.
/// A cohort piece waiting to die: (death on the allocation clock, bytes, GC epoch of its birth, heap-map piece).
pub(super) type Piece = Reverse<(u64, u64, u64, u64)>;

/// A dead piece waiting for its sweep: (bytes, heap-map piece).
pub(super) type DeadPiece = (u64, u64);

/// The running collection.
#[derive(Debug, Clone)]
pub(super) struct Cycle {
    pub(super) collector: usize,
    pub(super) trigger: Trigger,
    /// Concurrent phases (daemon, explicit) or all stop-the-world (GC_FOR_ALLOC).
    pub(super) concurrent: bool,
    /// fg: the collector keeps the heap lock for the whole cycle while other mutators run.
    pub(super) hold_lock: bool,
    pub(super) minor: bool,
    pub(super) start: u64,
    pub(super) phase: Ph,
    pub(super) reclaim_bytes: u64,
    /// The dead pieces the snapshot will reclaim, in the order the sweep frees them; batch `k` of `B` frees
    /// `reclaim[len·k/B .. len·(k+1)/B]`.
    pub(super) reclaim: Vec<DeadPiece>,
    pub(super) mark_bytes: u64,
    pub(super) allocated_at_mark: u64,
    pub(super) heap_before: u64,
    pub(super) batch: u32,
    /// The sweep's batches and per-batch work, fixed by the snapshot (computed at the sweep's first batch).
    pub(super) sweep: Option<SweepPlan>,
    pub(super) gc_cycles: u64,
    /// CMSFly: threads stopped and waiting for their roots to be scanned, in arrival order.
    pub(super) arrivals: VecDeque<usize>,
    pub(super) scanning: Option<usize>,
    pub(super) to_scan: u32,
    /// CMSFly: threads whose roots are scanned and that were resumed (`android.gc.fly_scanned_run`).
    pub(super) scanned: Vec<usize>,
    pub(super) restore_nice: i32,
    /// Which thread the collector is polling while the world stops, and how often it has slept on it.
    pub(super) poll: Option<SuspendPoll>,
}

/// The collector's polling of one thread that has not stopped yet (Dalvik's `waitForThreadSuspend`).
#[derive(Debug, Clone, Copy)]
pub(super) struct SuspendPoll {
    /// The thread waited for.
    pub(super) thread: usize,
    /// Sleeps done in this round (the next one is `suspend_poll_first_us · 2^sleeps`).
    pub(super) sleeps: u32,
    /// When this round began. `[ns]`
    pub(super) round_start: u64,
}

/// A sweep's batches and the work of each: every batch of a cycle frees the same share of the snapshot's
/// garbage, so these are computed once per cycle instead of once per `pointerBuf`.
#[derive(Debug, Clone, Copy)]
pub(super) struct SweepPlan {
    pub(super) batches: u32,
    /// The part walked without the lock.
    pub(super) walk: Work,
    /// The part freed holding the lock, and its time at the reference clock. `[µs]`
    pub(super) free: Work,
    pub(super) free_us: f64,
}

/// The scheduler's tunables in integer units, converted once from `android.sched` (they were re-rounded from
/// the floating-point settings at every wake-up and dispatch; the same numbers).
#[derive(Debug, Clone, Copy)]
pub(super) struct SchedNs {
    /// sched_latency, min_granularity, wakeup_granularity before the online-CPU factor. `[ns]`
    pub(super) latency: u64,
    pub(super) min_granularity: u64,
    pub(super) wakeup_granularity: u64,
    pub(super) migration_cost: u64,
    pub(super) jiffy: u64,
    /// Cycles a dispatch adds: a context switch, a migration, both (`context_switch_us`, `migration_us`).
    pub(super) switch_cycles: [u64; 3],
}

impl SchedNs {
    pub(super) fn of(s: &super::config::AndroidSched, ref_khz: u32) -> SchedNs {
        let cycles = |us: f64| {
            if us > 0.0 {
                Work::from_time_at(us_to_ns(us), 0.0, ref_khz).cycles
            } else {
                0
            }
        };
        SchedNs {
            latency: ms_to_ns(s.latency_ms),
            min_granularity: ms_to_ns(s.min_granularity_ms),
            wakeup_granularity: ms_to_ns(s.wakeup_granularity_ms),
            migration_cost: us_to_ns(s.migration_cost_us),
            jiffy: 1_000_000_000 / u64::from(s.hz.max(1)),
            switch_cycles: [
                cycles(s.context_switch_us),
                cycles(s.migration_us),
                cycles(s.context_switch_us + s.migration_us),
            ],
        }
    }
}

/// The whole simulated system.
pub(super) struct Sim<'a> {
    pub(super) cfg: &'a AndroidConfig,
    pub(super) prof: &'a AndroidProfile,
    pub(super) kind: CollectorKind,
    pub(super) target_util: f64,
    pub(super) growth_limit: u64,
    pub(super) ref_khz: u32,
    pub(super) sched_ns: SchedNs,
    pub(super) now: u64,
    pub(super) events: EventQueue,
    pub(super) cpu: Cpu,
    pub(super) cores: Vec<CoreSlot>,
    pub(super) threads: Vec<Thread>,
    /// The single run queue and its min_vruntime (`android.sched.per_core_rq = false`).
    pub(super) runq: Vec<usize>,
    pub(super) min_vruntime: u64,
    /// Per-core CFS run queues (`android.sched.per_core_rq = true`, Linux 3.4).
    pub(super) rqs: Vec<Rq>,
    /// The core running the thread whose event is being handled (the waker, for `wake_affine`).
    pub(super) waker_core: Option<usize>,
    pub(super) runnable_reported: u32,
    /// Threads running or runnable, kept by [`set_state`] (what [`Sim::report_runnable`] reports).
    pub(super) active_threads: u32,
    pub(super) rng: SimRng,
    /// Mechanism 12's draws (chained JIT loops, [`Sim::run_to_safepoint`]), apart from the app's: switching it on
    /// or changing its share leaves the workload's draws as they were (common random numbers for its ablation).
    pub(super) jit_rng: SimRng,
    /// The other processes' draws ([`super::system`]), apart from the app's.
    pub(super) sys_rng: SimRng,
    /// A periodic system thread's next due wake-up, by thread index. `[ns]`
    pub(super) sys_next: Vec<u64>,
    pub(super) lifetimes: LifetimeCdf,
    // Program state.
    pub(super) mutators: Vec<MutState>,
    pub(super) mutator_count: usize,
    pub(super) daemon: Option<usize>,
    pub(super) jit: Option<usize>,
    pub(super) jit_queue: u32,
    pub(super) jit_credit: f64,
    pub(super) jit_per_cohort: f64,
    pub(super) at_barrier: u32,
    pub(super) per_iteration_bytes: u64,
    pub(super) done_mutators: u32,
    pub(super) daemon_request: Option<Trigger>,
    pub(super) trim_token: u64,
    pub(super) trim_armed: bool,
    // Heap.
    pub(super) clock_bytes: u64,
    pub(super) allocated: u64,
    pub(super) live: u64,
    pub(super) dead: u64,
    pub(super) dead_young: u64,
    /// The dead, not yet reclaimed pieces born in the current GC epoch (any collection reclaims them) and
    /// before (majors only).
    pub(super) dead_pieces_young: Vec<DeadPiece>,
    pub(super) dead_pieces_old: Vec<DeadPiece>,
    pub(super) young_alloc: u64,
    pub(super) epoch: u64,
    pub(super) pieces: BinaryHeap<Piece>,
    pub(super) soft_limit: u64,
    /// The heap's extent: the most bytes allocated since the last trim (bg forces allocations past the soft
    /// limit; `android.gc.bg_trim`). `[bytes]`
    pub(super) footprint: u64,
    /// dlmalloc's free space below the footprint limit (`android.heap.footprint_limit`, mechanism 3).
    pub(super) mspace: Option<super::mspace::Mspace>,
    pub(super) conc_start: Option<u64>,
    pub(super) major_soft_limit: u64,
    pub(super) young_room: u64,
    pub(super) next_major: bool,
    pub(super) lock_holder: Option<usize>,
    pub(super) lock_waiters: VecDeque<usize>,
    pub(super) gc_waiters: Vec<usize>,
    pub(super) cycle: Option<Cycle>,
    pub(super) suspending: bool,
    pub(super) suspend_pending: u32,
    pub(super) oom: bool,
    // Records.
    pub(super) record_activity: bool,
    /// The heap map, when `record.layout` is on.
    pub(super) layout: Option<AndroidLayout>,
    pub(super) activity: Vec<CoreActivity>,
    pub(super) occupancy: Vec<OccupancySample>,
    pub(super) gc_events: Vec<GcEvent>,
    pub(super) pauses: Vec<Pause>,
    pub(super) trigger_counts: [u64; Trigger::COUNT],
    pub(super) minors: u64,
    pub(super) majors: u64,
    pub(super) contentions: u64,
    /// GC-ALLOC triggers that waited for the running cycle (concurrent pauses; Table 1's ALLOC counts only
    /// foreground collections: docs/models-android.md, Known deviations).
    pub(super) alloc_waits: u64,
    pub(super) context_switches: u64,
    /// Heap pages first touched since the last trim (`android.heap.fault_us_per_page`).
    pub(super) page_faults: u64,
    pub(super) live_at_gc_sum: f64,
    pub(super) live_at_gc_n: u64,
    pub(super) live_clock_sum: f64,
    pub(super) peak_live: u64,
    /// The daemon's trim work while it waits for or holds the heap lock (`android.gc.trim_locked`).
    pub(super) trim_work: Option<Work>,
    /// The daemon holds the heap lock for a trim.
    pub(super) trim_holds_lock: bool,
}

/// Where a collection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ph {
    Lock1,
    Suspend1,
    WaitSuspend1,
    FlyScan,
    Roots,
    AfterRoots,
    Mark,
    Lock2,
    WaitSuspend2,
    Remark,
    SweepWalk,
    SweepLock,
    SweepFree,
    FinishLock,
}

/// One core's CFS run queue and its balancing state (its MC `sched_domain`).
#[derive(Debug, Clone)]
pub(super) struct Rq {
    /// Runnable threads waiting for this core, in enqueue order.
    pub(super) queue: Vec<usize>,
    pub(super) min_vruntime: u64,
    /// `rq->avg_idle`: running average of this core's idle periods (starts at 2 × migration cost). `[ns]`
    pub(super) avg_idle_ns: u64,
    /// `rq->idle_stamp`: when the core last went idle through `idle_balance`.
    pub(super) idle_stamp: Option<u64>,
    /// When this core's domain is due for periodic balancing. `[ns]`
    pub(super) next_balance_ns: u64,
    /// `sd->balance_interval` `[ms]`, between SD_MIN_INTERVAL_MS and SD_MAX_INTERVAL_MS.
    pub(super) balance_interval_ms: u64,
    /// `sd->nr_balance_failed`.
    pub(super) nr_balance_failed: u32,
}

/// Linux 3.4's `prio_to_weight` (kernel/sched/core.c), nice −20 … 19: 1024 at nice 0, about ×1.25 per step [P].
const PRIO_TO_WEIGHT: [u64; 40] = [
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906, 3121, 2501, 1991, 1586, 1277, 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87,
    70, 56, 45, 36, 29, 23, 18, 15,
];

/// Whether a thread in state `s` is running or runnable (what the hotplug's run-queue average counts).
pub(super) fn is_active(s: TState) -> bool {
    matches!(s, TState::Running(_) | TState::Runnable)
}

/// Moves `th` to state `s`, keeping `active` (the count of running or runnable threads, [`Sim::active_threads`])
/// — so that reporting it after every scheduling step does not walk every thread.
pub(super) fn set_state(th: &mut Thread, active: &mut u32, s: TState) {
    *active = *active + u32::from(is_active(s)) - u32::from(is_active(th.state));
    th.state = s;
}

/// CFS weight of a nice value (`prio_to_weight`).
pub(super) fn weight(nice: i32) -> u64 {
    PRIO_TO_WEIGHT[(nice.clamp(-20, 19) + 20) as usize]
}

/// Moves a virtual runtime from one queue's frame to another's (`task_waking_fair`, `migrate`).
pub(super) fn reframe(v: u64, from_min: u64, to_min: u64) -> u64 {
    (i128::from(v) - i128::from(from_min) + i128::from(to_min)).max(0) as u64
}

pub(super) fn us_to_ns(us: f64) -> u64 {
    (us * 1000.0).round().max(0.0) as u64
}

pub(super) fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round().max(0.0) as u64
}
