//! The energy meter: integrates power over intervals per core, split by who ran ([`CpuTag`]: mutator, GC,
//! other) or by idle/offline, plus the uncore, and into fixed windows for the power-over-time series.
//!
//! Intervals are `[from_ns, to_ns)` in integer ns with a constant power in mW (1 mW·ns = 10⁻¹² J); idle-mode
//! entry costs are lumps in J charged at an instant. Energies are f64 joules (`_j`), times u64 ns (`_ns`).

/// Who kept a core busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CpuTag {
    /// Application (mutator) threads.
    Mutator,
    /// Garbage-collector work (daemon, foreground GC, safepoint handling).
    Gc,
    /// Everything else (system daemons, the UI thread's non-Java work, …).
    Other,
}

/// What a core's time and energy are charged to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// Running work of a tag.
    Busy(CpuTag),
    /// Online and idle (including iowait).
    Idle,
    /// Hotplugged off.
    Offline,
}

/// One core's energy by use. `[J]`
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CoreEnergy {
    /// Busy running mutator threads. `[J]`
    pub mutator_j: f64,
    /// Busy running GC work. `[J]`
    pub gc_j: f64,
    /// Busy running other work. `[J]`
    pub other_j: f64,
    /// Online idle, including idle-mode entry costs. `[J]`
    pub idle_j: f64,
    /// Offline. `[J]`
    pub offline_j: f64,
}

impl CoreEnergy {
    /// Sum of all uses. `[J]`
    pub fn total_j(&self) -> f64 {
        self.mutator_j + self.gc_j + self.other_j + self.idle_j + self.offline_j
    }

    /// Adds `other` field by field.
    pub fn add(&mut self, other: &CoreEnergy) {
        self.mutator_j += other.mutator_j;
        self.gc_j += other.gc_j;
        self.other_j += other.other_j;
        self.idle_j += other.idle_j;
        self.offline_j += other.offline_j;
    }

    fn slot(&mut self, usage: Use) -> &mut f64 {
        match usage {
            Use::Busy(CpuTag::Mutator) => &mut self.mutator_j,
            Use::Busy(CpuTag::Gc) => &mut self.gc_j,
            Use::Busy(CpuTag::Other) => &mut self.other_j,
            Use::Idle => &mut self.idle_j,
            Use::Offline => &mut self.offline_j,
        }
    }
}

/// One core's time by use. `[ns]`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CoreTime {
    /// Busy running mutator threads. `[ns]`
    pub mutator_ns: u64,
    /// Busy running GC work. `[ns]`
    pub gc_ns: u64,
    /// Busy running other work. `[ns]`
    pub other_ns: u64,
    /// Online idle, including iowait. `[ns]`
    pub idle_ns: u64,
    /// Offline. `[ns]`
    pub offline_ns: u64,
}

impl CoreTime {
    fn slot(&mut self, usage: Use) -> &mut u64 {
        match usage {
            Use::Busy(CpuTag::Mutator) => &mut self.mutator_ns,
            Use::Busy(CpuTag::Gc) => &mut self.gc_ns,
            Use::Busy(CpuTag::Other) => &mut self.other_ns,
            Use::Idle => &mut self.idle_ns,
            Use::Offline => &mut self.offline_ns,
        }
    }
}

/// Integrates power over intervals: per core and use, plus fixed windows for the power-over-time series.
#[derive(Debug, Clone, PartialEq)]
pub struct EnergyMeter {
    energy: Vec<CoreEnergy>,
    time: Vec<CoreTime>,
    uncore_j: f64,
    window_ns: u64,
    window_j: Vec<f64>,
}

impl EnergyMeter {
    /// A meter for `cores` cores with power windows of `window_ns` (≥ 1).
    pub fn new(cores: usize, window_ns: u64) -> EnergyMeter {
        EnergyMeter {
            energy: vec![CoreEnergy::default(); cores],
            time: vec![CoreTime::default(); cores],
            uncore_j: 0.0,
            window_ns: window_ns.max(1),
            window_j: Vec::new(),
        }
    }

    fn add_window(&mut self, at_ns: u64, j: f64) {
        let w = (at_ns / self.window_ns) as usize;
        if self.window_j.len() <= w {
            self.window_j.resize(w + 1, 0.0);
        }
        self.window_j[w] += j;
    }

    fn spread(&mut self, from_ns: u64, to_ns: u64, power_mw: f64) -> f64 {
        let mut t = from_ns;
        while t < to_ns {
            let end = ((t / self.window_ns + 1) * self.window_ns).min(to_ns);
            self.add_window(t, power_mw * (end - t) as f64 * 1e-12);
            t = end;
        }
        power_mw * to_ns.saturating_sub(from_ns) as f64 * 1e-12
    }

    /// Charges `core` with `power_mw` over `[from_ns, to_ns)` to `usage`.
    pub fn charge(&mut self, core: usize, usage: Use, from_ns: u64, to_ns: u64, power_mw: f64) {
        let j = self.spread(from_ns, to_ns, power_mw);
        *self.energy[core].slot(usage) += j;
        *self.time[core].slot(usage) += to_ns.saturating_sub(from_ns);
    }

    /// Charges `core` a lump `energy_j` at `at_ns` to `usage` (idle-mode entry).
    pub fn charge_lump(&mut self, core: usize, usage: Use, at_ns: u64, energy_j: f64) {
        self.add_window(at_ns, energy_j);
        *self.energy[core].slot(usage) += energy_j;
    }

    /// Charges the uncore with `power_mw` over `[from_ns, to_ns)`.
    pub fn charge_uncore(&mut self, from_ns: u64, to_ns: u64, power_mw: f64) {
        self.uncore_j += self.spread(from_ns, to_ns, power_mw);
    }

    /// Energy of `core` by use.
    pub fn core_energy(&self, core: usize) -> CoreEnergy {
        self.energy[core]
    }

    /// Time of `core` by use.
    pub fn core_time(&self, core: usize) -> CoreTime {
        self.time[core]
    }

    /// Uncore energy so far. `[J]`
    pub fn uncore_j(&self) -> f64 {
        self.uncore_j
    }

    /// Window length. `[ns]`
    pub fn window_ns(&self) -> u64 {
        self.window_ns
    }

    /// Energy per window, window k covering `[k·window_ns, (k+1)·window_ns)`. `[J]`
    pub fn window_j(&self) -> &[f64] {
        &self.window_j
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meter_splits_intervals_into_windows() {
        let mut e = EnergyMeter::new(1, 10);
        e.charge(0, Use::Busy(CpuTag::Gc), 5, 25, 1000.0);
        e.charge_lump(0, Use::Idle, 25, 1e-9);
        assert_eq!(e.window_j().len(), 3);
        assert!((e.window_j()[1] - 1e-8).abs() < 1e-20, "10 ns at 1 W");
        assert!((e.core_energy(0).gc_j - 2e-8).abs() < 1e-20);
        assert_eq!(e.core_time(0).gc_ns, 20);
        let total: f64 = e.window_j().iter().sum();
        assert!(
            (total - e.core_energy(0).total_j()).abs() < 1e-20,
            "windows add up to the total"
        );
    }
}
