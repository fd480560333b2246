//! The views of a GC log ([`crate::gui::log::LogView`]): the same places as a run's — a pause timeline where the
//! heap map was, heap occupancy before/after each collection with the heap's capacity, the exact MinMU curve with
//! its worst windows (clickable: they move the playhead) — sharing one time axis and playhead. Views a log cannot
//! fill (heap layout, bank power, energy, per-core frequency, sweeps) say why instead of staying blank.

use egui::Rect;
use egui_plot::{Bar, BarChart, HLine, Line, LineStyle, PlotPoints, Points, Polygon};

use super::{heading, legend_row, playhead, plot_height, region, seek_on_click, time_plot};
use crate::gui::command::Command;
use crate::gui::format;
use crate::gui::log::LogView;
use crate::gui::state::{AppState, ViewKind};
use crate::gui::sweep::VariantCurves;
use crate::gui::theme::Palette;

/// Draws `view` for the log on screen.
pub fn ui(
    ui: &mut egui::Ui,
    st: &AppState,
    log: &LogView,
    pal: &Palette,
    variants: &VariantCurves,
    view: ViewKind,
    cmds: &mut Vec<Command>,
) {
    match view {
        ViewKind::Overview => overview(ui, st, log, pal, variants, cmds),
        ViewKind::Layout => {
            not_in_a_log(
                ui,
                pal,
                "No heap layout in a GC log",
                "A GC log records pauses and heap totals, not where objects are: there is no address × time map \
                 and no bank power state. Open a gclab trace (.gct) for a layout, or close the log to see the \
                 simulated run's. Below: the log's pauses and heap occupancy on the same time axis.",
            );
            let h = ui.available_height();
            pauses(ui, st, log, pal, cmds, h * 0.5);
            heap(ui, st, log, pal, cmds, ui.available_height());
        }
        ViewKind::Mmu => {
            let h = ui.available_height();
            super::mmu::plot(ui, st, pal, variants, cmds, h);
        }
        ViewKind::Energy => {
            not_in_a_log(
                ui,
                pal,
                "No energy in a GC log",
                "Energy and bank power come from gclab's platform models; a log from a real runtime has neither. \
                 Close the log (or change a knob) to see the simulated run's energy breakdown.",
            );
            summary(ui, log);
        }
        ViewKind::Cpu => {
            not_in_a_log(
                ui,
                pal,
                "No per-core lanes in a GC log",
                "HotSpot and logcat GC lines carry no CPU frequency, hotplug or per-core placement. Close the log \
                 to see the simulated android-krait run's cores. Below: when the log's pauses stopped the program.",
            );
            let h = ui.available_height();
            pauses(ui, st, log, pal, cmds, h * 0.6);
        }
        // The explorer is drawn before any log (views::ui): it shows a sweep result, not the run.
        ViewKind::Pareto => {}
        ViewKind::Sweep | ViewKind::TradeOff => not_in_a_log(
            ui,
            pal,
            "Sweeps simulate the scenario",
            "A sweep re-runs the scenario under many settings; a GC log is one measurement and cannot be re-run. \
             Close the log to sweep the scenario.",
        ),
    }
}

/// A framed note saying what a log cannot show, with a button back to the simulation.
fn not_in_a_log(ui: &mut egui::Ui, pal: &Palette, title: &str, text: &str) {
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.label(
            egui::RichText::new(title)
                .strong()
                .size(16.0)
                .color(pal.warn),
        );
        ui.label(text);
    });
    ui.add_space(6.0);
}

fn overview(
    ui: &mut egui::Ui,
    st: &AppState,
    log: &LogView,
    pal: &Palette,
    variants: &VariantCurves,
    cmds: &mut Vec<Command>,
) {
    let full = ui.available_rect_before_wrap();
    let gap = 8.0;
    let left_w = (full.width() * 0.57).floor();
    let left = Rect::from_min_size(full.min, egui::vec2(left_w - gap, full.height()));
    let right = Rect::from_min_max(egui::pos2(full.min.x + left_w, full.min.y), full.max);
    region(ui, left, |ui| {
        pauses(ui, st, log, pal, cmds, left.height() * 0.5);
        heap(ui, st, log, pal, cmds, ui.available_height());
    });
    region(ui, right, |ui| {
        super::mmu::plot(ui, st, pal, variants, cmds, right.height() * 0.55);
        ui.separator();
        egui::ScrollArea::vertical()
            .id_salt("log-summary")
            .show(ui, |ui| summary(ui, log));
    });
    ui.advance_cursor_after_rect(full);
}

/// The pause timeline: each pause a bar as high as it was long, coloured by kind.
fn pauses(
    ui: &mut egui::Ui,
    st: &AppState,
    log: &LogView,
    pal: &Palette,
    cmds: &mut Vec<Command>,
    height: f32,
) {
    let start_y = ui.cursor().min.y;
    heading(
        ui,
        &format!("Pauses — {} ({} log)", log.name, log.format),
        "Every stop-the-world pause in the log: a bar at its start, as high as it lasted. Colours are the pause \
         kinds the runtime logged; the band beneath marks when a concurrent phase ran (the collector working beside \
         the program). Click to move the playhead; ←/→ step from pause to pause.",
    );
    let names: Vec<String> = log
        .kinds
        .iter()
        .map(|k| format!("{} ({})", k.kind, k.count))
        .collect();
    let mut items: Vec<(egui::Color32, &str, &str)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                pal.category(i),
                n.as_str(),
                "pauses of this kind, as logged",
            )
        })
        .collect();
    if log.max_pause_ms > 25.0 {
        items.push((
            pal.warn,
            "50 ms",
            "pauses longer than about 50 ms are perceived by users",
        ));
    }
    let concurrent = format!("concurrent phases ({})", log.concurrent_phases);
    if !log.concurrent_s.is_empty() {
        items.push((
            pal.gc,
            concurrent.as_str(),
            "the collector working beside the program (marking, relocating, sweeping): not a pause, but it takes \
             CPU time from the program",
        ));
    }
    items.push((pal.playhead, "playhead", "the instant marked in every view"));
    legend_row(ui, &items);
    // About 2 px wide at the full span, so a short pause is still seen.
    let bar_w = (log.duration_s / 600.0).max(1e-9);
    let band_ms = if log.concurrent_s.is_empty() {
        0.0
    } else {
        log.max_pause_ms.max(1e-3) * 0.08
    };
    let resp = time_plot("log-pauses")
        .height(plot_height(ui, start_y, height))
        .y_axis_label("pause [ms]")
        .include_x(0.0)
        .include_x(log.duration_s)
        .include_y(0.0)
        .include_y(log.max_pause_ms * 1.1)
        .include_y(-band_ms * 1.2)
        .show(ui, |p| {
            // Concurrent phases: a band under the axis, as long as they ran.
            if !log.concurrent_s.is_empty() {
                for &(a, b) in &log.concurrent_s {
                    let b = b.max(a + bar_w);
                    p.polygon(
                        Polygon::new(
                            concurrent.clone(),
                            PlotPoints::from(vec![
                                [a, -band_ms],
                                [b, -band_ms],
                                [b, 0.0],
                                [a, 0.0],
                            ]),
                        )
                        .fill_color(pal.gc.gamma_multiply(0.6))
                        .stroke(egui::Stroke::NONE)
                        .allow_hover(false),
                    );
                }
            }
            for (i, k) in log.kinds.iter().enumerate() {
                let c = pal.category(i);
                let bars: Vec<Bar> = k
                    .bars
                    .iter()
                    .map(|&(t, ms)| Bar::new(t + bar_w / 2.0, ms).width(bar_w).fill(c))
                    .collect();
                p.bar_chart(
                    BarChart::new(k.kind.clone(), bars)
                        .color(c)
                        .allow_hover(false),
                );
            }
            if log.max_pause_ms > 25.0 {
                p.hline(
                    HLine::new("50 ms", 50.0)
                        .color(pal.warn)
                        .style(LineStyle::dashed_dense()),
                );
            }
            p.vline(playhead(st, pal));
            p.response()
                .clicked()
                .then(|| p.pointer_coordinate().map(|c| c.x))
                .flatten()
        });
    seek_on_click(resp.inner, cmds);
}

/// Heap occupancy from the log: before and after each collection, the sawtooth between them, and the capacity.
fn heap(
    ui: &mut egui::Ui,
    st: &AppState,
    log: &LogView,
    pal: &Palette,
    cmds: &mut Vec<Command>,
    height: f32,
) {
    let start_y = ui.cursor().min.y;
    heading(
        ui,
        "Heap occupancy (from the log)",
        "Heap in use before each collection and after it, as the runtime logged them, and the heap's capacity. \
         Between collections the program allocates, so use climbs from one 'after' to the next 'before'.",
    );
    if log.heap_used.is_empty() {
        ui.weak(
            "This log carries no heap sizes (pause and utilisation CSVs have none; a HotSpot log written \
             without the `gc` tag at info level neither): no occupancy to plot.",
        );
        return;
    }
    legend_row(
        ui,
        &[
            (
                pal.dead,
                "before GC",
                "heap in use when the collection started",
            ),
            (pal.live, "after GC", "heap in use when it ended"),
            (
                pal.guide,
                "in use",
                "before → after at each collection, joined in time",
            ),
            (
                pal.powered,
                "capacity",
                "the committed heap size the runtime logged",
            ),
        ],
    );
    let top = log
        .heap_total
        .iter()
        .chain(&log.heap_before)
        .map(|p| p.y)
        .fold(0.0, f64::max);
    let resp = time_plot("log-heap")
        .height(plot_height(ui, start_y, height))
        .y_axis_label("MiB")
        .include_x(0.0)
        .include_x(log.duration_s)
        .include_y(0.0)
        .include_y(top * 1.1)
        .show(ui, |p| {
            p.line(
                Line::new("in use", log.heap_used.as_slice())
                    .color(pal.guide)
                    .width(1.0)
                    .allow_band(false),
            );
            if !log.heap_total.is_empty() {
                p.line(
                    Line::new("capacity", log.heap_total.as_slice())
                        .color(pal.powered)
                        .width(2.0)
                        .allow_band(false),
                );
            }
            p.points(
                Points::new("before GC", log.heap_before.as_slice())
                    .color(pal.dead)
                    .radius(2.0),
            );
            p.points(
                Points::new("after GC", log.heap_after.as_slice())
                    .color(pal.live)
                    .radius(2.0),
            );
            p.vline(playhead(st, pal));
            p.response()
                .clicked()
                .then(|| p.pointer_coordinate().map(|c| c.x))
                .flatten()
        });
    seek_on_click(resp.inner, cmds);
}

/// What the log holds, as a table.
fn summary(ui: &mut egui::Ui, log: &LogView) {
    let mut rows: Vec<(&str, String)> = vec![
        ("file", log.name.clone()),
        ("format", log.format.clone()),
        (
            "mutators",
            if log.mutators.len() <= 3 {
                log.mutators.join(", ")
            } else {
                format!("{}", log.mutators.len())
            },
        ),
        ("span", format::secs(log.duration_s)),
        ("pauses", log.pauses.to_string()),
        ("longest pause", format::window_ms(log.max_pause_ms)),
        ("time paused", format::window_ms(log.total_pause_ms)),
        ("paused share of time", format::percent(log.gc_fraction)),
    ];
    for k in &log.kinds {
        rows.push(("  pauses of kind", format!("{} × {}", k.count, k.kind)));
    }
    if log.safepoints.0 > 0 {
        rows.push((
            "safepoints",
            format!(
                "{}, stopping the program {} in all",
                log.safepoints.0,
                format::window_ms(log.safepoints.1)
            ),
        ));
    }
    if log.concurrent_phases > 0 {
        rows.push((
            "concurrent phases",
            format!(
                "{}, running {} ({} of the span)",
                log.concurrent_phases,
                format::window_ms(log.concurrent_ms),
                format::percent(log.concurrent_ms / (log.duration_s * 1e3).max(1e-9))
            ),
        ));
    }
    rows.push(("lines not understood", log.skipped_lines.to_string()));
    rows.push(("loaded in", format::secs(log.load_s)));
    egui::Grid::new("log-summary-table")
        .num_columns(2)
        .striped(true)
        .spacing([10.0, 4.0])
        .show(ui, |ui| {
            ui.strong("log");
            ui.strong("");
            ui.end_row();
            for (name, value) in rows {
                ui.label(name);
                ui.monospace(value);
                ui.end_row();
            }
        });
    for w in log.warnings.iter().take(4) {
        ui.weak(w);
    }
}
