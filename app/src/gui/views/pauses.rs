//! The pause timeline of a GC log ([`crate::gui::log::LogView`]), where a run has its heap map: each
//! stop-the-world pause a bar at its start as high as it lasted, coloured by the kind the runtime logged, the
//! concurrent phases as a band beneath, a 50 ms line when pauses come near it. Shares the time axis and playhead.
//! A pinned baseline (a run or another log, #19 item 7) draws its pauses behind, in the baseline's grey.

use egui_plot::{Bar, BarChart, HLine, LineStyle, PlotPoints, Polygon};

use super::{heading, legend_row, playhead_and_click, plot_height, seek_on_click, time_plot};
use crate::gui::command::Command;
use crate::gui::log::LogView;
use crate::gui::state::AppState;
use crate::gui::theme::Palette;

/// A log's pause timeline in `pause_height` points with its heap occupancy below in the rest: the pair the overview
/// and the layout view show for a GC log, on one time axis.
pub fn with_occupancy(
    ui: &mut egui::Ui,
    st: &AppState,
    log: &LogView,
    pal: &Palette,
    cmds: &mut Vec<Command>,
    pause_height: f32,
) {
    self::ui(ui, st, log, pal, cmds, pause_height);
    super::occupancy::ui(
        ui,
        st,
        pal,
        cmds,
        [ui.available_width(), ui.available_height()],
    );
}

/// The pause timeline: each pause a bar as high as it was long, coloured by kind.
pub fn ui(
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
    // The pinned run's or log's pauses, named after it.
    let base = st.baseline.as_ref().and_then(|b| {
        Some((
            format!("baseline: {}", b.shown().name()),
            b.shown().pauses()?,
        ))
    });
    if let Some((name, _)) = &base {
        items.push((
            pal.baseline,
            name.as_str(),
            "the pinned run's or log's pauses, drawn behind this log's",
        ));
    }
    items.push((pal.playhead, "playhead", "the instant marked in every view"));
    // A G1 log has six pause kinds: their legend took eight rows and left the timeline a 30-point sliver at
    // 1280×720 and 150 % (#19 item 5). A legend that would leave the timeline less than 60 % of its height folds away.
    let row = ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
    let legend_h = super::legend_rows(ui, &items, ui.available_width()) as f32 * row;
    if ui.cursor().min.y - start_y + legend_h > height * 0.4 {
        egui::CollapsingHeader::new("legend")
            .id_salt("pause-legend")
            .show(ui, |ui| legend_row(ui, &items));
    } else {
        legend_row(ui, &items);
    }
    // About 2 px wide at the full span, so a short pause is still seen.
    let bar_w = (log.duration_s / 600.0).max(1e-9);
    let band_ms = if log.concurrent_s.is_empty() {
        0.0
    } else {
        log.max_pause_ms.max(1e-3) * 0.08
    };
    let (base_max_ms, base_end_s) = base.as_ref().map_or((0.0, 0.0), |(_, ps)| {
        ps.iter().fold((0.0, 0.0), |(m, e): (f64, f64), p| {
            (m.max(p[1]), e.max(p[0]))
        })
    });
    let resp = time_plot(ui, "log-pauses")
        .height(plot_height(ui, start_y, height))
        .y_axis_label("pause [ms]")
        .include_x(0.0)
        .include_x(log.duration_s)
        .include_y(0.0)
        .include_y(log.max_pause_ms.max(base_max_ms) * 1.1)
        .include_x(base_end_s)
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
            if let Some((name, ps)) = &base {
                let bars: Vec<Bar> = ps
                    .iter()
                    .map(|&[t, ms]| {
                        Bar::new(t + bar_w, ms)
                            .width(bar_w * 2.0)
                            .fill(Palette::faded(pal.baseline, 150))
                    })
                    .collect();
                p.bar_chart(
                    BarChart::new(name.clone(), bars)
                        .color(pal.baseline)
                        .allow_hover(false),
                );
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
            playhead_and_click(p, st, pal)
        });
    super::note_time_plot(ui, "log-pauses", &resp.transform);
    seek_on_click(resp.inner, cmds);
}
