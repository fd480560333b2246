//! Dalvik collections as a phase machine run by one collector thread (the GC daemon, or a mutator in the
//! foreground), after models.md §1.6 and SYSTOR'15 §2.1, §3:
//!
//! 1. take the heap lock; stop the world (every mutator in Java code runs to its safepoint poll; threads blocked
//!    in the VM are already safe); scan roots. **CMSFly** (§3.2): scan each thread's roots as it arrives and
//!    resume it at once, in arrival order.
//! 2. concurrent mark (tracing the live set: memory-bound work), the world running; allocation meanwhile dirties
//!    cards.
//! 3. take the lock, stop the world, re-mark (roots + dirty cards ∝ bytes allocated during the mark), resume.
//! 4. concurrent sweep in batches, each taking the lock for its frees.
//! 5. take the lock: free, re-size the heap (Eq. (1) or the source form), wake the threads waiting for the GC.
//!
//! A **GC_FOR_ALLOC** (CMS, CMSFly, GenCMS minor) runs every phase with the world stopped and the lock held, the
//! collecting mutator at boosted priority. **fg** (§3.3) runs the concurrent phase order at boosted priority
//! holding the heap lock throughout — the other mutators run until they need the lock (decision written down in
//! `docs/models-android.md`: the paper says fg runs "concurrently to other mutators" and "holds the heap locks").
//! **GenCMS** (§3.1) minor collections mark and sweep only objects born since the previous collection (plus a
//! card scan of the old space); every collection makes the survivors old.
//!
//! The collection frees what was dead when the roots were scanned (its snapshot); objects dying later are
//! floating garbage until the next collection.

use super::config::BoostRule;
use super::state::{Block, Cycle, GcStep, Ph, Resume, Role, Sim, Step, SweepPlan, TState};
use crate::collector::Trigger;
use crate::cpu::{CpuTag, Work};
use crate::run::{GcEvent, PauseKind};
use crate::scenario::CollectorKind;
use crate::units::SimTime;

pub(super) const MIB: f64 = 1024.0 * 1024.0;

impl Sim<'_> {
    /// Starts a collection run by `collector`. `concurrent`: the daemon/explicit phase order (else all
    /// stop-the-world); `hold_lock`: fg, keep the heap lock for the whole cycle; `minor`: GenCMS young-only.
    pub(super) fn start_cycle(
        &mut self,
        collector: usize,
        trigger: Trigger,
        concurrent: bool,
        hold_lock: bool,
        minor: bool,
    ) {
        if trigger != Trigger::Trim {
            self.trigger_counts[trigger as usize] += 1;
        }
        if self.kind == CollectorKind::Gencms {
            if minor {
                self.minors += 1;
            } else {
                self.majors += 1;
            }
        }
        // fg's cycle is boosted whether or not it keeps the lock (§3.3 "at boosted priority"); it keeps the lock
        // unless `android.gc.fg_holds_lock` reads §3.3 as Dalvik's concurrent spec.
        let fg_cycle = self.kind == CollectorKind::Fg && trigger == Trigger::Alloc;
        let hold_lock = hold_lock && self.cfg.gc.fg_holds_lock;
        let boosted = self.is_mutator(collector) && (!concurrent || hold_lock || fg_cycle);
        let restore_nice = self.threads[collector].nice;
        if boosted {
            // Mechanism 2 of the source audit: Dalvik's `os_raiseThreadPriority` (dalvik/vm/os/android.cpp) lifts
            // only a thread below normal priority, and only to nice 0; `boost = "fixed"` is the old −4.
            self.threads[collector].nice = match self.cfg.sched.boost {
                BoostRule::Source => restore_nice.min(0),
                BoostRule::Fixed => self.cfg.sched.boost_nice,
            };
        }
        // A mutator's own System.gc() is its own call, not a pause, unless `android.pauses.explicit_gc`.
        if trigger != Trigger::Explicit || self.cfg.pauses.explicit_gc {
            self.start_pause(collector, PauseKind::Foreground);
        }
        let phase = if self.lock_holder == Some(collector) {
            Ph::Suspend1
        } else {
            Ph::Lock1
        };
        self.cycle = Some(Cycle {
            collector,
            trigger,
            concurrent,
            hold_lock,
            minor,
            start: self.now,
            phase,
            reclaim_bytes: 0,
            reclaim: Vec::new(),
            mark_bytes: 0,
            allocated_at_mark: 0,
            heap_before: self.allocated,
            batch: 0,
            sweep: None,
            gc_cycles: 0,
            arrivals: Default::default(),
            scanning: None,
            to_scan: 0,
            scanned: Vec::new(),
            restore_nice,
            poll: None,
        });
        self.cycle_advance();
    }

    fn set_phase(&mut self, ph: Ph) {
        if let Some(c) = self.cycle.as_mut() {
            c.phase = ph;
        }
    }

    fn gc_work(&mut self, t: usize, us: f64, stall: f64, step: GcStep) {
        let w = self.work_us(us, stall);
        self.gc_go(t, w, step);
    }

    fn gc_go(&mut self, t: usize, w: Work, step: GcStep) {
        if let Some(c) = self.cycle.as_mut() {
            c.gc_cycles += w.cycles;
        }
        self.go(t, w, Step::Gc(step), CpuTag::Gc);
    }

    pub(super) fn fly(&self) -> bool {
        self.kind == CollectorKind::Cmsfly && self.cycle.as_ref().is_some_and(|c| c.concurrent)
    }

    /// Runs the collection forward until it has to wait (for work, the lock or safepoints).
    pub(super) fn cycle_advance(&mut self) {
        loop {
            let Some(c) = self.cycle.as_ref() else {
                return;
            };
            let (t, ph) = (c.collector, c.phase);
            let cfg = self.cfg;
            let g = &cfg.gc;
            match ph {
                Ph::Lock1 | Ph::Lock2 | Ph::SweepLock | Ph::FinishLock => {
                    if self.lock_holder != Some(t) && !self.try_lock(t) {
                        return;
                    }
                    let next = match ph {
                        Ph::Lock1 => Ph::Suspend1,
                        Ph::Lock2 => Ph::WaitSuspend2,
                        Ph::SweepLock => Ph::SweepFree,
                        _ => {
                            self.finish_cycle();
                            return;
                        }
                    };
                    self.set_phase(next);
                    if ph == Ph::Lock2 {
                        self.suspend_all(t);
                    }
                    if ph == Ph::SweepLock {
                        let plan = self.sweep_plan();
                        if g.sweep_per_buffer {
                            self.stall_allocating_mutators(plan.free_us);
                        } else {
                            self.stall_computing_mutators();
                        }
                        self.gc_go(t, plan.free, GcStep::SweepFree);
                        return;
                    }
                }
                Ph::Suspend1 => {
                    self.snapshot();
                    self.suspend_all(t);
                    self.set_phase(if self.fly() {
                        Ph::FlyScan
                    } else {
                        Ph::WaitSuspend1
                    });
                }
                Ph::WaitSuspend1 | Ph::WaitSuspend2 => {
                    if self.suspend_pending > 0 {
                        self.await_suspension(t);
                        return;
                    }
                    if let Some(c) = self.cycle.as_mut() {
                        c.poll = None;
                    }
                    if ph == Ph::WaitSuspend1 {
                        self.set_phase(Ph::Roots);
                        let us = g.root_scan_base_us
                            + g.root_scan_per_thread_us * f64::from(self.prof.threads);
                        self.gc_work(t, us, g.roots_stall_fraction, GcStep::Roots);
                    } else {
                        self.set_phase(Ph::Remark);
                        let mib = self
                            .clock_bytes
                            .saturating_sub(self.cycle.as_ref().map_or(0, |c| c.allocated_at_mark))
                            as f64
                            / MIB;
                        let us = g.remark_base_us + g.remark_us_per_mib_allocated * mib;
                        self.gc_work(t, us, g.roots_stall_fraction, GcStep::Remark);
                    }
                    return;
                }
                Ph::FlyScan => {
                    let next = self.cycle.as_mut().and_then(|c| c.arrivals.pop_front());
                    if let Some(x) = next {
                        if let Some(c) = self.cycle.as_mut() {
                            c.scanning = Some(x);
                        }
                        // The first scan also covers the global roots and the non-mutator threads.
                        let first = self.cycle.as_ref().is_some_and(|c| c.gc_cycles == 0);
                        let others = f64::from(self.prof.threads - self.prof.mutators);
                        let us = g.root_scan_per_thread_us
                            + if first {
                                g.root_scan_base_us + g.root_scan_per_thread_us * others
                            } else {
                                0.0
                            };
                        self.set_phase(Ph::Roots);
                        self.gc_work(t, us, g.roots_stall_fraction, GcStep::Roots);
                        return;
                    }
                    if self.cycle.as_ref().is_some_and(|c| c.to_scan == 0) {
                        self.set_phase(Ph::AfterRoots);
                        continue;
                    }
                    self.block(t, Block::WaitSuspend);
                    return;
                }
                Ph::AfterRoots => {
                    let (concurrent, hold) = self
                        .cycle
                        .as_ref()
                        .map_or((true, false), |c| (c.concurrent, c.hold_lock));
                    if concurrent {
                        // Dalvik unlocks the heap, then resumes the threads; fg keeps the lock, so the
                        // resumed mutators stall at their next allocation.
                        if !hold {
                            self.unlock(t);
                        }
                        self.resume_all();
                        self.stall_computing_mutators();
                    }
                    self.set_phase(Ph::Mark);
                    let us = self.mark_us();
                    self.gc_work(t, us, g.mark_stall_fraction, GcStep::Mark);
                    return;
                }
                Ph::SweepWalk => {
                    let plan = self.sweep_plan();
                    if self.cycle.as_ref().is_some_and(|c| c.batch >= plan.batches) {
                        self.set_phase(Ph::FinishLock);
                        continue;
                    }
                    self.gc_go(t, plan.walk, GcStep::SweepWalk);
                    return;
                }
                // Work phases wait for their completion.
                Ph::Roots | Ph::Mark | Ph::Remark | Ph::SweepFree => return,
            }
        }
    }

    /// The current sweep batch's frees, under the heap lock: `bytesAllocated` falls batch by batch, so mutators
    /// allocate into what the sweep has freed so far (Dalvik's `sweepBitmapCallback` → `dvmHeapSourceFreeList`,
    /// models.md §1.6 step 4); the soft limit moves only at the cycle's end.
    fn free_batch(&mut self) {
        let batches = self.sweep_plan().batches.max(1) as usize;
        let Some(c) = self.cycle.as_ref() else {
            return;
        };
        let (n, k) = (c.reclaim.len(), c.batch as usize);
        let batch = &c.reclaim[n * k.min(batches) / batches..n * (k + 1).min(batches) / batches];
        let raw = batch.iter().map(|p| p.0).sum::<u64>();
        // countFree subtracts the same chunk bytes countAllocation added.
        let freed_heap = self.heap_bytes(raw).min(self.allocated);
        let freed = raw.min(self.dead);
        if let Some(l) = self.layout.as_mut() {
            l.reclaim(batch.iter().map(|p| p.1), SimTime(self.now));
        }
        self.allocated -= freed_heap;
        if let Some(m) = self.mspace.as_mut() {
            m.free(freed_heap);
        }
        self.dead -= freed;
        // The timeline shows the sweep's frees, not only the allocations that follow them — about eight samples
        // per sweep, however many buffers it flushes.
        let stride = (batches / 8).max(1);
        if (k + 1) % stride == 0 || k + 1 >= batches {
            self.sample_occupancy();
        }
    }

    /// The running cycle's [`SweepPlan`] (after its snapshot, which fixes the bytes to free).
    fn sweep_plan(&mut self) -> SweepPlan {
        if let Some(p) = self.cycle.as_ref().and_then(|c| c.sweep) {
            return p;
        }
        let g = &self.cfg.gc;
        let us = self.sweep_batch_us();
        let free_us = us * g.sweep_locked_fraction;
        let plan = SweepPlan {
            batches: self.sweep_batches(),
            walk: self.work_us(us * (1.0 - g.sweep_locked_fraction), g.sweep_stall_fraction),
            free: self.work_us(free_us, g.sweep_stall_fraction),
            free_us,
        };
        if let Some(c) = self.cycle.as_mut() {
            c.sweep = Some(plan);
        }
        plan
    }

    /// The collector's work item of the current phase is done.
    pub(super) fn cycle_work_done(&mut self, t: usize) {
        let Some(c) = self.cycle.as_ref() else {
            return;
        };
        let (concurrent, hold) = (c.concurrent, c.hold_lock);
        match c.phase {
            Ph::Roots => {
                if self.fly() {
                    let x = self.cycle.as_mut().and_then(|c| {
                        c.to_scan = c.to_scan.saturating_sub(1);
                        c.scanning.take()
                    });
                    if let Some(x) = x {
                        if let Some(c) = self.cycle.as_mut() {
                            c.scanned.push(x);
                        }
                        self.resume_one(x);
                    }
                    self.set_phase(Ph::FlyScan);
                } else {
                    self.set_phase(Ph::AfterRoots);
                }
            }
            Ph::Mark => self.set_phase(if concurrent { Ph::Lock2 } else { Ph::SweepWalk }),
            Ph::Remark => {
                if !hold {
                    self.unlock(t);
                }
                self.resume_all();
                self.stall_computing_mutators();
                self.set_phase(Ph::SweepWalk);
            }
            Ph::SweepWalk => self.set_phase(Ph::SweepLock),
            Ph::SweepFree => {
                self.free_batch();
                if concurrent && !hold {
                    self.unlock(t);
                }
                if let Some(c) = self.cycle.as_mut() {
                    c.batch += 1;
                }
                self.set_phase(Ph::SweepWalk);
            }
            _ => {}
        }
        self.cycle_advance();
    }

    /// The collection's snapshot at the root scan: what it will free and what it must trace. Every object alive
    /// now becomes old (GenCMS survivors).
    fn snapshot(&mut self) {
        let Some(c) = self.cycle.as_mut() else {
            return;
        };
        // A minor reclaims the young dead only; the old dead wait for a major.
        c.reclaim = std::mem::take(&mut self.dead_pieces_young);
        if !c.minor {
            c.reclaim.append(&mut self.dead_pieces_old);
        }
        if c.minor {
            c.reclaim_bytes = self.dead_young;
            c.mark_bytes = self.young_alloc.saturating_sub(self.dead_young);
        } else {
            c.reclaim_bytes = self.dead;
            c.mark_bytes = self.live;
        }
        c.allocated_at_mark = self.clock_bytes;
        let dead_share = c.reclaim_bytes as f64 / (c.reclaim_bytes + c.mark_bytes).max(1) as f64;
        let mean = self.prof.mean_object_bytes();
        if let Some(m) = self.mspace.as_mut() {
            m.snapshot(dead_share, mean);
        }
        c.heap_before = self.allocated;
        self.live_at_gc_sum += self.live as f64;
        self.live_at_gc_n += 1;
        self.epoch += 1;
        self.dead_young = 0;
        self.young_alloc = 0;
    }

    /// Stops every mutator but `except`: running or runnable ones in Java code get a safepoint poll.
    fn suspend_all(&mut self, except: usize) {
        self.suspending = true;
        let mut pending = 0;
        let fly = self.fly();
        let mut to_scan = 0;
        for x in 0..self.threads.len() {
            if x == except || !self.stops_at_safepoint(x) {
                continue;
            }
            to_scan += 1;
            if let TState::Running(core) = self.threads[x].state {
                self.settle(core);
            }
            let th = &self.threads[x];
            match th.state {
                TState::Running(_) | TState::Runnable => {
                    if th.step != Step::Poll {
                        self.run_to_safepoint(x);
                    }
                    pending += 1;
                }
                TState::Blocked(Block::Suspended) => {
                    if fly {
                        self.cycle_arrive(x);
                    }
                }
                TState::Blocked(_) => {
                    if fly {
                        self.cycle_arrive(x);
                    }
                }
            }
        }
        self.suspend_pending = pending;
        if let Some(c) = self.cycle.as_mut() {
            c.to_scan = to_scan;
        }
    }

    fn cycle_arrive(&mut self, x: usize) {
        if let Some(c) = self.cycle.as_mut() {
            c.arrivals.push_back(x);
        }
    }

    /// A mutator finished its poll: it stops; the collector may go on.
    pub(super) fn reached_safepoint(&mut self, x: usize) {
        self.block(x, Block::Suspended);
        self.start_pause(x, PauseKind::Safepoint);
        self.suspend_pending = self.suspend_pending.saturating_sub(1);
        if self.fly() {
            self.cycle_arrive(x);
        }
        let collector = self.cycle.as_ref().map(|c| c.collector);
        if let Some(c) = collector
            && self.threads[c].state == TState::Blocked(Block::WaitSuspend)
        {
            self.cycle_advance();
        }
    }

    /// Resumes one stopped mutator (restoring its interrupted work, or running its deferred wake-up).
    fn resume_one(&mut self, x: usize) {
        if self.threads[x].state != TState::Blocked(Block::Suspended) {
            return;
        }
        self.end_pause(x);
        if let Some((w, step, tag)) = self.threads[x].saved.take() {
            self.set_work(x, w, step, tag);
            self.make_runnable(x);
        } else if let Some(r) = self.threads[x].deferred.take() {
            self.set_thread_state(x, TState::Blocked(Block::Sleep));
            self.wake_mutator(x, r);
        }
    }

    /// Restarts the world.
    fn resume_all(&mut self) {
        self.suspending = false;
        // Every stopped thread: the mutators, and the background threads under `android.gc.suspend_background`.
        for x in 0..self.threads.len() {
            self.resume_one(x);
        }
    }

    /// The collection's end: free, re-size, record, wake the waiters, and the collector goes on.
    fn finish_cycle(&mut self) {
        let Some(c) = self.cycle.take() else {
            return;
        };
        let t = c.collector;
        if !c.concurrent {
            self.resume_all();
        }
        self.suspending = false;
        // Every batch has freed its share (free_batch).
        let freed = c.reclaim_bytes;
        let frag = self.cfg.heap.frag_share;
        if let Some(m) = self.mspace.as_mut() {
            m.settle(frag);
        }
        self.resize_heap(c.minor);
        self.gc_events.push(GcEvent {
            start: SimTime(c.start),
            end: SimTime(self.now),
            trigger: c.trigger,
            alloc_index: (self.clock_bytes as f64 / self.prof.mean_object_bytes()) as u64,
            heap_bytes_before: c.heap_before,
            live_bytes_after: self.allocated,
            freed_bytes: freed,
            moved_bytes: 0,
            live_objects: (c.mark_bytes as f64 / self.prof.mean_live_object_bytes()) as u64,
            work_cycles: c.gc_cycles,
            stall_cycles: 0,
            powered_banks_after: 0,
        });
        self.sample_occupancy();
        self.threads[t].nice = c.restore_nice;
        self.end_pause(t);
        self.unlock(t);
        for w in std::mem::take(&mut self.gc_waiters) {
            self.end_pause(w);
            let r = self.threads[w].on_gc_end.take().unwrap_or(Resume::Alloc);
            if self.threads[w].state == TState::Blocked(Block::WaitGc) {
                self.wake_mutator(w, r);
            }
        }
        match self.threads[t].role {
            Role::Daemon => {
                if c.trigger == Trigger::Trim {
                    let free = self.soft_limit.saturating_sub(self.allocated);
                    self.start_trim(t, free);
                } else if self.kind == crate::CollectorKind::Bg
                    && self.cfg.gc.bg_trim
                    && self.footprint > self.soft_limit
                {
                    // §4.1.2's bg trimming of an under-utilised heap (`android.gc.bg_trim`): the pages forced
                    // allocations had added above the new soft limit go back to the OS.
                    self.trigger_counts[Trigger::Trim as usize] += 1;
                    let free = self.footprint - self.allocated.min(self.footprint);
                    self.start_trim(t, free);
                } else {
                    self.daemon_idle(t, true);
                }
            }
            Role::Mutator(_) => {
                let r = if c.trigger == Trigger::Explicit {
                    Resume::Explicit
                } else {
                    Resume::Alloc
                };
                self.mutator_resume(t, r);
            }
            Role::Background | Role::Jit | Role::System(_) => {}
        }
    }
}
