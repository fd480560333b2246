//! Energy: stacked bars split as the adaptive-GC paper's Fig. 5 (CPU; heap leakage in active, waking and gated
//! banks; heap dynamic; ROM; stack), the current run above the pinned baseline, and the summary table with the
//! deltas against the baseline.

use egui_plot::{Bar, BarChart, Plot, PlotPoint, Text};

use super::{heading, legend_row, plot_height};
use crate::gui::analysis::{EnergyPart, RunView};
use crate::gui::command::Command;
use crate::gui::format;
use crate::gui::state::AppState;
use crate::gui::theme::Palette;

/// The stacked energy bars in `height` points.
pub fn bars(ui: &mut egui::Ui, st: &AppState, pal: &Palette, height: f32, cmds: &mut Vec<Command>) {
    let Some(v) = &st.current else { return };
    let start_y = ui.cursor().min.y;
    // Platforms whose memories are not modelled (android-krait) show the CPU regardless.
    let memory: f64 = v.energy.parts[1..].iter().sum();
    let with_cpu = st.settings.energy_with_cpu || memory <= 0.0;
    heading(
        ui,
        "Energy breakdown",
        "Where the joules go: the CPU, the heap's leakage split by bank power state (gating a bank cuts its \
         leakage to 5 %), the heap's accesses, the ROM holding the VM and the stack SRAM.",
    );
    let items: Vec<(egui::Color32, &str, &str)> = EnergyPart::ALL
        .iter()
        .enumerate()
        .map(|(i, p)| (pal.energy[i], p.label(), p.explain()))
        .collect();
    ui.horizontal(|ui| {
        let mut c = with_cpu;
        if ui
            .checkbox(&mut c, "include CPU")
            .on_hover_text(
                "The CPU dwarfs the memories; leave it out to compare what the GC policy changes",
            )
            .changed()
        {
            cmds.push(Command::EnergyWithCpu(c));
        }
    });
    legend_row(ui, &items[usize::from(!with_cpu)..]);
    // mJ for the kvm-soc's millijoules, J for a phone's tens of joules.
    let biggest = v
        .energy
        .total
        .max(st.baseline.as_ref().map_or(0.0, |b| b.energy.total));
    let (unit, unit_name) = if biggest > 2.0 {
        (1.0, "energy [J]")
    } else {
        (1e3, "energy [mJ]")
    };
    let runs: Vec<(f64, &RunView, &str)> = match &st.baseline {
        Some(b) => vec![(1.0, v.as_ref(), "current"), (0.0, b.as_ref(), "baseline")],
        None => vec![(0.0, v.as_ref(), "current")],
    };
    let mut charts: Vec<BarChart> = Vec::new();
    for (i, part) in EnergyPart::ALL.iter().enumerate() {
        if *part == EnergyPart::Cpu && !with_cpu {
            continue;
        }
        let bars: Vec<Bar> = runs
            .iter()
            .map(|(y, rv, name)| {
                Bar::new(*y, rv.energy.parts[i] * unit)
                    .name(format!(
                        "{name}: {} {}",
                        part.label(),
                        format::joules(rv.energy.parts[i])
                    ))
                    .fill(pal.energy[i])
            })
            .collect();
        let refs: Vec<&BarChart> = charts.iter().collect();
        let c = BarChart::new(part.label(), bars)
            .horizontal()
            .width(0.6)
            .color(pal.energy[i])
            .stack_on(&refs);
        charts.push(c);
    }
    // Each bar's name and total, written just past its end.
    let first = usize::from(!with_cpu);
    let labels: Vec<(f64, f64, String)> = runs
        .iter()
        .map(|(y, rv, name)| {
            let total: f64 = rv.energy.parts[first..].iter().sum();
            (
                *y,
                total * unit,
                format!("{name}: {}", format::joules(total)),
            )
        })
        .collect();
    let max_x = labels.iter().map(|l| l.1).fold(0.0, f64::max);
    Plot::new("energy-bars")
        .height(plot_height(ui, start_y, height))
        .x_axis_label(unit_name)
        .show_y(false)
        .show_axes([true, false])
        .include_x(0.0)
        .include_x(max_x * 1.45)
        .include_y(-0.6)
        .include_y(runs.len() as f64 - 0.4)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .show(ui, |p| {
            for c in charts {
                p.bar_chart(c);
            }
            for (y, x, text) in labels {
                p.text(
                    Text::new(
                        "total",
                        PlotPoint::new(x, y),
                        egui::RichText::new(format!("  {text}")).size(13.0),
                    )
                    .anchor(egui::Align2::LEFT_CENTER)
                    .color(pal.text),
                );
            }
        });
}

/// The summary table: current, baseline and delta.
pub fn table(ui: &mut egui::Ui, st: &AppState, pal: &Palette) {
    let Some(v) = &st.current else { return };
    let b = st.baseline.as_deref();
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
            for (i, r) in cur_rows.iter().enumerate() {
                ui.label(r.name).on_hover_text(r.explain);
                ui.monospace(&r.text);
                if let Some(br) = &base_rows {
                    let o = &br[i];
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

struct Row {
    name: &'static str,
    explain: &'static str,
    text: String,
    value: f64,
    lower_is_better: bool,
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
        r(
            "  heap",
            "heap SRAM: leakage + accesses",
            format::joules(e.heap),
            e.heap,
        ),
        r(
            "  heap leakage",
            "leakage of the heap banks (gated banks leak 5 %)",
            format::joules(e.heap_leakage),
            e.heap_leakage,
        ),
        r(
            "  heap dynamic",
            "energy of heap accesses by mutator, allocator and collector",
            format::joules(e.heap_dynamic),
            e.heap_dynamic,
        ),
        r(
            "  CPU",
            "the datapath, busy and stalled cycles",
            format::joules(e.cpu),
            e.cpu,
        ),
        r(
            "  ROM",
            "the ROM holding the VM and its libraries",
            format::joules(e.rom),
            e.rom,
        ),
        r(
            "  stack",
            "the stack and VM-variable SRAM",
            format::joules(e.stack),
            e.stack,
        ),
        r(
            "dynamic, by GC",
            "dynamic energy caused by GC work (datapath + memory accesses)",
            format::joules(e.gc),
            e.gc,
        ),
        r(
            "dynamic, by mutator",
            "dynamic energy caused by the program itself",
            format::joules(e.mutator),
            e.mutator,
        ),
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
    ];
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
