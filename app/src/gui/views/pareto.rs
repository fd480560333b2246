//! The Pareto explorer: every point of a merged sweep result as total energy (x) against the longest pause or
//! MinMU at a chosen window (y), execution time as the marker size; the points of the energy × pause × time frontier
//! ringed and listed below. Hovering a point names its settings; clicking it (or its row's
//! button) re-simulates that point — the loaded scenario with the point's settings — in all the other views.

use egui_plot::{HoverPosition, Plot, PlotPoint, Points};

use super::{heading, legend_row};
use crate::gui::command::Command;
use crate::gui::format;
use crate::gui::pareto::{ExplorerPoint, ParetoState, SweepResults};
use crate::gui::theme::Palette;

/// Draws the explorer.
pub fn ui(ui: &mut egui::Ui, st: &ParetoState, pal: &Palette, cmds: &mut Vec<Command>) {
    heading(
        ui,
        "Pareto explorer: energy × pause × time",
        "A merged sweep (gclab sweep --json, or gclab sweep merge --json): each point is one run. The frontier \
         holds the runs no other run beats on total energy, longest pause and execution time at once (all \
         minimised; out-of-memory runs left out) — the same as gclab sweep merge --pareto.",
    );
    let Some(r) = &st.results else {
        ui.label(
            "Open a merged sweep result (a .json written by gclab sweep --json or gclab sweep merge --json) with \
             the file row on the left, by dropping it here, or with gclab open FILE.",
        );
        return;
    };
    ui.horizontal(|ui| {
        ui.label(format!(
            "{}: {} points, {} on the frontier",
            r.name,
            r.points.len(),
            r.frontier.len()
        ));
        ui.separator();
        let current = match st.minmu_window_ms {
            None => "y: maximum pause".to_string(),
            Some(w) => format!("y: MinMU at {}", format::window_ms(w)),
        };
        egui::ComboBox::from_label("y axis")
            .selected_text(current)
            .show_ui(ui, |ui| {
                if ui
                    .selectable_label(st.minmu_window_ms.is_none(), "maximum pause")
                    .clicked()
                {
                    cmds.push(Command::ParetoAxis(None));
                }
                for w in &r.windows_ms {
                    let label = format!("MinMU at {}", format::window_ms(*w));
                    if ui
                        .selectable_label(st.minmu_window_ms == Some(*w), label)
                        .clicked()
                    {
                        cmds.push(Command::ParetoAxis(Some(*w)));
                    }
                }
            });
    });
    legend_row(
        ui,
        &[
            (
                pal.guide,
                "run",
                "one point of the sweep; marker size = execution time",
            ),
            (
                pal.current,
                "frontier (ringed)",
                "not beaten on energy, pause and time at once",
            ),
            (
                pal.warn,
                "out of memory",
                "ended early: left out of the frontier",
            ),
        ],
    );
    let h = (ui.available_height() * 0.62).max(160.0);
    plot(ui, r, st.minmu_window_ms, pal, h, cmds);
    ui.separator();
    ui.label(egui::RichText::new("Frontier (by energy)").strong());
    egui::ScrollArea::vertical()
        .id_salt("pareto-frontier")
        .show(ui, |ui| {
            egui::Grid::new("pareto-frontier-grid")
                .striped(true)
                .show(ui, |ui| {
                    for h in ["", "energy", "max pause", "time", "settings"] {
                        ui.label(egui::RichText::new(h).weak());
                    }
                    ui.end_row();
                    for &i in &r.frontier {
                        let p = &r.points[i];
                        if ui
                            .button(format!("open #{}", p.index))
                            .on_hover_text("re-simulate this point in the other views")
                            .clicked()
                        {
                            cmds.push(Command::OpenSweepPoint(i));
                        }
                        ui.label(format::joules(p.energy_j));
                        ui.label(format!("{:.3} ms", p.max_pause_ms));
                        ui.label(format::secs(p.time_s));
                        ui.label(&p.set_text);
                        ui.end_row();
                    }
                });
        });
}

/// `(x, y)` of a point: energy in mJ, and the chosen y.
fn xy(p: &ExplorerPoint, minmu_window_ms: Option<f64>) -> Option<[f64; 2]> {
    let y = match minmu_window_ms {
        None => p.max_pause_ms,
        Some(w) => p.minmu_at(w)?,
    };
    Some([p.energy_j * 1e3, y])
}

fn plot(
    ui: &mut egui::Ui,
    r: &SweepResults,
    window: Option<f64>,
    pal: &Palette,
    height: f32,
    cmds: &mut Vec<Command>,
) {
    let (t_min, t_max) = r.points.iter().fold((f64::MAX, f64::MIN), |(a, b), p| {
        (a.min(p.time_s), b.max(p.time_s))
    });
    let radius = |t: f64| {
        let f = if t_max > t_min {
            (t - t_min) / (t_max - t_min)
        } else {
            0.5
        };
        (2.0 + 6.0 * f) as f32
    };
    let hover_text: Vec<Option<String>> = r
        .points
        .iter()
        .map(|p| {
            xy(p, window).map(|_| {
                format!(
                    "#{} {}\nenergy {}, max pause {:.3} ms, time {}",
                    p.index,
                    p.set_text,
                    format::joules(p.energy_j),
                    p.max_pause_ms,
                    format::secs(p.time_s)
                )
            })
        })
        .collect();
    let y_label = match window {
        None => "maximum pause [ms]".to_string(),
        Some(w) => format!("MinMU at {}", format::window_ms(w)),
    };
    let resp = Plot::new("pareto")
        .height(height)
        .x_axis_label("total energy [mJ]")
        .y_axis_label(y_label)
        .label_formatter(|hp| match hp {
            // Each point is its own series named `#index`: the hover names its settings.
            HoverPosition::NearDataPoint { plot_name, .. } => {
                let i: usize = plot_name.strip_prefix('#')?.parse().ok()?;
                hover_text.get(i).cloned().flatten()
            }
            HoverPosition::Elsewhere { .. } => None,
        })
        .show(ui, |plot_ui| {
            // Each point its own marker (series `#index`, for the hover): the size encodes its execution time;
            // a frontier point gets a ring. (The frontier has three objectives: no 2-D line through it would
            // be true, so it is marked, not connected.)
            for p in &r.points {
                let Some(q) = xy(p, window) else { continue };
                let on_front = r.frontier.contains(&(p.index as usize));
                let color = if p.out_of_memory {
                    pal.warn
                } else if on_front {
                    pal.current
                } else {
                    pal.guide
                };
                let rad = radius(p.time_s);
                plot_ui.points(
                    Points::new(format!("#{}", p.index), vec![q])
                        .radius(rad)
                        .color(color),
                );
                if on_front {
                    plot_ui.points(
                        Points::new(format!("#{}", p.index), vec![q])
                            .radius(rad + 3.0)
                            .filled(false)
                            .color(pal.current),
                    );
                }
            }
            plot_ui.pointer_coordinate()
        });
    if resp.response.clicked()
        && let Some(at) = resp.inner
        && let Some(i) = nearest(r, window, at, &resp.transform)
    {
        cmds.push(Command::OpenSweepPoint(i));
    }
}

/// The point under a click: the nearest on screen, within 12 px.
fn nearest(
    r: &SweepResults,
    window: Option<f64>,
    at: PlotPoint,
    t: &egui_plot::PlotTransform,
) -> Option<usize> {
    let click = t.position_from_point(&at);
    r.points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let q = xy(p, window)?;
            let s = t.position_from_point(&PlotPoint::new(q[0], q[1]));
            Some((i, s.distance(click)))
        })
        .filter(|(_, d)| *d <= 12.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}
