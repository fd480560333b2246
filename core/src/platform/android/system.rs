//! The phone's other processes (issue #16, "a second process"): threads of Android's system services —
//! surfaceflinger, system_server, kernel threads and native daemons — with their own nice values (CFS weights)
//! and their own periodic or bursty demand, scheduled by the same per-core CFS run queues and load balancing as
//! the app's threads ([`super::sched`], [`super::balance`]). Their CPU time counts in what ondemand and
//! mpdecision see (busy time, runnable threads) and in the energy (it is one phone), but not in the app's
//! statistics — execution time, pauses, MinMU, GC CPU share, Table 3's migrations and delayed time, context
//! switches — except through contention for the cores. They are never stopped at a safepoint (another VM, or
//! native code) and never touch the Dalvik heap.
//!
//! Three classes, each `[android.system.<class>]` with `threads`, `nice`, `period_ms`, `burst_us`, `periodic`:
//! * `display` — surfaceflinger's composition at the panel's vsync: 60 Hz (16.7 ms) [P: Android 4.1+ VSYNC,
//!   `DispSync`/`EventThread`], at PRIORITY_URGENT_DISPLAY = −8 [P: main_surfaceflinger.cpp
//!   `setpriority(PRIO_PROCESS, 0, PRIORITY_URGENT_DISPLAY)`; system/core/include/system/thread_defs.h].
//! * `server` — system_server's binder and looper threads at THREAD_PRIORITY_FOREGROUND = −2 [P: SystemServer.java
//!   `ServerThread.run` → `Process.setThreadPriority(THREAD_PRIORITY_FOREGROUND)`; Process.java], Poisson wake-ups.
//! * `kernel` — kworkers, ksoftirqd, mmcqd and native daemons (mpdecision, thermal, sensors) at nice 0
//!   [P: kthreadd creates kernel threads at nice 0 in Linux 3.4; Process.java THREAD_PRIORITY_DEFAULT = 0].
//!
//! Nice → weight is Linux 3.4's `prio_to_weight` ([`super::state::weight`]). Periods, bursts and thread counts are
//! unknowns [E] with ranges in docs/models-android.md ("The phone's other processes"). Off (`enabled = false`,
//! the default): no such thread exists and every run is the model before.

use serde::{Deserialize, Serialize};

use super::state::{Role, Sim, Step, ms_to_ns};
use crate::cpu::CpuTag;

/// One class of system threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SystemClass {
    /// How many threads of this class wake independently. Range 0–64.
    pub threads: u32,
    /// Their nice value (CFS weight from Linux 3.4's `prio_to_weight`). Range −20–19.
    pub nice: i32,
    /// Each thread's wake-up period (periodic) or mean time between wake-ups (Poisson). `[ms]`, range 0.1–10⁶.
    pub period_ms: f64,
    /// Work per wake-up at the reference clock. `[µs]`, range 0–10⁶.
    pub burst_us: f64,
    /// Strictly periodic (each thread with its own random phase) rather than Poisson.
    pub periodic: bool,
    /// Memory-stall share of the burst (models.md §5). Range 0–1.
    pub stall_fraction: f64,
}

impl SystemClass {
    fn new(threads: u32, nice: i32, period_ms: f64, burst_us: f64, periodic: bool) -> Self {
        SystemClass {
            threads,
            nice,
            period_ms,
            burst_us,
            periodic,
            stall_fraction: 0.25,
        }
    }

    /// The cores this class demands on average (at the reference clock).
    pub fn demand_cores(&self) -> f64 {
        f64::from(self.threads) * self.burst_us / (self.period_ms * 1000.0)
    }
}

impl Default for SystemClass {
    fn default() -> Self {
        SystemClass::new(0, 0, 50.0, 0.0, false)
    }
}

/// `[android.system]`: the phone's other processes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AndroidSystem {
    /// Whether the other processes run at all. Default false (the model before: one process on the cores).
    pub enabled: bool,
    /// surfaceflinger: 1 thread, nice −8, every 16.7 ms (60 Hz vsync), 1 ms of composition [E], periodic.
    pub display: SystemClass,
    /// system_server: 4 threads, nice −2, Poisson every 100 ms, 500 µs each [E].
    pub server: SystemClass,
    /// Kernel threads and native daemons: 4 threads, nice 0, Poisson every 40 ms, 100 µs each [E].
    pub kernel: SystemClass,
}

impl Default for AndroidSystem {
    fn default() -> Self {
        AndroidSystem {
            enabled: false,
            display: SystemClass::new(1, -8, 1000.0 / 60.0, 1000.0, true),
            server: SystemClass::new(4, -2, 100.0, 500.0, false),
            kernel: SystemClass::new(4, 0, 40.0, 100.0, false),
        }
    }
}

/// The classes in thread-creation order, with their thread-name prefixes.
pub(super) const CLASSES: [&str; 3] = ["surfaceflinger", "system_server", "kthread"];

impl AndroidSystem {
    pub(super) fn class(&self, c: u8) -> &SystemClass {
        match c {
            0 => &self.display,
            1 => &self.server,
            _ => &self.kernel,
        }
    }

    /// Checks every range; `Err((field, expectation))` with the dotted path from the file's root.
    pub fn validate(&self) -> Result<(), (String, String)> {
        for (name, c) in [
            ("display", &self.display),
            ("server", &self.server),
            ("kernel", &self.kernel),
        ] {
            for (f, v, lo, hi) in [
                ("threads", f64::from(c.threads), 0.0, 64.0),
                ("nice", f64::from(c.nice), -20.0, 19.0),
                ("period_ms", c.period_ms, 0.1, 1e6),
                ("burst_us", c.burst_us, 0.0, 1e6),
                ("stall_fraction", c.stall_fraction, 0.0, 1.0),
            ] {
                if !(v.is_finite() && v >= lo && v <= hi) {
                    return Err((
                        format!("android.system.{name}.{f}"),
                        format!("expected a number in [{lo}, {hi}], got {v}"),
                    ));
                }
            }
        }
        Ok(())
    }
}

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
        let w = self.work_us(cls.burst_us, cls.stall_fraction);
        let period = ms_to_ns(cls.period_ms);
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
