//! Workloads: what a simulated program allocates and when. [`profile`] holds the data model read from
//! `assets/workloads/`; [`generator`] draws the deterministic allocation stream of a run from it.

pub mod android;
pub mod deaths;
pub mod from_trace;
pub mod generator;
pub mod live_state;
pub mod profile;
pub mod stream;
pub mod tape;

pub use android::{AndroidProfile, LifetimeCdf};
pub use deaths::DeathQueue;
pub use generator::{AllocDraw, AllocSource, Lifetime, WorkloadGen, WorkloadTape};
pub use profile::{
    LifetimeClass, LifetimeKind, OnCollectionSpec, Phase, SizeClass, TimerSpec, TraceWorkload,
    WorkloadProfile,
};
pub use profile::{LiveState, LiveStateCompute};
pub use stream::DrawStream;
pub use tape::WorkloadTapes;
