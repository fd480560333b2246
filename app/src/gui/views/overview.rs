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
    if full.width() < ONE_COLUMN_BELOW {
        one_column(ui, st, pal, layout_view, cmds, full);
        return;
    }
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
            super::cpu::lanes(ui, st, pal, cmds, [w, ui.available_height()], (true, true));
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

/// Below this width the run's overview is one column. `[points]` Two columns split 330 points (1280×720 at 200 %
/// beside the knob panel) into a 190-point map and a 140-point MinMU plot, neither legible, and their stacked
/// headings pushed the lower plots off-screen (#19 item 5).
pub const ONE_COLUMN_BELOW: f32 = 480.0;

/// The narrow overview: the heap map over its occupancy, the whole width; MinMU, energy and the CPU lanes are left
/// to their tabs, and a line says so.
fn one_column(
    ui: &mut egui::Ui,
    st: &AppState,
    pal: &Palette,
    layout_view: &mut super::layout::LayoutView,
    cmds: &mut Vec<Command>,
    full: Rect,
) {
    region(ui, full, |ui| {
        ui.add(
            egui::Label::new(
                egui::RichText::new("narrow window: MinMU, energy and CPU lanes are on their tabs")
                    .weak()
                    .small(),
            )
            .truncate(),
        );
        let h = ui.available_height();
        let row = ui.text_style_height(&egui::TextStyle::Body);
        // The occupancy under the map: its heading row and a plot with the time axis.
        let under = (row * 1.6 + 70.0).min(h * 0.5);
        let map_h = (h * 0.55).min(h - under);
        // One time axis, under the occupancy: the map above it leaves its own out.
        layout_view.time_axis_below = true;
        layout_view.ui(ui, st, pal, cmds, map_h);
        layout_view.time_axis_below = false;
        let rest = ui.available_height();
        let w = super::layout::map_plot_width(ui.available_width());
        super::occupancy::ui(ui, st, pal, cmds, [w, rest]);
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
    // Narrow (a lesson presenting at 1280×720 and 150 %), two columns cut the log's table and overlapped the
    // legend with the MinMU plot (#19 item 5): one column, the pauses over the occupancy, as for a run.
    if full.width() < ONE_COLUMN_BELOW {
        region(ui, full, |ui| {
            ui.add(
                egui::Label::new(
                    egui::RichText::new(
                        "narrow window: MinMU and the log's summary are on their tabs",
                    )
                    .weak()
                    .small(),
                )
                .truncate(),
            );
            let h = ui.available_height();
            super::pauses::with_occupancy(ui, st, log, pal, cmds, h * 0.55);
        });
        ui.advance_cursor_after_rect(full);
        return;
    }
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
