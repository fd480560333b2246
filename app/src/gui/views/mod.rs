//! The centre: a tab row and the chosen view. Timeline views (heap map, occupancy, CPU lanes) share one linked
//! time axis and cursor and draw the playhead; clicking on any of them moves the playhead there. Each view is a
//! function of `(&AppState, &Palette)` that queues commands; only the heap map keeps a cache (its texture).
//! Views are organised by kind only (#18 item 3): each kind's module draws whatever source is on screen — the run,
//! a GC log, a recorded trace — or says why that source has nothing for it.

pub mod cpu;
pub mod energy;
pub mod fade;
pub mod highlight;
pub mod layout;
pub mod mmu;
pub mod occupancy;
pub mod overview;
pub mod pareto;
pub mod pauses;
pub mod raster;
pub mod summary;
pub mod sweep;
pub mod ticks;
pub mod tradeoff;

use egui::{Id, Rect, UiBuilder};
use egui_plot::{Plot, VLine};

use super::command::{Command, PlaybackCommand};
use super::state::{AppState, Source, ViewKind};
use super::sweep::{SweepState, VariantCurves};
use super::theme::Palette;

/// The id of the shared time axis.
pub fn time_link() -> Id {
    Id::unique("gclab-time-axis")
}

/// A time plot: linked x axis and cursor, seconds on x, and the y-axis width every time plot shares
/// ([`time_y_width`]), so plots stacked in one column put each instant at the same x (#19 item 5).
pub fn time_plot(ui: &egui::Ui, id: &str) -> Plot<'static> {
    Plot::new(id)
        .link_axis(time_link(), [true, false])
        .link_cursor(time_link(), [true, false])
        .custom_x_axes(vec![ticks::x_axis().label("time [s]")])
        .custom_y_axes(vec![ticks::y_axis(time_y_width(ui))])
        .allow_scroll([true, false])
        // No margin in time: every time plot spans exactly the run, as the heap map does, so stacked plots show
        // the same range at the same x (egui_plot's 5 % margin put the occupancy's 0 s right of the map's).
        .set_margin_fraction(egui::vec2(0.0, 0.05))
        // Ticks spaced from the plot's size in points: a short occupancy or power plot still labels 0, 2, 4.
        .x_grid_spacer(ticks::x())
        .y_grid_spacer(ticks::y())
}

/// The y-axis width of a time plot: five digits of tick label and the axis title beside them, in this ui's font.
/// One width for all: egui_plot sizes each axis to its own labels ("cpu3" vs "2000" mW), which shifted the CPU
/// power plot against the lanes above it. A label wider than five digits still widens its own plot. `[points]`
pub fn time_y_width(ui: &egui::Ui) -> f32 {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let digits = ui
        .painter()
        .layout_no_wrap("00000".into(), font, egui::Color32::WHITE)
        .size()
        .x;
    // egui_plot: tick labels, then the axis title rotated beside them, one row height and a 25 % gap.
    digits + ui.text_style_height(&egui::TextStyle::Body) * 1.25 + 4.0
}

/// Remembers where the time plot `id` drew its data this frame (its frame, axes excluded) and the time range `[s]`
/// it showed there: an instant's x is then comparable between plots stacked in one column (tests read it with
/// [`time_plot_frame`]).
pub fn note_time_plot(ui: &egui::Ui, id: &str, t: &egui_plot::PlotTransform) {
    let shown = (*t.frame(), [t.bounds().min()[0], t.bounds().max()[0]]);
    ui.ctx()
        .data_mut(|d| d.insert_temp(Id::unique(("time-plot-frame", id)), shown));
}

/// Where the time plot `id` drew its data last and the time range it showed ([`note_time_plot`]).
#[cfg(test)]
pub fn time_plot_frame(ctx: &egui::Context, id: &str) -> Option<(Rect, [f64; 2])> {
    ctx.data(|d| d.get_temp(Id::unique(("time-plot-frame", id))))
}

/// The playhead line.
pub fn playhead(st: &AppState, pal: &Palette) -> VLine {
    VLine::new("playhead", st.playback.playhead)
        .color(pal.playhead)
        .width(2.0)
        .allow_hover(false)
}

/// Draws the playhead and the lesson step's time marks on a time plot (zoomed once to the step's range) and returns
/// the time where the plot was clicked (not dragged), for [`seek_on_click`].
pub fn playhead_and_click(
    p: &mut egui_plot::PlotUi<'_>,
    st: &AppState,
    pal: &Palette,
) -> Option<f64> {
    highlight::zoom_once(p, st);
    highlight::time(p, st, pal);
    p.vline(playhead(st, pal));
    p.response()
        .clicked()
        .then(|| p.pointer_coordinate().map(|c| c.x))
        .flatten()
}

/// The line at the heap's top (the address axis in KiB), on a run's and a trace's heap maps alike.
pub fn heap_top(heap_kib: f64, pal: &Palette) -> egui_plot::HLine {
    egui_plot::HLine::new("heap top", heap_kib)
        .color(pal.guide)
        .width(1.5)
        .allow_hover(false)
}

/// Queues a seek when a time plot was clicked (not dragged) at `t`.
pub fn seek_on_click(clicked_at: Option<f64>, cmds: &mut Vec<Command>) {
    if let Some(t) = clicked_at {
        cmds.push(Command::Playback(PlaybackCommand::SeekTo(t)));
    }
}

/// Runs `f` in a child ui confined to `rect`.
pub fn region<R>(ui: &mut egui::Ui, rect: Rect, f: impl FnOnce(&mut egui::Ui) -> R) -> R {
    ui.scope_builder(UiBuilder::new().max_rect(rect), f).inner
}

/// A view heading with a one-sentence explanation on hover.
pub fn heading(ui: &mut egui::Ui, title: &str, explain: &str) {
    heading_with(ui, title, explain, |_| {});
}

/// A view heading, then `extra` on the same row (wrapping after it where the row is full).
pub fn heading_with(
    ui: &mut egui::Ui,
    title: &str,
    explain: &str,
    extra: impl FnOnce(&mut egui::Ui),
) {
    // Wrapped, not one line: a title wider than its column (the overview's at 200 %) widened the column's ui, and
    // every plot and legend under it ran off the window.
    ui.horizontal_wrapped(|ui| {
        let explain = crate::gui::glossary::with_entry(title, explain);
        ui.add(egui::Label::new(egui::RichText::new(title).strong().size(16.0)).wrap())
            .on_hover_text(&explain);
        ui.weak("(?)").on_hover_text(&explain);
        extra(ui);
    });
}

/// A view's heading over its legend row; where the view is `small`, the legend is a "legend" menu on the heading's
/// row instead, so the plot keeps the legend's rows (a folded legend still took a row of its own, #19 item 5).
pub fn heading_and_legend(
    ui: &mut egui::Ui,
    (title, explain): (&str, &str),
    small: bool,
    legend: impl FnOnce(&mut egui::Ui),
) {
    if small {
        heading_with(ui, title, explain, |ui| {
            ui.menu_button("legend", legend);
        });
    } else {
        heading(ui, title, explain);
        legend(ui);
    }
}

/// The plot height left of a view's `height` once its heading and legend (drawn since `start_y`) are placed.
pub fn plot_height(ui: &egui::Ui, start_y: f32, height: f32) -> f32 {
    (height - (ui.cursor().min.y - start_y) - 6.0).max(60.0)
}

/// Axis text for a log10 value of milliseconds: only at decades, in the unit that keeps the number small (`10 ns`,
/// `10 µs`, `1 ms`, `1 s`, `10 000 s`); past 10^5 s in powers of ten of seconds (`1e6 s`).
pub fn log_ms_tick(x: f64) -> String {
    if (x - x.round()).abs() > 1e-6 {
        return String::new();
    }
    let e = x.round() as i32;
    let (unit, exp) = match e {
        -6..=-4 => ("ns", e + 6),
        -3..=-1 => ("µs", e + 3),
        0..=2 => ("ms", e),
        3..=8 => ("s", e - 3),
        _ => return format!("1e{} s", e - 3),
    };
    // Thousands grouped with a space from five digits on (1000 s, 10 000 s), as SI writes numbers.
    let digits = format!("1{}", "0".repeat(exp as usize));
    if digits.len() <= 4 {
        return format!("{digits} {unit}");
    }
    let grouped = digits
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|c| std::str::from_utf8(c).unwrap_or_default())
        .collect::<Vec<_>>()
        .join(" ");
    format!("{grouped} {unit}")
}

/// A series drawn as a line through its points, both under one legend name (sweep plots: every point a run).
pub fn marked_line(
    p: &mut egui_plot::PlotUi<'_>,
    name: &str,
    pts: Vec<[f64; 2]>,
    color: egui::Color32,
    (width, radius): (f32, f32),
    style: egui_plot::LineStyle,
) {
    p.line(
        egui_plot::Line::new(name, pts.clone())
            .color(color)
            .width(width)
            .style(style),
    );
    p.points(
        egui_plot::Points::new(name, pts)
            .radius(radius)
            .color(color),
    );
}

/// Grid marks at every decade of a log10 axis, with 2× and 5× minor marks.
#[allow(clippy::needless_pass_by_value)] // the signature egui_plot asks of a grid spacer
pub fn decade_marks(input: egui_plot::GridInput) -> Vec<egui_plot::GridMark> {
    let (lo, hi) = input.bounds;
    let mut out = Vec::new();
    let (a, b) = (lo.floor() as i32, hi.ceil() as i32);
    for e in a..=b.min(a + 40) {
        let d = f64::from(e);
        out.push(egui_plot::GridMark {
            value: d,
            step_size: 1.0,
        });
        for m in [2f64, 5.0] {
            out.push(egui_plot::GridMark {
                value: d + m.log10(),
                step_size: 0.1,
            });
        }
    }
    out.retain(|m| m.value >= lo && m.value <= hi);
    out
}

/// Grid marks at the given integer positions only (category axes: bars, cores).
pub fn category_marks(n: usize) -> impl Fn(egui_plot::GridInput) -> Vec<egui_plot::GridMark> {
    move |_| {
        (0..n)
            .map(|i| egui_plot::GridMark {
                value: i as f64,
                step_size: 1.0,
            })
            .collect()
    }
}

/// A legend row (colour, name, one-sentence explanation on hover), drawn above a plot so it never hides data.
pub fn legend_row(ui: &mut egui::Ui, items: &[(egui::Color32, &str, &str)]) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        for (c, name, tip) in items {
            // Chip and text are one widget, so a line wrap never separates them.
            let color = ui.visuals().text_color();
            let galley = ui.painter().layout_no_wrap(
                (*name).to_string(),
                egui::TextStyle::Body.resolve(ui.style()),
                color,
            );
            let gap = 4.0;
            let size = egui::vec2(14.0 + gap + galley.size().x, galley.size().y.max(14.0));
            let (rect, resp) = ui.allocate_exact_size(size, egui::Sense::hover());
            let chip = Rect::from_center_size(
                egui::pos2(rect.min.x + 7.0, rect.center().y),
                egui::vec2(14.0, 14.0),
            );
            ui.painter().rect_filled(chip, 2.0, *c);
            // Outlined in the text colour: a chip the colour of the background still shows.
            ui.painter().rect_stroke(
                chip,
                2.0,
                egui::Stroke::new(1.5, color),
                egui::StrokeKind::Inside,
            );
            ui.painter().galley(
                egui::pos2(chip.max.x + gap, rect.center().y - galley.size().y / 2.0),
                galley,
                color,
            );
            resp.widget_info(|| {
                egui::WidgetInfo::labeled(egui::accesskit::Role::Label, true, *name)
            });
            resp.on_hover_text(crate::gui::glossary::with_entry(name, tip));
            ui.add_space(8.0);
        }
    });
}

/// How many rows [`legend_row`] takes for `items` in `width` points (the same chip, gap and spacing), so a view
/// can fold a legend that would leave its plot too short before drawing it.
pub fn legend_rows(ui: &egui::Ui, items: &[(egui::Color32, &str, &str)], width: f32) -> usize {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let (mut rows, mut x) = (1, 0.0f32);
    for (_, name, _) in items {
        let w = ui
            .painter()
            .layout_no_wrap((*name).to_string(), font.clone(), egui::Color32::WHITE)
            .size()
            .x
            + 14.0
            + 4.0
            + 8.0
            + 4.0;
        if x > 0.0 && x + w > width {
            rows += 1;
            x = 0.0;
        }
        x += w;
    }
    rows
}

/// A framed note saying what the source on screen cannot show in this view, and why.
pub fn unavailable(ui: &mut egui::Ui, pal: &Palette, title: &str, text: &str) {
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

/// Draws `f` in the rest of the view, or, where that is shorter than `need` points, in `need` points inside a
/// vertical scroll area: a view that cannot fit scrolls rather than cutting its lower plots (#19 item 5).
pub fn at_least(ui: &mut egui::Ui, id: &str, need: f32, f: impl FnOnce(&mut egui::Ui)) {
    let scrolls = ui.available_height() < need;
    ui.ctx()
        .data_mut(|d| d.insert_temp(Id::unique(("view-scrolls", id)), scrolls));
    if !scrolls {
        f(ui);
        return;
    }
    egui::ScrollArea::vertical().id_salt(id).show(ui, |ui| {
        let w = ui.available_width();
        ui.allocate_ui(egui::vec2(w, need), f);
    });
}

/// Whether the view drawn last through [`at_least`] as `id` had to scroll (None: not drawn that way).
#[cfg(test)]
pub fn scrolled(ctx: &egui::Context, id: &str) -> Option<bool> {
    ctx.data(|d| d.get_temp(Id::unique(("view-scrolls", id))))
}

/// Draws the tab row and the chosen view.
#[allow(clippy::too_many_arguments)] // every view's state, borrowed apart from the app so views stay functions
pub fn ui(
    ui: &mut egui::Ui,
    st: &AppState,
    pal: &Palette,
    layout_view: &mut layout::LayoutView,
    sweep: &SweepState,
    tradeoff_sweep: &SweepState,
    variants: &VariantCurves,
    tabs: bool,
    cmds: &mut Vec<Command>,
) {
    let mut view = st.settings.view;
    ui.horizontal_wrapped(|ui| {
        // Presenting, the lesson picks the view: no tab row, the figure keeps the height.
        if tabs {
            for v in ViewKind::ALL {
                ui.selectable_value(&mut view, v, v.title());
            }
        }
        if st.computing {
            ui.separator();
            ui.spinner();
            ui.label("computing… (showing the last run)");
        }
        // A figure shows the view, not the app's controls (#19 item 6).
        let opened = st
            .log()
            .map(|l| format!("GC log: {}", l.name))
            .or_else(|| st.trace().map(|t| format!("trace: {}", t.name)))
            .filter(|_| !st.figure_mode);
        if let Some(name) = opened {
            ui.separator();
            ui.label(egui::RichText::new(name).strong());
            if ui
                .button("Close file")
                .on_hover_text("Back to the simulated run (any knob does the same)")
                .clicked()
            {
                cmds.push(Command::CloseLog);
            }
            if let Some(t) = st.trace()
                && ui
                    .button("Re-simulate as a workload")
                    .on_hover_text(
                        "Run this recording's objects (sizes, lifetimes, order) under any collector and heap: \
                         a kvm-soc scenario whose workload is this trace",
                    )
                    .clicked()
            {
                cmds.push(Command::ResimulateTrace(t.path.clone()));
            }
        }
        if let Some(b) = &st.baseline {
            ui.separator();
            ui.add(
                egui::Label::new(
                    egui::RichText::new(format!("baseline: {}", b.shown().name()))
                        .color(pal.baseline),
                )
                .truncate(),
            );
        }
    });
    if view != st.settings.view {
        cmds.push(Command::SetView(view));
    }
    if tabs {
        ui.separator();
    }
    if view == ViewKind::Pareto {
        pareto::ui(ui, &st.pareto, pal, cmds);
        return;
    }
    if matches!(st.source, Source::Run)
        && st.current.is_none()
        && !matches!(view, ViewKind::Sweep | ViewKind::TradeOff)
    {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("computing the first run…");
        });
        return;
    }
    // Views by kind: each draws the source on screen — the run, a GC log (the same places where a log has them,
    // a note where it has none) or a recorded trace (a note, then the trace's heap map below).
    let source = &st.source;
    match view {
        ViewKind::Overview => match source {
            Source::Run => {
                // Narrow and short (1280×720 at 200 % beside the knob panel: 320 × 230 points) the headings wrap
                // and the lower plots were cut: the overview keeps the height it needs and scrolls (#19 item 5).
                // Narrow (below 480 points) the overview is one column, the map over its occupancy, so it fits
                // 1280×720 at 200 % beside the knob panel (about 330 × 230 points) without scrolling.
                let need = if ui.available_width() < overview::ONE_COLUMN_BELOW {
                    180.0
                } else {
                    250.0
                };
                at_least(ui, "overview-scroll", need, |ui| {
                    overview::of_run(ui, st, pal, layout_view, variants, cmds);
                });
            }
            Source::Log(l) => overview::of_log(ui, st, l, pal, variants, cmds),
            Source::Trace(_) => {}
        },
        ViewKind::Layout => match source {
            Source::Run => {
                let h = ui.available_height();
                layout_view.ui(ui, st, pal, cmds, h);
            }
            Source::Log(l) => layout::of_log(ui, st, l, pal, cmds),
            Source::Trace(_) => {}
        },
        ViewKind::Mmu => match source {
            Source::Run => mmu::ui(ui, st, pal, variants, cmds, true),
            Source::Log(_) => {
                let h = ui.available_height();
                mmu::plot(ui, st, pal, variants, cmds, h);
            }
            Source::Trace(_) => mmu::not_in_a_trace(ui, pal),
        },
        ViewKind::Energy => match source {
            Source::Run => energy::of_run(ui, st, pal, cmds),
            Source::Log(l) => energy::of_log(ui, l, pal),
            Source::Trace(_) => energy::not_in_a_trace(ui, pal),
        },
        ViewKind::Cpu => match source {
            // Lanes, power and the histogram each need their axis; a short view drops the histogram (cpu::ui)
            // and scrolls only below 150 points.
            Source::Run => at_least(ui, "cpu-scroll", 150.0, |ui| cpu::ui(ui, st, pal, cmds)),
            Source::Log(l) => cpu::of_log(ui, st, l, pal, cmds),
            Source::Trace(_) => cpu::not_in_a_trace(ui, pal),
        },
        ViewKind::Sweep => match source {
            Source::Run => sweep::ui(ui, sweep, pal),
            _ => sweep::not_for(ui, source, pal),
        },
        ViewKind::TradeOff => match source {
            Source::Run => tradeoff::ui(ui, st, tradeoff_sweep, pal, cmds),
            _ => sweep::not_for(ui, source, pal),
        },
        ViewKind::Pareto => pareto::ui(ui, &st.pareto, pal, cmds),
    }
    // A recorded trace's heap map, under every view's note.
    if let Source::Trace(t) = source {
        let h = ui.available_height();
        layout::trace::map(ui, st, t, pal, &mut layout_view.trace, cmds, h);
    }
}

#[cfg(test)]
mod log_ms_tick_tests {
    use super::log_ms_tick;

    #[test]
    fn window_ticks_read_in_the_unit_that_keeps_the_number_small() {
        let ticks: Vec<String> = (-7..=10).map(|e| log_ms_tick(f64::from(e))).collect();
        assert_eq!(
            ticks,
            [
                "1e-10 s",
                "1 ns",
                "10 ns",
                "100 ns",
                "1 µs",
                "10 µs",
                "100 µs",
                "1 ms",
                "10 ms",
                "100 ms",
                "1 s",
                "10 s",
                "100 s",
                "1000 s",
                "10 000 s",
                "100 000 s",
                "1e6 s",
                "1e7 s"
            ]
        );
        assert_eq!(log_ms_tick(0.5), "", "only decades are labelled");
    }
}
