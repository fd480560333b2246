//! The command line of DESIGN §5. `main` parses the verb and its flags, runs it, and turns every error into one
//! line on stderr: exit 2 for bad input (unknown flag or key, bad value, missing or malformed file), 1 for a
//! failure while writing output, 0 on success (an out-of-memory run is a result, not an error).

mod args;
mod lesson;
mod mmu;
mod output;
mod perfetto;
mod progress;
mod reproduce;
mod run;
mod sweep;
mod trace;

use std::io::Write;

pub use args::Args;

/// A CLI failure: the message (one line) and the exit status.
#[derive(Debug)]
pub struct CliError {
    /// One line naming the file, line/field and expectation.
    pub message: String,
    /// 2 for bad input, 1 for anything else.
    pub code: i32,
}

impl CliError {
    /// Bad input: exit status 2.
    pub fn input(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            code: 2,
        }
    }

    /// A failure that is not the input's fault: exit status 1.
    pub fn other(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            code: 1,
        }
    }
}

impl From<gclab_core::ScenarioError> for CliError {
    fn from(e: gclab_core::ScenarioError) -> Self {
        CliError::input(e.to_string())
    }
}

const USAGE: &str = "\
gclab — a GC energy lab

usage:
  gclab                                   open the app on the embedded default scenario
  gclab open FILE                         open the app on a scenario file (.toml) or a GC log (HotSpot unified log, logcat)
  gclab presets                           list embedded presets, one per line
  gclab run SCENARIO [--set K=V]... [--json PATH|-] [--csv DIR]
  gclab sweep SCENARIO --vary K=V1,V2,... [--vary ...] [--set K=V]... [--json PATH|-]
  gclab sweep plan SCENARIO --vary K=V1,V2,... [--vary ...] [--set K=V]... -o PLAN.json
                                          write a sweep plan (the points, by index) for a cluster or many boxes
  gclab sweep run PLAN.json (--index I | --shard I/N) --out DIR [--threads T] [--quiet]
                                          run some points, one result file each; points already in DIR are skipped
  gclab sweep merge PLAN.json DIR [--json PATH|-] [--csv PATH|-] [--pareto] [--quiet]
                                          every point's result → the sweep JSON (as `gclab sweep --json`), CSV, frontier
  gclab sweep info PLAN.json               points, fingerprint, scenario and axes of a plan
  gclab mmu INPUT [--format auto|pauses-csv|util-csv|jvm|logcat] [--windows 1ms,10ms,...] [--span-ns A,B] [--json PATH|-]
  gclab reproduce [--paper kvm|android] [--set K=V]... [--out FILE]
                                          rerun a paper's experiments (with overrides), write the tables
  gclab trace record SCENARIO -o FILE [--set K=V]... [--text]   write the run's per-object trace
  gclab trace import INPUT [--format heaptrack|et2|objects-csv] -o FILE [--text]   turn a real allocation trace into a gclab trace
  gclab trace stats FILE [--json PATH|-] [--class NAME] [--top N]   lifetimes, top sites and classes, leak suspects
  gclab export-perfetto SCENARIO|FILE -o OUT.json [--set K=V]...   Chrome trace-event JSON for the Perfetto UI
  gclab lesson list | check [ID|FILE]... | show ID|FILE   built-in lessons; check evaluates every claim (exit 1 if one fails)

SCENARIO is a path to a TOML file or preset:NAME (see `gclab presets`).
Long commands show their progress on stderr when it is a terminal; --quiet (-q) turns that off.
--set KEY=VALUE overrides any scenario field by its dotted path, e.g. --set collector.kind=adaptive.";

/// Runs the CLI on `args` (without the program name); returns the exit status.
pub fn main(args: &[String]) -> i32 {
    // `--quiet` (`-q`) may stand anywhere after the verb: it only silences progress.
    let quiet = args.iter().skip(1).any(|a| a == "--quiet" || a == "-q");
    progress::set_quiet(quiet);
    let args: Vec<String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| *i == 0 || !(a.as_str() == "--quiet" || a.as_str() == "-q"))
        .map(|(_, a)| a.clone())
        .collect();
    let args = args.as_slice();
    let result = match args.first().map(String::as_str) {
        None => gclab_core::Scenario::default_preset()
            .map_err(CliError::from)
            .and_then(|sc| open_window(sc, true)),
        Some("open") => match args.get(1) {
            // A bad scenario is bad input (exit 2), reported before any window opens. A GC log opens on the
            // default scenario and is read on the app's loader thread (errors go to the status bar).
            Some(path) if !crate::gui::log::is_scenario_path(std::path::Path::new(path)) => {
                match std::fs::metadata(path) {
                    Ok(m) if m.is_file() => gclab_core::Scenario::default_preset()
                        .map_err(CliError::from)
                        .and_then(|sc| {
                            crate::gui::run_app_opening(sc, Some(path.into()), false)
                                .map_err(|e| CliError::other(format!("cannot open the app: {e}")))
                        }),
                    Ok(_) => Err(CliError::input(format!("{path}: not a file"))),
                    Err(e) => Err(CliError::input(format!("{path}: {e}"))),
                }
            }
            Some(path) => gclab_core::Scenario::load(path, &[])
                .map_err(CliError::from)
                .and_then(|sc| open_window(sc, false)),
            None => Err(CliError::input(
                "open: expected a FILE (a scenario TOML or a GC log)",
            )),
        },
        Some("presets") => presets(),
        Some("run") => {
            Args::parse(&args[1..], &["--set", "--json", "--csv"]).and_then(|a| run::run(&a))
        }
        Some("sweep") => sweep::main(&args[1..]),
        Some("mmu") => mmu::mmu(&args[1..]),
        Some("trace") => trace::trace(&args[1..]),
        Some("lesson") => lesson::lesson(&args[1..]),
        Some("export-perfetto") => perfetto::export_perfetto(&args[1..]),
        Some("reproduce") => {
            let rest: Vec<String> = std::iter::once("reproduce".to_string())
                .chain(args[1..].iter().cloned())
                .collect();
            Args::parse(&rest, &["--out", "--set", "--paper"])
                .and_then(|a| reproduce::reproduce(&a))
        }
        Some("-h" | "--help" | "help") => {
            let _ = writeln!(std::io::stdout(), "{USAGE}");
            Ok(())
        }
        Some(other) => Err(CliError::input(format!(
            "unknown command `{other}` (expected presets, run, sweep, mmu, trace, lesson, export-perfetto, reproduce or open; see gclab --help)"
        ))),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "gclab: {}", e.message);
            e.code
        }
    }
}

/// Opens the window; `restore` reopens the last session's scenario (plain `gclab`).
fn open_window(scenario: gclab_core::Scenario, restore: bool) -> Result<(), CliError> {
    crate::gui::run_app(scenario, restore)
        .map_err(|e| CliError::other(format!("cannot open the app: {e}")))
}

fn presets() -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    for (name, _) in gclab_core::scenario::presets::PRESETS {
        writeln!(out, "{name}").map_err(|e| CliError::other(e.to_string()))?;
    }
    Ok(())
}
