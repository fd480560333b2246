//! Drawing a trace: coverage of the address × time map rasterised at the view's pixel size (level of detail: one
//! coverage add per object and address row), the fixed overview grid and its column at the playhead, and what lies
//! under the pointer.

use egui::ColorImage;

use super::index::{addr_at, resident_at};
use super::*;
use crate::gui::theme::Palette;
use crate::gui::views::raster::{Acc, GC_LANE_FRACTION};

impl TraceReplay {
    /// Calls `seg(start, end, addr_bytes, size_bytes, death)` for each constant-address stretch of each object
    /// alive at some point of `[t0, t1)` (ticks).
    pub(super) fn for_each_segment(
        &self,
        t0: u32,
        t1: u32,
        mut seg: impl FnMut(u32, u32, u64, u64, u32),
    ) {
        let n = self.alloc.partition_point(|&a| a < t1);
        let mut mv = 0usize;
        for i in 0..n {
            let freed = self.freed[i];
            if freed <= t0 {
                continue;
            }
            let size = u64::from(self.size[i]);
            let mut addr = u64::from(self.addr[i]) * self.granule;
            let mut start = self.alloc[i];
            let death = self.death[i];
            // Moves are sorted by object: advance to this object's.
            if !self.moves.is_empty() {
                mv += self.moves[mv..].partition_point(|m| (m.obj as usize) < i);
                while let Some(m) = self.moves.get(mv).filter(|m| m.obj as usize == i) {
                    seg(start, m.t, addr, size, death);
                    start = m.t;
                    addr = u64::from(m.addr) * self.granule;
                    mv += 1;
                }
            }
            seg(start, freed.min(self.end), addr, size, death);
        }
    }

    /// Live and dead coverage of the `w × h` cells of `[t0, t1) × [a0, a1)` (ticks, bytes); row 0 at `a1`.
    pub(super) fn coverage(&self, t0: f64, t1: f64, a0: f64, a1: f64, w: usize, h: usize) -> Acc {
        let mut acc = Acc::new(w, h);
        let dt = (t1 - t0) / w as f64;
        let da = (a1 - a0) / h as f64;
        if !(dt > 0.0 && da > 0.0) {
            return acc;
        }
        let col = |t: u32| (f64::from(t) - t0) / dt;
        let row = |a: f64| (a1 - a) / da;
        let (lo, hi) = (
            t0.max(0.0) as u32,
            t1.min(f64::from(NEVER - 1)).ceil() as u32,
        );
        self.for_each_segment(lo, hi, |s, e, addr, size, death| {
            if e <= s {
                return;
            }
            let (y0, y1) = (row((addr + size) as f64), row(addr as f64));
            if y1 <= 0.0 || y0 >= h as f64 {
                return;
            }
            if death > s {
                acc.add(false, col(s), col(e.min(death)), y0, y1);
            }
            if death < e {
                acc.add(true, col(s.max(death)), col(e), y0, y1);
            }
        });
        acc
    }

    pub(super) fn overview_grid(&self) -> Overview {
        let (w, h) = (OVERVIEW_COLS, OVERVIEW_ROWS);
        let acc = self.coverage(0.0, f64::from(self.end), 0.0, self.heap_bytes as f64, w, h);
        let mut o = Overview {
            cols: w,
            rows: h,
            live: vec![0; w * h],
            dead: vec![0; w * h],
        };
        for r in 0..h {
            let (mut l, mut d) = (0f32, 0f32);
            let row = r * acc.stride;
            // Row r of the coverage is at the top; the grid's row 0 is address 0.
            let gr = h - 1 - r;
            for c in 0..w {
                l += acc.live[row + c];
                d += acc.dead[row + c];
                o.live[c * h + gr] = (l.clamp(0.0, 1.0) * 255.0).round() as u8;
                o.dead[c * h + gr] = (d.clamp(0.0, 1.0) * 255.0).round() as u8;
            }
        }
        o
    }

    /// The overview column at `t` seconds: `(live, dead)` coverage per address row, address 0 first.
    pub fn column_at(&self, t: f64) -> (&[u8], &[u8]) {
        let o = &self.overview;
        if o.cols == 0 {
            return (&[], &[]);
        }
        let f = (t / self.duration_s().max(1e-12)).clamp(0.0, 1.0);
        let c = ((f * o.cols as f64) as usize).min(o.cols - 1);
        (
            &o.live[c * o.rows..(c + 1) * o.rows],
            &o.dead[c * o.rows..(c + 1) * o.rows],
        )
    }

    /// True when the overview grid has at least one column per pixel for `[t0, t1)` seconds at `w` pixels, so
    /// [`TraceReplay::rasterize_overview`] draws it as sharply as a full raster.
    pub fn overview_suffices(
        &self,
        (t0, t1): (f64, f64),
        (a0, a1): (f64, f64),
        (w, h): (usize, usize),
    ) -> bool {
        let visible = (t1.min(self.duration_s()) - t0.max(0.0)) / self.duration_s().max(1e-12);
        let heap = self.heap_bytes as f64;
        let rows = (a1.min(heap) - a0.max(0.0)) / heap.max(1.0);
        visible * self.overview.cols as f64 >= w as f64 * 0.9
            && rows * self.overview.rows as f64
                >= h as f64 * 0.9 * (a1 - a0).min(heap) / (a1 - a0).max(1.0)
    }

    /// The view drawn from the overview grid (nearest sample per pixel): O(pixels), whatever the object count —
    /// exact enough when [`TraceReplay::overview_suffices`], a coarse preview while a zoomed raster is computed.
    pub fn rasterize_overview(
        &self,
        (t0, t1): (f64, f64),
        (a0, a1): (f64, f64),
        (w, h): (usize, usize),
        pal: &Palette,
    ) -> ColorImage {
        let (w, h) = (w.max(1), h.max(1));
        let bg = Palette::blend(&[(pal.guide, 0.12), (pal.free_active, 0.88)]);
        let mut img = ColorImage::filled([w, h], bg);
        let o = &self.overview;
        let dur = self.duration_s();
        if o.cols == 0 || dur <= 0.0 {
            return img;
        }
        let heap_top = self.heap_bytes as f64;
        let lane_top = heap_top * (1.0 + GC_LANE_FRACTION);
        let dt = (t1 - t0) / w as f64;
        let da = (a1 - a0) / h as f64;
        let cols: Vec<Option<usize>> = (0..w)
            .map(|c| {
                let t = t0 + (c as f64 + 0.5) * dt;
                (0.0..dur)
                    .contains(&t)
                    .then(|| ((t / dur * o.cols as f64) as usize).min(o.cols - 1))
            })
            .collect();
        let gc_cols: Vec<bool> = (0..w)
            .map(|c| {
                let (a, b) = (
                    self.ticks(t0 + c as f64 * dt),
                    self.ticks(t0 + (c + 1) as f64 * dt),
                );
                let i = self.collections.partition_point(|g| g.1 < a);
                self.collections.get(i).is_some_and(|g| g.0 <= b)
            })
            .collect();
        let lane_bg = Palette::blend(&[(pal.guide, 0.3), (pal.free_active, 0.7)]);
        for r in 0..h {
            let centre = a1 - (r as f64 + 0.5) * da;
            let px = &mut img.pixels[r * w..(r + 1) * w];
            if centre >= heap_top && centre < lane_top {
                for ((p, col), gc) in px.iter_mut().zip(&cols).zip(&gc_cols) {
                    if col.is_some() {
                        *p = if *gc { pal.gc } else { lane_bg };
                    }
                }
                continue;
            }
            if centre < 0.0 || centre >= heap_top {
                continue;
            }
            let gr = ((centre / heap_top * o.rows as f64) as usize).min(o.rows - 1);
            for (p, col) in px.iter_mut().zip(&cols) {
                let Some(c) = col else { continue };
                let l = f32::from(o.live[c * o.rows + gr]) / 255.0;
                let d = (f32::from(o.dead[c * o.rows + gr]) / 255.0).min(1.0 - l);
                let f = 1.0 - l - d;
                *p = if f >= 0.999 {
                    pal.free_active
                } else {
                    Palette::blend(&[(pal.live, l), (pal.dead, d), (pal.free_active, f)])
                };
            }
        }
        img
    }

    /// Rasterises `[t0, t1) × [a0, a1)` (seconds, bytes) at `w × h` pixels; a GC lane above the heap's top.
    /// O(objects allocated before `t1` + address rows of those alive in the range): run it off the UI thread.
    pub fn rasterize(
        &self,
        (t0, t1): (f64, f64),
        (a0, a1): (f64, f64),
        (w, h): (usize, usize),
        pal: &Palette,
    ) -> ColorImage {
        let (w, h) = (w.max(1), h.max(1));
        let bg = Palette::blend(&[(pal.guide, 0.12), (pal.free_active, 0.88)]);
        let mut img = ColorImage::filled([w, h], bg);
        let tick_s = self.tick_ns as f64 * 1e-9;
        let (k0, k1) = (t0 / tick_s, t1 / tick_s);
        let acc = self.coverage(k0, k1, a0, a1, w, h);
        let da = (a1 - a0) / h as f64;
        let dt = (k1 - k0) / w as f64;
        if !(da > 0.0 && dt > 0.0) {
            return img;
        }
        let heap_top = self.heap_bytes as f64;
        let lane_top = heap_top * (1.0 + GC_LANE_FRACTION);
        let c_first = ((-k0 / dt).max(0.0).ceil() as usize).min(w);
        let c_last = (((f64::from(self.end) - k0) / dt).max(0.0).floor() as usize + 1).min(w);
        let mut gc_cols = vec![false; w];
        for &(s, e) in &self.collections {
            let (a, b) = ((f64::from(s) - k0) / dt, (f64::from(e) - k0) / dt);
            if b < 0.0 || a >= w as f64 {
                continue;
            }
            let (a, b) = (a.max(0.0) as usize, (b.max(a + 1.0) as usize).min(w));
            for c in gc_cols.iter_mut().take(b.max(a + 1).min(w)).skip(a) {
                *c = true;
            }
        }
        let lane_bg = Palette::blend(&[(pal.guide, 0.3), (pal.free_active, 0.7)]);
        for r in 0..h {
            let centre = a1 - (r as f64 + 0.5) * da;
            let px = &mut img.pixels[r * w..(r + 1) * w];
            if centre >= heap_top && centre < lane_top {
                for (c, p) in px.iter_mut().enumerate().take(c_last).skip(c_first) {
                    *p = if gc_cols[c] { pal.gc } else { lane_bg };
                }
                continue;
            }
            if centre < 0.0 || centre >= heap_top {
                continue;
            }
            let row = r * acc.stride;
            let (mut l, mut d) = (0f32, 0f32);
            let diffs = acc.live[row..row + c_last]
                .iter()
                .zip(&acc.dead[row..row + c_last]);
            for (c, (p, (dl, dd))) in px.iter_mut().zip(diffs).enumerate() {
                l += dl;
                d += dd;
                if c < c_first {
                    continue;
                }
                let lv = l.clamp(0.0, 1.0);
                let dv = d.clamp(0.0, 1.0 - lv);
                let f = 1.0 - lv - dv;
                *p = if f >= 0.999 {
                    pal.free_active
                } else {
                    Palette::blend(&[(pal.live, lv), (pal.dead, dv), (pal.free_active, f)])
                };
            }
        }
        img
    }

    /// What is at `t` seconds and `addr` bytes: the object (size, allocated, dead or live) or free memory.
    pub fn describe(&self, t: f64, addr: f64) -> String {
        let k = self.ticks(t);
        let a = addr.max(0.0) as u64;
        let found = self.object_at(k, a).map(|i| {
            let i = i as usize;
            let at = u64::from(addr_at(self.addr[i], &self.moves, i as u32, k)) * self.granule;
            (at, u64::from(self.size[i]), self.death[i])
        });
        let head = format!(
            "{} at {}\n",
            crate::gui::format::bytes(a),
            crate::gui::format::secs(t)
        );
        match found {
            Some((at, size, death)) => format!(
                "{head}object of {} at {}\n{}",
                crate::gui::format::bytes(size),
                crate::gui::format::bytes(at),
                if death <= k {
                    format!(
                        "DEAD since {} — waiting for a collection",
                        crate::gui::format::secs(self.secs(death))
                    )
                } else {
                    "LIVE (reachable)".to_string()
                }
            ),
            None => format!("{head}free"),
        }
    }

    /// The object resident at byte `a` at tick `k` (the latest allocated, should two overlap), found through
    /// [`TraceReplay::index`].
    pub fn object_at(&self, k: u32, a: u64) -> Option<u32> {
        self.index
            .candidates(a / self.granule)
            .filter(|&i| {
                let u = i as usize;
                if !resident_at(self.alloc[u], self.freed[u], self.end, k) {
                    return false;
                }
                let at = u64::from(addr_at(self.addr[u], &self.moves, i, k)) * self.granule;
                at <= a && a < at + u64::from(self.size[u])
            })
            .max()
    }

    /// The collection start at or after `t` (seconds), or before it when `forward` is false.
    pub fn gc_near(&self, t: f64, forward: bool) -> Option<f64> {
        let eps = 1e-12;
        let starts = || self.collections.iter().map(|c| self.secs(c.0));
        if forward {
            starts().find(|&s| s > t + eps)
        } else {
            starts().rfind(|&s| s < t - eps)
        }
    }
}
