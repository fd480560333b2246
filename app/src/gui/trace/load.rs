//! Loading a trace for replay: two streaming passes over the file (bounds, then objects — the objects through
//! core's `RecordedWalk`, the same walk `RecordedLayout` takes), reporting the share of the file read to core's
//! `Progress` and checking core's `Cancel` every 65 536 events; a synthetic trace for benches and tests; allocation
//! traces of other tools imported on the way, streamed into the passes without a temporary file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use gclab_core::importers::alloc::ImportFormat;
use gclab_core::trace::reader::CountingRead;
use gclab_core::trace::{Event, TraceReader};
use gclab_core::{Cancel, Progress, RecordedSink, RecordedWalk};

use super::*;

/// Hands a pass (`&mut dyn FnMut(TraceReader)`) a fresh reader from the start of the trace ([`TraceReplay::load_passes`]).
type Opener<'a> =
    dyn FnMut(&mut dyn FnMut(TraceReader) -> Result<(), String>) -> Result<(), String> + 'a;

impl TraceReplay {
    /// Reads `path` (any trace `TraceReader` opens); `progress` hears the share of the file read (both passes),
    /// `cancel` stops.
    pub fn load(
        path: &Path,
        progress: &mut dyn Progress,
        cancel: &Cancel,
    ) -> Result<TraceReplay, String> {
        let name = path.display().to_string();
        let read = Arc::new(AtomicU64::new(0));
        let watched = Watched {
            read: &read,
            total_bytes: 2 * file_bytes(path),
            progress,
            cancel,
        };
        TraceReplay::load_passes(path, watched, &mut |pass| {
            let f = std::fs::File::open(path).map_err(|e| format!("{name}: cannot open: {e}"))?;
            let src = CountingRead::new(f, Arc::clone(&read));
            pass(TraceReader::from_read(&name, Box::new(src)).map_err(|e| e.to_string())?)
        })
    }

    /// Reads the trace that `open` hands each of the two passes (`open(pass)` calls `pass` with a fresh reader
    /// from the start of the trace); `path` names it.
    fn load_passes(
        path: &Path,
        mut watched: Watched<'_>,
        open: &mut Opener,
    ) -> Result<TraceReplay, String> {
        let t_start = std::time::Instant::now();
        let err = |e: gclab_core::trace::TraceError| e.to_string();
        // Pass 1: time range, address range, collections.
        let mut b = Bounds::default();
        let mut n_alloc = 0u64;
        let mut header = None;
        open(&mut |reader: TraceReader| {
            header = Some(reader.header().clone());
            for (i, ev) in reader.enumerate() {
                let ev = ev.map_err(err)?;
                if i % 65536 == 0 {
                    watched.check()?;
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
            Ok(())
        })?;
        let header = header.ok_or_else(|| format!("{}: no trace was read", path.display()))?;
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
        r.reserve_objects(cap);
        let (granule, tick_ns) = (r.granule, r.tick_ns);
        let tick = |t: u64| -> u32 {
            let ns = (t.saturating_sub(t0)) as f64 * scale;
            ((ns / tick_ns as f64) as u64).min(u64::from(NEVER - 1)) as u32
        };
        let gran = |a: u64| -> u32 {
            (remap(a).saturating_sub(base) / granule).min(u64::from(u32::MAX)) as u32
        };
        // Pass 2: objects.
        let mut walk = RecordedWalk::new(b.has_gc, synthetic, cap);
        let mut sink = ReplaySink {
            r: &mut r,
            moves: Vec::new(),
            granule,
            synthetic,
            gran: &gran,
        };
        let mut end = 0u32;
        let mut n = 0u64;
        open(&mut |reader: TraceReader| {
            for (i, ev) in reader.enumerate() {
                let ev = ev.map_err(err)?;
                n += 1;
                if i % 65536 == 0 {
                    watched.check()?;
                }
                let t = tick(ev.t());
                end = end.max(t);
                walk.event(&ev, t, &mut sink);
            }
            Ok(())
        })?;
        watched.progress.report(1.0);
        let mut moves = sink.moves;
        moves.sort_by_key(|m| (m.obj, m.t));
        moves.shrink_to_fit();
        r.moves = moves;
        r.end = end.max(1);
        r.heap_bytes = if synthetic {
            walk.bump_bytes()
        } else {
            span_bytes
        }
        .max(1);
        r.events = n;
        r.overview = r.overview_grid();
        r.build_index();
        r.load_s = t_start.elapsed().as_secs_f64();
        Ok(r)
    }

    /// Room for `n` objects in each per-object array, exactly.
    fn reserve_objects(&mut self, n: usize) {
        for v in [
            &mut self.addr,
            &mut self.size,
            &mut self.alloc,
            &mut self.death,
            &mut self.freed,
        ] {
            v.reserve_exact(n);
        }
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
        r.reserve_objects(n);
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
}

/// The share of the input read, told to core's `Progress`, and core's `Cancel`, checked together.
struct Watched<'a> {
    /// Bytes of the input read so far (all passes).
    read: &'a AtomicU64,
    /// Bytes all passes read. `[bytes]`
    total_bytes: u64,
    progress: &'a mut dyn Progress,
    cancel: &'a Cancel,
}

impl Watched<'_> {
    /// Reports the share read; `Err` once cancelled.
    fn check(&mut self) -> Result<(), String> {
        let read = self.read.load(Ordering::Relaxed) as f64;
        self.progress
            .report((read / self.total_bytes.max(1) as f64).min(1.0));
        if self.cancel.is_cancelled() {
            return Err("cancelled".to_string());
        }
        Ok(())
    }
}

/// Size of the file at `path` (0 when it cannot be read: the reader then says why). `[bytes]`
fn file_bytes(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// The replay's objects as flat arrays, from core's [`RecordedWalk`]: addresses in granules, times in ticks.
struct ReplaySink<'a> {
    r: &'a mut TraceReplay,
    moves: Vec<TraceMove>,
    granule: u64,
    synthetic: bool,
    gran: &'a dyn Fn(u64) -> u32,
}

impl RecordedSink<u32> for ReplaySink<'_> {
    fn alloc(&mut self, t: u32, addr: u64, size_bytes: u64, _site: u32) -> u32 {
        let a = if self.synthetic {
            (addr / self.granule).min(u64::from(u32::MAX)) as u32
        } else {
            (self.gran)(addr)
        };
        let r = &mut *self.r;
        let lid = r.alloc.len() as u32;
        r.addr.push(a);
        r.size.push(size_bytes.min(u64::from(u32::MAX)) as u32);
        r.alloc.push(t);
        r.death.push(NEVER);
        r.freed.push(NEVER);
        lid
    }

    fn moved(&mut self, lid: u32, t: u32, addr: u64) {
        self.moves.push(TraceMove {
            obj: lid,
            t,
            addr: (self.gran)(addr),
        });
    }

    fn died(&mut self, lid: u32, t: u32) {
        self.r.death[lid as usize] = t;
    }

    fn freed(&mut self, lid: u32, t: u32) {
        self.r.freed[lid as usize] = t;
    }

    fn collection(&mut self, start: u32, end: u32) {
        self.r.collections.push((start, end));
    }
}

/// Imports an allocation trace of another tool (heaptrack raw or interpreted, Elephant Tracks 2, objects CSV) as
/// `gclab trace import` would, into a binary gclab trace in the temporary directory; returns that file and the
/// format. Only for a scenario that must name a trace file (re-simulation); the replay streams instead. `Ok(None)`: `path` is none of those formats (or already a gclab trace), as `gclab_core::input` tells.
pub fn import_to_temp(path: &Path) -> Result<Option<(PathBuf, &'static str)>, String> {
    match gclab_core::input::sniff(path) {
        Ok(gclab_core::InputKind::AllocTrace(format)) => {
            import_to_temp_as(path, format).map(|tmp| Some((tmp, format.name())))
        }
        _ => Ok(None),
    }
}

/// [`import_to_temp`] of `path` known to be an allocation trace in `format`.
fn import_to_temp_as(path: &Path, format: ImportFormat) -> Result<PathBuf, String> {
    use gclab_core::importers::alloc as import;
    use gclab_core::trace::{Form, TraceWriter};
    let name = path.display().to_string();
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
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Opens an allocation trace of another tool and replays it as recorded: the import streams straight into the
/// replay's two passes (`gclab_core::importers::alloc::import_streamed`, once per pass), with no temporary file. `Ok(None)`: `path` is none of the formats gclab imports.
pub fn load_imported(
    path: &Path,
    progress: &mut dyn Progress,
    cancel: &Cancel,
) -> Result<Option<TraceReplay>, String> {
    match gclab_core::input::sniff(path) {
        Ok(gclab_core::InputKind::AllocTrace(format)) => {
            load_imported_as(path, format, progress, cancel).map(Some)
        }
        _ => Ok(None),
    }
}

/// [`load_imported`] of `path` known to be an allocation trace in `format` (as `gclab_core::input::sniff` said).
pub fn load_imported_as(
    path: &Path,
    format: ImportFormat,
    progress: &mut dyn Progress,
    cancel: &Cancel,
) -> Result<TraceReplay, String> {
    let name = path.display().to_string();
    let read: Arc<AtomicU64> = Arc::default();
    // Each pass imports the input once; Elephant Tracks reads its file twice an import.
    let reads = if format == ImportFormat::Et2 { 4 } else { 2 };
    let file = gclab_core::importers::alloc::et2::trace_file(path);
    let watched = Watched {
        read: &read,
        total_bytes: reads * file_bytes(&file),
        progress,
        cancel,
    };
    let mut r = TraceReplay::load_passes(path, watched, &mut |pass| {
        gclab_core::importers::alloc::import_streamed(&name, path, format, &read, |reader| {
            pass(reader)
        })
        .map_err(|e| e.to_string())?
    })?;
    let format = format.name();
    r.path = path.to_path_buf();
    r.name = match path.file_name() {
        Some(n) => format!("{} (imported from {format})", n.to_string_lossy()),
        None => path.display().to_string(),
    };
    Ok(r)
}
