//! `gclab run SCENARIO [--set K=V]... [--json PATH|-] [--csv DIR]`.

use std::io::Write;

use gclab_core::{Cancel, Scenario, simulate};

use super::CliError;
use super::command::RunArgs;
use super::output::{human_summary, write_csv, write_json};
use super::progress;

/// Runs one scenario and prints or writes its results.
pub fn run(a: &RunArgs) -> Result<(), CliError> {
    let sc = Scenario::load(&a.scenario, &a.overrides.set)?;
    let mut shown = progress::Line::stderr(format!("run {}", a.scenario));
    let run = simulate(&sc, &Cancel::never(), &mut shown)
        .map_err(|e| CliError::input(format!("{}: {e}", a.scenario)))?;
    shown.finish();
    if let Some(dir) = &a.csv {
        write_csv(dir, &run)?;
    }
    match &a.json {
        Some(dest) => {
            let v = serde_json::json!({ "scenario": sc.echo(), "summary": run.summary });
            write_json(dest, &v)
        }
        None => {
            let mut out = std::io::stdout().lock();
            write!(out, "{}", human_summary(sc.origin(), &run))
                .map_err(|e| CliError::other(e.to_string()))
        }
    }
}
