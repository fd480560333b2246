//! The sweep view (adaptive-GC paper's Fig. 4): heap energy of k-allocation against k on a log axis, with the
//! base and adaptive collectors drawn as reference lines; a progress bar while the sweep runs in the background.

use egui_plot::{AxisHints, HLine, Legend, Line, LineStyle, Plot, Points};

use super::{decade_marks, heading};
use crate::gui::format;
use crate::gui::sweep::SweepState;
use crate::gui::theme::Palette;

/// Draws the sweep.
pub fn ui(ui: &mut egui::Ui, sweep: &SweepState, pal: &Palette) {
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
        ui.label("Press \"Run sweep over k\" on the left: it runs the current scenario for 12 values of k.");
        return;
    };
    let pts: Vec<[f64; 2]> = r
        .k_allocation
        .iter()
        .map(|p| [(p.k as f64).log10(), p.heap_j * 1e3])
        .collect();
    let h = ui.available_height() - 140.0;
    Plot::new("sweep")
        .height(h.max(120.0))
        .legend(Legend::default())
        .y_axis_label("heap energy [mJ]")
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
                .label_spacing(28.0..=36.0),
        ])
        .x_grid_spacer(decade_marks)
        .include_y(0.0)
        .show(ui, |p| {
            p.line(
                Line::new("k-allocation", pts.clone())
                    .color(pal.current)
                    .width(2.5),
            );
            p.points(
                Points::new("k-allocation", pts)
                    .radius(4.0)
                    .color(pal.current),
            );
            if let Some(a) = r.adaptive {
                p.hline(
                    HLine::new(
                        format!("adaptive: {}", format::joules(a.heap_j)),
                        a.heap_j * 1e3,
                    )
                    .color(pal.powered)
                    .width(2.5),
                );
            }
            if let Some(b) = r.base {
                p.hline(
                    HLine::new(
                        format!("base: {}", format::joules(b.heap_j)),
                        b.heap_j * 1e3,
                    )
                    .color(pal.baseline)
                    .style(LineStyle::dashed_loose())
                    .width(2.0),
                );
            }
        });
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
