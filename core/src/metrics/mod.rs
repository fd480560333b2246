//! Metrics computed from a run's or a log's pauses: [`mmu`] (exact minimum mutator utilisation).

pub mod mmu;
