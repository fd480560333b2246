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
//! thread, with an event counter for progress and core's `Cancel` checked as it reads ([`load`]); drawing is
//! [`raster`], hovering [`index`].

pub mod index;
mod load;
mod raster;

use std::path::PathBuf;

use index::{AddrIndex, Columns};
pub use load::{import_to_temp, load_imported, load_imported_as};

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
    pub(super) fn build_index(&mut self) {
        let cols = Columns {
            addr: &self.addr,
            size: &self.size,
            granule: self.granule,
            moves: &self.moves,
        };
        self.index = AddrIndex::build(&cols, self.heap_bytes.div_ceil(self.granule) + 1);
    }
}

#[cfg(test)]
mod tests;
