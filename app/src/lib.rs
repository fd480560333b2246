//! gclab, the GC energy lab: the desktop app ([`gui`]) and the headless command line ([`cli`]) over
//! `gclab-core`. The app runs simulations on a worker thread and never blocks its UI thread; the CLI runs them
//! inline (sweeps in parallel, with deterministic output order).

pub mod background;
pub mod cli;
pub mod gui;
pub use gclab_core::parallel;
