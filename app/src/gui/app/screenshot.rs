//! Screenshot mode (`GCLAB_SCREENSHOT=path.png`): once every view is filled — the run on screen, no sweep,
//! load or lesson check pending — five more frames are drawn, then the frame is saved (atomically) and the window
//! closes; in figure mode the view's CSV is written beside it. Used under Xvfb by `scripts/screenshots.sh`, the
//! window test, `gclab lesson export` and *Export figure*.

use super::GclabApp;
use crate::gui::{Command, ViewKind, figure, files, lesson};

/// When the process started (set first thing in `main`), for the startup time a screenshot run reports.
static PROCESS_START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Marks the start of the process (call first thing in `main`).
pub fn mark_process_start() {
    let _ = PROCESS_START.set(std::time::Instant::now());
}

/// A screenshot requested from the environment: where to save it, and complete frames seen so far.
pub(super) struct ScreenshotPlan {
    pub(super) path: String,
    pub(super) frames_ready: u32,
}

impl GclabApp {
    pub(super) fn screenshot_step(&mut self, ctx: &egui::Context) {
        let Some(plan) = &mut self.screenshot else {
            return;
        };
        let sweep_wait = (self.state.settings.view == ViewKind::Sweep
            && (self.sweep.running() || self.commands.contains(&Command::StartSweep)))
            || self.commands.contains(&Command::StartTradeOff)
            || (self.state.settings.view == ViewKind::TradeOff && self.tradeoff.running())
            || self.variants.running()
            || self.logs.busy()
            || self.worst_asked.is_some()
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
        // Every frame once the views are filled; ten a second while waiting (each frame of a software renderer
        // takes both cores from the work waited on).
        if plan_ready(self.screenshot.as_ref()) {
            ctx.request_repaint();
        } else {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
    }
}

/// Whether the views are filled and the frames before the screenshot are being counted (or it was taken).
fn plan_ready(plan: Option<&ScreenshotPlan>) -> bool {
    plan.is_none_or(|p| p.frames_ready > 0)
}
