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

use crate::progress::Progress;
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

/// Events sorted and written at once, at most (24 MB of keys), unless more share one time bucket.
const EVENTS_PER_WINDOW: usize = 1 << 20;
/// Equal time buckets the run is cut into to choose the windows.
const TIME_BUCKETS: u64 = 1 << 12;

/// Writes every object and collection of `run` (which must have been run with `record.layout = true`) to `w`,
/// naming sites after `workload`'s streams.
///
/// Events are written in time order, built from the layout only when written, a time window at a time: a first
/// pass counts the events per time bucket, then the run is cut into windows of about [`EVENTS_PER_WINDOW`]
/// events, and each window's events are gathered (a pass over the objects allocated before its end), sorted by
/// compact 24-byte keys and written. So the recorder holds the run's layout plus a window's keys (24 MB), not
/// 24 bytes per event of the run (issue 21, item 4). The order inside a time is fixed by the keys, not by the
/// windows, so the output is the same whatever the window size.
pub fn record_run<W: Write>(
    run: &Run,
    workload: &WorkloadProfile,
    w: &mut TraceWriter<W>,
    progress: &mut dyn Progress,
) -> std::io::Result<()> {
    record_run_windowed(run, workload, w, EVENTS_PER_WINDOW, progress)
}

/// [`record_run`] with at most about `per_window` events sorted at once (tests use tiny windows); `progress`
/// hears the fraction of the events written after each window.
pub fn record_run_windowed<W: Write>(
    run: &Run,
    workload: &WorkloadProfile,
    w: &mut TraceWriter<W>,
    per_window: usize,
    progress: &mut dyn Progress,
) -> std::io::Result<()> {
    let layout = &run.layout;
    // Sites, then GC kinds, are defined in this order before any event (the tables open the trace).
    let mut sites: HashMap<u32, (u32, u32)> = HashMap::new();
    for o in &layout.objects {
        if let std::collections::hash_map::Entry::Vacant(e) = sites.entry(o.site) {
            let (s, t) = site_names(workload, o.site);
            e.insert((w.intern(Table::Site, &s)?, w.intern(Table::Type, &t)?));
        }
    }
    let mut kinds = Vec::with_capacity(run.gc_events.len());
    for g in &run.gc_events {
        let trigger = serde_json::to_value(g.trigger)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_else(|| "gc".to_string());
        kinds.push(w.intern(Table::GcKind, &trigger)?);
    }
    // Pass 1: events per time bucket.
    let mut last = 0u64;
    each_event(run, 0, u64::MAX, |t, _, _| last = last.max(t));
    let bucket =
        |t: u64| (u128::from(t) * u128::from(TIME_BUCKETS) / (u128::from(last) + 1)) as usize;
    let mut counts = vec![0usize; TIME_BUCKETS as usize];
    each_event(run, 0, u64::MAX, |t, _, _| counts[bucket(t)] += 1);
    // Windows: runs of whole buckets holding at most `per_window` events (or one bucket holding more). A bucket
    // `b` starts at the first time `t` with bucket(t) = b.
    let start_of = |b: u64| -> u64 {
        let v = (u128::from(b) * (u128::from(last) + 1)).div_ceil(u128::from(TIME_BUCKETS));
        u64::try_from(v).unwrap_or(u64::MAX)
    };
    let mut evs: Vec<(u64, u64, u64)> = Vec::new();
    let total = counts.iter().sum::<usize>().max(1) as f64;
    let (mut b0, mut held, mut done) = (0u64, 0usize, 0usize);
    for b in 0..TIME_BUCKETS {
        let n = counts[b as usize];
        if held > 0 && held + n > per_window {
            write_window(run, &sites, &kinds, w, &mut evs, start_of(b0), start_of(b))?;
            done += held;
            progress.report(done as f64 / total);
            (b0, held) = (b, 0);
        }
        held += n;
    }
    write_window(run, &sites, &kinds, w, &mut evs, start_of(b0), u64::MAX)?;
    progress.report(1.0);
    Ok(())
}

/// Key rank at equal times `<< 61 | object or collection index`: deaths due (0), then a collection's start (1),
/// its moves (2, payload: the move's index) and end (3), then allocations (4); a death at its own allocation
/// instant comes after it (5).
const ID_BITS: u64 = (1 << 61) - 1;

fn key(rank: u64, id: u64) -> u64 {
    rank << 61 | (id & ID_BITS)
}

/// Calls `f(time, key, payload)` for every event with `t0 <= time < t1` (deaths "never" are no event).
fn each_event(run: &Run, t0: u64, t1: u64, mut f: impl FnMut(u64, u64, u64)) {
    let layout = &run.layout;
    let inside = |t: u64| t0 <= t && t < t1;
    // Objects are in allocation order, and nothing happens to one before its allocation.
    let before_end = layout.objects.partition_point(|o| o.alloc.0 < t1);
    for (i, o) in layout.objects[..before_end].iter().enumerate() {
        let id = i as u64;
        if inside(o.alloc.0) {
            f(o.alloc.0, key(4, id), 0);
        }
        let start = o.moves_start as usize;
        let end = (start + o.moves_len as usize).min(layout.moves.len());
        for (m, mv) in layout.moves.iter().enumerate().take(end).skip(start) {
            if inside(mv.time.0) {
                f(mv.time.0, key(2, id), m as u64);
            }
        }
        if o.death.0 != u64::MAX && inside(o.death.0) {
            let rank = if o.death == o.alloc { 5 } else { 0 };
            f(o.death.0, key(rank, id), 0);
        }
    }
    for (k, g) in run.gc_events.iter().enumerate() {
        if inside(g.start.0) {
            f(g.start.0, key(1, k as u64), 0);
        }
        if inside(g.end.0) {
            f(g.end.0, key(3, k as u64), 0);
        }
    }
}

/// Gathers, sorts and writes the events with `t0 <= time < t1`.
fn write_window<W: Write>(
    run: &Run,
    sites: &HashMap<u32, (u32, u32)>,
    kinds: &[u32],
    w: &mut TraceWriter<W>,
    evs: &mut Vec<(u64, u64, u64)>,
    t0: u64,
    t1: u64,
) -> std::io::Result<()> {
    let layout = &run.layout;
    evs.clear();
    each_event(run, t0, t1, |t, k, payload| evs.push((t, k, payload)));
    evs.sort_unstable();
    for &(t, k, payload) in evs.iter() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::{Cancel, NoProgress};
    use crate::trace::Form;
    use crate::{Scenario, simulate};

    fn recorded(sets: &[&str], per_window: usize, form: Form) -> Vec<u8> {
        let mut sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        sets.push("record.layout=true".into());
        let sc = Scenario::load("preset:kvm/kwml", &sets).expect("preset");
        let run = simulate(&sc, &Cancel::never(), &mut NoProgress).expect("run");
        let mut w = TraceWriter::new(
            Vec::new(),
            form,
            &record_header(&run, sc.origin(), sc.seed()),
        )
        .expect("header");
        record_run_windowed(&run, sc.workload(), &mut w, per_window, &mut NoProgress)
            .expect("record");
        w.finish().expect("finish")
    }

    /// The windows only bound how many keys are sorted at once: the trace is the same whatever their size
    /// (one window holding the whole run is the former whole-run sort), with moves (the adaptive collector
    /// compacts) and deaths at their allocation instant.
    #[test]
    fn a_recording_is_the_same_whatever_the_window() {
        for sets in [
            &["collector.kind=adaptive"][..],
            &["collector.kind=base"][..],
        ] {
            for form in [Form::Binary, Form::Text] {
                let whole = recorded(sets, usize::MAX, form);
                for per_window in [1, 1000, 10_000] {
                    assert!(
                        recorded(sets, per_window, form) == whole,
                        "{sets:?} {form:?}: {per_window} events a window"
                    );
                }
            }
        }
    }
}
