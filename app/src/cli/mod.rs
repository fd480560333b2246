//! The command line of DESIGN §5. `main` parses the verb and its flags, runs it, and turns every error into one
//! line on stderr: exit 2 for bad input (unknown flag or key, bad value, missing or malformed file), 1 for a
//! failure while writing output, 0 on success (an out-of-memory run is a result, not an error).

mod command;
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

use clap::{CommandFactory, Parser};

pub use command::{Cli, Command};

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

    /// Bad input whose message is already on stderr: exit status 2, nothing more printed.
    pub fn input_reported() -> Self {
        CliError {
            message: String::new(),
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

/// Runs the CLI on `args` (without the program name); returns the exit status.
pub fn main(args: &[String]) -> i32 {
    let cli = match Cli::try_parse_from(
        std::iter::once("gclab").chain(args.iter().map(String::as_str)),
    ) {
        Ok(cli) => cli,
        Err(e) => return parse_error(&e),
    };
    progress::set_quiet(cli.quiet);
    let result = match cli.command {
        None => gclab_core::Scenario::default_preset()
            .map_err(CliError::from)
            .and_then(|sc| open_window(sc, true)),
        Some(Command::Open { file }) => open(&file),
        Some(Command::Presets) => presets(),
        Some(Command::Run(a)) => run::run(&a),
        Some(Command::Sweep(a)) => sweep::main(a),
        Some(Command::Mmu(a)) => mmu::mmu(&a),
        Some(Command::Trace(t)) => trace::trace(t),
        Some(Command::Lesson(l)) => lesson::lesson(l),
        Some(Command::ExportPerfetto(a)) => perfetto::export_perfetto(&a),
        Some(Command::Reproduce(a)) => reproduce::reproduce(&a),
        Some(Command::Completions { shell }) => completions(shell),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            if !e.message.is_empty() {
                let _ = writeln!(std::io::stderr(), "gclab: {}", e.message);
            }
            e.code
        }
    }
}

/// A command line clap refused, in gclab's form: `--help`/`--version` print and exit 0; anything else is one line
/// on stderr naming the argument and what was expected, with the verb's usage, and exit 2.
fn parse_error(e: &clap::Error) -> i32 {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            return 0;
        }
        _ => {}
    }
    let text = |k: ContextKind| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(v)) => Some(v.join(", ")),
        Some(ContextValue::StyledStr(s)) => Some(s.to_string()),
        Some(ContextValue::StyledStrs(v)) => Some(
            v.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        ),
        _ => None,
    };
    let arg = text(ContextKind::InvalidArg).unwrap_or_default();
    let hint = text(ContextKind::SuggestedArg)
        .or_else(|| text(ContextKind::SuggestedSubcommand))
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    // The verb's usage (from the error, or from the help clap rendered in its place) and where its help is.
    let rendered = e.render().to_string();
    let usage_text = text(ContextKind::Usage).or_else(|| {
        rendered.lines().find_map(|l| {
            l.trim()
                .strip_prefix("Usage:")
                .map(|u| format!("Usage: {u}"))
        })
    });
    let usage: Vec<String> = usage_text
        .map(|u| u.split_whitespace().skip(1).map(String::from).collect())
        .unwrap_or_default();
    let path: Vec<&str> = usage
        .iter()
        .map(String::as_str)
        .take_while(|w| !w.starts_with(['[', '<', '-']))
        .collect();
    let one_of = |lead: &str| {
        let names = subcommands_of(&path);
        if names.is_empty() {
            String::new()
        } else {
            format!(" ({lead}{})", names.join(", "))
        }
    };
    let what = match e.kind() {
        ErrorKind::UnknownArgument => format!("unknown option `{arg}`{hint}"),
        ErrorKind::InvalidSubcommand => format!(
            "unknown command `{}`{hint}{}",
            text(ContextKind::InvalidSubcommand).unwrap_or_default(),
            one_of("expected one of ")
        ),
        ErrorKind::MissingRequiredArgument => format!("expected {arg}"),
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            format!("expected a subcommand{}", one_of("one of "))
        }
        _ => {
            // clap's own sentence, on one line.
            let first = rendered.lines().next().unwrap_or("bad arguments");
            first.strip_prefix("error: ").unwrap_or(first).to_string()
        }
    };
    let verb = if path.is_empty() {
        "gclab".to_string()
    } else {
        path.join(" ")
    };
    let usage = if usage.is_empty() {
        String::new()
    } else {
        format!("; usage: {}", usage.join(" "))
    };
    let _ = writeln!(
        std::io::stderr(),
        "gclab: {what}{usage} (see `{verb} --help`)"
    );
    2
}

/// The subcommands of the verb at `path` (`["gclab", "trace"]` → record, import, stats), `help` left out.
fn subcommands_of(path: &[&str]) -> Vec<String> {
    let mut cmd = Cli::command();
    for name in path.iter().skip(1) {
        match cmd.find_subcommand(name) {
            Some(c) => cmd = c.clone(),
            None => return Vec::new(),
        }
    }
    cmd.get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|n| n != "help")
        .collect()
}

/// `gclab open FILE`. What the file is decides how it opens, before any window: a scenario opens as the scenario, a
/// lesson file (a teacher's own, `[[steps]]` in a `.toml`) opens as the lesson, a trace or a GC log opens on the
/// default scenario and is read on the app's loader thread (its errors go to the status bar). Bad input — a bad
/// scenario or lesson, a file of no kind gclab reads (`/etc/passwd`), a path that is not there — is exit 2: its
/// one-line error goes to stderr at once, then — when there is a display — the window opens on the default
/// scenario with the same error in red in its status bar, and gclab exits 2 when the window closes (#19 item 7).
/// Without a display: the error and exit 2, no window.
fn open(path: &str) -> Result<(), CliError> {
    let checked = if gclab_core::lesson::is_lesson_file(std::path::Path::new(path)) {
        gclab_core::lesson::Lesson::load(path)
            .map(|_| None)
            .map_err(|e| CliError::input(e.to_string()))
    } else {
        match gclab_core::input::sniff_arg(path) {
            Ok(gclab_core::InputKind::Scenario) => gclab_core::Scenario::load(path, &[])
                .map(Some)
                .map_err(CliError::from),
            Ok(_) => Ok(None),
            Err(e) => Err(CliError::input(e.to_string())),
        }
    };
    let e = match checked {
        Ok(Some(sc)) => return open_window(sc, false),
        Ok(None) => {
            return gclab_core::Scenario::default_preset()
                .map_err(CliError::from)
                .and_then(|sc| {
                    crate::gui::run_app_opening(sc, Some(path.into()), false)
                        .map_err(|e| CliError::other(format!("cannot open the app: {e}")))
                });
        }
        Err(e) => e,
    };
    if !has_display() {
        return Err(e);
    }
    let _ = writeln!(std::io::stderr(), "gclab: {}", e.message);
    // The app opens the file again, as its Open button does, and shows why it failed; a window that cannot
    // open adds nothing to the error already printed.
    let _ = crate::gui::run_app_opening(
        gclab_core::Scenario::default_preset()?,
        Some(path.into()),
        false,
    );
    Err(CliError::input_reported())
}

/// Whether a window can open: on Linux and the BSDs an X11 or Wayland display is named in the environment
/// (without one, winit fails after probing; a CI job or an ssh session has neither).
fn has_display() -> bool {
    if cfg!(any(target_os = "windows", target_os = "macos")) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// `gclab completions SHELL`: the completion script, from the same definition as the parser.
fn completions(shell: clap_complete::Shell) -> Result<(), CliError> {
    let mut cmd = Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut cmd, "gclab", &mut out);
    out.flush()
        .map_err(|e| CliError::other(format!("stdout: {e}")))
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
