//! A recorded trace in the heap-layout view (as recorded): address × time with live, dead-not-yet-reclaimed and
//! free memory, the trace's collections in a lane on top, and beside it the heap at the playhead — one column of
//! the trace's precomputed overview, so scrubbing costs O(address rows) whatever the object count
//! ([`crate::gui::trace`]). The map texture is rebuilt only when the visible range or size changes.

use egui::{Pos2, Rect, Sense, Stroke, TextureHandle, TextureOptions};
use egui_plot::{PlotImage, PlotPoint};

use crate::background::BackgroundTask;
use crate::gui::command::Command;
use crate::gui::format;
use crate::gui::state::AppState;
use crate::gui::theme::Palette;
use crate::gui::trace::TraceReplay;
use crate::gui::views::raster::GC_LANE_FRACTION;
use crate::gui::views::{heading, heap_top, legend_row, playhead, seek_on_click, time_plot};

/// Width of the "heap at the playhead" column. `[points]`
const NOW_W: f32 = 120.0;

/// What the map's texture depends on: objects, visible range (bits), pixel size, theme.
type MapKey = (usize, [u64; 4], [usize; 2], [u8; 4]);

/// The trace map's texture and what it was built for. A zoomed-in raster is computed as the `trace-raster`
/// [`BackgroundTask`] (one at a time; a raster for a view no longer shown is dropped and the newest view computed
/// next; the overview stands in meanwhile), so the UI never waits for the objects.
pub struct TraceMap {
    key: Option<MapKey>,
    tex: Option<TextureHandle>,
    /// The key of a texture that is only the overview's preview (a sharper raster is on its way).
    preview_of: Option<MapKey>,
    pending: BackgroundTask<(MapKey, egui::ColorImage)>,
    /// The hover text and the pointer position (whole points) it was found for: finding the object under the
    /// pointer scans the objects allocated by then, so it runs only when the pointer moves.
    hover: Option<([i32; 2], String)>,
    /// Time of the last raster rebuild. `[ms]`
    pub last_raster_ms: f64,
    /// Raster rebuilds so far.
    pub rebuilds: u64,
}

impl Default for TraceMap {
    fn default() -> Self {
        TraceMap {
            key: None,
            tex: None,
            preview_of: None,
            pending: BackgroundTask::new("trace-raster", 1),
            hover: None,
            last_raster_ms: 0.0,
            rebuilds: 0,
        }
    }
}

impl TraceMap {
    fn show(&mut self, ctx: &egui::Context, img: egui::ColorImage) {
        match &mut self.tex {
            Some(tex) => tex.set(img, TextureOptions::NEAREST),
            None => self.tex = Some(ctx.load_texture("trace-layout", img, TextureOptions::NEAREST)),
        }
    }

    /// Makes the texture show `key`'s view: from the overview at once when that is sharp enough, else the
    /// overview as a preview and a full raster on the `trace-raster` thread.
    fn update(
        &mut self,
        ctx: &egui::Context,
        t: &std::sync::Arc<TraceReplay>,
        key: MapKey,
        (tr, ar, size): ((f64, f64), (f64, f64), (usize, usize)),
        pal: &Palette,
    ) {
        if let Some((done, img)) = self.pending.poll_latest()
            && Some(done) == self.key
        {
            self.show(ctx, img);
            self.preview_of = None;
        }
        if self.key == Some(key) && self.tex.is_some() {
            if self.preview_of == Some(key) && !self.pending.running() {
                self.spawn(ctx, t, key, (tr, ar, size), pal);
            }
            return;
        }
        let started = std::time::Instant::now();
        let img = t.rasterize_overview(tr, ar, size, pal);
        self.show(ctx, img);
        self.key = Some(key);
        self.last_raster_ms = started.elapsed().as_secs_f64() * 1e3;
        self.rebuilds += 1;
        if t.overview_suffices(tr, ar, size) {
            self.preview_of = None;
        } else {
            self.preview_of = Some(key);
            if !self.pending.running() {
                self.spawn(ctx, t, key, (tr, ar, size), pal);
            }
        }
    }

    fn spawn(
        &mut self,
        ctx: &egui::Context,
        t: &std::sync::Arc<TraceReplay>,
        key: MapKey,
        (tr, ar, size): ((f64, f64), (f64, f64), (usize, usize)),
        pal: &Palette,
    ) {
        let (t2, pal2) = (std::sync::Arc::clone(t), *pal);
        // A raster that cannot start leaves the overview's preview on screen.
        let _ = self.pending.start(Some(ctx), move |sink| {
            let _ = sink.send((key, t2.rasterize(tr, ar, size, &pal2)));
        });
    }
}

/// Draws the trace's map, with the heap at the playhead beside it, in `height` points.
pub fn map(
    ui: &mut egui::Ui,
    st: &AppState,
    t: &std::sync::Arc<TraceReplay>,
    pal: &Palette,
    cache: &mut TraceMap,
    cmds: &mut Vec<Command>,
    height: f32,
) {
    heading(
        ui,
        &format!("Heap layout — {} (as recorded)", t.name),
        "Each pixel column is the recorded heap at one instant: blue live objects, orange objects dead but not \
         yet reclaimed by a collection, pale free memory. Red ticks on top: the trace's collections. Scroll to \
         zoom, drag to pan, double-click to reset, click to move the playhead.",
    );
    legend_row(
        ui,
        &[
            (pal.live, "live", "objects the trace has not declared dead"),
            (
                pal.dead,
                "dead, not yet reclaimed",
                "dead objects waiting for the next collection's end",
            ),
            (pal.free_active, "free", "no object recorded there"),
            (pal.gc, "collection", "a collection recorded in the trace"),
            (pal.playhead, "playhead", "the instant shown beside the map"),
        ],
    );
    ui.weak(format!(
        "{} objects · {} moves · {} collections · heap span {}{}",
        t.len(),
        t.moves.len(),
        t.collections.len(),
        format::bytes(t.heap_bytes),
        if t.synthetic_addresses {
            " · no addresses in the trace: laid out in allocation order".to_string()
        } else if t.collapsed_pages > 0 {
            format!(
                " · address axis: only the {} MiB pages that held objects, end to end",
                t.collapsed_pages
            )
        } else {
            String::new()
        }
    ));
    let h = (height - 70.0).max(80.0);
    let heap_kib = t.heap_bytes as f64 / 1024.0;
    let top_kib = heap_kib * (1.0 + GC_LANE_FRACTION);
    let ppp = ui.ctx().pixels_per_point();
    let ctx = ui.ctx().clone();
    let avail_w = ui.available_width();
    let dur = t.duration_s();
    ui.horizontal(|ui| {
        let resp = time_plot(ui, "trace-layout")
            .height(h)
            .width((avail_w - NOW_W - 12.0).max(100.0))
            .y_axis_label("address [KiB]")
            .include_x(0.0)
            .include_x(dur)
            .include_y(0.0)
            .include_y(top_kib)
            .set_margin_fraction(egui::vec2(0.0, 0.0))
            .show_grid([false, false])
            .allow_double_click_reset(true)
            .show(ui, |p| {
                // The lesson step's time range, once; its time spans, collections and address bands on top.
                crate::gui::views::highlight::zoom_once(p, st);
                let b = p.plot_bounds();
                let frame = *p.transform().frame();
                let (w, hh) = (
                    ((frame.width() * ppp).round() as usize).clamp(1, 8192),
                    ((frame.height() * ppp).round() as usize).clamp(1, 8192),
                );
                let (t0, t1) = (b.min()[0], b.max()[0]);
                let (a0, a1) = (b.min()[1] * 1024.0, b.max()[1] * 1024.0);
                let key = (
                    t.len(),
                    [t0.to_bits(), t1.to_bits(), a0.to_bits(), a1.to_bits()],
                    [w, hh],
                    pal.live.to_array(),
                );
                cache.update(&ctx, t, key, ((t0, t1), (a0, a1), (w, hh)), pal);
                if let Some(tex) = &cache.tex {
                    p.image(
                        PlotImage::new(
                            "recorded heap",
                            tex.id(),
                            PlotPoint::new((t0 + t1) / 2.0, (b.min()[1] + b.max()[1]) / 2.0),
                            [(t1 - t0) as f32, (b.max()[1] - b.min()[1]) as f32],
                        )
                        .allow_hover(false),
                    );
                }
                p.hline(heap_top(heap_kib, pal));
                // A trace has no banks: bank highlights are left out (0 banks).
                crate::gui::views::highlight::heap(p, st, pal, 0.0, 0);
                p.vline(playhead(st, pal));
                (p.pointer_coordinate(), p.response().clicked())
            });
        let (hover, clicked) = resp.inner;
        if clicked {
            seek_on_click(hover.map(|h| h.x), cmds);
        }
        if let Some(hp) = hover
            && let Some(pos) = resp.response.hover_pos()
        {
            let at = [pos.x.round() as i32, pos.y.round() as i32];
            let text = match &cache.hover {
                Some((p, text)) if *p == at => text.clone(),
                _ => {
                    let text = t.describe(hp.x, hp.y * 1024.0);
                    cache.hover = Some((at, text.clone()));
                    text
                }
            };
            resp.response.on_hover_text_at_pointer(text);
        }
        let frame = *resp.transform.frame();
        let bounds = *resp.transform.bounds();
        now_column(
            ui,
            t,
            st.playback.playhead,
            pal,
            frame,
            bounds.min()[1],
            bounds.max()[1],
        );
    });
}

/// The heap at the playhead, from the overview grid, aligned with the map's address range.
fn now_column(
    ui: &mut egui::Ui,
    t: &TraceReplay,
    at: f64,
    pal: &Palette,
    frame: Rect,
    y0_kib: f64,
    y1_kib: f64,
) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(NOW_W, frame.height()), Sense::hover());
    let rect = Rect::from_min_max(
        Pos2::new(rect.min.x, frame.min.y),
        Pos2::new(rect.max.x, frame.max.y),
    );
    let painter = ui.painter_at(rect);
    let bar = Rect::from_min_max(rect.min, Pos2::new(rect.min.x + 60.0, rect.max.y));
    let heap_kib = t.heap_bytes as f64 / 1024.0;
    let y_of = |k: f64| rect.max.y - ((k - y0_kib) / (y1_kib - y0_kib)) as f32 * rect.height();
    painter.rect_filled(
        Rect::from_min_max(
            Pos2::new(bar.min.x, y_of(heap_kib).max(rect.min.y)),
            Pos2::new(bar.max.x, y_of(0.0).min(rect.max.y)),
        ),
        0.0,
        pal.free_active,
    );
    let (live, dead) = t.column_at(at);
    let rows = live.len();
    // One line per screen pixel row at most (level of detail): grid rows are merged into pixel rows.
    let px_rows = rect.height().max(1.0) as usize;
    let mut acc_l = vec![0u32; px_rows];
    let mut acc_d = vec![0u32; px_rows];
    let mut cnt = vec![0u32; px_rows];
    for r in 0..rows {
        let k = (r as f64 + 0.5) / rows as f64 * heap_kib;
        let y = y_of(k) - rect.min.y;
        if !(0.0..px_rows as f32).contains(&y) {
            continue;
        }
        let i = y as usize;
        acc_l[i] += u32::from(live[r]);
        acc_d[i] += u32::from(dead[r]);
        cnt[i] += 1;
    }
    // Grid rows thinner than pixel rows: each grid row fills the pixel rows it spans.
    let row_px =
        (rect.height() as f64 * heap_kib / (y1_kib - y0_kib) / rows as f64).max(1.0) as f32;
    for i in 0..px_rows {
        if cnt[i] == 0 {
            continue;
        }
        let l = acc_l[i] as f32 / cnt[i] as f32 / 255.0;
        let d = acc_d[i] as f32 / cnt[i] as f32 / 255.0;
        if l + d <= 0.01 {
            continue;
        }
        let c = if l >= d { pal.live } else { pal.dead };
        let w = (l + d).clamp(0.0, 1.0) * bar.width();
        let y = rect.min.y + i as f32 + 0.5;
        painter.rect_filled(
            Rect::from_min_max(
                Pos2::new(bar.min.x, y - row_px.max(1.0) / 2.0),
                Pos2::new(bar.min.x + w, y + row_px.max(1.0) / 2.0),
            ),
            0.0,
            c,
        );
    }
    painter.rect_stroke(
        bar,
        0.0,
        Stroke::new(1.0, pal.guide),
        egui::StrokeKind::Outside,
    );
    painter.text(
        Pos2::new(bar.min.x, rect.min.y + 2.0),
        egui::Align2::LEFT_TOP,
        format!("at {}", format::secs(at)),
        egui::FontId::proportional(11.0),
        ui.visuals().text_color(),
    );
}
