//! The android-krait scheduler: Linux 3.4's CFS on the Krait cores [P: Linux 3.4 kernel/sched/fair.c, core.c].
//!
//! Virtual runtime advances by run time × 1024 / weight(nice) (`prio_to_weight`); a woken thread's is raised to
//! `min_vruntime − latency/2` (`place_entity`, GENTLE_FAIR_SLEEPERS) and it preempts the running thread when more
//! deserving by the wake-up granularity; slices are `latency × weight / Σweights`, at least the minimum
//! granularity (mechanism 1 of issue #16 scales these as 3.4 does, `android.sched.cfs_3_4`).
//!
//! **Per-core run queues** (`android.sched.per_core_rq = true`, the default — what Linux 3.4 does): each core has
//! its own queue and `min_vruntime`, and a queued thread waits for *its* core even when another idles.
//! * Wake-up (`select_task_rq_fair` with the MC domain's SD_WAKE_AFFINE): the waker's core if `wake_affine`
//!   says so, else the thread's previous core; then `select_idle_sibling` takes that core if idle, else the first
//!   idle core of the shared-L2 domain scanning from it, else queues there. A thread's virtual runtime moves
//!   between queues relative to their `min_vruntime` (`task_waking_fair`).
//! * Newly idle balancing (`idle_balance`, on a core about to idle): skipped when the core's `avg_idle` is below
//!   `sysctl_sched_migration_cost` (0.5 ms) — a core whose idle periods are short does not look for work; else it
//!   pulls one queued thread (CONFIG_PREEMPT stops after one) that is not cache-hot.
//! * Periodic balancing (`rebalance_domains` at the scheduler tick, HZ = 100): a busy core every
//!   `balance_interval × busy_factor` ms (64–256 ms, in jiffies), idle cores every `balance_interval` (one jiffy)
//!   when a busy core's tick kicks the NOHZ idle balancer (`nohz_kick_needed`: a core running ≥ 2 threads, or
//!   more than one core busy). `load_balance` pulls from the busiest queue what halves the imbalance
//!   (`calculate_imbalance`, `fix_small_imbalance`), skipping threads that ran within the migration cost unless
//!   balancing failed more than `cache_nice_tries` times. The domain parameters are SD_MC_INIT's.
//! * Hotplug: an offlined core's threads move to the first online core (`migrate_tasks` → `select_fallback_rq`).
//!
//! Balancing and hotplug migration live in [`super::balance`]; wake-up placement, queues and dispatch here.
//!
//! Simplifications: loads are instantaneous weights (3.4 uses `cpu_load[busy_idx = 2]`, a decayed average, for
//! busy balancing), no active balancing (pushing a *running* thread), the waker's core is known only for wake-ups
//! done by a running thread's work completing (otherwise the previous core is the target).
//!
//! With `per_core_rq = false`: one system-wide queue; a woken thread runs on its previous core if idle, else any
//! idle core, else waits; an idle core takes the most deserving queued thread (preferring one that last ran
//! there within the wake-up granularity) — the model before this mechanism.

use super::balance::SD_IMBALANCE_PCT;
use super::state::{Block, Ev, Sim, TState, reframe, set_state, weight};
use crate::cpu::CpuChange;
use crate::units::SimTime;

impl Sim<'_> {
    pub(super) fn per_core(&self) -> bool {
        self.cfg.sched.per_core_rq
    }

    /// Linux 3.4's tunable factor `1 + ilog2(min(online CPUs, 8))` (`get_update_sysctl_factor`, re-applied by
    /// `update_sysctl()` at every hotplug), or 1 with `android.sched.cfs_3_4` off.
    fn sched_factor(&self) -> u64 {
        if !self.cfg.sched.cfs_3_4 {
            return 1;
        }
        let online = self.cpu.online_count().clamp(1, 8) as u64;
        1 + u64::from(online.ilog2())
    }

    /// sched_latency in force now. `[ns]`
    pub(super) fn latency_ns(&self) -> u64 {
        self.sched_ns.latency * self.sched_factor()
    }

    /// sched_min_granularity in force now. `[ns]`
    fn min_granularity_ns(&self) -> u64 {
        self.sched_ns.min_granularity * self.sched_factor()
    }

    /// The wake-up granularity for thread `t`, in its virtual time: `wakeup_gran()` = `calc_delta_fair(gran, se)`
    /// = gran × 1024 / weight(se) under `cfs_3_4`. `[ns of vruntime]`
    fn wakeup_gran_ns(&self, t: usize) -> u64 {
        let g = self.sched_ns.wakeup_granularity * self.sched_factor();
        if self.cfg.sched.cfs_3_4 {
            g * 1024 / weight(self.threads[t].nice)
        } else {
            g
        }
    }

    pub(super) fn migration_cost_ns(&self) -> u64 {
        self.sched_ns.migration_cost
    }

    pub(super) fn jiffy_ns(&self) -> u64 {
        self.sched_ns.jiffy
    }

    /// No thread waits for `core` (per-core queues) or for any core (one queue).
    pub(super) fn queue_empty(&self, core: usize) -> bool {
        if self.per_core() {
            self.rqs[core].queue.is_empty()
        } else {
            self.runq.is_empty()
        }
    }

    /// Takes a runnable (not running) thread off its queue.
    pub(super) fn dequeue(&mut self, t: usize) {
        if self.per_core() {
            let c = self.threads[t].rq_core;
            self.rqs[c].queue.retain(|&x| x != t);
        } else {
            self.runq.retain(|&x| x != t);
        }
    }

    /// `rq->load.weight`: the running thread's and the queued threads' weights.
    pub(super) fn rq_load(&self, core: usize) -> u64 {
        self.cores[core]
            .running
            .map_or(0, |t| weight(self.threads[t].nice))
            + self.rqs[core]
                .queue
                .iter()
                .map(|&x| weight(self.threads[x].nice))
                .sum::<u64>()
    }

    pub(super) fn nr_running(&self, core: usize) -> usize {
        usize::from(self.cores[core].running.is_some()) + self.rqs[core].queue.len()
    }

    /// `idle_cpu()`: online, nothing running, nothing queued.
    fn core_idle(&self, core: usize) -> bool {
        self.cpu.is_online(core) && self.nr_running(core) == 0
    }

    /// Makes a blocked thread runnable (its work must be set).
    pub(super) fn make_runnable(&mut self, t: usize) {
        debug_assert!(
            matches!(self.threads[t].state, TState::Blocked(_)),
            "only a blocked thread can be made runnable"
        );
        if self.per_core() {
            let target = self.select_task_rq(t);
            self.wake_onto(t, target);
            self.report_runnable();
            return;
        }
        // place_entity() with GENTLE_FAIR_SLEEPERS: a sleeper's credit is half the (scaled) latency.
        let floor = self.min_vruntime.saturating_sub(self.latency_ns() / 2);
        let th = &mut self.threads[t];
        th.vruntime = th.vruntime.max(floor);
        set_state(th, &mut self.active_threads, TState::Runnable);
        th.runnable_since = self.now;
        let online: Vec<usize> = (0..self.cores.len())
            .filter(|&c| self.cpu.is_online(c) && self.cores[c].running.is_none())
            .collect();
        let pick = th
            .last_core
            .filter(|c| online.contains(c))
            .or_else(|| online.first().copied());
        if let Some(core) = pick {
            self.dispatch(t, core);
        } else {
            self.runq.push(t);
            self.wakeup_preempt(t);
            self.arm_slices();
        }
        self.report_runnable();
    }

    /// The first online core (`select_fallback_rq`'s `cpumask_any` of the active CPUs).
    pub(super) fn fallback_core(&self) -> usize {
        (0..self.cores.len())
            .find(|&c| self.cpu.is_online(c))
            .unwrap_or(0)
    }

    /// `select_task_rq_fair` for a wake-up (Linux 3.4): the MC domain has SD_WAKE_AFFINE and no
    /// SD_BALANCE_WAKE, so the target is the waker's core when `wake_affine` agrees (or it is the previous core),
    /// else the previous core, refined by `select_idle_sibling`. A previous core that is offline is not in the
    /// domain: `select_fallback_rq`.
    fn select_task_rq(&self, t: usize) -> usize {
        let Some(prev) = self.threads[t].last_core.filter(|&c| self.cpu.is_online(c)) else {
            return self.fallback_core();
        };
        let waker = self.waker_core.filter(|&c| self.cpu.is_online(c));
        let mut target = prev;
        if let Some(w) = waker
            && (w == prev || self.wake_affine(t, w, prev))
        {
            target = w;
        }
        // select_idle_sibling: the target if idle (it is the waker's core or the previous one), else the first
        // idle core of the shared-cache domain scanning from the target's group, else the target.
        if self.core_idle(target) {
            return target;
        }
        let n = self.cores.len();
        (0..n)
            .map(|i| (target + i) % n)
            .find(|&c| self.core_idle(c))
            .unwrap_or(target)
    }

    /// `wake_affine()` (sync = 0, wake_idx 0, no group scheduling): pull the wakee to the waker's core when that
    /// core with the wakee added is not busier than the previous core by more than half the imbalance margin,
    /// or when the waker's core is the lighter and the two together carry less than one of its threads.
    fn wake_affine(&self, t: usize, this: usize, prev: usize) -> bool {
        let w = weight(self.threads[t].nice);
        let (this_load, load) = (self.rq_load(this), self.rq_load(prev));
        let imbalance = 100 + (SD_IMBALANCE_PCT - 100) / 2;
        let balanced = this_load == 0 || 100 * (this_load + w) <= imbalance * load;
        let per_task = this_load / (self.nr_running(this).max(1) as u64);
        balanced || (this_load <= load && this_load + load <= per_task)
    }

    /// Enqueues a woken thread on `core` (per-core queues): re-framed virtual runtime, sleeper credit, the idle
    /// core's `avg_idle`, then dispatch on an idle core or the wake-up preemption check.
    fn wake_onto(&mut self, t: usize, core: usize) {
        let from = self.threads[t].last_core.unwrap_or(core);
        // enqueue_entity: update_curr → update_min_vruntime on the target queue before place_entity.
        if self.cfg.sched.fresh_min_vruntime {
            self.rqs[core].min_vruntime = self.current_min_vruntime(core);
        }
        let v = reframe(
            self.threads[t].vruntime,
            self.rqs[from].min_vruntime,
            self.rqs[core].min_vruntime,
        );
        let floor = self.rqs[core]
            .min_vruntime
            .saturating_sub(self.latency_ns() / 2);
        let th = &mut self.threads[t];
        th.vruntime = v.max(floor);
        set_state(th, &mut self.active_threads, TState::Runnable);
        th.runnable_since = self.now;
        // ttwu_do_wakeup: a core that idled through idle_balance updates its average idle time.
        let max = 2 * self.migration_cost_ns();
        let rq = &mut self.rqs[core];
        if let Some(stamp) = rq.idle_stamp.take() {
            let delta = self.now - stamp;
            rq.avg_idle_ns = if delta > max {
                max
            } else {
                // update_avg(): avg += (sample − avg) / 8
                (rq.avg_idle_ns as i64 + (delta as i64 - rq.avg_idle_ns as i64) / 8) as u64
            };
        }
        self.place_on(t, core);
    }

    /// `update_min_vruntime()` (Linux 3.4 kernel/sched/fair.c) as of now: the queue's `min_vruntime` raised to the
    /// smaller of the running thread's virtual runtime (advanced by what it has run since its last accounting)
    /// and the leftmost queued thread's; never lowered. `[ns of vruntime]`
    pub(super) fn current_min_vruntime(&self, core: usize) -> u64 {
        let stored = self.rqs[core].min_vruntime;
        let curr = self.cores[core].running.map(|r| {
            let th = &self.threads[r];
            th.vruntime + (self.now - th.seg_start) * 1024 / weight(th.nice)
        });
        let leftmost = self.rqs[core]
            .queue
            .iter()
            .map(|&x| self.threads[x].vruntime)
            .min();
        let v = match (curr, leftmost) {
            (Some(c), Some(l)) => c.min(l),
            (Some(c), None) => c,
            (None, Some(l)) => l,
            (None, None) => stored,
        };
        stored.max(v)
    }

    /// Puts runnable `t` (virtual runtime already in `core`'s frame) on `core`: runs it there if the core is
    /// idle, else queues it, checks wake-up preemption of the core's thread and arms its slice.
    pub(super) fn place_on(&mut self, t: usize, core: usize) {
        self.threads[t].rq_core = core;
        if self.cpu.is_online(core) && self.nr_running(core) == 0 {
            self.dispatch(t, core);
        } else {
            self.rqs[core].queue.push(t);
            self.check_preempt(t, core);
            self.arm_slice(core);
        }
    }

    /// `check_preempt_wakeup` on one core: preempt its thread when `t` leads it by the wake-up granularity.
    pub(super) fn check_preempt(&mut self, t: usize, core: usize) {
        let Some(r) = self.cores[core].running else {
            return;
        };
        let th = &self.threads[r];
        let v = th.vruntime + (self.now - th.seg_start) * 1024 / weight(th.nice);
        if self.threads[t].vruntime + self.wakeup_gran_ns(t) < v {
            self.preempt(core);
        }
    }

    fn wakeup_preempt(&mut self, t: usize) {
        let gran = self.wakeup_gran_ns(t);
        let mut victim: Option<(u64, usize)> = None;
        // Linux 3.4 enqueues a woken task on one CPU (select_task_rq_fair: its previous CPU when no idle one is
        // found) and `check_preempt_wakeup` tests only that CPU's current task; without `cfs_3_4`, the running
        // thread with the largest virtual runtime anywhere.
        let target = self.threads[t]
            .last_core
            .filter(|&c| self.cfg.sched.cfs_3_4 && self.cores[c].running.is_some());
        for core in 0..self.cores.len() {
            if target.is_some_and(|c| c != core) {
                continue;
            }
            if let Some(r) = self.cores[core].running {
                let th = &self.threads[r];
                let v = th.vruntime + (self.now - th.seg_start) * 1024 / weight(th.nice);
                if victim.is_none_or(|(best, _)| v > best) {
                    victim = Some((v, core));
                }
            }
        }
        if let Some((v, core)) = victim
            && self.threads[t].vruntime + gran < v
        {
            self.preempt(core);
        }
    }

    pub(super) fn preempt(&mut self, core: usize) {
        let Some(r) = self.cores[core].running else {
            return;
        };
        self.settle(core);
        self.close_activity(core);
        self.cores[core].running = None;
        let th = &mut self.threads[r];
        set_state(th, &mut self.active_threads, TState::Runnable);
        th.runnable_since = self.now;
        th.token += 1;
        th.rq_core = core;
        if self.per_core() {
            self.rqs[core].queue.push(r);
        } else {
            self.runq.push(r);
        }
        self.pick_next(core);
    }

    fn dispatch(&mut self, t: usize, core: usize) {
        // Mechanism 2: an idle core first leaves its low-power mode; the thread is still on the run queue. The exit
        // is added to what the thread experiences (its pause, its delayed time), not to the schedule: it is at most
        // 0.5 ms, the mode's entry/exit energy is already charged on entry (cpu::power), and cpuidle counts the
        // exit as idle time, which is what ondemand sees.
        let exit_ns = if self.cfg.pauses.idle_exit {
            self.cpu.idle_exit_ns(core)
        } else {
            0
        };
        if self.threads[t].pause_ending {
            self.close_pause_at(t, self.now + exit_ns);
        }
        // The switch's and the migration's costs (`context_switch_us`, `migration_us`), as cycles at the reference
        // clock ([`super::state::SchedNs`]).
        let switched = self.cores[core].last_thread != Some(t);
        // The app's switches only (the other processes' are theirs; their cost is still run).
        if switched && !self.is_system(t) {
            self.context_switches += 1;
        }
        let th = &mut self.threads[t];
        let migrated = th.last_core.is_some_and(|c| c != core);
        if migrated {
            th.migrations += 1;
        }
        th.delayed_ns += self.now - th.runnable_since + exit_ns;
        th.last_core = Some(core);
        th.rq_core = core;
        set_state(th, &mut self.active_threads, TState::Running(core));
        th.seg_start = self.now;
        let sw = &self.sched_ns.switch_cycles;
        th.work.cycles += match (switched, migrated) {
            (true, true) => sw[2],
            (true, false) => sw[0],
            (false, true) => sw[1],
            (false, false) => 0,
        };

        let (tag, v) = (th.tag, th.vruntime);
        if self.per_core() {
            let rq = &mut self.rqs[core];
            rq.min_vruntime = rq.min_vruntime.max(v);
        } else {
            self.min_vruntime = self.min_vruntime.max(v);
        }
        let slot = &mut self.cores[core];
        slot.running = Some(t);
        slot.last_thread = Some(t);
        slot.activity_start = self.now;
        self.cpu.set_busy(core, SimTime(self.now), tag);
        self.schedule_completion(t, core);
        self.arm_slice(core);
    }

    fn arm_slices(&mut self) {
        for core in 0..self.cores.len() {
            if self.cores[core].running.is_some() {
                self.arm_slice(core);
            }
        }
    }

    /// Schedules the end of the running thread's slice when others wait (for this core, with per-core queues).
    pub(super) fn arm_slice(&mut self, core: usize) {
        if self.queue_empty(core) {
            return;
        }
        let Some(t) = self.cores[core].running else {
            return;
        };
        let (latency, min_gran) = (self.latency_ns(), self.min_granularity_ns());
        let queue = if self.per_core() {
            &self.rqs[core].queue
        } else {
            &self.runq
        };
        let total: u64 = queue
            .iter()
            .map(|&x| weight(self.threads[x].nice))
            .sum::<u64>()
            + weight(self.threads[t].nice);
        let slice = (latency * weight(self.threads[t].nice) / total.max(1)).max(min_gran);
        let slot = &mut self.cores[core];
        slot.slice_token += 1;
        let token = slot.slice_token;
        let mut at = self.threads[t].seg_start.max(self.now) + slice;
        if self.cfg.sched.slice_at_tick {
            // No HRTICK in 3.4: check_preempt_tick sees `delta_exec > ideal_runtime` at the first tick after.
            let j = self.jiffy_ns();
            at = (at / j + 1) * j;
        }
        self.push(at, Ev::SliceEnd { core, token });
    }

    /// The idle `core` takes the most deserving queued thread, if any (per-core: from its own queue, else
    /// through newly idle balancing).
    pub(super) fn pick_next(&mut self, core: usize) {
        if !self.cpu.is_online(core) {
            return;
        }
        if self.per_core() {
            let next = self.rqs[core]
                .queue
                .iter()
                .copied()
                .min_by_key(|&x| (self.threads[x].vruntime, x));
            if let Some(t) = next {
                self.rqs[core].queue.retain(|&x| x != t);
                self.dispatch(t, core);
            } else if !self.idle_balance(core) {
                self.cpu.set_idle(core, SimTime(self.now));
            }
            return;
        }
        let Some(&best) = self
            .runq
            .iter()
            .min_by_key(|&&x| (self.threads[x].vruntime, x))
        else {
            self.cpu.set_idle(core, SimTime(self.now));
            return;
        };
        let floor = self.threads[best].vruntime + self.wakeup_gran_ns(best);
        let local = self
            .runq
            .iter()
            .copied()
            .filter(|&x| {
                self.threads[x].last_core == Some(core) && self.threads[x].vruntime <= floor
            })
            .min_by_key(|&x| (self.threads[x].vruntime, x));
        let t = local.unwrap_or(best);
        self.runq.retain(|&x| x != t);
        self.dispatch(t, core);
    }

    pub(super) fn on_cpu_change(&mut self, ch: CpuChange) {
        match ch {
            CpuChange::Freq { core, from_khz, .. } => {
                if let Some(t) = self.cores[core].running {
                    let th = &mut self.threads[t];
                    let ran = self.now - th.seg_start;
                    th.work = th.work.remaining_after(ran, from_khz);
                    th.vruntime += ran * 1024 / weight(th.nice);
                    th.cpu_ns += ran;
                    th.seg_start = self.now;
                    self.schedule_completion(t, core);
                }
            }
            CpuChange::Online { core } => self.pick_next(core),
            CpuChange::Offline { core } if self.per_core() => self.migrate_tasks(core),
            CpuChange::Offline { core } => {
                if let Some(t) = self.cores[core].running {
                    self.settle(core);
                    self.close_activity(core);
                    self.cores[core].running = None;
                    let th = &mut self.threads[t];
                    set_state(th, &mut self.active_threads, TState::Blocked(Block::Sleep));
                    th.token += 1;
                    self.make_runnable(t);
                }
            }
        }
    }
}
