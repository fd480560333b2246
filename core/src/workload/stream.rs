//! `DrawStream`: where an engine's allocation requests come from — a profile's seeded generator, or a recorded
//! trace's requests in order (`[workload.trace]`).

use super::{AllocDraw, WorkloadGen, WorkloadProfile, WorkloadTapes};

/// The allocation requests of one run.
#[derive(Debug)]
pub enum DrawStream<'a> {
    /// Generated from the workload profile.
    Generated(Box<WorkloadGen>),
    /// Replayed from a recording; `next` indexes the following request.
    Recorded {
        /// The recording's requests.
        draws: &'a [AllocDraw],
        /// Index of the next one.
        next: usize,
    },
}

impl<'a> DrawStream<'a> {
    /// A run's stream: the `recorded` requests if the scenario has them, else `profile`'s generator at `seed`
    /// (the profile as its `live_state` arranges it, [`WorkloadProfile::effective`]) — replaying the shared tape
    /// from `tapes` when given one (the same stream, drawn once for all runs of the workload).
    pub fn of(
        recorded: Option<&'a [AllocDraw]>,
        profile: &WorkloadProfile,
        seed: u64,
        tapes: Option<&WorkloadTapes>,
    ) -> Self {
        match (recorded, tapes) {
            (Some(draws), _) => DrawStream::Recorded { draws, next: 0 },
            (None, None) => {
                DrawStream::Generated(Box::new(WorkloadGen::new(&profile.effective(), seed)))
            }
            (None, Some(t)) => {
                let p = profile.effective();
                DrawStream::Generated(Box::new(WorkloadGen::with_tape(&p, seed, t.tape(&p, seed))))
            }
        }
    }

    /// The next request at wall time `now_cycles`, or `None` when the program is done.
    pub fn next(&mut self, now_cycles: u64) -> Option<AllocDraw> {
        match self {
            DrawStream::Generated(g) => g.next(now_cycles),
            DrawStream::Recorded { draws, next } => {
                let d = draws.get(*next).copied();
                *next += 1;
                d
            }
        }
    }

    /// A collection just ended (a generated program's collection-thread allocations fall due; a recording
    /// already holds whatever its program did).
    pub fn after_collection(&mut self) {
        if let DrawStream::Generated(g) = self {
            g.after_collection();
        }
    }
}
