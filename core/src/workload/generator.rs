//! `WorkloadGen`: turns a [`WorkloadProfile`] into the stream of allocation requests a run performs — seeded,
//! deterministic, one draw at a time, interleaving the program's own work with its timer's ticks by wall time.

use std::sync::Arc;

use super::profile::{LifetimeClass, LifetimeKind, Phase, SizeClass, WorkloadProfile};
use crate::rng::{SimRng, round_to_u64};

/// When an allocated object becomes unreachable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifetime {
    /// After this many further allocations. `[allocations]`
    Allocations(u64),
    /// At the end of the given phase.
    PhaseEnd(usize),
    /// Never (lives to the end of the run).
    Immortal,
    /// A cache entry: unreachable after this many further allocations, or when evicted earlier.
    Cached(u64),
}

/// Who asked for the allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocSource {
    /// The program's own work in a phase.
    Work,
    /// The timer's handler.
    Timer,
    /// The thread that runs after a collection.
    Collection,
}

/// One allocation request: compute first, then allocate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocDraw {
    /// Mutator compute before the allocation. `[cycles]`
    pub compute_cycles: u64,
    /// Requested size, header included, before alignment. `[bytes]`
    pub size_bytes: u64,
    /// When it dies.
    pub lifetime: Lifetime,
    /// Work or timer.
    pub source: AllocSource,
    /// The work phase running when it was requested.
    pub phase: usize,
    /// Allocation-site stand-in: the size class index (timer classes follow the phase's). Used by traces.
    pub site: u32,
}

/// Counters of a stratified phase: how often each class was taken, and each class's position in its
/// low-discrepancy sequence.
#[derive(Debug, Clone, Default)]
struct Strata {
    size_counts: Vec<u64>,
    life_counts: Vec<u64>,
}

/// The class whose share lags its weight most (ties: the first), then counted.
fn pick_stratified(weights: &[f64], counts: &mut [u64]) -> usize {
    let total_w: f64 = weights.iter().sum();
    let n = counts.iter().sum::<u64>() as f64 + 1.0;
    let mut best = 0;
    let mut best_deficit = f64::NEG_INFINITY;
    for (i, w) in weights.iter().enumerate() {
        let deficit = w / total_w * n - counts[i] as f64;
        if deficit > best_deficit + 1e-12 {
            best_deficit = deficit;
            best = i;
        }
    }
    counts[best] += 1;
    best
}

/// The j-th point of the golden-ratio (Weyl) sequence in [0, 1): evenly spread, integer-exact.
fn weyl(j: u64) -> f64 {
    (j.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A stratified draw: the class by deficit, the value spread by the class's sequence position.
fn draw_stratified(
    p: &Phase,
    st: &mut Strata,
    size_w: &[f64],
    life_w: &[f64],
    phase: usize,
) -> (u64, u32, Lifetime) {
    let si = pick_stratified(size_w, &mut st.size_counts);
    let c = &p.sizes[si];
    let u = weyl(st.size_counts[si]);
    let size = c.min.0 + ((u * (c.max.0 - c.min.0 + 1) as f64) as u64).min(c.max.0 - c.min.0);
    let li = pick_stratified(life_w, &mut st.life_counts);
    let l = &p.lifetimes[li];
    let v = weyl(st.life_counts[li] + 7919);
    let lifetime = match l.kind {
        LifetimeKind::Exp => {
            let mean = l.mean_allocations.unwrap_or(1.0);
            Lifetime::Allocations(round_to_u64(-mean * (1.0 - v).ln()).max(1))
        }
        LifetimeKind::Uniform | LifetimeKind::Cache => {
            let (lo, hi) = (
                l.min_allocations.unwrap_or(1),
                l.max_allocations.unwrap_or(1),
            );
            counted(
                l.kind,
                lo + ((v * (hi - lo + 1) as f64) as u64).min(hi - lo),
            )
        }
        LifetimeKind::Phase => Lifetime::PhaseEnd(phase),
        LifetimeKind::Immortal => Lifetime::Immortal,
    };
    (size, si as u32, lifetime)
}

/// The deterministic allocation stream of one run.
#[derive(Debug, Clone)]
pub struct WorkloadGen {
    profile: WorkloadProfile,
    rng_work: SimRng,
    rng_timer: SimRng,
    phase: usize,
    left_in_phase: u64,
    next_tick_cycles: u64,
    pending_timer: u64,
    rng_collection: SimRng,
    /// Allocations owed to collections that have happened, delivered before anything else.
    pending_collection: u64,
    collection_size_weights: Weights,
    collection_life_weights: Weights,
    /// Per phase: counters of the stratified (seed-independent) draws.
    strata: Vec<Strata>,
    /// Allocations left in the tick being handled; a new tick starts only after one work allocation.
    burst_left: u64,
    last_was_timer: bool,
    size_weights: Vec<Weights>,
    life_weights: Vec<Weights>,
    timer_size_weights: Weights,
    timer_life_weights: Weights,
    /// The work and timer streams drawn ahead, shared by runs of the same workload and seed (see [`WorkloadTape`]).
    tape: Option<Arc<WorkloadTape>>,
    /// Work draws taken so far (the tape's work draws run through the phases in order).
    work_pos: usize,
    /// Timer draws taken so far (one past the tape's length once the timer stream carries on by itself).
    timer_pos: usize,
}

/// One object drawn from the work or timer stream, before the engine sees it as a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Drawn {
    pub(super) compute_cycles: u64,
    pub(super) size_bytes: u64,
    pub(super) lifetime: Lifetime,
    /// Size class index within its stream.
    pub(super) class: u32,
}

impl Drawn {
    /// The request as the engine sees it.
    fn request(self, source: AllocSource, phase: usize, site: u32) -> AllocDraw {
        AllocDraw {
            compute_cycles: self.compute_cycles,
            size_bytes: self.size_bytes,
            lifetime: self.lifetime,
            source,
            phase,
            site,
        }
    }

    /// A timer draw taped ahead, its phase-scoped lifetime moved to the phase it is taken in.
    fn in_phase(self, phase: usize) -> Drawn {
        match self.lifetime {
            Lifetime::PhaseEnd(_) => Drawn {
                lifetime: Lifetime::PhaseEnd(phase),
                ..self
            },
            _ => self,
        }
    }
}

/// A stream's class weights and their sum, summed once when the generator is made rather than on every draw
/// (the same `f64` sum, `iter().sum()` over the same weights, so the draws are unchanged bit for bit).
#[derive(Debug, Clone, Default)]
struct Weights {
    w: Vec<f64>,
    total: f64,
}

impl Weights {
    fn of(w: Vec<f64>) -> Self {
        let total = w.iter().sum();
        Weights { w, total }
    }
}

fn weights_of_sizes(s: &[SizeClass]) -> Weights {
    Weights::of(s.iter().map(|c| c.weight).collect())
}

fn weights_of_lifetimes(s: &[LifetimeClass]) -> Weights {
    Weights::of(s.iter().map(|c| c.weight).collect())
}

fn draw_size(rng: &mut SimRng, classes: &[SizeClass], weights: &Weights) -> (u64, u32) {
    let i = rng.pick_weighted(&weights.w, weights.total);
    let c = &classes[i];
    (rng.range_inclusive(c.min.0, c.max.0), i as u32)
}

/// A lifetime of `n` allocations drawn for a `uniform` or `cache` class: a cache entry may also be evicted earlier.
fn counted(kind: LifetimeKind, n: u64) -> Lifetime {
    if kind == LifetimeKind::Cache {
        Lifetime::Cached(n)
    } else {
        Lifetime::Allocations(n)
    }
}

fn draw_lifetime(
    rng: &mut SimRng,
    classes: &[LifetimeClass],
    weights: &Weights,
    phase: usize,
) -> Lifetime {
    let c = &classes[rng.pick_weighted(&weights.w, weights.total)];
    match c.kind {
        LifetimeKind::Exp => {
            Lifetime::Allocations(rng.exp_count(c.mean_allocations.unwrap_or(1.0)))
        }
        LifetimeKind::Uniform | LifetimeKind::Cache => counted(
            c.kind,
            rng.range_inclusive(
                c.min_allocations.unwrap_or(1),
                c.max_allocations.unwrap_or(1),
            ),
        ),
        LifetimeKind::Phase => Lifetime::PhaseEnd(phase),
        LifetimeKind::Immortal => Lifetime::Immortal,
    }
}

/// A random draw of size and lifetime from one stream's classes (size first, then lifetime: the order is part of
/// the stream, so runs stay bit-identical).
fn draw_object(
    rng: &mut SimRng,
    sizes: &[SizeClass],
    size_w: &Weights,
    lifetimes: &[LifetimeClass],
    life_w: &Weights,
    phase: usize,
) -> (u64, u32, Lifetime) {
    let (size_bytes, class) = draw_size(rng, sizes, size_w);
    (
        size_bytes,
        class,
        draw_lifetime(rng, lifetimes, life_w, phase),
    )
}

/// One object of a randomly drawn stream (timer, after-collection): its compute around `mean_cycles`, then its
/// size and lifetime from the stream's classes and weights — in that order, which is part of the stream.
fn draw_from(
    rng: &mut SimRng,
    mean_cycles: f64,
    sizes: (&[SizeClass], &Weights),
    lifetimes: (&[LifetimeClass], &Weights),
    phase: usize,
) -> Drawn {
    let compute_cycles = draw_compute(rng, mean_cycles);
    let (size_bytes, class, lifetime) =
        draw_object(rng, sizes.0, sizes.1, lifetimes.0, lifetimes.1, phase);
    Drawn {
        compute_cycles,
        size_bytes,
        lifetime,
        class,
    }
}

fn draw_compute(rng: &mut SimRng, mean: f64) -> u64 {
    // Uniform in [mean/2, 3·mean/2]: the mean is kept, the spacing varies.
    let f = 0.5 + rng.next_f64();
    round_to_u64(mean * f).max(1)
}

impl WorkloadGen {
    /// A generator for `profile` seeded from `seed` (validated profiles only).
    pub fn new(profile: &WorkloadProfile, seed: u64) -> Self {
        let period = profile.timer.as_ref().map_or(u64::MAX, |t| t.period_cycles);
        WorkloadGen {
            rng_work: SimRng::fork(seed, "workload.work"),
            rng_timer: SimRng::fork(seed, "workload.timer"),
            rng_collection: SimRng::fork(seed, "workload.on_collection"),
            strata: profile
                .phases
                .iter()
                .map(|p| Strata {
                    size_counts: vec![0; p.sizes.len()],
                    life_counts: vec![0; p.lifetimes.len()],
                })
                .collect(),
            pending_collection: 0,
            collection_size_weights: profile
                .on_collection
                .as_ref()
                .map(|c| weights_of_sizes(&c.sizes))
                .unwrap_or_default(),
            collection_life_weights: profile
                .on_collection
                .as_ref()
                .map(|c| weights_of_lifetimes(&c.lifetimes))
                .unwrap_or_default(),
            phase: 0,
            left_in_phase: profile.phases.first().map_or(0, |p| p.allocations),
            next_tick_cycles: period,
            pending_timer: 0,
            burst_left: 0,
            last_was_timer: false,
            size_weights: profile
                .phases
                .iter()
                .map(|p| weights_of_sizes(&p.sizes))
                .collect(),
            life_weights: profile
                .phases
                .iter()
                .map(|p| weights_of_lifetimes(&p.lifetimes))
                .collect(),
            timer_size_weights: profile
                .timer
                .as_ref()
                .map(|t| weights_of_sizes(&t.sizes))
                .unwrap_or_default(),
            timer_life_weights: profile
                .timer
                .as_ref()
                .map(|t| weights_of_lifetimes(&t.lifetimes))
                .unwrap_or_default(),
            profile: profile.clone(),
            tape: None,
            work_pos: 0,
            timer_pos: 0,
        }
    }

    /// A generator that takes its work and timer draws from `tape` (drawn from the same profile and seed): the
    /// same stream as [`Self::new`], bit for bit, without drawing it again.
    pub fn with_tape(profile: &WorkloadProfile, seed: u64, tape: Arc<WorkloadTape>) -> Self {
        debug_assert!(tape.is_of(profile, seed), "a tape replays its own workload");
        WorkloadGen {
            tape: Some(tape),
            ..WorkloadGen::new(profile, seed)
        }
    }

    /// Draws `profile`'s whole work stream and `timer_draws` of its timer stream, in order — what
    /// [`WorkloadTape`] keeps.
    pub(super) fn draw_ahead(
        profile: &WorkloadProfile,
        seed: u64,
        timer_draws: usize,
    ) -> (Vec<Drawn>, Vec<Drawn>, SimRng) {
        let mut g = WorkloadGen::new(profile, seed);
        let mut work = Vec::with_capacity(profile.work_allocations() as usize);
        for (i, p) in profile.phases.iter().enumerate() {
            g.phase = i;
            for _ in 0..p.allocations {
                work.push(g.draw_work());
            }
        }
        g.phase = 0;
        let mut timer = Vec::with_capacity(timer_draws);
        while timer.len() < timer_draws
            && let Some(d) = g.draw_timer()
        {
            timer.push(d);
        }
        (work, timer, g.rng_timer)
    }

    /// A collection just ended: the allocations that follow it are owed (drawn now: the integer part of the mean,
    /// plus one with the probability of its fractional part).
    pub fn after_collection(&mut self) {
        if let Some(c) = &self.profile.on_collection {
            let whole = c.allocations_mean.floor();
            let extra = u64::from(self.rng_collection.next_f64() < c.allocations_mean - whole);
            self.pending_collection += whole as u64 + extra;
        }
    }

    /// The current work phase.
    pub fn phase(&self) -> usize {
        self.phase
    }

    /// The next request at wall time `now_cycles`, or `None` once the program's work is done (the timer stops
    /// with the program).
    pub fn next(&mut self, now_cycles: u64) -> Option<AllocDraw> {
        // Skip empty phases.
        while self.left_in_phase == 0 {
            if self.phase + 1 >= self.profile.phases.len() {
                return None;
            }
            self.phase += 1;
            self.left_in_phase = self.profile.phases[self.phase].allocations;
        }
        if self.pending_collection > 0
            && let Some(c) = &self.profile.on_collection
        {
            self.pending_collection -= 1;
            let d = draw_from(
                &mut self.rng_collection,
                c.mutator_cycles_per_allocation
                    .unwrap_or(self.profile.mutator_cycles_per_allocation),
                (&c.sizes, &self.collection_size_weights),
                (&c.lifetimes, &self.collection_life_weights),
                self.phase,
            );
            return Some(d.request(AllocSource::Collection, self.phase, 2000 + d.class));
        }
        if let Some(timer) = &self.profile.timer {
            if now_cycles >= self.next_tick_cycles {
                let ticks = (now_cycles - self.next_tick_cycles) / timer.period_cycles + 1;
                self.pending_timer += ticks * timer.allocations_per_tick;
                self.next_tick_cycles += ticks * timer.period_cycles;
            }
            // The event loop alternates: a tick's handler runs to completion, then the program's own work gets
            // at least one allocation — a queued tick never starves it, so a handler slower than its period
            // delays ticks instead of stalling the program.
            if self.burst_left == 0 && self.pending_timer > 0 && !self.last_was_timer {
                self.burst_left = timer.allocations_per_tick.min(self.pending_timer);
            }
            if self.burst_left > 0
                && let Some(d) = self.timer_object()
            {
                self.burst_left -= 1;
                self.pending_timer -= 1;
                self.last_was_timer = self.burst_left == 0;
                return Some(d.request(AllocSource::Timer, self.phase, 1000 + d.class));
            }
        }
        self.last_was_timer = false;
        self.left_in_phase -= 1;
        let d = self.work_object();
        Some(d.request(
            AllocSource::Work,
            self.phase,
            (self.phase as u32) * 100 + d.class,
        ))
    }

    /// The program's next work draw in the current phase: from the tape when there is one, else drawn now.
    fn work_object(&mut self) -> Drawn {
        if let Some(t) = &self.tape {
            let d = t.work[self.work_pos];
            self.work_pos += 1;
            return d;
        }
        self.draw_work()
    }

    /// The timer's next draw, its phase-scoped lifetimes in the current phase: from the tape while it lasts (the
    /// timer's own stream then carries on from where the tape's ended), else drawn now.
    fn timer_object(&mut self) -> Option<Drawn> {
        if let Some(t) = &self.tape
            && self.timer_pos <= t.timer.len()
        {
            if let Some(d) = t.timer.get(self.timer_pos) {
                self.timer_pos += 1;
                return Some(d.in_phase(self.phase));
            }
            self.rng_timer = t.timer_rng_after.clone();
            self.timer_pos += 1;
        }
        self.draw_timer()
    }

    /// Draws the program's next work object of the current phase (the work stream only).
    fn draw_work(&mut self) -> Drawn {
        let p = &self.profile.phases[self.phase];
        let mean = p
            .mutator_cycles_per_allocation
            .unwrap_or(self.profile.mutator_cycles_per_allocation);
        let compute_cycles = draw_compute(&mut self.rng_work, mean);
        let (size_bytes, class, lifetime) = if p.stratified {
            draw_stratified(
                p,
                &mut self.strata[self.phase],
                &self.size_weights[self.phase].w,
                &self.life_weights[self.phase].w,
                self.phase,
            )
        } else {
            draw_object(
                &mut self.rng_work,
                &p.sizes,
                &self.size_weights[self.phase],
                &p.lifetimes,
                &self.life_weights[self.phase],
                self.phase,
            )
        };
        Drawn {
            compute_cycles,
            size_bytes,
            lifetime,
            class,
        }
    }

    /// Draws the timer handler's next object (the timer stream only; phase-scoped lifetimes in the current phase).
    fn draw_timer(&mut self) -> Option<Drawn> {
        let timer = self.profile.timer.as_ref()?;
        Some(draw_from(
            &mut self.rng_timer,
            timer
                .mutator_cycles_per_allocation
                .unwrap_or(self.profile.mutator_cycles_per_allocation),
            (&timer.sizes, &self.timer_size_weights),
            (&timer.lifetimes, &self.timer_life_weights),
            self.phase,
        ))
    }
}

/// One profile's streams, drawn ahead at one seed.
#[derive(Debug)]
pub struct WorkloadTape {
    profile: WorkloadProfile,
    seed: u64,
    /// The work stream, phase after phase.
    pub(super) work: Vec<Drawn>,
    /// The timer stream's first draws (phase-scoped lifetimes are moved to the phase a run takes them in).
    pub(super) timer: Vec<Drawn>,
    /// The timer stream's state after `timer`.
    pub(super) timer_rng_after: SimRng,
}

impl WorkloadTape {
    /// Draws `profile`'s streams at `seed`.
    pub fn draw(profile: &WorkloadProfile, seed: u64) -> Self {
        Self::draw_with_timer(profile, seed, profile.timer_draws_expected())
    }

    /// Draws `profile`'s work stream and the first `timer_draws` of its timer stream at `seed`.
    pub fn draw_with_timer(profile: &WorkloadProfile, seed: u64, timer_draws: usize) -> Self {
        let (work, timer, timer_rng_after) = WorkloadGen::draw_ahead(profile, seed, timer_draws);
        WorkloadTape {
            profile: profile.clone(),
            seed,
            work,
            timer,
            timer_rng_after,
        }
    }

    /// True when this tape holds the streams of `profile` at `seed`.
    pub fn is_of(&self, profile: &WorkloadProfile, seed: u64) -> bool {
        self.seed == seed && self.profile == *profile
    }

    /// Timer draws on the tape (runs that need more draw the rest themselves). `[allocations]`
    pub fn timer_draws(&self) -> usize {
        self.timer.len()
    }
}
