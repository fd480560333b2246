//! `DeathQueue`: when objects become unreachable, on the allocation clock. A timing wheel of one slot per
//! allocation covers the next `WHEEL` allocations; later deaths wait in a binary heap and move into the wheel as
//! it turns. Each slot is an intrusive FIFO list threaded through a per-object `next` array, so a run allocates
//! no per-slot storage. Pushing and popping are O(1) for the short lifetimes that dominate (the weak generational
//! hypothesis), and ids due at the same allocation pop in the order they were pushed — deterministic.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

const WHEEL: u64 = 4096;
const NONE: u32 = u32::MAX;

/// Pending deaths keyed by allocation index.
#[derive(Debug, Clone)]
pub struct DeathQueue {
    head: Vec<u32>,
    tail: Vec<u32>,
    /// `next[id]`: the id after `id` in its slot's list.
    next: Vec<u32>,
    /// The allocation index slot 0 of the current turn stands for: every due index ≥ `base` is in the wheel or
    /// the heap; `base` only grows.
    base: u64,
    far: BinaryHeap<Reverse<(u64, u64, u32)>>,
    seq: u64,
}

impl Default for DeathQueue {
    fn default() -> Self {
        DeathQueue {
            head: vec![NONE; WHEEL as usize],
            tail: vec![NONE; WHEEL as usize],
            next: Vec::new(),
            base: 0,
            far: BinaryHeap::new(),
            seq: 0,
        }
    }
}

impl DeathQueue {
    fn link(&mut self, slot: usize, id: u32) {
        let i = id as usize;
        if self.next.len() <= i {
            self.next.resize((i + 1).max(self.next.len() * 2), NONE);
        }
        self.next[i] = NONE;
        match self.tail[slot] {
            NONE => self.head[slot] = id,
            t => self.next[t as usize] = id,
        }
        self.tail[slot] = id;
    }

    /// Object `id` dies when allocation `at` is requested (`at` ≥ the last index passed to [`Self::pop_due`]).
    pub fn push(&mut self, at: u64, id: u32) {
        let at = at.max(self.base);
        if at < self.base + WHEEL {
            self.link((at % WHEEL) as usize, id);
        } else {
            self.seq += 1;
            self.far.push(Reverse((at, self.seq, id)));
        }
    }

    /// Moves every id due at or before allocation `now` into `out` (in due order; FIFO within an index).
    pub fn pop_due(&mut self, now: u64, out: &mut Vec<u32>) {
        while self.base <= now {
            let slot = (self.base % WHEEL) as usize;
            let mut id = self.head[slot];
            while id != NONE {
                out.push(id);
                id = self.next[id as usize];
            }
            self.head[slot] = NONE;
            self.tail[slot] = NONE;
            self.base += 1;
            // The slot just emptied now stands for index base + WHEEL - 1: pull those from the heap.
            let horizon = self.base + WHEEL - 1;
            while let Some(Reverse((at, _, id))) = self.far.peek().copied() {
                if at > horizon {
                    break;
                }
                self.far.pop();
                self.link((at % WHEEL) as usize, id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deaths_pop_in_due_order_near_and_far() {
        let mut q = DeathQueue::default();
        q.push(3, 1);
        q.push(10_000, 2);
        q.push(3, 3);
        q.push(5000, 4);
        let mut out = Vec::new();
        q.pop_due(2, &mut out);
        assert!(out.is_empty(), "nothing due yet");
        q.pop_due(3, &mut out);
        assert_eq!(out, vec![1, 3], "FIFO within an index");
        out.clear();
        q.pop_due(9_999, &mut out);
        assert_eq!(out, vec![4], "far deaths come through the heap");
        out.clear();
        q.pop_due(10_000, &mut out);
        assert_eq!(out, vec![2], "and the farthest");
    }
}
