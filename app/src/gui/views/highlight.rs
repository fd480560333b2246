//! Draws what a lesson step points at ([`crate::gui::marks`]) on the plots that show it: a time span shaded and a
//! collection outlined on every time plot (heap map, occupancy, CPU lanes and power, a log's pauses and heap, a
//! recorded trace's map), an address band shaded on the heap maps (a run's and a trace's) and a bank's row outlined
//! on the run's heap map and beside it in the heap at the playhead ([`banks`]); and zooms each time plot once to the step's time
//! range. Drawn as egui_plot spans: they never change a plot's auto-bounds, and their borders and labels keep
//! their pixel size, so they stay legible at a projector's zoom.

use egui::{Color32, Id, Stroke};
use egui_plot::{Axis, LineStyle, PlotUi, Span};

use crate::gui::marks::Mark;
use crate::gui::state::{AppState, Source};
use crate::gui::theme::Palette;

/// Border width of a highlight. `[points]`
const BORDER: f32 = 3.0;

/// The collections on screen, in time order: `(start, end)`. `[s]` A GC log's pauses start its collections (the
/// log gives their starts; a zero-length span is drawn as its border); a recorded trace's are its own.
pub fn collections_s(st: &AppState) -> Vec<[f64; 2]> {
    match &st.source {
        Source::Log(l) => l.pause_start_s.iter().map(|&t| [t, t]).collect(),
        Source::Trace(t) => t
            .collections
            .iter()
            .map(|&(a, b)| [t.secs(a), t.secs(b)])
            .collect(),
        Source::Run => st
            .current
            .as_ref()
            .map(|v| {
                v.run
                    .gc_events
                    .iter()
                    .map(|g| [g.start.0 as f64 * 1e-9, g.end.0 as f64 * 1e-9])
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// The span drawing `m`; `unnamed` leaves its label out.
fn span(m: &Mark, pal: &Palette, unnamed: bool) -> Span {
    let (axis, range, label, fill, border) = match m {
        Mark::TimeSpan { range_s, label } => (Axis::X, range_s, label, 60, pal.warn),
        Mark::Collection { range_s, label } => (Axis::X, range_s, label, 90, pal.gc),
        Mark::AddressBand { range_kib, label } => (Axis::Y, range_kib, label, 60, pal.warn),
        Mark::BankRow { range_kib, label } => (Axis::Y, range_kib, label, 0, pal.text),
    };
    let fill = if fill == 0 {
        Color32::TRANSPARENT
    } else {
        Palette::faded(border, fill)
    };
    Span::new(
        if unnamed {
            String::new()
        } else {
            label.clone()
        },
        range[0]..=range[1],
    )
    .axis(axis)
    .fill(fill)
    .border(Stroke::new(BORDER, border))
    .border_style(if matches!(m, Mark::BankRow { .. }) {
        LineStyle::dashed_loose()
    } else {
        LineStyle::Solid
    })
}

/// Draws `m` on the plot and records it in this frame's [`drawn`].
fn draw(p: &mut PlotUi<'_>, m: Mark, pal: &Palette) {
    // An address band's label runs up the band; one too short for it read a lone "b" on the map: no label
    // then (the heap at the playhead names the bank beside it).
    let short = match &m {
        Mark::AddressBand { range_kib, label } | Mark::BankRow { range_kib, label } => {
            let pts = (p.transform().dpos_dvalue_y() * (range_kib[1] - range_kib[0])).abs();
            pts < 10.0 * label.chars().count() as f64 + 12.0
        }
        _ => false,
    };
    let sp = span(&m, pal, short);
    p.span(sp);
    let pass = p.ctx().cumulative_pass_nr();
    p.ctx().data_mut(|d| {
        let rec = d.get_temp_mut_or_default::<(u64, Vec<Mark>)>(drawn_id());
        if rec.0 != pass {
            *rec = (pass, Vec::new());
        }
        rec.1.push(m);
    });
}

fn drawn_id() -> Id {
    Id::unique("lesson-marks-drawn")
}

/// The marks the plots drew in the last frame that drew any (tests read what is on screen).
#[cfg(test)]
pub fn drawn(ctx: &egui::Context) -> Vec<Mark> {
    ctx.data(|d| d.get_temp::<(u64, Vec<Mark>)>(drawn_id()))
        .map(|(_, m)| m)
        .unwrap_or_default()
}

/// Draws the step's time spans and collections on a time plot.
pub fn time(p: &mut PlotUi<'_>, st: &AppState, pal: &Palette) {
    if st.lesson_marks.highlights.is_empty() {
        return;
    }
    for m in st.lesson_marks.time_marks(&collections_s(st)) {
        draw(p, m, pal);
    }
}

/// Draws the step's address bands and bank rows on a heap map of `banks` banks of `bank_kib` KiB, and its time
/// marks.
pub fn heap(p: &mut PlotUi<'_>, st: &AppState, pal: &Palette, bank_kib: f64, banks: u32) {
    time(p, st, pal);
    for m in st.lesson_marks.address_marks(bank_kib, banks) {
        draw(p, m, pal);
    }
}

/// The banks the step highlights, among `banks` (the heap at the playhead outlines their rows).
pub fn banks(st: &AppState, banks: u32) -> Vec<u32> {
    st.lesson_marks
        .highlights
        .iter()
        .filter_map(|h| match *h {
            gclab_core::lesson::Highlight::Bank { bank } if bank < banks => Some(bank),
            _ => None,
        })
        .collect()
}

/// Zooms this plot's time axis to the step's time range the first time the plot is drawn for that step (after
/// that the class may zoom and pan); a step without a range resets the axis to the whole run once. Returns the
/// range set this frame. `[s]`
pub fn zoom_once(p: &mut PlotUi<'_>, st: &AppState) -> Option<[f64; 2]> {
    let token = st.lesson_marks.step_token;
    if token == 0 {
        return None;
    }
    let key = Id::unique("lesson-zoom").with(p.response().id);
    let ctx = p.ctx().clone();
    if ctx.data(|d| d.get_temp::<u64>(key)) == Some(token) {
        return None;
    }
    ctx.data_mut(|d| d.insert_temp(key, token));
    match st.lesson_marks.time_range_s {
        Some(r) => {
            p.set_plot_bounds_x(r[0]..=r[1]);
            Some(r)
        }
        None => {
            p.set_auto_bounds(true);
            None
        }
    }
}
