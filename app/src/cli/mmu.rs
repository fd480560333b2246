//! `gclab mmu INPUT [--format auto|pauses-csv|util-csv|jvm|logcat] [--windows 1ms,10ms,...] [--span-ns A,B]
//! [--json PATH|-]`: the exact minimum mutator utilisation of real pause data (DESIGN §5–§6).
//!
//! The input is imported by `gclab_core::importers`, measured by `gclab_core::metrics::mmu` over the observation
//! span (the input's default, or `--span-ns`), at the asked windows (default: log-spaced from 0.1 ms to the
//! span), with the five worst disjoint windows per window. Output is JSON or a table; every input problem is one
//! line naming the file, the line and what was expected, with exit status 2.

use std::io::Write;
use std::path::Path;

use gclab_core::importers::{
    self, Format, Imported, MAX_TIME_NS, PauseSink, PauseSpans, ReportedMmu,
};
use gclab_core::metrics::mmu::{Answers, MmuCurve, WindowUtil, default_windows_ns};
use gclab_core::units::{parse_duration_ns, parse_time_ns};
use serde_json::{Value, json};

use super::CliError;
use super::command::MmuArgs;
use super::output::write_json;
use super::progress;

/// Worst windows reported per window length.
const WORST: usize = 5;

/// The measured MMU of one input.
struct Report {
    input: String,
    format: Format,
    span_ns: (u64, u64),
    names: Vec<String>,
    points: Vec<(u64, WindowUtil)>,
    worst: Vec<(u64, Vec<WindowUtil>)>,
    pauses: usize,
    max_pause_ns: u64,
    warnings: Vec<String>,
    log_mmu: Option<ReportedMmu>,
    /// Concurrent phases logged, and the wall time some phase was running. `[ns]`
    concurrent: (usize, u64),
    /// Heap transitions logged outside pause lines (cycles, concurrent phases).
    heap_changes: usize,
    /// Safepoints logged, and the time they stopped the program in all. `[ns]`
    safepoints: (usize, u64),
}

/// The GC-log format named by `--format` (default: told from the input).
pub fn format_arg(format: Option<&str>) -> Result<Format, CliError> {
    match format {
        Some(f) => Format::parse(f).ok_or_else(|| {
            CliError::input(format!(
                "--format: unknown format `{f}` (expected one of {})",
                Format::NAMES
            ))
        }),
        None => Ok(Format::Auto),
    }
}

/// Runs `gclab mmu`.
pub fn mmu(a: &MmuArgs) -> Result<(), CliError> {
    let format = format_arg(a.format.as_deref())?;
    let windows = a.windows.as_deref().map(parse_windows).transpose()?;
    let span = a.span_ns.as_deref().map(parse_span).transpose()?;
    let report = measure(&a.input, format, windows, span)?;
    match &a.json {
        Some(dest) => write_json(dest, &report.to_json()),
        None => {
            let mut out = std::io::stdout().lock();
            write!(out, "{}", report.table()).map_err(|e| CliError::other(format!("stdout: {e}")))
        }
    }
}

/// `1ms,10ms,0.5s` → windows in ns, in the order given; an empty item (`1ms,,2ms`) is an error.
fn parse_windows(text: &str) -> Result<Vec<u64>, CliError> {
    let items: Vec<&str> = text.split(',').map(str::trim).collect();
    if let Some(i) = items.iter().position(|w| w.is_empty()) {
        return Err(CliError::input(format!(
            "--windows: item {} of `{text}` is empty (expected window lengths with units, e.g. 1ms,10ms,100ms)",
            i + 1
        )));
    }
    items
        .iter()
        .map(|w| parse_duration_ns(w))
        .collect::<Result<Vec<u64>, String>>()
        .map_err(|e| CliError::input(format!("--windows: {e}")))
}

/// `A,B`: the observation span in nanoseconds (a unit may be given: `0,25s`).
fn parse_span(text: &str) -> Result<(u64, u64), CliError> {
    let bad = |why: &str| {
        CliError::input(format!(
            "--span-ns: `{text}` {why} (expected A,B in nanoseconds with A < B, e.g. 0,1000000000)"
        ))
    };
    let (a, b) = text
        .split_once(',')
        .ok_or_else(|| bad("is not two values"))?;
    let one = |v: &str| parse_time_ns(v).map_err(|e| bad(&format!("is not a time: {e}")));
    let (a, b) = (one(a)?, one(b)?);
    if b <= a {
        return Err(bad("is empty or reversed"));
    }
    Ok((a, b))
}

/// Imports the GC log or pause CSV `input` into the sink `S`, with a progress line (`VERB INPUT`) on big inputs:
/// the one import path of `gclab mmu` and `gclab export-perfetto`.
pub(super) fn import_log<S: PauseSink>(
    verb: &str,
    input: &str,
    format: Format,
) -> Result<(Format, Imported<S>), CliError> {
    let (read, shown) = progress::watch_file(verb, input);
    let imported =
        importers::import_file_as::<S>(Path::new(input), format, read, std::sync::Arc::default())
            .map_err(|e| CliError::input(e.to_string()));
    drop(shown);
    imported
}

/// Imports `input` and measures it.
fn measure(
    input: &str,
    format: Format,
    windows: Option<Vec<u64>>,
    span: Option<(u64, u64)>,
) -> Result<Report, CliError> {
    // `--format auto`: what the file is comes from `gclab_core::input` (another kind is an error saying so).
    let format = match format {
        Format::Auto => gclab_core::input::sniff_gc_log(Path::new(input))
            .map_err(|e| CliError::input(e.to_string()))?,
        f => f,
    };
    // Only the pauses' times and mutators are kept (24 bytes a pause): the MMU needs nothing else.
    let (format, mut data) = import_log::<PauseSpans>("mmu", input, format)?;
    let data_span_ns = data.default_span_ns();
    let mut warnings = data.warnings().messages();
    // A GC log says which time it covers (its lines' time stamps from the process's start): a span reaching past
    // that would count unobserved time as the program running (a wrong, too-high MMU at long windows), so it is
    // clamped to the log and the output says so (#21 item 3). A pause or utilisation CSV lists only the pauses (or
    // steps): there the observation span is the user's to give, as Go's traces do, and it is taken as given.
    let span_ns = match span {
        None => data_span_ns,
        Some((a, b))
            if matches!(format, Format::Jvm | Format::Logcat)
                && (a < data_span_ns.0 || b > data_span_ns.1) =>
        {
            let clamped = (a.max(data_span_ns.0), b.min(data_span_ns.1));
            if clamped.1 <= clamped.0 {
                return Err(CliError::input(format!(
                    "{input}: --span-ns {a},{b} does not overlap the data, which covers [{}, {}] ns",
                    data_span_ns.0, data_span_ns.1
                )));
            }
            warnings.push(format!(
                "--span-ns {a},{b} reaches beyond the data, which covers [{}, {}] ns: clamped to [{}, {}] ns",
                data_span_ns.0, data_span_ns.1, clamped.0, clamped.1
            ));
            clamped
        }
        Some(s) => s,
    };
    if span_ns.1 <= span_ns.0 {
        return Err(CliError::input(format!(
            "{input}: the observation span [{}, {}] ns is empty (expected pauses ending after time 0, or --span-ns A,B)",
            span_ns.0, span_ns.1
        )));
    }
    let windows = windows.unwrap_or_else(|| default_windows_ns(span_ns.1 - span_ns.0));
    let stats = data.pause_stats(span_ns);
    let names = match &data {
        Imported::Pauses(p) => p.mutators.clone(),
        Imported::Util(u) => u.names.clone(),
    };
    let (concurrent, heap_changes, safepoints) = match &data {
        Imported::Pauses(p) => (
            p.concurrent_stats(),
            p.heap_change_count(),
            p.safepoint_stats(),
        ),
        Imported::Util(_) => ((0, 0), 0, (0, 0)),
    };
    let log_mmu = data.reported_mmu().last().cloned();
    // The exact MMU works below MAX_TIME_NS (as `Imported::util_series` clamps).
    let clamped = (span_ns.0.min(MAX_TIME_NS), span_ns.1.min(MAX_TIME_NS));
    let no_overlap = || {
        let (a, b) = data_span_ns;
        CliError::input(format!(
            "{input}: --span-ns {},{} does not overlap the data, which covers [{a}, {b}] ns",
            span_ns.0, span_ns.1
        ))
    };
    // A pause CSV's steps were made while its rows were read: taken when they stand for this span (the same curve,
    // bit for bit, as either way below makes; a temporary-file error leaves the pauses in memory to the way below).
    let live = match &mut data {
        Imported::Pauses(p) if clamped.1 > clamped.0 && p.pauses.error().is_none() => {
            match p.pauses.take_live_curve(p.mutators.len(), clamped) {
                Some(Err(e)) if p.pauses.on_disk() => {
                    return Err(CliError::other(format!("{input}: {e}")));
                }
                made => made.and_then(Result::ok),
            }
        }
        _ => None,
    };
    let series;
    // The imported data are taken by the match and freed before the queries, so the two never count together: the
    // pauses (with their kinds, causes and heap figures) are not needed for the MMU, and a utilisation CSV's steps
    // become the curve's without a copy where the span covers them.
    let curve: MmuCurve<'_> = match (live, data) {
        (Some(curve), _) => curve,
        // More pauses than memory should hold (the sink spilled them): sorted and measured on disk, the same MMU.
        (None, Imported::Pauses(p)) if p.pauses.on_disk() => {
            if let Some(e) = p.pauses.error() {
                return Err(CliError::other(format!("{input}: {e}")));
            }
            if clamped.1 <= clamped.0 {
                return Err(no_overlap());
            }
            MmuCurve::from_pauses_on_disk(|| p.pauses.spans(), p.mutators.len(), clamped)
                .map_err(|e| CliError::other(format!("{input}: {e}")))?
        }
        // A utilisation CSV's steps (on disk beyond a few thousand a series) are clipped and measured in order.
        (None, Imported::Util(u)) => {
            let temp = |e: std::io::Error| CliError::other(format!("{input}: {e}"));
            let steps = u.into_clipped(span_ns).map_err(temp)?;
            if steps.iter().all(|s| s.len() < 2) {
                return Err(no_overlap());
            }
            MmuCurve::from_steps(steps).map_err(temp)?
        }
        (None, data) => {
            series = data.util_series(span_ns);
            if series.iter().all(|s| s.times.len() < 2) {
                return Err(no_overlap());
            }
            MmuCurve::new(&series)
        }
    };
    let Answers { mmu: points, worst } = curve.answer_on_cores(&windows, WORST);
    if let Some(e) = curve.error() {
        return Err(CliError::other(format!("{input}: {e}")));
    }
    Ok(Report {
        input: input.to_string(),
        format,
        span_ns,
        names,
        points,
        worst,
        pauses: stats.pauses,
        max_pause_ns: stats.max_pause_ns,
        warnings,
        log_mmu,
        concurrent,
        heap_changes,
        safepoints,
    })
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

impl Report {
    fn to_json(&self) -> Value {
        let many = self.names.len() > 1;
        let worst: Vec<Value> = self
            .worst
            .iter()
            .flat_map(|(w, list)| {
                list.iter().enumerate().map(move |(i, x)| {
                    let mut v = json!({
                        "window_ms": ms(*w),
                        "rank": i + 1,
                        "start_ns": x.start_ns,
                        "utilization": x.utilization,
                    });
                    if many {
                        v["series"] = json!(self.names.get(x.series).cloned().unwrap_or_default());
                    }
                    v
                })
            })
            .collect();
        let mut v = json!({
            "input": self.input,
            "format": self.format.name(),
            "span_ns": [self.span_ns.0, self.span_ns.1],
            "mutators": self.names.len(),
            "mmu": self.points.iter().map(|(w, x)| json!({"window_ms": ms(*w), "utilization": x.utilization})).collect::<Vec<_>>(),
            "max_pause_ms": ms(self.max_pause_ns),
            "pauses": self.pauses,
            "worst": worst,
            "concurrent_phases": self.concurrent.0,
            "concurrent_ms": ms(self.concurrent.1),
            "heap_transitions_outside_pauses": self.heap_changes,
            "safepoints": self.safepoints.0,
            "safepoint_ms": ms(self.safepoints.1),
            "warnings": self.warnings,
        });
        if let Some(r) = &self.log_mmu {
            v["log_mmu"] = json!({
                "line": r.line,
                "gc_id": r.gc_id,
                "time_ns": r.time_ns,
                "mmu": r.points.iter().map(|(w, pct)| json!({"window_ms": ms(*w), "utilization": pct / 100.0})).collect::<Vec<_>>(),
            });
        }
        v
    }

    fn table(&self) -> String {
        let mut s = format!(
            "{}: {}, {} pauses, {} mutator{}, span {} – {}, longest pause {}\n\n",
            self.input,
            self.format.name(),
            self.pauses,
            self.names.len(),
            if self.names.len() == 1 { "" } else { "s" },
            duration(self.span_ns.0),
            duration(self.span_ns.1),
            duration(self.max_pause_ns),
        );
        if self.safepoints.0 > 0 {
            s += &format!(
                "{} safepoints, stopping the program {} in all (GC and other VM operations)\n",
                self.safepoints.0,
                duration(self.safepoints.1)
            );
        }
        if self.concurrent.0 > 0 {
            s += &format!(
                "{} concurrent phases, running {} of the span; {} heap transitions outside pauses\n\n",
                self.concurrent.0,
                duration(self.concurrent.1),
                self.heap_changes
            );
        }
        s += &format!("{:>12}  {:>8}  {:>16}\n", "window", "MMU", "worst at");
        for ((w, x), (_, worst)) in self.points.iter().zip(&self.worst) {
            let at = worst.first().map_or(x.start_ns, |w| w.start_ns);
            s += &format!(
                "{:>12}  {:>8.4}  {:>16}\n",
                duration(*w),
                x.utilization,
                duration(at)
            );
        }
        if let Some(r) = &self.log_mmu {
            let pts: Vec<String> = r
                .points
                .iter()
                .map(|(w, p)| format!("{}/{p:.1}%", duration(*w)))
                .collect();
            s += &format!(
                "\nMMU logged by the runtime (line {}): {}\n",
                r.line,
                pts.join(", ")
            );
        }
        if !self.warnings.is_empty() {
            s += "\nwarnings:\n";
            for w in &self.warnings {
                s += &format!("  {w}\n");
            }
        }
        s
    }
}

/// `0.1 ms`, `2.5 s`, `750 ns`.
fn duration(ns: u64) -> String {
    let v = ns as f64;
    match ns {
        0 => "0".into(),
        n if n < 1_000 => format!("{n} ns"),
        n if n < 1_000_000 => format!("{} us", trim(v / 1e3)),
        n if n < 1_000_000_000 => format!("{} ms", trim(v / 1e6)),
        _ => format!("{} s", trim(v / 1e9)),
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse() {
        assert_eq!(
            parse_windows("1ms, 10ms,0.5s").unwrap(),
            vec![1_000_000, 10_000_000, 500_000_000],
            "windows"
        );
        assert!(
            parse_windows("10xs")
                .unwrap_err()
                .message
                .starts_with("--windows: unknown duration unit"),
            "unit"
        );
        assert_eq!(parse_span("0,25s").unwrap(), (0, 25_000_000_000), "span");
        assert!(parse_span("5,5").is_err(), "empty span");
        assert_eq!(duration(100_000), "100 us", "format");
        assert_eq!(duration(2_500_000_000), "2.5 s", "format");
    }
}
