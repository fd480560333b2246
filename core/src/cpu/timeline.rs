//! What a run records of the CPU: per-core frequency/online spans, frequency-transition counts, time at each
//! frequency and offline (SYSTOR'15 Fig. 7), hotplug counts and the power-over-time series (Fig. 4a).
//!
//! Times are integer nanoseconds (`_ns`); a span `[start_ns, end_ns)` holds one state of one core, where the
//! state is a frequency in kHz or `None` for offline. A *transition* is a frequency change of an online core
//! (cpufreq-stats `total_trans`); going offline or online is counted separately and is not a transition (a core
//! comes back at the frequency it left with, as Krait's acpuclock restores it).

use std::collections::BTreeMap;

use super::opp::khz_label;

/// One core held one state over `[start_ns, end_ns)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FreqSpan {
    /// Core index.
    pub core: u32,
    /// Start. `[ns]`
    pub start_ns: u64,
    /// End. `[ns]`
    pub end_ns: u64,
    /// Frequency while online; `None` while offline. `[kHz]`
    pub freq_khz: Option<u32>,
}

/// Average CPU power (cores + uncore) over one window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerSample {
    /// Window start. `[ns]`
    pub start_ns: u64,
    /// Window end (the run's end for the last window). `[ns]`
    pub end_ns: u64,
    /// Average power over the window. `[mW]`
    pub power_mw: f64,
}

/// The recorded CPU timeline of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CpuTimeline {
    /// All spans, sorted by start time, then core.
    pub spans: Vec<FreqSpan>,
    /// Frequency transitions per core.
    pub transitions: Vec<u64>,
    /// Times a core was brought online.
    pub onlines: u64,
    /// Times a core was taken offline.
    pub offlines: u64,
    /// Core-time at each frequency, summed over cores. `[kHz → ns]`
    pub time_at_khz_ns: BTreeMap<u32, u64>,
    /// Core-time offline, summed over cores. `[ns]`
    pub offline_ns: u64,
    /// Power over time, one sample per window.
    pub power: Vec<PowerSample>,
}

impl CpuTimeline {
    /// Frequency transitions over all cores.
    pub fn total_transitions(&self) -> u64 {
        self.transitions.iter().sum()
    }

    /// Core-seconds at each frequency and offline: keys are MHz as text (`"300"`, `"960"`, `"2150.4"`) and
    /// `"offline"`; the values add up to cores × run length.
    pub fn time_at_frequency_s(&self) -> BTreeMap<String, f64> {
        let mut m: BTreeMap<String, f64> = self
            .time_at_khz_ns
            .iter()
            .map(|(k, ns)| (khz_label(*k), *ns as f64 * 1e-9))
            .collect();
        m.insert("offline".into(), self.offline_ns as f64 * 1e-9);
        m
    }

    /// The fraction of core-time at each frequency and offline (Fig. 7's "fraction of time"), same keys.
    pub fn time_at_frequency_fraction(&self) -> BTreeMap<String, f64> {
        let s = self.time_at_frequency_s();
        let total: f64 = s.values().sum();
        s.into_iter()
            .map(|(k, v)| (k, if total > 0.0 { v / total } else { 0.0 }))
            .collect()
    }
}

/// Builds a [`CpuTimeline`] while the run goes.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRecorder {
    open: Vec<(u64, Option<u32>)>,
    tl: CpuTimeline,
}

impl TimelineRecorder {
    /// A recorder whose cores start at time 0 in `initial` states (kHz, or `None` for offline).
    pub fn new(initial: &[Option<u32>]) -> TimelineRecorder {
        TimelineRecorder {
            open: initial.iter().map(|s| (0, *s)).collect(),
            tl: CpuTimeline {
                transitions: vec![0; initial.len()],
                ..CpuTimeline::default()
            },
        }
    }

    fn close(&mut self, core: usize, now_ns: u64) {
        let (start, state) = self.open[core];
        if now_ns > start {
            let d = now_ns - start;
            match state {
                Some(k) => *self.tl.time_at_khz_ns.entry(k).or_insert(0) += d,
                None => self.tl.offline_ns += d,
            }
            self.tl.spans.push(FreqSpan {
                core: core as u32,
                start_ns: start,
                end_ns: now_ns,
                freq_khz: state,
            });
        }
    }

    /// From `now_ns` on, `core` is in `state`; records the change (a no-op when the state is unchanged).
    pub fn set(&mut self, core: usize, now_ns: u64, state: Option<u32>) {
        let old = self.open[core].1;
        if old == state {
            return;
        }
        self.close(core, now_ns);
        match (old, state) {
            (Some(_), Some(_)) => self.tl.transitions[core] += 1,
            (None, Some(_)) => self.tl.onlines += 1,
            (Some(_), None) => self.tl.offlines += 1,
            (None, None) => {}
        }
        self.open[core] = (now_ns, state);
    }

    /// Closes every span at `end_ns` and adds the power series from per-window energies `window_j` (window
    /// length `window_ns`, the last window cut at `end_ns`).
    pub fn finish(mut self, end_ns: u64, window_ns: u64, window_j: &[f64]) -> CpuTimeline {
        for c in 0..self.open.len() {
            self.close(c, end_ns);
            self.open[c].0 = end_ns;
        }
        self.tl.spans.sort_by_key(|s| (s.start_ns, s.core));
        let w = window_ns.max(1);
        self.tl.power = window_j
            .iter()
            .enumerate()
            .filter_map(|(k, j)| {
                let start = k as u64 * w;
                let end = (start + w).min(end_ns);
                (end > start).then(|| PowerSample {
                    start_ns: start,
                    end_ns: end,
                    power_mw: j / ((end - start) as f64 * 1e-12),
                })
            })
            .collect();
        self.tl
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_transitions_and_time_at_frequency() {
        let mut r = TimelineRecorder::new(&[Some(300_000), None]);
        r.set(0, 100, Some(2_150_400));
        r.set(0, 100, Some(2_150_400));
        r.set(1, 200, Some(960_000));
        r.set(0, 300, Some(960_000));
        r.set(1, 400, None);
        let tl = r.finish(1000, 500, &[5e-10, 5e-10]);
        assert_eq!(
            tl.transitions,
            vec![2, 0],
            "online/offline are not transitions"
        );
        assert_eq!((tl.onlines, tl.offlines), (1, 1));
        assert_eq!(tl.spans.len(), 6);
        assert!(
            tl.spans
                .windows(2)
                .all(|w| (w[0].start_ns, w[0].core) <= (w[1].start_ns, w[1].core)),
            "sorted"
        );
        let t = tl.time_at_frequency_s();
        assert_eq!(
            t.keys().cloned().collect::<Vec<_>>(),
            vec!["2150.4", "300", "960", "offline"]
        );
        assert!(
            (t["960"] - 900e-9).abs() < 1e-18,
            "700 ns on core 0 + 200 ns on core 1"
        );
        assert!((t["offline"] - 800e-9).abs() < 1e-18);
        let total: f64 = t.values().sum();
        assert!((total - 2000e-9).abs() < 1e-18, "cores × run length");
        assert_eq!(tl.power.len(), 2);
        assert!(
            (tl.power[0].power_mw - 1.0).abs() < 1e-9,
            "0.5 nJ over 500 ns = 1 mW"
        );
        let f = tl.time_at_frequency_fraction();
        assert!((f.values().sum::<f64>() - 1.0).abs() < 1e-12);
    }
}
