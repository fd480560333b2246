//! CPU hotplug: the open `msm_mpdecision` rule (models.md §2.4) or none, behind [`HotplugKind`] / [`Hotplug`].
//!
//! ## msm_mpdecision (Dennis Rassmann, GPL; `arch/arm/mach-msm/msm_mpdecision.c`) [P]
//! Qualcomm's own `mpdecision` daemon is closed; this is the open kernel design many MSM kernels carry. Every
//! `delay_ms` (100), once the clock is past `start_delay_ms`:
//! * `rq` = the time-weighted average number of runnable threads (system-wide `nr_running`) since the previous
//!   decision, ×10 and truncated (`rq_stats`' `rq_avg`, reset when read); `n` = online cores, `i = 2·(n − 1)`.
//! * A hold timer `total` grows by the time since the previous decision (0 at the first one).
//! * **Up** when `n < cores` and `rq ≥ NwNs[i]`: once `total ≥ TwTs[i]` ms and `n < max_cpus`, online the lowest
//!   offline core — unless the idle-frequency check is on and the slowest online core is at or below
//!   `idle_freq` (486 MHz).
//! * **Down** (else) when `n > 1` and `rq ≤ NwNs[i+1]`: once `total ≥ TwTs[i+1]` and `n > min_cpus`, offline the
//!   slowest online core other than core 0 (ties: the highest index) — unless the check is on and the slowest
//!   online core is *above* `idle_freq`.
//! * Otherwise (neither condition) `total` resets to 0; it also resets after every action, but *not* when the
//!   idle-frequency check vetoes one.
//!
//! Quad-core defaults `NwNs = {12,0, 25,20, 32,28, 0,35}`, `TwTs = {140,0, 140,190, 140,190, 0,190}` ms:
//! 1→2 cores at rq ≥ 1.2 held 140 ms, 2→1 at ≤ 2.0 held 190 ms, and so on (several MSM8974 kernels ship other
//! values, e.g. hammerhead forks `{12,0,20,7,25,10,0,18}` with a 130 ms delay).
//!
//! **Governor floors can forbid offlining.** `idle_freq` = 486 MHz is not an MSM8974 step: the down rule passes the
//! check only when the slowest online core (core 0 included) sits at 300 or 422.4 MHz. With two cores online,
//! ondemand's multi-core rules keep a lightly loaded core at `sync_freq` (960 MHz) while the other core is loaded
//! or at max, so while one core stays busy (say, a GC or mutator thread) the slowest core never drops below
//! 486 MHz and the unplug is vetoed however low `rq` is. Once the load stops, some core decays to 300 MHz within a
//! sample or two and the slowest core other than 0 goes offline — even one still held at 960 MHz — which is what
//! Fig. 4b of SYSTOR'15 shows between iterations. `idle_freq_check = false` removes the veto (and the matching up
//! veto, which keeps a lone core idling at 300 MHz from waking a second one).

use serde::{Deserialize, Serialize};

use super::MpdecisionConfig;

/// Which hotplug policy runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum HotplugKind {
    /// The msm_mpdecision rule. Default.
    #[default]
    Mpdecision,
    /// No hotplug: every core online all the time.
    None,
}

impl HotplugKind {
    /// The policy for this kind with the mpdecision tunables `cfg` (ignored by `none`).
    pub fn create(self, cfg: &MpdecisionConfig) -> Box<dyn Hotplug> {
        match self {
            HotplugKind::Mpdecision => Box::new(Mpdecision::new(cfg)),
            HotplugKind::None => Box::new(NoHotplug),
        }
    }

    /// The name used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            HotplugKind::Mpdecision => "mpdecision",
            HotplugKind::None => "none",
        }
    }
}

/// The time-weighted run-queue length, as `rq_stats` keeps it for the hotplug decision.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunQueueMeter {
    last_ns: u64,
    runnable: u32,
    window_start_ns: u64,
    runnable_ns: u128,
}

impl RunQueueMeter {
    /// From `now_ns` on, `runnable` threads are runnable (running or waiting) system-wide.
    pub fn set(&mut self, now_ns: u64, runnable: u32) {
        self.advance(now_ns);
        self.runnable = runnable;
    }

    fn advance(&mut self, now_ns: u64) {
        let now = now_ns.max(self.last_ns);
        self.runnable_ns += u128::from(self.runnable) * u128::from(now - self.last_ns);
        self.last_ns = now;
    }

    /// The average ×10 since the previous take (or the start), truncated; restarts the average.
    pub fn take_avg_x10(&mut self, now_ns: u64) -> u32 {
        self.advance(now_ns);
        let wall = u128::from(self.last_ns - self.window_start_ns);
        let avg = (self.runnable_ns * 10)
            .checked_div(wall)
            .unwrap_or(u128::from(self.runnable) * 10);
        self.window_start_ns = self.last_ns;
        self.runnable_ns = 0;
        u32::try_from(avg).unwrap_or(u32::MAX)
    }
}

/// What the hotplug policy sees at a decision.
#[derive(Debug, Clone, Copy)]
pub struct HotplugView<'a> {
    /// The current time. `[ns]`
    pub now_ns: u64,
    /// Online state per core.
    pub online: &'a [bool],
    /// Current frequency per core. `[kHz]`
    pub cur_khz: &'a [u32],
}

/// A hotplug decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HotplugAction {
    /// Nothing changes.
    Stay,
    /// Bring this core online.
    Online(usize),
    /// Take this core offline.
    Offline(usize),
}

/// A hotplug policy.
pub trait Hotplug {
    /// The policy's name.
    fn name(&self) -> &'static str;
    /// How many cores (the lowest indices) are online when the run starts, out of `cores`.
    fn initial_online(&self, cores: usize) -> usize;
    /// When the next decision is due (`None`: never). `[ns]`
    fn next_decision_ns(&self) -> Option<u64>;
    /// Decides at `view.now_ns`, reading the run-queue average from `rq`.
    fn decide(&mut self, view: &HotplugView<'_>, rq: &mut RunQueueMeter) -> HotplugAction;
}

struct NoHotplug;

impl Hotplug for NoHotplug {
    fn name(&self) -> &'static str {
        "none"
    }
    fn initial_online(&self, cores: usize) -> usize {
        cores
    }
    fn next_decision_ns(&self) -> Option<u64> {
        None
    }
    fn decide(&mut self, _view: &HotplugView<'_>, _rq: &mut RunQueueMeter) -> HotplugAction {
        HotplugAction::Stay
    }
}

/// The msm_mpdecision rule (see the module docs).
pub struct Mpdecision {
    cfg: MpdecisionConfig,
    idle_khz: u64,
    next_ns: u64,
    total_ns: u64,
    last_ns: Option<u64>,
}

impl Mpdecision {
    /// mpdecision with tunables `cfg`; the first decision is at `delay_ms`.
    pub fn new(cfg: &MpdecisionConfig) -> Mpdecision {
        Mpdecision {
            cfg: cfg.clone(),
            idle_khz: u64::from(super::opp::mhz_to_khz(cfg.idle_freq_mhz)),
            next_ns: cfg.delay_ms.max(1) * 1_000_000,
            total_ns: 0,
            last_ns: None,
        }
    }
}

impl Hotplug for Mpdecision {
    fn name(&self) -> &'static str {
        "mpdecision"
    }

    fn initial_online(&self, cores: usize) -> usize {
        let lo = self.cfg.min_cpus.max(1) as usize;
        let hi = (self.cfg.max_cpus as usize).max(lo);
        (self.cfg.start_online_cores as usize)
            .clamp(lo, hi)
            .min(cores)
            .max(1)
    }

    fn next_decision_ns(&self) -> Option<u64> {
        Some(self.next_ns)
    }

    fn decide(&mut self, view: &HotplugView<'_>, rq: &mut RunQueueMeter) -> HotplugAction {
        let now = view.now_ns;
        self.next_ns = now + self.cfg.delay_ms.max(1) * 1_000_000;
        if now <= self.cfg.start_delay_ms * 1_000_000 {
            return HotplugAction::Stay;
        }
        self.total_ns += self.last_ns.map_or(0, |l| now.saturating_sub(l));
        self.last_ns = Some(now);
        let rq_x10 = rq.take_avg_x10(now);
        let cores = view.online.len();
        let n = view.online.iter().filter(|o| **o).count();
        if n == 0 {
            self.total_ns = 0;
            return HotplugAction::Stay;
        }
        let i = 2 * (n - 1);
        let threshold = |k: usize| self.cfg.nwns.get(k).copied().unwrap_or(u32::MAX);
        let hold_ns =
            |k: usize| u64::from(self.cfg.twts_ms.get(k).copied().unwrap_or(u32::MAX)) * 1_000_000;
        let slowest_khz = (0..cores)
            .filter(|&c| view.online[c])
            .map(|c| u64::from(view.cur_khz[c]))
            .min()
            .unwrap_or(0);
        let check = self.cfg.idle_freq_check;
        let mut action = HotplugAction::Stay;
        if n < cores && rq_x10 >= threshold(i) {
            if self.total_ns >= hold_ns(i) && n < self.cfg.max_cpus as usize {
                let veto = check && slowest_khz <= self.idle_khz;
                if let Some(c) = (0..cores).find(|&c| !view.online[c])
                    && !veto
                {
                    action = HotplugAction::Online(c);
                }
            }
        } else if n > 1 && rq_x10 <= threshold(i + 1) {
            if self.total_ns >= hold_ns(i + 1) && n > self.cfg.min_cpus as usize {
                let veto = check && slowest_khz > self.idle_khz;
                // The slowest online core other than core 0; ties go to the highest index.
                let victim =
                    (1..cores)
                        .filter(|&c| view.online[c])
                        .fold(None, |best: Option<usize>, c| match best {
                            Some(b) if view.cur_khz[c] > view.cur_khz[b] => Some(b),
                            _ => Some(c),
                        });
                if let Some(c) = victim
                    && !veto
                {
                    action = HotplugAction::Offline(c);
                }
            }
        } else {
            self.total_ns = 0;
        }
        if action != HotplugAction::Stay {
            self.total_ns = 0;
        }
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Runs decisions every 100 ms up to `until_ms` with `runnable` threads throughout; returns the first action.
    fn run(
        cfg: &MpdecisionConfig,
        online: &[bool],
        cur: &[u32],
        runnable: u32,
        until_ms: u64,
    ) -> Option<(u64, HotplugAction)> {
        let mut h = Mpdecision::new(cfg);
        let mut rq = RunQueueMeter::default();
        rq.set(0, runnable);
        while let Some(t) = h.next_decision_ns().filter(|t| *t <= until_ms * MS) {
            let a = h.decide(
                &HotplugView {
                    now_ns: t,
                    online,
                    cur_khz: cur,
                },
                &mut rq,
            );
            if a != HotplugAction::Stay {
                return Some((t / MS, a));
            }
        }
        None
    }

    #[test]
    fn sustained_run_queue_brings_a_second_core_online_after_twts() {
        let cfg = MpdecisionConfig::default();
        // 2 runnable threads: rq ×10 = 20 ≥ 12; first decision has total 0, then 100, 200 ≥ 140 → up at 300 ms.
        let on = [true, false, false, false];
        let at_max = [2_150_400, 300_000, 300_000, 300_000];
        assert_eq!(
            run(&cfg, &on, &at_max, 2, 1000).unwrap_or((0, HotplugAction::Stay)),
            (300, HotplugAction::Online(1))
        );
        assert_eq!(run(&cfg, &on, &at_max, 1, 1000), None, "rq 1.0 < 1.2");
        // The only online core idles at 300 MHz: the idle-frequency check vetoes onlining.
        let at_min = [300_000; 4];
        assert_eq!(
            run(&cfg, &on, &at_min, 2, 1000),
            None,
            "slowest ≤ 486 MHz vetoes up"
        );
        let off = MpdecisionConfig {
            idle_freq_check: false,
            ..cfg.clone()
        };
        assert!(
            run(&off, &on, &at_min, 2, 1000).is_some(),
            "without the check it goes up"
        );
    }

    #[test]
    fn low_load_takes_a_core_offline_unless_floors_hold_it_at_960() {
        let cfg = MpdecisionConfig::default();
        let on = [true, true, false, false];
        let low = [300_000, 300_000, 300_000, 300_000];
        assert_eq!(
            run(&cfg, &on, &low, 1, 1000),
            Some((300, HotplugAction::Offline(1))),
            "rq 1.0 ≤ 2.0, held 190 ms"
        );
        let floored = [2_150_400, 960_000, 300_000, 300_000];
        assert_eq!(
            run(&cfg, &on, &floored, 1, 5000),
            None,
            "slowest online core at 960 MHz > 486: vetoed"
        );
        let off = MpdecisionConfig {
            idle_freq_check: false,
            ..cfg.clone()
        };
        assert_eq!(
            run(&off, &on, &floored, 1, 5000),
            Some((300, HotplugAction::Offline(1)))
        );
    }

    #[test]
    fn slowest_core_goes_first_and_core_zero_stays() {
        let cfg = MpdecisionConfig {
            idle_freq_check: false,
            ..MpdecisionConfig::default()
        };
        let on = [true, true, true, true];
        let cur = [300_000, 960_000, 422_400, 422_400];
        assert_eq!(
            run(&cfg, &on, &cur, 0, 1000),
            Some((300, HotplugAction::Offline(3))),
            "tie → highest index"
        );
        let start = MpdecisionConfig {
            start_delay_ms: 1000,
            ..cfg.clone()
        };
        assert_eq!(
            run(&start, &on, &cur, 0, 1000),
            None,
            "nothing before the start delay"
        );
        assert_eq!(run(&start, &on, &cur, 0, 2000).map(|a| a.0), Some(1300));
        assert_eq!(HotplugKind::None.create(&cfg).initial_online(4), 4);
        assert_eq!(HotplugKind::Mpdecision.create(&cfg).initial_online(4), 1);
    }

    #[test]
    fn run_queue_average_is_time_weighted() {
        let mut rq = RunQueueMeter::default();
        rq.set(0, 1);
        rq.set(50 * MS, 3);
        assert_eq!(rq.take_avg_x10(100 * MS), 20, "half at 1, half at 3 → 2.0");
        assert_eq!(rq.take_avg_x10(200 * MS), 30, "restarted: 3 throughout");
    }
}
