//! The android-krait engine's main loop: threads on the Krait cores of [`crate::cpu::Cpu`], the event queue, work
//! accounting, over the state in [`super::state`]. The scheduler (Linux 3.4 CFS: per-core run queues, wake-up
//! placement, load balancing) lives in [`super::sched`]; what the threads *do* in [`super::program`] (mutators)
//! and [`super::daemon`] (the GC daemon, background and JIT threads); collections in [`super::cycle`]. Every switch to another thread costs
//! `context_switch_us` on the core, a resume on another core (a **migration**) `migration_us` more; time from
//! runnable to running is **delayed time** (SYSTOR'15 Table 3). Times are integer ns; work is [`Work`] (cycles +
//! memory stall) re-timed whenever the core's clock changes.

use super::queue::Tokens;
use super::state::{
    Block, Ev, GcStep, Role, Sim, Step, TState, is_active, set_state, us_to_ns, weight,
};
use crate::collector::Trigger;
use crate::cpu::{CpuTag, Work};
use crate::run::CoreActivity;
use crate::scenario::CollectorKind;
use crate::units::SimTime;

impl Sim<'_> {
    pub(super) fn push(&mut self, at: u64, ev: Ev) {
        self.events.push(at, ev);
        if self.events.wants_filter() {
            let threads: Vec<u64> = self.threads.iter().map(|t| t.token).collect();
            let slices: Vec<u64> = self.cores.iter().map(|c| c.slice_token).collect();
            self.events.drop_stale(&Tokens {
                threads: &threads,
                slices: &slices,
                trim: self.trim_token,
            });
        }
    }

    /// Work that takes `us` at the reference clock, with memory-stall share `stall`.
    pub(super) fn work_us(&self, us: f64, stall: f64) -> Work {
        Work::from_time_at(us_to_ns(us), stall, self.ref_khz)
    }

    pub(super) fn is_mutator(&self, t: usize) -> bool {
        matches!(self.threads[t].role, Role::Mutator(_))
    }

    /// A foreground GC-ALLOC cycle of fg (SYSTOR'15 §3.3) is running.
    pub(super) fn fg_cycle_running(&self) -> bool {
        self.kind == CollectorKind::Fg
            && self
                .cycle
                .as_ref()
                .is_some_and(|c| c.trigger == Trigger::Alloc)
    }

    pub(super) fn report_runnable(&mut self) {
        let n = self.active_threads;
        debug_assert_eq!(
            n as usize,
            self.threads.iter().filter(|t| is_active(t.state)).count(),
            "the running-or-runnable count kept by set_state"
        );
        if n != self.runnable_reported {
            self.runnable_reported = n;
            self.cpu.set_runnable(SimTime(self.now), n);
        }
    }

    /// Moves thread `t` to state `s` ([`set_state`]).
    pub(super) fn set_thread_state(&mut self, t: usize, s: TState) {
        set_state(&mut self.threads[t], &mut self.active_threads, s);
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
        self.events.push_done(core, at, t, token);
    }

    /// Brings the running thread on `core` up to now: work done, virtual runtime, CPU time.
    pub(super) fn settle(&mut self, core: usize) {
        let Some(t) = self.cores[core].running else {
            return;
        };
        let khz = self.cpu.freq_khz(core);
        let th = &mut self.threads[t];
        let ran = self.now - th.seg_start;
        if ran == 0 {
            // Settled already at this instant (a stall settles, then blocks): nothing ran, nothing changes.
            th.last_ran_ns = self.now;
            return;
        }
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
            self.set_thread_state(t, TState::Blocked(why));
            self.threads[t].token += 1;
            self.pick_next(core);
        } else {
            if self.threads[t].state == TState::Runnable {
                self.dequeue(t);
            }
            self.set_thread_state(t, TState::Blocked(why));
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
        // Only the CPU's own tick moves its next event (governor samples, hotplug decisions).
        let mut next_cpu = self.cpu.next_event_time().map(|t| t.0);
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
            let next_ev = self.events.next_time();
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
                    next_cpu = self.cpu.next_event_time().map(|t| t.0);
                    self.report_runnable();
                }
                _ => {
                    let Some((at, ev)) = self.events.pop() else {
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
                    && !self.suspend_poll_timer(t)
                {
                    self.timer_fired(t);
                }
            }
            Ev::Resume { t, r } => self.resume_event(t, r),
            Ev::LockGranted { t } => {
                if self.cycle.as_ref().is_some_and(|c| c.collector == t) {
                    self.cycle_advance();
                } else if Some(t) == self.daemon {
                    self.trim_lock_granted(t);
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
            .filter(|t| !matches!(t.role, Role::Background | Role::System(_)))
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

    /// A thread's work item is done: what comes next.
    pub(super) fn work_done(&mut self, t: usize) {
        match self.threads[t].step {
            Step::Compute => self.mutator_computed(t),
            Step::Alloc => self.commit_alloc(t),
            Step::Poll => self.reached_safepoint(t),
            // A trim is never a cycle's step: it ends as a trim even when a mutator started a cycle meanwhile
            // (an explicit GC or a foreground GC_FOR_ALLOC waiting for the heap lock the trim holds). Handing it
            // to the cycle stalled the engine: the trim never released the lock the cycle waited for.
            Step::Gc(GcStep::Trim) => self.trim_done(t),
            Step::Gc(GcStep::Wake) => self.daemon_woken(t),
            Step::Gc(_) => self.cycle_work_done(t),
            Step::Background => match self.threads[t].role {
                Role::System(c) => self.system_sleep(t, c),
                _ => self.background_sleep(t),
            },
            Step::Compile => self.jit_next(t),
            Step::None => {}
        }
    }
}
