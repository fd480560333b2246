//! The memory-bound time model (models.md §5): how long a piece of work takes at a core clock.
//!
//! `T(f) = N_cycles / f + T_mem` — the compute part scales with the clock, the memory-stall part does not
//! (the standard stall-time DVFS model of DEP+BURST and "leading loads") [E]. A phase is described either
//! directly as ([`Work::cycles`], [`Work::stall_ns`]) or by the **stall fraction** m: the share of its time spent
//! stalled on memory *when run at a reference clock* f_ref ([`Work::from_time_at`]). m is not frequency-invariant:
//! the same work has stall fraction `T_mem / T(f)`, which grows as f rises. Speed-up from f1 to f2 is
//! `1 / ((1 − m)·f1/f2 + m)` with m measured at f1 ([`speedup`]). Defaults to present as calibration parameters,
//! not results (models.md §5): mutator m ≈ 0.2–0.3, GC marking m ≈ 0.5–0.6, sweeping m ≈ 0.4.
//!
//! Clocks are integer kHz (`_khz`), times integer ns; times round **up** to whole nanoseconds so that work never
//! finishes early.

/// A piece of work: compute cycles plus frequency-invariant memory stall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Work {
    /// Core cycles. `[cycles]`
    pub cycles: u64,
    /// Memory stall time. `[ns]`
    pub stall_ns: u64,
}

impl Work {
    /// Work that takes `time_ns` at `ref_khz` with memory-stall fraction `stall_fraction` (clamped to 0–1).
    pub fn from_time_at(time_ns: u64, stall_fraction: f64, ref_khz: u32) -> Work {
        let m = if stall_fraction.is_finite() {
            stall_fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let stall_ns = (time_ns as f64 * m).round() as u64;
        let compute_ns = time_ns.saturating_sub(stall_ns);
        let cycles = u128::from(compute_ns) * u128::from(ref_khz) / 1_000_000;
        Work {
            cycles: u64::try_from(cycles).unwrap_or(u64::MAX),
            stall_ns,
        }
    }

    /// Time to run this work at `freq_khz`. `[ns]`
    pub fn time_ns(&self, freq_khz: u32) -> u64 {
        work_time_ns(self.cycles, self.stall_ns, freq_khz)
    }

    /// The stall fraction of this work at `freq_khz`.
    pub fn stall_fraction_at(&self, freq_khz: u32) -> f64 {
        let t = self.time_ns(freq_khz);
        if t == 0 {
            0.0
        } else {
            self.stall_ns as f64 / t as f64
        }
    }

    /// What is left after running `elapsed_ns` at `freq_khz`, compute and stall progressing in proportion
    /// (uniformly interleaved). Zero once `elapsed_ns ≥ time_ns(freq_khz)`.
    pub fn remaining_after(&self, elapsed_ns: u64, freq_khz: u32) -> Work {
        let total = self.time_ns(freq_khz);
        if elapsed_ns >= total {
            return Work::default();
        }
        let left = total - elapsed_ns;
        // x·left/total, in u64 when the product fits (the same integer; u128 division is a library call).
        let scale = |x: u64| match x.checked_mul(left) {
            Some(p) => p / total,
            None => u64::try_from(u128::from(x) * u128::from(left) / u128::from(total))
                .unwrap_or(u64::MAX),
        };
        Work {
            cycles: scale(self.cycles),
            stall_ns: scale(self.stall_ns),
        }
    }

    /// True when nothing is left.
    pub fn is_done(&self) -> bool {
        self.cycles == 0 && self.stall_ns == 0
    }
}

/// Both parts added (saturating).
impl std::ops::Add for Work {
    type Output = Work;
    fn add(self, o: Work) -> Work {
        Work {
            cycles: self.cycles.saturating_add(o.cycles),
            stall_ns: self.stall_ns.saturating_add(o.stall_ns),
        }
    }
}

/// Both parts subtracted (saturating at zero): what is left of `self` once `o`, a part of it, is done.
impl std::ops::Sub for Work {
    type Output = Work;
    fn sub(self, o: Work) -> Work {
        Work {
            cycles: self.cycles.saturating_sub(o.cycles),
            stall_ns: self.stall_ns.saturating_sub(o.stall_ns),
        }
    }
}

/// `T = cycles / f + T_mem`, rounded up to whole nanoseconds; a zero clock takes forever (`u64::MAX`). `[ns]`
pub fn work_time_ns(compute_cycles: u64, mem_stall_ns: u64, freq_khz: u32) -> u64 {
    if compute_cycles == 0 {
        return mem_stall_ns;
    }
    if freq_khz == 0 {
        return u64::MAX;
    }
    // In u64 when the product fits (the same integer; u128 division is a library call).
    let compute = match compute_cycles.checked_mul(1_000_000) {
        Some(p) => p.div_ceil(u64::from(freq_khz)),
        None => {
            u64::try_from((u128::from(compute_cycles) * 1_000_000).div_ceil(u128::from(freq_khz)))
                .unwrap_or(u64::MAX)
        }
    };
    compute.saturating_add(mem_stall_ns)
}

/// Speed-up of a phase with stall fraction `m` (measured at `from_khz`) when moved to `to_khz`.
pub fn speedup(m: f64, from_khz: u32, to_khz: u32) -> f64 {
    let ratio = f64::from(from_khz) / f64::from(to_khz.max(1));
    1.0 / ((1.0 - m) * ratio + m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_scales_and_stalls_do_not() {
        assert_eq!(
            work_time_ns(300_000, 0, 300_000),
            1_000_000,
            "300 k cycles at 300 MHz = 1 ms"
        );
        assert_eq!(work_time_ns(300_000, 500_000, 960_000), 312_500 + 500_000);
        assert_eq!(work_time_ns(1, 0, 2_150_400), 1, "rounded up");
        assert_eq!(work_time_ns(0, 7, 0), 7);
        assert_eq!(work_time_ns(1, 0, 0), u64::MAX);
    }

    #[test]
    fn stall_fraction_reproduces_the_models_table() {
        // models.md §5: m = 0.3 at 300 MHz → ×1.93 at 960 MHz; m = 0.5, 960 → 2150.4 MHz → ×1.38.
        let w = Work::from_time_at(10_000_000, 0.3, 300_000);
        assert_eq!(
            w,
            Work {
                cycles: 2_100_000,
                stall_ns: 3_000_000
            }
        );
        let s = w.time_ns(300_000) as f64 / w.time_ns(960_000) as f64;
        assert!((s - 1.93).abs() < 0.01, "speed-up {s}");
        assert!((speedup(0.3, 300_000, 960_000) - s).abs() < 1e-3);
        assert!((speedup(0.5, 960_000, 2_150_400) - 1.38).abs() < 0.01);
        assert!(
            (speedup(0.0, 300_000, 2_150_400) - 7.168).abs() < 0.001,
            "compute-bound scales fully"
        );
        assert!(w.stall_fraction_at(960_000) > 0.3, "m grows with the clock");
    }

    #[test]
    fn remaining_work_survives_a_frequency_change() {
        let w = Work {
            cycles: 960_000,
            stall_ns: 1_000_000,
        }; // 1 ms + 1 ms at 960 MHz
        let half = w.remaining_after(1_000_000, 960_000);
        assert_eq!(
            half,
            Work {
                cycles: 480_000,
                stall_ns: 500_000
            }
        );
        assert_eq!(
            half.time_ns(2_150_400),
            223_215 + 500_000,
            "the rest at max"
        );
        assert!(w.remaining_after(5_000_000, 960_000).is_done());
    }
}
