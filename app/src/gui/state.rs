//! The app's state, persisted settings apart from runtime state (STYLE §13): [`Settings`] (theme, zoom, which view)
//! are plain data; [`Controls`] are the scenario knobs the left panel edits and turn into `--set` overrides — the
//! same path as the CLI's `--set KEY=VALUE` ([`Scenario::with_overrides`]); [`Playback`] is the scrubber's state;
//! [`AppState`] holds the current and baseline runs.

use std::sync::Arc;
use std::time::Instant;

use gclab_core::metrics::mmu::WindowUtil;
use gclab_core::{ByteSize, CollectorKind, PlatformKind, Scenario, ScenarioError, Set};
use gclab_core::{GovernorKind, HotplugKind};

use super::analysis::RunView;
use super::log::LogView;
pub use super::source::{Pinned, Shown, Source};
use super::theme::Theme;
use super::trace::TraceReplay;

/// Which view fills the centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ViewKind {
    /// Everything at once: heap map, occupancy, MinMU, energy, summary.
    #[default]
    Overview,
    /// The heap-layout replay, large.
    Layout,
    /// MinMU curves and worst windows.
    Mmu,
    /// Energy breakdown and summary table.
    Energy,
    /// Per-core frequency lanes (platforms with a CPU model).
    Cpu,
    /// Heap energy versus k.
    Sweep,
    /// A merged sweep result: energy × pause × time and its Pareto frontier.
    Pareto,
    /// Heap size against energy, longest pause and MinMU (a heap-size sweep).
    TradeOff,
}

impl ViewKind {
    /// Every view, in tab order.
    pub const ALL: [ViewKind; 8] = [
        ViewKind::Overview,
        ViewKind::Layout,
        ViewKind::Mmu,
        ViewKind::Energy,
        ViewKind::Cpu,
        ViewKind::Sweep,
        ViewKind::TradeOff,
        ViewKind::Pareto,
    ];

    /// Tab title.
    pub fn title(self) -> &'static str {
        match self {
            ViewKind::Overview => "Overview",
            ViewKind::Layout => "Heap layout",
            ViewKind::Mmu => "MinMU",
            ViewKind::Energy => "Energy",
            ViewKind::Cpu => "CPU cores",
            ViewKind::Sweep => "Sweep",
            ViewKind::Pareto => "Pareto",
            ViewKind::TradeOff => "Trade-off",
        }
    }

    /// Parses a view name as given in `GCLAB_VIEW`: `overview`, `layout`, `mmu`, `energy`, `cpu`, `sweep`,
    /// `tradeoff` or `pareto`.
    pub fn parse(s: &str) -> Option<ViewKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "overview" | "all" => Some(ViewKind::Overview),
            "layout" | "heap" | "heap-layout" => Some(ViewKind::Layout),
            "mmu" | "minmu" => Some(ViewKind::Mmu),
            "energy" => Some(ViewKind::Energy),
            "cpu" | "cores" => Some(ViewKind::Cpu),
            "sweep" => Some(ViewKind::Sweep),
            "pareto" => Some(ViewKind::Pareto),
            "tradeoff" | "trade-off" => Some(ViewKind::TradeOff),
            _ => None,
        }
    }
}

/// Settings kept across sessions.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Light or dark.
    pub theme: Theme,
    /// UI zoom (presentation mode uses 1.6 or more).
    pub zoom: f32,
    /// The view in the centre.
    pub view: ViewKind,
    /// Show the baseline's heap map under the current one.
    pub compare_maps: bool,
    /// Include the CPU in the energy bars.
    pub energy_with_cpu: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            theme: Theme::Light,
            zoom: 1.25,
            view: ViewKind::Overview,
            compare_maps: true,
            energy_with_cpu: true,
        }
    }
}

/// The scenario knobs of the left panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Controls {
    /// Preset the base scenario came from (empty for a file).
    pub preset: String,
    /// Collector variant.
    pub collector: CollectorKind,
    /// k-allocation period. `[allocations]`
    pub k: u64,
    /// Heap size. `[KiB]`
    pub heap_kib: u64,
    /// Bank size. `[KiB]`
    pub bank_kib: u64,
    /// Target heap utilisation (android-krait).
    pub target_util: f64,
    /// Seed.
    pub seed: u64,
    /// CPU frequency governor (android-krait).
    pub governor: GovernorKind,
    /// Core hotplug policy (android-krait).
    pub hotplug: HotplugKind,
    /// Cores in the cluster (android-krait).
    pub cores: u32,
    /// Share of the allocated bytes in large objects — bitmaps, buffers (android-krait).
    pub large_share: f64,
    /// The base workload already has large objects (so a share of 0 must be written, not left out).
    pub large_in_base: bool,
}

/// The heap sizes the heap knob spans on `platform`: kvm-soc 4 KiB – 512 MiB (a recorded trace such as jq's needs
/// tens of MiB), android-krait 4 MiB – 1 GiB (around Dalvik's 96 MiB growth limit). `[KiB]`
pub fn heap_range_kib(platform: PlatformKind) -> (u64, u64) {
    match platform {
        PlatformKind::KvmSoc => (4, 512 << 10),
        PlatformKind::AndroidKrait => (4 << 10, 1 << 20),
    }
}

impl Controls {
    /// Sets the heap size to `kib` rounded to a whole number of banks; a bank larger than the heap shrinks to it
    /// (the scenario needs a bank size that divides the heap). `[KiB]`
    pub fn set_heap_kib(&mut self, kib: u64) {
        let kib = kib.max(1);
        if self.bank_kib >= kib {
            self.bank_kib = kib;
            self.heap_kib = kib;
            return;
        }
        let banks = ((kib as f64 / self.bank_kib as f64).round() as u64).max(1);
        self.heap_kib = banks * self.bank_kib;
    }

    /// The controls showing `sc`'s values.
    pub fn of(sc: &Scenario, preset: &str) -> Controls {
        let f = sc.file();
        let large = sc.workload().android.as_ref().and_then(|a| a.large_objects);
        Controls {
            preset: preset.to_string(),
            collector: f.collector.kind,
            k: f.collector.k,
            heap_kib: f.heap.size.bytes() / 1024,
            bank_kib: (f.heap.bank_size.bytes() / 1024).max(1),
            target_util: f.heap.target_util,
            seed: f.seed,
            governor: f.android.cpu.governor,
            hotplug: f.android.cpu.hotplug,
            cores: f.android.cpu.cores,
            large_share: large.map_or(0.0, |l| l.share),
            large_in_base: large.is_some(),
        }
    }

    /// The overrides these controls stand for on `platform`.
    pub fn overrides(&self, platform: PlatformKind) -> Vec<Set> {
        let mut v = vec![
            Set::CollectorKind(self.collector),
            Set::CollectorK(self.k),
            Set::HeapSize(ByteSize(self.heap_kib * 1024)),
            Set::HeapBankSize(ByteSize(self.bank_kib * 1024)),
            Set::Seed(self.seed),
        ];
        if platform == PlatformKind::AndroidKrait {
            v.push(Set::HeapTargetUtil(self.target_util));
            v.push(Set::Governor(self.governor));
            v.push(Set::Hotplug(self.hotplug));
            v.push(Set::Cores(self.cores));
            if self.large_share > 0.0 || self.large_in_base {
                v.push(Set::LargeObjectShare(self.large_share));
            }
        }
        v
    }

    /// `base` with these controls applied (validated as the CLI validates `--set`).
    pub fn apply(&self, base: &Scenario) -> Result<Scenario, ScenarioError> {
        base.with(&self.overrides(base.platform()))
    }
}

/// The scrubber's state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Playback {
    /// The instant every view marks. `[s]`
    pub playhead: f64,
    /// Advancing with wall time.
    pub playing: bool,
    /// Simulated seconds per wall second.
    pub speed: f64,
}

impl Default for Playback {
    fn default() -> Self {
        Playback {
            playhead: 0.0,
            playing: false,
            speed: 0.1,
        }
    }
}

/// A status-bar message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Status {
    /// The text.
    pub message: String,
    /// Shown in the error colour.
    pub is_error: bool,
}

/// Worst windows of one MinMU window length, cached per run.
#[derive(Debug, Clone, PartialEq)]
pub struct WorstWindows {
    /// The curve searched (the address of its shared MMU: every log and trace has the same generation).
    pub curve: usize,
    /// Generation of the run.
    pub generation: u64,
    /// Window. `[ms]`
    pub window_ms: f64,
    /// Worst first.
    pub windows: Vec<WindowUtil>,
}

/// Everything the views read.
pub struct AppState {
    /// Persisted settings.
    pub settings: Settings,
    /// The scenario as loaded (preset or file), before the controls.
    pub base: Scenario,
    /// The controls.
    pub controls: Controls,
    /// The run on screen.
    pub current: Option<Arc<RunView>>,
    /// The pinned baseline: a run or a GC log.
    pub baseline: Option<Pinned>,
    /// Generation of the newest request.
    pub generation: u64,
    /// A request newer than `current` is being computed.
    pub computing: bool,
    /// When the newest request was sent (for the rerun latency shown in the status bar).
    pub requested_at: Option<Instant>,
    /// Request → result latency of the last run. `[ms]`
    pub last_latency_ms: Option<f64>,
    /// Status bar.
    pub status: Status,
    /// Scrubber.
    pub playback: Playback,
    /// The MinMU window whose worst windows are listed. `[ms]`
    pub mmu_window_ms: f64,
    /// Cached worst windows.
    pub worst: Option<WorstWindows>,
    /// The path field of the file row.
    pub path_text: String,
    /// What is on screen: the run, or a GC log or recorded trace over it (the run stays underneath and returns
    /// on any knob).
    pub source: Source,
    /// The Pareto explorer's merged sweep result (runtime only, not persisted).
    pub pareto: super::pareto::ParetoState,
    /// The *Figure* menu's form.
    pub figure: FigureForm,
    /// The glossary window is open.
    pub glossary_open: bool,
    /// What the glossary window is filtered by.
    pub glossary_filter: String,
    /// What the lesson step on screen highlights, and the time range it shows.
    pub lesson_marks: super::marks::LessonMarks,
    /// Lesson files opened this session, newest first: (path, title), for the Lessons menu.
    pub recent_lessons: Vec<(String, String)>,
    /// Figure mode (`GCLAB_FIGURE`): the view alone, without the file row.
    pub figure_mode: bool,
}

/// The *Figure* menu's form: where, how big, and the words above the view.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FigureForm {
    /// The PNG's path (the CSV goes beside it).
    pub path: String,
    /// Size and scale.
    pub size: FigureSize,
    /// Title (empty: the lesson step's, or the view's and scenario's name).
    pub title: String,
    /// Caption (empty: the lesson step's text, or none).
    pub caption: String,
}

impl AppState {
    /// State for `base` loaded from `preset` (empty when from a file).
    pub fn new(base: Scenario, preset: &str) -> AppState {
        AppState {
            settings: Settings::default(),
            controls: Controls::of(&base, preset),
            base,
            current: None,
            baseline: None,
            generation: 0,
            computing: false,
            requested_at: None,
            last_latency_ms: None,
            status: Status::default(),
            playback: Playback::default(),
            mmu_window_ms: 1.0,
            worst: None,
            path_text: "scenario.toml".into(),
            source: Source::Run,
            pareto: super::pareto::ParetoState::default(),
            figure: FigureForm {
                path: "figure.png".into(),
                ..FigureForm::default()
            },
            glossary_open: false,
            glossary_filter: String::new(),
            lesson_marks: super::marks::LessonMarks::default(),
            recent_lessons: Vec::new(),
            figure_mode: false,
        }
    }

    /// The pinned run, if a run (not a log) is pinned: for the views only a run fills.
    pub fn baseline_run(&self) -> Option<&Arc<RunView>> {
        self.baseline.as_ref().and_then(Pinned::run)
    }

    /// What the views draw from: the opened file, else the current run (`None` before the first run).
    pub fn shown(&self) -> Option<&dyn Shown> {
        match &self.source {
            Source::Run => self.current.as_deref().map(|v| v as &dyn Shown),
            Source::Log(l) => Some(&**l),
            Source::Trace(t) => Some(&**t),
        }
    }

    /// The GC log on screen, if one is.
    pub fn log(&self) -> Option<&Arc<LogView>> {
        match &self.source {
            Source::Log(l) => Some(l),
            _ => None,
        }
    }

    /// The recorded trace on screen, if one is.
    pub fn trace(&self) -> Option<&Arc<TraceReplay>> {
        match &self.source {
            Source::Trace(t) => Some(t),
            _ => None,
        }
    }

    /// Which version of what is shown caches are keyed by: the run's generation, or `u64::MAX` for a file (no
    /// run has that generation).
    pub fn shown_generation(&self) -> Option<u64> {
        match &self.source {
            Source::Run => self.current.as_ref().map(|v| v.generation),
            Source::Log(_) | Source::Trace(_) => Some(u64::MAX),
        }
    }

    /// Length of what is on screen. `[s]`
    pub fn duration_s(&self) -> f64 {
        self.shown().map_or(0.0, Shown::duration_s)
    }

    /// Sets the status bar to an error.
    pub fn error(&mut self, message: impl Into<String>) {
        self.status = Status {
            message: message.into(),
            is_error: true,
        };
    }

    /// Sets the status bar to information.
    pub fn info(&mut self, message: impl Into<String>) {
        self.status = Status {
            message: message.into(),
            is_error: false,
        };
    }
}

/// Size and scale of a figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FigureSize {
    /// Width and height at 1×. `[points]`
    pub size: [u32; 2],
    /// Pixels per point: 2 for slides on a high-resolution projector.
    pub scale: f32,
    /// Zoom of the text and widgets at 1×.
    pub zoom: f32,
}

impl Default for FigureSize {
    fn default() -> Self {
        FigureSize {
            size: [1280, 720],
            scale: 2.0,
            zoom: 1.25,
        }
    }
}

impl FigureSize {
    /// Size of the PNG. `[pixels]`
    pub fn pixels(self) -> [u32; 2] {
        self.size.map(|v| (v as f32 * self.scale).round() as u32)
    }

    /// The environment of figure mode at this size: `GCLAB_FIGURE`, `GCLAB_WINDOW`, `GCLAB_ZOOM`.
    pub fn env(self) -> Vec<(String, String)> {
        let [w, h] = self.pixels();
        vec![
            ("GCLAB_FIGURE".into(), "1".into()),
            ("GCLAB_WINDOW".into(), format!("{w}x{h}")),
            ("GCLAB_ZOOM".into(), format!("{}", self.zoom * self.scale)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_turn_into_cli_overrides() {
        let base = Scenario::default_preset().expect("default preset");
        let mut c = Controls::of(&base, "default");
        assert_eq!(
            c.collector,
            CollectorKind::Adaptive,
            "the default is adaptive"
        );
        c.collector = CollectorKind::KAllocation;
        c.k = 250;
        c.heap_kib = 256;
        c.bank_kib = 32;
        let sc = c.apply(&base).expect("valid controls");
        let cli = base
            .with_set("collector.kind=k-allocation")
            .and_then(|s| s.with_set("collector.k=250"))
            .and_then(|s| s.with_set("heap.size=256KiB"))
            .and_then(|s| s.with_set("heap.bank_size=32KiB"))
            .expect("CLI overrides");
        assert_eq!(
            sc.file(),
            cli.file(),
            "the app and the CLI build the same scenario"
        );
    }

    #[test]
    fn the_heap_knob_goes_beyond_2_mib_in_whole_banks() {
        let base = Scenario::default_preset().expect("default preset");
        let mut c = Controls::of(&base, "default");
        c.bank_kib = 16;
        c.set_heap_kib(24 << 10);
        assert_eq!(
            c.heap_kib,
            24 << 10,
            "24 MiB on kvm-soc, past the old 2 MiB menu"
        );
        let sc = c.apply(&base).expect("a 24 MiB heap is a valid scenario");
        assert_eq!(
            sc.file().heap.size.bytes(),
            24 << 20,
            "heap.size follows the knob"
        );
        c.set_heap_kib(100);
        assert_eq!(c.heap_kib, 96, "rounded to whole 16 KiB banks");
        c.set_heap_kib(10);
        assert_eq!(
            (c.heap_kib, c.bank_kib),
            (10, 10),
            "a bank larger than the heap shrinks to it"
        );
        let (lo, hi) = heap_range_kib(PlatformKind::KvmSoc);
        assert!(
            lo <= 32 && hi >= 64 << 10,
            "kvm-soc spans tiny to trace-sized heaps"
        );
    }

    #[test]
    fn bad_controls_are_reported_not_applied() {
        let base = Scenario::default_preset().expect("default preset");
        let mut c = Controls::of(&base, "default");
        c.bank_kib = 48; // does not divide 128 KiB
        assert!(
            c.apply(&base).is_err(),
            "a bank size that does not divide the heap is refused"
        );
    }
}
