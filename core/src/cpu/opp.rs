//! The Krait 400 (MSM8974 / APQ8074) operating-point table and the cpufreq target lookups.
//!
//! Frequencies are integer **kHz** (`_khz`, as the kernel keeps them, so `2150.4 MHz` is exact); voltages are
//! **mV** (`_mv`). Source **[P]**: `acpuclock-8974.c` (CyanogenMod `android_kernel_lge_hammerhead`), the
//! `use_for_scaling = 1` levels, as tabulated in `models.md` §3.1. Tables come per speed bin × PVS bin (PVS 0 =
//! slowest silicon, highest voltage … PVS 6 = fastest, lowest voltage); models.md gives PVS 0/3/6 for the 2.2 GHz
//! bin and PVS 0 for the 2.3 GHz bin, and only those are offered here.
//!
//! [`OppTable::target`] is `cpufreq_frequency_table_target` with the `__cpufreq_driver_target` clamp: the target
//! is clamped to the policy `[min, max]`, then [`Relation::L`] picks the lowest table frequency ≥ target and
//! [`Relation::H`] the highest ≤ target, among entries inside the policy limits.

use serde::{Deserialize, Serialize};

/// Which speed bin's table (models.md §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum OppTableKind {
    /// 2.2 GHz bin: 14 steps 300 … 2150.4 MHz (the DragonBoard's "2.1 GHz" maximum, SYSTOR'15 Table 2). Default.
    #[default]
    #[serde(rename = "krait400-2p2g")]
    Krait2p2g,
    /// 2.3 GHz bin (Nexus 5): 14 steps 300 … 2265.6 MHz; only PVS 0 voltages are tabulated.
    #[serde(rename = "krait400-2p3g")]
    Krait2p3g,
}

/// Process-voltage-scaling bin of the silicon: which voltage column of the table applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PvsBin {
    /// Slowest silicon, highest voltages.
    Pvs0,
    /// "Typical" silicon (models.md §3.4). Default.
    #[default]
    Pvs3,
    /// Fastest silicon, lowest voltages.
    Pvs6,
}

/// One operating point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opp {
    /// Core clock. `[kHz]`
    pub freq_khz: u32,
    /// Core supply voltage. `[mV]`
    pub voltage_mv: u32,
}

impl Opp {
    /// Core clock. `[MHz]`
    pub fn freq_mhz(self) -> f64 {
        f64::from(self.freq_khz) / 1000.0
    }

    /// Core supply voltage. `[V]`
    pub fn voltage_v(self) -> f64 {
        f64::from(self.voltage_mv) / 1000.0
    }
}

/// How a target frequency maps onto the table (`CPUFREQ_RELATION_L` / `_H`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// Lowest table frequency at or above the target (falls back to the highest below it).
    L,
    /// Highest table frequency at or below the target (falls back to the lowest above it).
    H,
}

/// 2.2 GHz bin rows: kHz, then PVS 0 / 3 / 6 core voltage in mV [P].
const KRAIT_2P2G: [(u32, [u32; 3]); 14] = [
    (300_000, [800, 775, 750]),
    (422_400, [805, 775, 750]),
    (652_800, [835, 790, 760]),
    (729_600, [845, 800, 770]),
    (883_200, [865, 820, 790]),
    (960_000, [875, 830, 800]),
    (1_036_800, [890, 840, 810]),
    (1_190_400, [915, 860, 830]),
    (1_267_200, [925, 875, 840]),
    (1_497_600, [965, 910, 870]),
    (1_574_400, [980, 925, 875]),
    (1_728_000, [1010, 950, 895]),
    (1_958_400, [1055, 985, 920]),
    (2_150_400, [1100, 1025, 950]),
];

/// 2.3 GHz bin rows: kHz, PVS 0 core voltage in mV [P].
const KRAIT_2P3G_PVS0: [(u32, u32); 14] = [
    (300_000, 800),
    (422_400, 800),
    (652_800, 825),
    (729_600, 835),
    (883_200, 855),
    (960_000, 865),
    (1_036_800, 875),
    (1_190_400, 900),
    (1_267_200, 915),
    (1_497_600, 950),
    (1_574_400, 965),
    (1_728_000, 995),
    (1_958_400, 1040),
    (2_265_600, 1100),
];

/// The user-visible operating points of one core, ascending by frequency.
#[derive(Debug, Clone, PartialEq)]
pub struct OppTable {
    opps: Vec<Opp>,
}

impl OppTable {
    /// The table of `kind` with the voltages of `pvs`; `Err` names the combination when it is not tabulated
    /// (the 2.3 GHz bin has PVS 0 only).
    pub fn krait(kind: OppTableKind, pvs: PvsBin) -> Result<OppTable, String> {
        let opps = match (kind, pvs) {
            (OppTableKind::Krait2p2g, _) => return Ok(OppTable::krait_2p2g(pvs)),
            (OppTableKind::Krait2p3g, PvsBin::Pvs0) => KRAIT_2P3G_PVS0
                .iter()
                .map(|&(freq_khz, voltage_mv)| Opp {
                    freq_khz,
                    voltage_mv,
                })
                .collect(),
            (OppTableKind::Krait2p3g, _) => {
                return Err("expected pvs0 with krait400-2p3g (the only bin tabulated)".into());
            }
        };
        Ok(OppTable { opps })
    }

    /// The 2.2 GHz bin with the voltages of `pvs` (every PVS bin is tabulated).
    pub fn krait_2p2g(pvs: PvsBin) -> OppTable {
        let col = match pvs {
            PvsBin::Pvs0 => 0,
            PvsBin::Pvs3 => 1,
            PvsBin::Pvs6 => 2,
        };
        let opps = KRAIT_2P2G
            .iter()
            .map(|&(freq_khz, mv)| Opp {
                freq_khz,
                voltage_mv: mv[col],
            })
            .collect();
        OppTable { opps }
    }

    /// The default table: 2.2 GHz bin, PVS 3.
    pub fn krait_default() -> OppTable {
        OppTable::krait_2p2g(PvsBin::Pvs3)
    }

    /// All operating points, ascending.
    pub fn opps(&self) -> &[Opp] {
        &self.opps
    }

    /// Number of operating points.
    pub fn len(&self) -> usize {
        self.opps.len()
    }

    /// True when the table has no entries (never for the built-in tables).
    pub fn is_empty(&self) -> bool {
        self.opps.is_empty()
    }

    /// The operating point at `index` (clamped to the table).
    pub fn opp(&self, index: usize) -> Opp {
        self.opps[index.min(self.opps.len().saturating_sub(1))]
    }

    /// The lowest table frequency. `[kHz]`
    pub fn min_khz(&self) -> u32 {
        self.opps.first().map_or(0, |o| o.freq_khz)
    }

    /// The highest table frequency. `[kHz]`
    pub fn max_khz(&self) -> u32 {
        self.opps.last().map_or(0, |o| o.freq_khz)
    }

    /// The index of the exact frequency `freq_khz`, if it is in the table.
    pub fn index_of(&self, freq_khz: u32) -> Option<usize> {
        self.opps.iter().position(|o| o.freq_khz == freq_khz)
    }

    /// `cpufreq_frequency_table_target` after the driver's clamp of `target_khz` to `[min_khz, max_khz]`: the
    /// index chosen by `relation` among the entries inside the limits. When no entry lies inside the limits the
    /// whole table is used.
    pub fn target(&self, target_khz: u32, relation: Relation, min_khz: u32, max_khz: u32) -> usize {
        let t = target_khz.clamp(min_khz.min(max_khz), max_khz.max(min_khz));
        let inside: Vec<usize> = (0..self.opps.len())
            .filter(|&i| (min_khz..=max_khz).contains(&self.opps[i].freq_khz))
            .collect();
        let cands: Vec<usize> = if inside.is_empty() {
            (0..self.opps.len()).collect()
        } else {
            inside
        };
        let f = |i: usize| self.opps[i].freq_khz;
        let pick = match relation {
            Relation::L => cands
                .iter()
                .copied()
                .find(|&i| f(i) >= t)
                .or_else(|| cands.last().copied()),
            Relation::H => cands
                .iter()
                .rev()
                .copied()
                .find(|&i| f(i) <= t)
                .or_else(|| cands.first().copied()),
        };
        pick.unwrap_or(0)
    }

    /// Snaps policy limits onto the table: `max` → highest entry ≤ max, `min` → lowest entry ≥ min (and never
    /// above the snapped max). Returns `(min_khz, max_khz)`.
    pub fn snap_limits(&self, min_khz: u32, max_khz: u32) -> (u32, u32) {
        let whole = (self.min_khz(), self.max_khz());
        let hi = self
            .opp(self.target(max_khz, Relation::H, whole.0, whole.1))
            .freq_khz;
        let lo = self
            .opp(self.target(min_khz, Relation::L, whole.0, hi))
            .freq_khz;
        (lo.min(hi), hi)
    }
}

/// A frequency as MHz text with no trailing zeros: `960`, `2150.4`, `422.4` (the keys of
/// [`crate::cpu::CpuTimeline::time_at_frequency_s`]).
pub fn khz_label(freq_khz: u32) -> String {
    let whole = freq_khz / 1000;
    let frac = freq_khz % 1000;
    if frac == 0 {
        return whole.to_string();
    }
    let digits = format!("{frac:03}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// Converts MHz (as written in configuration) to whole kHz, rounding to nearest.
pub fn mhz_to_khz(freq_mhz: f64) -> u32 {
    let khz = (freq_mhz * 1000.0).round();
    if khz.is_finite() && khz > 0.0 {
        khz.min(f64::from(u32::MAX)) as u32
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_table_is_the_2p2g_pvs3_bin() {
        let t = OppTable::krait_default();
        assert_eq!(t.len(), 14, "14 user-visible steps");
        assert_eq!(t.min_khz(), 300_000);
        assert_eq!(t.max_khz(), 2_150_400);
        assert_eq!(
            t.opp(5),
            Opp {
                freq_khz: 960_000,
                voltage_mv: 830
            },
            "960 MHz at 830 mV (PVS3)"
        );
        assert_eq!(t.opp(13).voltage_mv, 1025);
        let p0 = OppTable::krait(OppTableKind::Krait2p2g, PvsBin::Pvs0).unwrap();
        let p6 = OppTable::krait(OppTableKind::Krait2p2g, PvsBin::Pvs6).unwrap();
        assert!(
            (0..14).all(|i| p0.opp(i).voltage_mv >= t.opp(i).voltage_mv
                && t.opp(i).voltage_mv >= p6.opp(i).voltage_mv),
            "PVS0 ≥ PVS3 ≥ PVS6 at every step"
        );
        assert!(
            t.opps().windows(2).all(|w| w[0].freq_khz < w[1].freq_khz),
            "ascending"
        );
        let n5 = OppTable::krait(OppTableKind::Krait2p3g, PvsBin::Pvs0).unwrap();
        assert_eq!(n5.max_khz(), 2_265_600);
        assert!(
            OppTable::krait(OppTableKind::Krait2p3g, PvsBin::Pvs3).is_err(),
            "2p3g has PVS0 only"
        );
    }

    #[test]
    fn relation_l_and_h_lookups() {
        let t = OppTable::krait_default();
        let (lo, hi) = (t.min_khz(), t.max_khz());
        let at = |k, r| t.opp(t.target(k, r, lo, hi)).freq_khz;
        assert_eq!(at(806_400, Relation::L), 883_200, "lowest ≥ target");
        assert_eq!(at(806_400, Relation::H), 729_600, "highest ≤ target");
        assert_eq!(at(960_000, Relation::L), 960_000, "exact hits stay");
        assert_eq!(at(960_000, Relation::H), 960_000);
        assert_eq!(at(0, Relation::L), 300_000, "clamped to policy min");
        assert_eq!(
            at(9_999_999, Relation::H),
            2_150_400,
            "clamped to policy max"
        );
        assert_eq!(at(2_100_000, Relation::H), 1_958_400);
        // Policy limits restrict the candidates.
        assert_eq!(
            t.opp(t.target(300_000, Relation::L, 652_800, 1_267_200))
                .freq_khz,
            652_800
        );
        assert_eq!(
            t.opp(t.target(2_000_000, Relation::H, 652_800, 1_267_200))
                .freq_khz,
            1_267_200
        );
        assert_eq!(
            t.snap_limits(300_000, 2_100_000),
            (300_000, 1_958_400),
            "2.1 GHz taken literally"
        );
        assert_eq!(t.snap_limits(350_000, 2_150_400), (422_400, 2_150_400));
        assert_eq!(t.index_of(1_574_400), Some(10));
        assert_eq!(t.index_of(1_574_000), None);
    }

    #[test]
    fn labels_are_mhz_without_trailing_zeros() {
        assert_eq!(khz_label(960_000), "960");
        assert_eq!(khz_label(2_150_400), "2150.4");
        assert_eq!(khz_label(422_400), "422.4");
        assert_eq!(khz_label(1_000_050), "1000.05");
        assert_eq!(mhz_to_khz(2150.4), 2_150_400);
        assert_eq!(mhz_to_khz(-1.0), 0);
    }
}
