//! What the views show, from one place: [`Source`] says whether the simulated run, an opened GC log or a recorded
//! trace is on screen, and [`Shown`] is what a view asks of it (its length, the collection nearest a time, its
//! per-mutator utilisation for the worst windows, its MinMU curve), so a view is written once for every source.
//! The simulated run stays underneath a file (`AppState::current`) and comes back when the file closes.
//! [`Pinned`] is what "Pin as baseline" kept — a run or a GC log — so a log compares with a run, or with another
//! log, in the views both can fill (#19 item 7).

use std::sync::Arc;

use egui_plot::PlotPoint;

use super::analysis::{RunView, SharedMmu};
use super::log::LogView;
use super::trace::TraceReplay;

/// What is on screen.
#[derive(Debug, Clone, Default)]
pub enum Source {
    /// The simulated run (`AppState::current`, once the first run arrives).
    #[default]
    Run,
    /// A GC log opened over the run.
    Log(Arc<LogView>),
    /// A recorded trace opened over the run, replayed as recorded.
    Trace(Arc<TraceReplay>),
}

/// The pinned baseline: a run or a GC log (a trace replayed as recorded has no pauses, MinMU or energy to compare).
#[derive(Clone)]
pub enum Pinned {
    /// A simulated run.
    Run(Arc<RunView>),
    /// An opened GC log.
    Log(Arc<LogView>),
}

impl Pinned {
    /// The run, when a run is pinned (views only a run fills: heap map, energy, CPU, occupancy).
    pub fn run(&self) -> Option<&Arc<RunView>> {
        match self {
            Pinned::Run(v) => Some(v),
            Pinned::Log(_) => None,
        }
    }

    /// What views ask of it, whatever it is.
    pub fn shown(&self) -> &dyn Shown {
        match self {
            Pinned::Run(v) => &**v,
            Pinned::Log(l) => &**l,
        }
    }
}

/// A MinMU curve and the lines drawn with it.
#[derive(Debug, Clone, Copy)]
pub struct MinMu<'a> {
    /// `(log10 window [ms], MinMU)` points.
    pub curve: &'a [PlotPoint],
    /// Longest pause (MinMU is 0 up to it). `[ms]`
    pub max_pause_ms: f64,
    /// Share of time (or CPU) spent in GC: the curve tends to 1 minus it.
    pub gc_fraction: f64,
    /// Points a runtime reported itself (ZGC's MMU table), drawn beside the curve.
    pub reported: &'a [PlotPoint],
    /// What the curve is, in the legend ("current run", "this log").
    pub label: &'static str,
    /// Said after the plot's title ("", " of the log").
    pub title_suffix: &'static str,
    /// What `gc_fraction` is a share of, in words.
    pub gc_share: &'static str,
}

/// What views draw from, whatever the source.
pub trait Shown {
    /// Length of what is shown. `[s]`
    fn duration_s(&self) -> f64;
    /// Start of the nearest collection (or pause) after `t` (`forward`) or before it. `[s]`
    fn gc_near(&self, t_s: f64, forward: bool) -> Option<f64>;
    /// Per-mutator utilisation prepared for MMU queries, for the worst windows (`None`: no pauses recorded).
    fn mmu(&self) -> Option<&SharedMmu>;
    /// The MinMU curve (`None`: no pauses recorded).
    fn minmu(&self) -> Option<MinMu<'_>>;
    /// What it is, for a legend or a compare label: the scenario's label, or the file's name.
    fn name(&self) -> String;
    /// Every stop-the-world pause as `(start [s], length [ms])`, in time order (`None`: no pause lengths).
    fn pauses(&self) -> Option<Vec<[f64; 2]>>;
}

impl Shown for RunView {
    fn duration_s(&self) -> f64 {
        self.duration_s
    }
    fn gc_near(&self, t_s: f64, forward: bool) -> Option<f64> {
        RunView::gc_near(self, t_s, forward)
    }
    fn mmu(&self) -> Option<&SharedMmu> {
        Some(&self.mmu)
    }
    fn minmu(&self) -> Option<MinMu<'_>> {
        let s = &self.run.summary;
        Some(MinMu {
            curve: &self.mmu_curve,
            max_pause_ms: s.max_pause_ms,
            gc_fraction: s.gc_cpu_fraction,
            reported: &[],
            label: "current run",
            title_suffix: "",
            gc_share: "the GC share of CPU",
        })
    }
    fn name(&self) -> String {
        self.label.clone()
    }
    fn pauses(&self) -> Option<Vec<[f64; 2]>> {
        // One bar per pause instant: a stop-the-world pause stops every mutator, so it is listed once per mutator.
        let mut out: Vec<[f64; 2]> = self
            .run
            .pauses
            .iter()
            .map(|p| [p.start.0 as f64 * 1e-9, (p.end.0 - p.start.0) as f64 * 1e-6])
            .collect();
        out.sort_by(|a, b| a[0].total_cmp(&b[0]));
        out.dedup();
        Some(out)
    }
}

impl Shown for LogView {
    fn duration_s(&self) -> f64 {
        self.duration_s
    }
    fn gc_near(&self, t_s: f64, forward: bool) -> Option<f64> {
        self.pause_near(t_s, forward)
    }
    fn mmu(&self) -> Option<&SharedMmu> {
        Some(&self.mmu)
    }
    fn minmu(&self) -> Option<MinMu<'_>> {
        Some(MinMu {
            curve: &self.mmu_curve,
            max_pause_ms: self.max_pause_ms,
            gc_fraction: self.gc_fraction,
            reported: &self.reported_mmu,
            label: "this log",
            title_suffix: " of the log",
            gc_share: "the paused share of time",
        })
    }
    fn name(&self) -> String {
        format!("GC log {}", self.name)
    }
    fn pauses(&self) -> Option<Vec<[f64; 2]>> {
        let mut out: Vec<[f64; 2]> = self
            .kinds
            .iter()
            .flat_map(|k| k.bars.iter().map(|&(t, ms)| [t, ms]))
            .collect();
        out.sort_by(|a, b| a[0].total_cmp(&b[0]));
        Some(out)
    }
}

impl Shown for TraceReplay {
    fn duration_s(&self) -> f64 {
        TraceReplay::duration_s(self)
    }
    fn gc_near(&self, t_s: f64, forward: bool) -> Option<f64> {
        TraceReplay::gc_near(self, t_s, forward)
    }
    fn mmu(&self) -> Option<&SharedMmu> {
        None
    }
    fn minmu(&self) -> Option<MinMu<'_>> {
        None
    }
    fn name(&self) -> String {
        format!("trace {}", self.name)
    }
    fn pauses(&self) -> Option<Vec<[f64; 2]>> {
        None
    }
}
