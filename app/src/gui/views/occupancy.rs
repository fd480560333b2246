//! Heap occupancy over time, for whatever is on screen ([`Source`]). A run: live and dead-not-yet-collected
//! bytes as stacked areas, the powered banks' capacity as a step line, bank boundaries dashed; the baseline's
//! live and dead bytes as a grey line. A GC log: heap in use before and after each collection, joined in time,
//! and the capacity the runtime logged. Shares the time axis.

use egui_plot::{FilledArea, HLine, Line, LineStyle, Points};

use super::{heading, legend_row, playhead_and_click, plot_height, seek_on_click, time_plot};
use crate::gui::command::Command;
use crate::gui::log::LogView;
use crate::gui::state::{AppState, Source};
use crate::gui::theme::Palette;

/// Draws the occupancy plot of what is on screen in `height` points; the plot `width` points wide (under the heap
/// map, the map's plot width, so the two time axes line up).
pub fn ui(
    ui: &mut egui::Ui,
    st: &AppState,
    pal: &Palette,
    cmds: &mut Vec<Command>,
    [width, height]: [f32; 2],
) {
    match &st.source {
        Source::Log(log) => of_log(ui, st, log, pal, cmds, height),
        _ => of_run(ui, st, pal, cmds, [width, height]),
    }
}

/// The simulated run's occupancy.
fn of_run(
    ui: &mut egui::Ui,
    st: &AppState,
    pal: &Palette,
    cmds: &mut Vec<Command>,
    [width, height]: [f32; 2],
) {
    let Some(v) = &st.current else { return };
    let start_y = ui.cursor().min.y;
    let mut items = vec![
        (pal.live, "live", "reachable objects"),
        (
            pal.dead,
            "dead, not yet collected",
            "garbage the next collection reclaims",
        ),
        (
            pal.powered,
            "powered bank capacity",
            "bytes in banks that are not gated",
        ),
        (
            pal.guide,
            "bank boundaries (dashed)",
            "each bank can be gated on its own",
        ),
    ];
    if st.baseline_run().is_some() {
        items.push((pal.baseline, "baseline: live + dead", "the pinned run"));
    }
    // Short (the overview at 1280×720 and 150 %): the legend is a menu so the plot keeps its height.
    super::heading_and_legend(
        ui,
        (
            "Heap occupancy",
            "Bytes in the heap over time: live objects, dead objects still waiting for a collection, and the \
             capacity of the banks that are powered (a GC trigger fires when the heap, or a bank, fills up).",
        ),
        height < 200.0,
        |ui| legend_row(ui, &items),
    );
    let run = &v.run;
    let bank_kib = run.geometry.bank_bytes as f64 / 1024.0;
    // Up to the highest powered capacity or occupancy (the heap map shows the whole address range).
    let peak = v
        .powered_line
        .iter()
        .map(|p| p.y)
        .chain(v.occ_used.iter().copied())
        .fold(0.0, f64::max);
    let top_kib = (peak * 1.15).max(bank_kib);
    let resp = time_plot(ui, "occupancy")
        .width(width)
        .height(plot_height(ui, start_y, height))
        .y_axis_label("KiB")
        .include_y(0.0)
        .include_y(top_kib)
        .include_x(0.0)
        .include_x(v.duration_s)
        .show(ui, |p| {
            p.add(
                FilledArea::new(
                    "dead, not yet collected",
                    &v.occ_t,
                    &v.occ_live,
                    &v.occ_used,
                )
                .fill_color(Palette::faded(pal.dead, 200)),
            );
            p.add(
                FilledArea::new("live", &v.occ_t, &v.occ_zero, &v.occ_live)
                    .fill_color(Palette::faded(pal.live, 220)),
            );
            p.line(
                Line::new("powered bank capacity", v.powered_line.as_slice())
                    .color(pal.powered)
                    .width(2.0)
                    .allow_band(false),
            );
            if let Some(b) = st.baseline_run() {
                p.line(
                    Line::new("baseline: live + dead", b.used_line.as_slice())
                        .color(pal.baseline)
                        .style(LineStyle::dashed_loose())
                        .width(1.5),
                );
            }
            // Level of detail: with many banks (android-krait: 96 × 1 MiB) the boundaries would fill the plot.
            let step = (run.geometry.banks / 8).max(1) as usize;
            for i in (step as u32..=run.geometry.banks).step_by(step) {
                p.hline(
                    HLine::new("bank boundary", f64::from(i) * bank_kib)
                        .color(pal.guide)
                        .style(LineStyle::dashed_dense())
                        .allow_hover(false),
                );
            }
            playhead_and_click(p, st, pal)
        });
    super::note_time_plot(ui, "occupancy", &resp.transform);
    seek_on_click(resp.inner, cmds);
}

/// Heap occupancy from the log: before and after each collection, the sawtooth between them, and the capacity.
fn of_log(
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
    let resp = time_plot(ui, "log-heap")
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
            playhead_and_click(p, st, pal)
        });
    seek_on_click(resp.inner, cmds);
}
