//! The sweep runner: points of a plan, by index, simulated on `threads` named workers pulling the next index
//! from a shared counter (the app's one parallel loop, [`crate::parallel::for_each_index`]); each finished run is handed to `on_done` (the one-machine sweep keeps the summary, a
//! cluster task writes the point file). Runs of one workload share its draws (a [`WorkloadTapes`] store); results
//! do not depend on the scheduling. Also the progress line on stderr.

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use gclab_core::sweep::SweepPlan;
use gclab_core::{Cancel, NoProgress, Run, Scenario, SimError, WorkloadTapes, simulate_with};

use super::super::CliError;

/// Runs the points `indices` of `plan` (whose base scenario is `base`) on `threads` workers. Returns the
/// failures, by index: a point whose scenario does not build or whose simulation fails, or whose `on_done`
/// failed. `label` names the plan in messages.
pub fn run_points(
    plan: &SweepPlan,
    base: &Scenario,
    indices: &[u64],
    threads: usize,
    label: &str,
    progress: &ProgressLine,
    on_done: &(dyn Fn(u64, Run) -> Result<(), CliError> + Sync),
) -> Vec<(u64, CliError)> {
    let tapes = WorkloadTapes::new();
    let failures: Mutex<Vec<(u64, CliError)>> = Mutex::new(Vec::new());
    let taken = crate::parallel::for_each_index(indices.len(), threads, "sweep", |k| {
        let i = indices[k];
        let result = plan
            .scenario_at(base, i)
            .map_err(|e| CliError::input(format!("{label}: point {i}: {e}")))
            .and_then(|sc| {
                simulate_with(&sc, Some(&tapes), &Cancel::never(), &mut NoProgress)
                    .map_err(|e| sim_error(label, i, &e))
            })
            .and_then(|run| on_done(i, run));
        if let Err(e) = result
            && let Ok(mut f) = failures.lock()
        {
            f.push((i, e));
        }
        progress.add(1);
    });
    progress.finish();
    let mut f = failures.into_inner().unwrap_or_default();
    if taken < indices.len() {
        f.push((u64::MAX, CliError::other("no sweep worker could start")));
    }
    f.sort_by_key(|(i, _)| *i);
    f
}

/// A simulation failure of point `i`: bad input when the scenario asks for something unsupported.
fn sim_error(label: &str, i: u64, e: &SimError) -> CliError {
    let msg = format!("{label}: point {i}: {e}");
    match e {
        SimError::Unsupported(_) => CliError::input(msg),
        _ => CliError::other(msg),
    }
}

/// The first failure, with how many more there were.
pub fn first_failure(mut failures: Vec<(u64, CliError)>) -> Option<CliError> {
    let more = failures.len().saturating_sub(1);
    if failures.is_empty() {
        return None;
    }
    let (_, mut e) = failures.swap_remove(0);
    if more > 0 {
        e.message += &format!(" (and {more} more points failed)");
    }
    Some(e)
}

/// `points done / total, rate, ETA` on one self-overwriting stderr line, at most four times a second; silent
/// when stderr is not a terminal or after `--quiet` (`progress::enabled`).
#[derive(Debug)]
pub struct ProgressLine {
    label: String,
    total: u64,
    already: u64,
    done: AtomicU64,
    started: Instant,
    last: Mutex<Option<Instant>>,
    enabled: bool,
}

impl ProgressLine {
    /// A progress line for `total` points of which `already` were done before this process started.
    pub fn new(label: &str, total: u64, already: u64) -> ProgressLine {
        ProgressLine {
            label: label.to_string(),
            total,
            already,
            done: AtomicU64::new(0),
            started: Instant::now(),
            last: Mutex::new(None),
            enabled: crate::cli::progress::enabled(),
        }
    }

    /// `n` more points done.
    pub fn add(&self, n: u64) {
        let d = self.done.fetch_add(n, Ordering::Relaxed) + n;
        self.report(d, false);
    }

    /// `d` points done in all (for a single-threaded caller such as the merge).
    pub fn set(&self, d: u64) {
        self.done.store(d, Ordering::Relaxed);
        self.report(d, false);
    }

    /// The last report, ending the line.
    pub fn finish(&self) {
        if self.enabled {
            self.report(self.done.load(Ordering::Relaxed), true);
            let _ = writeln!(std::io::stderr());
        }
    }

    fn report(&self, d: u64, force: bool) {
        if !self.enabled {
            return;
        }
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if !force && last.is_some_and(|t| t.elapsed().as_secs_f64() < 0.25) {
            return;
        }
        *last = Some(Instant::now());
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        let rate = d as f64 / secs;
        let left = self.total.saturating_sub(self.already + d);
        let eta = if rate > 0.0 {
            hms(left as f64 / rate)
        } else {
            "?".into()
        };
        let already = if self.already > 0 {
            format!(" ({} already done)", self.already)
        } else {
            String::new()
        };
        let _ = write!(
            std::io::stderr(),
            "\r\x1b[K{}: {}/{} points{already}, {rate:.1} points/s, ETA {eta}",
            self.label,
            self.already + d,
            self.total
        );
    }
}

/// `secs` as `H:MM:SS` (or `M:SS` under an hour).
fn hms(secs: f64) -> String {
    let t = secs.round().clamp(0.0, 1e9) as u64;
    let (h, m, s) = (t / 3600, t / 60 % 60, t % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}
