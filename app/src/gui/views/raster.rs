//! Rasterises a run's heap layout (address × time) into an image at exactly the view's pixel size: each pixel is
//! the area-weighted mix of live, dead-not-yet-collected and free memory in its (time × address) cell, with free
//! memory tinted by its bank's power state, a power-state lane at the foot of each bank, and a GC lane on top.
//!
//! Cost: O(objects in the time range × address rows each spans + pixels). Each object adds its coverage to
//! per-row difference arrays over columns (first partial column, full run, last partial column), so an object
//! that lives across the whole view costs the same as a short one; a prefix sum per row then yields coverage.
//! Level of detail is automatic: never more work per object than its address rows, never more pixels than the
//! view has.

use egui::{Color32, ColorImage};
use gclab_core::BankState;
use gclab_core::Run;

use crate::gui::theme::Palette;

/// Height of the GC lane drawn just above the heap's top address, as a fraction of the heap size.
pub const GC_LANE_FRACTION: f64 = 0.05;

/// What to rasterise: a time range, an address range and a pixel size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RasterSpec {
    /// Time range. `[s]`
    pub t0: f64,
    /// End of the time range. `[s]`
    pub t1: f64,
    /// Address range, from the heap base. `[bytes]`
    pub a0: f64,
    /// End of the address range. `[bytes]`
    pub a1: f64,
    /// Image width. `[px]`
    pub width: usize,
    /// Image height. `[px]`
    pub height: usize,
    /// Draw each bank's power-state lane.
    pub lanes: bool,
}

/// Per-row difference buffers, one for live and one for dead coverage, for the rows `[row0, row1)` of the image.
pub(crate) struct Acc {
    w: usize,
    row0: usize,
    row1: usize,
    /// Row length in the buffers (`w + 2`).
    pub(crate) stride: usize,
    /// Live coverage differences, row-major from `row0`.
    pub(crate) live: Vec<f32>,
    /// Dead coverage differences, row-major from `row0`.
    pub(crate) dead: Vec<f32>,
    /// Per row from `row0`: whether any coverage was added (an untouched row is free memory throughout).
    pub(crate) touched: Vec<bool>,
}

impl Acc {
    /// Zeroed buffers for a `w × h` image.
    pub(crate) fn new(w: usize, h: usize) -> Acc {
        Acc::rows(w, 0, h)
    }

    /// Zeroed buffers for the rows `[row0, row1)` of a `w`-wide image: what falls outside them is not kept, and
    /// what falls inside is summed exactly as in the whole image's buffers (the same operations in the same order).
    pub(crate) fn rows(w: usize, row0: usize, row1: usize) -> Acc {
        let stride = w + 2;
        let n = stride * row1.saturating_sub(row0);
        Acc {
            w,
            row0,
            row1,
            stride,
            live: vec![0.0; n],
            dead: vec![0.0; n],
            touched: vec![false; row1.saturating_sub(row0)],
        }
    }

    /// True when rows `[y0, y1)` (fractional) miss this band.
    fn misses(&self, y0: f64, y1: f64) -> bool {
        y1 <= self.row0 as f64 || y0 >= self.row1 as f64
    }

    /// Adds coverage of the cell block `[x0, x1) × [y0, y1)` (fractional column and row units).
    pub(crate) fn add(&mut self, dead: bool, x0: f64, x1: f64, y0: f64, y1: f64) {
        let c = self.cols(x0, x1);
        if dead {
            self.add_spans(None, c, y0, y1);
        } else {
            self.add_spans(c, None, y0, y1);
        }
    }

    /// The columns `[x0, x1)` (fractional) cover inside the image, `None` when none.
    #[inline]
    pub(crate) fn cols(&self, x0: f64, x1: f64) -> Option<Cols> {
        let x0 = if x0 > 0.0 { x0 } else { 0.0 };
        let x1 = if x1 < self.w as f64 {
            x1
        } else {
            self.w as f64
        };
        if x1 <= x0 {
            return None;
        }
        let (c0, c1) = (cell(x0), cell(x1).min(self.w));
        // The column weights are the same in every row: the whole width inside one column, or the first and the
        // last column's parts.
        Some(Cols {
            c0,
            c1,
            inside: (x1 - x0) as f32,
            first: ((c0 + 1) as f64 - x0) as f32,
            last: (x1 - c1 as f64) as f32,
        })
    }

    /// Adds one object's live and dead coverage (columns from [`Acc::cols`]) over the rows `[y0, y1)`: the row
    /// weights are worked out once for both. Each buffer receives exactly what [`Acc::add`] would add to it.
    ///
    /// Every hot operation is an exact stand-in for the plain one (the pixels are bit-identical, a test below
    /// checks): clamps by comparison instead of `f64::max`/`min` (their NaN handling costs instructions, and a
    /// NaN bound clamps the same way here), and whole cells by [`cell`]/[`cell_ceil`] instead of a saturating
    /// `as usize` and a `ceil` call — the block lies inside the image, so every bound is in `[0, 2³¹)`.
    #[inline]
    pub(crate) fn add_spans(&mut self, live: Option<Cols>, dead: Option<Cols>, y0: f64, y1: f64) {
        if live.is_none() && dead.is_none() {
            return;
        }
        let (row0, row1) = (self.row0 as f64, self.row1 as f64);
        let y0 = if y0 > row0 { y0 } else { row0 };
        let y1 = if y1 < row1 { y1 } else { row1 };
        if y1 <= y0 {
            return;
        }
        let stride = self.stride;
        let r0 = cell(y0);
        let r1 = cell_ceil(y1).min(self.row1);
        for r in r0..r1 {
            let rf = r as f64;
            let hi = if y1 < rf + 1.0 { y1 } else { rf + 1.0 };
            let lo = if y0 > rf { y0 } else { rf };
            let wy = (hi - lo) as f32;
            if wy <= 0.0 {
                continue;
            }
            self.touched[r - self.row0] = true;
            let at = (r - self.row0) * stride;
            if let Some(c) = &live {
                c.add_to(&mut self.live[at..at + stride], wy);
            }
            if let Some(c) = &dead {
                c.add_to(&mut self.dead[at..at + stride], wy);
            }
        }
    }
}

/// The columns one span covers in every row it reaches, with their weights ([`Acc::cols`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cols {
    c0: usize,
    c1: usize,
    /// Width inside one column (`c0 == c1`).
    inside: f32,
    /// Part of the first column covered.
    first: f32,
    /// Part of the last column covered.
    last: f32,
}

impl Cols {
    /// Adds the span at row weight `wy` to one row's difference buffer.
    #[inline]
    fn add_to(&self, row: &mut [f32], wy: f32) {
        let (c0, c1) = (self.c0, self.c1);
        if c0 == c1 {
            let v = wy * self.inside;
            row[c0] += v;
            row[c0 + 1] -= v;
        } else {
            let p0 = wy * self.first;
            row[c0] += p0;
            row[c0 + 1] -= p0;
            row[c0 + 1] += wy;
            row[c1] -= wy;
            let p1 = wy * self.last;
            row[c1] += p1;
            row[c1 + 1] -= p1;
        }
    }
}

/// The cell holding `x` (`x as usize` for `x` in `[0, 2³¹)`, without the saturating conversion's range fix-ups).
#[inline]
fn cell(x: f64) -> usize {
    debug_assert!((0.0..2_147_483_648.0).contains(&x), "{x}");
    x as i32 as usize
}

/// `x.ceil() as usize` for `x` in `[0, 2³¹)`, without the call to `ceil` (the target has no rounding instruction).
#[inline]
fn cell_ceil(x: f64) -> usize {
    let t = cell(x);
    if (t as f64) < x { t + 1 } else { t }
}

/// Rasterises `run` for `spec`. Rows run from the top (high addresses) down. A large image is drawn in bands of
/// rows, one per core (`crate::parallel`), of about equal work ([`Frame::bands_of_equal_work`]): each band walks
/// the objects but adds only the rows it holds, so every pixel is summed exactly as in one pass.
pub fn rasterize(run: &Run, spec: &RasterSpec, pal: &Palette) -> ColorImage {
    let (w, h) = (spec.width.max(1), spec.height.max(1));
    let top = spec.a1;
    let da = (top - spec.a0) / h as f64;
    let dt = (spec.t1 - spec.t0) / w as f64;
    let bg = Palette::blend(&[(pal.guide, 0.12), (pal.free_active, 0.88)]);
    let mut img = ColorImage::filled([w, h], bg);
    if !(da > 0.0 && dt > 0.0) {
        return img;
    }
    let col_of = |t_ns: u64| (t_ns as f64 * 1e-9 - spec.t0) / dt;
    // Bank state per (bank, column), sampled at the column's centre.
    let g = run.geometry;
    let banks = g.banks as usize;
    let mut state = vec![None::<BankState>; banks * w];
    for b in &run.banks {
        let bi = b.bank as usize;
        if bi >= banks {
            continue;
        }
        let c0 = (col_of(b.start.0) - 0.5).ceil().max(0.0) as usize;
        let end = if b.end == run.duration {
            f64::INFINITY
        } else {
            col_of(b.end.0)
        };
        let c1 = ((end - 0.5).ceil().min(w as f64)).max(0.0) as usize;
        for s in state[bi * w..].iter_mut().take(c1).skip(c0) {
            *s = Some(b.state);
        }
    }
    let ctx = Frame {
        run,
        spec,
        pal,
        w,
        top,
        da,
        dt,
        state: &state,
    };
    // Bands only pay when there is work to share: a small image or a short run is drawn in one.
    let cores = std::thread::available_parallelism().map_or(1, |p| p.get());
    let objects = run.layout.objects.len();
    let n_bands = if w * h >= 64 * 1024 && objects >= 20_000 {
        cores.clamp(1, 4).min(h)
    } else {
        1
    };
    let bands = if n_bands > 1 {
        ctx.bands_of_equal_work(h, n_bands)
    } else {
        vec![(0, h)]
    };
    let drawn = if n_bands > 1 {
        crate::parallel::map_on_cores(&bands, "heap-raster", |&(a, b)| ctx.band(a, b))
    } else {
        vec![None]
    };
    let mut lane_rows_gc = Vec::new();
    for (&(a, b), got) in bands.iter().zip(drawn) {
        // A band whose worker could not run is drawn here.
        let (pixels, lanes) = got.unwrap_or_else(|| ctx.band(a, b));
        img.pixels[a * w..b * w].copy_from_slice(&pixels);
        lane_rows_gc.extend(lanes);
    }
    // GC lane: a tick in every column holding a collection.
    let dur = run.duration.as_secs_f64();
    let (c_first, c_last) = ctx.run_columns(dur);
    let lane_bg = Palette::blend(&[(pal.guide, 0.3), (pal.free_active, 0.7)]);
    let mut gc_cols = vec![false; w];
    for e in &run.gc_events {
        let (a, b) = (col_of(e.start.0), col_of(e.end.0));
        if b < 0.0 || a >= w as f64 {
            continue;
        }
        let (a, b) = (a.max(0.0) as usize, (b.max(a + 1.0) as usize).min(w));
        for c in gc_cols.iter_mut().take(b.max(a + 1).min(w)).skip(a) {
            *c = true;
        }
    }
    for r in lane_rows_gc {
        let px = &mut img.pixels[r * w..(r + 1) * w];
        for (c, p) in px.iter_mut().enumerate().take(c_last).skip(c_first) {
            *p = if gc_cols[c] { pal.gc } else { lane_bg };
        }
    }
    img
}

/// What every band of one raster shares.
struct Frame<'a> {
    run: &'a Run,
    spec: &'a RasterSpec,
    pal: &'a Palette,
    w: usize,
    /// Address at the top row. `[bytes]`
    top: f64,
    /// Bytes per row.
    da: f64,
    /// Seconds per column.
    dt: f64,
    /// Bank state per (bank, column).
    state: &'a [Option<BankState>],
}

impl Frame<'_> {
    fn col_of(&self, t_ns: u64) -> f64 {
        (t_ns as f64 * 1e-9 - self.spec.t0) / self.dt
    }

    fn row_of(&self, addr: f64) -> f64 {
        (self.top - addr) / self.da
    }

    /// The columns inside the run `[first, last)` (others keep the background).
    fn run_columns(&self, dur: f64) -> (usize, usize) {
        let (t0, dt, w) = (self.spec.t0, self.dt, self.w);
        let c_first = ((-t0 / dt).max(0.0).ceil() as usize).min(w);
        let c_last = (((dur - t0) / dt).max(0.0).floor() as usize + 1).min(w);
        (c_first, c_last)
    }

    /// `n` bands of rows `[a, b)` covering `[0, h)` with about the same work each, so that no core waits long for
    /// another: the objects crowd where the collector keeps them (the low banks), so equal heights would leave one
    /// band with nearly every span. A row's work is estimated as its pixels (filled or blended) plus the objects
    /// allocated into it (moves aside) at a span's cost; which band draws a row does not change its pixels.
    fn bands_of_equal_work(&self, h: usize, n: usize) -> Vec<(usize, usize)> {
        // Rough costs in instructions: a free pixel, a pixel of a row holding objects, one object row's spans.
        const FREE_PX: usize = 2;
        const BUSY_PX: usize = 10;
        const SPAN_ROW: usize = 100;
        // An estimate: every 8th object, its rows by a multiplication (what the bands then draw is exact).
        const SAMPLE: usize = 8;
        let t1_ns = (self.spec.t1 * 1e9).max(0.0) as u64;
        let t0_ns = (self.spec.t0 * 1e9).max(0.0) as u64;
        let objects = &self.run.layout.objects;
        let per_byte = 1.0 / self.da;
        let mut per_row = vec![0usize; h];
        let in_time = objects.partition_point(|o| o.alloc.0 <= t1_ns);
        for o in objects[..in_time].iter().step_by(SAMPLE) {
            if o.freed.0 <= t0_ns {
                continue;
            }
            let y0 = (self.top - (o.addr + o.size) as f64) * per_byte;
            let y1 = (self.top - o.addr as f64) * per_byte;
            if y1 <= 0.0 || y0 >= h as f64 {
                continue;
            }
            let (r0, r1) = ((y0.max(0.0) as usize).min(h - 1), (y1 as usize + 1).min(h));
            for c in &mut per_row[r0..r1.max(r0 + 1)] {
                *c += SAMPLE;
            }
        }
        let work: Vec<usize> = per_row
            .iter()
            .map(|&k| self.w * if k > 0 { BUSY_PX } else { FREE_PX } + k * SPAN_ROW)
            .collect();
        let total: usize = work.iter().sum();
        let mut bands = Vec::with_capacity(n);
        let (mut start, mut acc) = (0, 0);
        for (r, wk) in work.iter().enumerate() {
            acc += wk;
            // Close band `i` once it holds its share (at least one row each; the last takes the rest).
            let i = bands.len();
            if i + 1 < n && acc * n >= total * (i + 1) && h - (r + 1) >= n - (i + 1) {
                bands.push((start, r + 1));
                start = r + 1;
            }
        }
        bands.push((start, h));
        bands
    }

    /// The coverage of rows `[a, b)`: every object's live and dead spans that reach them.
    fn coverage(&self, a: usize, b: usize) -> Acc {
        let mut acc = Acc::rows(self.w, a, b);
        let layout = &self.run.layout;
        let t1_ns = (self.spec.t1 * 1e9).max(0.0) as u64;
        let t0_ns = (self.spec.t0 * 1e9).max(0.0) as u64;
        let n = layout.objects.partition_point(|o| o.alloc.0 <= t1_ns);
        // Addresses that surely miss the band's rows (a row and a byte of margin over the exact test in
        // `Acc::misses`, far above rounding): a span below `lo` or above `hi` is dropped before its rows are
        // worked out — each band walks every object, and most spans miss the other bands.
        let margin = self.da + 1.0;
        let hi = self.top - acc.row0 as f64 * self.da + margin;
        let lo = self.top - acc.row1 as f64 * self.da - margin;
        for o in &layout.objects[..n] {
            if o.freed.0 <= t0_ns {
                continue;
            }
            let moves =
                &layout.moves[o.moves_start as usize..(o.moves_start + o.moves_len) as usize];
            let (mut start, mut addr) = (o.alloc.0, o.addr);
            let mut seg = |s: u64, e: u64, addr: u64| {
                if e <= t0_ns || s >= t1_ns || e <= s {
                    return;
                }
                if addr as f64 >= hi || (addr + o.size) as f64 <= lo {
                    return;
                }
                let (y0, y1) = (
                    self.row_of((addr + o.size) as f64),
                    self.row_of(addr as f64),
                );
                if acc.misses(y0, y1) {
                    return;
                }
                let d = o.death.0;
                let live = if d > s {
                    acc.cols(self.col_of(s), self.col_of(e.min(d)))
                } else {
                    None
                };
                let dead = if d < e {
                    acc.cols(self.col_of(s.max(d)), self.col_of(e))
                } else {
                    None
                };
                acc.add_spans(live, dead, y0, y1);
            };
            for m in moves {
                seg(start, m.time.0, addr);
                start = m.time.0;
                addr = m.addr;
            }
            seg(start, o.freed.0.min(u64::MAX - 1), addr);
        }
        acc
    }

    /// The pixels of rows `[a, b)` (the image's background where nothing is drawn) and which of them are the GC
    /// lane (painted by the caller).
    fn band(&self, a: usize, b: usize) -> (Vec<Color32>, Vec<usize>) {
        let (w, da, pal) = (self.w, self.da, self.pal);
        let acc = self.coverage(a, b);
        let bg = Palette::blend(&[(pal.guide, 0.12), (pal.free_active, 0.88)]);
        let mut pixels = vec![bg; (b - a) * w];
        let g = self.run.geometry;
        let banks = g.banks as usize;
        let bank_rows = g.bank_bytes as f64 / da;
        let lane_rows = if self.spec.lanes && bank_rows >= 12.0 {
            (bank_rows * 0.08).clamp(3.0, 10.0)
        } else {
            0.0
        };
        let heap_top = g.heap_bytes as f64;
        let lane_top = heap_top * (1.0 + GC_LANE_FRACTION);
        let (c_first, c_last) = self.run_columns(self.run.duration.as_secs_f64());
        let mut lane_rows_gc = Vec::new();
        let mut live_row = vec![0f32; w];
        let mut dead_row = vec![0f32; w];
        for r in a..b {
            let centre = self.top - (r as f64 + 0.5) * da;
            let px = &mut pixels[(r - a) * w..(r - a + 1) * w];
            if centre >= heap_top && centre < lane_top {
                lane_rows_gc.push(r); // GC lane: painted by the caller.
                continue;
            }
            if centre < 0.0 || centre >= heap_top {
                continue;
            }
            let bank = ((centre / g.bank_bytes as f64) as usize).min(banks.saturating_sub(1));
            let in_lane = lane_rows > 0.0 && {
                let from_bank_foot = (centre - bank as f64 * g.bank_bytes as f64) / da;
                from_bank_foot < lane_rows
            };
            let states = &self.state[bank * w..(bank + 1) * w];
            if in_lane || !acc.touched[r - a] {
                // Nothing was added to this row: no live or dead memory anywhere in it (what the blend below
                // gives for zero coverage, without the sums).
                for c in c_first..c_last {
                    px[c] = if in_lane {
                        pal.bank(states[c])
                    } else {
                        pal.free(states[c])
                    };
                }
                continue;
            }
            let row = (r - a) * acc.stride;
            let (mut l, mut d) = (0f32, 0f32);
            for c in 0..w {
                l += acc.live[row + c];
                d += acc.dead[row + c];
                live_row[c] = l;
                dead_row[c] = d;
            }
            // A pixel's colour depends only on its sums and bank state, which repeat along a row wherever no
            // span starts or ends: the last pixel's colour is reused for the same inputs (bit for bit).
            let mut last: Option<(u32, u32, Option<BankState>, Color32)> = None;
            for c in c_first..c_last {
                let st = states[c];
                let (lb, db) = (live_row[c].to_bits(), dead_row[c].to_bits());
                if let Some((l0, d0, s0, colour)) = last
                    && l0 == lb
                    && d0 == db
                    && s0 == st
                {
                    px[c] = colour;
                    continue;
                }
                let l = live_row[c].clamp(0.0, 1.0);
                let d = dead_row[c].clamp(0.0, 1.0 - l);
                let f = 1.0 - l - d;
                px[c] = if f >= 0.999 {
                    pal.free(st)
                } else {
                    Palette::blend(&[(pal.live, l), (pal.dead, d), (pal.free(st), f)])
                };
                last = Some((lb, db, st, px[c]));
            }
        }
        (pixels, lane_rows_gc)
    }
}

#[cfg(test)]
#[path = "raster_tests.rs"]
mod tests;
