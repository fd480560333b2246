//! `gclab sweep SCENARIO --vary K=V1,V2,... [--set K=V]... [--json PATH|-]`: every combination, run in parallel
//! on all cores; results are printed in combination order whatever the scheduling, so output is deterministic.

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use gclab_core::sweep::{expand, parse_vary};
use gclab_core::{Cancel, NoProgress, Run, Scenario, SimError, WorkloadTapes, simulate_with};

use super::output::write_json;
use super::{Args, CliError};

/// Runs every point of a sweep.
pub fn sweep(a: &Args) -> Result<(), CliError> {
    let base = Scenario::load(&a.input, &a.all("--set"))?;
    let varies = a
        .all("--vary")
        .iter()
        .map(|v| parse_vary(v))
        .collect::<Result<Vec<_>, _>>()?;
    if varies.is_empty() {
        return Err(CliError::input(
            "sweep: expected at least one --vary KEY=V1,V2,...",
        ));
    }
    let points = expand(&base, &varies)?;
    let scenarios: Vec<&Scenario> = points.iter().map(|p| &p.scenario).collect();
    let runs = run_parallel(&scenarios);
    let mut rows = Vec::with_capacity(points.len());
    for (p, r) in points.iter().zip(runs) {
        let run = r.map_err(|e| CliError::input(format!("{}: {e}", a.input)))?;
        let set: serde_json::Map<String, serde_json::Value> = p
            .set
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
                )
            })
            .collect();
        rows.push((set, run));
    }
    match a.last("--json") {
        Some(dest) => {
            let runs: Vec<serde_json::Value> = rows
                .iter()
                .map(|(set, r)| serde_json::json!({ "set": set, "summary": r.summary }))
                .collect();
            write_json(&dest, &serde_json::json!({ "runs": runs }))
        }
        None => {
            let mut out = std::io::stdout().lock();
            for (set, r) in &rows {
                let s = &r.summary;
                let keys: Vec<String> = set.iter().map(|(k, v)| format!("{k}={v}")).collect();
                writeln!(
                    out,
                    "{:<40} time {:.4} s  collections {:>6}  energy {:.4e} J (heap {:.4e})",
                    keys.join(" "),
                    s.execution_time_s,
                    s.collections,
                    s.energy_j.total,
                    s.energy_j.heap
                )
                .map_err(|e| CliError::other(e.to_string()))?;
            }
            Ok(())
        }
    }
}

/// Runs `scenarios` on all available cores; results in input order. Progress goes to stderr once a sweep has
/// taken more than a second. Runs of one workload share its draws (a [`WorkloadTapes`] store).
pub fn run_parallel(scenarios: &[&Scenario]) -> Vec<Result<Run, SimError>> {
    let n = scenarios.len();
    let tapes = WorkloadTapes::new();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Run, SimError>>>> =
        Mutex::new((0..n).map(|_| None).collect());
    let workers = std::thread::available_parallelism()
        .map_or(1, |p| p.get())
        .min(n.max(1));
    let started = Instant::now();
    let last_report = Mutex::new(started);
    std::thread::scope(|scope| {
        for w in 0..workers {
            let (next, done, results, last_report, tapes) =
                (&next, &done, &results, &last_report, &tapes);
            let _ = std::thread::Builder::new()
                .name(format!("sweep-{w}"))
                .spawn_scoped(scope, move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        let r = simulate_with(
                            scenarios[i],
                            Some(tapes),
                            &Cancel::never(),
                            &mut NoProgress,
                        );
                        if let Ok(mut res) = results.lock() {
                            res[i] = Some(r);
                        }
                        let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                        if let Ok(mut last) = last_report.lock()
                            && started.elapsed().as_secs_f64() > 1.0
                            && (last.elapsed().as_secs_f64() > 0.5 || d == n)
                        {
                            *last = Instant::now();
                            let _ = writeln!(std::io::stderr(), "sweep: {d}/{n} runs");
                        }
                    }
                });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            r.unwrap_or(Err(SimError::Unsupported(
                "a sweep worker failed to start".into(),
            )))
        })
        .collect()
}
