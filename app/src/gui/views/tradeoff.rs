//! The trade-off view (issue #19 item 4): the current scenario swept over the heap size, plotting energy, the
//! longest pause and MinMU at a chosen window on one shared heap-size axis (log₂, so every doubling is one step),
//! every y axis from zero. Energy is the total, CPU included; on kvm-soc the memories' share is drawn too and
//! labelled *memory only*. A vertical line marks the scenario's own heap size. The data is the heap-size sweep of
//! [`crate::gui::sweep`] ([`SweepMode::HeapSize`]); [`csv`] is what the figure export writes beside the PNG. On
//! android-krait the heap size binds only near the live size, so the view sweeps targetUtil 0.1–0.9 instead
//! ([`SweepMode::TargetUtil`], a linear axis), the knob that sizes its heap.

use std::fmt::Write as _;

use egui_plot::{AxisHints, LineStyle, Plot, VLine};

use super::{heading, legend_row, marked_line};
use crate::gui::command::Command;
use crate::gui::format;
use crate::gui::state::AppState;
use crate::gui::sweep::{SweepMode, SweepResult, SweepState};
use crate::gui::theme::Palette;

/// MinMU windows offered. `[ms]`
pub const WINDOWS_MS: [f64; 6] = [0.1, 1.0, 10.0, 50.0, 100.0, 1000.0];

/// Axis text of a log₂ heap size in KiB: a size at every whole step (each doubling), nothing between.
fn heap_tick(x: f64) -> String {
    if (x - x.round()).abs() > 1e-6 {
        return String::new();
    }
    format::bytes((2f64.powf(x.round()) * 1024.0) as u64)
}

/// Grid marks at every doubling, each with the step of the coarsest level it belongs to (every 2nd doubling a step
/// of 2, every 4th of 4, every 8th of 8): where doublings stand closer than a label's width (1280×720 at 200 %,
/// beside a lesson) egui_plot labels every 2nd or 4th size instead of only the last ones (#19 item 5).
#[allow(clippy::needless_pass_by_value)] // the signature egui_plot asks of a grid spacer
fn doubling_marks(input: egui_plot::GridInput) -> Vec<egui_plot::GridMark> {
    let (lo, hi) = input.bounds;
    (lo.floor() as i32..=hi.ceil() as i32)
        .take(64)
        .map(|e| egui_plot::GridMark {
            value: f64::from(e),
            step_size: f64::from(1u32 << e.trailing_zeros().min(3)),
        })
        .filter(|m| m.value >= lo && m.value <= hi)
        .collect()
}

/// The swept points that finished (out-of-memory runs left out: they did not run the program).
fn finished(r: &SweepResult) -> impl Iterator<Item = &crate::gui::sweep::SweepPoint> {
    r.heap.iter().filter(|p| !p.out_of_memory)
}

/// The swept knob of `r` as the x axis: log₂ KiB for heap sizes, targetUtil itself.
fn x_of(mode: SweepMode, p: &crate::gui::sweep::SweepPoint) -> f64 {
    match mode {
        SweepMode::TargetUtil => p.target_util,
        _ => (p.heap_kib.max(1) as f64).log2(),
    }
}

/// Grid marks every 0.1 of targetUtil.
#[allow(clippy::needless_pass_by_value)] // the signature egui_plot asks of a grid spacer
fn tenth_marks(input: egui_plot::GridInput) -> Vec<egui_plot::GridMark> {
    let (lo, hi) = input.bounds;
    ((lo * 10.0).floor() as i32..=(hi * 10.0).ceil() as i32)
        .take(64)
        .map(|e| egui_plot::GridMark {
            value: f64::from(e) / 10.0,
            step_size: 0.1,
        })
        .filter(|m| m.value >= lo && m.value <= hi)
        .collect()
}

/// Draws the view.
pub fn ui(
    ui: &mut egui::Ui,
    st: &AppState,
    sweep: &SweepState,
    pal: &Palette,
    cmds: &mut Vec<Command>,
) {
    let mode = crate::gui::sweep::tradeoff_mode(st.base.platform());
    // Short (1280×720 at 200 %: ~310 points): a one-line title and a one-row control bar leave the three plots
    // ~40 points each instead of ~27, where an energy axis read only "0" (#19 item 5).
    let short = ui.available_height() < 360.0;
    if mode == SweepMode::TargetUtil {
        heading(
            ui,
            if short {
                "Trade-off: targetUtil"
            } else {
                "Trade-off: targetUtil (heap size) against energy and pauses"
            },
            "The current scenario at targetUtil 0.1 to 0.9. After each collection Android sizes the heap to the \
             live data divided by targetUtil, kept between live + min free and live + max free and under the \
             growth limit (heap.size): a low targetUtil is a big heap that collects seldom, a high one a tight \
             heap that collects often. Where a bound binds (a small live set: min free) the curve is flat; a \
             heap.size above the sized heap changes nothing. Every y axis starts at zero.",
        );
    } else {
        heading(
            ui,
            if short {
                "Trade-off: heap size"
            } else {
                "Trade-off: heap size against energy and pauses"
            },
            "The current scenario at 13 heap sizes from an eighth to eight times its heap. A bigger heap collects \
             less often (less GC work, higher MinMU) but each collection has more to sweep, and more memory \
             stays powered. Every y axis starts at zero.",
        );
    }
    let (knob, points) = if mode == SweepMode::TargetUtil {
        ("targetUtil", "9 targetUtil values (0.1 to 0.9)")
    } else {
        ("heap-size", "13 heap sizes")
    };
    let window = st.mmu_window_ms;
    ui.horizontal_wrapped(|ui| {
        if sweep.running() {
            if ui.button("Cancel").clicked() {
                cmds.push(Command::CancelTradeOff);
            }
            ui.add(
                egui::ProgressBar::new(sweep.progress())
                    .show_percentage()
                    .desired_width(160.0),
            );
        } else if ui
            .button(format!("Run {knob} sweep"))
            .on_hover_text(format!(
                "Simulate the scenario with the knobs applied at {points}, on every core"
            ))
            .clicked()
        {
            cmds.push(Command::StartTradeOff);
        }
        let l = ui.label(if short { "MinMU" } else { "MinMU window" });
        egui::ComboBox::from_id_salt("tradeoff-window")
            .selected_text(format::window_ms(window))
            .show_ui(ui, |ui| {
                for w in WINDOWS_MS {
                    if ui
                        .selectable_label((w - window).abs() < 1e-9, format::window_ms(w))
                        .clicked()
                    {
                        cmds.push(Command::SelectMmuWindow(w));
                    }
                }
            })
            .response
            .labelled_by(l.id);
    });
    let Some(r) = sweep.result.as_ref().filter(|r| r.mode == mode) else {
        ui.label(format!(
            "Press \"Run {knob} sweep\": the scenario with the knobs applied runs at {points} and the three \
             plots below fill in."
        ));
        return;
    };
    let mut items = vec![(
        pal.current,
        "total energy (CPU included)",
        "CPU and memories together: what the battery pays",
    )];
    if r.memory_modelled {
        items.push((
            pal.powered,
            "memory only",
            "the memories' share of the total (heap, ROM, stack): leakage of powered banks and accesses",
        ));
    }
    let mmu_label = format!("MinMU at {}", format::window_ms(window));
    items.push((
        pal.gc,
        "longest pause",
        "the longest time the program stood still for a collection",
    ));
    items.push((
        pal.variants[2],
        mmu_label.as_str(),
        "minimum mutator utilisation: the worst share of any window of this length left to the program",
    ));
    let here_name = if mode == SweepMode::TargetUtil {
        "this scenario's targetUtil"
    } else {
        "this scenario's heap"
    };
    items.push((
        pal.baseline,
        here_name,
        if mode == SweepMode::TargetUtil {
            "the targetUtil the knobs set; the sweep runs 0.1 to 0.9"
        } else {
            "the heap size the knobs set; the sweep runs ⅛× to 8× around it"
        },
    ));
    // Short (1280×720 at 200 %, presenting): the legend folds away so the three plots keep their room (#19 item 5).
    if ui.available_height() < 260.0 {
        egui::CollapsingHeader::new("legend")
            .id_salt("tradeoff-legend")
            .show(ui, |ui| legend_row(ui, &items));
    } else {
        legend_row(ui, &items);
    }
    let oom: Vec<String> = r
        .heap
        .iter()
        .filter(|p| p.out_of_memory)
        .map(|p| {
            if mode == SweepMode::TargetUtil {
                format!("targetUtil {}", p.target_util)
            } else {
                format::bytes(p.heap_kib * 1024)
            }
        })
        .collect();
    let note_h = if oom.is_empty() && r.errors.is_empty() {
        0.0
    } else {
        ui.text_style_height(&egui::TextStyle::Body) + 4.0
    };
    // Three plots, x tick labels on the last only (the axes are linked): it gets their room on top of its share.
    // Between two plots half a text row, so the 0 of one y axis and the top label of the next do not touch.
    let text_h = ui.text_style_height(&egui::TextStyle::Body);
    let gap = ui.spacing().item_spacing.y + text_h * 0.5;
    let axis_h = text_h * 2.6;
    // What is left, not a fixed floor: at 1280×720 and 150 % a 240-point floor pushed the heap-size axis off the
    // window. Each plot keeps at least 30 points; where even that does not fit (1280×720 at 200 % beside a lesson)
    // the x-axis title is cut short to "heap size" on one line rather than off the window (#19 item 5).
    let free = ui.available_height() - note_h - 3.0 * gap;
    let tight = free < 3.0 * 40.0 + axis_h;
    let x_title = if tight {
        "heap size"
    } else {
        "heap size (log scale: each step doubles it)"
    };
    let room = free.max(3.0 * 30.0 + axis_h);
    let each = ((room - axis_h) / 3.0).floor();
    let here = if mode == SweepMode::TargetUtil {
        r.current_target_util
    } else {
        (r.current_heap_kib.max(1) as f64).log2()
    };
    let pad = if mode == SweepMode::TargetUtil {
        0.05
    } else {
        0.2
    };
    let link = egui::Id::unique("tradeoff-x");
    // One y-axis width for all three so their x axes line up.
    let y_w = ui.text_style_height(&egui::TextStyle::Body) * 3.4;
    // A y label longer than its plot would run into the next one: short plots get the unit only.
    let short = each < y_w * 3.2;
    let plot = |id: &str, y_label: &str, last: bool| {
        let y_label = if short {
            y_label.split(['[', ']']).nth(1).unwrap_or(y_label)
        } else {
            y_label
        };
        let mut p = Plot::new(id.to_string())
            .height(if last { each + axis_h } else { each })
            .link_axis(link, [true, false])
            .link_cursor(link, [true, false])
            .include_y(0.0)
            // y ticks from the plot's height in points: a 70-point pause plot read only "0" (#19 item 5).
            .y_grid_spacer(super::ticks::y())
            .x_grid_spacer(if mode == SweepMode::TargetUtil {
                tenth_marks
            } else {
                doubling_marks
            })
            .allow_scroll(false)
            .show_axes([last, true])
            .custom_y_axes(vec![
                AxisHints::new_y()
                    .label(y_label.to_string())
                    .min_thickness(y_w)
                    .formatter(super::ticks::label)
                    .label_spacing(super::ticks::Y_MIN_GAP - 1.0..=super::ticks::Y_MIN_GAP),
            ])
            .custom_x_axes(vec![if mode == SweepMode::TargetUtil {
                AxisHints::new_x()
                    .label("targetUtil (the heap is sized to live data ÷ targetUtil)")
                    .formatter(|m, _| format!("{:.1}", m.value))
                    .label_spacing(28.0..=40.0)
            } else {
                AxisHints::new_x()
                    .label(x_title)
                    .formatter(|m, _| heap_tick(m.value))
                    .label_spacing(28.0..=40.0)
            }]);
        if let (Some(a), Some(b)) = (finished(r).next(), finished(r).last()) {
            p = p
                .include_x(x_of(mode, a) - pad)
                .include_x(x_of(mode, b) + pad);
        }
        p
    };
    let series = |f: &dyn Fn(&crate::gui::sweep::SweepPoint) -> Option<f64>| -> Vec<[f64; 2]> {
        finished(r)
            .filter_map(|p| f(p).map(|y| [x_of(mode, p), y]))
            .collect()
    };
    let marker = || {
        VLine::new(here_name, here)
            .color(pal.baseline)
            .style(LineStyle::dashed_loose())
            .width(1.5)
    };
    let total = series(&|p| Some(p.total_j * 1e3));
    let memory = series(&|p| Some(p.memory_j * 1e3));
    let energy = plot("tradeoff-energy", "energy [mJ]", false).show(ui, |p| {
        p.vline(marker());
        marked_line(
            p,
            "total energy (CPU included)",
            total,
            pal.current,
            (2.5, 4.0),
            LineStyle::Solid,
        );
        if r.memory_modelled {
            marked_line(
                p,
                "memory only",
                memory,
                pal.powered,
                (2.0, 3.5),
                LineStyle::dashed_dense(),
            );
        }
    });
    super::note_time_plot(ui, "tradeoff-energy", &energy.transform);
    ui.add_space(text_h * 0.5);
    let pause = series(&|p| Some(p.max_pause_ms));
    plot("tradeoff-pause", "max pause [ms]", false).show(ui, |p| {
        p.vline(marker());
        marked_line(
            p,
            "longest pause",
            pause,
            pal.gc,
            (2.5, 4.0),
            LineStyle::Solid,
        );
    });
    ui.add_space(text_h * 0.5);
    let mmu = series(&|p| p.minmu_at(window));
    plot("tradeoff-mmu", "MinMU", true)
        .include_y(1.0)
        .show(ui, |p| {
            p.vline(marker());
            marked_line(
                p,
                &mmu_label,
                mmu,
                pal.variants[2],
                (2.5, 4.0),
                LineStyle::Solid,
            );
        });
    if !oom.is_empty() {
        ui.colored_label(
            pal.warn,
            format!("out of memory (left out): {}", oom.join(", ")),
        );
    }
    for e in &r.errors {
        ui.colored_label(pal.warn, e);
    }
}

/// The figure's data as CSV: one line per heap size, the columns the plots draw (`window_ms` as chosen).
pub fn csv(r: &SweepResult, window_ms: f64) -> String {
    let mut s = String::new();
    if r.mode == SweepMode::TargetUtil {
        s.push_str("target_util,");
    }
    s.push_str(
        "heap_kib,total_energy_j,memory_energy_j,max_pause_ms,minmu_window_ms,minmu,collections,out_of_memory\n",
    );
    for p in &r.heap {
        if r.mode == SweepMode::TargetUtil {
            let _ = write!(s, "{},", p.target_util);
        }
        let memory = if r.memory_modelled {
            format!("{}", p.memory_j)
        } else {
            "not modelled".into()
        };
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{}",
            p.heap_kib,
            p.total_j,
            memory,
            format::csv_ms(p.max_pause_ms),
            format::csv_ms(window_ms),
            p.minmu_at(window_ms)
                .map_or(String::new(), |m| m.to_string()),
            p.collections,
            p.out_of_memory
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_ticks_show_sizes_at_doublings_only() {
        assert_eq!(heap_tick(6.0), "64 KiB");
        assert_eq!(heap_tick(11.0), "2 MiB");
        assert_eq!(heap_tick(6.5), "", "nothing between doublings");
    }

    #[test]
    fn doubling_marks_carry_coarser_steps_so_tight_axes_label_every_second_or_fourth_size() {
        let marks = doubling_marks(egui_plot::GridInput {
            bounds: (4.8, 11.2),
            base_step_size: 0.1,
        });
        let steps: Vec<(f64, f64)> = marks.iter().map(|m| (m.value, m.step_size)).collect();
        assert_eq!(
            steps,
            [
                (5.0, 1.0),
                (6.0, 2.0),
                (7.0, 1.0),
                (8.0, 8.0),
                (9.0, 1.0),
                (10.0, 2.0),
                (11.0, 1.0)
            ]
        );
    }
}
