//! The app's per-frame work that draws nothing (rerun's `app/logic.rs`): take what the background tasks
//! produced (runs, opened files, re-simulation scenarios, dialog answers, exported figures), read the keyboard and
//! dropped files into commands, keep the MinMU worst windows fresh, and advance playback.

use std::sync::Arc;
use std::time::Instant;

use gclab_core::{CollectorKind, Scenario};

use super::GclabApp;
use crate::gui::state::Source;
use crate::gui::worker::{Reply, Request};
use crate::gui::{
    Command, PlaybackCommand, ViewKind, analysis, figure, files, format, lesson, log, state,
};

/// Steps of a curve whose worst windows are searched on the UI thread (a few milliseconds at most); a bigger one
/// is searched on the "worst-windows" task.
const WORST_ON_UI_STEPS: usize = 1 << 18;

impl GclabApp {
    /// Reports figures exported in child windows.
    pub(super) fn poll_exports(&mut self) {
        let mut i = 0;
        while i < self.exports.len() {
            let r = match self.exports[i].1.poll_latest() {
                Some(r) => r,
                None if self.exports[i].1.running() => {
                    i += 1;
                    continue;
                }
                None => Err("the export stopped without an answer".into()),
            };
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
    }

    pub(super) fn drain_worker(&mut self) {
        for reply in self.worker.poll() {
            let st = &mut self.state;
            if reply.generation() < st.generation {
                continue; // stale: a newer request exists
            }
            st.computing = false;
            st.last_latency_ms = st.requested_at.map(|t| t.elapsed().as_secs_f64() * 1e3);
            match reply {
                Reply::Done(view) => {
                    if st.log().is_none() {
                        let want = self.startup_playhead.unwrap_or(st.playback.playhead);
                        st.playback.playhead = want.clamp(0.0, view.duration_s);
                    }
                    if st.current.is_none()
                        && let Some(kind) = std::env::var("GCLAB_COMPARE")
                            .ok()
                            .and_then(|k| CollectorKind::ALL.into_iter().find(|c| c.name() == k))
                    {
                        // Compare mode for screenshots: the first run becomes the baseline, then `kind` runs.
                        st.baseline = Some(state::Pinned::Run(view.clone()));
                        st.controls.collector = kind;
                        self.commands.push(Command::Rerun);
                    }
                    // The first run sets the speed only when it is on screen: a log or trace opened before it
                    // came (`gclab open FILE`) keeps the speed its own span gave.
                    if st.current.is_none() && matches!(st.source, Source::Run) {
                        st.playback.speed = default_speed(view.duration_s);
                    }
                    // One latency figure everywhere (the left panel shows the same): request to result on screen.
                    let msg = format!(
                        "{} — re-ran in {:.0} ms",
                        view.label,
                        st.last_latency_ms.unwrap_or(view.simulate_s * 1e3)
                    );
                    // The first run does not hide an error from startup (`gclab open FILE` that is not a log).
                    if st.log().is_none() && !(st.status.is_error && st.current.is_none()) {
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
                .error("the simulation stopped unexpectedly; change a knob to run it again");
        }
    }

    pub(super) fn drain_loader(&mut self) {
        if !self.state.computing && !self.logs.busy() && self.commands.is_empty() {
            // What the app opened at start is on screen: from now on runs clamp the playhead they find.
            self.startup_playhead = None;
        }
        let Some(r) = self.logs.poll() else { return };
        let st = &mut self.state;
        match r {
            Ok(log::Opened::Scenario(path, sc)) => {
                self.load(*sc, "");
                self.state.path_text = path.display().to_string();
                self.rerun();
            }
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
                let want = self.startup_playhead.unwrap_or(st.playback.playhead);
                st.playback.playhead = want.clamp(0.0, t.duration_s());
                st.playback.playing = false;
                st.playback.speed = default_speed(t.duration_s());
                st.path_text = t.path.display().to_string();
                st.source = Source::Trace(t);
                if st.settings.view != ViewKind::Overview {
                    st.settings.view = ViewKind::Layout;
                }
            }
            Ok(log::Opened::Log(l)) => {
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
                st.source = Source::Log(l);
            }
            Err(e) if e.kind == Some(gclab_core::InputKind::Scenario) => {
                // The path stays in the field: fix the file, press Open again.
                st.path_text = e.path.display().to_string();
                st.error(format!("not loaded: {}", e.message));
            }
            Err(e) => st.error(format!("not opened: {}", e.message)),
        }
    }

    pub(super) fn input(&mut self, ctx: &egui::Context) {
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
            // A dropped file with a path is opened like any other; only bytes without a file are read here.
            if f.path().exists() {
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

    /// Pins what is on screen as the baseline: the run, or the GC log (#19 item 7: a log compares with a run or
    /// another log). A trace replayed as recorded has nothing the compare views draw: it says so and pins nothing.
    pub(super) fn pin(&mut self) {
        let pinned = match &self.state.source {
            Source::Run => self.state.current.clone().map(state::Pinned::Run),
            Source::Log(l) => Some(state::Pinned::Log(l.clone())),
            Source::Trace(t) => {
                let msg = format!(
                    "nothing pinned: {} is a trace replayed as recorded — it has no pauses, MinMU or energy to \
                     compare; re-simulate it as a workload to pin a run",
                    t.name
                );
                self.state.error(msg);
                return;
            }
        };
        if let Some(p) = pinned {
            self.state
                .info(format!("pinned as baseline: {}", p.shown().name()));
            self.state.baseline = Some(p);
        }
    }

    pub(super) fn close_log(&mut self) {
        if !matches!(std::mem::take(&mut self.state.source), Source::Run) {
            self.state.worst = None;
            let dur = self.state.duration_s();
            self.state.playback.playhead = self.state.playback.playhead.min(dur);
        }
    }

    pub(super) fn load(&mut self, sc: Scenario, preset: &str) {
        self.close_log();
        // A baseline from another platform has no meaningful Δ (energies differ by 10⁶): it goes.
        if self
            .state
            .baseline_run()
            .is_some_and(|b| b.scenario.platform() != sc.platform())
        {
            self.state.baseline = None;
            self.state
                .info("baseline cleared: it ran on another platform");
        }
        self.state.controls = state::Controls::of(&sc, preset);
        self.state.base = sc;
    }

    pub(super) fn rerun(&mut self) {
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

    /// Keeps the worst windows of the shown curve at the chosen window: searched here when the curve is small,
    /// on the "worst-windows" task when a search would hold up frames (a 1 GB pause CSV: 0.8 s a search).
    pub(super) fn update_worst(&mut self, ctx: &egui::Context) {
        let arrived = self.worst_task.poll();
        if self.worst_asked.is_some() && !self.worst_task.running() && arrived.is_empty() {
            // The search ended with no answer (it panicked, or a temporary file failed): not asked again.
            self.worst_asked = None;
            if self.worst_task.take_panic() {
                self.state
                    .error("the worst-window search stopped unexpectedly");
            }
        }
        let st = &mut self.state;
        let (Some(generation), Some(curve)) =
            (st.shown_generation(), st.shown().and_then(|s| s.mmu()))
        else {
            return;
        };
        let curve = Arc::clone(curve);
        let key = (Arc::as_ptr(&curve) as usize, generation, st.mmu_window_ms);
        // Only an answer for the curve and window on screen now (another log has the same generation).
        for answer in arrived {
            match answer {
                Ok(w) if (w.curve, w.generation, w.window_ms) == key => {
                    self.worst_asked = None;
                    st.worst = Some(w);
                }
                Ok(_) => {}
                Err(e) => {
                    self.worst_asked = None;
                    st.error(e);
                }
            }
        }
        let fresh =
            (st.worst.as_ref()).is_some_and(|w| (w.curve, w.generation, w.window_ms) == key);
        if fresh || self.worst_asked == Some(key) {
            return;
        }
        // A curve locked now is being searched on the task: a big one (never waited for here).
        let big = curve
            .try_lock()
            .map_or(true, |c| c.steps() > WORST_ON_UI_STEPS);
        if !big {
            self.worst_asked = None;
            match analysis::worst_windows(&curve, st.mmu_window_ms, 5) {
                Ok(windows) => {
                    st.worst = Some(state::WorstWindows {
                        curve: key.0,
                        generation,
                        window_ms: st.mmu_window_ms,
                        windows,
                    });
                }
                Err(e) => st.error(e),
            }
            return;
        }
        st.worst = None;
        let window_ms = st.mmu_window_ms;
        let job = move |sink: &crate::background::Sink<Result<state::WorstWindows, String>>| {
            let found = analysis::worst_windows(&curve, window_ms, 5);
            sink.send(found.map(|windows| state::WorstWindows {
                curve: key.0,
                generation,
                window_ms,
                windows,
            }));
        };
        match self.worst_task.start(Some(ctx), job) {
            Ok(_) => {
                self.worst_asked = Some(key);
                self.worst_searches += 1;
            }
            Err(e) => {
                self.worst_asked = None;
                st.error(e);
            }
        }
    }

    /// True while the worst windows of a big curve are being searched.
    pub(in crate::gui) fn worst_busy(&self) -> bool {
        self.worst_asked.is_some()
    }

    pub(super) fn advance_playback(&mut self, ctx: &egui::Context) {
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
}

/// A playback speed that plays a run of `duration_s` in about 20 s (a power of ten).
pub(super) fn default_speed(duration_s: f64) -> f64 {
    10f64.powf((duration_s / 20.0).max(1e-6).log10().round())
}
