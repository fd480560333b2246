//! cpufreq governors: the MSM8974 `ondemand` (per core), `performance` and `powersave`, behind the
//! [`GovernorKind`] selector and the [`Governor`] trait.
//!
//! ## ondemand, as shipped on MSM8974 (models.md §2.1, `cpufreq_ondemand.c` of the hammerhead kernel) [P]
//! Each online core is sampled every `sampling_rate × rate_mult`; all samples fall on multiples of
//! `sampling_rate` (the governor starts a core at the next multiple — the kernel aligns when more than one CPU
//! is online — and every delay is a multiple). At a sample of core c, with `load` = ⌊100·busy/wall⌋ over the
//! window since c's previous sample (iowait counted busy when `io_is_busy`), `cur` = c's frequency and
//! `load_freq = load·cur`:
//! 1. c remembers `max_load = max(load, prev_load)`; `prev_load = load`.
//! 2. `max_load_other` = the largest `max_load` of the other online cores, visited in index order; a visited core
//!    sitting at the policy max while `cur ≥ optimal_freq` sets it to `up_threshold_any_cpu_load`.
//! 3. **Up**: `load_freq > up_threshold·cur` → policy max (RELATION_H); `rate_mult = sampling_down_factor` when
//!    the core was below max.
//! 4. With more than one core online: `max_load_other > up_threshold_any_cpu_load` → at least `sync_freq`, stop;
//!    else `load_freq > up_threshold_multi_core·cur` → at least `optimal_freq`, stop.
//! 5. **Down** (unless `cur` is the policy min): `load_freq < (up_threshold − down_differential)·cur` →
//!    `next = load_freq/(up_threshold − down_differential)`, `rate_mult = 1`, floored at min; with more than one
//!    core online floored at `sync_freq` when `max_load_other > up_threshold_multi_core − down_differential`, and at
//!    `optimal_freq` when `load_freq > (up_threshold_multi_core − down_differential_multi_core)·cur`; RELATION_L.
//!
//! Not modelled: `powersave_bias` (0 on MSM8974); the CAF input boost and migration sync (`dbs_sync` kthread,
//! `cpu-boost.c`), which react to touch input and task migration — the simulator has neither; the *deferrable*
//! timer, which on a real idle core delays the sample until the core wakes (here samples run on time); and
//! `__cpufreq_driver_getavg` (Krait has none, so the kernel uses `cur`, as here). After an offline period a core
//! keeps its stale `max_load` until its first sample, as in the kernel.

use serde::{Deserialize, Serialize};

use super::OndemandConfig;
use super::opp::Relation;

/// Which governor scales the cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum GovernorKind {
    /// MSM8974 ondemand (SYSTOR'15 Table 2). Default.
    #[default]
    Ondemand,
    /// Always the policy maximum.
    Performance,
    /// Always the policy minimum.
    Powersave,
}

impl GovernorKind {
    /// The governor for this kind with the ondemand tunables `od` (ignored by the others).
    pub fn create(self, od: &OndemandConfig) -> Box<dyn Governor> {
        match self {
            GovernorKind::Ondemand => Box::new(Ondemand::new(od)),
            GovernorKind::Performance => Box::new(Fixed { max: true }),
            GovernorKind::Powersave => Box::new(Fixed { max: false }),
        }
    }

    /// The name used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            GovernorKind::Ondemand => "ondemand",
            GovernorKind::Performance => "performance",
            GovernorKind::Powersave => "powersave",
        }
    }
}

/// What a governor sees of the whole CPU at a decision.
#[derive(Debug, Clone, Copy)]
pub struct CpuView<'a> {
    /// The current time. `[ns]`
    pub now_ns: u64,
    /// Online state per core.
    pub online: &'a [bool],
    /// Current frequency per core (the last one, for an offline core). `[kHz]`
    pub cur_khz: &'a [u32],
    /// Policy minimum (a table frequency). `[kHz]`
    pub min_khz: u32,
    /// Policy maximum (a table frequency). `[kHz]`
    pub max_khz: u32,
}

impl CpuView<'_> {
    fn online_count(&self) -> usize {
        self.online.iter().filter(|o| **o).count()
    }
}

/// A frequency request, resolved on the table by [`super::OppTable::target`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FreqRequest {
    /// Target. `[kHz]`
    pub target_khz: u32,
    /// How it maps onto the table.
    pub relation: Relation,
}

/// A governor's answer at a start or a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Decision {
    /// The new frequency, if any.
    pub request: Option<FreqRequest>,
    /// When to sample this core next (`None`: never). `[ns]`
    pub next_sample_ns: Option<u64>,
}

/// A cpufreq governor for all cores (each core is its own policy on Krait).
pub trait Governor {
    /// The governor's name.
    fn name(&self) -> &'static str;
    /// `core` has come online (or the run starts): its first request and sample time.
    fn start(&mut self, core: usize, view: &CpuView<'_>) -> Decision;
    /// A sample of `core` whose load over the window was `load_pct` (0–100).
    fn sample(&mut self, core: usize, load_pct: u32, view: &CpuView<'_>) -> Decision;
}

/// `performance` / `powersave`: one request at start, no sampling.
struct Fixed {
    max: bool,
}

impl Governor for Fixed {
    fn name(&self) -> &'static str {
        if self.max { "performance" } else { "powersave" }
    }

    fn start(&mut self, _core: usize, view: &CpuView<'_>) -> Decision {
        let request = if self.max {
            FreqRequest {
                target_khz: view.max_khz,
                relation: Relation::H,
            }
        } else {
            FreqRequest {
                target_khz: view.min_khz,
                relation: Relation::L,
            }
        };
        Decision {
            request: Some(request),
            next_sample_ns: None,
        }
    }

    fn sample(&mut self, core: usize, _load_pct: u32, view: &CpuView<'_>) -> Decision {
        self.start(core, view)
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct CoreState {
    prev_load: u32,
    max_load: u32,
    rate_mult: u64,
}

/// The MSM8974 ondemand governor (see the module docs for the rule).
pub struct Ondemand {
    t: OndemandConfig,
    optimal_khz: u32,
    sync_khz: u32,
    cores: Vec<CoreState>,
}

impl Ondemand {
    /// ondemand with the tunables `t`.
    pub fn new(t: &OndemandConfig) -> Ondemand {
        Ondemand {
            t: t.clone(),
            optimal_khz: super::opp::mhz_to_khz(t.optimal_freq_mhz),
            sync_khz: super::opp::mhz_to_khz(t.sync_freq_mhz),
            cores: Vec::new(),
        }
    }

    fn rate_ns(&self) -> u64 {
        self.t.sampling_rate_ms.max(1) * 1_000_000
    }

    fn state(&mut self, core: usize) -> &mut CoreState {
        if self.cores.len() <= core {
            self.cores.resize(
                core + 1,
                CoreState {
                    rate_mult: 1,
                    ..CoreState::default()
                },
            );
        }
        &mut self.cores[core]
    }
}

fn raise(target_khz: u32) -> Option<FreqRequest> {
    Some(FreqRequest {
        target_khz,
        relation: Relation::H,
    })
}

impl Governor for Ondemand {
    fn name(&self) -> &'static str {
        "ondemand"
    }

    fn start(&mut self, core: usize, view: &CpuView<'_>) -> Decision {
        let rate = self.rate_ns();
        self.state(core).rate_mult = 1;
        Decision {
            request: None,
            next_sample_ns: Some((view.now_ns / rate + 1) * rate),
        }
    }

    fn sample(&mut self, core: usize, load_pct: u32, view: &CpuView<'_>) -> Decision {
        let t = self.t.clone();
        let (opt, sync) = (u64::from(self.optimal_khz), u64::from(self.sync_khz));
        let cur = u64::from(view.cur_khz[core]);
        let (min, max) = (u64::from(view.min_khz), u64::from(view.max_khz));
        let load = u64::from(load_pct.min(100));
        let load_freq = load * cur;
        // Step 1.
        let me = self.state(core);
        me.max_load = load_pct.max(me.prev_load);
        me.prev_load = load_pct;
        // Step 2.
        let mut other = 0u64;
        for j in 0..view.online.len() {
            if j == core || !view.online[j] {
                continue;
            }
            let ml = self.cores.get(j).map_or(0, |s| u64::from(s.max_load));
            other = other.max(ml);
            if u64::from(view.cur_khz[j]) == max && cur >= opt {
                other = u64::from(t.up_threshold_any_cpu_load);
            }
        }
        let multi = view.online_count() > 1;
        let mut request = None;
        // Step 3.
        if load_freq > u64::from(t.up_threshold) * cur {
            if cur < max {
                self.state(core).rate_mult = u64::from(t.sampling_down_factor.max(1));
                request = raise(view.max_khz);
            }
        } else if multi && other > u64::from(t.up_threshold_any_cpu_load) {
            // Step 4, sync.
            if cur < sync {
                request = raise(self.sync_khz);
            }
        } else if multi && load_freq > u64::from(t.up_threshold_multi_core) * cur {
            // Step 4, optimal.
            if cur < opt {
                request = raise(self.optimal_khz);
            }
        } else if cur != min {
            // Step 5.
            let down = u64::from(t.up_threshold.saturating_sub(t.down_differential).max(1));
            if load_freq < down * cur {
                let mut next = (load_freq / down).max(min);
                if multi {
                    let sync_floor_load = u64::from(
                        t.up_threshold_multi_core
                            .saturating_sub(t.down_differential),
                    );
                    if other > sync_floor_load && next < sync {
                        next = sync;
                    }
                    let optimal_floor_load = u64::from(
                        t.up_threshold_multi_core
                            .saturating_sub(t.down_differential_multi_core),
                    );
                    if load_freq > optimal_floor_load * cur && next < opt {
                        next = opt;
                    }
                }
                self.state(core).rate_mult = 1;
                let target_khz = u32::try_from(next).unwrap_or(u32::MAX);
                request = Some(FreqRequest {
                    target_khz,
                    relation: Relation::L,
                });
            }
        }
        let delay = self.rate_ns() * self.state(core).rate_mult.max(1);
        Decision {
            request,
            next_sample_ns: Some(view.now_ns + delay),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: u32 = 300_000;
    const MAX: u32 = 2_150_400;

    fn view<'a>(now_ns: u64, online: &'a [bool], cur_khz: &'a [u32]) -> CpuView<'a> {
        CpuView {
            now_ns,
            online,
            cur_khz,
            min_khz: MIN,
            max_khz: MAX,
        }
    }

    fn od() -> Ondemand {
        Ondemand::new(&OndemandConfig::default())
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn busy_core_jumps_to_max_and_samples_less_often() {
        let mut g = od();
        let on = [true];
        let d = g.start(0, &view(7 * MS, &on, &[MIN]));
        assert_eq!(
            d.next_sample_ns,
            Some(50 * MS),
            "first sample on the next multiple of 50 ms"
        );
        let d = g.sample(0, 100, &view(50 * MS, &on, &[MIN]));
        assert_eq!(
            d.request,
            Some(FreqRequest {
                target_khz: MAX,
                relation: Relation::H
            })
        );
        assert_eq!(
            d.next_sample_ns,
            Some(150 * MS),
            "rate_mult = sampling_down_factor = 2"
        );
        let d = g.sample(0, 85, &view(150 * MS, &on, &[MAX]));
        assert_eq!(
            d.request, None,
            "85 % at max: neither up nor down (80 ≤ load ≤ 90)"
        );
        assert_eq!(
            d.next_sample_ns,
            Some(250 * MS),
            "rate_mult kept while at max"
        );
        let d = g.sample(0, 30, &view(250 * MS, &on, &[MAX]));
        assert_eq!(
            d.request,
            Some(FreqRequest {
                target_khz: 30 * MAX / 80,
                relation: Relation::L
            })
        );
        assert_eq!(
            d.next_sample_ns,
            Some(300 * MS),
            "down resets rate_mult to 1"
        );
    }

    #[test]
    fn down_step_targets_load_over_up_minus_down_differential() {
        let mut g = od();
        let on = [true];
        g.start(0, &view(0, &on, &[MAX]));
        let d = g.sample(0, 30, &view(50 * MS, &on, &[MAX]));
        // 30 % of 2150.4 MHz = 645.12 MHz of work; at 80 % load that needs 806.4 MHz.
        assert_eq!(
            d.request,
            Some(FreqRequest {
                target_khz: 806_400,
                relation: Relation::L
            })
        );
        let d = g.sample(0, 0, &view(100 * MS, &on, &[960_000]));
        assert_eq!(
            d.request.map(|r| r.target_khz),
            Some(MIN),
            "idle → floor at policy min"
        );
        let d = g.sample(0, 0, &view(150 * MS, &on, &[MIN]));
        assert_eq!(d.request, None, "already at min");
    }

    #[test]
    fn multi_core_rules_hold_sync_and_optimal_floors() {
        let on = [true, true];
        // Core 0 was fully loaded: its max_load = 100 > up_threshold_any_cpu_load (80) → core 1 rises to sync.
        let mut g = od();
        g.sample(0, 100, &view(50 * MS, &on, &[MAX, MIN]));
        let d = g.sample(1, 5, &view(50 * MS, &on, &[MAX, MIN]));
        assert_eq!(
            d.request,
            Some(FreqRequest {
                target_khz: 960_000,
                relation: Relation::H
            })
        );
        // Core 1 at sync with core 0 at max: max_load_other becomes up_threshold_any_cpu_load (80), so the
        // down step runs but is floored at sync_freq (80 > 70 − 10).
        let d = g.sample(1, 5, &view(100 * MS, &on, &[MAX, 960_000]));
        assert_eq!(
            d.request.map(|r| r.target_khz),
            Some(960_000),
            "held at sync_freq while core 0 is at max"
        );
        // A lone core would have dropped.
        let mut solo = od();
        let d = solo.sample(0, 5, &view(100 * MS, &[true, false], &[960_000, MAX]));
        assert_eq!(
            d.request.map(|r| r.target_khz),
            Some(MIN),
            "offline cores do not count"
        );
        // load 75 % at 300 MHz with two cores online: above up_threshold_multi_core (70) → optimal_freq.
        let mut g = od();
        let d = g.sample(0, 75, &view(50 * MS, &on, &[MIN, MIN]));
        assert_eq!(
            d.request,
            Some(FreqRequest {
                target_khz: 960_000,
                relation: Relation::H
            })
        );
        // Down step floored at optimal: 68 % at 1190.4 MHz → 1011.8 MHz would be L-rounded to 1036.8 anyway,
        // but 68 % at 960 MHz → 816 MHz is floored to 960 (68 > 70 − 3 = 67).
        let mut g = od();
        let d = g.sample(0, 68, &view(50 * MS, &on, &[960_000, MIN]));
        assert_eq!(d.request.map(|r| r.target_khz), Some(960_000));
        // Another core at max makes max_load_other = 80 when cur ≥ optimal: the sync floor (80 > 60) holds.
        let mut g = od();
        g.sample(1, 0, &view(50 * MS, &on, &[1_190_400, MAX]));
        let d = g.sample(0, 10, &view(50 * MS, &on, &[1_190_400, MAX]));
        assert_eq!(
            d.request.map(|r| r.target_khz),
            Some(960_000),
            "floored at sync_freq"
        );
    }

    #[test]
    fn fixed_governors_pin_the_limits() {
        let od = OndemandConfig::default();
        let on = [true];
        let mut p = GovernorKind::Performance.create(&od);
        let d = p.start(0, &view(0, &on, &[MIN]));
        assert_eq!(
            d,
            Decision {
                request: Some(FreqRequest {
                    target_khz: MAX,
                    relation: Relation::H
                }),
                next_sample_ns: None
            }
        );
        let mut s = GovernorKind::Powersave.create(&od);
        assert_eq!(
            s.start(0, &view(0, &on, &[MAX]))
                .request
                .map(|r| r.target_khz),
            Some(MIN)
        );
        assert_eq!(GovernorKind::Ondemand.create(&od).name(), "ondemand");
        assert_eq!(p.name(), GovernorKind::Performance.name());
    }
}
