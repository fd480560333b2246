//! Real GC logs in the app (issue #5 point 7): a HotSpot unified log or an Android logcat, imported by
//! `gclab_core::importers` on a loader thread of its own, becomes a [`LogView`] — the data the log views draw,
//! derived once: a pause timeline (pause length against time, by pause kind), heap occupancy before and after
//! each collection with the heap's capacity, and the exact MinMU curve with worst windows.
//!
//! A log has no object addresses, bank power states, CPU frequencies or energy; the views that show those say so
//! rather than stay blank.
//!
//! Loading never blocks the UI: [`FileLoader`] reads and parses every file the app opens (a scenario, a trace, an
//! allocation trace, a GC log) on the `file-loader` thread and sends one reply on a bounded channel; the top bar
//! shows the share of the file read so far (core's `Progress`, shared as a [`LoadProgress`]), and "Cancel loading"
//! stops the reader at its next read (the reply, an error, is dropped).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use egui_plot::PlotPoint;
use gclab_core::importers::{
    Format, Imported, LogRecords, MAX_TIME_NS, PauseSink, import_file_watched,
};
use gclab_core::input::{self, InputKind};
use gclab_core::metrics::mmu::{MmuCurve, UtilSeries};
use gclab_core::{Cancel, Progress, Scenario};

pub use super::log_pauses::PauseKindSeries;
use crate::background::BackgroundTask;

/// Points on the MinMU curve.
const MMU_POINTS: usize = 48;

/// A GC log and what the views derive from it.
pub struct LogView {
    /// The file.
    pub path: PathBuf,
    /// Short name for headings.
    pub name: String,
    /// `jvm`, `logcat`, … as detected.
    pub format: String,
    /// Observation span, from the first logged instant. `[s]`
    pub duration_s: f64,
    /// Where the span starts on the log's clock. `[ns]`
    pub t0_ns: u64,
    /// Pause starts, sorted (for stepping the playhead): every one up to 2^20, beyond that the earliest of each of
    /// 2^20 time buckets. `[s]`
    pub pause_start_s: Vec<f64>,
    /// Pauses by kind, most frequent first.
    pub kinds: Vec<PauseKindSeries>,
    /// Heap occupancy before each collection: `(pause start [s], MiB)`.
    pub heap_before: Vec<PlotPoint>,
    /// Heap occupancy after each collection: `(pause end [s], MiB)`.
    pub heap_after: Vec<PlotPoint>,
    /// Heap used as a sawtooth (before at a pause's start, after at its end). `[s, MiB]`
    pub heap_used: Vec<PlotPoint>,
    /// Heap capacity after each collection (step line). `[s, MiB]`
    pub heap_total: Vec<PlotPoint>,
    /// When a concurrent phase was running (the union of the logged phases, spans closer than the span / 3000
    /// merged): `(start, end)`. `[s]`
    pub concurrent_s: Vec<(f64, f64)>,
    /// Concurrent phases logged.
    pub concurrent_phases: usize,
    /// Wall time some concurrent phase was running. `[ms]`
    pub concurrent_ms: f64,
    /// Safepoints logged (HotSpot), and the time they stopped the program in all. `[ms]`
    pub safepoints: (usize, f64),
    /// The MinMU curve: `(log10 window [ms], utilisation)`.
    pub mmu_curve: Vec<PlotPoint>,
    /// MMU the runtime logged itself (ZGC), last table: `(log10 window [ms], utilisation)`.
    pub reported_mmu: Vec<PlotPoint>,
    /// Per-mutator utilisation over the span (from 0) prepared for MMU queries: the MinMU curve and the worst
    /// windows.
    pub mmu: super::analysis::SharedMmu,
    /// Pauses in the span.
    pub pauses: usize,
    /// Longest pause. `[ms]`
    pub max_pause_ms: f64,
    /// Sum of pause lengths (all mutators). `[ms]`
    pub total_pause_ms: f64,
    /// Share of wall time the (first) mutator was paused.
    pub gc_fraction: f64,
    /// Mutators (processes in a logcat).
    pub mutators: Vec<String>,
    /// Lines the importer did not use, and notes.
    pub warnings: Vec<String>,
    /// Lines skipped.
    pub skipped_lines: usize,
    /// Time to read, parse and derive. `[s]`
    pub load_s: f64,
}

impl std::fmt::Debug for LogView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LogView({}, {} pauses)", self.name, self.pauses)
    }
}

impl LogView {
    /// Reads and derives `path` in `format` (any format `gclab mmu` accepts, `Auto` to detect it; HotSpot and
    /// logcat logs carry heap sizes), reporting the share of the file read to `progress`; setting `cancel` stops
    /// the read.
    pub fn load(
        path: &Path,
        format: Format,
        progress: Box<dyn Progress + Send>,
        cancel: &Cancel,
    ) -> Result<LogView, String> {
        let t0 = Instant::now();
        // The pauses in bounded memory (a temporary file beyond a few MB), the phases whole.
        let (format, data) = import_file_watched::<LogRecords>(path, format, progress, cancel)
            .map_err(|e| e.to_string())?;
        let mut v = LogView::build(path, format, &data, cancel)?;
        v.load_s = t0.elapsed().as_secs_f64();
        Ok(v)
    }

    /// Derives the views' data from imported `data`.
    pub fn build(
        path: &Path,
        format: Format,
        data: &Imported<LogRecords>,
        cancel: &Cancel,
    ) -> Result<LogView, String> {
        // Checked between the passes, each up to seconds on a 1 GB log ("Cancel loading" while deriving).
        let go_on = || {
            if cancel.is_cancelled() {
                Err("cancelled".to_string())
            } else {
                Ok(())
            }
        };
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let (a, b) = data.default_span_ns();
        let span = (a, b.max(a + 1));
        let dur_ns = span.1 - span.0;
        let secs = |ns: u64| ns.saturating_sub(span.0) as f64 * 1e-9;
        let mut v = LogView {
            path: path.to_path_buf(),
            name,
            format: format.name().to_string(),
            duration_s: dur_ns as f64 * 1e-9,
            t0_ns: span.0,
            pause_start_s: Vec::new(),
            kinds: Vec::new(),
            heap_before: Vec::new(),
            heap_after: Vec::new(),
            heap_used: Vec::new(),
            heap_total: Vec::new(),
            concurrent_s: Vec::new(),
            concurrent_phases: 0,
            concurrent_ms: 0.0,
            safepoints: (0, 0.0),
            mmu_curve: Vec::new(),
            reported_mmu: Vec::new(),
            mmu: super::analysis::shared_mmu(MmuCurve::owned(Vec::new())),
            pauses: 0,
            max_pause_ms: 0.0,
            total_pause_ms: 0.0,
            gc_fraction: 0.0,
            mutators: Vec::new(),
            warnings: data.warnings().messages(),
            skipped_lines: data.warnings().skipped_lines(),
            load_s: 0.0,
        };
        if let Imported::Pauses(p) = data {
            v.mutators.clone_from(&p.mutators);
            go_on()?;
            let pv = super::log_pauses::views(p, span.0, v.duration_s);
            v.pauses = pv.pauses;
            v.total_pause_ms = pv.total_pause_ms;
            v.max_pause_ms = pv.max_pause_ms;
            v.pause_start_s = pv.pause_start_s;
            v.kinds = pv.kinds;
            v.heap_used = pv.heap_used;
            v.heap_before = pv.heap_before;
            v.heap_after = pv.heap_after;
            v.heap_total = pv.heap_total;
            let (safepoints, safepoint_ns) = p.safepoint_stats();
            v.safepoints = (safepoints, safepoint_ns as f64 * 1e-6);
            let (phases, phase_ns) = p.concurrent_stats();
            v.concurrent_phases = phases;
            v.concurrent_ms = phase_ns as f64 * 1e-6;
            v.concurrent_s = super::log_thin::spans(
                p.concurrent_union.iter().map(|&(a, b)| (secs(a), secs(b))),
                v.duration_s / super::log_thin::BUCKETS as f64,
            );
            if let Some(r) = p.reported_mmu.last() {
                v.reported_mmu = r
                    .points
                    .iter()
                    .filter(|(w, _)| *w > 0)
                    .map(|&(w, pct)| PlotPoint::new((w as f64 * 1e-6).log10(), pct / 100.0))
                    .collect();
            }
        } else {
            let stats = data.pause_stats(span);
            v.pauses = stats.pauses;
            v.max_pause_ms = stats.max_pause_ns as f64 * 1e-6;
        }
        // Utilisation measured from 0 on the span's own clock, like a run's. A log's pauses are measured as they
        // are kept (in a temporary file beyond a few MB: `MmuCurve::from_pauses_on_disk`, the MMU `gclab mmu`
        // gives); a utilisation CSV's steps in memory.
        go_on()?;
        let curve = match data {
            Imported::Pauses(p) => {
                let (t0, end) = (span.0.min(MAX_TIME_NS), span.1.min(MAX_TIME_NS));
                let shifted = || {
                    (p.pauses.spans())
                        .map(move |(a, b, m)| (a.saturating_sub(t0), b.saturating_sub(t0), m))
                };
                MmuCurve::from_pauses_on_disk(shifted, p.mutators.len(), (0, end - t0))
                    .map_err(|e| format!("{}: {e}", v.name))?
            }
            Imported::Util(_) => {
                let series: Vec<UtilSeries> = data
                    .util_series(span)
                    .iter()
                    .map(|s| UtilSeries {
                        times: s.times.iter().map(|t| t.saturating_sub(span.0)).collect(),
                        util: s.util.clone(),
                    })
                    .collect();
                if series.iter().all(|s| s.times.len() < 2) {
                    return Err(format!("{}: no pauses in the log's span", v.name));
                }
                MmuCurve::owned(series)
            }
        };
        let span_ms = dur_ns as f64 * 1e-6;
        let lo = (0.01f64).min(span_ms / 10.0).max(1e-6).log10();
        let hi = span_ms.max(1e-3).log10();
        let xs: Vec<f64> = (0..MMU_POINTS)
            .map(|i| lo + (hi - lo) * i as f64 / (MMU_POINTS - 1) as f64)
            .collect();
        // The curve's windows and the whole span, answered on every core (a 1 GB pause CSV's 19.6 M pauses took
        // 20 s on one).
        let windows: Vec<u64> = (xs.iter().map(|x| (10f64.powf(*x) * 1e6).max(1.0) as u64))
            .chain([dur_ns])
            .collect();
        go_on()?;
        let mut answers = curve.answer_on_cores(&windows, 0).mmu.into_iter();
        // A temporary file that failed while the pauses were read (or read again) or the curve queried: no MinMU to
        // trust.
        let failed = match data {
            Imported::Pauses(p) => p.pauses.error().map(str::to_string),
            Imported::Util(_) => None,
        };
        if let Some(e) = failed.or_else(|| curve.error()) {
            return Err(format!("{}: {e}", v.name));
        }
        v.mmu_curve = (xs.iter().zip(answers.by_ref()))
            .map(|(&x, (_, m))| PlotPoint::new(x, m.utilization))
            .collect();
        // The GC share of the first mutator's time (1 minus its utilisation over the whole span).
        v.gc_fraction = 1.0 - answers.next().map_or(1.0, |(_, m)| m.utilization);
        v.mmu = super::analysis::shared_mmu(curve);
        Ok(v)
    }

    /// The pause start at or after `t` (seconds), or before it when `forward` is false.
    pub fn pause_near(&self, t: f64, forward: bool) -> Option<f64> {
        let eps = 1e-12;
        if forward {
            let i = self.pause_start_s.partition_point(|&g| g <= t + eps);
            self.pause_start_s.get(i).copied()
        } else {
            let i = self.pause_start_s.partition_point(|&g| g < t - eps);
            i.checked_sub(1).map(|i| self.pause_start_s[i])
        }
    }
}

/// A file the loader opened.
#[derive(Debug, Clone)]
pub enum Opened {
    /// A scenario file, read and checked (the app runs it).
    Scenario(PathBuf, Box<Scenario>),
    /// A GC log.
    Log(Arc<LogView>),
    /// A recorded gclab trace, replayed as recorded.
    Trace(Arc<super::trace::TraceReplay>),
}

/// A file the loader could not open: which file, what the input layer said it is (when it could tell), and why.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadFailed {
    /// The file.
    pub path: PathBuf,
    /// What the file is, when the input layer could tell.
    pub kind: Option<InputKind>,
    /// Why it did not open (names the file).
    pub message: String,
}

/// The loader's progress: core's [`Progress`] (the fraction done) written by the loader thread and read by the
/// UI; clones share one value.
#[derive(Debug, Clone, Default)]
pub struct LoadProgress(Arc<AtomicU64>);

impl Progress for LoadProgress {
    fn report(&mut self, fraction: f64) {
        self.0.store(fraction.to_bits(), Ordering::Relaxed);
    }
}

impl LoadProgress {
    /// The fraction done last reported, in [0, 1].
    pub fn fraction(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed)).clamp(0.0, 1.0)
    }
}

/// The app's one file loader: sniffs a file once (`gclab_core::input::sniff`) and loads what its `InputKind`
/// says — a scenario (read and checked), a gclab trace or an imported allocation trace (replayed), or a GC log —
/// as the `file-loader` [`BackgroundTask`]; the UI polls, shows progress (the share of the file read, core's
/// `Progress`) and can cancel (every reader stops at its next check of the task's core `Cancel`). Every file the
/// app opens comes here: the Open button and dialog, a dropped file, `gclab open FILE`, the last session's file
/// and a lesson's log.
pub struct FileLoader {
    task: BackgroundTask<Result<Opened, LoadFailed>>,
    /// The file being loaded and when loading started.
    pub loading: Option<(PathBuf, Instant)>,
    /// The share of the file read so far.
    pub progress: LoadProgress,
    /// Size of the file being loaded. `[bytes]`
    pub file_bytes: u64,
}

impl Default for FileLoader {
    fn default() -> Self {
        FileLoader {
            task: BackgroundTask::new("file-loader", 1),
            loading: None,
            progress: LoadProgress::default(),
            file_bytes: 0,
        }
    }
}

impl FileLoader {
    /// Starts loading `path` (a load in progress is abandoned); `wake` is repainted when it is done.
    pub fn start(&mut self, path: PathBuf, wake: &egui::Context) -> Result<(), String> {
        self.cancel();
        let p2 = path.clone();
        self.progress = LoadProgress::default();
        self.file_bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
        let mut progress = self.progress.clone();
        self.task.start(Some(wake), move |sink| {
            let _ = sink.send(open(p2, &mut progress, sink.cancel()));
        })?;
        self.loading = Some((path, Instant::now()));
        Ok(())
    }

    /// Abandons the load in progress (its result is dropped).
    pub fn cancel(&mut self) {
        // The thread ends by itself at its reader's next check; it is not joined here, so the UI never waits.
        self.task.cancel();
        self.loading = None;
    }

    /// The finished load, if any.
    pub fn poll(&mut self) -> Option<Result<Opened, LoadFailed>> {
        let r = self.task.poll_latest();
        if r.is_some() {
            self.loading = None;
        } else if let Some((path, _)) = self.loading.take_if(|_| !self.task.running()) {
            return Some(Err(LoadFailed {
                path,
                kind: None,
                message: "the file loader stopped".into(),
            }));
        }
        r
    }

    /// True while a file is loading.
    pub fn busy(&self) -> bool {
        self.loading.is_some()
    }

    /// How far the load is, for the top bar: `, 42 % of 12.3 MB read`, then `, 12.3 MB read, deriving the views`;
    /// nothing before the first report.
    pub fn progress_text(&self) -> String {
        let f = self.progress.fraction();
        if f >= 1.0 && self.file_bytes > 0 {
            format!(
                ", {:.1} MB read, deriving the views",
                self.file_bytes as f64 * 1e-6
            )
        } else if f > 0.0 && self.file_bytes > 0 {
            format!(
                ", {:.0} % of {:.1} MB read",
                100.0 * f,
                self.file_bytes as f64 * 1e-6
            )
        } else {
            String::new()
        }
    }
}

/// Opens `path` as what the input layer says it is (on the loader thread), reporting to `progress` and stopping
/// at `cancel`.
fn open(path: PathBuf, progress: &mut LoadProgress, cancel: &Cancel) -> Result<Opened, LoadFailed> {
    let kind = input::sniff(&path).map_err(|e| LoadFailed {
        path: path.clone(),
        kind: None,
        message: e.to_string(),
    })?;
    let opened = match kind {
        InputKind::Scenario => Scenario::load(&path.to_string_lossy(), &[])
            .map(|sc| {
                progress.report(1.0);
                Opened::Scenario(path.clone(), Box::new(sc))
            })
            .map_err(|e| e.to_string()),
        InputKind::Trace(_) => super::trace::TraceReplay::load(&path, progress, cancel)
            .map(|t| Opened::Trace(Arc::new(t))),
        InputKind::GcLog(format) => {
            LogView::load(&path, format, Box::new(progress.clone()), cancel)
                .map(|l| Opened::Log(Arc::new(l)))
        }
        InputKind::AllocTrace(format) => {
            super::trace::load_imported_as(&path, format, progress, cancel)
                .map(|t| Opened::Trace(Arc::new(t)))
        }
    };
    opened.map_err(|message| LoadFailed {
        path,
        kind: Some(kind),
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(p: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(p)
    }

    /// Loads `path` on the loader's thread; returns the result and every fraction the top bar could have read.
    fn load_watching(path: PathBuf) -> (Result<Opened, LoadFailed>, Vec<f64>) {
        let ctx = egui::Context::default();
        let mut loader = FileLoader::default();
        loader.start(path, &ctx).expect("the loader starts");
        let mut seen = Vec::new();
        let t0 = Instant::now();
        loop {
            seen.push(loader.progress.fraction());
            if let Some(r) = loader.poll() {
                seen.push(loader.progress.fraction());
                return (r, seen);
            }
            assert!(t0.elapsed().as_secs() < 60, "the load ends");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    #[test]
    fn the_loader_opens_every_kind_and_its_progress_advances_to_the_end() {
        let scenario =
            std::env::temp_dir().join(format!("gclab-loader-{}.toml", std::process::id()));
        let text = Scenario::default_preset().expect("preset").to_toml_string();
        std::fs::write(&scenario, text).expect("temp file");
        for (file, want) in [
            (
                fixture("tests/fixtures/logs/jdk17-serial-xmx128m.log"),
                "log",
            ),
            (fixture("tests/fixtures/trace/v2.gctrace"), "trace"),
            (scenario.clone(), "scenario"),
        ] {
            let file = file.display().to_string();
            let (r, seen) = load_watching(file.clone().into());
            let got = match r {
                Ok(Opened::Log(_)) => "log",
                Ok(Opened::Trace(_)) => "trace",
                Ok(Opened::Scenario(..)) => "scenario",
                Err(e) => panic!("{file}: {}", e.message),
            };
            assert_eq!(got, want, "{file}");
            assert!(
                seen.windows(2).all(|w| w[0] <= w[1]),
                "{file}: the bar only moves forward: {seen:?}"
            );
            assert_eq!(seen.last(), Some(&1.0), "{file}: the bar ends full");
        }
        let _ = std::fs::remove_file(&scenario);
    }

    #[test]
    fn a_bad_scenario_fails_on_the_loader_naming_the_file_and_its_kind() {
        let path =
            std::env::temp_dir().join(format!("gclab-loader-bad-{}.toml", std::process::id()));
        std::fs::write(&path, "format_version = 1\n[heap]\nsize = \"lots\"\n").expect("temp file");
        let (r, _) = load_watching(path.clone());
        let e = r.expect_err("a bad scenario is refused");
        assert_eq!(e.kind, Some(InputKind::Scenario));
        assert!(e.message.contains("size"), "names the field: {}", e.message);
        let _ = std::fs::remove_file(&path);
    }
}
