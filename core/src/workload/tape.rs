//! `WorkloadTapes`: a generated workload's streams drawn once (a [`WorkloadTape`], made and replayed by the
//! generator) and shared by every run of the same profile and seed. Runs that differ only in the collector (a k slider drag, a sweep over collectors, the
//! reproduction's eight collectors per application) draw the same objects; only how the timer's ticks and the
//! collections interleave with them depends on the run.
//!
//! What is taped: the program's work stream (all of it: its length is the profile's) and a prefix of the timer
//! stream (its length depends on how long the run lasts — see [`WorkloadProfile::timer_draws_expected`]); a run that outlasts the
//! prefix carries on drawing the timer stream itself from where the tape ended. The allocations that follow a
//! collection are not taped: their stream interleaves with the collections' own draws, so they stay live.
//! Replaying a tape gives the run bit-identical to drawing live (a test in `tests/` checks every preset).

use std::sync::{Arc, Mutex, OnceLock};

use super::generator::WorkloadTape;
use super::profile::WorkloadProfile;

/// How many workloads [`WorkloadTapes`] keeps (the least recently used goes first).
const KEPT_TAPES: usize = 16;

/// A shared store of tapes, keyed by profile and seed: hand the same one to every run of a sweep, or keep one
/// for a session of slider drags. Safe to share between threads; a tape is drawn once even when several runs ask
/// for it at the same time.
#[derive(Debug, Default)]
pub struct WorkloadTapes {
    entries: Mutex<Vec<Entry>>,
}

type Slot = Arc<OnceLock<Arc<WorkloadTape>>>;

#[derive(Debug)]
struct Entry {
    profile: WorkloadProfile,
    seed: u64,
    tape: Slot,
}

impl WorkloadTapes {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The tape of `profile` at `seed`, drawn now if no run has asked for it yet.
    pub fn tape(&self, profile: &WorkloadProfile, seed: u64) -> Arc<WorkloadTape> {
        let slot: Slot = {
            // A panic elsewhere while the lock was held leaves the list itself consistent: keep using it.
            let mut entries = self
                .entries
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match entries
                .iter()
                .position(|e| e.seed == seed && e.profile == *profile)
            {
                Some(i) => {
                    let e = entries.remove(i);
                    let slot = Arc::clone(&e.tape);
                    entries.push(e);
                    slot
                }
                None => {
                    if entries.len() >= KEPT_TAPES {
                        entries.remove(0);
                    }
                    let slot = Slot::default();
                    entries.push(Entry {
                        profile: profile.clone(),
                        seed,
                        tape: Arc::clone(&slot),
                    });
                    slot
                }
            }
        };
        Arc::clone(slot.get_or_init(|| Arc::new(WorkloadTape::draw(profile, seed))))
    }

    /// Tapes held now.
    pub fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }

    /// True when no tape is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;
    use crate::workload::WorkloadGen;
    use crate::workload::{AllocDraw, AllocSource, Lifetime};

    /// KShape (four phases) with a busy timer (a tick every 3,000 cycles) and phase-scoped timer objects.
    fn timed_profile() -> WorkloadProfile {
        let sets = [
            "workload.timer.period_cycles=3000",
            "workload.timer.allocations_per_tick=2",
            "workload.timer.sizes=[{weight = 1.0, min = 16, max = 64}, {weight = 2.0, min = 8, max = 12}]",
            "workload.timer.lifetimes=[{weight = 1.0, kind = \"exp\", mean_allocations = 5.0}, {weight = 1.0, kind = \"phase\"}]",
        ]
        .map(String::from);
        Scenario::load("preset:kvm/kshape", &sets)
            .expect("loads")
            .workload()
            .clone()
    }

    /// Every request of a generator, with wall time advancing by the compute and an irregular stall now and then
    /// (what collections do), and a collection's owed allocations every 97 requests.
    fn requests(mut g: WorkloadGen) -> Vec<AllocDraw> {
        let (mut now, mut out) = (0u64, Vec::new());
        while let Some(d) = g.next(now) {
            now += d.compute_cycles + if out.len() % 13 == 0 { 5_000 } else { 0 };
            if out.len() % 97 == 0 {
                g.after_collection();
            }
            out.push(d);
        }
        out
    }

    #[test]
    fn a_tape_replays_the_live_stream_even_past_its_end() {
        let p = timed_profile();
        let live = requests(WorkloadGen::new(&p, 11));
        let timer_requests = live
            .iter()
            .filter(|d| d.source == AllocSource::Timer)
            .count();
        assert!(timer_requests > 1000, "the timer is busy: {timer_requests}");
        assert!(
            live.iter().any(|d| d.source == AllocSource::Timer
                && d.phase > 0
                && d.lifetime == Lifetime::PhaseEnd(d.phase)),
            "timer objects scoped to a later phase"
        );
        for timer_draws in [0, 1, timer_requests / 2, timer_requests, timer_requests + 5] {
            let tape = Arc::new(WorkloadTape::draw_with_timer(&p, 11, timer_draws));
            assert_eq!(tape.timer_draws(), timer_draws);
            assert_eq!(
                requests(WorkloadGen::with_tape(&p, 11, tape)),
                live,
                "a tape of {timer_draws} timer draws"
            );
        }
    }

    #[test]
    fn the_store_keys_tapes_by_profile_and_seed() {
        let p = timed_profile();
        let tapes = WorkloadTapes::new();
        let a = tapes.tape(&p, 1);
        assert!(Arc::ptr_eq(&a, &tapes.tape(&p, 1)), "drawn once");
        assert!(!Arc::ptr_eq(&a, &tapes.tape(&p, 2)), "another seed");
        let mut q = p.clone();
        q.phases[0].allocations += 1;
        assert!(tapes.tape(&q, 1).is_of(&q, 1), "another profile");
        assert_eq!(tapes.len(), 3);
        for seed in 10..10 + KEPT_TAPES as u64 {
            tapes.tape(&p, seed);
        }
        assert_eq!(tapes.len(), KEPT_TAPES, "bounded");
    }

    #[test]
    fn the_expected_timer_draws_cover_a_run_without_collections() {
        let p = timed_profile();
        let timer_requests = requests(WorkloadGen::new(&p, 3))
            .iter()
            .filter(|d| d.source == AllocSource::Timer)
            .count();
        let expected = p.timer_draws_expected();
        assert!(
            expected >= timer_requests,
            "{expected} taped for {timer_requests} drawn"
        );
    }
}
