//! The desktop app. Until the full policy explorer lands (issue #4) it opens one window showing the default
//! scenario's summary — real numbers from the core, computed on a worker thread so the window opens at once.

use std::sync::Arc;

use crossbeam_channel::{Receiver, bounded};
use gclab_core::{Cancel, NoProgress, Run, Scenario, simulate};

/// Opens the app window on `path` (a scenario TOML) or the embedded default scenario. Blocks until closed.
pub fn run_app(path: Option<&str>) -> Result<(), String> {
    let scenario = match path {
        Some(p) => Scenario::load(p, &[]).map_err(|e| e.to_string())?,
        None => Scenario::default_preset().map_err(|e| e.to_string())?,
    };
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([900.0, 620.0])
            .with_title("gclab"),
        ..Default::default()
    };
    eframe::run_native(
        "gclab",
        options,
        Box::new(move |cc| Ok(Box::new(SummaryApp::new(cc, scenario)))),
    )
    .map_err(|e| e.to_string())
}

/// The interim app: the scenario's summary, filled in when the worker's run arrives.
pub struct SummaryApp {
    scenario: Scenario,
    result: Option<Result<Arc<Run>, String>>,
    rx: Receiver<Result<Arc<Run>, String>>,
    screenshot: Option<String>,
    frames: u32,
}

impl SummaryApp {
    fn new(cc: &eframe::CreationContext<'_>, scenario: Scenario) -> Self {
        let (tx, rx) = bounded(1);
        let sc = scenario.clone();
        let ctx = cc.egui_ctx.clone();
        let _ = std::thread::Builder::new()
            .name("sim-worker".into())
            .spawn(move || {
                let r = simulate(&sc, &Cancel::never(), &mut NoProgress)
                    .map(Arc::new)
                    .map_err(|e| e.to_string());
                let _ = tx.send(r);
                ctx.request_repaint();
            });
        cc.egui_ctx.set_zoom_factor(1.25);
        SummaryApp {
            scenario,
            result: None,
            rx,
            screenshot: std::env::var("GCLAB_SCREENSHOT").ok(),
            frames: 0,
        }
    }
}

impl eframe::App for SummaryApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        if let Ok(r) = self.rx.try_recv() {
            self.result = Some(r);
        }
        egui::CentralPanel::default().show(ui, |ui| {
            ui.heading("gclab — GC energy lab");
            ui.label(format!(
                "{} ({})",
                self.scenario.file().name,
                self.scenario.origin()
            ));
            ui.label(&self.scenario.file().description);
            ui.separator();
            match &self.result {
                None => {
                    ui.spinner();
                    ui.label("computing…");
                }
                Some(Err(e)) => {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
                Some(Ok(run)) => summary_grid(ui, run),
            }
        });
        self.frames += 1;
        if let Some(path) = self.screenshot.clone() {
            if self.result.is_some() && self.frames > 5 {
                self.screenshot = None;
                save_screenshot(ui.ctx(), path);
            }
            ui.ctx().request_repaint();
        }
    }
}

fn summary_grid(ui: &mut egui::Ui, run: &Run) {
    let s = &run.summary;
    let e = &s.energy_j;
    egui::Grid::new("summary")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            let mut row = |k: &str, v: String| {
                ui.label(k);
                ui.monospace(v);
                ui.end_row();
            };
            row("collector", s.collector.clone());
            row(
                "execution time",
                format!(
                    "{:.4} s ({} cycles)",
                    s.execution_time_s,
                    s.execution_cycles.unwrap_or(0)
                ),
            );
            row(
                "allocations",
                format!("{} objects, {} bytes", s.allocations, s.allocated_bytes),
            );
            let by: Vec<String> = s
                .collections_by_trigger
                .iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect();
            row(
                "collections",
                format!("{} ({})", s.collections, by.join(", ")),
            );
            row("energy, total", format!("{:.4e} J", e.total));
            row(
                "  heap (leakage + dynamic)",
                format!(
                    "{:.4e} J ({:.3e} + {:.3e})",
                    e.heap, e.heap_leakage, e.heap_dynamic
                ),
            );
            row(
                "  cpu / rom / stack",
                format!("{:.3e} / {:.3e} / {:.3e} J", e.cpu, e.rom, e.stack),
            );
            row(
                "GC share of CPU",
                format!("{:.2} %", s.gc_cpu_fraction * 100.0),
            );
            row("max pause", format!("{:.3} ms", s.max_pause_ms));
            if let Some(b) = s.mean_powered_banks {
                row(
                    "powered banks (mean)",
                    format!("{b:.2} of {}", run.geometry.banks),
                );
            }
            row("out of memory", s.out_of_memory.to_string());
        });
}

/// Saves the next frame as a PNG at `path` and closes the window (used under Xvfb to look at the app).
fn save_screenshot(ctx: &egui::Context, path: String) {
    let ctx2 = ctx.clone();
    ctx.request_screenshot(move |img| {
        let [w, h] = img.size;
        let bytes: Vec<u8> = img.pixels.iter().flat_map(|c| c.to_array()).collect();
        if let Err(e) =
            image::save_buffer(&path, &bytes, w as u32, h as u32, image::ColorType::Rgba8)
        {
            let _ = std::io::Write::write_fmt(
                &mut std::io::stderr(),
                format_args!("gclab: {path}: {e}\n"),
            );
        }
        ctx2.send_viewport_cmd(egui::ViewportCommand::Close);
    });
}
