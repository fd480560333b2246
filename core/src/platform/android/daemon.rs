//! The android-krait engine's other threads (see [`super::program`] for the mutators): the GC daemon waits for a
//! request or its trim timeout (models.md §1.3: `HeapTrimmer` after 5 s without a GC; GenCMS trims after a major,
//! SYSTOR'15 §3.1), background threads (binder, finalizer, …) wake now and then, the JIT thread compiles during
//! the first iteration.

use super::state::{Block, Ev, GcStep, Resume, Role, Sim, Step, TState, ms_to_ns};
use crate::collector::Trigger;
use crate::cpu::{CpuTag, Work};
use crate::scenario::CollectorKind;

impl Sim<'_> {
    /// Asks the GC daemon for a collection (lost if one is running, as Dalvik's condition signal is).
    pub(super) fn signal_daemon(&mut self, trigger: Trigger) {
        let Some(d) = self.daemon else {
            return;
        };
        if self.cycle.is_some() {
            return;
        }
        if self.daemon_request.is_none() {
            self.daemon_request = Some(trigger);
        }
        if self.threads[d].state == TState::Blocked(Block::Idle) {
            self.trim_armed = false;
            self.trim_token += 1;
            // The daemon must be scheduled before it can start: a wake-up on a core (its cost is the context
            // switch).
            self.go(d, Work::default(), Step::Gc(GcStep::Wake), CpuTag::Gc);
        }
    }

    /// The daemon got a core after a signal: start the requested collection.
    pub(super) fn daemon_woken(&mut self, d: usize) {
        match self.daemon_request.take() {
            Some(tr) if self.cycle.is_none() => self.daemon_start(d, tr),
            _ => self.daemon_idle(d, false),
        }
    }

    fn daemon_start(&mut self, d: usize, trigger: Trigger) {
        let minor = self.kind == CollectorKind::Gencms && !self.next_major;
        self.start_cycle(d, trigger, true, false, minor);
    }

    /// The daemon's collection or trim is over: the next request, or idle with the trim timer armed.
    pub(super) fn daemon_idle(&mut self, d: usize, arm_trim: bool) {
        if let Some(tr) = self.daemon_request.take()
            && self.cycle.is_none()
        {
            self.daemon_start(d, tr);
            return;
        }
        if arm_trim {
            self.trim_token += 1;
            self.trim_armed = true;
            let token = self.trim_token;
            let at = self.now + ms_to_ns(self.cfg.heap.trim_idle_ms as f64);
            self.push(at, Ev::TrimTimer { token });
        }
        self.block(d, Block::Idle);
    }

    /// No GC request for `trim_idle_ms` after a concurrent GC: trim (GenCMS: a major GC first, §3.1).
    pub(super) fn trim_due(&mut self) {
        let Some(d) = self.daemon else {
            return;
        };
        if self.threads[d].state != TState::Blocked(Block::Idle) || self.cycle.is_some() {
            return;
        }
        self.trigger_counts[Trigger::Trim as usize] += 1;
        if self.kind == CollectorKind::Gencms {
            self.next_major = true;
            self.start_cycle(d, Trigger::Trim, true, false, false);
        } else {
            let free = self.soft_limit.saturating_sub(self.allocated);
            self.start_trim(d, free);
        }
    }

    /// The daemon trims `free_bytes` of free heap: `trimHeaps` (dalvik/vm/alloc/HeapSource.cpp) returns free
    /// pages (`trim_us_per_mib`), walks every chunk of the Java heap (`mspace_inspect_all`, `trim_ns_per_chunk`)
    /// and trims the native heap (`trim_native_us`). With `android.gc.trim_locked` it first takes the heap lock,
    /// as `gcDaemonThread` does (`dvmLockHeap` … `dvmUnlockHeap`), so allocating mutators wait for the trim.
    pub(super) fn start_trim(&mut self, d: usize, free_bytes: u64) {
        let g = &self.cfg.gc;
        let mut us = free_bytes as f64 / 1048576.0 * g.trim_us_per_mib;
        if g.trim_locked {
            let chunks = self.allocated as f64 / self.prof.mean_object_bytes();
            us += chunks * g.trim_ns_per_chunk / 1000.0 + g.trim_native_us;
        }
        let w = self.work_us(us, g.sweep_stall_fraction);
        if !g.trim_locked {
            self.go(d, w, Step::Gc(GcStep::Trim), CpuTag::Gc);
            return;
        }
        self.trim_work = Some(w);
        if self.try_lock(d) {
            self.trim_lock_granted(d);
        }
    }

    /// The daemon holds the heap lock for its trim: the trim's work runs; mutators computing now stall at their
    /// next allocation.
    pub(super) fn trim_lock_granted(&mut self, d: usize) {
        let Some(w) = self.trim_work else {
            return;
        };
        self.trim_holds_lock = true;
        self.go(d, w, Step::Gc(GcStep::Trim), CpuTag::Gc);
        self.stall_computing_mutators();
    }

    /// The trim is done: pages returned, the lock released, the daemon idle.
    pub(super) fn trim_done(&mut self, d: usize) {
        if let Some(l) = self.layout.as_mut() {
            l.trim();
        }
        self.footprint = self.allocated;
        if let Some(m) = self.mspace.as_mut() {
            m.trim();
        }
        if self.trim_work.take().is_some() {
            self.trim_holds_lock = false;
            self.unlock(d);
        }
        self.daemon_idle(d, false);
    }

    pub(super) fn timer_fired(&mut self, t: usize) {
        match self.threads[t].role {
            Role::Background => {
                let w = self.work_us(
                    self.prof.background_work_us,
                    self.prof.mutator_stall_fraction,
                );
                if !self.background_woke_stopped(t, w) {
                    self.go(t, w, Step::Background, CpuTag::Other);
                }
            }
            Role::Mutator(i) => {
                let r = std::mem::replace(&mut self.mutators[i as usize].after_sleep, Resume::Next);
                self.wake_mutator(t, r);
            }
            Role::System(c) => self.system_fire(t, c),
            Role::Daemon | Role::Jit => {}
        }
    }

    /// Sleeps a background thread for an exponential time with the profile's mean.
    pub(super) fn background_sleep(&mut self, t: usize) {
        let mean = self.prof.background_period_ms * 1e6;
        let d = (-(1.0f64 - self.rng.next_f64()).ln() * mean) as u64;
        self.sleep_until(t, self.now + d.max(1));
    }

    pub(super) fn jit_kick(&mut self) {
        if let Some(j) = self.jit
            && self.threads[j].state == TState::Blocked(Block::Idle)
        {
            self.jit_next(j);
        }
    }

    pub(super) fn jit_next(&mut self, j: usize) {
        if self.jit_queue == 0 {
            self.block(j, Block::Idle);
            return;
        }
        self.jit_queue -= 1;
        let w = self.work_us(self.prof.compile_us, self.prof.mutator_stall_fraction);
        self.go(j, w, Step::Compile, CpuTag::Other);
    }

    /// models.md §1.3 step 2: after a successful allocation past `concurrentStartBytes`, with no collection
    /// running, the daemon is signalled.
    pub(super) fn concurrent_trigger(&mut self) {
        if self.kind != CollectorKind::Fg
            && self.cycle.is_none()
            && self.conc_start.is_some_and(|c| self.allocated > c)
        {
            self.signal_daemon(Trigger::Concurrent);
        }
    }
}
