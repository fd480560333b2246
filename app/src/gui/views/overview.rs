//! The overview: the views of one kind side by side on one time axis, in the same places for every source — left
//! the map of the heap (a run's heap map, a log's pause timeline) over its occupancy (and a run's CPU lanes),
//! right the MinMU curve over the energy breakdown (a run) or the log's summary (a log).

use egui::Rect;

use super::region;
use crate::gui::command::Command;
use crate::gui::log::LogView;
use crate::gui::state::AppState;
use crate::gui::sweep::VariantCurves;
use crate::gui::theme::Palette;

/// The simulated run's overview: heap map, occupancy and (with cores) CPU lanes left; MinMU and energy right.
pub fn of_run(
    ui: &mut egui::Ui,
    st: &AppState,
    pal: &Palette,
    layout_view: &mut super::layout::LayoutView,
    variants: &VariantCurves,
    cmds: &mut Vec<Command>,
) {
    let full = ui.available_rect_before_wrap();
    let gap = 8.0;
    let left_w = (full.width() * 0.57).floor();
    let left = Rect::from_min_size(full.min, egui::vec2(left_w - gap, full.height()));
    let right = Rect::from_min_max(egui::pos2(full.min.x + left_w, full.min.y), full.max);
    let has_cpu = st.current.as_ref().is_some_and(|v| v.cpu.is_some());
    region(ui, left, |ui| {
        let h = left.height();
        // A run without a per-object layout (android-krait) gets a short map and tall CPU lanes.
        let no_layout = st
            .current
            .as_ref()
            .is_some_and(|v| v.run.layout.objects.is_empty());
        let map_h = match (has_cpu, no_layout) {
            (true, true) => h * 0.3,
            (true, false) => h * 0.45,
            _ => h * 0.6,
        };
        // What the plots under the map need at least: each a heading, a folded legend and a 60-point plot. A short
        // column (1280×720 at 200 %) takes it from the map instead of cutting the occupancy's heading (#19 item 5).
        let row = ui.text_style_height(&egui::TextStyle::Body);
        let under = (row * 2.8 + 66.0) * if has_cpu { 2.0 } else { 1.0 };
        let map_h = map_h.min(h - under).max(row * 2.8 + 80.0);
        layout_view.ui(ui, st, pal, cmds, map_h);
        let rest = ui.available_height();
        // The time plots under the map are as wide as the map's plot: one x for each instant (#19 item 5).
        let w = super::layout::map_plot_width(ui.available_width());
        if has_cpu {
            super::occupancy::ui(ui, st, pal, cmds, [w, rest * 0.42]);
            super::cpu::lanes(ui, st, pal, cmds, [w, ui.available_height()]);
        } else {
            super::occupancy::ui(ui, st, pal, cmds, [w, rest]);
        }
    });
    region(ui, right, |ui| {
        let h = right.height();
        // A short column (1280×720 at 150 %) gives the plots more of it: the table scrolls (#19 item 5).
        let (mmu, energy) = if h < 450.0 { (0.45, 0.33) } else { (0.4, 0.25) };
        super::mmu::plot(ui, st, pal, variants, cmds, h * mmu);
        super::energy::bars(ui, st, pal, h * energy, cmds);
        egui::ScrollArea::vertical()
            .id_salt("overview-table")
            .show(ui, |ui| super::energy::table(ui, st, pal));
    });
    ui.advance_cursor_after_rect(full);
}

/// A GC log's overview: pause timeline and occupancy left; MinMU and the log's summary right.
pub fn of_log(
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
        super::pauses::with_occupancy(ui, st, log, pal, cmds, left.height() * 0.5);
    });
    region(ui, right, |ui| {
        super::mmu::plot(ui, st, pal, variants, cmds, right.height() * 0.55);
        ui.separator();
        egui::ScrollArea::vertical()
            .id_salt("log-summary")
            .show(ui, |ui| super::summary::of_log(ui, log));
    });
    ui.advance_cursor_after_rect(full);
}
