//! The phone's other processes (surfaceflinger, system_server, kernel threads) as `[android.system]`: issue #16,
//! docs/models-android.md "The phone's other processes".

use serde::{Deserialize, Serialize};

/// One class of system threads, as [`AndroidSystem`] gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemClass {
    /// How many threads of this class wake independently.
    pub threads: u32,
    /// Their nice value (CFS weight from Linux 3.4's `prio_to_weight`).
    pub nice: i32,
    /// Each thread's wake-up period (periodic) or mean time between wake-ups (Poisson). `[ms]`
    pub period_ms: f64,
    /// Work per wake-up at the reference clock. `[µs]`
    pub burst_us: f64,
    /// Strictly periodic (each thread with its own random phase) rather than Poisson.
    pub periodic: bool,
}

impl SystemClass {
    /// The cores this class demands on average (at the reference clock).
    pub fn demand_cores(&self) -> f64 {
        f64::from(self.threads) * self.burst_us / (self.period_ms * 1000.0)
    }
}

/// `[android.system]`: the phone's other processes (simulated in `super::system`; docs/models-android.md). Flat fields (`display_burst_us`, …) so that any one can be set
/// alone (`--set android.system.server_period_ms=40`) without resetting its class's other fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AndroidSystem {
    /// Whether the other processes run at all. Default false (the model before: one process on the cores).
    pub enabled: bool,
    /// surfaceflinger's composing threads. Default 1 [E] (its main thread composes), range 0–64.
    pub display_threads: u32,
    /// Their nice value. Default −8 = PRIORITY_URGENT_DISPLAY [P: main_surfaceflinger.cpp, thread_defs.h].
    pub display_nice: i32,
    /// The vsync period. `[ms]`, default 16.667 (60 Hz panel) [P].
    pub display_period_ms: f64,
    /// Composition work per frame. `[µs]`, default 1000 [E], range 0–10⁶ (searched 0–3000).
    pub display_burst_us: f64,
    /// system_server's busy binder / looper threads. Default 4 [E], range 0–64.
    pub server_threads: u32,
    /// Their nice value. Default −2 = THREAD_PRIORITY_FOREGROUND [P: SystemServer.java, Process.java].
    pub server_nice: i32,
    /// Mean time between a thread's wake-ups (Poisson). `[ms]`, default 100 [E] (searched 20–500).
    pub server_period_ms: f64,
    /// Work per wake-up. `[µs]`, default 500 [E] (searched 100–2000).
    pub server_burst_us: f64,
    /// Kernel threads and native daemons. Default 4 [E], range 0–64.
    pub kernel_threads: u32,
    /// Their nice value. Default 0 [P: kthreadd's children run at nice 0 in Linux 3.4].
    pub kernel_nice: i32,
    /// Mean time between a thread's wake-ups (Poisson). `[ms]`, default 40 [E] (searched 10–100).
    pub kernel_period_ms: f64,
    /// Work per wake-up. `[µs]`, default 100 [E] (searched 20–500).
    pub kernel_burst_us: f64,
    /// Memory-stall share of every burst (models.md §5's mutator share). Default 0.25 [E], range 0–1.
    pub stall_fraction: f64,
}

impl Default for AndroidSystem {
    fn default() -> Self {
        AndroidSystem {
            enabled: false,
            display_threads: 1,
            display_nice: -8,
            display_period_ms: 1000.0 / 60.0,
            display_burst_us: 1000.0,
            server_threads: 4,
            server_nice: -2,
            server_period_ms: 100.0,
            server_burst_us: 500.0,
            kernel_threads: 4,
            kernel_nice: 0,
            kernel_period_ms: 40.0,
            kernel_burst_us: 100.0,
            stall_fraction: 0.25,
        }
    }
}

/// The classes in thread-creation order, with their thread-name prefixes.
pub(in crate::platform::android) const SYSTEM_CLASSES: [&str; 3] =
    ["surfaceflinger", "system_server", "kthread"];

impl AndroidSystem {
    /// Class `c` of [`CLASSES`]: the display's vsync is periodic, the others Poisson.
    pub fn class(&self, c: u8) -> SystemClass {
        match c {
            0 => SystemClass {
                threads: self.display_threads,
                nice: self.display_nice,
                period_ms: self.display_period_ms,
                burst_us: self.display_burst_us,
                periodic: true,
            },
            1 => SystemClass {
                threads: self.server_threads,
                nice: self.server_nice,
                period_ms: self.server_period_ms,
                burst_us: self.server_burst_us,
                periodic: false,
            },
            _ => SystemClass {
                threads: self.kernel_threads,
                nice: self.kernel_nice,
                period_ms: self.kernel_period_ms,
                burst_us: self.kernel_burst_us,
                periodic: false,
            },
        }
    }

    /// Checks every range; `Err((field, expectation))` with the dotted path from the file's root.
    pub fn validate(&self) -> Result<(), (String, String)> {
        for (i, name) in ["display", "server", "kernel"].iter().enumerate() {
            let c = self.class(i as u8);
            for (f, v, lo, hi) in [
                ("threads", f64::from(c.threads), 0.0, 64.0),
                ("nice", f64::from(c.nice), -20.0, 19.0),
                ("period_ms", c.period_ms, 0.1, 1e6),
                ("burst_us", c.burst_us, 0.0, 1e6),
            ] {
                if !(v.is_finite() && v >= lo && v <= hi) {
                    return Err((
                        format!("android.system.{name}_{f}"),
                        format!("expected a number in [{lo}, {hi}], got {v}"),
                    ));
                }
            }
        }
        let v = self.stall_fraction;
        if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
            return Err((
                "android.system.stall_fraction".into(),
                format!("expected a number in [0, 1], got {v}"),
            ));
        }
        Ok(())
    }
}
