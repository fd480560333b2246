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

use std::io::Write;

use super::{Event, HeapInfo, Table, TimeUnit, TraceHeader, TraceWriter};
use crate::run::Run;
use crate::scenario::Scenario;
use crate::workload::profile::SizeClass;

/// The header of a recorded run.
pub fn header(run: &Run, sc: &Scenario) -> TraceHeader {
    TraceHeader::new(
        TimeUnit::Ns,
        HeapInfo {
            base_addr: 0,
            size_bytes: run.geometry.heap_bytes,
            bank_bytes: run.geometry.bank_bytes,
        },
        &format!(
            "gclab {} ({} on {}, seed {})",
            sc.origin(),
            run.summary.collector,
            run.summary.platform,
            sc.seed()
        ),
    )
}

/// Names of the site stand-in `site` (see `AllocDraw::site`): the stream, and the size class.
fn site_names(sc: &Scenario, site: u32) -> (String, String) {
    let w = sc.workload();
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

/// Writes every object and collection of `run` (which must have been run with `record.layout = true`) to `w`.
pub fn write_run<W: Write>(
    run: &Run,
    sc: &Scenario,
    w: &mut TraceWriter<W>,
) -> std::io::Result<()> {
    // (time, rank at equal times, sequence, event): deaths due, then a collection's start, its moves and end,
    // then allocations; a death at its own allocation instant comes after it.
    let mut evs: Vec<(u64, u8, u64, Event)> = Vec::new();
    let mut sites: std::collections::HashMap<u32, (u32, u32)> = std::collections::HashMap::new();
    let layout = &run.layout;
    for (i, o) in layout.objects.iter().enumerate() {
        let id = i as u64;
        let (site, type_id) = match sites.get(&o.site) {
            Some(v) => *v,
            None => {
                let (s, t) = site_names(sc, o.site);
                let v = (w.intern(Table::Site, &s)?, w.intern(Table::Type, &t)?);
                sites.insert(o.site, v);
                v
            }
        };
        evs.push((
            o.alloc.0,
            4,
            id,
            Event::Alloc {
                id,
                site,
                type_id,
                size_bytes: o.size,
                addr: o.addr,
                t: o.alloc.0,
            },
        ));
        let start = o.moves_start as usize;
        for m in layout
            .moves
            .get(start..start + o.moves_len as usize)
            .unwrap_or(&[])
        {
            evs.push((
                m.time.0,
                2,
                id,
                Event::Move {
                    id,
                    addr: m.addr,
                    t: m.time.0,
                },
            ));
        }
        if o.death.0 != u64::MAX {
            let rank = if o.death == o.alloc { 5 } else { 0 };
            evs.push((o.death.0, rank, id, Event::Death { id, t: o.death.0 }));
        }
    }
    for (k, g) in run.gc_events.iter().enumerate() {
        let trigger = serde_json::to_value(g.trigger)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_else(|| "gc".to_string());
        let kind = w.intern(Table::GcKind, &trigger)?;
        evs.push((
            g.start.0,
            1,
            k as u64,
            Event::GcStart { kind, t: g.start.0 },
        ));
        evs.push((g.end.0, 3, k as u64, Event::GcEnd { t: g.end.0 }));
    }
    evs.sort_unstable_by_key(|e| (e.0, e.1, e.2));
    for (_, _, _, ev) in &evs {
        w.event(ev)?;
    }
    Ok(())
}
