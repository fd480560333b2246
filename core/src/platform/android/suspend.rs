//! How a collector waits for the world to stop (issue #16, mechanism 10). Dalvik 4.3's `dvmSuspendAllThreads`
//! raises every thread's suspend count, then walks the thread list and calls `waitForThreadSuspend` on each: while
//! that thread is still `THREAD_RUNNING` the collector sleeps in `dvmIterativeSleep` — 1 ms, then 2, 4, 8 ms …
//! (`minSleep` doubled per iteration, a fresh sequence for each thread; after `FIRST_SLEEP` = 250 ms of one
//! thread's polling the sequence restarts — Dalvik's later rounds last `MORE_SLEEP` = 750 ms, here 250 ms too: a
//! thread a quarter second from its safepoint is already a "spin on suspend" warning there). No thread signals the collector: a thread that stops 1.5 ms into the
//! suspension is seen at 3 ms, one that stops at 20 ms at 31 ms, and every thread already stopped waits that long
//! too [P: Dalvik android-4.3_r1 vm/Thread.cpp `waitForThreadSuspend`, vm/Misc.cpp `dvmIterativeSleep`]. A
//! collector back from a sleep is a woken thread like any other: it must get a core before it looks again.
//!
//! `android.gc.suspend_poll_first_us` is `minSleep`; 0 wakes the collector the instant the last thread stops
//! (the model before, and the ablation). CMSFly scans each thread as it arrives (§3.2) and is not polled.
//!
//! How long a thread takes to get to its poll (mechanism 12, [`Sim::run_to_safepoint`]): Dalvik's trace JIT
//! checks for a suspension only at invokes, returns and exits from the code cache, so a mutator inside a
//! call-free, allocation-free chained loop runs on — doing its own work — until the loop ends
//! (`android.gc.jit_loop_share`, `android.gc.jit_loop_run_us`; sources in their field docs).

use super::state::{Block, GcStep, Ph, Role, Sim, Step, SuspendPoll, TState};
use crate::cpu::{CpuTag, Work};

/// `FIRST_SLEEP`: the longest one round of polling a thread sleeps before its sequence restarts (vm/Thread.cpp).
/// `[ns]`
const ROUND_NS: u64 = 250_000_000;

impl Sim<'_> {
    /// The collector `t` has asked every mutator to stop and some still run: it waits as Dalvik's does.
    pub(super) fn await_suspension(&mut self, t: usize) {
        let first_ns = (self.cfg.gc.suspend_poll_first_us * 1000.0).round() as u64;
        // Told at once (`first_ns` 0): no thread to look for.
        let waited = (first_ns > 0)
            .then(|| (0..self.threads.len()).find(|&x| self.on_the_way_to_safepoint(x)))
            .flatten();
        let Some(x) = waited else {
            self.block(t, Block::WaitSuspend);
            return;
        };
        let now = self.now;
        let Some(c) = self.cycle.as_mut() else {
            return;
        };
        let mut p = match c.poll {
            Some(p) if p.thread == x && now < p.round_start + ROUND_NS => p,
            _ => SuspendPoll {
                thread: x,
                sleeps: 0,
                round_start: now,
            },
        };
        // `dvmIterativeSleep`: minSleep · 2^iteration, cut at the round's end.
        let sleep_ns = first_ns
            .saturating_mul(1u64 << p.sleeps.min(30))
            .min(p.round_start + ROUND_NS - now);
        p.sleeps += 1;
        c.poll = Some(p);
        self.sleep_until(t, now + sleep_ns.max(1));
    }

    /// Thread `x`, running or runnable, was asked to stop: it sets out for its suspend-check poll, keeping what
    /// it was doing for the restart. A computing mutator may first run on in a call-free chained JIT loop
    /// (mechanism 12): with probability `jit_loop_share`, for an exponential time of mean `jit_loop_run_us`
    /// (at the reference clock, cut at [`ROUND_NS`], when Dalvik unchains every translation). The loop neither
    /// calls nor allocates (an allocation would meet the heap lock the collector holds and wait in
    /// `THREAD_VMWAIT`, stopped), so it is the thread's own compute done early: taken from the step it keeps,
    /// and what runs past that step's end from its next computes (`loop_ahead_us`).
    pub(super) fn run_to_safepoint(&mut self, x: usize) {
        let th = &self.threads[x];
        let (mut work, step, tag) = (th.work, th.step, th.tag);
        let mut run = Work::default();
        let share = self.cfg.gc.jit_loop_share;
        if share > 0.0 && step == Step::Compute && self.jit_rng.next_f64() < share {
            let mean_ns = self.cfg.gc.jit_loop_run_us * 1000.0;
            let loop_ns =
                ((-(1.0f64 - self.jit_rng.next_f64()).ln() * mean_ns) as u64).min(ROUND_NS);
            let rest = work.remaining_after(loop_ns, self.ref_khz);
            let beyond_ns = loop_ns.saturating_sub(work.time_ns(self.ref_khz));
            let ahead = self.work_us(beyond_ns as f64 / 1000.0, self.prof.mutator_stall_fraction);
            let i = self.mut_index(x);
            self.mutators[i].loop_ahead_us += beyond_ns as f64 / 1000.0;
            run = work - rest + ahead;
            work = rest;
        }
        self.threads[x].saved = Some((work, step, tag));
        let poll = self.work_us(
            self.cfg.gc.safepoint_poll_us,
            self.prof.mutator_stall_fraction,
        );
        self.set_work(x, poll + run, Step::Poll, CpuTag::Mutator);
    }

    /// Whether a stop of the world stops thread `x`: every mutator, and the app's background threads under
    /// `android.gc.suspend_background` (not under CMSFly's on-the-fly scan).
    pub(super) fn stops_at_safepoint(&self, x: usize) -> bool {
        match self.threads[x].role {
            Role::Mutator(_) => true,
            Role::Background => self.cfg.gc.suspend_background && !self.fly(),
            _ => false,
        }
    }

    /// A background thread's timer fired while the world is stopped: like a Dalvik thread turning
    /// `THREAD_RUNNING`, it sees its suspend count and stops at once, its burst kept for the restart.
    pub(super) fn background_woke_stopped(&mut self, t: usize, burst: Work) -> bool {
        if !(self.suspending && self.stops_at_safepoint(t)) {
            return false;
        }
        self.threads[t].saved = Some((burst, Step::Background, CpuTag::Other));
        self.set_thread_state(t, TState::Blocked(Block::Suspended));
        true
    }

    /// A thread asked to stop that has not reached its safepoint (Dalvik: still `THREAD_RUNNING`).
    fn on_the_way_to_safepoint(&self, x: usize) -> bool {
        let th = &self.threads[x];
        self.stops_at_safepoint(x)
            && th.step == Step::Poll
            && matches!(th.state, TState::Running(_) | TState::Runnable)
    }

    /// Whether `t`'s timer is a collector's suspend-poll sleep; if so, it is runnable again and will look at
    /// the threads once it has a core.
    pub(super) fn suspend_poll_timer(&mut self, t: usize) -> bool {
        let polling = self.cycle.as_ref().is_some_and(|c| {
            c.collector == t
                && c.poll.is_some()
                && matches!(c.phase, Ph::WaitSuspend1 | Ph::WaitSuspend2)
        });
        if polling {
            self.go(
                t,
                Work::default(),
                Step::Gc(GcStep::SuspendPoll),
                CpuTag::Gc,
            );
        }
        polling
    }
}
