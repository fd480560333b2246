//! The CPU side of the android-krait platform: four Krait 400 cores (Snapdragon 800, MSM8974/APQ8074) with
//! per-core DVFS, hotplug and energy — pure, deterministic components for the Android engine to drive.
//!
//! * [`opp`] — the operating-point table (kHz, mV per PVS bin) and the cpufreq RELATION_L/H lookups.
//! * [`governor`] — the MSM8974 `ondemand` governor per core, plus `performance` and `powersave`
//!   ([`GovernorKind`] → `Box<dyn Governor>`).
//! * [`hotplug`] — the open `msm_mpdecision` rule, or none ([`HotplugKind`] → `Box<dyn Hotplug>`).
//! * [`power`] — per-core busy/idle/offline power and the uncore term, fitted to the Nexus 5 power profile.
//! * [`meter`] — the [`EnergyMeter`] that integrates power over time by who ran ([`CpuTag`]).
//! * [`timeline`] — what a run records: frequency/online spans, transitions, time at each frequency
//!   (SYSTOR'15 Fig. 7) and power over time (Fig. 4a).
//! * [`work`] — the memory-bound time model `T(f) = cycles/f + T_mem` (models.md §5).
//! * [`system`] — [`Cpu`], the one type the engine drives.
//!
//! ## How the engine drives it
//! The engine owns the clock and the threads. It tells [`Cpu`] when each core becomes busy (with a [`CpuTag`]),
//! idle or in iowait, and how many threads are runnable; it calls [`Cpu::on_tick`] at [`Cpu::next_event_time`]
//! (the next governor sample or hotplug decision) and applies the returned [`CpuChange`]s (re-time work on a core
//! whose clock changed, migrate threads off a core going offline); at the end [`Cpu::finish`] gives the
//! [`CpuReport`]. Time is [`crate::SimTime`] (integer ns); there is no wall clock and no randomness, so the same
//! calls give a bit-identical report.
//!
//! ```
//! use gclab_core::cpu::{Cpu, CpuChange, CpuConfig, CpuTag};
//! use gclab_core::SimTime;
//! let mut cpu = Cpu::new(&CpuConfig::default(), 4).map_err(|(field, e)| format!("{field}: {e}"))?;
//! cpu.set_busy(0, SimTime(0), CpuTag::Mutator); // one busy thread on core 0 …
//! cpu.set_runnable(SimTime(0), 2); // … and another waiting
//! while let Some(t) = cpu.next_event_time().filter(|t| t.0 <= 400_000_000) {
//!     for change in cpu.on_tick(t) {
//!         if let CpuChange::Online { core } = change {
//!             cpu.set_busy(core, t, CpuTag::Mutator); // the waiting thread moves there
//!         }
//!     }
//! }
//! assert_eq!(cpu.freq_mhz(0), 2150.4, "ondemand jumped to max");
//! assert!(cpu.is_online(1), "mpdecision brought core 1 online");
//! let report = cpu.finish(SimTime(400_000_000));
//! assert!(report.energy_by_use().mutator_j > 0.0);
//! assert!(report.timeline.time_at_frequency_s()["offline"] > 0.0);
//! # Ok::<(), String>(())
//! ```
//!
//! ## Configuration
//! [`CpuConfig`] is the `[android.cpu]` section. Defaults are the SYSTOR'15 board (Table 2: ondemand, 50 ms,
//! up_threshold 90, optimal = sync = 0.96 GHz, 0.3–2.1 GHz) with the remaining MSM8974 tunables of
//! `init.qcom.post_boot.sh` (models.md §2.2). Provenance tags: **[P]** primary source, **[E]** our estimate.

pub mod governor;
pub mod hotplug;
pub mod meter;
pub mod opp;
pub mod power;
pub mod system;
pub mod timeline;
pub mod work;

use serde::{Deserialize, Serialize};

pub use governor::{Governor, GovernorKind};
pub use hotplug::{Hotplug, HotplugKind};
pub use meter::{CoreEnergy, CoreTime, CpuTag, EnergyMeter};
pub use opp::{Opp, OppTable, OppTableKind, PvsBin, Relation};
pub use power::{IdlePolicy, PowerModel};
pub use system::{CoreReport, Cpu, CpuChange, CpuReport};
pub use timeline::{CpuTimeline, FreqSpan, PowerSample};
pub use work::{Work, work_time_ns};

/// `[android.cpu.ondemand]`: the ondemand tunables (models.md §2.2; sysfs names without units).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OndemandConfig {
    /// Sampling period. `[ms]`, default 50 (SYSTOR'15 Table 2) [P], range 10–1000 (10 ms is the kernel minimum
    /// with micro idle accounting).
    pub sampling_rate_ms: u64,
    /// Load above which a core jumps to the policy max. `[%]`, default 90 (Table 2) [P], range 11–100.
    pub up_threshold: u32,
    /// The down step aims at `up_threshold − down_differential` load. `[%]`, default 10 [P], range 1 –
    /// min(up_threshold, up_threshold_multi_core) − 1.
    pub down_differential: u32,
    /// Sampling-period multiplier while at max after an up-jump. Default 2 [P], range 1–100000.
    pub sampling_down_factor: u32,
    /// Multi-core: load above which a core rises to at least `optimal_freq`. `[%]`, default 70 [P], range 11–100.
    pub up_threshold_multi_core: u32,
    /// Multi-core: the optimal floor of the down step applies above `up_threshold_multi_core − this`. `[%]`,
    /// default 3 [P], range 0 – up_threshold_multi_core − 1.
    pub down_differential_multi_core: u32,
    /// Multi-core floor for a loaded core. `[MHz]`, default 960 (Table 2) [P], range 1–5000.
    pub optimal_freq_mhz: f64,
    /// Multi-core floor while another core is loaded. `[MHz]`, default 960 (Table 2) [P], range 1–5000.
    pub sync_freq_mhz: f64,
    /// Another core's load above which this one rises to `sync_freq`. `[%]`, default 80 [P], range 11–100.
    pub up_threshold_any_cpu_load: u32,
    /// Count iowait as busy. Default true (MSM8974 init script) [P].
    pub io_is_busy: bool,
}

impl Default for OndemandConfig {
    fn default() -> Self {
        OndemandConfig {
            sampling_rate_ms: 50,
            up_threshold: 90,
            down_differential: 10,
            sampling_down_factor: 2,
            up_threshold_multi_core: 70,
            down_differential_multi_core: 3,
            optimal_freq_mhz: 960.0,
            sync_freq_mhz: 960.0,
            up_threshold_any_cpu_load: 80,
            io_is_busy: true,
        }
    }
}

/// `[android.cpu.mpdecision]`: the msm_mpdecision hotplug tunables (models.md §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MpdecisionConfig {
    /// Decision period. `[ms]`, default 100 (models.md §2.4) [P], range 10–10000.
    pub delay_ms: u64,
    /// No decision before this time. `[ms]`, default 0 [E] (the kernel waits 20000 ms after *boot*; a run starts
    /// long after boot), range 0–10⁷.
    pub start_delay_ms: u64,
    /// Run-queue thresholds ×10, pairs (up, down) indexed by 2·(online − 1). Default
    /// `[12,0, 25,20, 32,28, 0,35]` (quad-core) [P], each 0–1000.
    pub nwns: [u32; 8],
    /// Hold times matching `nwns`. `[ms]`, default `[140,0, 140,190, 140,190, 0,190]` [P], each 0–10⁶.
    pub twts_ms: [u32; 8],
    /// Apply the idle-frequency condition (up only if the slowest online core is above `idle_freq`, down only if
    /// at or below). Default true (as in the source) [P]; see [`hotplug`] for how it interacts with the
    /// governor's sync/optimal floors.
    pub idle_freq_check: bool,
    /// The idle frequency of that condition. `[MHz]`, default 486 [P], range 0–5000.
    pub idle_freq_mhz: f64,
    /// Fewest online cores. Default 1 [P], range 1–4.
    pub min_cpus: u32,
    /// Most online cores. Default 4 [P], range min_cpus–4.
    pub max_cpus: u32,
    /// Cores online when the run starts (the lowest indices). Default 1 [E] (an awake, idle phone under
    /// mpdecision), range min_cpus–max_cpus.
    pub start_online_cores: u32,
}

impl Default for MpdecisionConfig {
    fn default() -> Self {
        MpdecisionConfig {
            delay_ms: 100,
            start_delay_ms: 0,
            nwns: [12, 0, 25, 20, 32, 28, 0, 35],
            twts_ms: [140, 0, 140, 190, 140, 190, 0, 190],
            idle_freq_check: true,
            idle_freq_mhz: 486.0,
            min_cpus: 1,
            max_cpus: 4,
            start_online_cores: 1,
        }
    }
}

/// `[android.cpu.power]`: the per-core power model ([`power`] explains the fit and the calibration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PowerConfig {
    /// Battery voltage converting the power-profile currents to power. `[V]`, default 3.8 [E] (nominal Li-ion,
    /// models.md §3.2), range 1–10.
    pub battery_v: f64,
    /// Override of the fitted effective capacitance. `[nF]` (= mW/(V²·MHz)), default unset → fitted (0.655) [E],
    /// range 0–100.
    pub c_eff_nf: Option<f64>,
    /// Override of the fitted busy static power per volt. `[mW/V]`, default unset → fitted (174.3) [E], range
    /// 0–10000.
    pub static_mw_per_v: Option<f64>,
    /// Awake-idle current of the CPU system (`cpu.awake`). `[mA]`, default 17.4 (Nexus 5 power profile) [P],
    /// range 0–1000.
    pub awake_ma: f64,
    /// Share of the awake-idle power that is uncore/L2 (the rest calibrates per-core idle power). Default 0.5
    /// [E], range 0 – <1.
    pub uncore_share: f64,
    /// How an online core idles. Default `lpm` (the MSM LPM choice for the predicted idle length) [E].
    pub idle_policy: IdlePolicy,
}

impl Default for PowerConfig {
    fn default() -> Self {
        PowerConfig {
            battery_v: 3.8,
            c_eff_nf: None,
            static_mw_per_v: None,
            awake_ma: 17.4,
            uncore_share: 0.5,
            idle_policy: IdlePolicy::Lpm,
        }
    }
}

/// `[android.cpu]`: the CPU of the android-krait platform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CpuConfig {
    /// Cores in the cluster, each its own frequency policy. Default 4 (the MSM8974's quad-core Krait 400, Table 2)
    /// [P], range 1–4 (the mpdecision thresholds are defined for up to four cores; fewer model a part with cores
    /// fused off or held offline).
    pub cores: u32,
    /// Speed bin's operating-point table. Default `krait400-2p2g` (max 2150.4 MHz, the DragonBoard's "2.1 GHz")
    /// [P].
    pub opp_table: OppTableKind,
    /// Silicon PVS bin (voltage column). Default `pvs3` ("typical") [E]; `krait400-2p3g` has `pvs0` only.
    pub pvs_bin: PvsBin,
    /// Policy minimum (`scaling_min_freq`), snapped up to a table step. `[MHz]`, default 300 (Table 2) [P],
    /// range 1–5000, ≤ `max_freq_mhz`.
    pub min_freq_mhz: f64,
    /// Policy maximum (`scaling_max_freq`), snapped down to a table step. `[MHz]`, default 2150.4 (Table 2's
    /// 2.1 GHz is this step; 2100 taken literally would give 1958.4) [P], range 1–5000.
    pub max_freq_mhz: f64,
    /// Every core's clock when the run starts (RELATION_L within the policy). `[MHz]`, default 300 [E], range
    /// 1–5000.
    pub start_freq_mhz: f64,
    /// The cpufreq governor. Default `ondemand` (Table 2) [P].
    pub governor: GovernorKind,
    /// ondemand tunables.
    pub ondemand: OndemandConfig,
    /// The hotplug policy. Default `mpdecision` [P] (models.md §2.4: the open msm_mpdecision rule).
    pub hotplug: HotplugKind,
    /// mpdecision tunables.
    pub mpdecision: MpdecisionConfig,
    /// Power model.
    pub power: PowerConfig,
    /// Length of one power-over-time sample. `[ms]`, default 10 [E], range 1–60000.
    pub power_window_ms: u64,
}

impl Default for CpuConfig {
    fn default() -> Self {
        CpuConfig {
            cores: 4,
            opp_table: OppTableKind::Krait2p2g,
            pvs_bin: PvsBin::Pvs3,
            min_freq_mhz: 300.0,
            max_freq_mhz: 2150.4,
            start_freq_mhz: 300.0,
            governor: GovernorKind::Ondemand,
            ondemand: OndemandConfig::default(),
            hotplug: HotplugKind::Mpdecision,
            mpdecision: MpdecisionConfig::default(),
            power: PowerConfig::default(),
            power_window_ms: 10,
        }
    }
}

fn err<T>(field: &str, expected: &str) -> Result<T, (String, String)> {
    Err((field.to_string(), expected.to_string()))
}

fn in_range(v: f64, lo: f64, hi: f64) -> bool {
    v.is_finite() && v >= lo && v <= hi
}

impl CpuConfig {
    /// The operating-point table this configuration selects.
    pub fn table(&self) -> Result<OppTable, (String, String)> {
        OppTable::krait(self.opp_table, self.pvs_bin).map_err(|e| ("pvs_bin".to_string(), e))
    }

    /// Checks every range; `Err((field, expectation))` names the first bad field, dotted relative to
    /// `[android.cpu]` (`ondemand.up_threshold`).
    pub fn validate(&self) -> Result<(), (String, String)> {
        let table = self.table()?;
        if !(1..=4).contains(&self.cores) {
            return err("cores", "expected 1 to 4 cores");
        }
        for (name, v) in [
            ("min_freq_mhz", self.min_freq_mhz),
            ("max_freq_mhz", self.max_freq_mhz),
            ("start_freq_mhz", self.start_freq_mhz),
            ("ondemand.optimal_freq_mhz", self.ondemand.optimal_freq_mhz),
            ("ondemand.sync_freq_mhz", self.ondemand.sync_freq_mhz),
        ] {
            if !in_range(v, 1.0, 5000.0) {
                return err(name, "expected a clock in MHz in [1, 5000]");
            }
        }
        let (lo, hi) = (
            opp::mhz_to_khz(self.min_freq_mhz),
            opp::mhz_to_khz(self.max_freq_mhz),
        );
        if lo > hi {
            return err("min_freq_mhz", "expected at most max_freq_mhz");
        }
        if !table.opps().iter().any(|o| (lo..=hi).contains(&o.freq_khz)) {
            return err(
                "max_freq_mhz",
                "expected [min_freq_mhz, max_freq_mhz] to hold a table frequency",
            );
        }
        if !(1..=60_000).contains(&self.power_window_ms) {
            return err("power_window_ms", "expected 1 to 60000 ms");
        }
        let od = &self.ondemand;
        if !(10..=1000).contains(&od.sampling_rate_ms) {
            return err("ondemand.sampling_rate_ms", "expected 10 to 1000 ms");
        }
        for (name, v) in [
            ("ondemand.up_threshold", od.up_threshold),
            (
                "ondemand.up_threshold_multi_core",
                od.up_threshold_multi_core,
            ),
            (
                "ondemand.up_threshold_any_cpu_load",
                od.up_threshold_any_cpu_load,
            ),
        ] {
            if !(11..=100).contains(&v) {
                return err(name, "expected a load in % in [11, 100]");
            }
        }
        if od.down_differential < 1
            || od.down_differential >= od.up_threshold.min(od.up_threshold_multi_core)
        {
            return err(
                "ondemand.down_differential",
                "expected 1 ≤ value < min(up_threshold, up_threshold_multi_core)",
            );
        }
        if od.down_differential_multi_core >= od.up_threshold_multi_core {
            return err(
                "ondemand.down_differential_multi_core",
                "expected less than up_threshold_multi_core",
            );
        }
        if !(1..=100_000).contains(&od.sampling_down_factor) {
            return err("ondemand.sampling_down_factor", "expected 1 to 100000");
        }
        let mp = &self.mpdecision;
        if !(10..=10_000).contains(&mp.delay_ms) {
            return err("mpdecision.delay_ms", "expected 10 to 10000 ms");
        }
        if mp.start_delay_ms > 10_000_000 {
            return err("mpdecision.start_delay_ms", "expected at most 10000000 ms");
        }
        if mp.nwns.iter().any(|v| *v > 1000) {
            return err(
                "mpdecision.nwns",
                "expected run-queue thresholds ×10 in [0, 1000]",
            );
        }
        if mp.twts_ms.iter().any(|v| *v > 1_000_000) {
            return err(
                "mpdecision.twts_ms",
                "expected hold times in [0, 1000000] ms",
            );
        }
        if !in_range(mp.idle_freq_mhz, 0.0, 5000.0) {
            return err(
                "mpdecision.idle_freq_mhz",
                "expected a clock in MHz in [0, 5000]",
            );
        }
        if !(1..=4).contains(&mp.min_cpus) {
            return err("mpdecision.min_cpus", "expected 1 to 4");
        }
        if !(mp.min_cpus..=4).contains(&mp.max_cpus) {
            return err("mpdecision.max_cpus", "expected min_cpus to 4");
        }
        if !(mp.min_cpus..=mp.max_cpus).contains(&mp.start_online_cores) {
            return err(
                "mpdecision.start_online_cores",
                "expected min_cpus to max_cpus",
            );
        }
        let pw = &self.power;
        if !in_range(pw.battery_v, 1.0, 10.0) {
            return err("power.battery_v", "expected volts in [1, 10]");
        }
        if pw.c_eff_nf.is_some_and(|c| !in_range(c, 0.0, 100.0)) {
            return err("power.c_eff_nf", "expected nF in [0, 100]");
        }
        if pw
            .static_mw_per_v
            .is_some_and(|k| !in_range(k, 0.0, 10_000.0))
        {
            return err("power.static_mw_per_v", "expected mW/V in [0, 10000]");
        }
        if !in_range(pw.awake_ma, 0.0, 1000.0) {
            return err("power.awake_ma", "expected mA in [0, 1000]");
        }
        if !(pw.uncore_share.is_finite() && (0.0..1.0).contains(&pw.uncore_share)) {
            return err("power.uncore_share", "expected a fraction in [0, 1)");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_toml_round_trips() {
        let c = CpuConfig::default();
        assert_eq!(c.validate(), Ok(()));
        let text = toml::to_string(&c).unwrap();
        let back: CpuConfig = toml::from_str(&text).unwrap();
        assert_eq!(back, c, "serialises and reads back");
        let partial: CpuConfig =
            toml::from_str("governor = \"performance\"\n[ondemand]\nup_threshold = 95\n").unwrap();
        assert_eq!(partial.ondemand.up_threshold, 95);
        assert_eq!(
            partial.ondemand.sync_freq_mhz, 960.0,
            "missing fields take defaults"
        );
        assert!(
            toml::from_str::<CpuConfig>("up_treshold = 3").is_err(),
            "typos are errors"
        );
    }

    #[test]
    fn validate_names_the_bad_field() {
        let bad = |f: fn(&mut CpuConfig)| {
            let mut c = CpuConfig::default();
            f(&mut c);
            c.validate().err().map(|e| e.0)
        };
        assert_eq!(
            bad(|c| c.ondemand.up_threshold = 5),
            Some("ondemand.up_threshold".into())
        );
        assert_eq!(
            bad(|c| c.ondemand.down_differential = 70),
            Some("ondemand.down_differential".into())
        );
        assert_eq!(
            bad(|c| c.min_freq_mhz = 3000.0),
            Some("min_freq_mhz".into())
        );
        assert_eq!(bad(|c| c.pvs_bin = PvsBin::Pvs6), None);
        assert_eq!(
            bad(|c| {
                c.opp_table = OppTableKind::Krait2p3g;
                c.pvs_bin = PvsBin::Pvs3;
            }),
            Some("pvs_bin".into())
        );
        assert_eq!(
            bad(|c| c.mpdecision.start_online_cores = 0),
            Some("mpdecision.start_online_cores".into())
        );
        assert_eq!(
            bad(|c| c.power.uncore_share = 1.0),
            Some("power.uncore_share".into())
        );
        assert_eq!(
            bad(|c| c.power.c_eff_nf = Some(f64::NAN)),
            Some("power.c_eff_nf".into())
        );
        assert_eq!(
            bad(|c| c.max_freq_mhz = 301.0),
            None,
            "300 MHz is inside [300, 301]"
        );
    }
}
