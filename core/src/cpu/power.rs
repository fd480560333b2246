//! Per-core power of the Krait 400: busy (fitted to the Nexus 5 power profile), online idle, offline, uncore.
//!
//! ## Model (models.md §3.4)
//! * **Busy** at operating point (f, V): `P = C_eff·V²·f + k_s·V` `[mW]` with f in MHz, V in V, `C_eff` in nF
//!   (1 nF·V²·MHz = 1 mW). The form is [E]; the data are [P]: `C_eff` and `k_s` are fitted in code
//!   ([`fit_busy_power`]) to the Nexus 5 `power_profile.xml` `cpu.active` currents (models.md §3.2), converted to
//!   battery-side power at `battery_v` (3.8 V [E]). The fit is a least-squares fit of the **relative** error
//!   (weights 1/P²) over the 13 frequencies the profile shares with the 2.2 GHz table, using the *typical*
//!   silicon voltages (2.2 GHz bin, PVS 3); the constants are then applied to the configured table's voltages, so
//!   slower silicon (PVS 0, higher V) draws more at the same clock. Result: `C_eff` = 0.655 nF, `k_s` =
//!   174.3 mW/V, RMS relative error 9.8 %, worst point 15.6 % (729.6 MHz) — the profile's own steps are uneven
//!   (e.g. +30 mA from 300 to 422.4 MHz, +11 mA from 422.4 to 652.8 MHz). Because `cpu.active` is what Android
//!   charges one busy core *on top of* the awake system, `k_s·V` lumps leakage with the core's frequency-
//!   independent share of L2, bus and regulator losses; it is charged only while busy.
//! * **Online idle**: the MSM low-power modes WFI, retention, standalone power collapse (SPC) and power collapse
//!   (PC) with the relative weights of `msm8974-v2-pm.dtsi` **[P]** (steady-state 715 : 542 : 476 : 400, entry
//!   energy overheads, latencies — models.md §3.3). Their absolute scale is [E]: the awake-idle system draws
//!   `cpu.awake` = 17.4 mA **[P]** × `battery_v`; `uncore_share` (0.5 [E]) of it is the uncore/L2 term and the rest
//!   is one core in WFI at the lowest voltage plus the other cores offline. WFI (clock-gated, voltage held) scales
//!   with V/V_min [E]; the deeper modes do not. Entering a mode costs a lump `k·(energy_overhead − ss·time_overhead)`
//!   once, then its steady power (so a split interval integrates exactly). With [`IdlePolicy::Lpm`] the mode is the
//!   one minimising `(ss·(t − time_overhead) + energy_overhead)/t` among modes whose latency ≤ t, for the predicted
//!   idle time t = the core's previous idle interval (a simple history predictor [E]).
//! * **Offline** (hotplugged): the steady power of PC, no entry cost (models.md §3.4).
//! * **Uncore/L2**: a constant while the system is awake (always, in a run).
//!
//! [`super::meter::EnergyMeter`] integrates these powers over time.
//!
//! With 4 cores and defaults: uncore 33.1 mW, WFI 12.3 mW at 775 mV, PC/offline 6.9 mW; busy 253 mW at 300 MHz
//! and 1658 mW at 2150.4 MHz (PVS 3). 2150.4 MHz is not a profile point (the Nexus 5 tops out at 2265.6 MHz on
//! other silicon), and the fit overshoots its neighbour 1958.4 MHz by 14 %, so busy power at the top steps is
//! likely 10–15 % high. Energies are f64 joules (`_j`), powers f64 milliwatts (`_mw`).

use serde::{Deserialize, Serialize};

use super::PowerConfig;
use super::opp::{OppTable, PvsBin};

/// Nexus 5 `power_profile.xml` `cpu.active`: battery current of one busy core at each clock. `[kHz, mA]` [P]
pub const POWER_PROFILE_ACTIVE_MA: [(u32, f64); 14] = [
    (300_000, 57.9),
    (422_400, 88.2),
    (652_800, 99.6),
    (729_600, 138.8),
    (883_200, 149.6),
    (960_000, 170.2),
    (1_036_800, 178.3),
    (1_190_400, 189.1),
    (1_267_200, 232.1),
    (1_497_600, 256.5),
    (1_574_400, 266.4),
    (1_728_000, 287.7),
    (1_958_400, 325.7),
    (2_265_600, 386.2),
];

/// Nexus 5 `power_profile.xml` `cpu.awake`: awake system, CPU idle. `[mA]` [P]
pub const POWER_PROFILE_AWAKE_MA: f64 = 17.4;

/// How an online core idles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum IdlePolicy {
    /// The MSM LPM choice for the predicted idle time (previous interval on that core). Default.
    #[default]
    Lpm,
    /// Always WFI (clock gating only).
    Wfi,
    /// Always retention.
    Retention,
    /// Always standalone power collapse.
    StandalonePc,
    /// Always power collapse.
    Pc,
}

/// A per-core low-power mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IdleState {
    /// Clock-gated, voltage held.
    Wfi,
    /// Retention voltage.
    Retention,
    /// Standalone power collapse.
    StandalonePc,
    /// Power collapse.
    Pc,
}

impl IdleState {
    const ALL: [IdleState; 4] = [
        IdleState::Wfi,
        IdleState::Retention,
        IdleState::StandalonePc,
        IdleState::Pc,
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// `qcom,lpm-levels` of msm8974-v2-pm.dtsi [P]: latency µs, steady-state weight, entry/exit energy overhead
/// (weight·µs), time overhead µs.
const LPM: [(f64, f64, f64, f64); 4] = [
    (1.0, 715.0, 17_700.0, 2.0),
    (35.0, 542.0, 34_920.0, 40.0),
    (300.0, 476.0, 225_300.0, 350.0),
    (500.0, 400.0, 280_000.0, 500.0),
];

/// The least-squares fit of the busy power to the power profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BusyFit {
    /// Effective switched capacitance (battery side). `[nF]` = `[mW/(V²·MHz)]`
    pub c_eff_nf: f64,
    /// Busy static power per volt. `[mW/V]`
    pub static_mw_per_v: f64,
    /// Profile points used.
    pub points: usize,
    /// Root-mean-square relative error over the points.
    pub rms_rel_err: f64,
    /// Largest relative error over the points.
    pub max_rel_err: f64,
}

/// Fits `P = C·V²·f + k·V` to `cpu.active × battery_v` over the profile frequencies present in the 2.2 GHz
/// table, with PVS 3 voltages, minimising the sum of squared relative errors (weights 1/P²).
pub fn fit_busy_power(battery_v: f64) -> BusyFit {
    let table = OppTable::krait_2p2g(PvsBin::Pvs3);
    let pts: Vec<(f64, f64, f64)> = POWER_PROFILE_ACTIVE_MA
        .iter()
        .filter_map(|&(khz, ma)| {
            let opp = table.opp(table.index_of(khz)?);
            let v = opp.voltage_v();
            Some((v * v * opp.freq_mhz(), v, ma * battery_v))
        })
        .collect();
    // Normal equations of the weighted problem, solved by Cramer's rule.
    let (mut saa, mut sab, mut sbb, mut sap, mut sbp) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(a, b, p) in &pts {
        let w = 1.0 / (p * p);
        saa += w * a * a;
        sab += w * a * b;
        sbb += w * b * b;
        sap += w * a * p;
        sbp += w * b * p;
    }
    let det = saa * sbb - sab * sab;
    let (c, k) = if det.abs() > 0.0 {
        ((sap * sbb - sbp * sab) / det, (saa * sbp - sab * sap) / det)
    } else {
        (0.0, 0.0)
    };
    let rel: Vec<f64> = pts
        .iter()
        .map(|&(a, b, p)| (c * a + k * b - p) / p)
        .collect();
    let n = rel.len().max(1) as f64;
    BusyFit {
        c_eff_nf: c,
        static_mw_per_v: k,
        points: pts.len(),
        rms_rel_err: (rel.iter().map(|r| r * r).sum::<f64>() / n).sqrt(),
        max_rel_err: rel.iter().fold(0.0, |m: f64, r| m.max(r.abs())),
    }
}

/// The power of every core state, precomputed for one operating-point table.
#[derive(Debug, Clone, PartialEq)]
pub struct PowerModel {
    fit: BusyFit,
    c_eff_nf: f64,
    static_mw_per_v: f64,
    busy_mw: Vec<f64>,
    wfi_mw: Vec<f64>,
    state_mw: [f64; 4],
    entry_j: [f64; 4],
    uncore_mw: f64,
    policy: IdlePolicy,
}

impl PowerModel {
    /// Builds the model for `table` and `cores` cores (the idle calibration reference is one core in WFI and
    /// `cores − 1` offline). `c_eff_nf` / `static_mw_per_v` in `cfg` override the fit when set.
    pub fn new(cfg: &PowerConfig, table: &OppTable, cores: usize) -> PowerModel {
        let fit = fit_busy_power(cfg.battery_v);
        let c = cfg.c_eff_nf.unwrap_or(fit.c_eff_nf);
        let k = cfg.static_mw_per_v.unwrap_or(fit.static_mw_per_v);
        let busy_mw = table
            .opps()
            .iter()
            .map(|o| c * o.voltage_v() * o.voltage_v() * o.freq_mhz() + k * o.voltage_v())
            .collect();
        let awake_mw = cfg.awake_ma * cfg.battery_v;
        let uncore_mw = cfg.uncore_share * awake_mw;
        let pc_over_wfi = LPM[3].1 / LPM[0].1;
        let others = cores.saturating_sub(1) as f64;
        let wfi_ref_mw = (awake_mw - uncore_mw) / (1.0 + others * pc_over_wfi);
        let scale = wfi_ref_mw / LPM[0].1; // mW per weight unit
        let v_min = table.opp(0).voltage_v().max(1e-9);
        let wfi_mw = table
            .opps()
            .iter()
            .map(|o| wfi_ref_mw * o.voltage_v() / v_min)
            .collect();
        let mut state_mw = [0.0; 4];
        let mut entry_j = [0.0; 4];
        for s in IdleState::ALL {
            let (_, ss, eo, to) = LPM[s.index()];
            state_mw[s.index()] = scale * ss;
            entry_j[s.index()] = scale * (eo - ss * to).max(0.0) * 1e-9; // mW·µs → J
        }
        PowerModel {
            fit,
            c_eff_nf: c,
            static_mw_per_v: k,
            busy_mw,
            wfi_mw,
            state_mw,
            entry_j,
            uncore_mw,
            policy: cfg.idle_policy,
        }
    }

    /// The fit to the power profile (also when overridden).
    pub fn fit(&self) -> BusyFit {
        self.fit
    }

    /// Effective capacitance in use. `[nF]`
    pub fn c_eff_nf(&self) -> f64 {
        self.c_eff_nf
    }

    /// Busy static power per volt in use. `[mW/V]`
    pub fn static_mw_per_v(&self) -> f64 {
        self.static_mw_per_v
    }

    /// Power of a busy core at table index `opp`. `[mW]`
    pub fn busy_mw(&self, opp: usize) -> f64 {
        self.busy_mw[opp.min(self.busy_mw.len().saturating_sub(1))]
    }

    /// The low-power mode for an idle interval predicted to last `predicted_ns`.
    pub fn idle_state(&self, predicted_ns: u64) -> IdleState {
        match self.policy {
            IdlePolicy::Wfi => IdleState::Wfi,
            IdlePolicy::Retention => IdleState::Retention,
            IdlePolicy::StandalonePc => IdleState::StandalonePc,
            IdlePolicy::Pc => IdleState::Pc,
            IdlePolicy::Lpm => {
                let t_us = predicted_ns as f64 / 1000.0;
                let mut best = (IdleState::Wfi, f64::INFINITY);
                for s in IdleState::ALL {
                    let (lat, ss, eo, to) = LPM[s.index()];
                    if s != IdleState::Wfi && lat > t_us {
                        continue;
                    }
                    let t = t_us.max(to);
                    let cost = (ss * (t - to) + eo) / t;
                    if cost < best.1 {
                        best = (s, cost);
                    }
                }
                best.0
            }
        }
    }

    /// Steady power of an online idle core in `state` at table index `opp`. `[mW]`
    pub fn idle_mw(&self, state: IdleState, opp: usize) -> f64 {
        match state {
            IdleState::Wfi => self.wfi_mw[opp.min(self.wfi_mw.len().saturating_sub(1))],
            s => self.state_mw[s.index()],
        }
    }

    /// Energy charged once on entering `state`. `[J]`
    pub fn idle_entry_j(&self, state: IdleState) -> f64 {
        self.entry_j[state.index()]
    }

    /// Exit latency of `state` (`qcom,latency-us` of msm8974-v2-pm.dtsi, models.md §3.3) [P]. `[ns]`
    pub fn exit_latency_ns(&self, state: IdleState) -> u64 {
        (LPM[state.index()].0 * 1000.0).round() as u64
    }

    /// Power of an offline core (power collapse). `[mW]`
    pub fn offline_mw(&self) -> f64 {
        self.state_mw[IdleState::Pc.index()]
    }

    /// Uncore/L2 power while the system is awake. `[mW]`
    pub fn uncore_mw(&self) -> f64 {
        self.uncore_mw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_reproduces_the_power_profile_within_16_percent() {
        let fit = fit_busy_power(3.8);
        assert_eq!(
            fit.points, 13,
            "the 13 profile clocks shared with the 2.2 GHz table"
        );
        assert!(
            (fit.c_eff_nf - 0.655).abs() < 0.001,
            "C_eff = {}",
            fit.c_eff_nf
        );
        assert!(
            (fit.static_mw_per_v - 174.3).abs() < 0.1,
            "k_s = {}",
            fit.static_mw_per_v
        );
        assert!(fit.max_rel_err < 0.16, "worst point {}", fit.max_rel_err);
        assert!(fit.rms_rel_err < 0.10, "rms {}", fit.rms_rel_err);
        // Check the residuals independently of the fit's own bookkeeping.
        let table = OppTable::krait_default();
        for &(khz, ma) in &POWER_PROFILE_ACTIVE_MA[..13] {
            let o = table.opp(table.index_of(khz).unwrap());
            let p = fit.c_eff_nf * o.voltage_v().powi(2) * o.freq_mhz()
                + fit.static_mw_per_v * o.voltage_v();
            let rel = (p - ma * 3.8) / (ma * 3.8);
            assert!(
                rel.abs() < 0.16,
                "{khz} kHz: model {p:.1} mW vs profile {:.1} mW",
                ma * 3.8
            );
        }
    }

    #[test]
    fn idle_states_follow_the_lpm_ratios_and_calibration() {
        let cfg = PowerConfig::default();
        let table = OppTable::krait_default();
        let m = PowerModel::new(&cfg, &table, 4);
        let awake = 17.4 * 3.8;
        let reference = m.uncore_mw() + m.idle_mw(IdleState::Wfi, 0) + 3.0 * m.offline_mw();
        assert!(
            (reference - awake).abs() < 1e-9,
            "one core in WFI + three offline = cpu.awake"
        );
        let r = m.idle_mw(IdleState::Retention, 0) / m.idle_mw(IdleState::Wfi, 0);
        assert!((r - 542.0 / 715.0).abs() < 1e-12, "retention/WFI = 0.76");
        assert!(
            m.idle_mw(IdleState::Wfi, 13) > m.idle_mw(IdleState::Wfi, 0),
            "WFI scales with V"
        );
        assert!(
            m.busy_mw(0) > 10.0 * m.idle_mw(IdleState::Wfi, 0),
            "per-core idle power is low"
        );
        // LPM choice by predicted idle length.
        assert_eq!(m.idle_state(0), IdleState::Wfi);
        assert_eq!(m.idle_state(20_000), IdleState::Wfi, "20 µs: only WFI fits");
        assert_eq!(m.idle_state(100_000), IdleState::Retention);
        assert_eq!(m.idle_state(10_000_000), IdleState::Pc);
        let s0 = PowerModel::new(
            &cfg,
            &OppTable::krait(super::super::OppTableKind::Krait2p2g, PvsBin::Pvs0).unwrap(),
            4,
        );
        assert!(
            s0.busy_mw(13) > m.busy_mw(13),
            "slow silicon draws more at the same clock"
        );
    }
}
