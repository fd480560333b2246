//! Drives the app without a window: an `egui::Context` with no renderer, frames run with `Context::run_ui`, the
//! worker thread real. Used by the app's tests and by `benches/gui.rs` (frame build time, re-run latency).

use std::time::{Duration, Instant};

use gclab_core::Scenario;

use super::GclabApp;

/// A headless app on `sc` (its first run queued).
pub fn headless(sc: Scenario) -> (egui::Context, GclabApp) {
    let ctx = egui::Context::default();
    let app = GclabApp::new(&ctx, sc);
    (ctx, app)
}

/// Runs one frame of `app` on a 1500×940 screen.
pub fn frame(ctx: &egui::Context, app: &mut GclabApp) {
    frame_with(ctx, app, Vec::new());
}

/// Runs one frame with input `events` (key presses, pointer moves).
pub fn frame_with(ctx: &egui::Context, app: &mut GclabApp, events: Vec<egui::Event>) {
    let input = egui::RawInput {
        events,
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1500.0, 940.0),
        )),
        ..Default::default()
    };
    let mut out = ctx.run_ui(input, |ui| app.frame(ui));
    out.textures_delta.clear(); // no renderer to hand them to
}

/// Runs frames until the newest request's run is on screen (or 60 s pass); returns how many frames it took.
/// Between frames it waits as the window does: while the worker computes, a frame every millisecond (the
/// spinner's repaints), and at once when the worker's reply arrives (its repaint request wakes the window).
pub fn settle(ctx: &egui::Context, app: &mut GclabApp) -> u32 {
    let t0 = Instant::now();
    let mut n = 0;
    loop {
        frame(ctx, app);
        n += 1;
        let st = &app.state;
        if !st.computing
            && !app.logs.busy()
            && !app.worst_busy()
            && st
                .current
                .as_ref()
                .is_some_and(|v| v.generation == st.generation)
        {
            return n;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            return n;
        }
        if st.computing {
            app.worker.wait(Duration::from_millis(1));
        } else {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
