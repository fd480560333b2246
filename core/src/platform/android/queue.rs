//! The android-krait engine's event queue: events ordered by (time, push order), with two shortcuts that change
//! no order — so no result — and only make the queue cheaper (issue #16, "an android run stays fast enough for
//! live sliders"):
//!
//! * **the front slot**: an event pushed earlier than everything queued waits outside the heap. The concurrent
//!   sweep's per-buffer steps (`android.gc.sweep_per_buffer`, Dalvik's `sweepBitmapCallback` taking the heap
//!   lock once per `pointerBuf`) and the lock hand-overs they cause are mostly such events: they never touch the
//!   heap.
//! * **dropping stale events**: a completion or timer whose token its thread (or core, or the trim timer) has
//!   since moved past can never fire — tokens only grow — and popping one does nothing but move the clock to a
//!   time the next real event moves it past anyway ([`super::sim`]'s loop). A mutator stalled at every sweep buffer
//!   leaves one such completion per buffer, so the heap is filtered whenever it has doubled since the last filter.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What a mutator does when it is woken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Resume {
    /// Compute and allocate the next cohort.
    Next,
    /// Retry the pending allocation.
    Alloc,
    /// Go on with the explicit GCs of an iteration end.
    Explicit,
    /// Leave the iteration barrier.
    AfterBarrier,
}

/// An event of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Ev {
    /// A thread's work item completes.
    WorkDone { t: usize, token: u64 },
    /// A core's time slice ends.
    SliceEnd { core: usize, token: u64 },
    /// A sleeping thread's timer.
    Wake { t: usize, token: u64 },
    /// The daemon's trim timer.
    TrimTimer { token: u64 },
    /// The scheduler tick (every 1/HZ): periodic and idle load balancing under `android.sched.per_core_rq`.
    Tick,
    /// A blocked mutator is woken (deferred to its own event so that no thread's logic runs inside another's).
    Resume { t: usize, r: Resume },
    /// The heap lock was handed to a waiting thread.
    LockGranted { t: usize },
}

/// (time `[ns]`, push sequence, event): the queue's total order.
type Entry = (u64, u64, Ev);

/// The tokens an event must carry to fire; anything else is stale.
pub(super) struct Tokens<'a> {
    /// Per thread (`Thread::token`).
    pub(super) threads: &'a [u64],
    /// Per core (`CoreSlot::slice_token`).
    pub(super) slices: &'a [u64],
    pub(super) trim: u64,
}

impl Tokens<'_> {
    fn live(&self, ev: &Ev) -> bool {
        match *ev {
            Ev::WorkDone { t, token } | Ev::Wake { t, token } => self.threads[t] == token,
            Ev::SliceEnd { core, token } => self.slices[core] == token,
            Ev::TrimTimer { token } => self.trim == token,
            Ev::Tick | Ev::Resume { .. } | Ev::LockGranted { .. } => true,
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct EventQueue {
    heap: BinaryHeap<Reverse<Entry>>,
    /// Earlier than every event in `heap` when set.
    front: Option<Entry>,
    seq: u64,
    /// The heap's length after the last filter.
    kept: usize,
}

impl EventQueue {
    /// Queues `ev` at `at`, after every event already queued at `at`.
    pub(super) fn push(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        let e = (at, self.seq, ev);
        match self.front {
            Some(f) if e < f => {
                self.heap.push(Reverse(f));
                self.front = Some(e);
            }
            Some(_) => self.heap.push(Reverse(e)),
            None if self.heap.peek().is_none_or(|Reverse(h)| e < *h) => self.front = Some(e),
            None => self.heap.push(Reverse(e)),
        }
    }

    /// The time of the next event.
    pub(super) fn next_time(&self) -> Option<u64> {
        self.front
            .map(|f| f.0)
            .or_else(|| self.heap.peek().map(|Reverse(h)| h.0))
    }

    /// Takes the next event.
    pub(super) fn pop(&mut self) -> Option<(u64, Ev)> {
        self.front
            .take()
            .or_else(|| self.heap.pop().map(|Reverse(e)| e))
            .map(|(at, _, ev)| (at, ev))
    }

    /// Whether the heap has doubled since it was last filtered ([`EventQueue::drop_stale`] is due).
    pub(super) fn wants_filter(&self) -> bool {
        self.heap.len() > 2 * self.kept + 32
    }

    /// Drops the events that can no longer fire.
    pub(super) fn drop_stale(&mut self, tokens: &Tokens<'_>) {
        self.heap.retain(|Reverse(e)| tokens.live(&e.2));
        self.kept = self.heap.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queue pops in exactly a plain heap's order, whatever the mix of early and late pushes.
    #[test]
    fn pops_in_time_then_push_order() {
        let mut rng = crate::rng::SimRng::new(7);
        let mut q = EventQueue::default();
        let mut plain = BinaryHeap::new();
        let mut seq = 0u64;
        let (mut now, mut popped) = (0u64, 0);
        while popped < 5000 {
            for _ in 0..rng.range_inclusive(0, 3) {
                let at = now + rng.range_inclusive(0, 50);
                let ev = Ev::LockGranted {
                    t: rng.range_inclusive(0, 9) as usize,
                };
                q.push(at, ev);
                seq += 1;
                plain.push(Reverse((at, seq, ev)));
            }
            let want = plain.pop().map(|Reverse((at, _, ev))| (at, ev));
            assert_eq!(q.next_time(), want.map(|w| w.0));
            assert_eq!(q.pop(), want);
            if let Some((at, _)) = want {
                now = at;
            }
            popped += 1;
        }
    }

    #[test]
    fn drops_only_stale_events() {
        let mut q = EventQueue::default();
        for token in 0..100 {
            q.push(10 + token, Ev::WorkDone { t: 0, token });
        }
        q.push(5, Ev::Tick);
        q.push(7, Ev::SliceEnd { core: 1, token: 3 });
        assert!(q.wants_filter());
        let tokens = Tokens {
            threads: &[42],
            slices: &[0, 3],
            trim: 0,
        };
        q.drop_stale(&tokens);
        assert!(!q.wants_filter());
        let mut rest = Vec::new();
        while let Some(e) = q.pop() {
            rest.push(e);
        }
        // The tick waited in the front slot (pushed earlier than everything queued).
        assert_eq!(
            rest,
            vec![
                (5, Ev::Tick),
                (7, Ev::SliceEnd { core: 1, token: 3 }),
                (52, Ev::WorkDone { t: 0, token: 42 })
            ]
        );
    }
}
