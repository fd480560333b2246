//! `WorkloadProfile`: what a program allocates — counts, sizes, lifetimes, phases, the compute between
//! allocations and the time-driven (timer) allocations of interactive programs. Profiles are data files in
//! `assets/workloads/`; `docs/calibration.md` says how each number was derived from the papers.
//!
//! Lifetimes are counted in **allocations** (the allocation clock of JVM'02 §2, where L and the k1/k2 rates are
//! also per allocation): an object born at allocation i with lifetime n becomes unreachable when allocation i+n
//! is requested.

use serde::{Deserialize, Serialize};

use super::android::AndroidProfile;
use crate::units::ByteSize;

/// Most allocations a generated workload may have in all phases. A kvm-soc run holds about 110 bytes per
/// allocation (measured: 2 M → 229 MB, 4 M → 447 MB peak RSS), so 20 M stays within about 2.2 GB; the former
/// 200 M asked for 9 GB up front and aborted.
pub const MAX_WORK_ALLOCATIONS: u64 = 20_000_000;
/// One class of object sizes: uniform in `[min, max]`, picked with probability ∝ `weight`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeClass {
    /// Relative weight (> 0 for at least one class).
    pub weight: f64,
    /// Smallest size, header included. `[bytes]`
    pub min: ByteSize,
    /// Largest size, header included. `[bytes]` (≥ min)
    pub max: ByteSize,
}

/// How a lifetime class draws an object's lifetime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LifetimeKind {
    /// Exponential with mean `mean_allocations` (the weak generational hypothesis).
    Exp,
    /// Uniform in `[min_allocations, max_allocations]`.
    Uniform,
    /// Lives until the end of the phase it was born in (a phase's working data).
    Phase,
    /// Lives until the end of the run.
    Immortal,
    /// An entry of the program's memory-sized cache (a map viewer's tiles): lives at most a uniform
    /// `[min_allocations, max_allocations]` like `uniform`, but is evicted earlier — oldest first — when the
    /// program inserts a new entry while the heap's free memory is under the profile's `cache_free_bytes`
    /// (the J2ME idiom of sizing a cache by `Runtime.freeMemory()`).
    Cache,
}

/// One class of lifetimes, picked with probability ∝ `weight`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LifetimeClass {
    /// Relative weight.
    pub weight: f64,
    /// The distribution.
    pub kind: LifetimeKind,
    /// Mean lifetime for `exp`. `[allocations]`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_allocations: Option<f64>,
    /// Shortest lifetime for `uniform`. `[allocations]`
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::units::wide_u64::option"
    )]
    pub min_allocations: Option<u64>,
    /// Longest lifetime for `uniform`. `[allocations]`
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::units::wide_u64::option"
    )]
    pub max_allocations: Option<u64>,
}

/// A stretch of the program with its own allocation behaviour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Phase {
    /// Name shown in the app (`load map`, `browse`).
    #[serde(default)]
    pub name: String,
    /// Allocations the program's own work makes in this phase (timer allocations come on top). `[allocations]`
    #[serde(with = "crate::units::wide_u64")]
    pub allocations: u64,
    /// Mean compute between two allocations; defaults to the profile's. `[cycles]`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutator_cycles_per_allocation: Option<f64>,
    /// Object sizes.
    pub sizes: Vec<SizeClass>,
    /// Object lifetimes.
    pub lifetimes: Vec<LifetimeClass>,
    /// Fixed data rather than random draws (a map, a class library): the classes are taken in proportion to
    /// their weights (largest deficit first) and sizes and lifetimes spread evenly over their ranges
    /// (a low-discrepancy sequence), so the phase allocates the same objects for every seed. Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stratified: bool,
}

/// Time-driven allocation of an interactive program: a timer (animation frame, clock, event poll) fires every
/// `period_cycles` of **wall** time and its handler allocates `allocations_per_tick` objects. Ticks missed while
/// the program was busy or paused by the collector are delivered late, one after another — so a run slowed by
/// GC allocates more (JVM'02 Tables 2–3: k × activations grows with the slowdown).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimerSpec {
    /// Wall time between ticks. `[cycles]`
    #[serde(with = "crate::units::wide_u64")]
    pub period_cycles: u64,
    /// Objects the handler allocates per tick. `[allocations]`
    #[serde(with = "crate::units::wide_u64")]
    pub allocations_per_tick: u64,
    /// Mean compute per handler allocation; defaults to the profile's. `[cycles]`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutator_cycles_per_allocation: Option<f64>,
    /// Sizes of the handler's objects.
    pub sizes: Vec<SizeClass>,
    /// Lifetimes of the handler's objects.
    pub lifetimes: Vec<LifetimeClass>,
}

/// Allocations that follow each garbage collection: KVM schedules green threads, and a collection is a point
/// where the scheduler switches; an interactive program's waiting UI, event or animation thread then runs and
/// allocates (event objects, a repaint's graphics objects). Their number is proportional to the number of
/// collections — so a run that collects more (and is slower for it) allocates more: JVM'02 Tables 2–3, where
/// k × activations grows as k falls. `docs/calibration.md` fits `allocations_mean` per application.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnCollectionSpec {
    /// Mean allocations after each collection; the fractional part is drawn (Bernoulli), so 2.5 gives 2 or 3.
    /// `[allocations]`, range 0–10,000.
    pub allocations_mean: f64,
    /// Mean compute per such allocation; defaults to the profile's. `[cycles]`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutator_cycles_per_allocation: Option<f64>,
    /// Their sizes.
    pub sizes: Vec<SizeClass>,
    /// Their lifetimes.
    pub lifetimes: Vec<LifetimeClass>,
}

/// A program's allocation behaviour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadProfile {
    /// Profile name (`kvm/kwml`).
    #[serde(default)]
    pub name: String,
    /// What the program is.
    #[serde(default)]
    pub description: String,
    /// Where its numbers come from.
    #[serde(default)]
    pub source: String,
    /// Permanent objects (classes, bytecodes, constant pools) placed in the permanent space at the end of the
    /// heap at start-up; never collected (JVM'02 §3.1). `[bytes]`
    #[serde(default)]
    pub permanent_bytes: ByteSize,
    /// Part of the ROM (KVM and libraries) this program uses; those partitions are powered on first use and never
    /// off (JVM'02 §3.3). `[bytes]`
    #[serde(default = "default_rom_used")]
    pub rom_bytes_used: ByteSize,
    /// Mean compute between two allocations, drawn uniformly in [½, 1½]× this (kvm-soc). `[cycles]`
    #[serde(default)]
    pub mutator_cycles_per_allocation: f64,
    /// Time-driven allocations, if the program has a timer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer: Option<TimerSpec>,
    /// Allocations that follow each collection, if the program has a thread that runs then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_collection: Option<OnCollectionSpec>,
    /// The program's phases, in order (kvm-soc).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<Phase>,
    /// The free memory (`Runtime.freeMemory()`: free-list bytes; garbage not yet collected is not free) under
    /// which inserting a `cache` entry evicts the oldest one instead of growing the cache. Required when a
    /// lifetime class is `cache`. `[bytes]`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_free_bytes: Option<ByteSize>,
    /// The program as the android-krait engine runs it (SYSTOR'15 Table 1 characteristics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub android: Option<AndroidProfile>,
    /// A recorded program instead of phases: its objects re-simulated (kvm-soc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceWorkload>,
    /// When and where the immortal objects are allocated: `spread` among the phases' work (default), `start-up`
    /// (all first) or `permanent` (in KVM's permanent space) — `super::live_state`; docs/models-kvm.md,
    /// "Workload mechanisms tried".
    #[serde(default, skip_serializing_if = "LiveState::is_default")]
    pub live_state: LiveState,
    /// The other mechanisms' own calibration (their compute per allocation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_state_compute: Option<LiveStateCompute>,
}

/// `[workload.trace]`: a recorded gclab trace replayed as a workload — each recorded allocation becomes one
/// request with the recorded size and site, dying after as many further allocations as it did in the recording
/// (docs/trace-format.md, "Replay as a workload"). Addresses, moves and the recorded collections are not replayed:
/// the simulated allocator and collector decide those. A trace replaces the profile's phases, timer and
/// collection-thread allocations (a base profile still gives `permanent_bytes` and `rom_bytes_used`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceWorkload {
    /// The trace: a file (text or binary, any format version, zstd optional) relative to the scenario file, or an
    /// embedded sample (`sample/kwml`).
    pub path: String,
    /// Mutator compute before each allocation. `[cycles]` 0 (default): the recorded time between allocations at the
    /// platform's clock (`kvm.clock_hz`); a trace on a logical clock then gives one cycle per tick.
    #[serde(default, with = "crate::units::wide_u64")]
    pub cycles_per_allocation: u64,
}

fn default_rom_used() -> ByteSize {
    ByteSize(64 * 1024)
}

impl WorkloadProfile {
    /// Allocations the program's own work makes (timer allocations not included). `[allocations]`
    pub fn work_allocations(&self) -> u64 {
        self.phases.iter().map(|p| p.allocations).sum()
    }

    /// Checks every field; `Err((field, expectation))` names the first bad one by dotted path.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if let Some(t) = &self.trace {
            if t.path.trim().is_empty() {
                return Err((
                    "trace.path".into(),
                    "expected the path of a gclab trace file".into(),
                ));
            }
            if t.cycles_per_allocation > 1_000_000_000 {
                return Err((
                    "trace.cycles_per_allocation".into(),
                    "expected 0 (the recorded clock) to 1e9 cycles".into(),
                ));
            }
            return Ok(());
        }
        if let Some(a) = &self.android {
            a.validate()?;
            if self.phases.is_empty() {
                return Ok(());
            }
        }
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if !(pos(self.mutator_cycles_per_allocation) && self.mutator_cycles_per_allocation <= 1e9) {
            return Err((
                "mutator_cycles_per_allocation".into(),
                "expected a number of cycles in (0, 1e9]".into(),
            ));
        }
        if self.phases.is_empty() {
            return Err((
                "phases".into(),
                "expected at least one [[phases]] entry".into(),
            ));
        }
        if self.work_allocations() == 0 || self.work_allocations() > MAX_WORK_ALLOCATIONS {
            return Err((
                "phases".into(),
                format!(
                    "expected 1 to {MAX_WORK_ALLOCATIONS} allocations in all (a kvm-soc run holds about 110 bytes \
                     per allocation, so the maximum takes about 2.2 GB), got {}",
                    self.work_allocations()
                ),
            ));
        }
        let cached = |l: &[LifetimeClass]| l.iter().any(|c| c.kind == LifetimeKind::Cache);
        if self.cache_free_bytes.is_none()
            && (self.phases.iter().any(|p| cached(&p.lifetimes))
                || self.timer.as_ref().is_some_and(|t| cached(&t.lifetimes))
                || self
                    .on_collection
                    .as_ref()
                    .is_some_and(|c| cached(&c.lifetimes)))
        {
            return Err((
                "cache_free_bytes".into(),
                "expected the free memory under which the cache evicts (a lifetime class is \"cache\")".into(),
            ));
        }
        for (i, p) in self.phases.iter().enumerate() {
            let at = format!("phases.{i}");
            check_stream(
                &format!("{at}."),
                p.mutator_cycles_per_allocation,
                &p.sizes,
                &p.lifetimes,
            )?;
        }
        if let Some(t) = &self.timer {
            if t.period_cycles == 0 {
                return Err((
                    "timer.period_cycles".into(),
                    "expected a period of at least 1 cycle".into(),
                ));
            }
            if t.allocations_per_tick > 10_000 {
                return Err((
                    "timer.allocations_per_tick".into(),
                    "expected 0 to 10,000".into(),
                ));
            }
            check_stream(
                "timer.",
                t.mutator_cycles_per_allocation,
                &t.sizes,
                &t.lifetimes,
            )?;
        }
        if let Some(c) = &self.on_collection {
            if !(c.allocations_mean.is_finite() && (0.0..=10_000.0).contains(&c.allocations_mean)) {
                return Err((
                    "on_collection.allocations_mean".into(),
                    "expected 0 to 10,000".into(),
                ));
            }
            check_stream(
                "on_collection.",
                c.mutator_cycles_per_allocation,
                &c.sizes,
                &c.lifetimes,
            )?;
        }
        Ok(())
    }
}

/// The checks every allocation stream shares (phase, timer, after-collection): its compute and its classes.
fn check_stream(
    at: &str,
    cycles: Option<f64>,
    sizes: &[SizeClass],
    lifetimes: &[LifetimeClass],
) -> Result<(), (String, String)> {
    if let Some(m) = cycles
        && !(m.is_finite() && m > 0.0 && m <= 1e9)
    {
        return Err((
            format!("{at}mutator_cycles_per_allocation"),
            "expected cycles in (0, 1e9]".into(),
        ));
    }
    check_sizes(sizes, &format!("{at}sizes"))?;
    check_lifetimes(lifetimes, &format!("{at}lifetimes"))
}

fn check_sizes(sizes: &[SizeClass], at: &str) -> Result<(), (String, String)> {
    if sizes.is_empty() || !sizes.iter().any(|s| s.weight > 0.0) {
        return Err((
            at.into(),
            "expected at least one size class with weight > 0".into(),
        ));
    }
    for (j, s) in sizes.iter().enumerate() {
        if !(s.weight.is_finite() && s.weight >= 0.0) {
            return Err((format!("{at}.{j}.weight"), "expected a weight ≥ 0".into()));
        }
        if s.min.0 == 0 || s.max.0 < s.min.0 || s.max.0 > (1 << 32) {
            return Err((
                format!("{at}.{j}"),
                "expected 1 B ≤ min ≤ max ≤ 4 GiB".into(),
            ));
        }
    }
    Ok(())
}

fn check_lifetimes(classes: &[LifetimeClass], at: &str) -> Result<(), (String, String)> {
    if classes.is_empty() || !classes.iter().any(|c| c.weight > 0.0) {
        return Err((
            at.into(),
            "expected at least one lifetime class with weight > 0".into(),
        ));
    }
    for (j, c) in classes.iter().enumerate() {
        if !(c.weight.is_finite() && c.weight >= 0.0) {
            return Err((format!("{at}.{j}.weight"), "expected a weight ≥ 0".into()));
        }
        match c.kind {
            LifetimeKind::Exp => match c.mean_allocations {
                Some(m) if m.is_finite() && m >= 1.0 => {}
                _ => {
                    return Err((
                        format!("{at}.{j}.mean_allocations"),
                        "kind \"exp\" needs mean_allocations ≥ 1".into(),
                    ));
                }
            },
            LifetimeKind::Uniform | LifetimeKind::Cache => {
                match (c.min_allocations, c.max_allocations) {
                    (Some(lo), Some(hi)) if lo >= 1 && hi >= lo => {}
                    _ => {
                        return Err((
                        format!("{at}.{j}"),
                        "kinds \"uniform\" and \"cache\" need 1 ≤ min_allocations ≤ max_allocations".into(),
                    ));
                    }
                }
            }
            LifetimeKind::Phase | LifetimeKind::Immortal => {}
        }
    }
    Ok(())
}

/// When the program's immortal objects are allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LiveState {
    /// Among each phase's other allocations, in the proportion of the phase's lifetime weights (the default).
    #[default]
    Spread,
    /// All at start-up, before the program's work: a start-up phase per phase that has immortal objects.
    StartUp,
    /// Where the profile puts them, but in KVM's permanent space (reserved at start-up by their expected bytes).
    Permanent,
}

impl LiveState {
    /// True for the default (kept out of serialized profiles).
    pub fn is_default(&self) -> bool {
        *self == LiveState::Spread
    }
}

/// `[live_state_compute]`: the mean compute between two allocations under each mechanism other than `spread`,
/// calibrated to Table 3's k = 10 column like the profile's own (docs/calibration.md §2). `[cycles]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LiveStateCompute {
    /// Under `start-up`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_up: Option<f64>,
    /// Under `permanent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permanent: Option<f64>,
}

impl WorkloadProfile {
    /// How many timer draws to tape: the timer's allocations over the program's own compute time, with the timer
    /// handler's compute added (a fixed point: the handler's time brings more ticks), then half again for the time
    /// collections, wake-ups and the allocations after collections add. Capped by the event loop's alternation (at
    /// most one tick's burst per work allocation). `[allocations]`
    pub fn timer_draws_expected(&self) -> usize {
        let p = self;
        let Some(t) = &p.timer else {
            return 0;
        };
        let work_cycles: f64 = p
            .phases
            .iter()
            .map(|ph| {
                ph.allocations as f64
                    * ph.mutator_cycles_per_allocation
                        .unwrap_or(p.mutator_cycles_per_allocation)
            })
            .sum();
        let per_tick = t.allocations_per_tick as f64;
        let handler_cycles = t
            .mutator_cycles_per_allocation
            .unwrap_or(p.mutator_cycles_per_allocation);
        let busy = per_tick * handler_cycles / t.period_cycles.max(1) as f64;
        let most = (p.work_allocations() + 1) as f64 * per_tick;
        let expected = if busy < 1.0 {
            work_cycles / (1.0 - busy) / t.period_cycles.max(1) as f64 * per_tick
        } else {
            most
        };
        (expected * 1.5 + per_tick).min(most) as usize
    }
}
