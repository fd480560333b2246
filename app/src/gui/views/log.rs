//! What each view kind shows when a GC log ([`crate::gui::log::LogView`]) is open: the same places as a run's — the
//! pause timeline ([`super::pauses`]) where the heap map was, heap occupancy ([`super::occupancy`]), the exact
//! MinMU curve with its worst windows ([`super::mmu`]), and the log's summary table — sharing one time axis and
//! playhead. Views a log cannot fill (heap layout, bank power, energy, per-core frequency, sweeps) say why instead
//! of staying blank.

use crate::gui::command::Command;
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
            super::unavailable(
                ui,
                pal,
                "No heap layout in a GC log",
                "A GC log records pauses and heap totals, not where objects are: there is no address × time map \
                 and no bank power state. Open a gclab trace (.gct) for a layout, or close the log to see the \
                 simulated run's. Below: the log's pauses and heap occupancy on the same time axis.",
            );
            let h = ui.available_height();
            super::pauses::with_occupancy(ui, st, log, pal, cmds, h * 0.5);
        }
        ViewKind::Mmu => {
            let h = ui.available_height();
            super::mmu::plot(ui, st, pal, variants, cmds, h);
        }
        ViewKind::Energy => {
            super::unavailable(
                ui,
                pal,
                "No energy in a GC log",
                "Energy and bank power come from gclab's platform models; a log from a real runtime has neither. \
                 Close the log (or change a knob) to see the simulated run's energy breakdown.",
            );
            super::summary::of_log(ui, log);
        }
        ViewKind::Cpu => {
            super::unavailable(
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
        ViewKind::Sweep | ViewKind::TradeOff => super::unavailable(
            ui,
            pal,
            "Sweeps simulate the scenario",
            "A sweep re-runs the scenario under many settings; a GC log is one measurement and cannot be re-run. \
             Close the log to sweep the scenario.",
        ),
    }
}
