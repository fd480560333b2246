//! The android-krait engine's event queue: events ordered by (time, push order), with shortcuts that change no
//! order — so no result — and only make the queue cheaper (issue #16, "an android run stays fast enough for live
//! sliders"):
//!
//! * **the front slot**: an event pushed earlier than everything queued waits outside the heap. The concurrent
//!   sweep's per-buffer steps (`android.gc.sweep_per_buffer`, Dalvik's `sweepBitmapCallback` taking the heap
//!   lock once per `pointerBuf`) and the lock hand-overs they cause are mostly such events: they never touch the
//!   heap.
//! * **one completion per core**: a thread's work completion ([`Ev::WorkDone`]) can fire only while the thread
//!   still runs on the core it was scheduled on (leaving the core moves its token on), and one thread runs per
//!   core, so each core keeps its latest completion in a slot of its own — a newer one replaces it — instead of
//!   in the heap. A mutator stalled at every sweep buffer no longer leaves a dead completion per buffer there.
//! * **dropping stale events**: a completion or timer whose token its thread (or core, or the trim timer) has
//!   since moved past can never fire — tokens only grow — and popping one does nothing but move the clock to a
//!   time the next real event moves it past anyway ([`super::sim`]'s loop). The heap is filtered whenever it has
//!   doubled since the last filter.
//!
//! Entries compare by (time, push sequence) only: the sequence is unique, so that is the same total order as
//! comparing whole events after it, and cheaper.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What a mutator does when it is woken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// (time `[ns]`, push sequence, event): the queue's total order is (time, sequence).
#[derive(Debug, Clone, Copy)]
struct Entry {
    at: u64,
    seq: u64,
    ev: Ev,
}

impl Entry {
    fn key(&self) -> (u64, u64) {
        (self.at, self.seq)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

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
    /// Per core: the completion of the thread last scheduled there ([`EventQueue::push_done`]).
    done: Vec<Option<Entry>>,
    /// The core of the earliest entry of `done`.
    done_first: Option<usize>,
    seq: u64,
    /// The heap's length after the last filter.
    kept: usize,
}

impl EventQueue {
    /// Queues `ev` at `at`, after every event already queued at `at`.
    pub(super) fn push(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        let e = Entry {
            at,
            seq: self.seq,
            ev,
        };
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

    /// Queues the completion of the work thread `t` runs on `core` (`Ev::WorkDone`), in place of the core's
    /// previous completion: that one belonged to a thread that has since left the core (or to this thread's
    /// earlier schedule), so its token is stale and it could not fire.
    pub(super) fn push_done(&mut self, core: usize, at: u64, t: usize, token: u64) {
        self.seq += 1;
        if self.done.len() <= core {
            self.done.resize(core + 1, None);
        }
        let e = Entry {
            at,
            seq: self.seq,
            ev: Ev::WorkDone { t, token },
        };
        self.done[core] = Some(e);
        match self.done_first {
            // Replaced the earliest by a later one: look again.
            Some(f) if f == core => self.find_first_done(),
            Some(f) if self.done[f].is_some_and(|d| d < e) => {}
            _ => self.done_first = Some(core),
        }
    }

    fn find_first_done(&mut self) {
        let mut best: Option<(usize, (u64, u64))> = None;
        for (c, d) in self.done.iter().enumerate() {
            if let Some(e) = d
                && best.is_none_or(|(_, b)| e.key() < b)
            {
                best = Some((c, e.key()));
            }
        }
        self.done_first = best.map(|(c, _)| c);
    }

    /// The key of the earliest of the front slot and the heap.
    fn queued_key(&self) -> Option<(u64, u64)> {
        match &self.front {
            Some(f) => Some(f.key()),
            None => self.heap.peek().map(|Reverse(h)| h.key()),
        }
    }

    /// The key of the earliest per-core completion.
    fn done_key(&self) -> Option<(u64, u64)> {
        self.done_first
            .and_then(|c| self.done[c].as_ref())
            .map(Entry::key)
    }

    /// The time of the next event.
    pub(super) fn next_time(&self) -> Option<u64> {
        match (self.queued_key(), self.done_key()) {
            (Some(q), Some(d)) => Some(q.min(d).0),
            (q, d) => q.or(d).map(|k| k.0),
        }
    }

    /// Takes the next event.
    pub(super) fn pop(&mut self) -> Option<(u64, Ev)> {
        let done_next = match (self.queued_key(), self.done_key()) {
            (q, Some(d)) => q.is_none_or(|q| d < q),
            (_, None) => false,
        };
        let e = if done_next {
            let e = self.done_first.and_then(|c| self.done[c].take());
            self.find_first_done();
            e?
        } else {
            self.front
                .take()
                .or_else(|| self.heap.pop().map(|Reverse(e)| e))?
        };
        Some((e.at, e.ev))
    }

    /// Whether the heap has doubled since it was last filtered ([`EventQueue::drop_stale`] is due).
    pub(super) fn wants_filter(&self) -> bool {
        self.heap.len() > 2 * self.kept + 32
    }

    /// Drops the events that can no longer fire.
    pub(super) fn drop_stale(&mut self, tokens: &Tokens<'_>) {
        self.heap.retain(|Reverse(e)| tokens.live(&e.ev));
        self.kept = self.heap.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queue pops in exactly the order of a plain ordered set of (time, push sequence), whatever the mix of
    /// early and late pushes and of per-core completions (each replacing its core's previous one).
    #[test]
    fn pops_in_time_then_push_order() {
        use std::collections::BTreeMap;
        let mut rng = crate::rng::SimRng::new(7);
        let mut q = EventQueue::default();
        let mut plain: BTreeMap<(u64, u64), Ev> = BTreeMap::new();
        let mut done_key: [Option<(u64, u64)>; 3] = [None; 3];
        let mut seq = 0u64;
        let (mut now, mut popped) = (0u64, 0);
        while popped < 5000 {
            for _ in 0..rng.range_inclusive(0, 3) {
                let at = now + rng.range_inclusive(0, 50);
                seq += 1;
                if rng.range_inclusive(0, 2) == 0 {
                    let core = rng.range_inclusive(0, 2) as usize;
                    let ev = Ev::WorkDone {
                        t: core,
                        token: seq,
                    };
                    q.push_done(core, at, core, seq);
                    if let Some(k) = done_key[core].replace((at, seq)) {
                        plain.remove(&k);
                    }
                    plain.insert((at, seq), ev);
                } else {
                    let ev = Ev::LockGranted {
                        t: rng.range_inclusive(0, 9) as usize,
                    };
                    q.push(at, ev);
                    plain.insert((at, seq), ev);
                }
            }
            let want = plain.pop_first().map(|((at, s), ev)| {
                for k in done_key.iter_mut() {
                    if *k == Some((at, s)) {
                        *k = None;
                    }
                }
                (at, ev)
            });
            assert_eq!(q.next_time(), want.map(|w| w.0), "next time");
            assert_eq!(q.pop(), want, "next event");
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
