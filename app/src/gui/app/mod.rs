//! The app (rerun's `re_viewer/src/app/`): [`GclabApp`] holds the state, the background tasks, the views' caches
//! and the command queue; this file builds it from the environment (the `GCLAB_*` contract in [`crate::gui`]) and
//! persists its settings. The frame is split by concern: [`ui`] lays out the panels, [`logic`] does the per-frame
//! work that draws nothing, [`command_handling`] applies the queued commands, [`screenshot`] is screenshot mode.

mod command_handling;
mod logic;
pub mod screenshot;
mod ui;

use std::time::Instant;

use gclab_core::Scenario;

use crate::background::BackgroundTask;
use crate::gui::worker::Worker;
use crate::gui::{
    AppState, Command, Theme, ViewKind, figure, files, lesson, log, persist, resim, sweep, views,
};
use screenshot::ScreenshotPlan;

/// The app: state, the worker, the views' caches and the command queue.
pub struct GclabApp {
    /// Everything the views read (public for tests).
    pub state: AppState,
    pub(in crate::gui) worker: Worker,
    pub(crate) layout: views::layout::LayoutView,
    pub(in crate::gui) sweep: sweep::SweepState,
    /// The heap-size sweep of the trade-off view.
    pub(in crate::gui) tradeoff: sweep::SweepState,
    pub(in crate::gui) variants: sweep::VariantCurves,
    commands: Vec<Command>,
    screenshot: Option<ScreenshotPlan>,
    last_frame: Option<Instant>,
    /// Build time of recent frames (UI work only, not rendering). `[ms]`
    pub frame_ms: Vec<f64>,
    applied_zoom: f32,
    applied_theme: Option<Theme>,
    dialogs: files::Dialogs,
    pub(in crate::gui) logs: log::FileLoader,
    resim: resim::Resimulation,
    /// Where settings persist, and what was last written there.
    persist: Option<(std::path::PathBuf, persist::Persisted)>,
    /// The open lesson, if any (public for tests).
    pub lesson: Option<lesson::LessonState>,
    /// Presentation mode: the knob panel hidden, one large view beside the lesson text.
    pub present: bool,
    /// `GCLAB_PLAYHEAD`, held until what the app opens at start (a log, a trace, a preset's run) is on screen:
    /// clamping it to whichever run came first (the default scenario's) lost it (#19 item 7).
    pub(super) startup_playhead: Option<f64>,
    /// Figure mode: the view alone under `(title, caption)` (set from `GCLAB_TITLE`, `GCLAB_CAPTION`).
    pub figure: Option<(String, String)>,
    /// Figures being exported in a child window: where, and the answer once it is drawn.
    exports: Vec<(std::path::PathBuf, BackgroundTask<Result<(), String>>)>,
    /// The worst windows of a big curve, searched off the UI thread ([`logic`]'s `update_worst`), the search
    /// asked of it (the curve's address, its generation and the window `[ms]`), and how many were started.
    worst_task: BackgroundTask<Result<crate::gui::state::WorstWindows, String>>,
    worst_asked: Option<(usize, u64, f64)>,
    pub(in crate::gui) worst_searches: u64,
}

impl GclabApp {
    /// The app on `scenario`, its first run queued at once.
    pub fn new(ctx: &egui::Context, scenario: Scenario) -> GclabApp {
        let preset = scenario
            .origin()
            .strip_prefix("preset:")
            .unwrap_or_default()
            .to_string();
        let mut state = AppState::new(scenario, &preset);
        let env = |k: &str| std::env::var(k).ok().filter(|s| !s.is_empty());
        if let Some(v) = env("GCLAB_VIEW").and_then(|v| ViewKind::parse(&v)) {
            state.settings.view = v;
        }
        if env("GCLAB_THEME").is_some_and(|t| t.eq_ignore_ascii_case("dark")) {
            state.settings.theme = Theme::Dark;
        }
        if let Some(t) = env("GCLAB_PLAYHEAD").and_then(|t| t.parse::<f64>().ok()) {
            state.playback.playhead = t;
        }
        if let Some(z) = env("GCLAB_ZOOM").and_then(|z| z.parse::<f32>().ok()) {
            state.settings.zoom = z.clamp(0.5, 3.0);
        }
        let mut app = GclabApp {
            state,
            worker: Worker::spawn(Some(ctx)),
            layout: views::layout::LayoutView::default(),
            sweep: sweep::SweepState::default(),
            tradeoff: sweep::SweepState::default(),
            variants: sweep::VariantCurves::default(),
            commands: vec![Command::Rerun],
            screenshot: env("GCLAB_SCREENSHOT").map(|path| ScreenshotPlan {
                path,
                frames_ready: 0,
            }),
            last_frame: None,
            frame_ms: Vec::new(),
            applied_zoom: 0.0,
            applied_theme: None,
            dialogs: files::Dialogs::default(),
            resim: resim::Resimulation::default(),
            logs: log::FileLoader::default(),
            persist: None,
            lesson: None,
            present: env("GCLAB_PRESENT").is_some_and(|v| v != "0"),
            startup_playhead: env("GCLAB_PLAYHEAD").and_then(|t| t.parse::<f64>().ok()),
            figure: env("GCLAB_FIGURE").filter(|v| v != "0").map(|_| {
                (
                    env("GCLAB_TITLE").unwrap_or_default(),
                    env("GCLAB_CAPTION").unwrap_or_default(),
                )
            }),
            exports: Vec::new(),
            worst_task: BackgroundTask::new("worst-windows", 1),
            worst_asked: None,
            worst_searches: 0,
        };
        app.state.figure_mode = app.figure.is_some();
        if let Some(b) = env("GCLAB_BASELINE").filter(|_| app.figure.is_some()) {
            match figure::load_baseline(std::path::Path::new(&b)) {
                Ok(p) => app.state.baseline = Some(p),
                Err(e) => app.state.error(format!("baseline not drawn: {e}")),
            }
        }
        if let Some(id) = env("GCLAB_LESSON") {
            app.commands.push(Command::OpenLesson(id));
            if let Some(n) = env("GCLAB_STEP").and_then(|n| n.parse::<usize>().ok()) {
                app.commands.push(Command::LessonGoto(n.saturating_sub(1)));
            }
        }
        if let Some(p) = env("GCLAB_OPEN") {
            app.commands.push(Command::LoadFile(p.into()));
        }
        if let Some(p) = env("GCLAB_PRESET") {
            app.commands.insert(0, Command::LoadPreset(p));
        }
        if env("GCLAB_VARIANTS").is_some() {
            app.commands.push(Command::MmuVariants(true));
        }
        if app.screenshot.is_some() {
            match app.state.settings.view {
                ViewKind::Sweep => app.commands.push(Command::StartSweep),
                ViewKind::TradeOff => app.commands.push(Command::StartTradeOff),
                _ => {}
            }
        }
        app.apply_commands(ctx);
        app
    }

    /// Reads the persisted settings at `path` (theme, zoom, view; the last scenario when `restore_scenario`) and
    /// writes them back there whenever they change.
    pub fn enable_persistence(&mut self, path: std::path::PathBuf, restore_scenario: bool) {
        let p = persist::load(&path);
        if let Some(p) = &p {
            p.apply(&mut self.state.settings);
            if restore_scenario && p.scenario != self.state.base.origin() {
                match p.scenario.strip_prefix("preset:") {
                    Some(name) => self.commands.push(Command::LoadPreset(name.to_string())),
                    None if std::path::Path::new(&p.scenario).is_file() => {
                        self.commands
                            .push(Command::LoadFile(p.scenario.clone().into()));
                    }
                    None => {}
                }
            }
        }
        let now = persist::Persisted::of(&self.state.settings, self.state.base.origin());
        self.persist = Some((path, p.unwrap_or(now)));
    }

    pub(super) fn persist_step(&mut self) {
        let Some((path, last)) = &mut self.persist else {
            return;
        };
        let now = persist::Persisted::of(&self.state.settings, self.state.base.origin());
        if now != *last {
            if let Err(e) = persist::save(path, &now) {
                self.state.error(format!("settings not saved: {e}"));
            }
            *last = now;
        }
    }

    /// Queues a command (tests drive the app this way, as the panels do).
    pub fn queue(&mut self, c: Command) {
        self.commands.push(c);
    }
}

impl eframe::App for GclabApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.frame(ui);
    }
}
