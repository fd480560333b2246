//! A recorded gclab trace (`.gct`, text or binary, optionally zstd) replayed *as recorded* in the heap-layout
//! view (issue #5 point 4, the app half), sized for 10 M objects: scrubbing at ≥ 60 fps with ≤ 32 bytes resident
//! per object.
//!
//! Representation (struct of arrays, one entry per object in allocation order):
//! - `addr: u32` — address from the heap base in granules (1 byte while the address span fits in 4 GiB, else the
//!   smallest power of two that makes it fit);
//! - `size: u32` — bytes (saturated at 4 GiB);
//! - `alloc`, `death`, `freed: u32` — ticks from the trace's first event (1 tick = 1 ns while the trace spans less
//!   than 4.29 s, else the span / 2³² rounded up); `u32::MAX` = never.
//!
//! That is 20 bytes per object. Moves (compaction) are sparse — 12 bytes per move, sorted by object — and cost
//! nothing for objects that never move. A fixed-size [`Overview`] grid (live and dead coverage, `u8`, 2048 time
//! columns × 512 address rows, 2 MiB) is computed once at load: the "heap at the playhead" column is one column of
//! it, so moving the playhead costs O(rows), never O(objects). The address × time map is rasterised from the
//! arrays at the view's pixel size only when the visible range changes (level of detail: one coverage add per
//! object and address row, never more primitives than pixels drawn).
//!
//! Loading streams the file twice through `gclab_core::trace::TraceReader` (bounds, then objects) on the loader
//! thread, with an event counter for progress and a cancel flag checked as it reads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use egui::ColorImage;
use gclab_core::trace::{Event, TraceReader};

use super::theme::Palette;
use super::trace_index::{AddrIndex, Columns, addr_at, resident_at};
use super::views::raster::{Acc, GC_LANE_FRACTION};

/// `u32` time meaning "never".
pub const NEVER: u32 = u32::MAX;
/// Time columns of the [`Overview`] grid.
pub const OVERVIEW_COLS: usize = 2048;
/// Address rows of the [`Overview`] grid.
pub const OVERVIEW_ROWS: usize = 512;

/// A compaction moved object `obj` at tick `t` to `addr` (granules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceMove {
    /// Object index.
    pub obj: u32,
    /// When. `[ticks]`
    pub t: u32,
    /// New address. `[granules]`
    pub addr: u32,
}

/// Live and dead coverage (0–255) over the whole trace, column-major (`col * rows + row`, row 0 = address 0).
#[derive(Debug, Clone, Default)]
pub struct Overview {
    /// Time columns.
    pub cols: usize,
    /// Address rows.
    pub rows: usize,
    /// Live coverage.
    pub live: Vec<u8>,
    /// Dead-not-yet-reclaimed coverage.
    pub dead: Vec<u8>,
}

/// A recorded trace, ready to scrub.
#[derive(Debug, Clone, Default)]
pub struct TraceReplay {
    /// The file.
    pub path: PathBuf,
    /// File name for headings.
    pub name: String,
    /// Bytes per address unit.
    pub granule: u64,
    /// Nanoseconds per time tick.
    pub tick_ns: u64,
    /// Address at allocation. `[granules]`
    pub addr: Vec<u32>,
    /// Size. `[bytes]`
    pub size: Vec<u32>,
    /// Allocation time. `[ticks]`
    pub alloc: Vec<u32>,
    /// Death (unreachable) time. `[ticks]`
    pub death: Vec<u32>,
    /// Reclamation time. `[ticks]`
    pub freed: Vec<u32>,
    /// Moves, sorted by `(obj, t)`.
    pub moves: Vec<TraceMove>,
    /// Collections `[start, end)`. `[ticks]`
    pub collections: Vec<(u32, u32)>,
    /// Last event. `[ticks]`
    pub end: u32,
    /// Highest end address. `[bytes]`
    pub heap_bytes: u64,
    /// The trace had no addresses (laid out by a bump pointer in allocation order).
    pub synthetic_addresses: bool,
    /// When not 0: the address axis shows only these many 1 MiB pages that held objects, end to end (the trace's
    /// address space was mostly empty).
    pub collapsed_pages: usize,
    /// The whole trace at low resolution.
    pub overview: Overview,
    /// Objects by address, for hover look-ups.
    pub index: AddrIndex,
    /// Events read.
    pub events: u64,
    /// Time to load. `[s]`
    pub load_s: f64,
}

/// What the first pass finds.
#[derive(Default)]
struct Bounds {
    t_min: Option<u64>,
    t_max: u64,
    min_addr: Option<u64>,
    max_end: u64,
    bump: u64,
    has_gc: bool,
    /// Address pages (`addr >> PAGE_SHIFT`) holding an object at some time.
    pages: std::collections::BTreeSet<u64>,
}

/// Address page size (1 MiB) for collapsing empty address ranges: a malloc trace spans terabytes (heap, mmap
/// regions, stacks) with objects in a few pages; pages without an object are left out of the address axis.
const PAGE_SHIFT: u32 = 20;

impl TraceReplay {
    /// Seconds of a tick count.
    pub fn secs(&self, ticks: u32) -> f64 {
        ticks as f64 * self.tick_ns as f64 * 1e-9
    }

    /// Ticks of `s` seconds (clamped).
    pub fn ticks(&self, s: f64) -> u32 {
        (s.max(0.0) * 1e9 / self.tick_ns as f64).min(f64::from(NEVER - 1)) as u32
    }

    /// Length of the trace. `[s]`
    pub fn duration_s(&self) -> f64 {
        self.secs(self.end)
    }

    /// Objects.
    pub fn len(&self) -> usize {
        self.alloc.len()
    }

    /// True without objects.
    pub fn is_empty(&self) -> bool {
        self.alloc.is_empty()
    }

    /// Bytes held: every array's capacity plus the overview grid.
    pub fn resident_bytes(&self) -> usize {
        4 * (self.addr.capacity()
            + self.size.capacity()
            + self.alloc.capacity()
            + self.death.capacity()
            + self.freed.capacity())
            + std::mem::size_of::<TraceMove>() * self.moves.capacity()
            + 8 * self.collections.capacity()
            + self.overview.live.capacity()
            + self.overview.dead.capacity()
            + self.index.resident_bytes()
    }

    /// Builds [`TraceReplay::index`] (after the columns are complete).
    fn build_index(&mut self) {
        let cols = Columns {
            addr: &self.addr,
            size: &self.size,
            granule: self.granule,
            moves: &self.moves,
        };
        self.index = AddrIndex::build(&cols, self.heap_bytes.div_ceil(self.granule) + 1);
    }

    /// Reads `path` (any trace `TraceReader` opens); `events` counts events read (both passes), `cancel` stops.
    pub fn load(
        path: &Path,
        events: &AtomicU64,
        cancel: &AtomicBool,
    ) -> Result<TraceReplay, String> {
        let t_start = std::time::Instant::now();
        let err = |e: gclab_core::trace::TraceError| e.to_string();
        let cancelled = || "cancelled".to_string();
        // Pass 1: time range, address range, collections.
        let mut b = Bounds::default();
        let mut n_alloc = 0u64;
        let reader = TraceReader::open(path).map_err(err)?;
        let header = reader.header().clone();
        for (i, ev) in reader.enumerate() {
            let ev = ev.map_err(err)?;
            if i % 65536 == 0 {
                events.fetch_add(65536, Ordering::Relaxed);
                if cancel.load(Ordering::Relaxed) {
                    return Err(cancelled());
                }
            }
            let t = ev.t();
            b.t_min = Some(b.t_min.map_or(t, |m| m.min(t)));
            b.t_max = b.t_max.max(t);
            match ev {
                Event::Alloc {
                    addr, size_bytes, ..
                } => {
                    n_alloc += 1;
                    b.bump = b.bump.saturating_add(size_bytes);
                    if addr != 0 {
                        b.min_addr = Some(b.min_addr.map_or(addr, |m| m.min(addr)));
                        b.max_end = b.max_end.max(addr.saturating_add(size_bytes));
                        let last = addr.saturating_add(size_bytes.max(1) - 1) >> PAGE_SHIFT;
                        b.pages.extend((addr >> PAGE_SHIFT)..=last);
                    }
                }
                Event::Move { addr, .. } if addr != 0 => {
                    b.min_addr = Some(b.min_addr.map_or(addr, |m| m.min(addr)));
                    // The moved object's size is not in the event: its page and the next.
                    b.pages
                        .extend([addr >> PAGE_SHIFT, (addr >> PAGE_SHIFT) + 1]);
                }
                Event::GcStart { .. } | Event::GcEnd { .. } => b.has_gc = true,
                _ => {}
            }
        }
        let synthetic = b.min_addr.is_none();
        let base = if synthetic {
            0
        } else if header.heap.base_addr != 0
            && b.min_addr.is_some_and(|m| m >= header.heap.base_addr)
        {
            header.heap.base_addr
        } else {
            b.min_addr.unwrap_or(0)
        };
        let mut span_bytes = if synthetic {
            b.bump
        } else {
            b.max_end.saturating_sub(base)
        };
        // Mostly empty address space (a malloc trace): collapse the pages without objects.
        let pages: Vec<u64> = std::mem::take(&mut b.pages).into_iter().collect();
        let collapse = !synthetic && span_bytes > 4 * ((pages.len() as u64) << PAGE_SHIFT);
        let base = if collapse { 0 } else { base };
        let remap = |a: u64| -> u64 {
            if !collapse {
                return a;
            }
            let p = a >> PAGE_SHIFT;
            let slot = pages
                .partition_point(|&q| q < p)
                .min(pages.len().saturating_sub(1));
            if pages.get(slot) == Some(&p) {
                ((slot as u64) << PAGE_SHIFT) | (a & ((1 << PAGE_SHIFT) - 1))
            } else {
                (slot as u64) << PAGE_SHIFT
            }
        };
        if collapse {
            span_bytes = remap(b.max_end.saturating_sub(1)) + 1;
        }
        let scale = header.time_unit.ns_per_unit().unwrap_or(1.0);
        let t0 = b.t_min.unwrap_or(0);
        let span_ns = ((b.t_max - t0) as f64 * scale) as u64;
        let mut r = TraceReplay {
            path: path.to_path_buf(),
            name: path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            granule: (span_bytes / u64::from(u32::MAX) + 1).next_power_of_two(),
            tick_ns: (span_ns / u64::from(NEVER - 1) + 1).max(1),
            synthetic_addresses: synthetic,
            collapsed_pages: if collapse { pages.len() } else { 0 },
            ..Default::default()
        };
        let cap = usize::try_from(n_alloc).unwrap_or(0);
        for v in [
            &mut r.addr,
            &mut r.size,
            &mut r.alloc,
            &mut r.death,
            &mut r.freed,
        ] {
            v.reserve_exact(cap);
        }
        let tick = |t: u64| -> u32 {
            let ns = (t.saturating_sub(t0)) as f64 * scale;
            ((ns / r.tick_ns as f64) as u64).min(u64::from(NEVER - 1)) as u32
        };
        let (granule, tick_ns) = (r.granule, r.tick_ns);
        let _ = tick_ns;
        let gran = |a: u64| -> u32 {
            (remap(a).saturating_sub(base) / granule).min(u64::from(u32::MAX)) as u32
        };
        // Pass 2: objects.
        let mut ids: HashMap<u64, u32> = HashMap::with_capacity(cap.min(1 << 24));
        let mut pending: Vec<u32> = Vec::new();
        let mut open_gc: Option<u32> = None;
        let mut moves: Vec<TraceMove> = Vec::new();
        let mut bump = 0u64;
        let mut end = 0u32;
        let mut n = 0u64;
        for (i, ev) in TraceReader::open(path).map_err(err)?.enumerate() {
            let ev = ev.map_err(err)?;
            n += 1;
            if i % 65536 == 0 {
                events.fetch_add(65536, Ordering::Relaxed);
                if cancel.load(Ordering::Relaxed) {
                    return Err(cancelled());
                }
            }
            let t = tick(ev.t());
            end = end.max(t);
            match ev {
                Event::Alloc {
                    id,
                    size_bytes,
                    addr,
                    ..
                } => {
                    let a = if synthetic {
                        let a = bump;
                        bump = bump.saturating_add(size_bytes);
                        (a / granule).min(u64::from(u32::MAX)) as u32
                    } else {
                        gran(addr)
                    };
                    let lid = r.alloc.len() as u32;
                    r.addr.push(a);
                    r.size.push(size_bytes.min(u64::from(u32::MAX)) as u32);
                    r.alloc.push(t);
                    r.death.push(NEVER);
                    r.freed.push(NEVER);
                    if let Some(old) = ids.insert(id, lid) {
                        // An id reused without a death: the old object is gone.
                        r.death[old as usize] = r.death[old as usize].min(t);
                        r.freed[old as usize] = r.freed[old as usize].min(t);
                    }
                }
                Event::Move { id, addr, .. } => {
                    if let Some(&lid) = ids.get(&id)
                        && !synthetic
                    {
                        moves.push(TraceMove {
                            obj: lid,
                            t,
                            addr: gran(addr),
                        });
                    }
                }
                Event::Death { id, .. } => {
                    if let Some(lid) = ids.remove(&id) {
                        r.death[lid as usize] = t;
                        if b.has_gc {
                            pending.push(lid);
                        } else {
                            r.freed[lid as usize] = t;
                        }
                    }
                }
                Event::GcStart { .. } => open_gc = Some(t),
                Event::GcEnd { .. } => {
                    for lid in pending.drain(..) {
                        r.freed[lid as usize] = t;
                    }
                    r.collections.push((open_gc.take().unwrap_or(t), t));
                }
                Event::Access { .. } => {}
            }
        }
        drop(ids);
        moves.sort_by_key(|m| (m.obj, m.t));
        moves.shrink_to_fit();
        r.moves = moves;
        r.end = end.max(1);
        r.heap_bytes = if synthetic { bump } else { span_bytes }.max(1);
        r.events = n;
        r.overview = r.overview_grid();
        r.build_index();
        r.load_s = t_start.elapsed().as_secs_f64();
        Ok(r)
    }

    /// A synthetic trace of `n` objects (benchmarks, tests): bump allocation over a 256 MiB heap, one object every
    /// 100 ns, lifetimes from 1 µs to 10 ms, a collection every 10 ms reclaiming the dead.
    pub fn synthetic(n: usize) -> TraceReplay {
        let heap: u64 = 256 << 20;
        let mut r = TraceReplay {
            name: format!("synthetic {n} objects"),
            granule: 1,
            tick_ns: 1,
            heap_bytes: heap,
            ..Default::default()
        };
        for v in [
            &mut r.addr,
            &mut r.size,
            &mut r.alloc,
            &mut r.death,
            &mut r.freed,
        ] {
            v.reserve_exact(n);
        }
        let gc_every: u64 = 10_000_000;
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut bump = 0u64;
        for i in 0..n as u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let size = 16 + (x % 7) * 8;
            let t = i * 100;
            let life = 1_000 + (x >> 20) % 10_000_000;
            let death = t + life;
            let freed = (death / gc_every + 1) * gc_every;
            r.addr.push((bump % heap) as u32);
            bump += size;
            r.size.push(size as u32);
            r.alloc.push(t.min(u64::from(NEVER - 1)) as u32);
            r.death.push(death.min(u64::from(NEVER - 1)) as u32);
            r.freed.push(freed.min(u64::from(NEVER - 1)) as u32);
        }
        let end = (n as u64 * 100 + gc_every).min(u64::from(NEVER - 1));
        r.end = end as u32;
        let mut g = gc_every;
        while g < end {
            r.collections
                .push((g as u32, (g + 100_000).min(end) as u32));
            g += gc_every;
        }
        r.events = 3 * n as u64;
        r.overview = r.overview_grid();
        r.build_index();
        r
    }

    /// Calls `seg(start, end, addr_bytes, size_bytes, death)` for each constant-address stretch of each object
    /// alive at some point of `[t0, t1)` (ticks).
    fn for_each_segment(&self, t0: u32, t1: u32, mut seg: impl FnMut(u32, u32, u64, u64, u32)) {
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
    fn coverage(&self, t0: f64, t1: f64, a0: f64, a1: f64, w: usize, h: usize) -> Acc {
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

    fn overview_grid(&self) -> Overview {
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
            super::format::bytes(a),
            super::format::secs(t)
        );
        match found {
            Some((at, size, death)) => format!(
                "{head}object of {} at {}\n{}",
                super::format::bytes(size),
                super::format::bytes(at),
                if death <= k {
                    format!(
                        "DEAD since {} — waiting for a collection",
                        super::format::secs(self.secs(death))
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

/// True when the file at `path` starts like a gclab trace (text, binary or zstd-compressed) or is named so.
/// Imports an allocation trace of another tool (heaptrack raw or interpreted, Elephant Tracks 2, objects CSV) as
/// `gclab trace import` would, into a binary gclab trace in the temporary directory; returns that file and the
/// format. `Ok(None)`: `path` is none of those formats (or already a gclab trace).
pub fn import_to_temp(path: &Path) -> Result<Option<(PathBuf, &'static str)>, String> {
    use gclab_core::trace::import::{self, ImportFormat};
    use gclab_core::trace::{Form, TraceWriter};
    let name = path.display().to_string();
    let format = match import::detect(&name, path) {
        Ok(ImportFormat::Gclab) | Err(_) => return Ok(None),
        Ok(f) => f,
    };
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let stem = path.file_name().map_or_else(
        || "trace".into(),
        |n| n.to_string_lossy().replace(['.', ' '], "-"),
    );
    let tmp = std::env::temp_dir().join(format!(
        "gclab-{stem}-{}-{}.gctrace",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let made = import::import(&name, path, format, |h| {
        TraceWriter::create(&tmp, Some(Form::Binary), h)
    })
    .map_err(|e| e.to_string())
    .and_then(|(_, w)| w.commit().map_err(|e| format!("{name}: {e}")));
    match made {
        Ok(()) => Ok(Some((tmp, format.name()))),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Opens an allocation trace of another tool ([`import_to_temp`], the imported copy removed once loaded) and
/// replays it as recorded. `Ok(None)`: `path` is none of the formats gclab imports.
pub fn load_imported(
    path: &Path,
    events: &AtomicU64,
    cancel: &AtomicBool,
) -> Result<Option<TraceReplay>, String> {
    let Some((tmp, format)) = import_to_temp(path)? else {
        return Ok(None);
    };
    let loaded = TraceReplay::load(&tmp, events, cancel);
    let _ = std::fs::remove_file(&tmp);
    let mut r = loaded?;
    r.path = path.to_path_buf();
    r.name = match path.file_name() {
        Some(n) => format!("{} (imported from {format})", n.to_string_lossy()),
        None => path.display().to_string(),
    };
    Ok(Some(r))
}

pub fn looks_like_trace(path: &Path) -> bool {
    let by_name = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "gct" | "gctrace" | "gctb"));
    if by_name {
        return true;
    }
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let head = &head[..n];
    head.starts_with(gclab_core::trace::TEXT_MAGIC.as_bytes())
        || head.starts_with(&gclab_core::trace::BINARY_MAGIC)
        || head.starts_with(&[0x28, 0xB5, 0x2F, 0xFD])
}

#[cfg(test)]
mod tests {
    use super::*;
    use gclab_core::run::recorded::RecordedLayout;
    use gclab_core::units::SimTime;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/trace")
            .join(name)
    }

    fn load(p: &Path) -> TraceReplay {
        TraceReplay::load(p, &AtomicU64::new(0), &AtomicBool::new(false)).expect("trace loads")
    }

    /// The object at `(k, a)` by walking every object and move (what hover did before the index).
    fn object_at_by_walking(r: &TraceReplay, k: u32, a: u64) -> Option<u32> {
        (0..r.len() as u32).rev().find(|&i| {
            let u = i as usize;
            if !(r.alloc[u] <= k && k < r.freed[u].min(r.end)) {
                return false;
            }
            let g = r
                .moves
                .iter()
                .rfind(|m| m.obj == i && m.t <= k)
                .map_or(r.addr[u], |m| m.addr);
            let at = u64::from(g) * r.granule;
            at <= a && a < at + u64::from(r.size[u])
        })
    }

    #[test]
    fn allocation_traces_of_other_tools_open_through_an_import() {
        let jq = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data/object-traces/heaptrack/jq");
        let never = AtomicBool::new(false);
        for (file, synthetic) in [("trace.raw.zst", false), ("trace.interpreted.zst", true)] {
            let r = load_imported(&jq.join(file), &AtomicU64::new(0), &never)
                .expect("imports")
                .expect("a heaptrack file");
            assert_eq!(r.len(), 68_973, "{file}: every object");
            assert_eq!(r.synthetic_addresses, synthetic, "{file}: addresses");
            assert!(r.name.contains("imported from heaptrack"), "{}", r.name);
        }
        // A gclab trace or a GC log is not imported.
        let log = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/logs/jdk17-serial-xmx128m.log");
        assert!(matches!(
            load_imported(&log, &AtomicU64::new(0), &never),
            Ok(None)
        ));
        assert!(matches!(
            load_imported(&fixture("v1.gctrace"), &AtomicU64::new(0), &never),
            Ok(None)
        ));
    }

    #[test]
    fn the_address_index_finds_what_a_walk_over_every_object_finds() {
        let mut traces = vec![load(&fixture("v1.gctrace")), TraceReplay::synthetic(4000)];
        // Moves (compaction-like, some objects twice, one far away) on the synthetic trace.
        let mut moved = TraceReplay::synthetic(4000);
        for i in (0..4000u32).step_by(7) {
            let t = moved.alloc[i as usize] + 500;
            moved.moves.push(TraceMove {
                obj: i,
                t,
                addr: moved.addr[i as usize] / 2,
            });
            if i % 3 == 0 {
                moved.moves.push(TraceMove {
                    obj: i,
                    t: t + 700,
                    addr: 200 << 20,
                });
            }
        }
        moved.moves.sort_by_key(|m| (m.obj, m.t));
        moved.build_index();
        traces.push(moved);
        for r in &traces {
            let mut x: u64 = 0x2545_F491_4F6C_DD1D;
            let mut hits = 0;
            for probe in 0..3000u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Half the probes at an object's own address (so most find one), half anywhere.
                let (k, a) = if probe % 2 == 0 {
                    let i = (x % r.len() as u64) as usize;
                    let k = r.alloc[i] + ((x >> 32) % 2000) as u32;
                    (k, u64::from(r.addr[i]) * r.granule + (x >> 40) % 16)
                } else {
                    (
                        (x % u64::from(r.end)) as u32,
                        (x >> 24) % r.heap_bytes.max(1),
                    )
                };
                let want = object_at_by_walking(r, k, a);
                hits += usize::from(want.is_some());
                assert_eq!(r.object_at(k, a), want, "{}: tick {k}, byte {a}", r.name);
            }
            assert!(hits > 300, "{}: the probes found objects ({hits})", r.name);
        }
    }

    #[test]
    fn the_fixture_replays_as_core_replays_it() {
        for name in ["v1.gctrace", "v1.gctrace.txt"] {
            let p = fixture(name);
            let r = load(&p);
            let core = RecordedLayout::open(&p).expect("core reads it");
            assert_eq!(r.len(), core.layout.objects.len(), "{name}: objects");
            assert_eq!(
                r.collections.len(),
                core.collections.len(),
                "{name}: collections"
            );
            assert_eq!(r.moves.len(), core.layout.moves.len(), "{name}: moves");
            // Same objects resident at every instant (ticks are ns here: the trace spans < 4 s).
            let t_first = core.layout.objects.first().map_or(0, |o| o.alloc.0);
            for t in (t_first..=core.end.0 + 1).step_by(5) {
                let k = (t - t_first) as u32;
                let ours = (0..r.len())
                    .filter(|&i| r.alloc[i] <= k && r.freed[i] > k)
                    .count();
                assert_eq!(
                    ours,
                    core.layout.at(SimTime(t)).len(),
                    "{name}: resident at {t}"
                );
            }
        }
    }

    #[test]
    fn hover_names_the_object_under_the_pointer_and_free_memory() {
        let r = load(&fixture("v1.gctrace"));
        let t = r.secs(r.alloc[0]) + 1e-9;
        let a = (u64::from(r.addr[0]) * r.granule) as f64 + 1.0;
        let text = r.describe(t, a);
        assert!(
            text.contains("object of") && text.contains("LIVE"),
            "{text}"
        );
        let free = r.describe(t, r.heap_bytes as f64 * 0.999 + 1e6);
        assert!(free.contains("free"), "{free}");
        let img = r.rasterize(
            (0.0, r.duration_s()),
            (0.0, r.heap_bytes as f64 * 1.05),
            (200, 100),
            &Palette::of(crate::gui::theme::Theme::Light),
        );
        assert_eq!(img.size, [200, 100], "the view's size");
    }

    #[test]
    fn a_malloc_trace_collapses_its_empty_address_space() {
        // jq under heaptrack: addresses from the heap and from mmap regions terabytes apart.
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/traces/jq.gctrace.zst");
        let r = load(&p);
        assert_eq!(r.len(), 68_973, "every object");
        assert!(r.collapsed_pages > 0, "empty pages left out");
        assert!(
            r.heap_bytes < 64 << 20,
            "a span of the used pages: {}",
            r.heap_bytes
        );
        let (live, _) = r.column_at(r.duration_s() * 0.5);
        let filled = live.iter().filter(|&&c| c > 0).count();
        assert!(
            filled > live.len() / 10,
            "objects fill the map: {filled} rows"
        );
    }

    #[test]
    fn ten_million_objects_fit_in_32_bytes_each() {
        // The per-object arrays are fixed-width (the index nearly so); 1 M objects show the ratio a 10 M trace has (the overview grid,
        // fixed at 2 MiB, weighs less per object the more objects there are).
        let r = TraceReplay::synthetic(1_000_000);
        let per_object =
            (r.resident_bytes() - r.overview.live.capacity() - r.overview.dead.capacity()) as f64
                / r.len() as f64;
        // Five 4-byte columns, and the hover index's ~1.3 (object, bucket) pairs and a quarter bucket per object.
        assert!(per_object <= 26.0, "arrays: {per_object} bytes per object");
        let at_10m = per_object + (2 * OVERVIEW_COLS * OVERVIEW_ROWS) as f64 / 1e7;
        assert!(
            at_10m <= 32.0,
            "with the overview at 10 M objects: {at_10m}"
        );
        let (live, _) = r.column_at(r.duration_s() / 2.0);
        assert!(
            live.iter().any(|&c| c > 0),
            "the overview shows objects mid-run"
        );
    }
}
