//! Heap layout replay: address (vertical, KiB from the heap base) × time (horizontal) — live, dead-not-yet-
//! collected and free memory, free memory tinted by its bank's power state, a power-state lane at the foot of
//! each bank, GC instants in a lane above the heap (the adaptive-GC paper's Fig. 6, the Address-Chain paper's
//! Fig. 7). Beside the map, the heap at the playhead, bank by bank ([`now`]); a recorded trace's map ([`trace`]).
//!
//! The map is one texture rasterised at the plot's pixel size ([`super::raster`]) and rebuilt only when the run,
//! the theme or the visible range changes; the plain wheel zooms time, drag pans, double-click resets.
//! Hover tells what is at the pointer: object, bank, power state.

use egui::{Rect, TextureHandle, TextureOptions};
use egui_plot::{HLine, PlotImage, PlotPoint, Polygon, VLine};

pub mod now;
pub mod trace;

use super::raster::{GC_LANE_FRACTION, RasterSpec, rasterize};
use super::{heap_top, legend_row, playhead, seek_on_click, time_plot};
use crate::gui::analysis::RunView;
use crate::gui::command::Command;
use crate::gui::state::AppState;
use crate::gui::theme::Palette;
use now::{describe, now_column};

/// Width of the "heap at the playhead" column: 30 % of a narrow view, at most 150. `[points]`
fn now_w(avail_w: f32) -> f32 {
    (avail_w * 0.3).clamp(100.0, 150.0)
}

/// Width of the map's plot in a column `avail_w` wide: the rest goes to the "heap at the playhead" column. Time plots
/// under the map in the overview take this width too, so an instant has one x in all of them. `[points]`
pub fn map_plot_width(avail_w: f32) -> f32 {
    (avail_w - now_w(avail_w) - 12.0).max(100.0)
}

/// What a raster depends on: run generation, visible range (bits), pixel size, theme.
type RasterKey = (u64, [u64; 4], [usize; 2], [u8; 4]);

#[derive(Default)]
struct RasterCache {
    key: Option<RasterKey>,
    tex: Option<TextureHandle>,
}

/// The heap-layout view and its texture caches (current and baseline).
#[derive(Default)]
pub struct LayoutView {
    current: RasterCache,
    baseline: RasterCache,
    /// Time of the last full-resolution raster rebuild. `[ms]`
    pub last_raster_ms: f64,
    /// Number of raster rebuilds so far.
    pub rebuilds: u64,
    /// The time range `[s]` each map showed last frame: current, baseline (tests read them).
    pub shown_t: [[f64; 2]; 2],
    /// Where each map was drawn last frame (tests point at it).
    pub map_rect: [Option<Rect>; 2],
    /// The recorded trace's map.
    pub trace: trace::TraceMap,
    /// Leave out the map's time axis: a time plot under it, on the same linked axis, shows it (the one-column
    /// overview, where every row of height counts).
    pub time_axis_below: bool,
}

impl LayoutView {
    /// Draws the map(s) into `height` points of `ui`.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        st: &AppState,
        pal: &Palette,
        cmds: &mut Vec<Command>,
        height: f32,
    ) {
        let Some(cur) = st.current.clone() else {
            return;
        };
        let start_y = ui.cursor().min.y;
        let items = legend_items(pal, now::permanent_space(&cur.run).is_some());
        // A small map (the overview at 1280×720 and 150 %) keeps its height: the nine-chip legend is a menu.
        super::heading_and_legend(
            ui,
            (
                "Heap layout over time",
                "Each pixel column is the heap at one instant: blue live objects, orange dead objects not yet \
                 collected, pale free memory in powered banks, grey free memory in supply-gated banks, pale blue at the top \
                 KVM's permanent space (class data, never collected). Red ticks on top: collections. Scroll to zoom the time axis (Ctrl+scroll: both axes), drag or Shift+scroll \
                 to pan, double-click to reset, click to move the playhead.",
            ),
            height < 300.0 || {
                // A legend of many rows (four at 1280×720 and 150 %) takes the map's height: a menu then.
                let row =
                    ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
                let rows = super::legend_rows(ui, &items, ui.available_width());
                rows > 3 || rows as f32 * row > height * 0.2
            },
            |ui| legend_row(ui, &items),
        );
        if cur.run.layout.objects.is_empty() {
            let note = egui::Label::new(
                egui::RichText::new(
                    "This run recorded no per-object layout (record.layout = false, or a platform that does not \
                     place objects): the map shows bank power states and collections only.",
                )
                .weak(),
            );
            // A small map keeps the note to one line (the whole of it on hover), not three.
            ui.add(if height < 300.0 {
                note.truncate()
            } else {
                note.wrap()
            });
        }
        // What the heading and legend took (more rows at a projector's zoom), not a fixed guess.
        let h = super::plot_height(ui, start_y, height).max(80.0);
        let no_layout = cur.run.layout.objects.is_empty();
        match (st.baseline_run(), st.settings.compare_maps && !no_layout) {
            (Some(base), true) => {
                let each = (h - 24.0) / 2.0;
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(format!("current: {}", cur.label)).small(),
                    )
                    .truncate(),
                );
                // One time axis for both maps: the longer run's (#19 item 7).
                let t_max = cur.duration_s.max(base.duration_s);
                self.map(ui, st, pal, cmds, &cur, false, each, t_max);
                ui.label(
                    egui::RichText::new(format!("baseline: {}", base.label))
                        .small()
                        .color(pal.baseline),
                );
                let base = base.clone();
                self.map(ui, st, pal, cmds, &base, true, each, t_max);
            }
            _ => self.map(ui, st, pal, cmds, &cur, false, h, cur.duration_s),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn map(
        &mut self,
        ui: &mut egui::Ui,
        st: &AppState,
        pal: &Palette,
        cmds: &mut Vec<Command>,
        v: &RunView,
        is_baseline: bool,
        height: f32,
        t_max: f64,
    ) {
        let run = &v.run;
        let heap_kib = run.geometry.heap_bytes as f64 / 1024.0;
        let bank_kib = run.geometry.bank_bytes as f64 / 1024.0;
        let top_kib = heap_kib * (1.0 + GC_LANE_FRACTION);
        let ppp = ui.ctx().pixels_per_point();
        let ctx = ui.ctx().clone();
        let avail_w = ui.available_width();
        let mut built_ms = None;
        let cache = if is_baseline {
            &mut self.baseline
        } else {
            &mut self.current
        };
        let playhead_t = st.playback.playhead;
        let interacting =
            ui.input(|i| i.pointer.any_down() || i.smooth_scroll_delta != egui::Vec2::ZERO);
        let slow = self.last_raster_ms > 12.0;
        // A plain mouse wheel zooms the time axis around the pointer (a class expects "scroll to zoom"; Ctrl+wheel
        // still zooms both axes, Shift+wheel pans).
        let zoom_speed = ui.options(|o| o.input_options.scroll_zoom_speed);
        let wheel_zoom = ui.input(|i| {
            (i.modifiers.is_none() && i.smooth_scroll_delta.y != 0.0)
                .then(|| (i.smooth_scroll_delta.y * zoom_speed).exp())
        });
        ui.horizontal(|ui| {
            let plot = time_plot(
                ui,
                if is_baseline {
                    "layout-baseline"
                } else {
                    "layout"
                },
            )
            .height(height)
            .width(map_plot_width(avail_w))
            // A label longer than a short plot would run up into the legend.
            .y_axis_label(if height < 130.0 {
                "KiB"
            } else {
                "address [KiB]"
            })
            // The map has no margin: its lowest address label sat on the frame's foot, over the time axis's
            // first label (the tick kittest). The corner reads the time; the addresses start one step up.
            .y_axis_formatter(|m, r| {
                if (m.value - r.start()).abs() <= 1e-9 * (r.end() - r.start()).abs() {
                    String::new()
                } else {
                    super::ticks::label(m, r)
                }
            })
            .include_x(0.0)
            .include_x(t_max)
            .include_y(0.0)
            .include_y(top_kib)
            .set_margin_fraction(egui::vec2(0.0, 0.0))
            .show_grid([false, false])
            .show_axes([!self.time_axis_below, true])
            .show_x(false)
            .show_y(false)
            .allow_double_click_reset(true);
            let resp = plot.show(ui, |p| {
                let zoomed = wheel_zoom.is_some() && p.response().hovered();
                if let Some(z) = wheel_zoom.filter(|_| zoomed) {
                    p.zoom_bounds_around_hovered(egui::vec2(z, 1.0));
                }
                // The range this frame settles on. `plot_bounds` is last frame's; with auto-bounds the plot ends
                // this frame on the include range (the map's extent, margins 0), so a new run is rasterised once
                // for the bounds it shows, not once for the old bounds and again a frame later (#18 item 6).
                let (b, auto) = (p.plot_bounds(), p.auto_bounds());
                let lesson_zoom = super::highlight::zoom_once(p, st);
                let [x0, x1] = if let Some(r) = lesson_zoom {
                    r
                } else if auto.x && !zoomed {
                    [0.0, t_max]
                } else {
                    [b.min()[0], b.max()[0]]
                };
                let [y0, y1] = if auto.y && !zoomed {
                    [0.0, top_kib]
                } else {
                    [b.min()[1], b.max()[1]]
                };
                // This frame's plot rectangle (the transform's is last frame's).
                let frame = p.response().rect;
                // Level of detail while the user drags or scrolls: when a full raster is slow (a huge run), draw
                // at half resolution until the gesture ends, then once more at full resolution.
                let scale = if interacting && slow { 0.5 } else { 1.0 };
                // The image covers only the part of the view inside the map's extent: an image as wide as the
                // last frame's bounds would feed those bounds back into the plot's auto-bounds, so a shorter
                // run after a long one stayed squashed into the old time axis (#19 item 7).
                let Some(ext) =
                    image_extent([x0, x1], [y0, y1], [0.0, v.duration_s], [0.0, top_kib])
                else {
                    return (p.pointer_coordinate(), p.response().clicked());
                };
                let px = |span: f64, whole: f64, pts: f32| {
                    ((f64::from(pts * ppp * scale) * span / whole).round() as usize).clamp(1, 8192)
                };
                let spec = RasterSpec {
                    t0: ext[0],
                    t1: ext[1],
                    a0: ext[2] * 1024.0,
                    a1: ext[3] * 1024.0,
                    width: px(ext[1] - ext[0], x1 - x0, frame.width()),
                    height: px(ext[3] - ext[2], y1 - y0, frame.height()),
                    lanes: true,
                };
                let key = (
                    v.generation,
                    [
                        spec.t0.to_bits(),
                        spec.t1.to_bits(),
                        spec.a0.to_bits(),
                        spec.a1.to_bits(),
                    ],
                    [spec.width, spec.height],
                    pal.live.to_array(),
                );
                if cache.key != Some(key) || cache.tex.is_none() {
                    let t0 = std::time::Instant::now();
                    let img = rasterize(run, &spec, pal);
                    let opts = if scale < 1.0 {
                        TextureOptions::LINEAR
                    } else {
                        TextureOptions::NEAREST
                    };
                    match &mut cache.tex {
                        Some(t) => t.set(img, opts),
                        None => {
                            cache.tex = Some(ctx.load_texture(
                                if is_baseline { "layout-b" } else { "layout" },
                                img,
                                opts,
                            ));
                        }
                    }
                    cache.key = Some(key);
                    built_ms = Some((t0.elapsed().as_secs_f64() * 1e3, scale));
                }
                if let Some(t) = &cache.tex {
                    p.image(
                        PlotImage::new(
                            "heap map",
                            t.id(),
                            PlotPoint::new((ext[0] + ext[1]) / 2.0, (ext[2] + ext[3]) / 2.0),
                            [(ext[1] - ext[0]) as f32, (ext[3] - ext[2]) as f32],
                        )
                        .allow_hover(false),
                    );
                }
                let step = (run.geometry.banks / 16).max(1) as usize;
                for i in (step as u32..run.geometry.banks).step_by(step) {
                    p.hline(
                        HLine::new("bank boundary", f64::from(i) * bank_kib)
                            .color(pal.guide)
                            .width(1.0)
                            .allow_hover(false),
                    );
                }
                p.hline(heap_top(heap_kib, pal));
                // KVM's permanent space (class data, never collected) over the raster's "free" there: it is
                // why its bank stays powered all run (#19).
                if let Some([p0, p1]) = now::permanent_space(run) {
                    let (a, b) = (p0 as f64 / 1024.0, p1 as f64 / 1024.0);
                    p.polygon(
                        Polygon::new(
                            "permanent space",
                            vec![[0.0, a], [v.duration_s, a], [v.duration_s, b], [0.0, b]],
                        )
                        .fill_color(pal.permanent)
                        .stroke(egui::Stroke::NONE)
                        .allow_hover(false),
                    );
                }
                super::highlight::heap(p, st, pal, bank_kib, run.geometry.banks);
                p.vline(playhead(st, pal));
                if let Some(w) = &st.worst
                    && !is_baseline
                    && w.generation == v.generation
                {
                    for (i, win) in w.windows.iter().enumerate().take(1) {
                        let s = win.start_ns as f64 * 1e-9;
                        let _ = i;
                        p.vline(VLine::new("worst window", s).color(pal.warn).width(1.0));
                        p.vline(
                            VLine::new("worst window", s + w.window_ms * 1e-3)
                                .color(pal.warn)
                                .width(1.0),
                        );
                    }
                }
                let hover = p.pointer_coordinate();
                let clicked = p.response().clicked();
                (hover, clicked)
            });
            if let Some((ms, scale)) = built_ms {
                if scale >= 1.0 {
                    self.last_raster_ms = ms;
                }
                self.rebuilds += 1;
            }
            if wheel_zoom.is_some() && resp.response.hovered() {
                // The wheel zoomed the map: it must not also scroll the page around it.
                ui.input_mut(|i| i.smooth_scroll_delta.y = 0.0);
            }
            let (hover, clicked) = resp.inner;
            if clicked {
                seek_on_click(hover.map(|h| h.x), cmds);
            }
            if let Some(h) = hover
                && resp.response.hovered()
            {
                let text = describe(run, h.x, h.y * 1024.0);
                resp.response.on_hover_text_at_pointer(text);
            }
            // The heap at the playhead, aligned with the plot's address range.
            let frame = *resp.transform.frame();
            let bounds = *resp.transform.bounds();
            self.shown_t[usize::from(is_baseline)] = [bounds.min()[0], bounds.max()[0]];
            self.map_rect[usize::from(is_baseline)] = Some(frame);
            super::note_time_plot(
                ui,
                if is_baseline {
                    "layout-baseline"
                } else {
                    "layout"
                },
                &resp.transform,
            );
            now_column(
                ui,
                now_w(avail_w),
                run,
                playhead_t,
                super::fade::fade_ns(st.playback.speed),
                pal,
                frame,
                bounds.min()[1],
                bounds.max()[1],
                &super::highlight::banks(st, run.geometry.banks),
            );
        });
    }
}

/// The part `[t0, t1, a0, a1]` of the visible bounds (`x`, `y`) that lies inside the map's extent (`tx` in s, `ay`
/// in KiB), or `None` when the view shows none of it. The heap image is drawn only there.
pub fn image_extent(x: [f64; 2], y: [f64; 2], tx: [f64; 2], ay: [f64; 2]) -> Option<[f64; 4]> {
    let (t0, t1) = (x[0].max(tx[0]), x[1].min(tx[1]));
    let (a0, a1) = (y[0].max(ay[0]), y[1].min(ay[1]));
    (t1 > t0 && a1 > a0).then_some([t0, t1, a0, a1])
}

/// The legend under the heading: colour, name, hover text.
fn legend_items(
    pal: &Palette,
    permanent: bool,
) -> Vec<(egui::Color32, &'static str, &'static str)> {
    let items = [
        (pal.live, "live", "reachable objects"),
        (
            pal.dead,
            "dead, not yet collected",
            "unreachable objects the next collection reclaims",
        ),
        (
            pal.permanent,
            "permanent space",
            "KVM's permanent space at the top of the heap: class data written at start-up and never \
                 collected, so its bank is powered all run",
        ),
        (
            pal.free_active,
            "free, bank active",
            "free memory in a powered bank: full leakage",
        ),
        (
            pal.free_gated,
            "free, bank gated",
            "a bank cut from its supply: 5 % leakage, nothing stored",
        ),
        (
            pal.free_waking,
            "bank waking",
            "a gated bank being resynchronised before use (a stall)",
        ),
        (
            pal.gc,
            "collection",
            "a garbage collection: the program stops while it runs",
        ),
        (
            pal.playhead,
            "playhead",
            "the instant shown beside the map and marked in every view",
        ),
        (
            pal.bank_active,
            "bank powered (lane)",
            "the narrow lane beside the heap at the playhead, and the map's bank lines: a powered bank",
        ),
        (
            pal.bank_gated,
            "bank gated (lane)",
            "the lane and bank lines of a bank cut from its supply",
        ),
    ];
    // Only a heap with a permanent space (kvm-soc) lists it.
    items
        .into_iter()
        .filter(|i| permanent || i.1 != "permanent space")
        .collect()
}

/// The heap-layout view for a GC log: no map (a log has no addresses), its pauses and occupancy on one time axis.
pub fn of_log(
    ui: &mut egui::Ui,
    st: &crate::gui::state::AppState,
    log: &crate::gui::log::LogView,
    pal: &crate::gui::theme::Palette,
    cmds: &mut Vec<crate::gui::command::Command>,
) {
    super::unavailable(
        ui,
        pal,
        "No heap layout in a GC log",
        "A GC log records pauses and heap totals, not where objects are: there is no address × time map \
         and no bank power state. Open a gclab trace (.gct) for a layout, or close the log to see the \
         simulated run's. Below: the log's pauses and heap occupancy on the same time axis.",
    );
    let h = ui.available_height();
    super::pauses::with_occupancy(ui, st, log, pal, cmds, h * 0.5);
}
