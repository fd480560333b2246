//! `gclab trace record`'s stream against the former whole-run sort of a kept layout: the same bytes.

use super::*;
use crate::Scenario;
use crate::progress::{Cancel, NoProgress};
use crate::trace::Form;

/// The trace as it was written before streaming: every event of a kept layout sorted at once by
/// `(time, key, move index)`.
fn from_layout(run: &Run, workload: &WorkloadProfile, form: Form, header: &TraceHeader) -> Vec<u8> {
    let mut w = TraceWriter::new(Vec::new(), form, header).expect("header");
    let layout = &run.layout;
    let mut sites = HashMap::new();
    for o in &layout.objects {
        if let std::collections::hash_map::Entry::Vacant(e) = sites.entry(o.site) {
            let (s, t) = site_names(workload, o.site);
            e.insert((
                w.intern(Table::Site, &s).expect("site"),
                w.intern(Table::Type, &t).expect("type"),
            ));
        }
    }
    let kinds: Vec<u32> = run
        .gc_events
        .iter()
        .map(|g| {
            let name = serde_json::to_value(g.trigger).expect("trigger");
            w.intern(Table::GcKind, name.as_str().expect("a name"))
                .expect("kind")
        })
        .collect();
    let mut evs: Vec<(u64, u64, u64)> = Vec::new();
    for (i, o) in layout.objects.iter().enumerate() {
        let id = i as u64;
        evs.push((o.alloc.0, key(4, id), 0));
        let start = o.moves_start as usize;
        for m in start..start + o.moves_len as usize {
            evs.push((layout.moves[m].time.0, key(2, id), m as u64));
        }
        if o.death.0 != u64::MAX {
            let rank = if o.death == o.alloc { 5 } else { 0 };
            evs.push((o.death.0, key(rank, id), 0));
        }
    }
    for (k, g) in run.gc_events.iter().enumerate() {
        evs.push((g.start.0, key(1, k as u64), 0));
        evs.push((g.end.0, key(3, k as u64), 0));
    }
    evs.sort_unstable();
    for (t, k, m) in evs {
        let id = k & ID_BITS;
        let ev = match k >> 61 {
            1 => Event::GcStart {
                kind: kinds[id as usize],
                t,
            },
            3 => Event::GcEnd { t },
            2 => Event::Move {
                id,
                addr: layout.moves[m as usize].addr,
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
        w.event(&ev).expect("event");
    }
    w.finish().expect("finish")
}

fn both(preset: &str, sets: &[&str], form: Form) -> (Vec<u8>, Vec<u8>) {
    let mut sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    sets.push("record.layout=true".into());
    let sc = Scenario::load(preset, &sets).expect("preset");
    let kept = crate::simulate(&sc, &Cancel::never(), &mut NoProgress).expect("run");
    let header = record_header(&kept, sc.origin(), sc.seed());
    let reference = from_layout(&kept, sc.workload(), form, &header);
    let (run, objs) =
        crate::record_scenario(&sc, &Cancel::never(), &mut NoProgress).expect("record");
    assert!(
        run.layout.objects.is_empty(),
        "{preset}: a streamed run keeps no layout"
    );
    assert_eq!(
        objs.objects(),
        kept.layout.objects.len() as u64,
        "{preset}: objects"
    );
    let mut w = TraceWriter::new(
        Vec::new(),
        form,
        &record_header(&run, sc.origin(), sc.seed()),
    )
    .expect("header");
    write_recorded(&run, &objs, sc.workload(), &mut w, &mut NoProgress).expect("write");
    (w.finish().expect("finish"), reference)
}

/// Streaming changes nothing in the file: kvm with compaction (moves) and without, deaths at their allocation
/// instant, and android's heap map (pieces split over free chunks, the initial live data).
#[test]
fn a_streamed_recording_is_the_whole_run_sort() {
    for (preset, sets) in [
        ("preset:kvm/kwml", &["collector.kind=adaptive"][..]),
        ("preset:kvm/kwml", &["collector.kind=base"][..]),
        ("preset:kvm/dragon", &[][..]),
        ("preset:android/quadrant", &[][..]),
    ] {
        for form in [Form::Binary, Form::Text] {
            let (streamed, reference) = both(preset, sets, form);
            assert!(
                streamed == reference,
                "{preset} {sets:?} {form:?}: streamed differs"
            );
        }
    }
}

/// An engine that reported an event earlier than one before it would make a trace out of order: the recording
/// says so instead of writing it.
#[test]
fn an_event_back_in_time_is_an_error_not_a_wrong_trace() {
    let slot = SpillSlot::default();
    let mut s = ObjectSpill::new(slot.clone()).expect("spill");
    s.alloc(0, 0, 16, SimTime(10), 0);
    s.alloc(1, 16, 16, SimTime(20), 0);
    s.death(0, SimTime(15));
    drop(s);
    let objs = slot.take().expect("handed over");
    assert!(
        objs.disorder
            .as_deref()
            .is_some_and(|e| e.contains("15 ns")),
        "{:?}",
        objs.disorder
    );
}

/// Deaths at their own allocation instant come after it, others before the instant's allocations; one object's
/// moves at one instant keep their order.
#[test]
fn an_instant_is_sorted_by_rank_then_object() {
    let slot = SpillSlot::default();
    let mut s = ObjectSpill::new(slot.clone()).expect("spill");
    s.alloc(0, 0, 16, SimTime(10), 7);
    s.alloc(1, 16, 16, SimTime(20), 7);
    s.death(1, SimTime(20));
    s.death(0, SimTime(20));
    s.moved(0, SimTime(30), 64);
    s.moved(0, SimTime(30), 32);
    drop(s);
    let objs = slot.take().expect("handed over");
    let got: Vec<(u64, u64, u64)> = objs
        .spill
        .iter()
        .map(|r| (r.t, r.key >> 61, r.addr))
        .collect();
    assert_eq!(
        got,
        vec![
            (10, 4, 0),
            (20, 0, 0),
            (20, 4, 16),
            (20, 5, 0),
            (30, 2, 64),
            (30, 2, 32)
        ]
    );
    assert_eq!(objs.sites, vec![7]);
}
