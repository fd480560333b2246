//! Linux 3.4's load balancing for the per-core run queues of [`super::sched`] (`android.sched.per_core_rq`)
//! [P: Linux 3.4 kernel/sched/fair.c, include/linux/topology.h]: newly idle balancing (`idle_balance`, gated by
//! the core's `avg_idle` against `sysctl_sched_migration_cost`), periodic balancing at the tick
//! (`rebalance_domains` with SD_MC_INIT's intervals) and the NOHZ idle balancer (`nohz_kick_needed`),
//! `load_balance` itself (busiest queue, `calculate_imbalance` / `fix_small_imbalance`, cache-hot threads left
//! alone), and the migration of an offlined core's threads (`migrate_tasks`).

use std::cmp::Reverse;

use super::state::{Ev, Rq, Sim, TState, reframe, set_state, weight};

/// SD_MC_INIT (Linux 3.4 include/linux/topology.h; the four Krait cores share the L2, CONFIG_SCHED_MC=y in
/// hammerhead_defconfig) [P]: `min_interval`, `max_interval` `[ms]`, `busy_factor`, `imbalance_pct`,
/// `cache_nice_tries`.
const SD_MIN_INTERVAL_MS: u64 = 1;
const SD_MAX_INTERVAL_MS: u64 = 4;
const SD_BUSY_FACTOR: u64 = 64;
pub(super) const SD_IMBALANCE_PCT: u64 = 125;
const SD_CACHE_NICE_TRIES: u32 = 1;
/// `sysctl_sched_nr_migrate`: at most this many threads per balancing pass [P].
const NR_MIGRATE: usize = 32;

impl Rq {
    pub(super) fn new(migration_cost_ns: u64) -> Rq {
        Rq {
            queue: Vec::new(),
            min_vruntime: 0,
            avg_idle_ns: 2 * migration_cost_ns,
            idle_stamp: None,
            next_balance_ns: 0,
            balance_interval_ms: SD_MIN_INTERVAL_MS,
            nr_balance_failed: 0,
        }
    }
}

/// `enum cpu_idle_type` of a balancing pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CpuIdleType {
    /// Periodic balancing of a busy core.
    NotIdle,
    /// Periodic (NOHZ) balancing on behalf of an idle core.
    Idle,
    /// A core about to go idle.
    NewlyIdle,
}

impl Sim<'_> {
    /// `idle_balance()`: a core about to idle pulls work unless its average idle period is shorter than the
    /// migration cost. True when it pulled (and now runs) a thread.
    pub(super) fn idle_balance(&mut self, core: usize) -> bool {
        self.rqs[core].idle_stamp = Some(self.now);
        if self.rqs[core].avg_idle_ns < self.migration_cost_ns() {
            return false;
        }
        if self.load_balance(core, CpuIdleType::NewlyIdle) {
            self.rqs[core].idle_stamp = None;
            if self.cores[core].running.is_none() {
                self.pick_next(core);
            }
            return self.cores[core].running.is_some();
        }
        false
    }

    /// `load_balance()` for `this` core's MC domain: find the busiest queue, compute the imbalance, pull queued
    /// threads that are not cache-hot. True when a thread moved.
    fn load_balance(&mut self, this: usize, idle: CpuIdleType) -> bool {
        let n = self.cores.len();
        let online = || (0..n).filter(|&c| self.cpu.is_online(c));
        let busiest = online()
            .filter(|&c| c != this && !self.rqs[c].queue.is_empty())
            .max_by_key(|&c| (self.rq_load(c), Reverse(c)));
        let this_load = self.rq_load(this);
        let Some(b) = busiest else {
            return self.balanced(this);
        };
        let (max_load, b_nr) = (self.rq_load(b), self.nr_running(b) as u64);
        let total: u64 = online().map(|c| self.rq_load(c)).sum();
        let avg = total / online().count().max(1) as u64;
        // find_busiest_group's exits (single-core groups of capacity one).
        let forced = idle == CpuIdleType::NewlyIdle && self.nr_running(this) == 0 && b_nr >= 2;
        if !forced {
            if this_load >= max_load || this_load >= avg {
                return self.balanced(this);
            }
            let balanced = match idle {
                CpuIdleType::Idle => b_nr <= 1,
                _ => 100 * max_load <= SD_IMBALANCE_PCT * this_load,
            };
            if balanced {
                return self.balanced(this);
            }
        }
        // calculate_imbalance() and fix_small_imbalance().
        let per_task = max_load / b_nr.max(1);
        let max_pull = (max_load.saturating_sub(avg)).min(max_load.saturating_sub(per_task));
        let mut imbalance = max_pull.min(avg.saturating_sub(this_load));
        if imbalance < per_task && max_load.saturating_sub(this_load) >= per_task {
            imbalance = per_task;
        }
        // move_tasks(): the most recently queued first, skipping threads heavier than twice what is left and
        // cache-hot ones (ran within the migration cost) unless balancing failed more than cache_nice_tries.
        let hot_ok = self.rqs[this].nr_balance_failed > SD_CACHE_NICE_TRIES;
        let cost = self.migration_cost_ns();
        let candidates: Vec<usize> = self.rqs[b]
            .queue
            .iter()
            .rev()
            .copied()
            .take(NR_MIGRATE)
            .collect();
        let mut moved = 0u32;
        for p in candidates {
            if imbalance == 0 {
                break;
            }
            let w = weight(self.threads[p].nice);
            let hot = self.now.saturating_sub(self.threads[p].last_ran_ns) < cost;
            if w / 2 > imbalance || (hot && !hot_ok) {
                continue;
            }
            self.move_queued(p, b, this);
            imbalance = imbalance.saturating_sub(w);
            moved += 1;
            if idle == CpuIdleType::NewlyIdle {
                break; // CONFIG_PREEMPT: newly idle balancing stops after one thread.
            }
        }
        let rq = &mut self.rqs[this];
        if moved == 0 {
            if idle != CpuIdleType::NewlyIdle {
                rq.nr_balance_failed += 1;
            }
        } else {
            rq.nr_balance_failed = 0;
        }
        rq.balance_interval_ms = SD_MIN_INTERVAL_MS;
        moved > 0
    }

    /// `out_balanced`: no imbalance; the domain balances less often (interval doubled up to max_interval).
    fn balanced(&mut self, this: usize) -> bool {
        let rq = &mut self.rqs[this];
        rq.nr_balance_failed = 0;
        if rq.balance_interval_ms < SD_MAX_INTERVAL_MS {
            rq.balance_interval_ms *= 2;
        }
        false
    }

    /// Moves queued thread `p` from `src`'s queue to `dst`'s (`pull_task`: re-framed, preemption check).
    fn move_queued(&mut self, p: usize, src: usize, dst: usize) {
        self.rqs[src].queue.retain(|&x| x != p);
        self.threads[p].vruntime = reframe(
            self.threads[p].vruntime,
            self.rqs[src].min_vruntime,
            self.rqs[dst].min_vruntime,
        );
        self.threads[p].rq_core = dst;
        self.rqs[dst].queue.push(p);
        self.check_preempt(p, dst);
        self.arm_slice(dst);
    }

    /// The interval until `core`'s next periodic balance (`rebalance_domains`): `balance_interval`, × busy_factor
    /// on a busy core, in whole jiffies, between 1 and `max_load_balance_interval` = HZ × online / 10. `[ns]`
    fn balance_interval_ns(&self, core: usize, busy: bool) -> u64 {
        let hz = u64::from(self.cfg.sched.hz.max(1));
        let mut ms = self.rqs[core].balance_interval_ms;
        if busy {
            ms *= SD_BUSY_FACTOR;
        }
        let max = (hz * self.cpu.online_count() as u64 / 10).max(1);
        (ms * hz).div_ceil(1000).clamp(1, max) * self.jiffy_ns()
    }

    /// Starts the scheduler tick (per-core queues only).
    pub(super) fn start_tick(&mut self) {
        if self.per_core() {
            let at = self.now + self.jiffy_ns();
            self.push(at, Ev::Tick);
        }
    }

    /// The scheduler tick: `trigger_load_balance` on busy cores and, when `nohz_kick_needed`, the idle balancer
    /// for the idle ones.
    pub(super) fn tick(&mut self) {
        let at = self.now + self.jiffy_ns();
        self.push(at, Ev::Tick);
        let online: Vec<usize> = (0..self.cores.len())
            .filter(|&c| self.cpu.is_online(c))
            .collect();
        let busy = online.iter().filter(|&&c| self.nr_running(c) > 0).count();
        let kick = busy > 1 || online.iter().any(|&c| self.nr_running(c) >= 2);
        for c in online {
            let idle = self.nr_running(c) == 0;
            if self.now < self.rqs[c].next_balance_ns || (idle && !kick) {
                continue;
            }
            let pulled = self.load_balance(
                c,
                if idle {
                    CpuIdleType::Idle
                } else {
                    CpuIdleType::NotIdle
                },
            );
            self.rqs[c].next_balance_ns = self.now + self.balance_interval_ns(c, !idle);
            if pulled && self.cores[c].running.is_none() {
                self.pick_next(c);
            }
        }
        self.report_runnable();
    }

    /// `migrate_tasks()` of an offlined core: its running and queued threads go to `select_fallback_rq`, the
    /// first online core.
    pub(super) fn migrate_tasks(&mut self, core: usize) {
        let mut moving = Vec::new();
        if let Some(t) = self.cores[core].running {
            self.settle(core);
            self.close_activity(core);
            self.cores[core].running = None;
            let th = &mut self.threads[t];
            set_state(th, &mut self.active_threads, TState::Runnable);
            th.runnable_since = self.now;
            th.token += 1;
            moving.push(t);
        }
        moving.append(&mut self.rqs[core].queue);
        for t in moving {
            let dst = self.fallback_core();
            self.threads[t].vruntime = reframe(
                self.threads[t].vruntime,
                self.rqs[core].min_vruntime,
                self.rqs[dst].min_vruntime,
            );
            self.place_on(t, dst);
        }
        self.report_runnable();
    }
}
