//! A trace replayed *as recorded*: the file's objects, addresses, moves and deaths turned into the same
//! scrubbable [`HeapLayout`] a simulated run carries, so that the heap-layout view can show a recorded program
//! (`RecordedLayout::open`). Two streaming passes over the file: the first finds the address range and whether
//! the trace has collections, the second records the layout.
//!
//! Reclamation: in a trace with collections an object dead at `t` stays in the heap (drawn as dead) until the
//! next `gc_end`; without collections (heaptrack, Elephant Tracks) death is reclamation. Addresses are made
//! relative to the header's heap base, or to the lowest address in the trace when the base is unknown; when the
//! trace has no addresses at all (Elephant Tracks) objects are laid out by a bump pointer in allocation order.
//! Times become [`SimTime`] nanoseconds (a logical clock maps one unit to one nanosecond). The walk itself
//! ([`RecordedWalk`] into a [`RecordedSink`]) is shared with the app's trace replay, which keeps flat arrays instead.

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

/// What replaying a trace as recorded makes of its objects, told by [`RecordedWalk::event`] (the one reading of a
/// trace's objects: [`RecordedLayout`] records them as a [`HeapLayout`], the app's trace replay as flat arrays).
/// Times are the caller's own (`T`), converted from the event's before the walk sees them.
pub trait RecordedSink<T> {
    /// An object allocated at `t`, `size_bytes` long at `addr` — the trace's address, or a bump address in
    /// allocation order when the trace has none ([`RecordedWalk::synthetic`]); returns its local id (0, 1, … in
    /// allocation order).
    fn alloc(&mut self, t: T, addr: u64, size_bytes: u64, site: u32) -> u32;
    /// Object `lid` moved to the trace's address `addr` at `t` (never called when addresses are synthesized).
    fn moved(&mut self, lid: u32, t: T, addr: u64);
    /// Object `lid` died at `t` (unreachable; still in the heap until [`RecordedSink::freed`]).
    fn died(&mut self, lid: u32, t: T);
    /// Object `lid`'s memory was reclaimed at `t`.
    fn freed(&mut self, lid: u32, t: T);
    /// A collection ran over `[start, end]`.
    fn collection(&mut self, start: T, end: T);
}

/// The walk over a trace's events that turns ids into local ids and deaths into reclamation: in a trace with
/// collections an object dead at `t` is reclaimed at the next `gc_end`; without collections death is reclamation;
/// an id allocated again without a death ends the old object there.
#[derive(Debug)]
pub struct RecordedWalk<T> {
    ids: HashMap<u64, u32>,
    pending: Vec<u32>,
    open_gc: Option<T>,
    bump: u64,
    has_gc: bool,
    synthetic: bool,
}

impl<T: Copy> RecordedWalk<T> {
    /// A walk over a trace that has collections (`has_gc`) and addresses (`!synthetic`), found by a first pass,
    /// with room for about `objects` live ids (a hint; at most 16 M are reserved).
    pub fn new(has_gc: bool, synthetic: bool, objects: usize) -> Self {
        RecordedWalk {
            ids: HashMap::with_capacity(objects.min(1 << 24)),
            pending: Vec::new(),
            open_gc: None,
            bump: 0,
            has_gc,
            synthetic,
        }
    }

    /// True when the trace has no addresses and objects are laid out by a bump pointer.
    pub fn synthetic(&self) -> bool {
        self.synthetic
    }

    /// Bytes the bump pointer laid out so far (synthesized addresses).
    pub fn bump_bytes(&self) -> u64 {
        self.bump
    }

    /// Tells `sink` what `ev`, at the caller's time `t`, does to the objects.
    pub fn event(&mut self, ev: &Event, t: T, sink: &mut impl RecordedSink<T>) {
        match *ev {
            Event::Alloc {
                id,
                site,
                size_bytes,
                addr,
                ..
            } => {
                let a = if self.synthetic {
                    let a = self.bump;
                    self.bump = self.bump.saturating_add(size_bytes);
                    a
                } else {
                    addr
                };
                let lid = sink.alloc(t, a, size_bytes, site);
                if let Some(old) = self.ids.insert(id, lid) {
                    sink.died(old, t);
                    sink.freed(old, t);
                }
            }
            Event::Move { id, addr, .. } => {
                if let Some(&lid) = self.ids.get(&id)
                    && !self.synthetic
                {
                    sink.moved(lid, t, addr);
                }
            }
            Event::Death { id, .. } => {
                if let Some(lid) = self.ids.remove(&id) {
                    sink.died(lid, t);
                    if self.has_gc {
                        self.pending.push(lid);
                    } else {
                        sink.freed(lid, t);
                    }
                }
            }
            Event::GcStart { .. } => self.open_gc = Some(t),
            Event::GcEnd { .. } => {
                for lid in self.pending.drain(..) {
                    sink.freed(lid, t);
                }
                sink.collection(self.open_gc.take().unwrap_or(t), t);
            }
            Event::Access { .. } => {}
        }
    }
}

/// [`RecordedLayout`]'s sink: a [`LayoutRecorder`] with keyframes of the objects that may still be resident.
struct LayoutSink {
    rec: LayoutRecorder,
    freed: Vec<bool>,
    maybe_resident: Vec<u32>,
    collections: Vec<(SimTime, SimTime)>,
    base: u64,
    synthetic: bool,
    span: u64,
}

impl RecordedSink<SimTime> for LayoutSink {
    fn alloc(&mut self, t: SimTime, addr: u64, size_bytes: u64, site: u32) -> u32 {
        let a = if self.synthetic {
            addr
        } else {
            addr.wrapping_sub(self.base)
        };
        if self.rec.wants_keyframe() {
            let freed = &self.freed;
            self.maybe_resident.retain(|l| !freed[*l as usize]);
            self.rec.keyframe(t, self.maybe_resident.clone());
        }
        let lid = self.rec.alloc(a, size_bytes, t, site);
        self.freed.push(false);
        self.maybe_resident.push(lid);
        self.span = self.span.max(a.saturating_add(size_bytes));
        lid
    }

    fn moved(&mut self, lid: u32, t: SimTime, addr: u64) {
        self.rec.moved(lid, t, addr.wrapping_sub(self.base));
    }

    fn died(&mut self, lid: u32, t: SimTime) {
        self.rec.death(lid, t);
    }

    fn freed(&mut self, lid: u32, t: SimTime) {
        self.rec.freed(lid, t);
        if let Some(f) = self.freed.get_mut(lid as usize) {
            *f = true;
        }
    }

    fn collection(&mut self, start: SimTime, end: SimTime) {
        self.collections.push((start, end));
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
        let mut sink = LayoutSink {
            rec: LayoutRecorder::new(),
            freed: Vec::new(),
            maybe_resident: Vec::new(),
            collections: Vec::new(),
            base,
            synthetic,
            span: 0,
        };
        let mut walk = RecordedWalk::new(sc.has_gc, synthetic, 0);
        let mut end = SimTime(0);
        for ev in r.by_ref() {
            let ev = ev?;
            let t = time(ev.t());
            end = end.max(t);
            walk.event(&ev, t, &mut sink);
        }
        Ok(RecordedLayout {
            header,
            layout: sink.rec.finish(),
            addr_base: base,
            addr_span: sink.span,
            collections: sink.collections,
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
