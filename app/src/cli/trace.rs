//! `gclab trace record|import|stats` (DESIGN §5, §7): write a simulated run's objects as a gclab trace, turn a real
//! allocation trace (heaptrack, Elephant Tracks 2, objects CSV) into one, and report a trace's statistics.
//!
//! The output form follows the file name (`.txt` → text, anything else, e.g. `.gctrace` → binary) unless
//! `--text` or `--form text|binary` says otherwise. Input problems exit 2 with one line naming the file, the
//! line or byte offset, and what was expected; a failure to write the output exits 1.

use std::io::Write;
use std::path::Path;

use gclab_core::importers::alloc::{self as import, ImportFormat};
use gclab_core::trace::stats::{self, StatsOptions, TraceStats};
use gclab_core::trace::{Form, TraceError, TraceReader, TraceWriter};
use gclab_core::units::format_bytes;
use gclab_core::{Cancel, RecordError, Scenario, record_scenario};

use super::CliError;
use super::command::{TraceCommand, TraceOutput};
use super::output::write_json;
use super::progress;

/// Runs `gclab trace …`.
pub fn trace(t: TraceCommand) -> Result<(), CliError> {
    match t {
        TraceCommand::Record {
            scenario,
            output,
            overrides,
        } => record_cmd(&scenario, &output, &overrides.set),
        TraceCommand::Import {
            input,
            format,
            output,
        } => import_cmd(&input, format.as_deref(), &output),
        TraceCommand::Stats {
            file,
            json,
            class,
            top,
            suspects,
        } => stats_cmd(
            &file,
            json.as_deref(),
            class,
            top.as_deref(),
            suspects.as_deref(),
        ),
    }
}

fn form_of(o: &TraceOutput) -> Result<Option<Form>, CliError> {
    if o.text {
        return Ok(Some(Form::Text));
    }
    match o.form.as_deref() {
        None => Ok(None),
        Some("text") => Ok(Some(Form::Text)),
        Some("binary") => Ok(Some(Form::Binary)),
        Some(other) => Err(CliError::input(format!(
            "--form: unknown form `{other}` (expected text or binary)"
        ))),
    }
}

fn out_of(o: &TraceOutput) -> Result<String, CliError> {
    if o.out.is_empty() {
        return Err(CliError::input(
            "trace: expected -o FILE, got an empty path",
        ));
    }
    Ok(o.out.clone())
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

fn record_cmd(scenario: &str, o: &TraceOutput, sets: &[String]) -> Result<(), CliError> {
    let out = out_of(o)?;
    let form = form_of(o)?;
    let mut sets = sets.to_vec();
    sets.push("record.layout=true".to_string());
    let sc = Scenario::load(scenario, &sets)?;
    let mut shown = progress::Line::stderr(format!("trace record {}", scenario));
    // The objects' events go to a temporary file as the engine decides them (not kept in memory).
    let (run, objs) = record_scenario(&sc, &Cancel::never(), &mut shown).map_err(|e| match e {
        RecordError::Sim(e) => CliError::input(format!("{}: {e}", scenario)),
        RecordError::Io(e) => CliError::other(format!("{out}: cannot record: {e}")),
    })?;
    shown.finish();
    let path = Path::new(&out);
    let mut w = TraceWriter::create(
        path,
        form,
        &gclab_core::record_header(&run, sc.origin(), sc.seed()),
    )
    .map_err(|e| trace_err(&e, Some(&out)))?;
    let werr = |e: std::io::Error| CliError::other(format!("{out}: cannot write: {e}"));
    let mut shown = progress::Line::stderr(format!("trace record {scenario}: writing"));
    gclab_core::write_recorded(&run, &objs, sc.workload(), &mut w, &mut shown).map_err(werr)?;
    shown.finish();
    let events = w.events();
    w.commit().map_err(werr)?;
    say(&format!(
        "{out}: {} objects, {} collections, {events} events from {}\n",
        objs.objects(),
        run.gc_events.len(),
        sc.origin()
    ))
}

fn import_cmd(input_name: &str, format: Option<&str>, o: &TraceOutput) -> Result<(), CliError> {
    let out = out_of(o)?;
    let input = Path::new(input_name);
    let format = match format {
        Some(f) => ImportFormat::parse(f).ok_or_else(|| {
            CliError::input(format!(
                "--format: unknown format `{f}` (expected heaptrack, et2, objects-csv or gclab)"
            ))
        })?,
        None => gclab_core::input::sniff_alloc_trace(input)
            .map_err(|e| CliError::input(e.to_string()))?,
    };
    let form = form_of(o)?;
    let out_path = Path::new(&out);
    // The output replaces `out` only once complete (an error drops the writer and its temporary file), so the
    // input may be the output itself.
    let read = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let size = std::fs::metadata(import::et2::trace_file(input)).map_or(0, |m| m.len());
    let passes = if format == ImportFormat::Et2 { 2 } else { 1 };
    let shown = progress::Watcher::count(
        format!("trace import {}", input_name),
        size * passes,
        std::sync::Arc::clone(&read),
    );
    let (report, w) = import::import_counted(input_name, input, format, &read, |h| {
        TraceWriter::create(out_path, form, h)
    })
    .map_err(|e| trace_err(&e, Some(&out)))?;
    drop(shown);
    w.commit()
        .map_err(|e| CliError::other(format!("{out}: cannot write: {e}")))?;
    let mut err = std::io::stderr().lock();
    for m in report.warnings.messages() {
        let _ = writeln!(err, "gclab: warning: {}: {m}", input_name);
    }
    let mut text = format!(
        "{out}: {} objects, {} deaths, {} events imported from {} ({})\n",
        report.objects,
        report.deaths,
        report.events,
        input_name,
        format.name()
    );
    for n in &report.notes {
        text += &format!("  note: {n}\n");
    }
    if report.warnings.skipped_lines() > 0 {
        text += &format!(
            "  {} input line(s) skipped (see warnings)\n",
            report.warnings.skipped_lines()
        );
    }
    say(&text)
}

fn stats_cmd(
    file: &str,
    json: Option<&str>,
    class: Option<String>,
    top: Option<&str>,
    suspects: Option<&str>,
) -> Result<(), CliError> {
    let num = |flag: &str, value: Option<&str>, default: usize| -> Result<usize, CliError> {
        match value {
            None => Ok(default),
            Some(v) => v
                .parse::<usize>()
                .map_err(|_| CliError::input(format!("{flag}: expected a count, got `{v}`"))),
        }
    };
    let opts = StatsOptions {
        top: num("--top", top, 10)?,
        suspects: num("--suspects", suspects, 10)?,
        class,
    };
    let reader = TraceReader::open(Path::new(file)).map_err(|e| trace_err(&e, None))?;
    let st = stats::compute(reader, &opts).map_err(|e| trace_err(&e, None))?;
    match json {
        Some(dest) => {
            let mut v = serde_json::to_value(&st).map_err(|e| CliError::other(e.to_string()))?;
            if let Some(o) = v.as_object_mut() {
                o.insert("file".into(), serde_json::Value::String(file.to_string()));
            }
            write_json(dest, &v)
        }
        None => say(&table(file, &st)),
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
