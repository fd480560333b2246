//! The desktop app: a live policy explorer. One window — scenario controls on the left ([`controls`]), views in the
//! centre sharing one time axis and playhead ([`views`]), a scrubber and status bar at the bottom ([`scrubber`]).
//!
//! Threading: every control change queues a [`command::Command::Rerun`]; the app sends the scenario to the one
//! `sim-worker` thread ([`worker`]) with a new generation, which cancels the run in flight. The UI keeps drawing
//! the last good run with a "computing…" mark until the newer one arrives; nothing in a frame waits on the worker.
//! Frame order: drain worker replies → input (keys, dropped files) → panels (which queue commands) → apply
//! commands → advance playback.
//!
//! `GCLAB_SCREENSHOT=path.png` saves the first complete frame and closes the window — used under Xvfb by
//! `scripts/screenshots.sh` and the window test. What it shows: `GCLAB_VIEW=overview|layout|mmu|energy|cpu|sweep|pareto`,
//! `GCLAB_PRESET=NAME`, `GCLAB_THEME=dark`, `GCLAB_ZOOM=1.5`, `GCLAB_PLAYHEAD=SECONDS`, `GCLAB_COMPARE=COLLECTOR`
//! (the first run is pinned as baseline, then COLLECTOR runs), `GCLAB_VARIANTS=1` (android MinMU overlay) and
//! `GCLAB_OPEN=FILE` (open a GC log or a scenario file as the Open button does), `GCLAB_WINDOW=1280x720` (window
//! size), and a lesson: `GCLAB_LESSON=ID` (a built-in id or a lesson file), `GCLAB_STEP=N` (1-based),
//! `GCLAB_PRESENT=1` (presentation mode). `GCLAB_FIGURE=1` is figure mode ([`figure`]): the view alone under a
//! title and caption (`GCLAB_TITLE`, `GCLAB_CAPTION`; a lesson step's title and text by default), its CSV saved
//! beside the screenshot.
//!
//! Files: *Open* takes a scenario (`.toml`) or a GC log — HotSpot unified logging or Android logcat — which is
//! read on a loader thread ([`log`]) and shown in the same views (pause timeline, heap before/after, MinMU).

mod analysis;
mod command;
mod controls;
pub mod figure;
mod files;
mod format;
pub mod glossary;
pub mod headless;
#[cfg(test)]
mod kittest_tests;
pub mod lesson;
pub mod log;
pub mod pareto;
pub mod persist;
mod resim;
mod scrubber;
mod state;
mod sweep;
#[cfg(test)]
mod tests;
mod theme;
pub mod trace;
pub mod trace_index;
mod views;
mod worker;

use std::time::Instant;

pub use analysis::RunView;
pub use command::{Command, PlaybackCommand};
pub use state::{AppState, ViewKind};
pub use theme::{Palette, Theme};
pub use views::raster::{RasterSpec, rasterize};

use gclab_core::{CollectorKind, Scenario};
use worker::{Reply, Request, Worker};

/// Opens the app window on a loaded scenario. Blocks until the window is closed. Renders with wgpu; when no
/// wgpu adapter can be created (no Vulkan/GL driver wgpu accepts), tries again with the glow (OpenGL) renderer.
///
/// Theme, zoom, view and scenario persist across sessions ([`persist`]); `restore_scenario` also reopens the last
/// scenario (the command line's `gclab` without a file).
pub fn run_app(scenario: Scenario, restore_scenario: bool) -> Result<(), String> {
    run_app_opening(scenario, None, restore_scenario)
}

/// Opens the app on `scenario` and, when given, opens `file` at once (a GC log or a scenario, as *Open* does).
pub fn run_app_opening(
    scenario: Scenario,
    file: Option<std::path::PathBuf>,
    restore_scenario: bool,
) -> Result<(), String> {
    let sc2 = scenario.clone();
    let f2 = file.clone();
    match open(scenario, file, restore_scenario, eframe::Renderer::Wgpu) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::io::Write::write_fmt(
                &mut std::io::stderr(),
                format_args!("gclab: the wgpu renderer failed ({e}); trying OpenGL (glow)\n"),
            );
            open(sc2, f2, restore_scenario, eframe::Renderer::Glow)
                .map_err(|e2| format!("{e}; with glow: {e2}"))
        }
    }
}

fn open(
    scenario: Scenario,
    file: Option<std::path::PathBuf>,
    restore_scenario: bool,
    renderer: eframe::Renderer,
) -> Result<(), String> {
    // GCLAB_WINDOW=WxH sizes the window (screenshots at projector sizes, e.g. 1280x720).
    let size = std::env::var("GCLAB_WINDOW")
        .ok()
        .and_then(|v| {
            let (w, h) = v.split_once('x')?;
            Some([w.trim().parse::<f32>().ok()?, h.trim().parse::<f32>().ok()?])
        })
        .filter(|[w, h]| (320.0..=8000.0).contains(w) && (240.0..=8000.0).contains(h))
        .unwrap_or([1500.0, 940.0]);
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size(size)
            .with_min_inner_size([640.0, 480.0])
            .with_title("gclab — GC energy lab")
            .with_drag_and_drop(true),
        renderer,
        ..Default::default()
    };
    eframe::run_native(
        "gclab",
        options,
        Box::new(move |cc| {
            let mut app = GclabApp::new(&cc.egui_ctx, scenario);
            let screenshot = std::env::var_os("GCLAB_SCREENSHOT").is_some_and(|v| !v.is_empty());
            if !screenshot && let Some(p) = persist::default_path() {
                app.enable_persistence(p, restore_scenario && file.is_none());
                app.apply_commands(&cc.egui_ctx);
            }
            if let Some(f) = file {
                app.queue(Command::LoadFile(f));
                app.apply_commands(&cc.egui_ctx);
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| e.to_string())
}

/// Screenshot request from the environment: save the first complete frame and close.
/// When the process started (set first thing in `main`), for the startup time a screenshot run reports.
static PROCESS_START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Marks the start of the process (call first thing in `main`).
pub fn mark_process_start() {
    let _ = PROCESS_START.set(std::time::Instant::now());
}

struct ScreenshotPlan {
    path: String,
    frames_ready: u32,
}

/// The app: state, the worker, the views' caches and the command queue.
pub struct GclabApp {
    /// Everything the views read (public for tests).
    pub state: AppState,
    worker: Worker,
    layout: views::layout::LayoutView,
    sweep: sweep::SweepState,
    /// The heap-size sweep of the trade-off view.
    tradeoff: sweep::SweepState,
    variants: sweep::VariantCurves,
    commands: Vec<Command>,
    screenshot: Option<ScreenshotPlan>,
    last_frame: Option<Instant>,
    /// Build time of recent frames (UI work only, not rendering). `[ms]`
    pub frame_ms: Vec<f64>,
    applied_zoom: f32,
    applied_theme: Option<Theme>,
    dialogs: files::Dialogs,
    pub(crate) logs: log::LogLoader,
    resim: resim::Resimulation,
    /// Where settings persist, and what was last written there.
    persist: Option<(std::path::PathBuf, persist::Persisted)>,
    /// The open lesson, if any (public for tests).
    pub lesson: Option<lesson::LessonState>,
    /// Presentation mode: the knob panel hidden, one large view beside the lesson text.
    pub present: bool,
    /// `GCLAB_PLAYHEAD`, held until what the app opens at start (a log, a trace, a preset's run) is on screen:
    /// clamping it to whichever run came first (the default scenario's) lost it (#19 item 7).
    startup_playhead: Option<f64>,
    /// Figure mode: the view alone under `(title, caption)` (set from `GCLAB_TITLE`, `GCLAB_CAPTION`).
    pub figure: Option<(String, String)>,
    /// Figures being exported in a child window: where, and the answer once it is drawn.
    exports: Vec<(
        std::path::PathBuf,
        crossbeam_channel::Receiver<Result<(), String>>,
    )>,
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
        let c2 = ctx.clone();
        let mut app = GclabApp {
            state,
            worker: Worker::spawn(move || c2.request_repaint()),
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
            logs: log::LogLoader::default(),
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
        };
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

    fn persist_step(&mut self) {
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

    /// Builds one frame: everything `eframe::App::ui` does, callable headless from tests.
    pub fn frame(&mut self, ui: &mut egui::Ui) {
        let t0 = Instant::now();
        let ctx = ui.ctx().clone();
        self.apply_style(&ctx);
        self.drain_worker();
        self.drain_loader();
        self.sweep.poll();
        self.tradeoff.poll();
        self.variants.poll();
        if let Some(l) = &mut self.lesson {
            l.poll();
        }
        self.input(&ctx);
        self.poll_exports();
        let pal = Palette::of(self.state.settings.theme);
        if self.figure.is_some() {
            self.figure_frame(ui, &pal);
            self.apply_commands(&ctx);
            self.screenshot_step(&ctx);
            return;
        }
        egui::Panel::top("top").show(ui, |ui| {
            controls::top_bar(ui, &mut self.state, self.present, &mut self.commands);
            if let Some((path, since)) = &self.logs.loading {
                ui.horizontal(|ui| {
                    ui.spinner();
                    let relaxed = std::sync::atomic::Ordering::Relaxed;
                    let events = self.logs.progress.load(relaxed);
                    let bytes = self.logs.bytes_read.load(relaxed);
                    let done = if events > 0 {
                        format!(", {:.1} M events read", events as f64 * 1e-6)
                    } else if bytes > 0 && self.logs.file_bytes > 0 {
                        format!(
                            ", {:.0} % of {:.1} MB read",
                            100.0 * bytes as f64 / self.logs.file_bytes as f64,
                            self.logs.file_bytes as f64 * 1e-6
                        )
                    } else {
                        String::new()
                    };
                    ui.label(format!(
                        "loading {} … {:.1} s{done}",
                        path.display(),
                        since.elapsed().as_secs_f64(),
                    ));
                    if ui
                        .button("Cancel loading")
                        .on_hover_text("Stop waiting for this file; what is on screen stays")
                        .clicked()
                    {
                        self.commands.push(Command::CancelLoad);
                    }
                });
            }
        });
        let frame_ms = median_tail(&self.frame_ms, 60);
        egui::Panel::bottom("scrubber").show(ui, |ui| {
            scrubber::ui(ui, &self.state, &pal, frame_ms, &mut self.commands);
        });
        if !self.present {
            egui::Panel::left("controls")
                .default_size(300.0)
                .resizable(true)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        controls::ui(ui, &mut self.state, &self.sweep, &mut self.commands);
                    });
                });
        }
        if let Some(l) = &mut self.lesson {
            let present = self.present;
            // Presenting, the figure gets 60 % of the width and the lesson text the rest.
            let width = ui.available_width();
            egui::Panel::right("lesson")
                .default_size(if present {
                    (width * 0.4).max(300.0)
                } else {
                    340.0
                })
                .max_size(width * if present { 0.5 } else { 0.6 })
                .resizable(true)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        lesson::ui(ui, l, &pal, present, &mut self.commands);
                    });
                });
        }
        let mut open = self.state.glossary_open;
        glossary::window(&ctx, &mut open, &mut self.state.glossary_filter);
        self.state.glossary_open = open;
        egui::CentralPanel::default().show(ui, |ui| {
            views::ui(
                ui,
                &self.state,
                &pal,
                &mut self.layout,
                &self.sweep,
                &self.tradeoff,
                &self.variants,
                !self.present,
                &mut self.commands,
            );
        });
        self.apply_commands(&ctx);
        self.advance_playback(&ctx);
        self.persist_step();
        self.frame_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        if self.frame_ms.len() > 600 {
            self.frame_ms.drain(..300);
        }
        self.screenshot_step(&ctx);
    }

    /// Figure mode's frame: the title and caption, then the view, nothing else.
    fn figure_frame(&mut self, ui: &mut egui::Ui, pal: &Palette) {
        // No hover cursor or tooltip in a figure, wherever the pointer is.
        ui.ctx()
            .input_mut(|i| i.pointer = egui::PointerState::default());
        let (mut title, mut caption) = self.figure.clone().unwrap_or_default();
        if let Some(l) = &self.lesson {
            let step = &l.lesson.steps[l.step];
            if title.is_empty() {
                title = step.title.clone();
            }
            if caption.is_empty() {
                caption = step.text.clone();
            }
        }
        if title.is_empty() {
            title = format!(
                "{} — {}",
                self.state.settings.view.title(),
                self.state.base.file().name
            );
        }
        egui::CentralPanel::default().show(ui, |ui| {
            figure::header(ui, &title, &caption);
            views::ui(
                ui,
                &self.state,
                pal,
                &mut self.layout,
                &self.sweep,
                &self.tradeoff,
                &self.variants,
                false,
                &mut self.commands,
            );
        });
    }

    /// Reports figures exported in child windows.
    fn poll_exports(&mut self) {
        let mut i = 0;
        while i < self.exports.len() {
            match self.exports[i].1.try_recv() {
                Ok(r) => {
                    let (path, _) = self.exports.remove(i);
                    match r {
                        Ok(()) => self.state.info(format!(
                            "figure saved: {} and {}",
                            path.display(),
                            figure::csv_path(&path).display()
                        )),
                        Err(e) => self.state.error(format!("figure not saved: {e}")),
                    }
                }
                Err(_) => i += 1,
            }
        }
    }

    /// Draws the current view as a figure in a child window (figure mode) at `size`, under `title` and
    /// `caption`, to `path`: the scenario with the knobs applied (or the open GC log, or the lesson step).
    fn export_figure(
        &mut self,
        ctx: &egui::Context,
        path: std::path::PathBuf,
        size: figure::FigureSize,
        title: String,
        caption: String,
    ) {
        let st = &self.state;
        let mut env: Vec<(String, String)> = vec![
            (
                "GCLAB_VIEW".into(),
                persist::view_name(st.settings.view).into(),
            ),
            ("GCLAB_PLAYHEAD".into(), st.playback.playhead.to_string()),
            ("GCLAB_TITLE".into(), title),
            ("GCLAB_CAPTION".into(), caption),
        ];
        if st.settings.theme == Theme::Dark {
            env.push(("GCLAB_THEME".into(), "dark".into()));
        }
        if let Some(l) = &self.lesson {
            env.push((
                "GCLAB_LESSON".into(),
                l.lesson.origin.trim_start_matches("builtin:").into(),
            ));
            env.push(("GCLAB_STEP".into(), (l.step + 1).to_string()));
        } else if let Some(log) = &st.log {
            env.push(("GCLAB_OPEN".into(), log.path.display().to_string()));
        } else {
            let sc = match st.controls.apply(&st.base) {
                Ok(sc) => sc,
                Err(e) => return self.state.error(format!("figure not saved: {e}")),
            };
            let tmp =
                std::env::temp_dir().join(format!("gclab-figure-{}.toml", std::process::id()));
            if let Err(e) = gclab_core::io::write_file_atomic(&tmp, sc.to_toml_string().as_bytes())
            {
                return self
                    .state
                    .error(format!("figure not saved: {}: {e}", tmp.display()));
            }
            env.push(("GCLAB_OPEN".into(), tmp.display().to_string()));
        }
        let (tx, rx) = crossbeam_channel::bounded(1);
        let (p2, c2) = (path.clone(), ctx.clone());
        let spawned = std::thread::Builder::new()
            .name("figure-export".into())
            .spawn(move || {
                let _ = tx.send(figure::render(
                    &p2,
                    size,
                    &env,
                    std::time::Duration::from_secs(180),
                ));
                c2.request_repaint();
            });
        match spawned {
            Ok(_) => {
                self.state
                    .info(format!("drawing the figure {} …", path.display()));
                self.exports.push((path, rx));
            }
            Err(e) => self.state.error(format!("figure not saved: {e}")),
        }
    }

    fn apply_style(&mut self, ctx: &egui::Context) {
        let s = &self.state.settings;
        if self.applied_theme != Some(s.theme) {
            ctx.set_visuals(match s.theme {
                Theme::Light => egui::Visuals::light(),
                Theme::Dark => egui::Visuals::dark(),
            });
            self.applied_theme = Some(s.theme);
        }
        if (self.applied_zoom - s.zoom).abs() > 1e-3 {
            ctx.set_zoom_factor(s.zoom);
            self.applied_zoom = s.zoom;
        }
    }

    fn drain_worker(&mut self) {
        for reply in self.worker.poll() {
            let st = &mut self.state;
            if reply.generation() < st.generation {
                continue; // stale: a newer request exists
            }
            st.computing = false;
            st.last_latency_ms = st.requested_at.map(|t| t.elapsed().as_secs_f64() * 1e3);
            match reply {
                Reply::Done(view) => {
                    if st.log.is_none() {
                        let want = self.startup_playhead.unwrap_or(st.playback.playhead);
                        st.playback.playhead = want.clamp(0.0, view.duration_s);
                    }
                    if st.current.is_none()
                        && let Some(kind) = std::env::var("GCLAB_COMPARE")
                            .ok()
                            .and_then(|k| CollectorKind::ALL.into_iter().find(|c| c.name() == k))
                    {
                        // Compare mode for screenshots: the first run becomes the baseline, then `kind` runs.
                        st.baseline = Some(view.clone());
                        st.controls.collector = kind;
                        self.commands.push(Command::Rerun);
                    }
                    if st.current.is_none() {
                        st.playback.speed = default_speed(view.duration_s);
                    }
                    // One latency figure everywhere (the left panel shows the same): request to result on screen.
                    let msg = format!(
                        "{} — re-ran in {:.0} ms",
                        view.label,
                        st.last_latency_ms.unwrap_or(view.simulate_s * 1e3)
                    );
                    // The first run does not hide an error from startup (`gclab open FILE` that is not a log).
                    if st.log.is_none() && !(st.status.is_error && st.current.is_none()) {
                        st.info(msg);
                    }
                    st.current = Some(view);
                    st.worst = None;
                }
                Reply::Failed { message, .. } => st.error(message),
            }
        }
        if self.worker.is_dead() {
            self.state
                .error("the simulation worker stopped; restart gclab");
        }
    }

    fn drain_loader(&mut self) {
        if !self.state.computing && !self.logs.busy() && self.commands.is_empty() {
            // What the app opened at start is on screen: from now on runs clamp the playhead they find.
            self.startup_playhead = None;
        }
        let Some(r) = self.logs.poll() else { return };
        let st = &mut self.state;
        match r {
            Ok(log::Opened::Trace(t)) => {
                st.info(format!(
                    "opened the trace {}: {} objects, {} events over {}, {} collections, loaded in {:.0} ms \
                     ({:.1} MiB resident: {:.1} bytes per object + the 2 MiB overview){}",
                    t.name,
                    t.len(),
                    t.events,
                    format::secs(t.duration_s()),
                    t.collections.len(),
                    t.load_s * 1e3,
                    t.resident_bytes() as f64 / f64::from(1u32 << 20),
                    (t.resident_bytes() - t.overview.live.capacity() - t.overview.dead.capacity()) as f64
                        / t.len().max(1) as f64,
                    if t.synthetic_addresses {
                        "; the trace has no addresses: objects laid out in allocation order"
                    } else {
                        ""
                    }
                ));
                st.log = None;
                let want = self.startup_playhead.unwrap_or(st.playback.playhead);
                st.playback.playhead = want.clamp(0.0, t.duration_s());
                st.playback.playing = false;
                st.playback.speed = default_speed(t.duration_s());
                st.path_text = t.path.display().to_string();
                st.trace = Some(t);
                if st.settings.view != ViewKind::Overview {
                    st.settings.view = ViewKind::Layout;
                }
            }
            Ok(log::Opened::Log(l)) => {
                st.trace = None;
                st.info(format!(
                    "opened {} ({} log): {} pauses over {}, loaded in {:.0} ms{}",
                    l.name,
                    l.format,
                    l.pauses,
                    format::secs(l.duration_s),
                    l.load_s * 1e3,
                    if l.skipped_lines > 0 {
                        format!(
                            "; {} lines not understood (first: {})",
                            l.skipped_lines,
                            l.warnings.first().map_or("", String::as_str)
                        )
                    } else {
                        String::new()
                    }
                ));
                let want = self.startup_playhead.unwrap_or(st.playback.playhead);
                st.playback.playhead = want.clamp(0.0, l.duration_s);
                st.playback.playing = false;
                st.playback.speed = default_speed(l.duration_s);
                st.path_text = l.path.display().to_string();
                st.worst = None;
                // Worst windows of a length just above the longest pause: the first length where they differ.
                if l.max_pause_ms > 0.0 {
                    st.mmu_window_ms = 10f64.powf(l.max_pause_ms.log10().ceil()).max(1.0);
                }
                st.log = Some(l);
            }
            Err(e) => st.error(format!("not opened: {e}")),
        }
    }

    fn input(&mut self, ctx: &egui::Context) {
        match self.resim.poll() {
            Some(Ok(sc)) => {
                let what = sc.origin().to_string();
                self.load(sc, "");
                self.state.info(format!("{what}: re-simulating on kvm-soc"));
                self.commands.push(Command::Rerun);
            }
            Some(Err(e)) => self.state.error(format!("not re-simulated: {e}")),
            None => {}
        }
        match self.dialogs.poll() {
            Some(files::DialogAnswer::Open(Some(p))) => self.commands.push(Command::LoadFile(p)),
            Some(files::DialogAnswer::Save(Some(p))) => self.commands.push(Command::SaveFile(p)),
            Some(_) => self.state.info(
                "no file chosen (or no system file dialog: type a path in the file field, or drop a file)",
            ),
            None => {}
        }
        let dropped: Vec<egui::DroppedFileHandle> = ctx.input(|i| i.raw.dropped_files.clone());
        for f in dropped {
            if !log::is_scenario_path(f.path()) && f.path().exists() {
                self.commands
                    .push(Command::LoadFile(f.path().to_path_buf()));
                continue;
            }
            match f.bytes() {
                Ok(bytes) => self.commands.push(Command::LoadText {
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                    origin: f.path().display().to_string(),
                }),
                Err(e) => self
                    .state
                    .error(format!("{}: cannot read: {e}", f.path().display())),
            }
        }
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        if let Some(l) = &self.lesson
            && self.present
        {
            // A presenter's clicker sends PageUp/PageDown (some send the arrows or space): they step the lesson.
            ctx.input(|i| {
                use egui::Key;
                if [Key::PageDown, Key::ArrowRight, Key::Space]
                    .iter()
                    .any(|k| i.key_pressed(*k))
                {
                    self.commands.push(lesson::advance(l, true));
                }
                if [Key::PageUp, Key::ArrowLeft]
                    .iter()
                    .any(|k| i.key_pressed(*k))
                {
                    self.commands.push(lesson::advance(l, false));
                }
            });
            return;
        }
        ctx.input(|i| {
            use egui::Key;
            if i.key_pressed(Key::Space) {
                self.commands
                    .push(Command::Playback(PlaybackCommand::TogglePlay));
            }
            if i.key_pressed(Key::ArrowRight) {
                self.commands
                    .push(Command::Playback(PlaybackCommand::StepGc(true)));
            }
            if i.key_pressed(Key::ArrowLeft) {
                self.commands
                    .push(Command::Playback(PlaybackCommand::StepGc(false)));
            }
            if i.key_pressed(Key::Home) {
                self.commands
                    .push(Command::Playback(PlaybackCommand::SeekTo(0.0)));
            }
            if i.key_pressed(Key::End) {
                self.commands
                    .push(Command::Playback(PlaybackCommand::SeekTo(f64::MAX)));
            }
        });
    }

    /// Applies the queued commands, in order.
    pub fn apply_commands(&mut self, ctx: &egui::Context) {
        let cmds = std::mem::take(&mut self.commands);
        let mut rerun = false;
        for c in cmds {
            match c {
                Command::Rerun => {
                    rerun = true;
                    self.close_log();
                }
                Command::CancelLoad => {
                    self.logs.cancel();
                    self.state.info("loading cancelled; nothing changed");
                }
                Command::CloseLog => self.close_log(),
                Command::ResimulateTrace(path) => {
                    if !self.resim.busy() {
                        self.state
                            .info(format!("reading {} as a workload…", path.display()));
                        let c2 = ctx.clone();
                        self.resim.start(path, move || c2.request_repaint());
                    }
                }
                Command::LoadFile(path) if pareto::is_sweep_result(&path) => {
                    match pareto::load(&path) {
                        Ok(r) => {
                            self.state.info(format!(
                                "{}: {} points, {} on the Pareto frontier",
                                r.name,
                                r.points.len(),
                                r.frontier.len()
                            ));
                            self.state.pareto.results = Some(std::sync::Arc::new(r));
                            self.state.settings.view = ViewKind::Pareto;
                        }
                        Err(e) => self.state.error(format!("not loaded: {e}")),
                    }
                }
                Command::LoadFile(path) if !log::is_scenario_path(&path) => {
                    let c2 = ctx.clone();
                    self.logs.start(path, move || c2.request_repaint());
                }
                Command::LoadPreset(name) => match Scenario::preset(&name) {
                    Ok(sc) => {
                        self.load(sc, &name);
                        rerun = true;
                    }
                    Err(e) => self.state.error(e.to_string()),
                },
                Command::LoadFile(path) => match Scenario::load(&path.to_string_lossy(), &[]) {
                    Ok(sc) => {
                        self.load(sc, "");
                        self.state.path_text = path.display().to_string();
                        rerun = true;
                    }
                    Err(e) => self.state.error(format!("not loaded: {e}")),
                },
                Command::LoadText { text, origin } => {
                    match Scenario::from_toml_str(&text, &origin, None, &[]) {
                        Ok(sc) => {
                            self.load(sc, "");
                            rerun = true;
                        }
                        Err(e) => self.state.error(format!("not loaded: {e}")),
                    }
                }
                Command::OpenDialog | Command::SaveDialog => {
                    let dir = std::path::Path::new(self.state.path_text.trim())
                        .parent()
                        .filter(|d| d.is_dir())
                        .map(std::path::Path::to_path_buf);
                    let c2 = ctx.clone();
                    let repaint = move || c2.request_repaint();
                    if self.dialogs.is_open() {
                        self.state.info("a file dialog is already open");
                    } else if matches!(c, Command::OpenDialog) {
                        self.dialogs.open_scenario(dir, repaint);
                    } else {
                        self.dialogs.save_scenario(dir, repaint);
                    }
                }
                Command::SaveFile(path) => match self
                    .state
                    .controls
                    .apply(&self.state.base)
                    .and_then(|sc| named_after(sc, &path))
                {
                    Ok(sc) => match gclab_core::io::write_file_atomic(
                        &path,
                        sc.to_toml_string().as_bytes(),
                    ) {
                        Ok(()) => self.state.info(format!("saved {}", path.display())),
                        Err(e) => self.state.error(format!("{}: {e}", path.display())),
                    },
                    Err(e) => self.state.error(e.to_string()),
                },
                Command::ExportCsv(dir) => match &self.state.current {
                    Some(v) => match files::write_csv(&dir, &v.run) {
                        Ok(n) => self
                            .state
                            .info(format!("wrote {n} CSV files to {}", dir.display())),
                        Err(e) => self.state.error(e),
                    },
                    None => self.state.error("no run to export yet"),
                },
                Command::ExportFigure {
                    path,
                    size,
                    title,
                    caption,
                } => self.export_figure(ctx, path, size, title, caption),
                Command::ExportPng(path) => {
                    files::save_png(ctx, path.display().to_string(), false);
                    self.state
                        .info(format!("saving the window to {}", path.display()));
                }
                Command::PinBaseline => {
                    if let Some(l) = &self.state.log {
                        // The run under the log is hidden: pinning it would compare something not on screen.
                        let msg = format!(
                            "nothing pinned: {} is a GC log; close it to pin the simulated run",
                            l.name
                        );
                        self.state.error(msg);
                    } else {
                        self.state.baseline = self.state.current.clone();
                    }
                }
                Command::ClearBaseline => self.state.baseline = None,
                Command::Playback(p) => {
                    self.startup_playhead = None;
                    self.playback(p);
                }
                Command::SelectMmuWindow(ms) => {
                    self.state.mmu_window_ms = ms;
                    self.state.worst = None;
                }
                Command::StartSweep => match self.state.controls.apply(&self.state.base) {
                    Ok(sc) => {
                        let c2 = ctx.clone();
                        self.sweep.start(&sc, sweep::SweepMode::Collector, move || {
                            c2.request_repaint();
                        });
                    }
                    Err(e) => self.state.error(e.to_string()),
                },
                Command::CancelSweep => self.sweep.cancel(),
                Command::StartTradeOff => match self.state.controls.apply(&self.state.base) {
                    Ok(sc) => {
                        let c2 = ctx.clone();
                        self.tradeoff
                            .start(&sc, sweep::SweepMode::HeapSize, move || {
                                c2.request_repaint();
                            });
                    }
                    Err(e) => self.state.error(e.to_string()),
                },
                Command::CancelTradeOff => self.tradeoff.cancel(),
                Command::ParetoAxis(w) => self.state.pareto.minmu_window_ms = w,
                Command::OpenSweepPoint(i) => {
                    let point = self
                        .state
                        .pareto
                        .results
                        .as_ref()
                        .and_then(|r| r.points.get(i).cloned());
                    if let Some(p) = point {
                        match self.state.base.with_overrides(&p.overrides()) {
                            Ok(sc) => {
                                self.load(sc, "");
                                self.state.settings.view = ViewKind::Overview;
                                self.state
                                    .info(format!("sweep point #{}: {}", p.index, p.set_text));
                                rerun = true;
                            }
                            Err(e) => self.state.error(format!("sweep point #{}: {e}", p.index)),
                        }
                    }
                }
                Command::MmuVariants(on) => {
                    if on {
                        match self.state.controls.apply(&self.state.base) {
                            Ok(sc) => {
                                let c2 = ctx.clone();
                                self.variants.start(&sc, move || c2.request_repaint());
                            }
                            Err(e) => self.state.error(e.to_string()),
                        }
                    } else {
                        self.variants.stop();
                        self.variants.curves.clear();
                    }
                }
                Command::SetView(v) => self.state.settings.view = v,
                Command::OpenLesson(spec) => match gclab_core::lesson::Lesson::load(&spec) {
                    Ok(l) => {
                        let c2 = ctx.clone();
                        self.lesson = Some(lesson::LessonState::open(l, move || {
                            c2.request_repaint();
                        }));
                        rerun |= self.apply_lesson_step();
                    }
                    Err(e) => self.state.error(format!("lesson not opened: {e}")),
                },
                Command::LessonGoto(i) => {
                    if let Some(l) = &mut self.lesson {
                        l.goto(i);
                        rerun |= self.apply_lesson_step();
                    }
                }
                Command::LessonChoose(i) => {
                    if let Some(l) = &mut self.lesson {
                        l.chosen = Some(i);
                    }
                }
                Command::LessonReveal => {
                    if let Some(l) = &mut self.lesson {
                        l.revealed = true;
                    }
                }
                Command::CloseLesson => {
                    self.lesson = None;
                    self.present = false;
                }
                Command::Present(on) => self.present = on,
                Command::EnergyWithCpu(on) => self.state.settings.energy_with_cpu = on,
            }
        }
        if rerun {
            self.rerun();
        }
        self.update_worst();
    }

    /// Shows the lesson's current step: its scenario (re-run only when it changed) or log, its view, playhead and
    /// MinMU window. Returns whether the scenario must re-run.
    fn apply_lesson_step(&mut self) -> bool {
        let Some(l) = &mut self.lesson else {
            return false;
        };
        let step = l.lesson.steps[l.step].clone();
        let source = l.lesson.source_at(l.step);
        let changed = l.applied.as_ref() != Some(&source);
        l.applied = Some(source.clone());
        if let Some(v) = step.view.as_deref().and_then(ViewKind::parse) {
            self.state.settings.view = v;
        }
        for h in &step.highlight {
            if let gclab_core::lesson::Highlight::MmuWindow { window_ms } = h {
                self.state.mmu_window_ms = *window_ms;
                self.state.worst = None;
            }
        }
        if let Some(ms) = step.playhead_ms.or(step.time_range_ms.map(|r| r[0])) {
            self.startup_playhead = None;
            self.state.playback.playhead = ms * 1e-3;
            self.state.playback.playing = false;
        }
        // A sweep step sweeps the scenario it loads (queued: it runs once loaded, next frame).
        match self.state.settings.view {
            ViewKind::TradeOff if changed || self.tradeoff.result.is_none() => {
                self.commands.push(Command::StartTradeOff);
            }
            ViewKind::Sweep if changed || self.sweep.result.is_none() => {
                self.commands.push(Command::StartSweep);
            }
            _ => {}
        }
        if !changed {
            return false;
        }
        match source {
            gclab_core::lesson::Source::Scenario { spec, set } => {
                match Scenario::load(&spec, &set) {
                    Ok(sc) => {
                        let preset = spec.strip_prefix("preset:").unwrap_or_default().to_string();
                        self.load(sc, &preset);
                        true
                    }
                    Err(e) => {
                        self.state.error(format!("lesson step not loaded: {e}"));
                        false
                    }
                }
            }
            gclab_core::lesson::Source::Log(spec) => {
                match lesson_log_path(&spec) {
                    Ok(p) => self.commands.push(Command::LoadFile(p)),
                    Err(e) => self.state.error(format!("lesson log not opened: {e}")),
                }
                false
            }
        }
    }

    fn close_log(&mut self) {
        if self.state.log.take().is_some() || self.state.trace.take().is_some() {
            self.state.worst = None;
            let dur = self.state.duration_s();
            self.state.playback.playhead = self.state.playback.playhead.min(dur);
        }
    }

    fn load(&mut self, sc: Scenario, preset: &str) {
        self.close_log();
        // A baseline from another platform has no meaningful Δ (energies differ by 10⁶): it goes.
        if self
            .state
            .baseline
            .as_ref()
            .is_some_and(|b| b.scenario.platform() != sc.platform())
        {
            self.state.baseline = None;
            self.state
                .info("baseline cleared: it ran on another platform");
        }
        self.state.controls = state::Controls::of(&sc, preset);
        self.state.base = sc;
    }

    fn rerun(&mut self) {
        match self.state.controls.apply(&self.state.base) {
            Ok(sc) => {
                self.state.generation += 1;
                self.state.computing = true;
                self.state.requested_at = Some(Instant::now());
                self.worker.submit(Request {
                    generation: self.state.generation,
                    scenario: sc,
                });
            }
            // A bad combination (e.g. a bank size that does not divide the heap) keeps the last good run.
            Err(e) => self.state.error(e.to_string()),
        }
    }

    fn update_worst(&mut self) {
        let st = &mut self.state;
        if let Some(l) = &st.log {
            // A log's worst windows, keyed by a generation no run has.
            let fresh = st
                .worst
                .as_ref()
                .is_some_and(|w| w.generation == u64::MAX && w.window_ms == st.mmu_window_ms);
            if !fresh {
                st.worst = Some(state::WorstWindows {
                    generation: u64::MAX,
                    window_ms: st.mmu_window_ms,
                    windows: analysis::worst_windows(&l.util_series, st.mmu_window_ms, 5),
                });
            }
            return;
        }
        let Some(v) = &st.current else { return };
        let fresh = st
            .worst
            .as_ref()
            .is_some_and(|w| w.generation == v.generation && w.window_ms == st.mmu_window_ms);
        if !fresh {
            st.worst = Some(state::WorstWindows {
                generation: v.generation,
                window_ms: st.mmu_window_ms,
                windows: analysis::worst_windows(&v.util_series, st.mmu_window_ms, 5),
            });
        }
    }

    fn playback(&mut self, p: PlaybackCommand) {
        let dur = self.state.duration_s();
        let pb = &mut self.state.playback;
        match p {
            PlaybackCommand::TogglePlay => {
                pb.playing = !pb.playing;
                if pb.playing && pb.playhead >= dur {
                    pb.playhead = 0.0;
                }
            }
            PlaybackCommand::SeekTo(t) => pb.playhead = t.clamp(0.0, dur),
            PlaybackCommand::SetSpeed(s) => pb.speed = s,
            PlaybackCommand::StepGc(fwd) => {
                pb.playing = false;
                let near = match (&self.state.log, &self.state.trace, &self.state.current) {
                    (Some(l), _, _) => l.pause_near(pb.playhead, fwd),
                    (None, Some(t), _) => t.gc_near(pb.playhead, fwd),
                    (None, None, Some(v)) => v.gc_near(pb.playhead, fwd),
                    (None, None, None) => None,
                };
                if let Some(t) = near {
                    pb.playhead = t;
                }
            }
        }
    }

    fn advance_playback(&mut self, ctx: &egui::Context) {
        let now = Instant::now();
        let dt = self
            .last_frame
            .map_or(0.0, |t| now.duration_since(t).as_secs_f64());
        self.last_frame = Some(now);
        let dur = self.state.duration_s();
        let pb = &mut self.state.playback;
        if pb.playing {
            pb.playhead += dt.min(0.1) * pb.speed;
            if pb.playhead >= dur {
                pb.playhead = dur;
                pb.playing = false;
            }
            ctx.request_repaint();
        }
    }

    fn screenshot_step(&mut self, ctx: &egui::Context) {
        let Some(plan) = &mut self.screenshot else {
            return;
        };
        let sweep_wait = (self.state.settings.view == ViewKind::Sweep
            && (self.sweep.running() || self.commands.contains(&Command::StartSweep)))
            || self.commands.contains(&Command::StartTradeOff)
            || (self.state.settings.view == ViewKind::TradeOff && self.tradeoff.running())
            || self.variants.running()
            || self.logs.busy()
            || self.lesson.as_ref().is_some_and(lesson::LessonState::busy);
        if self.state.current.is_some() && !self.state.computing && !sweep_wait {
            plan.frames_ready += 1;
            if plan.frames_ready == 1
                && let Some(t0) = PROCESS_START.get()
            {
                eprintln!(
                    "gclab: every view filled {:.0} ms after the process started",
                    t0.elapsed().as_secs_f64() * 1e3
                );
            }
        }
        if plan.frames_ready > 5 {
            let path = plan.path.clone();
            self.screenshot = None;
            if self.figure.is_some() {
                let csv = figure::view_csv(&self.state, &self.sweep, &self.tradeoff);
                let csv_path = figure::csv_path(std::path::Path::new(&path));
                if let Err(e) = gclab_core::io::write_file_atomic(&csv_path, csv.as_bytes()) {
                    eprintln!("gclab: {}: {e}", csv_path.display());
                }
            }
            files::save_png(ctx, path, true);
        }
        ctx.request_repaint();
    }
}

/// A lesson's log as a file the loader can read: a path as it is, or an embedded log (`builtin:NAME`) written
/// once to the temporary folder (atomically, through `gclab_core::io::write_file_atomic`).
fn lesson_log_path(spec: &str) -> Result<std::path::PathBuf, String> {
    let Some(name) = spec.strip_prefix("builtin:") else {
        return Ok(spec.into());
    };
    let (_, bytes) = gclab_core::lesson::BUILTIN_LOGS
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| format!("no built-in log {name:?}"))?;
    let dir = std::env::temp_dir().join("gclab-lesson-logs");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(name);
    if std::fs::read(&path).is_ok_and(|b| b == *bytes) {
        return Ok(path);
    }
    gclab_core::io::write_file_atomic(&path, bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// `sc` named after the file it is saved to (its stem), so a saved scenario does not keep the old name.
fn named_after(
    sc: Scenario,
    path: &std::path::Path,
) -> Result<Scenario, gclab_core::ScenarioError> {
    match path.file_stem().and_then(|s| s.to_str()) {
        Some(stem) if !stem.is_empty() => {
            sc.with_overrides(&[("name".into(), toml::Value::String(stem.to_string()))])
        }
        _ => Ok(sc),
    }
}

/// The median of the last `n` values (0 when empty).
fn median_tail(v: &[f64], n: usize) -> f64 {
    let mut t: Vec<f64> = v[v.len().saturating_sub(n)..].to_vec();
    if t.is_empty() {
        return 0.0;
    }
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// A playback speed that plays a run of `duration_s` in about 20 s (a power of ten).
fn default_speed(duration_s: f64) -> f64 {
    10f64.powf((duration_s / 20.0).max(1e-6).log10().round())
}

impl eframe::App for GclabApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.frame(ui);
    }
}
