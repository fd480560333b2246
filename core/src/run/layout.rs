//! `HeapLayout`: every object's address history, indexed so that the address map at any instant is rebuilt in
//! O(objects resident then + a bounded spacing) — what the app's heap-layout replay scrubs through.
//!
//! Objects are stored in allocation order (so "allocated by t" is a prefix found by binary search). Keyframes,
//! taken while recording, list the objects resident at their instant; one is taken whenever the allocations since
//! the last keyframe reach the resident count then (at least 1024), so keyframes never hold more entries than
//! there are objects, and a query touches at most the keyframe's list plus one spacing of newer objects.
//! Addresses change only in compaction; moves are kept per object, sorted by time.
//!
//! A recorder made by [`LayoutRecorder::streaming`] keeps nothing: it hands every allocation, death and move to
//! an [`ObjectEvents`] as the engine decides it (`gclab trace record` writes them to disk during the run, issue 21
//! item 4) and its layout is empty.

use crate::units::SimTime;

/// One object's life in the heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectSpan {
    /// Address at allocation, from the heap base. `[bytes]`
    pub addr: u64,
    /// Size, aligned. `[bytes]`
    pub size: u64,
    /// Allocated at.
    pub alloc: SimTime,
    /// Became unreachable at (`SimTime(u64::MAX)`: never during the run).
    pub death: SimTime,
    /// Reclaimed by a collection at (`SimTime(u64::MAX)`: never).
    pub freed: SimTime,
    /// Allocation site.
    pub site: u32,
    /// Index of its first move in [`HeapLayout::moves`], and how many.
    pub moves_start: u32,
    /// Number of moves.
    pub moves_len: u32,
}

/// A compaction moved an object at `time` to `addr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    /// When it moved.
    pub time: SimTime,
    /// Its new address. `[bytes]`
    pub addr: u64,
}

/// What an address range holds at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacedObject {
    /// Object index (allocation order).
    pub id: u32,
    /// Address then. `[bytes]`
    pub addr: u64,
    /// Size. `[bytes]`
    pub size: u64,
    /// True when it was already unreachable (dead, not yet collected).
    pub dead: bool,
}

/// A list of objects resident at `time`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyframe {
    /// Instant of the keyframe.
    pub time: SimTime,
    /// Objects allocated before it: ids `< first_unlisted` not in `resident` were freed by then.
    pub first_unlisted: u32,
    /// Ids resident at `time`.
    pub resident: Vec<u32>,
}

/// Address history of every object of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeapLayout {
    /// Objects in allocation order.
    pub objects: Vec<ObjectSpan>,
    /// Moves, grouped per object (see [`ObjectSpan::moves_start`]).
    pub moves: Vec<Move>,
    /// Keyframes, ascending in time.
    pub keyframes: Vec<Keyframe>,
}

impl HeapLayout {
    fn addr_at(&self, o: &ObjectSpan, t: SimTime) -> u64 {
        let ms = &self.moves[o.moves_start as usize..(o.moves_start + o.moves_len) as usize];
        match ms.partition_point(|m| m.time <= t) {
            0 => o.addr,
            n => ms[n - 1].addr,
        }
    }

    /// The objects in the heap at `t` (allocated at or before, not yet freed), ascending by address.
    pub fn at(&self, t: SimTime) -> Vec<PlacedObject> {
        let kf = self.keyframes.partition_point(|k| k.time <= t);
        let (mut ids, from): (Vec<u32>, u32) = match kf {
            0 => (Vec::new(), 0),
            n => (
                self.keyframes[n - 1].resident.clone(),
                self.keyframes[n - 1].first_unlisted,
            ),
        };
        let allocated = self.objects.partition_point(|o| o.alloc <= t) as u32;
        ids.extend(from..allocated.max(from));
        let mut out: Vec<PlacedObject> = ids
            .into_iter()
            .filter_map(|id| {
                let o = self.objects.get(id as usize)?;
                (o.alloc <= t && o.freed > t).then(|| PlacedObject {
                    id,
                    addr: self.addr_at(o, t),
                    size: o.size,
                    dead: o.death <= t,
                })
            })
            .collect();
        out.sort_unstable_by_key(|p| p.addr);
        out
    }
}

/// Where a streaming [`LayoutRecorder`] sends each object's events, in the order the engine decides them (times
/// never go back: the engines report at their current instant). Dropping it ends the stream.
pub trait ObjectEvents: Send + std::fmt::Debug {
    /// Object `id` (0, 1, … in allocation order) was allocated at `t`, `size` bytes at `addr`, by `site`.
    fn alloc(&mut self, id: u32, addr: u64, size: u64, t: SimTime, site: u32);
    /// Object `id` became unreachable at `t`.
    fn death(&mut self, id: u32, t: SimTime);
    /// Object `id` moved to `addr` at `t`.
    fn moved(&mut self, id: u32, t: SimTime, addr: u64);
}

/// Records a [`HeapLayout`] while a run proceeds, or streams its events ([`LayoutRecorder::streaming`]).
#[derive(Debug, Default)]
pub struct LayoutRecorder {
    /// Streaming: the events go here and nothing is kept (`objects` stays empty; `streamed` counts the ids).
    stream: Option<Box<dyn ObjectEvents>>,
    streamed: u32,
    objects: Vec<ObjectSpan>,
    /// (object, time, addr) in time order; grouped per object at the end.
    moves: Vec<(u32, SimTime, u64)>,
    keyframes: Vec<Keyframe>,
    since_keyframe: usize,
    next_spacing: usize,
}

impl LayoutRecorder {
    /// An empty recorder.
    pub fn new() -> Self {
        LayoutRecorder {
            next_spacing: 1024,
            ..Default::default()
        }
    }

    /// An empty recorder with room for `objects` allocations.
    pub fn with_capacity(objects: usize) -> Self {
        LayoutRecorder {
            next_spacing: 1024,
            objects: Vec::with_capacity(objects),
            ..Default::default()
        }
    }

    /// A recorder that keeps nothing and hands every event to `stream` as it comes; its layout is empty.
    pub fn streaming(stream: Box<dyn ObjectEvents>) -> Self {
        LayoutRecorder {
            stream: Some(stream),
            ..Default::default()
        }
    }

    /// An object was allocated; returns its id.
    pub fn alloc(&mut self, addr: u64, size: u64, t: SimTime, site: u32) -> u32 {
        if let Some(s) = self.stream.as_mut() {
            let id = self.streamed;
            self.streamed += 1;
            s.alloc(id, addr, size, t, site);
            return id;
        }
        let id = self.objects.len() as u32;
        self.objects.push(ObjectSpan {
            addr,
            size,
            alloc: t,
            death: SimTime(u64::MAX),
            freed: SimTime(u64::MAX),
            site,
            moves_start: 0,
            moves_len: 0,
        });
        self.since_keyframe += 1;
        id
    }

    /// Object `id` became unreachable at `t`.
    pub fn death(&mut self, id: u32, t: SimTime) {
        if let Some(s) = self.stream.as_mut() {
            if id < self.streamed {
                s.death(id, t);
            }
            return;
        }
        if let Some(o) = self.objects.get_mut(id as usize) {
            o.death = t;
        }
    }

    /// Object `id` was reclaimed at `t`.
    pub fn freed(&mut self, id: u32, t: SimTime) {
        if let Some(o) = self.objects.get_mut(id as usize) {
            o.freed = t;
        }
    }

    /// Object `id` moved to `addr` at `t`.
    pub fn moved(&mut self, id: u32, t: SimTime, addr: u64) {
        if let Some(s) = self.stream.as_mut() {
            if id < self.streamed {
                s.moved(id, t, addr);
            }
            return;
        }
        self.moves.push((id, t, addr));
    }

    /// True when the spacing rule asks for a keyframe (allocations since the last ≥ the resident count then);
    /// never when streaming (there is no layout to index).
    pub fn wants_keyframe(&self) -> bool {
        self.stream.is_none() && self.since_keyframe >= self.next_spacing
    }

    /// Records a keyframe at `t` with the ids resident then (any order).
    pub fn keyframe(&mut self, t: SimTime, resident: Vec<u32>) {
        self.next_spacing = resident.len().max(1024);
        self.since_keyframe = 0;
        self.keyframes.push(Keyframe {
            time: t,
            first_unlisted: self.objects.len() as u32,
            resident,
        });
    }

    /// The finished layout (empty when streaming; the stream ends here).
    pub fn finish(mut self) -> HeapLayout {
        if self.stream.take().is_some() {
            return HeapLayout::default();
        }
        self.moves.sort_by_key(|m| (m.0, m.1));
        let mut moves = Vec::with_capacity(self.moves.len());
        let mut i = 0;
        while i < self.moves.len() {
            let id = self.moves[i].0;
            let start = moves.len() as u32;
            while i < self.moves.len() && self.moves[i].0 == id {
                moves.push(Move {
                    time: self.moves[i].1,
                    addr: self.moves[i].2,
                });
                i += 1;
            }
            if let Some(o) = self.objects.get_mut(id as usize) {
                o.moves_start = start;
                o.moves_len = moves.len() as u32 - start;
            }
        }
        HeapLayout {
            objects: self.objects,
            moves,
            keyframes: self.keyframes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_replays_allocs_frees_and_moves() {
        let mut r = LayoutRecorder::new();
        let a = r.alloc(0, 16, SimTime(10), 0);
        let b = r.alloc(16, 16, SimTime(20), 0);
        r.death(a, SimTime(25));
        r.freed(a, SimTime(30));
        r.moved(b, SimTime(30), 0);
        let l = r.finish();
        assert_eq!(l.at(SimTime(5)), vec![]);
        let at26 = l.at(SimTime(26));
        assert_eq!(at26.len(), 2);
        assert!(at26[0].dead && !at26[1].dead);
        assert_eq!(
            l.at(SimTime(31)),
            vec![PlacedObject {
                id: b,
                addr: 0,
                size: 16,
                dead: false
            }]
        );
    }
}
