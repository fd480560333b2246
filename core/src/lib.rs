//! # gclab-core — the simulation engine of gclab, the GC energy lab
//!
//! gclab shows what a garbage-collection policy costs in energy, time and responsiveness. This crate holds the
//! models (no UI, no threads): scenarios, workloads, heaps of power-gated banks, GC triggers and collectors,
//! platforms with their energy, and metrics such as exact minimum mutator utilisation.
//!
//! ## Simulation lifecycle
//! 1. **Scenario** — [`Scenario::load`] reads a TOML file or `preset:NAME` in two stages (serde mirror
//!    [`scenario::ScenarioFile`] → validated [`Scenario`]), applying `--set` overrides and resolving the workload
//!    profile.
//! 2. **Engine** — [`simulate`] picks the platform (`kvm-soc`: [`platform::kvm`]) and runs it: the workload
//!    ([`workload::WorkloadGen`]) draws allocations, the trigger ([`collector::TriggerPolicy`]) decides when to
//!    collect, the collector reclaims and compacts, banks are gated and woken ([`heap::Banks`]).
//! 3. **Records** — while it runs, the engine records occupancy samples, bank power intervals, GC events,
//!    pauses and the per-object layout ([`run::LayoutRecorder`]).
//! 4. **Run** — the finished [`Run`]: a [`run::Summary`] (DESIGN §5 fields) and plot-ready timelines.
//! 5. **Metrics** — the summary's MMU comes from [`metrics::mmu`]; the app and CLI reuse the same functions.
//!
//! Same scenario and seed → bit-identical `Run` ([`Run::fingerprint`]).
//!
//! ```
//! use gclab_core::{simulate, Cancel, NoProgress, Scenario};
//! let sc = Scenario::preset("kvm/calculator")?.with_set("collector.kind=adaptive")?;
//! let run = simulate(&sc, &Cancel::never(), &mut NoProgress)?;
//! assert!(run.summary.energy_j.heap > 0.0);
//! assert_eq!(run.summary.collector, "adaptive");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

// The public API (issue #18 item 2): the model's types re-exported here, flat, and the subsystems that are APIs of
// their own — file formats, inputs, metrics and experiments — as modules. The engine's modules below are hidden from
// the documentation and from the app and tests (`scripts/structure.py` checks that they import only this surface).
#[doc(hidden)]
pub mod collector;
#[doc(hidden)]
pub mod cpu;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod heap;
pub mod importers;
pub mod input;
pub mod io;
pub mod lesson;
pub mod metrics;
pub mod parallel;
#[doc(hidden)]
pub mod platform;
#[doc(hidden)]
pub mod progress;
pub mod reproduce;
#[doc(hidden)]
pub mod rng;
#[doc(hidden)]
pub mod run;
pub mod scenario;
pub mod sweep;
pub mod trace;
pub mod units;
#[doc(hidden)]
pub mod workload;

pub use collector::Trigger;
pub use cpu::timeline::{CpuTimeline, TimelineRecorder};
pub use cpu::{CpuReport, CpuTag, GovernorKind, HotplugKind};
pub use error::{Origin, ScenarioError, SimError};
pub use heap::BankState;
pub use input::{InputError, InputKind, sniff};
pub use progress::{Cancel, NoProgress, Progress};
pub use rng::SimRng;
pub use run::record::{
    ObjectSpill, RecordError, RecordedObjects, SpillSlot, record_header, record_with,
    write_recorded,
};
pub use run::recorded::{RecordedLayout, RecordedSink, RecordedWalk};
pub use run::{
    EnergySummary, GcEvent, MmuPoint, Pause, PauseKind, Run, Summary, util_series, variant_name,
};
pub use scenario::{ByteSize, CollectorKind, PlatformKind, Scenario, Set};
pub use units::SimTime;
pub use workload::WorkloadTapes;
pub use workload::from_trace::peak_live_bytes;

/// Runs `scenario` to its end: a pure function of the scenario (and its seed). `cancel` is polled now and then;
/// `progress` receives the fraction done.
pub fn simulate(
    scenario: &Scenario,
    cancel: &Cancel,
    progress: &mut dyn Progress,
) -> Result<Run, SimError> {
    simulate_with(scenario, None, cancel, progress)
}

/// [`simulate`], sharing generated workloads through `tapes` with the other runs given the same store: runs of
/// one workload and seed (a sweep over collectors, a session of slider drags) draw it once. The `Run` is
/// bit-identical to [`simulate`]'s. kvm-soc profiles are taped; other workloads are drawn as usual.
pub fn simulate_with(
    scenario: &Scenario,
    tapes: Option<&WorkloadTapes>,
    cancel: &Cancel,
    progress: &mut dyn Progress,
) -> Result<Run, SimError> {
    simulate_into(scenario, tapes, None, cancel, progress)
}

/// Runs `scenario` (which should set `record.layout = true`) for `gclab trace record`, streaming its objects'
/// events to a temporary file as the engine decides them ([`run::record`]): the run, its layout empty, and the
/// events, for [`write_recorded`].
pub fn record_scenario(
    scenario: &Scenario,
    cancel: &Cancel,
    progress: &mut dyn Progress,
) -> Result<(Run, RecordedObjects), RecordError> {
    record_with(|objects| simulate_into(scenario, None, Some(objects), cancel, progress))
}

/// [`simulate_with`], handing every object's events to `objects` as the engine decides them instead of keeping
/// the run's layout (`Run::layout` is then empty): what `gclab trace record` streams to disk
/// ([`run::record::ObjectSpill`]).
pub fn simulate_into(
    scenario: &Scenario,
    tapes: Option<&WorkloadTapes>,
    objects: Option<Box<dyn run::ObjectEvents>>,
    cancel: &Cancel,
    progress: &mut dyn Progress,
) -> Result<Run, SimError> {
    match scenario.platform() {
        PlatformKind::KvmSoc => platform::kvm::simulate(scenario, tapes, objects, cancel, progress),
        PlatformKind::AndroidKrait => {
            platform::android::simulate(scenario, tapes, objects, cancel, progress)
        }
    }
}
