//! A simulated run's objects as a gclab trace (`gclab trace record`): every object of the run's [`HeapLayout`]
//! (alloc with address and size, its compaction moves, its death = the instant it became unreachable) and every
//! collection (`gc_start` with the trigger as GC kind, `gc_end`), in time order, times in nanoseconds.
//!
//! The workloads model neither allocation sites nor types: the site is the stream that allocated the object (the
//! work phase's name, `timer` or `after-collection`) and the type is its size class (`class K: MIN-MAX B`). The
//! engine models no individual accesses, so the trace has no `access` events. Reclamation is not an event: an
//! object dead at `t` is reclaimed by the first collection that ends after `t`.
//!
//! [`HeapLayout`]: crate::run::HeapLayout

use std::collections::HashMap;
use std::io::Write;

use crate::run::Run;
use crate::trace::{Event, HeapInfo, Table, TimeUnit, TraceHeader, TraceWriter};
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

/// Writes every object and collection of `run` (which must have been run with `record.layout = true`) to `w`,
/// naming sites after `workload`'s streams. Events are ordered by compact 24-byte keys, each event built from the
/// layout only when it is written, so the recorder holds the run's layout plus 24 bytes per event.
pub fn record_run<W: Write>(
    run: &Run,
    workload: &WorkloadProfile,
    w: &mut TraceWriter<W>,
) -> std::io::Result<()> {
    // (time, rank at equal times << 61 | object or collection index, payload): deaths due, then a collection's
    // start, its moves (payload: the move's index) and end, then allocations; a death at its own allocation
    // instant comes after it.
    const ID_BITS: u64 = (1 << 61) - 1;
    let key = |rank: u64, id: u64| rank << 61 | (id & ID_BITS);
    let mut evs: Vec<(u64, u64, u64)> = Vec::new();
    let mut sites: HashMap<u32, (u32, u32)> = HashMap::new();
    let layout = &run.layout;
    for (i, o) in layout.objects.iter().enumerate() {
        let id = i as u64;
        if let std::collections::hash_map::Entry::Vacant(e) = sites.entry(o.site) {
            let (s, t) = site_names(workload, o.site);
            e.insert((w.intern(Table::Site, &s)?, w.intern(Table::Type, &t)?));
        }
        evs.push((o.alloc.0, key(4, id), 0));
        let start = o.moves_start as usize;
        let end = (start + o.moves_len as usize).min(layout.moves.len());
        for (m, mv) in layout.moves.iter().enumerate().take(end).skip(start) {
            evs.push((mv.time.0, key(2, id), m as u64));
        }
        if o.death.0 != u64::MAX {
            let rank = if o.death == o.alloc { 5 } else { 0 };
            evs.push((o.death.0, key(rank, id), 0));
        }
    }
    let mut kinds = Vec::with_capacity(run.gc_events.len());
    for (k, g) in run.gc_events.iter().enumerate() {
        let trigger = serde_json::to_value(g.trigger)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_else(|| "gc".to_string());
        kinds.push(w.intern(Table::GcKind, &trigger)?);
        evs.push((g.start.0, key(1, k as u64), 0));
        evs.push((g.end.0, key(3, k as u64), 0));
    }
    evs.sort_unstable();
    for &(t, k, payload) in &evs {
        let (rank, id) = (k >> 61, k & ID_BITS);
        let ev = match rank {
            1 => Event::GcStart {
                kind: kinds[id as usize],
                t,
            },
            3 => Event::GcEnd { t },
            2 => Event::Move {
                id,
                addr: layout.moves[payload as usize].addr,
                t,
            },
            4 => {
                let o = &layout.objects[id as usize];
                let (site, type_id) = sites[&o.site];
                Event::Alloc {
                    id,
                    site,
                    type_id,
                    size_bytes: o.size,
                    addr: o.addr,
                    t,
                }
            }
            _ => Event::Death { id, t },
        };
        w.event(&ev)?;
    }
    Ok(())
}
