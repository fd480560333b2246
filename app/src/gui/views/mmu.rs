//! Minimum mutator utilisation, for a run or a GC log alike: the MinMU curve on a log window axis (a run's with the
//! pinned baseline),
//! with the maximum pause (MinMU is 0 up to it), the GC-overhead asymptote (1 − GC share of CPU) and the 50 ms
//! perception line. Clicking on the plot picks a window length; its five worst windows are listed, and clicking
//! one moves the playhead there (Go's `go tool trace` /mmu page).

use egui_plot::{AxisHints, HLine, Line, LineStyle, Plot, Points, VLine};

use super::{decade_marks, heading, legend_row, log_ms_tick, plot_height};
use crate::gui::command::{Command, PlaybackCommand};
use crate::gui::format;
use crate::gui::state::{AppState, Source};
use crate::gui::sweep::VariantCurves;
use crate::gui::theme::Palette;
use gclab_core::PlatformKind;

/// The plot plus the worst-window list.
pub fn ui(
    ui: &mut egui::Ui,
    st: &AppState,
    pal: &Palette,
    variants: &VariantCurves,
    cmds: &mut Vec<Command>,
    list: bool,
) {
    let h = ui.available_height();
    // The plot lists the worst windows itself when it has room.
    plot(ui, st, pal, variants, cmds, if list { h * 0.8 } else { h });
}

fn tick(x: f64) -> String {
    format::window_ms(10f64.powf(x))
}

/// The MinMU plot of what is on screen ([`crate::gui::state::Shown::minmu`]: a run or a GC log) in `height`
/// points, with the worst-window list when there is room. The run also gets its baseline and, on android-krait,
/// the five variants' curves; a log gets the MMU its runtime reported, if any.
pub fn plot(
    ui: &mut egui::Ui,
    st: &AppState,
    pal: &Palette,
    variants: &VariantCurves,
    cmds: &mut Vec<Command>,
    height: f32,
) {
    let Some(shown) = st.shown() else { return };
    let Some(m) = shown.minmu() else { return };
    let run = matches!(st.source, Source::Run);
    // The pinned run or log, whatever is on screen (#19 item 7: a log against a run, or two logs).
    let baseline = st
        .baseline
        .as_ref()
        .and_then(|b| Some((b.shown().name(), b.shown().minmu()?)));
    // Compared, each curve is named: the scenario's label or the log's file name.
    let (cur_name, base_name) = match &baseline {
        Some((name, _)) => (
            format!("current: {}", shown.name()),
            format!("baseline (dashed): {name}"),
        ),
        None => (m.label.to_string(), String::new()),
    };
    let variant_curves = if run { variants.curves.as_slice() } else { &[] };
    let start_y = ui.cursor().min.y;
    ui.horizontal_wrapped(|ui| {
        // A narrow column (the overview at 1280×720 and 150 %) gets the short name: the long one took two rows
        // from a short plot (#19 item 5). The full name is in its hover text and the glossary.
        let name = if ui.available_width() < 330.0 {
            "MinMU"
        } else {
            "Minimum mutator utilisation (MinMU)"
        };
        let title = format!("{name}{}", m.title_suffix);
        heading(
            ui,
            &title,
            "For each window length, the worst share of that window the program got to run (the rest went to \
             GC pauses). Higher and further left is more responsive. Click to list the worst windows of a length; \
             click a window to move the playhead there.",
        );
        if run && st.base.platform() == PlatformKind::AndroidKrait {
            let mut on = !variants.curves.is_empty() || variants.running();
            if ui
                .checkbox(&mut on, "all five variants")
                .on_hover_text("Overlay the MinMU curves of cms, gencms, cmsfly, bg and fg on this scenario (SYSTOR'15 Fig. 9)")
                .changed()
            {
                cmds.push(Command::MmuVariants(on));
            }
            if variants.running() {
                ui.spinner();
            }
        }
    });
    let overhead = format!("for long windows MinMU tends to 1 minus {}", m.gc_share);
    let mut items = vec![
        (pal.current, cur_name.as_str(), "MinMU of what is on screen"),
        (
            pal.gc,
            "max pause",
            "MinMU is 0 for windows up to the longest pause",
        ),
        (
            pal.warn,
            "50 ms",
            "pauses longer than about 50 ms are perceived by users",
        ),
        (pal.powered, "GC overhead asymptote", overhead.as_str()),
        (
            pal.playhead,
            "selected window",
            "click the plot to pick a window length; its worst windows are listed",
        ),
    ];
    if baseline.is_some() {
        items.insert(
            1,
            (pal.baseline, base_name.as_str(), "the pinned run or GC log"),
        );
    }
    if !m.reported.is_empty() {
        items.push((
            pal.baseline,
            "the runtime's own MMU",
            "the MMU table ZGC logged last (it measures its own way)",
        ));
    }
    let names: Vec<String> = variant_curves
        .iter()
        .map(|(k, _)| format!("{} (dotted)", k.name()))
        .collect();
    for ((k, _), n) in variant_curves.iter().zip(&names) {
        items.push((
            pal.variant(*k),
            n.as_str(),
            "this variant on the same scenario",
        ));
    }
    // Short (the overview at 1280×720 and 150 %), or a legend of many rows (a baseline beside android's variants
    // toggle left the overview's curve 40 points at 1500×940): the legend folds away and the note keeps one line
    // (all of it on hover), so the curve keeps at least half the height (#19 item 5).
    let row = ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
    let legend_h = super::legend_rows(ui, &items, ui.available_width()) as f32 * row;
    let note = st
        .current
        .as_ref()
        .filter(|_| run)
        .and_then(|v| format::mmu_note(&v.run.summary));
    let note_h = if note.is_some() { 3.0 * row } else { 0.0 };
    let used = ui.cursor().min.y - start_y;
    let fold = height < 220.0 || used + legend_h + note_h > height * 0.5;
    if fold {
        egui::CollapsingHeader::new("legend")
            .id_salt("mmu-legend")
            .show(ui, |ui| legend_row(ui, &items));
    } else {
        legend_row(ui, &items);
    }
    if let Some(note) = note {
        let label = egui::Label::new(egui::RichText::new(note).weak());
        if fold {
            ui.add(label.truncate());
        } else {
            ui.add(label.wrap());
        }
    }
    let sel = st.mmu_window_ms.max(1e-6).log10();
    let right_x = right_edge(
        m.curve
            .iter()
            .chain(m.reported)
            .chain(baseline.iter().flat_map(|(_, b)| b.curve))
            .chain(variant_curves.iter().flat_map(|(_, c)| c))
            .map(|p| p.x),
    );
    let resp = Plot::new("mmu")
        .height(
            plot_height(ui, start_y, height)
                - if height > 260.0 {
                    worst_list_height(ui, st).max(40.0)
                } else {
                    0.0
                },
        )
        .custom_x_axes(vec![
            AxisHints::new_x()
                .label("window (log scale)")
                .formatter(|m, _| log_ms_tick(m.value))
                .label_spacing(28.0..=28.1),
        ])
        .x_grid_spacer(decade_marks)
        // 0, 0.5, 1 on a short plot, not only 0 and 1 (ticks from the plot's height, #19 item 5).
        .y_grid_spacer(super::ticks::y())
        .custom_y_axes(vec![super::ticks::y_axis(14.0).label("MinMU")])
        .include_y(0.0)
        .include_y(1.0)
        .include_x(right_x)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .label_formatter(|hp| match hp {
            egui_plot::HoverPosition::NearDataPoint { position, .. }
            | egui_plot::HoverPosition::Elsewhere { position } => Some(format!(
                "window {}\nMinMU {}",
                tick(position.x),
                format::percent(position.y)
            )),
        })
        .show(ui, |p| {
            if let Some((_, b)) = &baseline {
                p.line(
                    Line::new(base_name.as_str(), b.curve)
                        .color(pal.baseline)
                        .style(LineStyle::dashed_loose())
                        .width(2.0),
                );
            }
            for (k, curve) in variant_curves {
                p.line(
                    Line::new(
                        format!("{} ({})", k.name(), variants.label),
                        curve.as_slice(),
                    )
                    .color(pal.variant(*k))
                    .style(LineStyle::dotted_dense())
                    .width(2.0),
                );
            }
            p.line(
                Line::new(cur_name.as_str(), m.curve)
                    .color(pal.current)
                    .width(2.5),
            );
            if !m.reported.is_empty() {
                p.points(
                    Points::new("the runtime's own MMU", m.reported)
                        .color(pal.baseline)
                        .radius(4.0),
                );
            }
            if m.max_pause_ms > 0.0 {
                p.vline(
                    VLine::new(
                        format!("max pause {}", format::window_ms(m.max_pause_ms)),
                        m.max_pause_ms.log10(),
                    )
                    .color(pal.gc)
                    .style(LineStyle::dashed_dense()),
                );
            }
            p.vline(
                VLine::new("50 ms: a pause users perceive", 50f64.log10())
                    .color(pal.warn)
                    .width(2.0),
            );
            p.hline(
                HLine::new(
                    format!(
                        "GC overhead asymptote 1 − {}",
                        format::percent(m.gc_fraction)
                    ),
                    1.0 - m.gc_fraction,
                )
                .color(pal.powered)
                .style(LineStyle::dashed_loose()),
            );
            p.vline(
                VLine::new("selected window", sel)
                    .color(pal.playhead)
                    .width(1.0),
            );
            if let Some(w) = st.worst.as_ref().and_then(|w| w.windows.first()) {
                p.points(
                    Points::new("MinMU at the selected window", vec![[sel, w.utilization]])
                        .radius(5.0)
                        .color(pal.playhead),
                );
            }
            p.response()
                .clicked()
                .then(|| p.pointer_coordinate().map(|c| c.x))
                .flatten()
        });
    if let Some(x) = resp.inner {
        cmds.push(Command::SelectMmuWindow(10f64.powf(x)));
    }
    if height > 260.0 {
        worst_list(ui, st, cmds);
    }
}

/// The worst-window list's texts: its lead, then one per window button.
fn worst_texts(w: &crate::gui::state::WorstWindows) -> (String, Vec<String>) {
    let lead = format!("worst {} windows:", format::window_ms(w.window_ms));
    let chips = w
        .windows
        .iter()
        .map(|win| {
            let t = win.start_ns as f64 * 1e-9;
            format!("{} @ {}", format::percent(win.utilization), format::secs(t))
        })
        .collect();
    (lead, chips)
}

/// The height [`worst_list`] takes at this ui's width: its lead and buttons wrapped into rows as
/// `horizontal_wrapped` wraps them. A fixed 40 points left the fifth button of a log's list under the playback bar
/// where a narrow column (1280×720 at 150 % beside a lesson) wraps it into three rows (#19 item 5). `[points]`
fn worst_list_height(ui: &egui::Ui, st: &AppState) -> f32 {
    let Some(w) = &st.worst else { return 0.0 };
    let (lead, chips) = worst_texts(w);
    let font = egui::TextStyle::Body.resolve(ui.style());
    let text_w = |s: String| {
        ui.painter()
            .layout_no_wrap(s, font.clone(), egui::Color32::WHITE)
            .size()
            .x
    };
    let sp = ui.spacing();
    let avail = ui.available_width().max(1.0);
    let widths = std::iter::once(text_w(lead)).chain(
        chips
            .into_iter()
            .map(|c| text_w(c) + 2.0 * sp.button_padding.x),
    );
    let (mut rows, mut x) = (1.0f32, 0.0f32);
    for item_w in widths {
        if x > 0.0 && x + item_w > avail {
            rows += 1.0;
            x = 0.0;
        }
        x += item_w + sp.item_spacing.x;
    }
    let row_h = ui.text_style_height(&egui::TextStyle::Body)
        + 2.0 * sp.button_padding.y
        + sp.item_spacing.y;
    rows * row_h + sp.item_spacing.y
}

/// The worst windows of the selected length, each a button that moves the playhead there.
pub fn worst_list(ui: &mut egui::Ui, st: &AppState, cmds: &mut Vec<Command>) {
    let Some(w) = &st.worst else { return };
    let (lead, chips) = worst_texts(w);
    ui.horizontal_wrapped(|ui| {
        ui.label(lead)
            .on_hover_text("Click one to move the playhead to its start");
        for (win, chip) in w.windows.iter().zip(chips) {
            let t = win.start_ns as f64 * 1e-9;
            if ui.button(chip).clicked() {
                cmds.push(Command::Playback(PlaybackCommand::SeekTo(t)));
            }
        }
    });
}

/// Where the plot's x range must reach `[log10 ms]` so that a decade tick near its right end keeps its whole
/// label. The plot ends 5 % of the span past the rightmost point `xs`; a decade just inside that edge (android/
/// quadrant's 55.6 s run: the "100 s" tick) would have its label cut in half, so the range then runs a fifth of a
/// decade past the tick. Otherwise the rightmost point, which changes nothing (0, i.e. 1 ms, without points).
fn right_edge(xs: impl Iterator<Item = f64>) -> f64 {
    let (lo, hi) = xs
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
    if hi < lo {
        return 0.0;
    }
    let edge = hi + 0.05 * (hi - lo);
    let decade = hi.ceil();
    if decade <= edge && edge - decade < 0.2 {
        decade + 0.2
    } else {
        hi
    }
}

/// The MinMU view for a recorded trace: it says why there is none (the trace's map follows).
pub fn not_in_a_trace(ui: &mut egui::Ui, pal: &Palette) {
    super::unavailable(
        ui,
        pal,
        "No pauses in a trace replayed as recorded",
        "A gclab trace records objects and collections, not how long the program stopped: MinMU needs \
         pauses. Replay the trace as a workload (scenario [workload] trace = …) to simulate pauses under any \
         collector, or open a GC log.",
    );
}

#[cfg(test)]
mod tests {
    use super::right_edge;

    #[test]
    fn a_decade_tick_at_the_right_edge_gets_room_for_its_label() {
        // android/quadrant: 10 µs .. 55.6 s, the plot's edge lands just past the 100 s tick.
        let quadrant = right_edge([-2.0, 4.74].into_iter());
        assert!(
            (quadrant - 5.2).abs() < 1e-9,
            "past the 100 s tick: {quadrant}"
        );
        // A curve ending mid-decade: the edge stays where the curve puts it.
        let mid = right_edge([-2.0, 4.3].into_iter());
        assert!((mid - 4.3).abs() < 1e-9, "unchanged: {mid}");
    }
}
