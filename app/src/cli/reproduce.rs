//! `gclab reproduce [--out FILE]`: runs the adaptive-GC paper's experiments (all applications × base, six
//! k-allocation collectors and adaptive; then other bank and heap sizes) and writes the side-by-side tables as
//! markdown — `docs/reproduction.md` is this command's output. Configurations run in parallel; output order is
//! fixed.

use std::io::Write;

use gclab_core::reproduce::kvm::run_all;
use gclab_core::reproduce::kvm_report::{plan, report};

use super::CliError;
use super::command::ReproduceArgs;

/// Writes the reproduction report of `--paper kvm` (default: the adaptive-GC paper) or `--paper android`.
pub fn reproduce(a: &ReproduceArgs) -> Result<(), CliError> {
    match a.paper.as_deref() {
        None | Some("kvm") => reproduce_kvm(a),
        Some("android") => reproduce_android(a),
        Some(other) => Err(CliError::input(format!(
            "--paper: expected kvm or android, got `{other}`"
        ))),
    }
}

/// The SYSTOR'15 report: every benchmark × variant × targetUtil, run on as many threads as there are cores.
fn reproduce_android(a: &ReproduceArgs) -> Result<(), CliError> {
    use gclab_core::reproduce::android::{Results, plan, report, run_job};
    let sets = &a.overrides.set;
    let jobs = plan();
    let slots = on_cores_with_progress(&jobs, "reproduce android: runs", |job| run_job(job, sets));
    let mut sums = Vec::with_capacity(jobs.len());
    for s in slots {
        sums.push(
            s.ok_or_else(|| CliError::other("a reproduction worker panicked"))?
                .map_err(CliError::input)?,
        );
    }
    write_out(a, &report(&Results::new(&jobs, &sums)))
}

/// [`crate::parallel::map_on_cores`] with a progress line on stderr (`LABEL: n of N`).
fn on_cores_with_progress<T: Sync, R: Send>(
    items: &[T],
    label: &str,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    let finished = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let shown = super::progress::Watcher::count(
        format!("{label} ({})", items.len()),
        items.len() as u64,
        std::sync::Arc::clone(&finished),
    );
    let slots = crate::parallel::map_on_cores(items, "reproduce", |item| {
        let r = f(item);
        finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        r
    });
    drop(shown);
    slots
}

fn write_out(a: &ReproduceArgs, text: &str) -> Result<(), CliError> {
    match a.out.as_deref() {
        Some(p) if p != "-" => {
            gclab_core::io::write_file_atomic(std::path::Path::new(&p), text.as_bytes())
                .map_err(|e| CliError::other(format!("{p}: cannot write: {e}")))
        }
        _ => write!(std::io::stdout().lock(), "{text}").map_err(|e| CliError::other(e.to_string())),
    }
}

/// The JVM'02 report: every configuration of the report's plan (nine applications × eight collectors each) on as
/// many threads as there are cores; the report itself is core's pure function.
fn reproduce_kvm(a: &ReproduceArgs) -> Result<(), CliError> {
    let base_sets = &a.overrides.set;
    let configs = plan();
    let slots = on_cores_with_progress(&configs, "reproduce kvm: configurations", |c| {
        let mut sets = base_sets.clone();
        sets.extend(c.overrides.iter().cloned());
        run_all(&sets).map_err(|e| e.to_string())
    });
    let mut all = Vec::with_capacity(configs.len());
    for (c, r) in configs.iter().zip(slots) {
        let r = r.ok_or_else(|| CliError::other("a reproduction worker panicked"))?;
        all.push((c.name.clone(), r.map_err(CliError::input)?));
    }
    write_out(a, &report(&all))
}
