//! Laying out one frame (rerun's `app/ui.rs`): the top bar with the loading line, the scrubber, the knob panel,
//! the lesson panel, the glossary and the central view; figure mode's frame; the theme and zoom.

use std::time::Instant;

use super::GclabApp;
use crate::gui::{Command, Palette, Theme, controls, figure, glossary, lesson, scrubber, views};

impl GclabApp {
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
                    // A bar of the share read, redrawn ten times a second: a spinner redraws every frame, which
                    // on a software renderer (a VM, Xvfb) took both cores from the loader.
                    let f = self.logs.progress.fraction() as f32;
                    ui.add(egui::ProgressBar::new(f).desired_width(80.0));
                    ui.ctx()
                        .request_repaint_after(std::time::Duration::from_millis(100));
                    let done = self.logs.progress_text();
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
            let present = self.present && self.lesson.is_some();
            scrubber::ui(ui, &self.state, &pal, frame_ms, present, &mut self.commands);
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
                    // Presenting, the step is paged to fit the panel: nothing under a scroll bar on a projector.
                    if present {
                        lesson::ui(ui, l, &pal, present, &mut self.commands);
                    } else {
                        egui::ScrollArea::vertical().show(ui, |ui| {
                            lesson::ui(ui, l, &pal, present, &mut self.commands);
                        });
                    }
                });
        }
        // A knob moved and nothing else was asked (the slider's case): start the run now, so that the simulation
        // overlaps the drawing of the views instead of waiting for it (#18 item 6). Any other command keeps its
        // place at the end of the frame, after every panel has drawn.
        if !self.commands.is_empty() && self.commands.iter().all(|c| matches!(c, Command::Rerun)) {
            self.apply_commands(&ctx);
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
    pub(super) fn figure_frame(&mut self, ui: &mut egui::Ui, pal: &Palette) {
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

    pub(super) fn apply_style(&mut self, ctx: &egui::Context) {
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
}

/// The median of the last `n` values (0 when empty).
pub(super) fn median_tail(v: &[f64], n: usize) -> f64 {
    let mut t: Vec<f64> = v[v.len().saturating_sub(n)..].to_vec();
    if t.is_empty() {
        return 0.0;
    }
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}
