//! The desktop app. Until the full policy explorer lands (issue #4) it opens one window on a scenario: its summary
//! (real numbers from the core, computed on a named worker thread so the window opens at once) and the heap
//! occupancy over time with bank boundaries. `GCLAB_SCREENSHOT=path.png` saves the first complete frame and closes
//! the window (used under Xvfb by the tests and `scripts/run.sh`).

mod theme;

use std::sync::Arc;

use crossbeam_channel::{Receiver, bounded};
use egui_plot::{FilledArea, HLine, Legend, Line, Plot, PlotPoints};
use gclab_core::units::format_bytes;
use gclab_core::{Cancel, NoProgress, Run, Scenario, simulate};

/// Opens the app window on a loaded scenario. Blocks until the window is closed.
pub fn run_app(scenario: Scenario) -> Result<(), String> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1100.0, 680.0])
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

/// Plot-ready series derived once per run. `[s]` on x, `[KiB]` on y.
struct Series {
    t_s: Vec<f64>,
    live_kib: Vec<f64>,
    used_kib: Vec<f64>,
    zeros: Vec<f64>,
    powered: Vec<[f64; 2]>,
}

impl Series {
    fn of(run: &Run) -> Self {
        // At most ~4000 samples: never draw more than there are pixels.
        let step = (run.occupancy.len() / 4000).max(1);
        let mut s = Series {
            t_s: vec![],
            live_kib: vec![],
            used_kib: vec![],
            zeros: vec![],
            powered: vec![],
        };
        for o in run.occupancy.iter().step_by(step) {
            s.t_s.push(o.time.as_secs_f64());
            s.live_kib.push(o.live_bytes as f64 / 1024.0);
            s.used_kib
                .push((o.live_bytes + o.dead_bytes) as f64 / 1024.0);
            s.zeros.push(0.0);
        }
        let bank_kib = run.geometry.bank_bytes as f64 / 1024.0;
        for g in run
            .gc_events
            .iter()
            .step_by((run.gc_events.len() / 2000).max(1))
        {
            s.powered.push([
                g.end.as_secs_f64(),
                f64::from(g.powered_banks_after) * bank_kib,
            ]);
        }
        s
    }
}

/// The interim app: summary and occupancy of one run, filled in when the worker's run arrives.
pub struct SummaryApp {
    scenario: Scenario,
    result: Option<Result<(Arc<Run>, Series), String>>,
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
        cc.egui_ctx.set_zoom_factor(1.2);
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
            self.result = Some(r.map(|run| {
                let s = Series::of(&run);
                (run, s)
            }));
        }
        egui::CentralPanel::default().show(ui, |ui| {
            ui.heading("gclab — GC energy lab");
            ui.label(format!(
                "{} — {}",
                self.scenario.file().name,
                self.scenario.file().description
            ));
            ui.separator();
            match &self.result {
                None => {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("computing…");
                    });
                }
                Some(Err(e)) => {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
                Some(Ok((run, series))) => {
                    ui.columns(2, |cols| {
                        summary_grid(&mut cols[0], run);
                        occupancy_plot(&mut cols[1], run, series);
                    });
                }
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
                "allocated",
                format!(
                    "{} objects, {}",
                    s.allocations,
                    format_bytes(s.allocated_bytes)
                ),
            );
            let by: Vec<String> = s
                .collections_by_trigger
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            row(
                "collections",
                if by.is_empty() {
                    "0".into()
                } else {
                    format!("{} ({})", s.collections, by.join(", "))
                },
            );
            row("energy, total", format!("{:.4e} J", e.total));
            row("  heap leakage", format!("{:.3e} J", e.heap_leakage));
            row("  heap dynamic", format!("{:.3e} J", e.heap_dynamic));
            row(
                "  CPU / ROM / stack",
                format!("{:.2e} / {:.2e} / {:.2e} J", e.cpu, e.rom, e.stack),
            );
            row(
                "GC share of CPU",
                format!("{:.2} %", s.gc_cpu_fraction * 100.0),
            );
            row("max pause", format!("{:.3} ms", s.max_pause_ms));
            if let Some(b) = s.mean_powered_banks {
                row(
                    "powered banks, mean",
                    format!("{b:.2} of {}", run.geometry.banks),
                );
            }
            row(
                "out of memory",
                if s.out_of_memory {
                    "yes".into()
                } else {
                    "no".into()
                },
            );
        });
}

fn occupancy_plot(ui: &mut egui::Ui, run: &Run, s: &Series) {
    ui.label("Heap occupancy over time; dashed: bank boundaries");
    let bank_kib = run.geometry.bank_bytes as f64 / 1024.0;
    Plot::new("occupancy")
        .legend(Legend::default())
        .x_axis_label("time [s]")
        .y_axis_label("KiB")
        .include_y(0.0)
        .include_y(run.geometry.heap_bytes as f64 / 1024.0)
        .show(ui, |p| {
            p.add(
                FilledArea::new("live + dead", &s.t_s, &s.zeros, &s.used_kib)
                    .fill_color(theme::DEAD),
            );
            p.add(FilledArea::new("live", &s.t_s, &s.zeros, &s.live_kib).fill_color(theme::LIVE));
            p.line(
                Line::new(
                    "powered bank capacity after each GC",
                    PlotPoints::from(s.powered.clone()),
                )
                .color(theme::POWERED),
            );
            for b in 1..run.geometry.banks {
                p.hline(
                    HLine::new("", f64::from(b) * bank_kib)
                        .color(theme::GUIDE)
                        .style(egui_plot::LineStyle::dashed_dense()),
                );
            }
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
