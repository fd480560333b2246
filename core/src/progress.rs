//! How a caller watches and stops a long simulation: [`Progress`] receives the fraction done, [`Cancel`] is polled
//! by the engine (every 1024 allocations) and makes `simulate` return `SimError::Cancelled`. The core spawns no
//! threads; a caller on another thread flips the flag.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Receives progress reports, fraction done in [0, 1].
pub trait Progress {
    /// Called now and then with the fraction of the run done.
    fn report(&mut self, fraction: f64);
}

/// Ignores progress.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn report(&mut self, _fraction: f64) {}
}

/// A cancellation check shared with whoever may cancel.
#[derive(Clone, Default)]
pub struct Cancel {
    check: Option<Arc<dyn Fn() -> bool + Send + Sync>>,
}

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.check.is_some() {
            "Cancel(check)"
        } else {
            "Cancel(never)"
        })
    }
}

impl Cancel {
    /// Never cancels.
    pub fn never() -> Self {
        Cancel { check: None }
    }

    /// Cancels once `flag` is set.
    pub fn from_flag(flag: Arc<AtomicBool>) -> Self {
        Cancel {
            check: Some(Arc::new(move || flag.load(Ordering::Relaxed))),
        }
    }

    /// Cancels once `f` returns true (e.g. a newer request generation exists).
    pub fn from_fn(f: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        Cancel {
            check: Some(Arc::new(f)),
        }
    }

    /// True when the run should stop.
    pub fn is_cancelled(&self) -> bool {
        self.check.as_ref().is_some_and(|c| c())
    }
}
