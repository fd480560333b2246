//! The desktop app: a live policy explorer. One window — scenario controls on the left ([`controls`]), views in the
//! centre sharing one time axis and playhead ([`views`]), a scrubber and status bar at the bottom ([`scrubber`]).
//!
//! The app itself is [`GclabApp`] in `app/` (rerun's shape: `mod.rs` state and construction, `ui.rs` panels,
//! `logic.rs` per-frame work, `command_handling.rs` the command queue, `screenshot.rs` screenshot mode).
//!
//! Threading: every background job — the re-run, file loading, sweeps, lesson claims, dialogs, trace rasters,
//! figure exports — is a [`crate::background::BackgroundTask`] (named thread, bounded channel, generation, core's
//! `Cancel`, repaint on arrival). Every control change queues a [`command::Command::Rerun`]; the app starts the
//! scenario as a `sim-worker` job ([`worker`]) with a new generation, which cancels the run in flight. The UI keeps
//! drawing the last good run with a "computing…" mark until the newer one arrives; nothing in a frame waits.
//! Frame order: drain replies → input (keys, dropped files) → panels (which queue commands) → apply commands →
//! advance playback.
//!
//! `GCLAB_SCREENSHOT=path.png` saves the first complete frame and closes the window — used under Xvfb by
//! `scripts/screenshots.sh` and the window test. What it shows: `GCLAB_VIEW=overview|layout|mmu|energy|cpu|sweep|pareto`,
//! `GCLAB_PRESET=NAME`, `GCLAB_THEME=dark`, `GCLAB_ZOOM=1.5`, `GCLAB_PLAYHEAD=SECONDS`, `GCLAB_COMPARE=COLLECTOR`
//! (the first run is pinned as baseline, then COLLECTOR runs), `GCLAB_VARIANTS=1` (android MinMU overlay) and
//! `GCLAB_OPEN=FILE` (open a GC log or a scenario file as the Open button does), `GCLAB_WINDOW=1280x720` (window
//! size), and a lesson: `GCLAB_LESSON=ID` (a built-in id or a lesson file), `GCLAB_STEP=N` (1-based),
//! `GCLAB_PRESENT=1` (presentation mode). `GCLAB_FIGURE=1` is figure mode ([`figure`]): the view alone under a
//! title and caption (`GCLAB_TITLE`, `GCLAB_CAPTION`; a lesson step's title and text by default), its CSV saved
//! beside the screenshot, and `GCLAB_BASELINE=FILE` (a scenario or a GC log) the pinned baseline it draws.
//!
//! Files: *Open* takes a scenario (`.toml`) or a GC log — HotSpot unified logging or Android logcat — which is
//! read as the `file-loader` task ([`log`]) and shown in the same views (pause timeline, heap before/after, MinMU).

mod analysis;
mod app;
mod command;
mod controls;
pub mod figure;
mod files;
mod format;
pub mod glossary;
pub mod headless;
#[cfg(test)]
mod kittest_compare_tests;
#[cfg(test)]
mod kittest_layout_tests;
#[cfg(test)]
mod kittest_lesson_tests;
#[cfg(test)]
mod kittest_present_tests;
#[cfg(test)]
mod kittest_tests;
#[cfg(test)]
mod kittest_ticks_tests;
pub mod lesson;
mod lesson_pages;
pub mod log;
mod log_pauses;
mod log_thin;
mod marks;
pub mod pareto;
pub mod persist;
mod resim;
mod scrubber;
mod source;
mod state;
mod sweep;
#[cfg(test)]
mod tests;
mod theme;
pub mod trace;
mod views;
mod worker;

pub use analysis::RunView;
pub use app::GclabApp;
pub use app::screenshot::mark_process_start;
pub use command::{Command, PlaybackCommand};
pub use state::{AppState, Shown, Source, ViewKind};
pub use theme::{Palette, Theme};
pub use views::raster::{RasterSpec, rasterize};

use gclab_core::Scenario;

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
