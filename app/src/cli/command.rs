//! The command line's one definition (clap derive, DESIGN §5): every verb, flag, help text and the shell
//! completions come from these types. `--help` works on every subcommand; parse errors are turned into gclab's
//! one-line form by [`super::parse_error`].

use clap::{Args, Parser, Subcommand};

/// `gclab` — a GC energy lab: with no command it opens the app on the embedded default scenario.
#[derive(Debug, Parser)]
#[command(
    name = "gclab",
    version,
    about = "gclab — a GC energy lab: simulate GC policies on two platforms and see their energy, time and pauses",
    after_help = "SCENARIO is a path to a TOML file or preset:NAME (see `gclab presets`).\n\
                  --set KEY=VALUE overrides any scenario field by its dotted path, e.g. --set collector.kind=adaptive.\n\
                  Durations take a unit: ns, us, ms, s. Exit status: 0 success, 2 bad input (one line naming the \
                  file, line/field and expectation), 1 any other failure.\n\
                  Long commands show their progress on stderr when it is a terminal; --quiet (-q) turns that off."
)]
pub struct Cli {
    /// No progress lines on stderr.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// The verb; none opens the app.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The verbs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the app on a scenario (.toml), a gclab trace or a GC log (HotSpot unified log, logcat).
    Open {
        /// The file to open.
        #[arg(value_name = "FILE")]
        file: String,
    },
    /// List the embedded presets, one per line.
    Presets,
    /// Run a scenario headless; print its summary or write it as JSON / CSV.
    Run(RunArgs),
    /// Run a scenario over a grid of settings on this machine, or plan / run / merge a sweep across many.
    Sweep(SweepArgs),
    /// Minimum mutator utilisation (exact) of a pause CSV, a utilisation CSV, a HotSpot GC log or a logcat.
    Mmu(MmuArgs),
    /// Re-run a paper's experiments (with overrides) and write the side-by-side tables as markdown.
    Reproduce(ReproduceArgs),
    /// Record, import or summarise per-object traces (DESIGN §7).
    #[command(subcommand)]
    Trace(TraceCommand),
    /// Chrome trace-event JSON of a run or a GC log, for the Perfetto UI.
    ExportPerfetto(PerfettoArgs),
    /// Built-in lessons: list them, check every claim against the model, show one.
    #[command(subcommand)]
    Lesson(LessonCommand),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// `--set KEY=VALUE`, repeatable.
#[derive(Debug, Args, Clone, Default)]
pub struct Overrides {
    /// Override a scenario field by its dotted TOML path (repeatable), e.g. --set heap.target_util=0.9.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// `gclab run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// A TOML file or preset:NAME.
    #[arg(value_name = "SCENARIO")]
    pub scenario: String,
    #[command(flatten)]
    pub overrides: Overrides,
    /// Write `{"scenario": …, "summary": …}` to PATH (`-`: stdout).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
    /// Write the run's series as CSV files into DIR (complete or not there).
    #[arg(long, value_name = "DIR")]
    pub csv: Option<String>,
}

/// `gclab sweep`: the one-machine sweep, or one of the distributed steps.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    /// A distributed step; without one, the whole sweep runs here.
    #[command(subcommand)]
    pub step: Option<SweepStep>,
    /// A TOML file or preset:NAME.
    #[arg(value_name = "SCENARIO", required = true)]
    pub scenario: Option<String>,
    /// The values one field takes (repeatable; the points are the grid of all --vary).
    #[arg(long, value_name = "KEY=V1,V2,...", required = true)]
    pub vary: Vec<String>,
    #[command(flatten)]
    pub overrides: Overrides,
    /// Write `{"runs": […]}` to PATH (`-`: stdout).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

/// The steps of a sweep spread over many tasks (docs/sweeps.md).
#[derive(Debug, Subcommand)]
pub enum SweepStep {
    /// Write a sweep plan (the points, by index) for a cluster or many boxes.
    Plan {
        /// A TOML file or preset:NAME.
        #[arg(value_name = "SCENARIO")]
        scenario: String,
        /// The values one field takes (repeatable).
        #[arg(long, value_name = "KEY=V1,V2,...", required = true)]
        vary: Vec<String>,
        #[command(flatten)]
        overrides: Overrides,
        /// Where to write the plan (`-`: stdout).
        #[arg(short, long, value_name = "PLAN.json")]
        out: String,
    },
    /// Run some points of a plan, one result file each; points already in DIR are skipped.
    #[command(group(clap::ArgGroup::new("points").required(true).args(["index", "shard"])))]
    Run {
        /// The plan.
        #[arg(value_name = "PLAN.json")]
        plan: String,
        /// Run the one point with this index.
        #[arg(long, value_name = "I")]
        index: Option<String>,
        /// Run the points I, I+N, I+2N, ….
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// The folder of point files.
        #[arg(long, value_name = "DIR")]
        out: String,
        /// Worker threads (default: this machine's cores).
        #[arg(long, value_name = "T")]
        threads: Option<String>,
    },
    /// Every point's result → the sweep JSON (as `gclab sweep --json`), CSV, or the Pareto frontier.
    Merge {
        /// The plan.
        #[arg(value_name = "PLAN.json")]
        plan: String,
        /// The folder of point files.
        #[arg(value_name = "DIR")]
        dir: String,
        /// Write the sweep JSON to PATH (`-`: stdout).
        #[arg(long, value_name = "PATH|-")]
        json: Option<String>,
        /// Write one CSV row per point to PATH (`-`: stdout).
        #[arg(long, value_name = "PATH|-")]
        csv: Option<String>,
        /// Print the Pareto frontier (energy, time, max pause) to stdout.
        #[arg(long)]
        pareto: bool,
    },
    /// Points, fingerprint, scenario and axes of a plan, as `key value` lines.
    Info {
        /// The plan.
        #[arg(value_name = "PLAN.json")]
        plan: String,
    },
}

/// `gclab mmu`.
#[derive(Debug, Args)]
pub struct MmuArgs {
    /// A pause CSV, a utilisation CSV, a HotSpot GC log or a logcat (plain, .gz or .zst).
    #[arg(value_name = "INPUT")]
    pub input: String,
    /// The input's format (default: told from the input).
    #[arg(long, value_name = "auto|pauses-csv|util-csv|jvm|logcat")]
    pub format: Option<String>,
    /// Window lengths with units, in the order to report them.
    #[arg(long, value_name = "1ms,10ms,...")]
    pub windows: Option<String>,
    /// The observation span in ns (default: the data's).
    #[arg(long = "span-ns", value_name = "A,B")]
    pub span_ns: Option<String>,
    /// Write `{"mmu": […], "max_pause_ms": …, "pauses": …}` to PATH (`-`: stdout).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

/// `gclab reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Which paper: kvm (JVM'02, the default) or android (SYSTOR'15).
    #[arg(long, value_name = "kvm|android")]
    pub paper: Option<String>,
    #[command(flatten)]
    pub overrides: Overrides,
    /// Where to write the report (default, or `-`: stdout).
    #[arg(short, long, value_name = "FILE")]
    pub out: Option<String>,
}

/// `gclab trace …`.
#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// Write a simulated run's per-object trace.
    Record {
        /// A TOML file or preset:NAME.
        #[arg(value_name = "SCENARIO")]
        scenario: String,
        #[command(flatten)]
        output: TraceOutput,
        #[command(flatten)]
        overrides: Overrides,
    },
    /// Turn a real allocation trace (heaptrack, Elephant Tracks 2, objects CSV) into a gclab trace.
    Import {
        /// The allocation trace.
        #[arg(value_name = "INPUT")]
        input: String,
        /// The input's format (default: told from the input).
        #[arg(long, value_name = "heaptrack|et2|objects-csv")]
        format: Option<String>,
        #[command(flatten)]
        output: TraceOutput,
    },
    /// Lifetimes, top sites and classes, leak suspects of a trace.
    Stats {
        /// A gclab trace (text or binary).
        #[arg(value_name = "FILE")]
        file: String,
        /// Write the statistics as JSON to PATH (`-`: stdout).
        #[arg(long, value_name = "PATH|-")]
        json: Option<String>,
        /// Only objects of this class.
        #[arg(long, value_name = "NAME")]
        class: Option<String>,
        /// Rows in each top table.
        #[arg(long, value_name = "N")]
        top: Option<String>,
        /// Rows in the leak-suspect table.
        #[arg(long, value_name = "N")]
        suspects: Option<String>,
    },
}

/// A trace's destination and form.
#[derive(Debug, Args)]
pub struct TraceOutput {
    /// The trace to write (`.txt` → text, anything else binary, unless --text / --form say otherwise).
    #[arg(short, long, visible_alias = "output", value_name = "FILE")]
    pub out: String,
    /// Write the text form.
    #[arg(long, conflicts_with = "form")]
    pub text: bool,
    /// The form to write.
    #[arg(long, value_name = "text|binary")]
    pub form: Option<String>,
}

/// `gclab export-perfetto`.
#[derive(Debug, Args)]
pub struct PerfettoArgs {
    /// A scenario (TOML, preset:NAME), a gclab trace or a GC log.
    #[arg(value_name = "SCENARIO|FILE")]
    pub input: String,
    /// The trace-event JSON to write.
    #[arg(short, long, visible_alias = "output", value_name = "OUT.json")]
    pub out: String,
    /// The input's format when it is a GC log (default: told from the input).
    #[arg(long, value_name = "auto|jvm|logcat")]
    pub format: Option<String>,
    #[command(flatten)]
    pub overrides: Overrides,
}

/// `gclab lesson …`.
#[derive(Debug, Subcommand)]
pub enum LessonCommand {
    /// The built-in lessons' ids, one per line.
    List,
    /// Evaluate every claim of the lessons (default: all built-in); exit 1 naming any that fails.
    Check {
        /// Lesson ids or lesson files.
        #[arg(value_name = "ID|FILE")]
        lessons: Vec<String>,
    },
    /// Print a lesson's steps, predictions and claims.
    Show {
        /// A lesson id or a lesson file.
        #[arg(value_name = "ID|FILE")]
        lesson: String,
    },
    /// Every step's figure (PNG + CSV of what it draws) and an offline index.html slide deck, into DIR.
    Export {
        /// A lesson id or a lesson file.
        #[arg(value_name = "ID|FILE")]
        lesson: String,
        /// The folder to write.
        #[arg(short, long, value_name = "DIR")]
        out: String,
        /// Figure size in points (default 1280x720).
        #[arg(long, value_name = "WxH")]
        size: Option<String>,
        /// Pixels per point (default 2, for slides).
        #[arg(long, value_name = "N")]
        scale: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::{CommandFactory, Parser};

    #[test]
    fn trace_outputs_take_short_long_and_inline_forms() {
        use super::{Command, TraceCommand};
        for args in [
            &["gclab", "trace", "record", "x", "-o", "f", "--text"][..],
            &["gclab", "trace", "record", "x", "--output", "f", "--text"],
            &["gclab", "trace", "record", "x", "-o=f", "--text"],
            &["gclab", "trace", "record", "x", "--out=f", "--text"],
        ] {
            let cli = Cli::try_parse_from(args).expect("parses");
            let Some(Command::Trace(TraceCommand::Record { output, .. })) = cli.command else {
                panic!("a trace record: {args:?}");
            };
            assert_eq!((output.out.as_str(), output.text), ("f", true), "{args:?}");
        }
    }

    #[test]
    fn the_definition_is_consistent() {
        // clap's own checks: no duplicate flags, conflicts naming real arguments, required/optional coherent.
        Cli::command().debug_assert();
    }
}
