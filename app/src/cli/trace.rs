//! `gclab trace record|import|stats` (DESIGN §5, §7): write a simulated run's objects as a gclab trace, turn a real
//! allocation trace (heaptrack, Elephant Tracks 2, objects CSV) into one, and report a trace's statistics.
//!
//! The output form follows the file name (`.txt` → text, anything else, e.g. `.gctrace` → binary) unless
//! `--text` or `--form text|binary` says otherwise. Input problems exit 2 with one line naming the file, the
//! line or byte offset, and what was expected; a failure to write the output exits 1.

use std::io::Write;
use std::path::Path;

use gclab_core::trace::import::{self, ImportFormat};
use gclab_core::trace::stats::{self, StatsOptions, TraceStats};
use gclab_core::trace::{Form, TraceError, TraceReader, TraceWriter, record};
use gclab_core::units::format_bytes;
use gclab_core::{Cancel, Scenario, simulate};

use super::output::write_json;
use super::progress;
use super::{Args, CliError};

const USAGE: &str = "usage: gclab trace record SCENARIO -o FILE [--set K=V]... [--text] | \
                     gclab trace import INPUT [--format heaptrack|et2|objects-csv] -o FILE [--text] | \
                     gclab trace stats FILE [--json PATH|-] [--class NAME] [--top N]";

/// Runs `gclab trace …` on `args` (everything after `trace`).
pub fn trace(args: &[String]) -> Result<(), CliError> {
    let rest = normalize(args.get(1..).unwrap_or(&[]));
    match args.first().map(String::as_str) {
        Some("record") => record_cmd(&parse(&rest, &["--out", "--set", "--form"], "SCENARIO")?),
        Some("import") => import_cmd(&parse(&rest, &["--out", "--format", "--form"], "INPUT")?),
        Some("stats") => stats_cmd(&parse(
            &rest,
            &["--json", "--class", "--top", "--suspects"],
            "FILE",
        )?),
        Some(other) => Err(CliError::input(format!(
            "trace: unknown subcommand `{other}` (expected record, import or stats); {USAGE}"
        ))),
        None => Err(CliError::input(format!(
            "trace: expected a subcommand (record, import or stats); {USAGE}"
        ))),
    }
}

/// `-o X` → `--out X`, `--output` → `--out`, `--text` → `--form text`.
fn normalize(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    for a in args {
        match a.as_str() {
            "-o" | "--output" => out.push("--out".to_string()),
            "--text" => {
                out.push("--form".to_string());
                out.push("text".to_string());
            }
            _ => match a
                .strip_prefix("-o=")
                .or_else(|| a.strip_prefix("--output="))
            {
                Some(v) => out.push(format!("--out={v}")),
                None => out.push(a.clone()),
            },
        }
    }
    out
}

/// The shared parser, with a message naming what the positional argument is.
fn parse(args: &[String], allowed: &[&str], what: &str) -> Result<Args, CliError> {
    let mut positionals = 0;
    let mut i = 0;
    while i < args.len() {
        if args[i].starts_with("--") {
            // A flag's value follows it unless given inline.
            i += usize::from(!args[i].contains('='));
        } else {
            positionals += 1;
        }
        i += 1;
    }
    if positionals == 0 {
        return Err(CliError::input(format!(
            "trace: expected a {what}; {USAGE}"
        )));
    }
    Args::parse(args, allowed)
}

fn form_of(a: &Args) -> Result<Option<Form>, CliError> {
    match a.last("--form").as_deref() {
        None => Ok(None),
        Some("text") => Ok(Some(Form::Text)),
        Some("binary") => Ok(Some(Form::Binary)),
        Some(other) => Err(CliError::input(format!(
            "--form: unknown form `{other}` (expected text or binary)"
        ))),
    }
}

fn out_of(a: &Args) -> Result<String, CliError> {
    a.last("--out")
        .filter(|o| !o.is_empty())
        .ok_or_else(|| CliError::input(format!("trace: expected -o FILE; {USAGE}")))
}

/// A trace error: the output's failures exit 1, everything else is bad input (2).
fn trace_err(e: &TraceError, out: Option<&str>) -> CliError {
    if e.writing || out.is_some_and(|o| o == e.file) {
        CliError::other(e.to_string())
    } else {
        CliError::input(e.to_string())
    }
}

fn say(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    write!(out, "{text}").map_err(|e| CliError::other(format!("stdout: {e}")))
}

fn record_cmd(a: &Args) -> Result<(), CliError> {
    let out = out_of(a)?;
    let mut sets = a.all("--set");
    sets.push("record.layout=true".to_string());
    let sc = Scenario::load(&a.input, &sets)?;
    let mut shown = progress::Line::stderr(format!("trace record {}", a.input));
    let run = simulate(&sc, &Cancel::never(), &mut shown)
        .map_err(|e| CliError::input(format!("{}: {e}", a.input)))?;
    shown.finish();
    let path = Path::new(&out);
    let mut w = TraceWriter::create(path, form_of(a)?, &record::header(&run, &sc))
        .map_err(|e| trace_err(&e, Some(&out)))?;
    let werr = |e: std::io::Error| CliError::other(format!("{out}: cannot write: {e}"));
    record::write_run(&run, &sc, &mut w).map_err(werr)?;
    let events = w.events();
    w.commit().map_err(werr)?;
    say(&format!(
        "{out}: {} objects, {} collections, {events} events from {}\n",
        run.layout.objects.len(),
        run.gc_events.len(),
        sc.origin()
    ))
}

fn import_cmd(a: &Args) -> Result<(), CliError> {
    let out = out_of(a)?;
    let input = Path::new(&a.input);
    let format = match a.last("--format") {
        Some(f) => ImportFormat::parse(&f).ok_or_else(|| {
            CliError::input(format!(
                "--format: unknown format `{f}` (expected heaptrack, et2, objects-csv or gclab)"
            ))
        })?,
        None => import::detect(&a.input, input).map_err(|e| trace_err(&e, None))?,
    };
    let form = form_of(a)?;
    let out_path = Path::new(&out);
    // The output replaces `out` only once complete (an error drops the writer and its temporary file), so the
    // input may be the output itself.
    let read = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let size = std::fs::metadata(import::et2::trace_file(input)).map_or(0, |m| m.len());
    let passes = if format == ImportFormat::Et2 { 2 } else { 1 };
    let shown = progress::Watcher::count(
        format!("trace import {}", a.input),
        size * passes,
        std::sync::Arc::clone(&read),
    );
    let (report, w) = import::import_counted(&a.input, input, format, &read, |h| {
        TraceWriter::create(out_path, form, h)
    })
    .map_err(|e| trace_err(&e, Some(&out)))?;
    drop(shown);
    w.commit()
        .map_err(|e| CliError::other(format!("{out}: cannot write: {e}")))?;
    let mut err = std::io::stderr().lock();
    for m in report.warnings.messages() {
        let _ = writeln!(err, "gclab: warning: {}: {m}", a.input);
    }
    let mut text = format!(
        "{out}: {} objects, {} deaths, {} events imported from {} ({})\n",
        report.objects,
        report.deaths,
        report.events,
        a.input,
        format.name()
    );
    for n in &report.notes {
        text += &format!("  note: {n}\n");
    }
    if report.warnings.total() > 0 {
        text += &format!(
            "  {} input line(s) skipped (see warnings)\n",
            report.warnings.total()
        );
    }
    say(&text)
}

fn stats_cmd(a: &Args) -> Result<(), CliError> {
    let num = |flag: &str, default: usize| -> Result<usize, CliError> {
        match a.last(flag) {
            None => Ok(default),
            Some(v) => v
                .parse::<usize>()
                .map_err(|_| CliError::input(format!("{flag}: expected a count, got `{v}`"))),
        }
    };
    let opts = StatsOptions {
        top: num("--top", 10)?,
        suspects: num("--suspects", 10)?,
        class: a.last("--class"),
    };
    let reader = TraceReader::open(Path::new(&a.input)).map_err(|e| trace_err(&e, None))?;
    let st = stats::compute(reader, &opts).map_err(|e| trace_err(&e, None))?;
    match a.last("--json") {
        Some(dest) => {
            let mut v = serde_json::to_value(&st).map_err(|e| CliError::other(e.to_string()))?;
            if let Some(o) = v.as_object_mut() {
                o.insert("file".into(), serde_json::Value::String(a.input.clone()));
            }
            write_json(&dest, &v)
        }
        None => say(&table(&a.input, &st)),
    }
}

fn share(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

/// The human-readable report.
fn table(file: &str, s: &TraceStats) -> String {
    let mut o = file.to_string();
    if !s.source.is_empty() {
        o += &format!(" — {}", s.source);
    }
    o += &format!(
        "\n  objects      {} ({} allocated), {} never freed\n",
        s.objects,
        format_bytes(s.allocated_bytes),
        s.never_freed
    );
    o += &format!(
        "  peak live    {} ({} bytes) after event {} at t={} {}\n",
        format_bytes(s.peak_live_bytes),
        s.peak_live_bytes,
        s.peak_at_event,
        s.peak_at_t,
        s.time_unit
    );
    o += &format!(
        "  events       {} ({} deaths, {} moves, {} accesses, {} collections), t {}..{} {}\n",
        s.events, s.deaths, s.moves, s.accesses, s.gc_cycles, s.t_first, s.t_last, s.time_unit
    );
    if s.inconsistent_events > 0 {
        o += &format!(
            "  inconsistent {} events (alloc of a live id, or death/move/access of an unknown id)\n",
            s.inconsistent_events
        );
    }
    let hist = |o: &mut String, title: &str, h: &[stats::HistBucket]| {
        *o += &format!(
            "\n{title}\n  {:>24}  {:>10}  {:>12}\n",
            "lifetime", "objects", "bytes"
        );
        for b in h.iter().filter(|b| b.objects > 0) {
            *o += &format!(
                "  {:>24}  {:>10}  {:>12}\n",
                format!("[{}, {})", b.min, b.max),
                b.objects,
                b.bytes
            );
        }
    };
    hist(
        &mut o,
        "lifetimes of dead objects, in bytes allocated",
        &s.lifetime_bytes_histogram,
    );
    if let Some(h) = &s.lifetime_gc_epochs_histogram {
        hist(&mut o, "lifetimes of dead objects, in GC epochs", h);
    }
    let rows = |o: &mut String, title: &str, rows: &[stats::GroupRow]| {
        *o += &format!(
            "\n{title}\n  {:>10} {:>8} {:>12} {:>16} {:>8}  name\n",
            "objects", "share", "bytes", "mean life [B]", "live"
        );
        for r in rows {
            *o += &format!(
                "  {:>10} {:>8} {:>12} {:>16.1} {:>8}  {}\n",
                r.objects,
                share(r.object_share),
                r.bytes,
                r.mean_lifetime_bytes,
                r.never_freed,
                r.name
            );
        }
    };
    rows(&mut o, "top allocation sites", &s.top_sites);
    rows(&mut o, "top classes", &s.top_classes);
    if s.leak_suspects.is_empty() {
        o += "\nleak suspects: none (no object outlives the trace unused)\n";
    } else {
        o += &format!(
            "\nleak suspects (staleness × size)\n  {:>12} {:>10} {:>14}  site / type\n",
            "id", "size", "stale [B]"
        );
        for l in &s.leak_suspects {
            o += &format!(
                "  {:>12} {:>10} {:>14}  {} / {}\n",
                l.id, l.size_bytes, l.staleness_bytes, l.site, l.type_name
            );
        }
    }
    if let Some(tl) = &s.class_timeline {
        o += &format!(
            "\nclass {} over time: {} objects\n  {:>22} {:>10} {:>10} {:>12}\n",
            tl.class, tl.objects, "t", "allocated", "died", "live bytes"
        );
        for b in tl
            .buckets
            .iter()
            .filter(|b| b.allocated_objects + b.died_objects > 0)
        {
            o += &format!(
                "  {:>22} {:>10} {:>10} {:>12}\n",
                format!("[{}, {})", b.t_start, b.t_end),
                b.allocated_objects,
                b.died_objects,
                b.live_bytes
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_flags_are_normalized() {
        let v: Vec<String> = ["x", "-o", "f", "--text", "-o=g"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            normalize(&v),
            vec!["x", "--out", "f", "--form", "text", "--out=g"],
            "normalized"
        );
    }
}
