//! File output that never leaves a half-written file behind: every file gclab writes goes through
//! [`atomic`] (a temporary file in the destination's folder, synced, then renamed over the destination).

pub mod atomic;

pub use atomic::{AtomicFile, write_dir_atomic, write_file_atomic};
