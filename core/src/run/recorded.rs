//! A trace replayed *as recorded*: the file's objects, addresses, moves and deaths turned into the same
//! scrubbable [`HeapLayout`] a simulated run carries, so that the heap-layout view can show a recorded program
//! (`RecordedLayout::open`). Two streaming passes over the file: the first finds the address range and whether
//! the trace has collections, the second records the layout.
//!
//! Reclamation: in a trace with collections an object dead at `t` stays in the heap (drawn as dead) until the
//! next `gc_end`; without collections (heaptrack, Elephant Tracks) death is reclamation. Addresses are made
//! relative to the header's heap base, or to the lowest address in the trace when the base is unknown; when the
//! trace has no addresses at all (Elephant Tracks) objects are laid out by a bump pointer in allocation order.
//! Times become [`SimTime`] nanoseconds (a logical clock maps one unit to one nanosecond).

use std::collections::HashMap;
use std::path::Path;

use super::{HeapLayout, LayoutRecorder};
use crate::trace::{Event, TraceError, TraceHeader, TraceReader};
use crate::units::SimTime;

/// A recorded trace as a layout.
#[derive(Debug, Clone)]
pub struct RecordedLayout {
    /// The trace's header.
    pub header: TraceHeader,
    /// Every object's address history (ids in allocation order).
    pub layout: HeapLayout,
    /// Address subtracted from the trace's addresses (layout address 0). `[bytes]`
    pub addr_base: u64,
    /// Highest end address in the layout. `[bytes]`
    pub addr_span: u64,
    /// Collections `[start, end)`.
    pub collections: Vec<(SimTime, SimTime)>,
    /// Last event time.
    pub end: SimTime,
    /// True when addresses were synthesized (the trace had none).
    pub synthetic_addresses: bool,
}

fn free_now(rec: &mut LayoutRecorder, freed: &mut [bool], lid: u32, t: SimTime) {
    rec.freed(lid, t);
    if let Some(f) = freed.get_mut(lid as usize) {
        *f = true;
    }
}

#[derive(Debug, Default)]
struct Scan {
    has_gc: bool,
    min_addr: Option<u64>,
}

fn scan(path: &Path) -> Result<Scan, TraceError> {
    let mut s = Scan::default();
    for ev in TraceReader::open(path)? {
        match ev? {
            Event::Alloc { addr, .. } | Event::Move { addr, .. } if addr != 0 => {
                s.min_addr = Some(s.min_addr.map_or(addr, |m| m.min(addr)));
            }
            Event::GcStart { .. } | Event::GcEnd { .. } => s.has_gc = true,
            _ => {}
        }
    }
    Ok(s)
}

impl RecordedLayout {
    /// Reads the trace at `path` into a layout.
    pub fn open(path: &Path) -> Result<RecordedLayout, TraceError> {
        let sc = scan(path)?;
        let mut r = TraceReader::open(path)?;
        let header = r.header().clone();
        let scale = header.time_unit.ns_per_unit().unwrap_or(1.0);
        let time = |t: u64| SimTime((t as f64 * scale).min(u64::MAX as f64) as u64);
        let synthetic = sc.min_addr.is_none();
        let base = if header.heap.base_addr != 0 {
            header.heap.base_addr
        } else {
            sc.min_addr.unwrap_or(0)
        };
        let mut rec = LayoutRecorder::new();
        let mut ids: HashMap<u64, u32> = HashMap::new();
        let mut freed: Vec<bool> = Vec::new();
        let mut maybe_resident: Vec<u32> = Vec::new();
        let mut pending: Vec<u32> = Vec::new();
        let mut collections = Vec::new();
        let mut open_gc: Option<SimTime> = None;
        let (mut bump, mut span, mut end) = (0u64, 0u64, SimTime(0));
        for ev in r.by_ref() {
            let ev = ev?;
            let t = time(ev.t());
            end = end.max(t);
            match ev {
                Event::Alloc {
                    id,
                    site,
                    size_bytes,
                    addr,
                    ..
                } => {
                    let a = if synthetic {
                        let a = bump;
                        bump = bump.saturating_add(size_bytes);
                        a
                    } else {
                        addr.wrapping_sub(base)
                    };
                    if rec.wants_keyframe() {
                        maybe_resident.retain(|l| !freed[*l as usize]);
                        rec.keyframe(t, maybe_resident.clone());
                    }
                    let lid = rec.alloc(a, size_bytes, t, site);
                    freed.push(false);
                    maybe_resident.push(lid);
                    span = span.max(a.saturating_add(size_bytes));
                    if let Some(old) = ids.insert(id, lid) {
                        rec.death(old, t);
                        free_now(&mut rec, &mut freed, old, t);
                    }
                }
                Event::Move { id, addr, .. } => {
                    if let Some(&lid) = ids.get(&id)
                        && !synthetic
                    {
                        rec.moved(lid, t, addr.wrapping_sub(base));
                    }
                }
                Event::Death { id, .. } => {
                    if let Some(lid) = ids.remove(&id) {
                        rec.death(lid, t);
                        if sc.has_gc {
                            pending.push(lid);
                        } else {
                            free_now(&mut rec, &mut freed, lid, t);
                        }
                    }
                }
                Event::GcStart { .. } => open_gc = Some(t),
                Event::GcEnd { .. } => {
                    for lid in pending.drain(..) {
                        free_now(&mut rec, &mut freed, lid, t);
                    }
                    collections.push((open_gc.take().unwrap_or(t), t));
                }
                Event::Access { .. } => {}
            }
        }
        Ok(RecordedLayout {
            header,
            layout: rec.finish(),
            addr_base: base,
            addr_span: span,
            collections,
            end,
            synthetic_addresses: synthetic,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixture_replays_as_recorded() {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/trace/v1.gctrace");
        let l = RecordedLayout::open(&p).expect("fixture");
        assert_eq!(l.addr_base, 0x10000, "header base");
        assert_eq!(l.layout.objects.len(), 4, "objects");
        assert_eq!(l.collections.len(), 2, "collections");
        // Object 2 died at 200 and is reclaimed by the collection ending at 230.
        let at = |t| l.layout.at(SimTime(t));
        assert_eq!(at(220).len(), 3, "{:?}", at(220));
        assert!(
            at(220).iter().any(|p| p.id == 1 && p.dead),
            "dead, not yet reclaimed"
        );
        assert_eq!(at(231).len(), 2, "{:?}", at(231));
        // Object 3 was moved to 0x10018 at 215 and to 0x10000 at 320.
        assert!(at(231).iter().any(|p| p.id == 2 && p.addr == 0x18), "moved");
        assert!(
            at(341).iter().any(|p| p.id == 2 && p.addr == 0),
            "moved again"
        );
        assert_eq!(l.end, SimTime(340), "end");
    }
}
