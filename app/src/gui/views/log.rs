//! What each view kind shows when a GC log ([`crate::gui::log::LogView`]) is open: the same places as a run's — the
//! pause timeline ([`super::pauses`]) where the heap map was, heap occupancy ([`super::occupancy`]), the exact
//! MinMU curve with its worst windows ([`super::mmu`]), and the log's summary table — sharing one time axis and
//! playhead. Views a log cannot fill (heap layout, bank power, energy, per-core frequency, sweeps) say why instead
//! of staying blank.

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
        ViewKind::Overview => super::overview::of_log(ui, st, log, pal, variants, cmds),
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
            super::pauses::ui(ui, st, log, pal, cmds, h * 0.5);
            super::occupancy::ui(ui, st, pal, cmds, ui.available_height());
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
            super::pauses::ui(ui, st, log, pal, cmds, h * 0.6);
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

/// What the log holds, as a table.
pub fn summary(ui: &mut egui::Ui, log: &LogView) {
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
