//! egui_kittest test of tick labels at a projector's zoom (#19 item 5): the real app at 1280×720 and 1920×1080 at
//! 200 % (640×360 and 960×540 points), each view that draws plots, with the knob panel and presenting. It reads
//! every tick label the frame paints (the text shapes egui hands to the renderer) and checks what a class reads
//! off the wall: no two labels overlap or touch, each stands in full opacity (egui_plot fades a label whose
//! neighbour is closer than its spacing; [`super::views::ticks`] spaces them past that fade), and the heap map and
//! the occupancy plot under it each carry at least two labels on their time axis.

use egui::epaint::{ClippedShape, Shape};
use egui::{Pos2, Rect};
use gclab_core::Scenario;

use super::kittest_tests::{H, app, harness_sized, settle, wait_for_run};
use super::state::ViewKind;
use super::views::time_plot_frame;

/// A painted tick label: its text, where it is drawn (clipped to what shows), its opacity.
#[derive(Debug, Clone)]
struct Tick {
    text: String,
    rect: Rect,
    alpha: u8,
}

/// Whether `t` reads as a tick label: a number, optionally with a unit (`0.5`, `120`, `10 µs`, `1 ms`, `2 s`).
fn is_tick(t: &str) -> bool {
    let t = t.trim();
    let num = t
        .split_once(' ')
        .filter(|(_, unit)| ["µs", "ms", "s", "KiB", "MiB", "%"].contains(unit))
        .map_or(t, |(n, _)| n);
    !num.is_empty() && num.len() <= 8 && num.parse::<f64>().is_ok()
}

fn collect(shape: &Shape, clip: Rect, out: &mut Vec<Tick>) {
    match shape {
        Shape::Vec(v) => v.iter().for_each(|s| collect(s, clip, out)),
        // A plot lays its labels out in their colour; a widget's text (a knob's "100") is laid out in the
        // placeholder colour and painted in the widget's.
        Shape::Text(t)
            if is_tick(t.galley.text())
                && t.galley
                    .job
                    .sections
                    .iter()
                    .all(|s| s.format.color != egui::Color32::PLACEHOLDER) =>
        {
            let rect = shape.visual_bounding_rect().intersect(clip);
            if rect.width() > 0.5 && rect.height() > 0.5 {
                let alpha = t
                    .galley
                    .job
                    .sections
                    .first()
                    .map_or(255, |s| s.format.color.a());
                let alpha = if t.opacity_factor < 1.0 {
                    (f32::from(alpha) * t.opacity_factor) as u8
                } else {
                    alpha
                };
                out.push(Tick {
                    text: t.galley.text().to_string(),
                    rect,
                    alpha,
                });
            }
        }
        _ => {}
    }
}

/// Every tick label of the last frame.
fn ticks(h: &H) -> Vec<Tick> {
    let mut out = Vec::new();
    for ClippedShape {
        clip_rect, shape, ..
    } in &h.output().shapes
    {
        collect(shape, *clip_rect, &mut out);
    }
    out
}

/// Asserts the frame's tick labels are legible: none overlaps another, none is faded.
fn legible(h: &H, case: &str) -> Vec<Tick> {
    let t = ticks(h);
    assert!(t.len() >= 4, "{case}: tick labels drawn: {t:?}");
    for (i, a) in t.iter().enumerate() {
        assert!(
            a.alpha >= 200,
            "{case}: the tick label {:?} at {:?} is faded (alpha {})",
            a.text,
            a.rect,
            a.alpha
        );
        for b in &t[i + 1..] {
            assert!(
                // A galley's rectangle includes its line's leading: rows that touch do not overlap.
                !a.rect.shrink(0.5).intersects(b.rect.shrink(0.5)),
                "{case}: tick labels {:?} at {:?} and {:?} at {:?} overlap",
                a.text,
                a.rect,
                b.text,
                b.rect
            );
        }
    }
    t
}

/// The tick labels under time plot `id`'s frame (its time axis).
fn x_labels<'a>(h: &H, t: &'a [Tick], id: &str) -> Vec<&'a Tick> {
    let Some((frame, _)) = time_plot_frame(&h.ctx, id) else {
        return Vec::new();
    };
    t.iter()
        .filter(|k| {
            let c: Pos2 = k.rect.center();
            (frame.left() - 2.0..=frame.right() + 2.0).contains(&c.x)
                && (frame.bottom()..=frame.bottom() + 30.0).contains(&c.y)
        })
        .collect()
}

#[test]
fn kittest_tick_labels_never_overlap_and_are_never_faded_at_projector_zoom() {
    for preset in ["kvm/kwml", "android/quadrant"] {
        for size in [[640.0, 360.0], [960.0, 540.0]] {
            let mut h = harness_sized(Scenario::preset(preset).expect("preset"), size, false);
            wait_for_run(&mut h);
            for present in [false, true] {
                for view in [
                    ViewKind::Overview,
                    ViewKind::Layout,
                    ViewKind::Mmu,
                    ViewKind::Energy,
                    ViewKind::Cpu,
                ] {
                    if view == ViewKind::Cpu && preset.starts_with("kvm") {
                        continue; // one core at a fixed clock: a note, no plot
                    }
                    {
                        let a = h.state_mut().as_mut().expect("app");
                        a.present = present;
                        a.state.settings.view = view;
                    }
                    settle(&mut h);
                    let case = format!("{preset} {size:?} presenting {present} {view:?}");
                    let t = legible(&h, &case);
                    if matches!(view, ViewKind::Overview | ViewKind::Layout) {
                        let map = x_labels(&h, &t, "layout");
                        assert!(
                            map.len() >= 2 || size[0] < 700.0 && view == ViewKind::Overview,
                            "{case}: the heap map's time axis reads {map:?}"
                        );
                    }
                    if view == ViewKind::Overview {
                        let occ = x_labels(&h, &t, "occupancy");
                        assert!(
                            occ.len() >= 2,
                            "{case}: the occupancy's time axis reads {occ:?}"
                        );
                    }
                }
            }
            assert!(app(&h).state.current.is_some());
        }
    }
}

#[test]
fn tick_labels_are_told_from_other_text() {
    for t in ["0", "0.5", "120", "10 µs", "1 ms", "2 s", "-3"] {
        assert!(is_tick(t), "{t}");
    }
    for t in [
        "time [s]",
        "cpu0",
        "b7 active",
        "at 500.00 ms",
        "current: 54.236 J",
        "",
    ] {
        assert!(!is_tick(t), "{t}");
    }
}
