//! Per-core lanes (SYSTOR'15 Figs. 4 and 7): each core's frequency over time as a coloured lane (grey while
//! offline), collections marked across the lanes, CPU power over time and the time-at-frequency histogram. Drawn
//! from `gclab_core::CpuTimeline`, present on platforms with a CPU model (android-krait); on
//! kvm-soc (one fixed-frequency core) the view says so. The lanes are one texture sampled per pixel column, so
//! a run with millions of frequency changes costs no more than the view's width.

use egui::{ColorImage, TextureOptions};
use egui_plot::{AxisHints, Bar, BarChart, Line, Plot, PlotImage, PlotPoint, VLine};
use gclab_core::CpuTimeline;

use super::{category_marks, heading, legend_row, playhead_and_click, seek_on_click, time_plot};
use crate::gui::analysis::RunView;
use crate::gui::command::Command;
use crate::gui::state::AppState;
use crate::gui::theme::Palette;

/// Texture rows per core (the last is a gap).
const ROWS_PER_CORE: usize = 8;
/// Texture columns: lanes are sampled at this many instants over the run.
const COLUMNS: usize = 2048;

/// Rows of a lane (from its top) that show the frequency; the next two show GC work on that core.
const FREQ_ROWS: usize = 5;

/// The lanes as an image: one row band per core (core 0 on top), `COLUMNS` samples over `[0, duration]`; the
/// lower rows of a lane are painted where GC work (`gc`: core, start, end in ns) ran on that core. Colours span the
/// platform's frequency range `range_khz` (its lowest and highest operating points, as the legend says), widened to
/// any frequency the run used outside it — not the run's own range, which would paint a powersave run at 300 MHz
/// as "highest frequency".
pub fn lanes_image(
    cpu: &CpuTimeline,
    gc: &[(u32, u64, u64)],
    duration_ns: u64,
    range_khz: (u32, u32),
    pal: &Palette,
) -> ColorImage {
    let cores = cpu.transitions.len().max(1);
    let (lo, hi) = cpu
        .spans
        .iter()
        .filter_map(|s| s.freq_khz)
        .fold(range_khz, |(a, b), f| (a.min(f), b.max(f)));
    let mut img = ColorImage::filled([COLUMNS, cores * ROWS_PER_CORE], pal.free_active);
    for core in 0..cores {
        let spans: Vec<_> = cpu
            .spans
            .iter()
            .filter(|s| s.core as usize == core)
            .collect();
        let mut j = 0;
        for c in 0..COLUMNS {
            let t = ((c as f64 + 0.5) / COLUMNS as f64 * duration_ns as f64) as u64;
            while j + 1 < spans.len() && spans[j].end_ns <= t {
                j += 1;
            }
            let col = match spans
                .get(j)
                .filter(|s| s.start_ns <= t && t < s.end_ns.max(s.start_ns + 1))
            {
                Some(s) => match s.freq_khz {
                    Some(f) if hi > lo => pal.freq((f - lo) as f32 / (hi - lo) as f32),
                    Some(_) => pal.freq(1.0),
                    None => pal.free_gated,
                },
                None => pal.free_active,
            };
            for r in 0..ROWS_PER_CORE - 1 {
                img.pixels[(core * ROWS_PER_CORE + r) * COLUMNS + c] = col;
            }
        }
    }
    let col_of = |t: u64| ((t as f64 / duration_ns.max(1) as f64) * COLUMNS as f64) as usize;
    for &(core, a, b) in gc {
        let core = core as usize;
        if core >= cores {
            continue;
        }
        let (c0, c1) = (col_of(a).min(COLUMNS - 1), col_of(b).min(COLUMNS - 1));
        for c in c0..=c1.max(c0) {
            for r in FREQ_ROWS..ROWS_PER_CORE - 1 {
                img.pixels[(core * ROWS_PER_CORE + r) * COLUMNS + c] = pal.gc_work;
            }
        }
    }
    img
}

const LANES_TITLE: &str = "CPU cores: frequency and online";
const LANES_EXPLAIN: &str = "One lane per core: colour from low (light) to high frequency (red), grey while the core \
     is offline (hotplug); the thin strip under each lane is dark where that core ran GC work. The governor raises \
     the frequency when work arrives; hotplug brings cores online.";

/// The lanes plot in `height` points, `width` wide (or a note when the platform has no CPU model). In the
/// overview (`overview`) the legend is a menu and a pinned baseline's lanes are left to the CPU tab: two sets of
/// four lanes under two heap maps left each core a few pixels at 1500×940 (#19).
pub fn lanes(
    ui: &mut egui::Ui,
    st: &AppState,
    pal: &Palette,
    cmds: &mut Vec<Command>,
    [width, height]: [f32; 2],
    (time_axis, overview): (bool, bool),
) {
    let Some(v) = &st.current else { return };
    let start_y = ui.cursor().min.y;
    if v.cpu.is_none() {
        heading(ui, LANES_TITLE, LANES_EXPLAIN);
        ui.label(
            "No CPU model on this platform: kvm-soc has one core at a fixed clock. The android-krait platform \
             (four Krait cores, ondemand governor, hotplug) fills this view.",
        );
        return;
    }
    let items = [
        (
            pal.freq(0.0),
            "lowest frequency",
            "the governor's lowest operating point",
        ),
        (
            pal.freq(1.0),
            "highest frequency",
            "the highest operating point",
        ),
        (pal.free_gated, "offline", "hotplug took the core offline"),
        (
            pal.gc_work,
            "GC work (strip under a lane)",
            "the collector ran on this core",
        ),
        (
            Palette::faded(pal.gc, 160),
            "collection",
            "a collection started",
        ),
    ];
    // Short (the CPU view at 1280×720 and 200 %): the five-chip legend is a menu so the lanes keep their height.
    super::heading_and_legend(
        ui,
        (LANES_TITLE, LANES_EXPLAIN),
        overview || height < 200.0,
        |ui| {
            legend_row(ui, &items);
        },
    );
    let avail = super::plot_height(ui, start_y, height);
    match st.baseline_run().filter(|b| b.cpu.is_some() && !overview) {
        Some(b) => {
            let each = (avail - 40.0) / 2.0;
            ui.label(egui::RichText::new(format!("current: {}", v.label)).small());
            lanes_plot(ui, st, pal, cmds, (v, false), [width, each], time_axis);
            ui.label(
                egui::RichText::new(format!("baseline: {}", b.label))
                    .small()
                    .color(pal.baseline),
            );
            lanes_plot(ui, st, pal, cmds, (b, true), [width, each], time_axis);
        }
        None if overview && st.baseline_run().is_some_and(|b| b.cpu.is_some()) => {
            ui.add(
                egui::Label::new(
                    egui::RichText::new("current run's cores (the baseline's: CPU cores tab)")
                        .small()
                        .weak(),
                )
                .truncate(),
            );
            let avail = super::plot_height(ui, start_y, height);
            lanes_plot(ui, st, pal, cmds, (v, false), [width, avail], time_axis);
        }
        None => lanes_plot(ui, st, pal, cmds, (v, false), [width, avail], time_axis),
    }
}

/// The platform's lowest and highest operating points. `[kHz]`
fn platform_range_khz(v: &RunView) -> (u32, u32) {
    let c = &v.scenario.file().android.cpu;
    ((c.min_freq_mhz * 1e3) as u32, (c.max_freq_mhz * 1e3) as u32)
}

/// One run's lanes in `height` points, `width` wide (texture cached per run and theme in egui's temporary memory).
fn lanes_plot(
    ui: &mut egui::Ui,
    st: &AppState,
    pal: &Palette,
    cmds: &mut Vec<Command>,
    (v, is_baseline): (&RunView, bool),
    [width, height]: [f32; 2],
    time_axis: bool,
) {
    let Some(cpu) = &v.cpu else { return };
    let cores = cpu.transitions.len().max(1);
    let dur_ns = v.run.duration.0;
    let id = egui::Id::unique(("cpu-lanes-texture", is_baseline));
    let key = (v.generation, pal.live.to_array());
    let cached: Option<(u64, [u8; 4], egui::TextureHandle)> = ui.ctx().data(|d| d.get_temp(id));
    let tex = match cached {
        Some((g, c, t)) if (g, c) == key => t,
        _ => {
            let t = ui.ctx().load_texture(
                if is_baseline {
                    "cpu-lanes-b"
                } else {
                    "cpu-lanes"
                },
                lanes_image(cpu, &v.gc_on_cores, dur_ns, platform_range_khz(v), pal),
                TextureOptions::NEAREST,
            );
            ui.ctx()
                .data_mut(|d| d.insert_temp(id, (key.0, key.1, t.clone())));
            t
        }
    };
    let resp = time_plot(
        ui,
        if is_baseline {
            "cpu-lanes-baseline"
        } else {
            "cpu-lanes"
        },
    )
    .width(width)
    .height(height.max(50.0))
    .include_y(-0.5)
    .include_y(cores as f64 - 0.5)
    // Without its own time axis where the power plot under it, on the same linked axis, shows it.
    .show_axes([time_axis, true])
    .allow_zoom([true, false])
    .y_grid_spacer(category_marks(cores))
    .custom_y_axes(vec![
        AxisHints::new_y()
            .label("core")
            .formatter(move |m, _| {
                let i = m.value.round();
                if (m.value - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < cores {
                    format!("cpu{}", cores - 1 - i as usize)
                } else {
                    String::new()
                }
            })
            .label_spacing(4.0..=8.0)
            // Custom axes replace time_plot's: the shared width again, so the lanes line up with the plots around.
            .min_thickness(super::time_y_width(ui)),
    ])
    .show(ui, |p| {
        p.image(
            PlotImage::new(
                "lanes",
                tex.id(),
                PlotPoint::new(v.duration_s / 2.0, cores as f64 / 2.0 - 0.5),
                [v.duration_s as f32, cores as f32],
            )
            .allow_hover(false),
        );
        let step = (v.gc_start_s.len() / 400).max(1);
        for t in v.gc_start_s.iter().step_by(step) {
            p.vline(
                VLine::new("collection", *t)
                    .color(Palette::faded(pal.gc, 90))
                    .allow_hover(false),
            );
        }
        playhead_and_click(p, st, pal)
    });
    super::note_time_plot(
        ui,
        if is_baseline {
            "cpu-lanes-baseline"
        } else {
            "cpu-lanes"
        },
        &resp.transform,
    );
    seek_on_click(resp.inner, cmds);
}

/// The CPU tab: lanes, power over time, time at each frequency.
pub fn ui(ui: &mut egui::Ui, st: &AppState, pal: &Palette, cmds: &mut Vec<Command>) {
    let h = ui.available_height();
    let base = st.baseline_run().filter(|b| b.cpu.is_some());
    let w = ui.available_width();
    // Short (below 320 points: 1280×720 at 200 %) the view shows the lanes over the power, and the histogram of
    // time at each frequency gives way (a line says where it went) instead of pushing them off-screen.
    let short = h < 320.0;
    let lanes_share = match (base.is_some(), short) {
        (true, _) => 0.5,
        (false, true) => 0.45,
        (false, false) => 0.4,
    };
    // Short, the lanes leave the time axis to the power plot under them: one axis, more height for both.
    lanes(ui, st, pal, cmds, [w, h * lanes_share], (!short, false));
    let Some(v) = &st.current else { return };
    let Some(cpu) = &v.cpu else { return };
    let power = |c: &CpuTimeline| -> Vec<[f64; 2]> {
        c.power
            .iter()
            .flat_map(|p| {
                [
                    [p.start_ns as f64 * 1e-9, p.power_mw],
                    [p.end_ns as f64 * 1e-9, p.power_mw],
                ]
            })
            .collect()
    };
    ui.horizontal(|ui| {
        ui.label(egui::RichText::new("CPU power over time").strong());
        // Short, the histogram of time at each frequency gives way; its place is said on this row, not a row of
        // its own.
        if short {
            ui.add(
                egui::Label::new(
                    egui::RichText::new("(time at each frequency: in a taller window)")
                        .weak()
                        .small(),
                )
                .truncate(),
            );
        }
    });
    let pts = power(cpu);
    let base_pts = base.and_then(|b| b.cpu.as_ref()).map(power);
    // A short view (1280×720 at 200 %) gives the histogram under it the room for its axis.
    let power_h = if short {
        ui.available_height() - 4.0
    } else if h < 400.0 {
        h * 0.16
    } else {
        h * 0.22
    };
    let resp = time_plot(ui, "cpu-power")
        .height(power_h.max(40.0))
        .y_axis_label("mW")
        .include_y(0.0)
        .show(ui, |p| {
            if let Some(bp) = base_pts {
                p.line(
                    Line::new("baseline", bp)
                        .color(pal.baseline)
                        .style(egui_plot::LineStyle::dashed_loose()),
                );
            }
            p.line(Line::new("CPU power", pts).color(pal.current));
            playhead_and_click(p, st, pal)
        });
    super::note_time_plot(ui, "cpu-power", &resp.transform);
    seek_on_click(resp.inner, cmds);
    if short {
        return;
    }
    ui.label(egui::RichText::new("Time at each frequency (all cores)").strong());
    // Frequencies in ascending MHz, then offline; the baseline's bars beside the current ones.
    let mut keys: Vec<String> = cpu.time_at_frequency_fraction().into_keys().collect();
    if let Some(bc) = base.and_then(|b| b.cpu.as_ref()) {
        for k in bc.time_at_frequency_fraction().into_keys() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    keys.sort_by(|a, b| {
        let n = |s: &str| s.parse::<f64>().unwrap_or(f64::INFINITY);
        n(a).total_cmp(&n(b))
    });
    let bars_of = |c: &CpuTimeline, offset: f64, colour| -> Vec<Bar> {
        let frac = c.time_at_frequency_fraction();
        keys.iter()
            .enumerate()
            .map(|(i, k)| {
                Bar::new(
                    i as f64 + offset,
                    frac.get(k).copied().unwrap_or(0.0) * 100.0,
                )
                .name(format!("{k} MHz"))
                .width(0.38)
                .fill(colour)
            })
            .collect()
    };
    let cur_bars = bars_of(cpu, if base.is_some() { -0.2 } else { 0.0 }, pal.current);
    let base_bars = base
        .and_then(|b| b.cpu.as_ref())
        .map(|c| bars_of(c, 0.2, pal.baseline));
    let names = keys.clone();
    let freq_h = (ui.available_height() - 10.0).max(60.0);
    // A y label longer than a short plot runs up into the heading above it (1280×720 at 200 %): the unit only.
    let short = freq_h < ui.text_style_height(&egui::TextStyle::Body) * 8.0;
    Plot::new("time-at-freq")
        .height(freq_h)
        .y_grid_spacer(super::ticks::y())
        .custom_y_axes(vec![super::ticks::y_axis(14.0).label(if short {
            "%"
        } else {
            "% of core time"
        })])
        .x_grid_spacer(super::category_marks(names.len()))
        .custom_x_axes(vec![
            AxisHints::new_x()
                .label("MHz")
                .formatter(move |m, _| {
                    let i = m.value.round();
                    if (m.value - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                        names[i as usize].clone()
                    } else {
                        String::new()
                    }
                })
                .label_spacing(10.0..=14.0),
        ])
        .show(ui, |p| {
            p.bar_chart(BarChart::new("current", cur_bars).color(pal.current));
            if let Some(bb) = base_bars {
                p.bar_chart(BarChart::new("baseline", bb).color(pal.baseline));
            }
        });
}

/// The CPU view for a GC log: no per-core lanes, the log's pauses instead.
pub fn of_log(
    ui: &mut egui::Ui,
    st: &AppState,
    log: &crate::gui::log::LogView,
    pal: &Palette,
    cmds: &mut Vec<Command>,
) {
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

/// The CPU view for a recorded trace: it says why there are no lanes (the trace's map follows).
pub fn not_in_a_trace(ui: &mut egui::Ui, pal: &Palette) {
    super::unavailable(
        ui,
        pal,
        "No per-core lanes in a trace",
        "A trace carries no CPU frequency or core placement.",
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gui::theme::Theme;
    use gclab_core::TimelineRecorder;

    /// A powersave run uses one frequency, the lowest: it is painted "lowest frequency", not the top of its own
    /// one-point range.
    #[test]
    fn a_run_at_one_frequency_is_coloured_by_the_platforms_range() {
        let mut r = TimelineRecorder::new(&[Some(300_000)]);
        r.set(0, 500, Some(300_000));
        let tl = r.finish(1000, 1000, &[1.0]);
        let pal = Palette::of(Theme::Light);
        let img = lanes_image(&tl, &[], 1000, (300_000, 2_150_400), &pal);
        assert_eq!(img.pixels[10], pal.freq(0.0), "300 MHz is the lowest");
    }

    #[test]
    fn lanes_show_frequency_and_offline_per_core() {
        let mut r = TimelineRecorder::new(&[Some(300_000), None]);
        r.set(0, 500, Some(2_265_600));
        r.set(1, 500, Some(300_000));
        let tl = r.finish(1000, 1000, &[1.0]);
        let pal = Palette::of(Theme::Light);
        let img = lanes_image(&tl, &[(1, 900, 950)], 1000, (300_000, 2_265_600), &pal);
        let at = |core: usize, c: usize| img.pixels[(core * ROWS_PER_CORE) * COLUMNS + c];
        assert_eq!(
            at(0, 10),
            pal.freq(0.0),
            "core 0 starts at the lowest frequency"
        );
        assert_eq!(
            at(0, COLUMNS - 10),
            pal.freq(1.0),
            "and ends at the highest"
        );
        assert_eq!(at(1, 10), pal.free_gated, "core 1 starts offline");
        let gc_px = img.pixels[(ROWS_PER_CORE + FREQ_ROWS) * COLUMNS + COLUMNS * 92 / 100];
        assert_eq!(gc_px, pal.gc_work, "GC work shows on the core that ran it");
    }
}
