//! A simulated run's objects as a gclab trace (`gclab trace record`): every object of the run's [`HeapLayout`]
//! (alloc with address and size, its compaction moves, its death = the instant it became unreachable) and every
//! collection (`gc_start` with the trigger as GC kind, `gc_end`), in time order, times in nanoseconds.
//!
//! The workloads model neither allocation sites nor types: the site is the stream that allocated the object (the
//! work phase's name, `timer` or `after-collection`) and the type is its size class (`class K: MIN-MAX B`). The
//! engine models no individual accesses, so the trace has no `access` events. Reclamation is not an event: an
//! object dead at `t` is reclaimed by the first collection that ends after `t`.
//!
//! Streamed to disk during the run (issue 21, item 4): the engine hands each object's events to an
//! [`ObjectSpill`] as it decides them ([`crate::record_scenario`]); the spill buffers only the events of the current
//! instant (the engines report at their current time, so an instant is complete once a later one is reported),
//! sorts them into the trace's order and appends them to a temporary file of fixed-size records. After the run,
//! [`write_recorded`] writes the header and the tables (the sites used and the collections' kinds, which must open
//! the trace, are only known then) and merges the spilled events with the collections. Memory: one instant's
//! events (at most the live objects, when a compaction moves them all) plus a 64 KiB block — not the run's
//! objects.
//!
//! [`HeapLayout`]: crate::run::HeapLayout

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::SimError;
use crate::io::spill::{Record, Spill};
use crate::progress::Progress;
use crate::run::{ObjectEvents, Run};
use crate::trace::{Event, HeapInfo, Table, TimeUnit, TraceHeader, TraceWriter};
use crate::units::SimTime;
use crate::workload::profile::{SizeClass, WorkloadProfile};

/// The header of a recorded run.
/// `origin` names the scenario and `seed` is its seed.
pub fn record_header(run: &Run, origin: &str, seed: u64) -> TraceHeader {
    TraceHeader::new(
        TimeUnit::Ns,
        HeapInfo {
            base_addr: 0,
            size_bytes: run.geometry.heap_bytes,
            bank_bytes: run.geometry.bank_bytes,
        },
        &format!(
            "gclab {} ({} on {}, seed {})",
            origin, run.summary.collector, run.summary.platform, seed
        ),
    )
}

/// Names of the site stand-in `site` (see `AllocDraw::site`): the stream, and the size class.
fn site_names(w: &WorkloadProfile, site: u32) -> (String, String) {
    let (group, class) = (site / 100, (site % 100) as usize);
    let class_name = |sizes: Option<&Vec<SizeClass>>| match sizes.and_then(|s| s.get(class)) {
        Some(c) => format!("class {class}: {}-{} B", c.min.0, c.max.0),
        None => format!("class {class}"),
    };
    match group {
        10 if w.timer.is_some() => (
            "timer".to_string(),
            class_name(w.timer.as_ref().map(|t| &t.sizes)),
        ),
        20 if w.on_collection.is_some() => (
            "after-collection".to_string(),
            class_name(w.on_collection.as_ref().map(|c| &c.sizes)),
        ),
        p => match w.phases.get(p as usize) {
            Some(ph) => (ph.name.clone(), class_name(Some(&ph.sizes))),
            None => (format!("site {site}"), format!("class {class}")),
        },
    }
}

/// Key rank at equal times `<< 61 | object or collection index`: deaths due (0), then a collection's start (1),
/// its moves (2; one object's moves at one instant in the order they were made) and end (3), then allocations
/// (4); a death at its own allocation instant comes after it (5).
const ID_BITS: u64 = (1 << 61) - 1;

fn key(rank: u64, id: u64) -> u64 {
    rank << 61 | (id & ID_BITS)
}

/// One object event on disk: time, key, and the allocation's or move's address, size and site.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ObjRec {
    t: u64,
    key: u64,
    addr: u64,
    size: u64,
    site: u32,
}

impl Record for ObjRec {
    const SIZE: usize = 36;
    fn put(self, out: &mut [u8]) {
        out[0..8].copy_from_slice(&self.t.to_le_bytes());
        out[8..16].copy_from_slice(&self.key.to_le_bytes());
        out[16..24].copy_from_slice(&self.addr.to_le_bytes());
        out[24..32].copy_from_slice(&self.size.to_le_bytes());
        out[32..36].copy_from_slice(&self.site.to_le_bytes());
    }
    fn take(b: &[u8]) -> Self {
        let u = |r: std::ops::Range<usize>| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[r]);
            u64::from_le_bytes(a)
        };
        let mut s = [0u8; 4];
        s.copy_from_slice(&b[32..36]);
        ObjRec {
            t: u(0..8),
            key: u(8..16),
            addr: u(16..24),
            size: u(24..32),
            site: u32::from_le_bytes(s),
        }
    }
}

/// A run's object events, sorted into the trace's order on disk, as the [`ObjectSpill`] left them.
#[derive(Debug)]
pub struct RecordedObjects {
    spill: Spill<ObjRec>,
    /// Sites in the order of their first allocation.
    sites: Vec<u32>,
    objects: u64,
    /// An event reported at an earlier time than one before it (the trace would be out of order).
    disorder: Option<String>,
}

impl RecordedObjects {
    /// Objects allocated.
    pub fn objects(&self) -> u64 {
        self.objects
    }
}

/// The [`ObjectEvents`] of `gclab trace record`: sorts each instant's events and appends them to a temporary file;
/// when dropped (the run's end), hands the result to the [`SpillSlot`] it was made with.
#[derive(Debug)]
pub struct ObjectSpill {
    done: Option<RecordedObjects>,
    /// Events at `group_t`, in the order reported.
    group: Vec<ObjRec>,
    group_t: u64,
    /// The first object allocated at `group_t`.
    group_first_alloc: Option<u32>,
    seen_sites: HashSet<u32>,
    slot: SpillSlot,
}

/// Where an [`ObjectSpill`] leaves its events when the engine drops it.
#[derive(Debug, Clone, Default)]
pub struct SpillSlot(Arc<Mutex<Option<RecordedObjects>>>);

impl SpillSlot {
    /// The events, once the spill was dropped.
    pub fn take(&self) -> Option<RecordedObjects> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

impl ObjectSpill {
    /// An empty spill (a temporary file in the system temp folder) that leaves its events in `slot`.
    pub fn new(slot: SpillSlot) -> std::io::Result<Self> {
        Ok(ObjectSpill {
            done: Some(RecordedObjects {
                spill: Spill::new()?,
                sites: Vec::new(),
                objects: 0,
                disorder: None,
            }),
            group: Vec::new(),
            group_t: 0,
            group_first_alloc: None,
            seen_sites: HashSet::new(),
            slot,
        })
    }

    /// Starts instant `t` if it is a new one (writing the previous instant's events); false if `t` is earlier.
    fn at(&mut self, t: u64) -> bool {
        if t == self.group_t {
            return true;
        }
        let Some(d) = self.done.as_mut() else {
            return false;
        };
        if t < self.group_t {
            d.disorder.get_or_insert_with(|| {
                format!(
                    "an object event at {t} ns was reported after one at {} ns",
                    self.group_t
                )
            });
            return false;
        }
        self.flush();
        self.group_t = t;
        self.group_first_alloc = None;
        true
    }

    fn flush(&mut self) {
        // Stable: one object's moves at one instant stay in the order they were made.
        self.group.sort_by_key(|r| r.key);
        if let Some(d) = self.done.as_mut() {
            for r in self.group.drain(..) {
                d.spill.push(r);
            }
        }
        self.group.clear();
    }
}

impl ObjectEvents for ObjectSpill {
    fn alloc(&mut self, id: u32, addr: u64, size: u64, t: SimTime, site: u32) {
        if !self.at(t.0) {
            return;
        }
        self.group_first_alloc.get_or_insert(id);
        if let Some(d) = self.done.as_mut() {
            d.objects += 1;
            if self.seen_sites.insert(site) {
                d.sites.push(site);
            }
        }
        self.group.push(ObjRec {
            t: t.0,
            key: key(4, u64::from(id)),
            addr,
            size,
            site,
        });
    }

    fn death(&mut self, id: u32, t: SimTime) {
        if t.0 == u64::MAX || !self.at(t.0) {
            return;
        }
        let same_instant = self.group_first_alloc.is_some_and(|f| id >= f);
        self.group.push(ObjRec {
            t: t.0,
            key: key(if same_instant { 5 } else { 0 }, u64::from(id)),
            ..ObjRec::default()
        });
    }

    fn moved(&mut self, id: u32, t: SimTime, addr: u64) {
        if !self.at(t.0) {
            return;
        }
        self.group.push(ObjRec {
            t: t.0,
            key: key(2, u64::from(id)),
            addr,
            ..ObjRec::default()
        });
    }
}

impl Drop for ObjectSpill {
    fn drop(&mut self) {
        self.flush();
        if let Some(d) = self.done.take() {
            *self.slot.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(d);
        }
    }
}

/// Why a recording failed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The simulation failed.
    #[error("{0}")]
    Sim(#[from] SimError),
    /// The temporary file of the events could not be written or read.
    #[error("{0}")]
    Io(String),
}

/// Runs a simulation through `simulate`, which must hand the stream it is given to the engine
/// ([`crate::simulate_into`]; see [`crate::record_scenario`]): the run (its layout empty) and its objects' events,
/// for [`write_recorded`].
pub fn record_with(
    simulate: impl FnOnce(Box<dyn ObjectEvents>) -> Result<Run, SimError>,
) -> Result<(Run, RecordedObjects), RecordError> {
    let slot = SpillSlot::default();
    let spill = ObjectSpill::new(slot.clone()).map_err(|e| RecordError::Io(e.to_string()))?;
    let run = simulate(Box::new(spill))?;
    let objs = slot.take().ok_or_else(|| {
        RecordError::Io("the engine kept the object stream past the run's end".into())
    })?;
    if let Some(e) = objs.spill.error().or(objs.disorder.as_deref()) {
        return Err(RecordError::Io(e.to_string()));
    }
    Ok((run, objs))
}

/// Writes every object of `objs` and every collection of `run` to `w` in time order, naming sites after
/// `workload`'s streams; `progress` hears the fraction of the events written.
pub fn write_recorded<W: Write>(
    run: &Run,
    objs: &RecordedObjects,
    workload: &WorkloadProfile,
    w: &mut TraceWriter<W>,
    progress: &mut dyn Progress,
) -> std::io::Result<()> {
    // Sites, then GC kinds, are defined in this order before any event (the tables open the trace).
    let mut sites: HashMap<u32, (u32, u32)> = HashMap::new();
    for &site in &objs.sites {
        let (s, t) = site_names(workload, site);
        sites.insert(
            site,
            (w.intern(Table::Site, &s)?, w.intern(Table::Type, &t)?),
        );
    }
    let mut kinds = Vec::with_capacity(run.gc_events.len());
    for g in &run.gc_events {
        let trigger = super::variant_name(&g.trigger).unwrap_or_else(|| "gc".to_string());
        kinds.push(w.intern(Table::GcKind, &trigger)?);
    }
    let mut gcs: Vec<(u64, u64)> = Vec::with_capacity(2 * run.gc_events.len());
    for (k, g) in run.gc_events.iter().enumerate() {
        gcs.push((g.start.0, key(1, k as u64)));
        gcs.push((g.end.0, key(3, k as u64)));
    }
    gcs.sort_unstable();
    let total = (objs.spill.len() + gcs.len()).max(1) as f64;
    let mut gc = gcs.iter().peekable();
    let gc_event = |&(t, k): &(u64, u64)| {
        if k >> 61 == 1 {
            Event::GcStart {
                kind: kinds[(k & ID_BITS) as usize],
                t,
            }
        } else {
            Event::GcEnd { t }
        }
    };
    for (n, r) in objs.spill.iter().enumerate() {
        while let Some(g) = gc.next_if(|g| **g < (r.t, r.key)) {
            w.event(&gc_event(g))?;
        }
        let (rank, id, t) = (r.key >> 61, r.key & ID_BITS, r.t);
        let ev = match rank {
            2 => Event::Move {
                id,
                addr: r.addr,
                t,
            },
            4 => {
                let (site, type_id) = sites.get(&r.site).copied().unwrap_or_default();
                Event::Alloc {
                    id,
                    site,
                    type_id,
                    size_bytes: r.size,
                    addr: r.addr,
                    t,
                }
            }
            _ => Event::Death { id, t },
        };
        w.event(&ev)?;
        if n % (1 << 16) == 0 {
            progress.report(n as f64 / total);
        }
    }
    for g in gc {
        w.event(&gc_event(g))?;
    }
    if let Some(e) = objs.spill.error() {
        return Err(std::io::Error::other(e.to_string()));
    }
    progress.report(1.0);
    Ok(())
}

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
