//! `gclab sweep`: the one-machine sweep (`gclab sweep SCENARIO --vary K=V1,V2,... [--set K=V]... [--json PATH|-]`)
//! and the distributed one — `sweep plan`, `sweep run`, `sweep merge`, `sweep info` ([`distributed`]).
//!
//! Both are the same steps: a [`SweepPlan`] enumerates the points by index, [`runner::run_points`] runs them on
//! this machine's cores, and [`merge`] writes the `{"runs": [...]}` JSON in index order — from memory here, from
//! the point files of many tasks there — so their outputs are byte-identical for the same plan.

mod distributed;
mod runner;

use std::io::Write;
use std::sync::Mutex;

use gclab_core::Summary;
use gclab_core::sweep::SweepPlan;
use gclab_core::sweep::merge::{MemorySource, MergeOutputs, Sink, merge};
use gclab_core::sweep::point::render_point;

use super::CliError;
use super::command::{SweepArgs, SweepStep};
use runner::{ProgressLine, first_failure, run_points};

/// `gclab sweep ...`: the sub-verbs, or the one-machine sweep.
pub fn main(a: SweepArgs) -> Result<(), CliError> {
    match a.step {
        Some(SweepStep::Plan {
            scenario,
            vary,
            overrides,
            out,
        }) => distributed::plan(&scenario, &vary, &overrides.set, &out),
        Some(SweepStep::Run {
            plan,
            index,
            shard,
            out,
            threads,
        }) => distributed::run(
            &plan,
            index.as_deref(),
            shard.as_deref(),
            &out,
            threads.as_deref(),
        ),
        Some(SweepStep::Merge {
            plan,
            dir,
            json,
            csv,
            pareto,
        }) => distributed::merge_verb(&plan, &dir, json.as_deref(), csv.as_deref(), pareto),
        Some(SweepStep::Info { plan }) => distributed::info(&plan),
        None => sweep(&a),
    }
}

/// Runs every point of a sweep on this machine.
fn sweep(a: &SweepArgs) -> Result<(), CliError> {
    let input = a.scenario.as_deref().unwrap_or_default();
    let (plan, base) = SweepPlan::new(input, &a.overrides.set, &a.vary)?;
    plan.validate_points(&base)?;
    let n = usize::try_from(plan.len()).unwrap_or(usize::MAX);
    let summaries: Mutex<Vec<Option<Summary>>> = Mutex::new(vec![None; n]);
    let indices: Vec<u64> = (0..plan.len()).collect();
    let progress = ProgressLine::new("sweep", plan.len(), 0);
    let failures = run_points(
        &plan,
        &base,
        &indices,
        threads_default(),
        input,
        &progress,
        &|i, run| {
            if let Ok(mut s) = summaries.lock()
                && let Some(slot) = usize::try_from(i).ok().and_then(|i| s.get_mut(i))
            {
                *slot = Some(run.summary);
            }
            Ok(())
        },
    );
    if let Some(e) = first_failure(failures) {
        return Err(e);
    }
    let summaries = summaries.into_inner().unwrap_or_default();
    match &a.json {
        Some(dest) => {
            let mut src = MemorySource {
                texts: summaries
                    .iter()
                    .enumerate()
                    .map(|(i, s)| s.as_ref().map(|s| render_point(&plan, i as u64, s)))
                    .collect(),
            };
            distributed::with_dest(dest, |out| {
                let outs = MergeOutputs {
                    json: Some(Sink {
                        name: dest.clone(),
                        out,
                    }),
                    ..MergeOutputs::default()
                };
                merge(&plan, &mut src, input, outs, &mut |_| {}).map_err(CliError::from)
            })
        }
        None => {
            let mut out = std::io::stdout().lock();
            for (i, s) in summaries.iter().enumerate() {
                let Some(s) = s else { continue };
                let keys: Vec<String> = plan
                    .axes()
                    .point_set_json(i as u64)
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
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

/// Worker threads when not told: every core this process may use.
fn threads_default() -> usize {
    std::thread::available_parallelism().map_or(1, |p| p.get())
}
