//! Energy: stacked bars split as the adaptive-GC paper's Fig. 5 on kvm-soc (CPU; heap leakage in active, waking and
//! gated banks; heap dynamic; ROM; stack) or by what the cores did on android-krait (collecting, the program, other
//! threads, idle, offline, uncore), the current run above the pinned baseline, and the summary table with the
//! deltas against the baseline.

use egui_plot::{Bar, BarChart, Plot, PlotPoint};

use super::{heading, legend_row, plot_height};
use crate::gui::analysis::{EnergyScheme, RunView};
use crate::gui::command::Command;
use crate::gui::format;
use crate::gui::state::AppState;
use crate::gui::theme::Palette;

/// The stacked energy bars in `height` points.
pub fn bars(ui: &mut egui::Ui, st: &AppState, pal: &Palette, height: f32, cmds: &mut Vec<Command>) {
    let Some(v) = &st.current else { return };
    let start_y = ui.cursor().min.y;
    let scheme = v.energy.scheme;
    let names = scheme.names();
    // The CPU can be left out only where there are memories to compare (kvm-soc).
    let with_cpu = st.settings.energy_with_cpu || !scheme.cpu_optional();
    heading(
        ui,
        "Energy breakdown",
        match scheme {
            EnergyScheme::Memories => {
                "Where the joules go: the CPU, the heap's leakage split by bank power state (gating a bank cuts \
                 its leakage to 5 %), the heap's accesses, the ROM holding the VM and the stack SRAM."
            }
            EnergyScheme::CpuByUse => {
                "Where the joules go on the phone's CPU: cores collecting garbage, running the program or the \
                 process's other threads, sitting idle or offline, and the shared L2/bus (memories are not \
                 modelled on this platform)."
            }
        },
    );
    let first = usize::from(!with_cpu);
    let items: Vec<(egui::Color32, &str, &str)> = names
        .iter()
        .enumerate()
        .skip(first)
        .filter(|(_, (label, _))| !label.is_empty())
        .map(|(i, (label, explain))| (pal.energy[i], *label, *explain))
        .collect();
    if scheme.cpu_optional() {
        ui.horizontal(|ui| {
            let mut c = with_cpu;
            if ui
                .checkbox(&mut c, "include CPU")
                .on_hover_text(
                    "On by default: the total a battery sees. Leave the CPU out to compare what the GC policy \
                     changes in the memories — the total shown is then memory only",
                )
                .changed()
            {
                cmds.push(Command::EnergyWithCpu(c));
            }
            if height < 170.0 {
                ui.menu_button("legend", |ui| legend_row(ui, &items));
            }
        });
    } else if height < 170.0 {
        ui.menu_button("legend", |ui| legend_row(ui, &items));
    }
    // Short (the overview at 1280×720 and 150 %): the legend is a menu beside the checkbox so the bars stay above
    // the fold (#19 item 5).
    if height >= 170.0 {
        legend_row(ui, &items);
    }
    no_energy_in_baseline(ui, st);
    // mJ for the kvm-soc's millijoules, J for a phone's tens of joules.
    let biggest = v
        .energy
        .total
        .max(st.baseline_run().map_or(0.0, |b| b.energy.total));
    let (unit, unit_name) = if biggest > 2.0 {
        (1.0, "energy [J]")
    } else {
        (1e3, "energy [mJ]")
    };
    // A baseline from the other platform splits its energy otherwise: its bars would be mislabelled.
    let runs: Vec<(f64, &RunView, &str)> = match st.baseline_run() {
        Some(b) if b.energy.scheme == scheme => {
            vec![(1.0, v.as_ref(), "current"), (0.0, b.as_ref(), "baseline")]
        }
        _ => vec![(0.0, v.as_ref(), "current")],
    };
    let mut charts: Vec<BarChart> = Vec::new();
    for (i, (label, _)) in names.iter().enumerate().skip(first) {
        if label.is_empty() {
            continue;
        }
        let bars: Vec<Bar> = runs
            .iter()
            .map(|(y, rv, name)| {
                Bar::new(*y, rv.energy.parts[i] * unit)
                    .name(format!(
                        "{name}: {label} {}",
                        format::joules(rv.energy.parts[i])
                    ))
                    .fill(pal.energy[i])
            })
            .collect();
        let refs: Vec<&BarChart> = charts.iter().collect();
        let c = BarChart::new(*label, bars)
            .horizontal()
            .width(0.6)
            .color(pal.energy[i])
            .stack_on(&refs);
        charts.push(c);
    }
    // Each bar's name and total, written just past its end.
    let labels: Vec<(f64, f64, String)> = runs
        .iter()
        .map(|(y, rv, name)| {
            let total: f64 = rv.energy.parts[first..].iter().sum();
            (
                *y,
                total * unit,
                if with_cpu {
                    format!("{name}: {}", format::joules(total))
                } else {
                    format!("{name}: {} (memory only)", format::joules(total))
                },
            )
        })
        .collect();
    let max_x = labels.iter().map(|l| l.1).fold(0.0, f64::max);
    // Room past the longest bar for the widest label, measured: a fixed share cut "current: 18.153 mJ" off in a
    // narrow column at 200 % (#19 item 5).
    let label_w = labels
        .iter()
        .map(|l| {
            let g = ui.painter().layout_no_wrap(
                format!("  {}", l.2),
                egui::FontId::proportional(13.0),
                pal.text,
            );
            g.size().x
        })
        .fold(0.0, f32::max);
    let share = f64::from((label_w + 12.0) / ui.available_width().max(1.0)).clamp(0.2, 0.75);
    let resp = Plot::new("energy-bars")
        .height(plot_height(ui, start_y, height))
        // Ticks from the plot's width, every label in full (egui_plot's own faded some in at 200 %).
        .x_grid_spacer(super::ticks::x())
        .custom_x_axes(vec![super::ticks::x_axis().label(unit_name)])
        .show_y(false)
        .show_axes([true, false])
        .include_x(0.0)
        .include_x(max_x / (1.0 - share))
        .include_y(-0.6)
        .include_y(runs.len() as f64 - 0.4)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .show(ui, |p| {
            for c in charts {
                p.bar_chart(c);
            }
        });
    // Each bar's name and total, placed in points once the plot has its size (#19 item 5): beside the bar's end
    // with a gap where it fits in the frame, else inside the bar's end on a backing; never across the bar's edge.
    let t = resp.transform;
    let frame = *t.frame();
    let painter = ui.painter_at(frame);
    let backing = Palette::faded(ui.visuals().window_fill, 230);
    let mut placed = Vec::new();
    for (y, x, text) in labels {
        let galley = painter.layout_no_wrap(text, egui::FontId::proportional(13.0), pal.text);
        let bar = egui::Rect::from_two_pos(
            t.position_from_point(&PlotPoint::new(0.0, y - 0.3)),
            t.position_from_point(&PlotPoint::new(x, y + 0.3)),
        );
        let rect = label_rect(bar, galley.size(), frame);
        if bar.contains_rect(rect) {
            painter.rect_filled(rect.expand(2.0), 3.0, backing);
        }
        painter.galley(rect.min, galley, pal.text);
        placed.push((rect, bar));
    }
    ui.ctx()
        .data_mut(|d| d.insert_temp(egui::Id::unique("energy-labels"), (frame, placed)));
}

/// Gap between a bar's end and its label. `[points]`
const LABEL_GAP: f32 = 6.0;

/// Where a label of `size` goes for `bar` in `frame`: beside the bar's end (a gap between) where it fits in the
/// frame, else inside the bar against its end (the bar then fills the frame's width, so it holds the label).
fn label_rect(bar: egui::Rect, size: egui::Vec2, frame: egui::Rect) -> egui::Rect {
    let y = bar.center().y - size.y / 2.0;
    let beside = egui::Rect::from_min_size(egui::pos2(bar.right() + LABEL_GAP, y), size);
    if beside.right() <= frame.right() - 2.0 {
        return beside;
    }
    let inside_x = (bar.right() - LABEL_GAP - size.x).max(bar.left() + 2.0);
    egui::Rect::from_min_size(egui::pos2(inside_x, y), size)
}

/// Where the energy bars and their labels were drawn last: the plot's frame, then `(label, bar)` per bar (tests).
#[cfg(test)]
pub fn drawn_labels(ctx: &egui::Context) -> Option<(egui::Rect, Vec<(egui::Rect, egui::Rect)>)> {
    ctx.data(|d| d.get_temp(egui::Id::unique("energy-labels")))
}

/// The summary table: current, baseline and delta.
pub fn table(ui: &mut egui::Ui, st: &AppState, pal: &Palette) {
    let Some(v) = &st.current else { return };
    let b = st.baseline_run().map(AsRef::as_ref);
    let cur_rows = rows(v);
    let base_rows = b.map(rows);
    egui::Grid::new("summary-table")
        .num_columns(if b.is_some() { 4 } else { 2 })
        .striped(true)
        .spacing([10.0, 4.0])
        .show(ui, |ui| {
            ui.strong("summary");
            ui.strong("current");
            if b.is_some() {
                ui.strong("baseline");
                ui.strong("Δ");
            }
            ui.end_row();
            for r in &cur_rows {
                ui.label(r.name).on_hover_text(r.explain);
                ui.monospace(&r.text);
                if let Some(br) = &base_rows {
                    // Rows are matched by name: a baseline from the other platform has other energy rows.
                    let Some(o) = br.iter().find(|o| o.name == r.name) else {
                        ui.weak("—");
                        ui.label("");
                        ui.end_row();
                        continue;
                    };
                    ui.monospace(&o.text);
                    let d = format::delta(r.value, o.value);
                    let worse = if r.lower_is_better {
                        r.value > o.value
                    } else {
                        r.value < o.value
                    };
                    let col = if d.is_empty() || r.value == o.value {
                        ui.visuals().weak_text_color()
                    } else if worse {
                        pal.worse
                    } else {
                        pal.better
                    };
                    ui.colored_label(col, d);
                }
                ui.end_row();
            }
        });
}

/// A pinned GC log has no energy: the bars and the table say so instead of a Δ (#19 item 7).
fn no_energy_in_baseline(ui: &mut egui::Ui, st: &AppState) {
    if let Some(b) = st.baseline.as_ref().filter(|b| b.run().is_none()) {
        ui.add(
            egui::Label::new(
                egui::RichText::new(format!(
                    "baseline {}: energy not in a GC log (no Δ)",
                    b.shown().name()
                ))
                .weak(),
            )
            .wrap(),
        );
    }
}

struct Row {
    name: &'static str,
    explain: &'static str,
    text: String,
    value: f64,
    lower_is_better: bool,
}

/// The energy rows under the total: the memories on kvm-soc, the CPU by use on android-krait.
fn energy_rows(v: &RunView) -> Vec<Row> {
    let e = &v.run.summary.energy_j;
    let r = |name, explain, value: f64| Row {
        name,
        explain,
        text: format::joules(value),
        value,
        lower_is_better: true,
    };
    match v.energy.scheme {
        EnergyScheme::Memories => vec![
            r("  heap", "heap SRAM: leakage + accesses", e.heap),
            r(
                "  heap leakage",
                "leakage of the heap banks (gated banks leak 5 %)",
                e.heap_leakage,
            ),
            r(
                "  heap dynamic",
                "energy of heap accesses by mutator, allocator and collector",
                e.heap_dynamic,
            ),
            r("  CPU", "the datapath, busy and stalled cycles", e.cpu),
            r("  ROM", "the ROM holding the VM and its libraries", e.rom),
            r("  stack", "the stack and VM-variable SRAM", e.stack),
            r(
                "dynamic, by GC",
                "dynamic energy caused by GC work (datapath + memory accesses)",
                e.gc,
            ),
            r(
                "dynamic, by mutator",
                "dynamic energy caused by the program itself",
                e.mutator,
            ),
        ],
        EnergyScheme::CpuByUse => {
            let names = EnergyScheme::CpuByUse.names();
            let mut out = vec![r("  CPU", "every core and the uncore (L2, bus)", e.cpu)];
            for (i, (label, explain)) in names.iter().enumerate() {
                if !label.is_empty() {
                    out.push(r(label, explain, v.energy.parts[i]));
                }
            }
            out
        }
    }
}

fn rows(v: &RunView) -> Vec<Row> {
    let s = &v.run.summary;
    let e = &s.energy_j;
    let r = |name, explain, text: String, value: f64| Row {
        name,
        explain,
        text,
        value,
        lower_is_better: true,
    };
    let mut out = vec![
        r(
            "collector",
            "the collector variant that ran",
            s.collector.clone(),
            0.0,
        ),
        r(
            "execution time",
            "simulated wall time of the run, collections and bank wake-up stalls included",
            format::secs(s.execution_time_s),
            s.execution_time_s,
        ),
        r(
            "collections",
            "garbage collections started",
            s.collections.to_string(),
            s.collections as f64,
        ),
        r(
            "energy, total",
            "CPU + all memories",
            format::joules(e.total),
            e.total,
        ),
    ];
    out.extend(energy_rows(v));
    out.extend(vec![
        r(
            "GC share of CPU",
            "share of CPU time spent collecting",
            format::percent(s.gc_cpu_fraction),
            s.gc_cpu_fraction,
        ),
        r(
            "max pause",
            "the longest time the program was stopped",
            format::window_ms(s.max_pause_ms),
            s.max_pause_ms,
        ),
        r(
            "peak live",
            "highest reachable bytes",
            format::bytes(s.peak_live_bytes),
            s.peak_live_bytes as f64,
        ),
    ]);
    if let Some(b) = s.mean_powered_banks {
        out.push(r(
            "powered banks, mean",
            "time-averaged number of banks not gated",
            format!("{b:.2} of {}", v.run.geometry.banks),
            b,
        ));
    }
    if let Some(w) = s.bank_wakeups {
        out.push(r(
            "bank wake-ups",
            "gated banks that had to be powered again (each costs a stall)",
            w.to_string(),
            w as f64,
        ));
    }
    out.push(r(
        "out of memory",
        "the run ended because an allocation could not be satisfied",
        if s.out_of_memory {
            "yes".into()
        } else {
            "no".into()
        },
        f64::from(u8::from(s.out_of_memory)),
    ));
    out
}

/// The energy view for a GC log: no energy (a real runtime logs none), the log's summary instead.
pub fn of_log(ui: &mut egui::Ui, log: &crate::gui::log::LogView, pal: &Palette) {
    super::unavailable(
        ui,
        pal,
        "No energy in a GC log",
        "Energy and bank power come from gclab's platform models; a log from a real runtime has neither. \
         Close the log (or change a knob) to see the simulated run's energy breakdown.",
    );
    super::summary::of_log(ui, log);
}

/// The energy view for a recorded trace: it says why there is none (the trace's map follows).
pub fn not_in_a_trace(ui: &mut egui::Ui, pal: &Palette) {
    super::unavailable(
        ui,
        pal,
        "No energy in a trace replayed as recorded",
        "Energy comes from gclab's platform models. Replay the trace as a workload to see its energy under a \
         platform.",
    );
}

/// The energy view for a run: the bars over the table.
pub fn of_run(ui: &mut egui::Ui, st: &AppState, pal: &Palette, cmds: &mut Vec<Command>) {
    let h = ui.available_height();
    bars(ui, st, pal, h * 0.45, cmds);
    ui.separator();
    egui::ScrollArea::vertical().show(ui, |ui| table(ui, st, pal));
}
