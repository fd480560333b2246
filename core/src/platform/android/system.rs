//! The phone's other processes (issue #16, "a second process"): threads of Android's system services —
//! surfaceflinger, system_server, kernel threads and native daemons — with their own nice values (CFS weights)
//! and their own periodic or bursty demand, scheduled by the same per-core CFS run queues and load balancing as
//! the app's threads ([`super::sched`], [`super::balance`]). Their CPU time counts in what ondemand and
//! mpdecision see (busy time, runnable threads) and in the energy (it is one phone), but not in the app's
//! statistics — execution time, pauses, MinMU, GC CPU share, Table 3's migrations and delayed time, context
//! switches — except through contention for the cores. They are never stopped at a safepoint (another VM, or
//! native code) and never touch the Dalvik heap.
//!
//! Three classes, each with `<class>_threads`, `_nice`, `_period_ms`, `_burst_us` in `[android.system]`:
//! * `display` — surfaceflinger's composition at the panel's vsync: 60 Hz (16.7 ms) [P: Android 4.1+ VSYNC,
//!   surfaceflinger's `EventThread`], at PRIORITY_URGENT_DISPLAY = −8 [P: main_surfaceflinger.cpp
//!   `setpriority(PRIO_PROCESS, 0, PRIORITY_URGENT_DISPLAY)`; system/core/include/system/thread_defs.h].
//! * `server` — system_server's binder and looper threads at THREAD_PRIORITY_FOREGROUND = −2 [P: SystemServer.java
//!   `ServerThread.run` → `Process.setThreadPriority(THREAD_PRIORITY_FOREGROUND)`; Process.java], Poisson wake-ups.
//! * `kernel` — kworkers, ksoftirqd, mmcqd and native daemons (mpdecision, sensors, rild) at nice 0
//!   [P: kthreadd creates kernel threads at nice 0 in Linux 3.4; Process.java THREAD_PRIORITY_DEFAULT = 0].
//!
//! Nice → weight is Linux 3.4's `prio_to_weight` ([`super::state::weight`]). Periods, bursts and thread counts are
//! unknowns [E] with ranges in docs/models-android.md ("The phone's other processes"). Off (`enabled = false`,
//! the default): no such thread exists and every run is the model before.

use super::state::{Role, Sim, Step, ms_to_ns};
use crate::cpu::CpuTag;

impl Sim<'_> {
    pub(super) fn is_system(&self, t: usize) -> bool {
        matches!(self.threads[t].role, Role::System(_))
    }

    /// A system thread's first wake-up: periodic threads at a uniform phase within their period.
    pub(super) fn system_start(&mut self, t: usize, c: u8) {
        let cls = self.cfg.system.class(c);
        if cls.periodic {
            let phase = (self.sys_rng.next_f64() * ms_to_ns(cls.period_ms) as f64) as u64;
            self.sleep_until(t, self.now + phase.max(1));
        } else {
            self.system_sleep(t, c);
        }
    }

    /// A system thread woke: its burst (tagged "other" on the core: energy and ondemand see it).
    pub(super) fn system_fire(&mut self, t: usize, c: u8) {
        let cls = self.cfg.system.class(c);
        let w = self.work_us(cls.burst_us, self.cfg.system.stall_fraction);
        let period = ms_to_ns(cls.period_ms);
        if cls.burst_us <= 0.0 {
            // Nothing to do this time (a static screen composes nothing): no wake-up at all.
            self.sys_next[t] = self.now + period;
            self.system_sleep(t, c);
            return;
        }
        // A periodic thread's next wake-up is due one period after this one, whenever its burst ran.
        self.sys_next[t] = self.now + period;
        self.go(t, w, Step::Background, CpuTag::Other);
    }

    /// A system thread's burst is done: sleep until its next wake-up.
    pub(super) fn system_sleep(&mut self, t: usize, c: u8) {
        let cls = self.cfg.system.class(c);
        let at = if cls.periodic {
            // A frame that overran its vsync waits for the next one (a missed frame).
            let period = ms_to_ns(cls.period_ms).max(1);
            let mut at = self.sys_next[t];
            while at <= self.now {
                at += period;
            }
            at
        } else {
            let mean = cls.period_ms * 1e6;
            let d = (-(1.0f64 - self.sys_rng.next_f64()).ln() * mean) as u64;
            self.now + d.max(1)
        };
        self.sleep_until(t, at);
    }
}
