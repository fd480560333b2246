//! The android-krait engine's state and its main loop: threads on the Krait cores of [`crate::cpu::Cpu`], the
//! event queue, work accounting. The scheduler (Linux 3.4 CFS: per-core run queues, wake-up placement, load
//! balancing) lives in [`super::sched`]; what the threads *do* in [`super::program`] (mutators, the GC daemon,
//! background threads) and [`super::cycle`] (collections). Every switch to another thread costs
//! `context_switch_us` on the core, a resume on another core (a **migration**) `migration_us` more; time from
//! runnable to running is **delayed time** (SYSTOR'15 Table 3). Times are integer ns; work is [`Work`] (cycles +
//! memory stall) re-timed whenever the core's clock changes.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::config::AndroidConfig;
use super::program::Resume;
use super::sched::weight;
use crate::collector::Trigger;
use crate::cpu::{Cpu, CpuTag, Work};
use crate::rng::SimRng;
use crate::run::{CoreActivity, GcEvent, OccupancySample, Pause, PauseKind};
use crate::units::SimTime;
use crate::workload::{AndroidProfile, LifetimeCdf};

/// Which thread of the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Mutator(u32),
    Daemon,
    Background,
    Jit,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Ev {
    /// A thread's work item completes.
    WorkDone { t: usize, token: u64 },
    /// A core's time slice ends.
    SliceEnd { core: usize, token: u64 },
    /// A sleeping thread's timer.
    Wake { t: usize, token: u64 },
    /// The daemon's trim timer.
    TrimTimer { token: u64 },
    /// The scheduler tick (every 1/HZ): periodic and idle load balancing under `android.sched.per_core_rq`.
    Tick,
    /// A blocked mutator is woken (deferred to its own event so that no thread's logic runs inside another's).
    Resume { t: usize, r: Resume },
    /// The heap lock was handed to a waiting thread.
    LockGranted { t: usize },
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
    pub(super) phase: super::cycle::Ph,
    pub(super) reclaim_bytes: u64,
    /// The dead pieces the snapshot will reclaim, in the order the sweep frees them; batch `k` of `B` frees
    /// `reclaim[len·k/B .. len·(k+1)/B]`.
    pub(super) reclaim: Vec<DeadPiece>,
    pub(super) mark_bytes: u64,
    pub(super) allocated_at_mark: u64,
    pub(super) heap_before: u64,
    pub(super) batch: u32,
    pub(super) gc_cycles: u64,
    /// CMSFly: threads stopped and waiting for their roots to be scanned, in arrival order.
    pub(super) arrivals: VecDeque<usize>,
    pub(super) scanning: Option<usize>,
    pub(super) to_scan: u32,
    pub(super) restore_nice: i32,
}

/// The whole simulated system.
pub(super) struct Sim<'a> {
    pub(super) cfg: &'a AndroidConfig,
    pub(super) prof: &'a AndroidProfile,
    pub(super) kind: crate::scenario::CollectorKind,
    pub(super) target_util: f64,
    pub(super) growth_limit: u64,
    pub(super) ref_khz: u32,
    pub(super) now: u64,
    pub(super) seq: u64,
    pub(super) events: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    pub(super) cpu: Cpu,
    pub(super) cores: Vec<CoreSlot>,
    pub(super) threads: Vec<Thread>,
    /// The single run queue and its min_vruntime (`android.sched.per_core_rq = false`).
    pub(super) runq: Vec<usize>,
    pub(super) min_vruntime: u64,
    /// Per-core CFS run queues (`android.sched.per_core_rq = true`, Linux 3.4).
    pub(super) rqs: Vec<super::balance::Rq>,
    /// The core running the thread whose event is being handled (the waker, for `wake_affine`).
    pub(super) waker_core: Option<usize>,
    pub(super) runnable_reported: u32,
    pub(super) rng: SimRng,
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
    pub(super) layout: Option<super::layout::AndroidLayout>,
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
    pub(super) live_at_gc_sum: f64,
    pub(super) live_at_gc_n: u64,
    pub(super) live_clock_sum: f64,
    pub(super) peak_live: u64,
}

pub(super) fn us_to_ns(us: f64) -> u64 {
    (us * 1000.0).round().max(0.0) as u64
}

impl Sim<'_> {
    pub(super) fn push(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        self.events.push(Reverse((at, self.seq, ev)));
    }

    /// Work that takes `us` at the reference clock, with memory-stall share `stall`.
    pub(super) fn work_us(&self, us: f64, stall: f64) -> Work {
        Work::from_time_at(us_to_ns(us), stall, self.ref_khz)
    }

    pub(super) fn is_mutator(&self, t: usize) -> bool {
        matches!(self.threads[t].role, Role::Mutator(_))
    }

    pub(super) fn report_runnable(&mut self) {
        let n = self
            .threads
            .iter()
            .filter(|t| matches!(t.state, TState::Running(_) | TState::Runnable))
            .count() as u32;
        if n != self.runnable_reported {
            self.runnable_reported = n;
            self.cpu.set_runnable(SimTime(self.now), n);
        }
    }

    /// Gives `t` new work (it keeps its core if running, else it must be made runnable by the caller).
    pub(super) fn set_work(&mut self, t: usize, work: Work, step: Step, tag: CpuTag) {
        if let TState::Running(core) = self.threads[t].state {
            if self.threads[t].tag != tag {
                self.close_activity(core);
            }
            let th = &mut self.threads[t];
            th.work = work;
            th.step = step;
            th.tag = tag;
            th.seg_start = self.now;
            self.cpu.set_busy(core, SimTime(self.now), tag);
            self.schedule_completion(t, core);
        } else {
            let th = &mut self.threads[t];
            th.work = work;
            th.step = step;
            th.tag = tag;
        }
    }

    pub(super) fn schedule_completion(&mut self, t: usize, core: usize) {
        let khz = self.cpu.freq_khz(core);
        let th = &mut self.threads[t];
        th.token += 1;
        let (token, at) = (th.token, self.now + th.work.time_ns(khz));
        self.push(at, Ev::WorkDone { t, token });
    }

    /// Brings the running thread on `core` up to now: work done, virtual runtime, CPU time.
    pub(super) fn settle(&mut self, core: usize) {
        let Some(t) = self.cores[core].running else {
            return;
        };
        let khz = self.cpu.freq_khz(core);
        let th = &mut self.threads[t];
        let ran = self.now - th.seg_start;
        th.work = th.work.remaining_after(ran, khz);
        th.vruntime += ran * 1024 / weight(th.nice);
        th.cpu_ns += ran;
        th.seg_start = self.now;
        th.last_ran_ns = self.now;
    }

    pub(super) fn close_activity(&mut self, core: usize) {
        if !self.record_activity {
            return;
        }
        let slot = &mut self.cores[core];
        if let Some(t) = slot.running
            && self.now > slot.activity_start
        {
            self.activity.push(CoreActivity {
                core: core as u32,
                start: SimTime(slot.activity_start),
                end: SimTime(self.now),
                tag: self.threads[t].tag,
                thread: t as u32,
            });
        }
        slot.activity_start = self.now;
    }

    /// Takes `t` off its core (blocked or preempted); the core picks its next thread.
    pub(super) fn block(&mut self, t: usize, why: Block) {
        if self.threads[t].pause_ending {
            self.close_pause(t);
        }
        if let TState::Running(core) = self.threads[t].state {
            self.settle(core);
            self.close_activity(core);
            self.cores[core].running = None;
            self.threads[t].state = TState::Blocked(why);
            self.threads[t].token += 1;
            self.pick_next(core);
        } else {
            if self.threads[t].state == TState::Runnable {
                self.dequeue(t);
            }
            self.threads[t].state = TState::Blocked(why);
            self.threads[t].token += 1;
        }
        self.report_runnable();
    }

    /// Runs events until every mutator is done (or the run ends out of memory). `Err` when the model stalls.
    pub(super) fn run_loop(
        &mut self,
        cancel: &crate::Cancel,
        progress: &mut dyn crate::Progress,
        total_bytes: u64,
    ) -> Result<(), crate::SimError> {
        let mut steps = 0u64;
        let (mut last_clock, mut last_progress_ns) = (u64::MAX, 0u64);
        while self.done_mutators < self.mutator_count as u32 && !self.oom {
            steps += 1;
            if self.clock_bytes != last_clock {
                last_clock = self.clock_bytes;
                last_progress_ns = self.now;
            } else if self.now - last_progress_ns > STALL_NS {
                return Err(crate::SimError::Model(format!(
                    "android engine stalled: no allocation for {} s of simulated time at t = {} ns (a bug in gclab); {}",
                    STALL_NS / 1_000_000_000,
                    self.now,
                    self.describe_state()
                )));
            }
            if steps.is_multiple_of(4096) {
                if cancel.is_cancelled() {
                    return Err(crate::SimError::Cancelled);
                }
                progress.report(self.clock_bytes as f64 / total_bytes.max(1) as f64);
            }
            let next_ev = self.events.peek().map(|Reverse((t, _, _))| *t);
            let next_cpu = self.cpu.next_event_time().map(|t| t.0);
            if next_ev.is_none() && self.cores.iter().all(|c| c.running.is_none()) {
                return Err(crate::SimError::Model(format!(
                    "android engine stalled at {} ns: no thread can run (this is a bug in gclab)",
                    self.now
                )));
            }
            match (next_ev, next_cpu) {
                (ev, Some(tc)) if ev.is_none_or(|te| tc <= te) => {
                    self.now = self.now.max(tc);
                    for ch in self.cpu.on_tick(SimTime(self.now)) {
                        self.on_cpu_change(ch);
                    }
                    self.report_runnable();
                }
                _ => {
                    let Some(Reverse((at, _, ev))) = self.events.pop() else {
                        continue;
                    };
                    self.now = self.now.max(at);
                    self.on_event(ev);
                }
            }
        }
        Ok(())
    }

    fn on_event(&mut self, ev: Ev) {
        match ev {
            Ev::WorkDone { t, token } => {
                if self.threads[t].token != token {
                    return;
                }
                if let TState::Running(core) = self.threads[t].state {
                    self.settle(core);
                    self.threads[t].work = Work::default();
                    self.waker_core = Some(core);
                    self.work_done(t);
                    self.waker_core = None;
                }
            }
            Ev::SliceEnd { core, token } => {
                if self.cores[core].slice_token != token || self.queue_empty(core) {
                    return;
                }
                self.preempt(core);
            }
            Ev::Tick => self.tick(),
            Ev::Wake { t, token } => {
                if self.threads[t].token == token
                    && self.threads[t].state == TState::Blocked(Block::Sleep)
                {
                    self.timer_fired(t);
                }
            }
            Ev::Resume { t, r } => self.resume_event(t, r),
            Ev::LockGranted { t } => {
                if self.cycle.as_ref().is_some_and(|c| c.collector == t) {
                    self.cycle_advance();
                } else {
                    self.mutator_locked(t);
                }
            }
            Ev::TrimTimer { token } => {
                if token == self.trim_token && self.trim_armed {
                    self.trim_armed = false;
                    self.trim_due();
                }
            }
        }
    }

    /// Puts `t` to sleep until `at`.
    pub(super) fn sleep_until(&mut self, t: usize, at: u64) {
        self.block(t, Block::Sleep);
        let token = self.threads[t].token;
        self.push(at, Ev::Wake { t, token });
    }

    /// Ends the run: closes the activity spans.
    pub(super) fn close_all(&mut self) {
        for core in 0..self.cores.len() {
            self.settle(core);
            self.close_activity(core);
        }
    }
}

/// No allocation for this long means the model is stuck. `[ns]`
const STALL_NS: u64 = 600_000_000_000;

impl Sim<'_> {
    /// One line on every mutator, the lock and the collection, for stall reports.
    pub(super) fn describe_state(&self) -> String {
        let threads: Vec<String> = self
            .threads
            .iter()
            .filter(|t| !matches!(t.role, Role::Background))
            .map(|t| format!("{}: {:?} {:?}", t.name, t.state, t.step))
            .collect();
        format!(
            "threads [{}]; lock {:?} waiters {:?}; cycle {:?}; suspending {} pending {}",
            threads.join(", "),
            self.lock_holder,
            self.lock_waiters,
            self.cycle.as_ref().map(|c| (
                c.collector,
                c.phase,
                c.trigger,
                c.to_scan,
                c.arrivals.clone(),
                c.scanning
            )),
            self.suspending,
            self.suspend_pending
        )
    }
}

pub(super) fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round().max(0.0) as u64
}
