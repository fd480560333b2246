//! What the threads of the simulated Dalvik process do: mutators compute, allocate cohorts under the heap lock
//! and meet at the harness's iteration barrier (where mutator 0 calls `System.gc()`); the GC daemon waits for a
//! request or its 5 s trim timeout; background threads (binder, finalizer, …) wake now and then; the JIT thread
//! compiles during the first iteration. The allocation path follows Dalvik 4.4 (models.md §1.3, §1.9) and the
//! variants of SYSTOR'15 §3.3:
//!
//! * fits under the soft limit → allocate; passing the concurrent-start threshold signals the daemon (GC-CONC);
//! * does not fit while a collection runs → wait for it (a concurrent pause), then retry;
//! * does not fit otherwise → GC-ALLOC in this thread (CMS, CMSFly: stop-the-world full GC at boosted priority;
//!   GenCMS: a minor GC, the next GC-CONC major; fg: a cycle holding the heap lock while others run); after it,
//!   grow the soft limit up to the growth limit, else out of memory;
//! * bg: never collects — it forces the allocation past the soft limit (up to the growth limit) and signals the
//!   daemon; past the growth limit it waits for the daemon.
//!
//! The heap lock is a FIFO mutex: a thread that fails to take it sleeps (Table 1's *Heap Contentions*); sleeping
//! is idle time the governor sees.

use super::state::{Block, Ev, Resume, Role, Sim, Step, TState, us_to_ns};
use crate::collector::Trigger;
use crate::cpu::{CpuTag, Work};
use crate::run::{Pause, PauseKind};
use crate::scenario::CollectorKind;
use crate::units::SimTime;

impl Sim<'_> {
    /// Gives `t` work and makes sure it will run.
    pub(super) fn go(&mut self, t: usize, work: Work, step: Step, tag: CpuTag) {
        self.set_work(t, work, step, tag);
        if matches!(self.threads[t].state, TState::Blocked(_)) {
            self.make_runnable(t);
        }
    }

    pub(super) fn start_pause(&mut self, t: usize, kind: PauseKind) {
        if self.threads[t].pause_ending {
            // Stopped again before it ran: the last pause ends here and the new one starts.
            self.close_pause(t);
        }
        if self.is_mutator(t) && self.threads[t].pause.is_none() {
            // Stopped again within the idle exit its last pause was charged: the stopped time goes on from there.
            let start = self.now.max(self.threads[t].pause_closed_until);
            self.threads[t].pause = Some((start, kind));
        }
    }

    /// The collector is done with `t`: its pause ends now, or — under `android.pauses.end = "dispatch"`, while
    /// `t` is not running — when it next gets a core ([`Sim::close_pause`] from `dispatch`).
    pub(super) fn end_pause(&mut self, t: usize) {
        if self.threads[t].pause.is_some()
            && self.cfg.pauses.end == super::config::PauseEnd::Dispatch
            && !matches!(self.threads[t].state, TState::Running(_))
        {
            self.threads[t].pause_ending = true;
            return;
        }
        self.close_pause(t);
    }

    /// Records `t`'s open pause as ending now.
    pub(super) fn close_pause(&mut self, t: usize) {
        self.close_pause_at(t, self.now);
    }

    /// Records `t`'s open pause as ending at `end` (now, or after the idle exit of the core it is dispatched to).
    pub(super) fn close_pause_at(&mut self, t: usize, end: u64) {
        self.threads[t].pause_ending = false;
        if let Some((start, kind)) = self.threads[t].pause.take()
            && let Role::Mutator(i) = self.threads[t].role
            && end > start
        {
            self.threads[t].pause_closed_until = end;
            self.pauses.push(Pause {
                mutator: i,
                start: SimTime(start),
                end: SimTime(end),
                kind,
            });
        }
    }

    // ---- heap lock ----

    /// Takes the heap lock, or queues `t` on it (asleep) and returns false; [`Sim::lock_acquired`] continues it.
    pub(super) fn try_lock(&mut self, t: usize) -> bool {
        if self.lock_holder.is_none() {
            self.lock_holder = Some(t);
            return true;
        }
        self.contentions += 1;
        let holder_is_gc = self.cfg.pauses.lock_waits
            && self
                .cycle
                .as_ref()
                .is_some_and(|c| Some(c.collector) == self.lock_holder && c.collector != t);
        if holder_is_gc {
            self.start_pause(t, PauseKind::ConcurrentWait);
        }
        self.lock_waiters.push_back(t);
        self.block(t, Block::Lock);
        false
    }

    /// Releases the heap lock, handing it to the first waiter.
    pub(super) fn unlock(&mut self, t: usize) {
        debug_assert_eq!(self.lock_holder, Some(t), "unlock by a non-holder");
        self.lock_holder = None;
        if let Some(w) = self.lock_waiters.pop_front() {
            self.lock_holder = Some(w);
            let is_collector = self.cycle.as_ref().is_some_and(|c| c.collector == w);
            if !is_collector
                && self.threads[w]
                    .pause
                    .is_some_and(|(_, k)| k == PauseKind::ConcurrentWait)
            {
                self.end_pause(w);
            }
            self.push(self.now, Ev::LockGranted { t: w });
        }
    }

    // ---- mutators ----

    pub(super) fn mut_index(&self, t: usize) -> usize {
        match self.threads[t].role {
            Role::Mutator(i) => i as usize,
            _ => 0,
        }
    }

    /// Wakes a blocked mutator with `r` at the current time, as an event of its own.
    pub(super) fn wake_mutator(&mut self, t: usize, r: Resume) {
        self.push(self.now, Ev::Resume { t, r });
    }

    /// The wake-up event: runs `r` — or, while the world is stopped, parks the mutator at a safepoint until
    /// resumed.
    pub(super) fn resume_event(&mut self, t: usize, r: Resume) {
        if !matches!(self.threads[t].state, TState::Blocked(_)) {
            return;
        }
        let collector = self.cycle.as_ref().map(|c| c.collector);
        // CMSFly (§3.2, `android.gc.fly_scanned_run`): a thread whose roots are scanned runs on; only the others
        // stop at the safepoint.
        let scanned = self.cfg.gc.fly_scanned_run
            && self.cycle.as_ref().is_some_and(|c| c.scanned.contains(&t));
        if self.suspending && collector != Some(t) && !scanned {
            self.threads[t].deferred = Some(r);
            self.set_thread_state(t, TState::Blocked(Block::Suspended));
            self.start_pause(t, PauseKind::Safepoint);
            return;
        }
        self.mutator_resume(t, r);
    }

    pub(super) fn mutator_resume(&mut self, t: usize, r: Resume) {
        match r {
            Resume::Next => self.mutator_next(t),
            Resume::Alloc => self.mutator_alloc(t),
            Resume::Explicit => self.do_explicit(t),
            Resume::AfterBarrier => self.after_barrier(t),
        }
    }

    /// Starts the compute that precedes the next cohort, or ends the iteration.
    pub(super) fn mutator_next(&mut self, t: usize) {
        let i = self.mut_index(t);
        let left = self.mutators[i].left_in_iteration;
        if left == 0 {
            self.iteration_end(t);
            return;
        }
        let n = self.next_request(i, left);
        self.mutators[i].cohort = n;
        // The cohort's compute with all but its last allocation interleaved (each a short heap-lock hold).
        let objects = self.request_objects(i, n);
        let compute_us = self.prof.mutator_us_per_kib * n as f64 / 1024.0;
        // A chained JIT loop's compute done ahead (mechanism 12) is repaid over the following computes, at most
        // half of each [E]: repaid at once, the allocations the uniform profile interleaves with that compute would
        // come as a burst the program does not have.
        let ahead_us = (0.5 * compute_us).min(self.mutators[i].loop_ahead_us);
        self.mutators[i].loop_ahead_us -= ahead_us;
        let us = compute_us - ahead_us
            + (objects - 1.0).max(0.0) * self.cfg.gc.alloc_ns_per_object / 1000.0;
        let debt = std::mem::take(&mut self.mutators[i].switch_debt_us);
        let mut w = self.work_us(us, self.prof.mutator_stall_fraction);
        w.cycles += self.work_us(debt, 0.0).cycles;
        self.go(t, w, Step::Compute, CpuTag::Mutator);
        if self.collector_holds_lock() {
            self.stall_on_heap_lock(t);
        }
    }

    /// The size of mutator `i`'s next request, at most `left`: a cohort of small objects, or — when the profile
    /// has `[android.large_objects]` and the stream owes a large object — one large object (its size uniform in
    /// `min_kib..max_kib`, drawn when the previous one was requested). Small cohorts add `share / (1 − share)`
    /// of their bytes to the stream's credit, so large objects make `share` of the bytes allocated.
    fn next_request(&mut self, i: usize, left: u64) -> u64 {
        let cohort = left.min(self.cfg.engine.cohort_bytes.0);
        let Some(lo) = self.prof.active_large_objects() else {
            return cohort;
        };
        let m = &mut self.mutators[i];
        if m.next_large_bytes == 0 {
            let kib = lo.min_kib + (lo.max_kib - lo.min_kib) * self.rng.next_f64();
            m.next_large_bytes = (kib * 1024.0).round().max(1.0) as u64;
        }
        // A large object that does not fit in what is left of the iteration waits for the next one.
        m.large = m.large_credit_bytes >= m.next_large_bytes as f64 && left >= m.next_large_bytes;
        if m.large {
            let n = m.next_large_bytes;
            m.large_credit_bytes -= n as f64;
            m.next_large_bytes = 0;
            return n;
        }
        m.large_credit_bytes += cohort as f64 * lo.share / (1.0 - lo.share);
        cohort
    }

    /// Whether mutator `i`'s pending request of `n` bytes finds room in one piece: always for a cohort of small
    /// objects (the byte check decides) and after a grow; for a large object, the heap map decides.
    fn fits_whole(&mut self, i: usize, n: u64) -> bool {
        let m = &self.mutators[i];
        let soft_limit = self.soft_limit;
        !m.large
            || m.grown
            || self
                .layout
                .as_mut()
                .is_none_or(|l| l.fits_whole(n, soft_limit))
    }

    /// Whether the mspace can place mutator `i`'s pending request of `need` chunk bytes below its footprint
    /// limit (`android.heap.footprint_limit`): always without it, after a grow, and for a large object (the heap
    /// map decides those, [`Sim::fits_whole`]).
    fn fits_mspace(&self, i: usize, need: u64) -> bool {
        let m = &self.mutators[i];
        m.large || m.grown || self.mspace.as_ref().is_none_or(|s| s.fits(need))
    }

    /// Objects in mutator `i`'s pending request of `n` bytes: one for a large object.
    fn request_objects(&self, i: usize, n: u64) -> f64 {
        if self.mutators[i].large {
            1.0
        } else {
            self.objects_in(n)
        }
    }

    /// The cohort's compute is done. Its interleaved allocations met the other running mutators' allocations
    /// on the heap lock: each object found it held with probability `1 − (1 − h)^k` (k other mutators
    /// computing, each holding the lock a share h of its time); each such contention sleeps
    /// `contention_sleep_us` (Table 1's Heap Contentions; sleeping is idle time the governor sees) and costs two
    /// context switches. Then the last allocation takes the lock in earnest.
    pub(super) fn mutator_computed(&mut self, t: usize) {
        let i = self.mut_index(t);
        let n = self.mutators[i].cohort;
        let objects = self.request_objects(i, n);
        // Only mutators compute cohorts; they are the first threads (`simulate`).
        let k = self.threads[..self.mutator_count]
            .iter()
            .enumerate()
            .filter(|(x, th)| {
                *x != t && th.step == Step::Compute && matches!(th.state, TState::Running(_))
            })
            .count();
        let alloc_ns = self.cfg.gc.alloc_ns_per_object;
        let per_object_ns =
            self.prof.mean_object_bytes() / 1024.0 * self.prof.mutator_us_per_kib * 1000.0;
        let h = alloc_ns / (alloc_ns + per_object_ns).max(1e-9);
        let p = 1.0 - (1.0 - h).powi(k as i32);
        let expected = objects * p;
        let c = (expected + self.rng.next_f64()).floor() as u64;
        if c == 0 {
            self.mutator_alloc(t);
            return;
        }
        self.contentions += c;
        self.context_switches += 2 * c;
        let sleep_us = c as f64 * self.cfg.gc.contention_sleep_us;
        let switch_us = 2.0 * c as f64 * self.cfg.sched.context_switch_us;
        self.mutators[i].switch_debt_us += switch_us;
        self.threads[t].on_gc_end = None;
        self.mutators[i].after_sleep = Resume::Alloc;
        self.sleep_until(t, self.now + us_to_ns(sleep_us).max(1));
    }

    /// True while a collection holds the heap lock outside a stop-the-world phase (its sweep's locked halves,
    /// fg's whole cycle): a mutator computing now meets it at its next interleaved allocation.
    pub(super) fn collector_holds_lock(&self) -> bool {
        !self.suspending
            && (self
                .cycle
                .as_ref()
                .is_some_and(|c| Some(c.collector) == self.lock_holder)
                || self.trim_holds_lock)
    }

    /// `t` is computing a cohort while the collector holds the heap lock: its next interleaved allocation (one
    /// object's compute away — well under a microsecond, taken as now) blocks on the lock. The rest of the
    /// compute waits in `lock_interrupted`; the lock's FIFO hands it over after the collector's hold, and
    /// [`Sim::mutator_locked`] releases it at once and resumes the compute. A contention (Table 1), a concurrent
    /// pause (§2.4.2: waiting for the collector's lock), and real context switches (the scheduler charges them).
    pub(super) fn stall_on_heap_lock(&mut self, t: usize) {
        if !self.is_mutator(t) || self.threads[t].step != Step::Compute {
            return;
        }
        match self.threads[t].state {
            TState::Running(core) => self.settle(core),
            TState::Runnable => {}
            TState::Blocked(_) => return,
        }
        let i = self.mut_index(t);
        self.mutators[i].lock_interrupted = Some(self.threads[t].work);
        let got = self.try_lock(t);
        debug_assert!(!got, "the collector holds the lock");
    }

    /// The collector has just taken the heap lock outside a stop-the-world phase: every computing mutator
    /// stalls at its next allocation.
    pub(super) fn stall_computing_mutators(&mut self) {
        if !self.collector_holds_lock() {
            return;
        }
        // The mutators are the first threads (`simulate`); stall_on_heap_lock passes over the others.
        for x in 0..self.mutator_count {
            self.stall_on_heap_lock(x);
        }
    }

    /// The collector has just taken the heap lock for a short hold of `hold_us` (one concurrent-sweep buffer,
    /// `android.gc.sweep_per_buffer`): a computing mutator meets it only if its next interleaved allocation falls
    /// inside the hold — with allocations one object's compute apart (`per_object_ns`) and the hold starting at a
    /// random point of that interval, with probability min(1, hold / per_object_ns).
    pub(super) fn stall_allocating_mutators(&mut self, hold_us: f64) {
        if !self.collector_holds_lock() {
            return;
        }
        let per_object_ns =
            self.prof.mean_object_bytes() / 1024.0 * self.prof.mutator_us_per_kib * 1000.0;
        let p = (hold_us * 1000.0 / per_object_ns.max(1e-9)).min(1.0);
        // The mutators are the first threads (`simulate`); the others draw nothing here.
        for x in 0..self.mutator_count {
            if self.is_mutator(x)
                && self.threads[x].step == Step::Compute
                && matches!(self.threads[x].state, TState::Running(_))
                && self.rng.next_f64() < p
            {
                self.stall_on_heap_lock(x);
            }
        }
    }

    /// The cohort's compute is done: allocate it (takes the heap lock).
    pub(super) fn mutator_alloc(&mut self, t: usize) {
        if self.try_lock(t) {
            self.mutator_locked(t);
        }
    }

    fn objects_in(&self, bytes: u64) -> f64 {
        bytes as f64 / self.prof.mean_object_bytes()
    }

    /// Holding the heap lock: the allocation path of models.md §1.3.
    pub(super) fn mutator_locked(&mut self, t: usize) {
        let i = self.mut_index(t);
        if let Some(w) = self.mutators[i].lock_interrupted.take() {
            // An interleaved allocation that waited for the collector: allocate, release, compute on.
            self.unlock(t);
            self.go(t, w, Step::Compute, CpuTag::Mutator);
            return;
        }
        let n = self.mutators[i].cohort;
        // bytesAllocated counts chunks (android.heap.chunk_accounting).
        let need = self.heap_bytes(n);
        let fits_soft = self.allocated + need <= self.soft_limit
            && self.fits_whole(i, n)
            && self.fits_mspace(i, need);
        let fits_growth = self.allocated + need <= self.growth_limit;
        let bg = self.kind == CollectorKind::Bg;
        // The what-if `android.gc.fg_others_wait = false`: beside a running fg cycle, force as bg does.
        let force = bg || (!self.cfg.gc.fg_others_wait && self.fg_cycle_running());
        if fits_soft || (force && fits_growth) {
            if !fits_soft {
                if bg {
                    self.signal_daemon(Trigger::Alloc);
                }
                if let Some(m) = self.mspace.as_mut() {
                    m.grow_for(need);
                }
            }
            // The cohort's last allocation (the others were interleaved with its compute), its page faults.
            let us = self.request_objects(i, n).min(1.0) * self.cfg.gc.alloc_ns_per_object / 1e3;
            let w = self.work_us(us, self.prof.mutator_stall_fraction) + self.fault_in(need);
            self.go(t, w, Step::Alloc, CpuTag::Mutator);
            return;
        }
        let retried = self.mutators[i].after_gc_for_alloc;
        let large = self.mutators[i].large;
        if !fits_soft && !bg && !retried && !large && self.soft_limit > self.allocated {
            // The cohort's objects are allocated one by one: those below the soft limit (and, under
            // `android.heap.footprint_limit`, those the mspace can place) succeed, the first one past it fails
            // (models.md §1.3) — the cohort is not refused whole, which would shrink the 128 KiB between the
            // concurrent trigger and the limit by up to a cohort.
            let soft_room = self.soft_limit - self.allocated;
            let room = self
                .mspace
                .as_ref()
                .map_or(soft_room, |m| m.fit_prefix(need).min(soft_room));
            let room = self.request_bytes(room);
            self.allocate_part(t, room);
        }
        if self.cycle.is_some() {
            self.alloc_waits += 1;
            // tryMalloc retries once after the wait, then grows — no second collection (models.md §1.3).
            self.mutators[i].after_gc_for_alloc = true;
            self.unlock(t);
            self.wait_gc(t, Resume::Alloc);
            return;
        }
        if bg {
            // Past the growth limit: only the daemon can make room.
            if !retried && self.daemon.is_some() {
                self.mutators[i].after_gc_for_alloc = true;
                self.unlock(t);
                self.signal_daemon(Trigger::Alloc);
                self.wait_gc(t, Resume::Alloc);
                return;
            }
            self.out_of_memory(t);
            return;
        }
        if retried {
            if fits_growth {
                // Grow: the soft limit, and for a large object the footprint, give way for this allocation
                // (dvmHeapSourceAllocAndGrow).
                self.soft_limit = self.soft_limit.max(self.allocated + need);
                if let Some(m) = self.mspace.as_mut() {
                    m.grow_for(need);
                }
                self.mutators[i].grown = true;
                self.mutators[i].after_gc_for_alloc = false;
                self.mutator_locked(t);
                return;
            }
            self.out_of_memory(t);
            return;
        }
        self.mutators[i].after_gc_for_alloc = true;
        match self.kind {
            CollectorKind::Fg => self.start_cycle(t, Trigger::Alloc, true, true, false),
            CollectorKind::Gencms => {
                self.next_major = true;
                self.start_cycle(t, Trigger::Alloc, false, false, true);
            }
            _ => self.start_cycle(t, Trigger::Alloc, false, false, false),
        }
    }

    /// Holding the heap lock, the first `bytes` of mutator `t`'s cohort succeed on their own (the rest of the
    /// cohort stays to be allocated); a success past the concurrent trigger signals the daemon.
    fn allocate_part(&mut self, t: usize, bytes: u64) {
        let i = self.mut_index(t);
        let bytes = bytes.min(self.mutators[i].cohort.saturating_sub(1));
        if bytes == 0 {
            return;
        }
        self.place_cohort(bytes, i as u32);
        self.mutators[i].left_in_iteration -= bytes;
        self.mutators[i].cohort -= bytes;
        self.concurrent_trigger();
    }

    fn out_of_memory(&mut self, t: usize) {
        self.oom = true;
        self.unlock(t);
        self.block(t, Block::Done);
    }

    /// The cohort is allocated: heap accounting, the concurrent trigger, then the next cohort.
    pub(super) fn commit_alloc(&mut self, t: usize) {
        let i = self.mut_index(t);
        let n = self.mutators[i].cohort;
        if self.mutators[i].large {
            self.place_object(n, i as u32);
        } else {
            self.place_cohort(n, i as u32);
        }
        self.mutators[i].left_in_iteration -= n;
        self.mutators[i].after_gc_for_alloc = false;
        self.mutators[i].grown = false;
        if self.mutators[i].iteration == 0 && self.jit.is_some() {
            self.jit_credit += self.jit_per_cohort;
            if self.jit_credit >= 1.0 {
                let whole = self.jit_credit.floor();
                self.jit_credit -= whole;
                self.jit_queue += whole as u32;
                self.jit_kick();
            }
        }
        self.unlock(t);
        self.concurrent_trigger();
        let think = self.prof.think_us_per_kib * n as f64 / 1024.0;
        if think > 0.0 {
            let mean_ns = think * 1000.0;
            let d = (-(1.0f64 - self.rng.next_f64()).ln() * mean_ns) as u64;
            self.threads[t].on_gc_end = None;
            self.mutators[i].after_sleep = Resume::Next;
            self.sleep_until(t, self.now + d.max(1));
        } else {
            self.mutator_next(t);
        }
    }

    /// Blocks `t` until the running collection ends (a concurrent pause), then `r`.
    pub(super) fn wait_gc(&mut self, t: usize, r: Resume) {
        self.threads[t].on_gc_end = Some(r);
        self.gc_waiters.push(t);
        self.start_pause(t, PauseKind::ConcurrentWait);
        self.block(t, Block::WaitGc);
    }

    fn iteration_end(&mut self, t: usize) {
        let i = self.mut_index(t);
        self.mutators[i].iteration += 1;
        self.at_barrier += 1;
        if self.at_barrier < self.mutator_count as u32 {
            self.block(t, Block::Barrier);
            return;
        }
        self.at_barrier = 0;
        // Explicit GCs of this iteration end: E spread over I boundaries.
        let (e, iters) = (
            u64::from(self.prof.explicit_gcs),
            u64::from(self.prof.iterations),
        );
        let k = u64::from(self.mutators[i].iteration);
        let count = (e * k / iters - e * (k - 1) / iters) as u32;
        let m0 = self.mutator_thread(0);
        self.mutators[0].explicit_left = count;
        if t == m0 {
            self.do_explicit(t);
        } else {
            self.block(t, Block::Barrier);
            self.wake_mutator(m0, Resume::Explicit);
        }
    }

    pub(super) fn mutator_thread(&self, i: usize) -> usize {
        self.threads
            .iter()
            .position(|th| th.role == Role::Mutator(i as u32))
            .unwrap_or(0)
    }

    /// Mutator 0 at an iteration end: the next explicit GC, or release the barrier.
    pub(super) fn do_explicit(&mut self, t: usize) {
        if self.mutators[0].explicit_left == 0 {
            for m in 0..self.mutator_count {
                let mt = self.mutator_thread(m);
                if mt != t && self.threads[mt].state == TState::Blocked(Block::Barrier) {
                    self.wake_mutator(mt, Resume::AfterBarrier);
                }
            }
            self.after_barrier(t);
            return;
        }
        if self.cycle.is_some() {
            self.wait_gc(t, Resume::Explicit);
            return;
        }
        self.mutators[0].explicit_left -= 1;
        match self.kind {
            CollectorKind::Bg if self.daemon.is_some() => {
                self.signal_daemon(Trigger::Explicit);
                self.do_explicit(t);
            }
            CollectorKind::Gencms => {
                self.next_major = true;
                self.start_cycle(t, Trigger::Explicit, true, false, true);
            }
            _ => self.start_cycle(t, Trigger::Explicit, true, false, false),
        }
    }

    fn after_barrier(&mut self, t: usize) {
        let i = self.mut_index(t);
        if self.mutators[i].iteration >= self.prof.iterations {
            self.done_mutators += 1;
            if matches!(self.threads[t].state, TState::Blocked(_)) {
                self.set_thread_state(t, TState::Blocked(Block::Done));
            } else {
                self.block(t, Block::Done);
            }
            return;
        }
        self.mutators[i].left_in_iteration = self.per_iteration_bytes;
        self.mutator_next(t);
    }
}
