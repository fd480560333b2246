//! What each view kind shows when a recorded trace ([`crate::gui::trace::TraceReplay`]) is open: its heap map as
//! recorded ([`super::layout::trace`]) in the overview and heap-layout views; views a trace cannot fill (pauses and
//! MinMU, energy, CPU lanes, sweeps) say why above the map.

use crate::gui::command::Command;
use crate::gui::state::{AppState, ViewKind};
use crate::gui::theme::Palette;
use crate::gui::trace::TraceReplay;

use super::layout::trace::{TraceMap, map};

/// Draws `view` for the trace on screen.
pub fn ui(
    ui: &mut egui::Ui,
    st: &AppState,
    t: &std::sync::Arc<TraceReplay>,
    pal: &Palette,
    map_state: &mut TraceMap,
    view: ViewKind,
    cmds: &mut Vec<Command>,
) {
    match view {
        ViewKind::Overview | ViewKind::Layout | ViewKind::Pareto => {}
        ViewKind::Mmu => super::unavailable(
            ui,
            pal,
            "No pauses in a trace replayed as recorded",
            "A gclab trace records objects and collections, not how long the program stopped: MinMU needs \
             pauses. Replay the trace as a workload (scenario [workload] trace = …) to simulate pauses under any \
             collector, or open a GC log.",
        ),
        ViewKind::Energy => super::unavailable(
            ui,
            pal,
            "No energy in a trace replayed as recorded",
            "Energy comes from gclab's platform models. Replay the trace as a workload to see its energy under a \
             platform.",
        ),
        ViewKind::Cpu => super::unavailable(
            ui,
            pal,
            "No per-core lanes in a trace",
            "A trace carries no CPU frequency or core placement.",
        ),
        ViewKind::Sweep | ViewKind::TradeOff => super::unavailable(
            ui,
            pal,
            "Sweeps simulate the scenario",
            "A trace as recorded is one program run; close it to sweep the scenario.",
        ),
    }
    let h = ui.available_height();
    map(ui, st, t, pal, map_state, cmds, h);
}
