//! A bounded reorder buffer for streams that come nearly in order (log lines that place an event before lines
//! printed earlier): items that arrive in order wait in a queue, the others in a min-heap, and once more than the
//! capacity wait the least of the two fronts goes on — the item one min-heap would give, without log n moves per
//! in-order item. Used by `gclab mmu`'s on-disk series (a mutator's pauses) and `export-perfetto`'s heap counter.
//! Items come out in order as long as none arrives after `capacity` greater ones; the caller checks that if it
//! must (the order out is otherwise the buffer's best).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// See the module documentation.
#[derive(Debug)]
pub struct Reorder<T> {
    capacity: usize,
    in_order: VecDeque<T>,
    late: BinaryHeap<Reverse<T>>,
}

impl<T: Ord> Reorder<T> {
    /// An empty buffer that holds up to `capacity` items before handing the least on.
    pub fn new(capacity: usize) -> Self {
        Reorder {
            capacity,
            in_order: VecDeque::new(),
            late: BinaryHeap::new(),
        }
    }

    /// Takes `x`; returns the least waiting item once more than the capacity wait.
    pub fn push(&mut self, x: T) -> Option<T> {
        if self.in_order.back().is_none_or(|b| x >= *b) {
            self.in_order.push_back(x);
        } else {
            self.late.push(Reverse(x));
        }
        if self.in_order.len() + self.late.len() > self.capacity {
            self.pop()
        } else {
            None
        }
    }

    /// The least waiting item, if any (to drain the buffer at the end).
    pub fn pop(&mut self) -> Option<T> {
        let from_queue = match (self.in_order.front(), self.late.peek()) {
            (Some(q), Some(Reverse(l))) => q <= l,
            (q, _) => q.is_some(),
        };
        if from_queue {
            self.in_order.pop_front()
        } else {
            self.late.pop().map(|Reverse(x)| x)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_up_to_the_capacity_out_of_place_come_out_sorted() {
        let input = [5, 1, 2, 9, 3, 4, 8, 6, 7, 10, 12, 11];
        let mut r = Reorder::new(4);
        let mut out: Vec<i32> = input.iter().filter_map(|&x| r.push(x)).collect();
        out.extend(std::iter::from_fn(|| r.pop()));
        assert_eq!(out, (1..=12).collect::<Vec<_>>());
    }

    #[test]
    fn an_item_later_than_the_capacity_comes_out_after_a_greater_one() {
        let mut r = Reorder::new(2);
        let mut out: Vec<i32> = [3, 4, 5, 6, 1].iter().filter_map(|&x| r.push(x)).collect();
        out.extend(std::iter::from_fn(|| r.pop()));
        // 3 and 4 have gone on by the time 1 comes: it follows them, before 5 and 6 still waiting.
        assert_eq!(out, [3, 4, 1, 5, 6]);
    }
}
