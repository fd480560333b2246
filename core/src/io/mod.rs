//! File output that never leaves a half-written file behind: every file gclab writes goes through
//! [`atomic`] (a temporary file in the destination's folder, synced, then renamed over the destination).
//! [`spill`] holds records too many for memory in an anonymous temporary file (big inputs to `gclab mmu`);
//! [`reorder`] puts a nearly ordered stream back in order within a bounded buffer.

pub mod atomic;
mod direct;
pub mod reorder;
pub mod spill;

pub use atomic::{AtomicFile, MANIFEST, write_dir_atomic, write_file_atomic};
