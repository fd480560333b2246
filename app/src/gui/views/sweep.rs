//! The sweep view (adaptive-GC paper's Fig. 4): heap energy of k-allocation against k on a log axis, with the
//! base and adaptive collectors drawn as reference lines; a progress bar while the sweep runs in the background.

use egui_plot::{AxisHints, HLine, Line, LineStyle, Plot, Points};

use super::{decade_marks, heading, legend_row, marked_line};
use crate::gui::format;
use crate::gui::sweep::{SweepResult, SweepState};
use crate::gui::theme::Palette;

/// Draws the sweep.
pub fn ui(ui: &mut egui::Ui, sweep: &SweepState, pal: &Palette) {
    if let Some(r) = sweep.result.as_ref().filter(|r| r.android) {
        android(ui, r, pal, sweep);
        return;
    }
    heading(
        ui,
        "Sweep: heap energy versus k",
        "k-allocation collects every k allocations: small k wastes CPU on collections, large k keeps banks \
         powered for garbage. The adaptive collector picks its moments from the bank state instead.",
    );
    if sweep.running() {
        ui.add(
            egui::ProgressBar::new(sweep.progress())
                .show_percentage()
                .text("sweeping…"),
        );
    }
    let Some(r) = &sweep.result else {
        ui.label(
            "Press \"Run sweep\" on the left: on kvm-soc it runs the current scenario for 12 values of k; on \
             android-krait, the five CMS variants for targetUtil 0.1 to 0.9.",
        );
        return;
    };
    let pts: Vec<[f64; 2]> = r
        .k_allocation
        .iter()
        .map(|p| [(p.k as f64).log10(), p.heap_j * 1e3])
        .collect();
    // The legend is a row above the plot, never inside it: egui_plot's corner legend covered the points of
    // whichever series reached that corner (#19 item 5).
    let adaptive = r
        .adaptive
        .as_ref()
        .map(|a| format!("adaptive: {}", format::joules(a.heap_j)));
    let base = r
        .base
        .as_ref()
        .map(|b| format!("base: {}", format::joules(b.heap_j)));
    let mut items: Vec<(egui::Color32, &str, &str)> = vec![(
        pal.current,
        "k-allocation",
        "heap energy of k-allocation at each k (a run per point)",
    )];
    if let Some(a) = &adaptive {
        items.push((
            pal.powered,
            a.as_str(),
            "the adaptive collector's heap energy (no k)",
        ));
    }
    if let Some(b) = &base {
        items.push((
            pal.baseline,
            b.as_str(),
            "the base collector's heap energy (no k), dashed",
        ));
    }
    legend_row(ui, &items);
    let h = (ui.available_height() - 110.0).max(120.0);
    let resp = Plot::new("sweep")
        .height(h)
        // A label longer than a short plot runs up into the heading (1280×720 at 200 %): the unit only there.
        .custom_x_axes(vec![
            AxisHints::new_x()
                .label("k (allocations between collections, log scale)")
                .formatter(|m, _| {
                    if (m.value - m.value.round()).abs() < 1e-6 {
                        format!("{:.0}", 10f64.powf(m.value))
                    } else {
                        String::new()
                    }
                })
                .label_spacing(28.0..=28.1),
        ])
        .x_grid_spacer(decade_marks)
        .y_grid_spacer(super::ticks::y())
        .custom_y_axes(vec![super::ticks::y_axis(14.0).label(if h < 170.0 {
            "mJ"
        } else {
            "heap energy [mJ]"
        })])
        .include_y(0.0)
        .show(ui, |p| {
            marked_line(
                p,
                "k-allocation",
                pts,
                pal.current,
                (2.5, 4.0),
                LineStyle::Solid,
            );
            if let (Some(a), Some(name)) = (&r.adaptive, &adaptive) {
                p.hline(
                    HLine::new(name.clone(), a.heap_j * 1e3)
                        .color(pal.powered)
                        .width(2.5),
                );
            }
            if let (Some(b), Some(name)) = (&r.base, &base) {
                p.hline(
                    HLine::new(name.clone(), b.heap_j * 1e3)
                        .color(pal.baseline)
                        .style(LineStyle::dashed_loose())
                        .width(2.0),
                );
            }
        });
    super::note_time_plot(ui, "sweep", &resp.transform);
    egui::ScrollArea::vertical().show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("{}:", r.name));
            for p in &r.k_allocation {
                ui.monospace(format!("k={} {}", p.k, format::joules(p.heap_j)));
            }
        });
        for e in &r.errors {
            ui.colored_label(pal.warn, e);
        }
    });
}

/// The android-krait sweep: energy and execution time against targetUtil, one line per CMS variant (SYSTOR'15
/// Figs. 6 and 8).
fn android(ui: &mut egui::Ui, r: &SweepResult, pal: &Palette, sweep: &SweepState) {
    heading(
        ui,
        "Sweep: energy and time versus targetUtil",
        "targetUtil sizes the heap after each collection: low values leave much free room (few collections), \
         high values keep the heap tight (frequent collections). Each line is one CMS variant.",
    );
    if sweep.running() {
        ui.add(
            egui::ProgressBar::new(sweep.progress())
                .show_percentage()
                .text("sweeping…"),
        );
    }
    let names: Vec<(egui::Color32, &str, &str)> = r
        .variants
        .iter()
        .map(|(k, _)| (pal.variant(*k), k.name(), "a CMS variant (SYSTOR'15 §3)"))
        .collect();
    legend_row(ui, &names);
    let h = (ui.available_height() - 60.0).max(120.0);
    let w = (ui.available_width() / 2.0 - 8.0).max(200.0);
    ui.horizontal(|ui| {
        for (title, unit, pick) in [
            ("energy [J]", "energy", 0usize),
            ("execution time [s]", "time", 1usize),
        ] {
            ui.vertical(|ui| {
                ui.label(egui::RichText::new(format!("{unit} vs targetUtil")).strong());
                Plot::new(format!("sweep-android-{unit}"))
                    .height(h)
                    .width(w)
                    .custom_x_axes(vec![
                        AxisHints::new_x()
                            .label("targetUtil")
                            .label_spacing(24.0..=24.1),
                    ])
                    .y_grid_spacer(super::ticks::y())
                    .custom_y_axes(vec![super::ticks::y_axis(14.0).label(title)])
                    .show(ui, |p| {
                        for (kind, pts) in &r.variants {
                            let line: Vec<[f64; 2]> = pts
                                .iter()
                                .map(|q| {
                                    [q.target_util, if pick == 0 { q.total_j } else { q.time_s }]
                                })
                                .collect();
                            p.line(
                                Line::new(kind.name(), line.clone())
                                    .color(pal.variant(*kind))
                                    .width(2.5),
                            );
                            p.points(
                                Points::new(kind.name(), line)
                                    .radius(3.5)
                                    .color(pal.variant(*kind)),
                            );
                        }
                    });
            });
        }
    });
    for e in &r.errors {
        ui.colored_label(pal.warn, e);
    }
}

/// The sweep and trade-off views when a GC log or a recorded trace is open: a sweep re-runs the scenario.
pub fn not_for(ui: &mut egui::Ui, source: &crate::gui::state::Source, pal: &Palette) {
    let text = match source {
        crate::gui::state::Source::Trace(_) => {
            "A trace as recorded is one program run; close it to sweep the scenario."
        }
        _ => {
            "A sweep re-runs the scenario under many settings; a GC log is one measurement and cannot be re-run. \
             Close the log to sweep the scenario."
        }
    };
    super::unavailable(ui, pal, "Sweeps simulate the scenario", text);
}
