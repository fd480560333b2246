//! Applying the commands the panels queued (rerun's `app/command_handling.rs`): once per frame, in order, after
//! every panel has drawn. Loading, saving and exporting, sweeps, lessons and playback all go through here.

use gclab_core::Scenario;

use super::GclabApp;
use crate::background::BackgroundTask;
use crate::gui::{
    Command, PlaybackCommand, Theme, ViewKind, figure, files, lesson, pareto, persist, sweep,
};

impl GclabApp {
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
                        if let Err(e) = self.resim.start(path, ctx) {
                            self.state.error(format!("not re-simulated: {e}"));
                        }
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
                // A teacher's own lesson opens like a scenario (#19 item 1).
                Command::LoadFile(path) if gclab_core::lesson::is_lesson_file(&path) => {
                    rerun |= self.open_lesson(&path.display().to_string(), ctx);
                }
                // Every other file — scenario, trace, allocation trace, GC log — is read on the loader's thread.
                Command::LoadFile(path) => {
                    if let Err(e) = self.logs.start(path, ctx) {
                        self.state.error(format!("not opened: {e}"));
                    }
                }
                Command::LoadPreset(name) => match Scenario::preset(&name) {
                    Ok(sc) => {
                        self.load(sc, &name);
                        rerun = true;
                    }
                    Err(e) => self.state.error(e.to_string()),
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
                    let shown = if self.dialogs.is_open() {
                        self.state.info("a file dialog is already open");
                        Ok(())
                    } else if matches!(c, Command::OpenDialog) {
                        self.dialogs.open_scenario(dir, ctx)
                    } else {
                        self.dialogs.save_scenario(dir, ctx)
                    };
                    if let Err(e) = shown {
                        self.state.error(e);
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
                Command::PinBaseline => self.pin(),
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
                        self.sweep.start(&sc, sweep::SweepMode::Collector, ctx);
                    }
                    Err(e) => self.state.error(e.to_string()),
                },
                Command::CancelSweep => self.sweep.cancel(),
                Command::StartTradeOff => match self.state.controls.apply(&self.state.base) {
                    Ok(sc) => {
                        let mode = sweep::tradeoff_mode(sc.platform());
                        self.tradeoff.start(&sc, mode, ctx);
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
                                if let Err(e) = self.variants.start(&sc, ctx) {
                                    self.state.error(e);
                                }
                            }
                            Err(e) => self.state.error(e.to_string()),
                        }
                    } else {
                        self.variants.stop();
                        self.variants.curves.clear();
                    }
                }
                Command::SetView(v) => self.state.settings.view = v,
                Command::OpenLesson(spec) => rerun |= self.open_lesson(&spec, ctx),
                Command::LessonGoto(i) => {
                    if let Some(l) = &mut self.lesson {
                        l.goto(i);
                        rerun |= self.apply_lesson_step();
                    }
                }
                Command::LessonPage(b) => {
                    if let Some(l) = &mut self.lesson {
                        l.page_first = b;
                    }
                }
                Command::LessonChoose(i) => {
                    if let Some(l) = &mut self.lesson {
                        l.chosen = Some(i);
                    }
                }
                Command::LessonReveal => {
                    if let Some(l) = &mut self.lesson {
                        l.reveal();
                    }
                }
                Command::CloseLesson => {
                    self.lesson = None;
                    self.state.lesson_marks.clear();
                    self.present = false;
                }
                Command::Present(on) => self.present = on,
                Command::EnergyWithCpu(on) => self.state.settings.energy_with_cpu = on,
            }
        }
        if rerun {
            self.rerun();
        }
        self.update_worst(ctx);
    }

    /// Opens a built-in lesson by id or a lesson file by path at its first step (a file is remembered in the
    /// Lessons menu). Returns whether the scenario must re-run.
    pub(super) fn open_lesson(&mut self, spec: &str, ctx: &egui::Context) -> bool {
        match gclab_core::lesson::Lesson::load(spec) {
            Ok(l) => {
                if !l.origin.starts_with("builtin:") {
                    self.state.recent_lessons.retain(|(p, _)| p != spec);
                    self.state
                        .recent_lessons
                        .insert(0, (spec.to_string(), l.title.clone()));
                    self.state.recent_lessons.truncate(5);
                }
                self.lesson = Some(lesson::LessonState::open(l, ctx));
                self.apply_lesson_step()
            }
            Err(e) => {
                self.state.error(format!("lesson not opened: {e}"));
                false
            }
        }
    }

    /// Shows the lesson's current step: its scenario (re-run only when it changed) or log, its view, playhead and
    /// MinMU window. Returns whether the scenario must re-run.
    pub(super) fn apply_lesson_step(&mut self) -> bool {
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
        self.state.lesson_marks.set(&step);
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

    pub(super) fn playback(&mut self, p: PlaybackCommand) {
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
                let at = pb.playhead;
                if let Some(t) = self.state.shown().and_then(|s| s.gc_near(at, fwd)) {
                    self.state.playback.playhead = t;
                }
            }
        }
    }

    /// Draws the current view as a figure in a child window (figure mode) at `size`, under `title` and
    /// `caption`, to `path`: the scenario with the knobs applied (or the open GC log, or the lesson step).
    pub(super) fn export_figure(
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
        } else if let Some(log) = st.log() {
            env.push(("GCLAB_OPEN".into(), log.path.display().to_string()));
        } else if let Some(t) = st.trace() {
            env.push(("GCLAB_OPEN".into(), t.path.display().to_string()));
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
        // The pinned baseline: its scenario (the same run again) or its log.
        match &st.baseline {
            Some(crate::gui::state::Pinned::Run(b)) => {
                let tmp = std::env::temp_dir()
                    .join(format!("gclab-figure-baseline-{}.toml", std::process::id()));
                if let Err(e) =
                    gclab_core::io::write_file_atomic(&tmp, b.scenario.to_toml_string().as_bytes())
                {
                    return self
                        .state
                        .error(format!("figure not saved: {}: {e}", tmp.display()));
                }
                env.push(("GCLAB_BASELINE".into(), tmp.display().to_string()));
            }
            Some(crate::gui::state::Pinned::Log(l)) => {
                env.push(("GCLAB_BASELINE".into(), l.path.display().to_string()));
            }
            None => {}
        }
        // Each export is a task of its own: a second export does not supersede the first.
        let mut task = BackgroundTask::new("figure-export", 1);
        let p2 = path.clone();
        let started = task.start(Some(ctx), move |sink| {
            let _ = sink.send(figure::render(
                &p2,
                size,
                &env,
                std::time::Duration::from_secs(180),
            ));
        });
        match started {
            Ok(_) => {
                self.state
                    .info(format!("drawing the figure {} …", path.display()));
                self.exports.push((path, task));
            }
            Err(e) => self.state.error(format!("figure not saved: {e}")),
        }
    }
}

/// A lesson's log as a file the loader can read: a path as it is, or an embedded log (`builtin:NAME`) written
/// once to the temporary folder (atomically, through `gclab_core::io::write_file_atomic`).
pub(super) fn lesson_log_path(spec: &str) -> Result<std::path::PathBuf, String> {
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
pub(super) fn named_after(
    sc: Scenario,
    path: &std::path::Path,
) -> Result<Scenario, gclab_core::ScenarioError> {
    match path.file_stem().and_then(|s| s.to_str()) {
        Some(stem) if !stem.is_empty() => sc.with(&[gclab_core::Set::Name(stem.to_string())]),
        _ => Ok(sc),
    }
}
