//! `gclab export-perfetto SCENARIO|FILE -o OUT.json [--set K=V]... [--format auto|jvm|logcat|pauses-csv]`:
//! Chrome trace-event JSON (the `{"traceEvents": [...]}` object form) that the Perfetto UI and chrome://tracing
//! open. Complete slices (`ph: "X"`) for collections on a `GC` thread and for pauses on one thread per mutator;
//! counters (`ph: "C"`) for heap occupancy and, when the input has one, CPU frequency; thread and process names
//! as metadata (`ph: "M"`). Timestamps are microseconds; a trace with a logical clock (cycles, records, bytes)
//! maps one unit to one microsecond and says so in `otherData`.
//!
//! The input is a scenario (`preset:NAME` or a `.toml` file: simulated, then exported), a gclab trace (its
//! `gc_start`/`gc_end` pairs and live bytes after its events), or a GC log or pause CSV (pauses with kind and
//! cause, heap before/after). Counter series are thinned to at most [`MAX_COUNTER_POINTS`] points (each keeps
//! the highest value of its stretch, so peaks survive).
//!
//! Memory is bounded for logs (issue 21, item 4): the importer keeps the pauses in [`PauseRecords`] (a temporary
//! file beyond 65536 pauses), they are read back in runs and formatted on every core (`log_pauses`), and the heap
//! counter is thinned on the fly ([`HeapThinner`]: equal to thinning the time-sorted list whenever no heap point comes more than
//! 65536 places late). A trace is read once, holding its live objects' sizes and at most 4 × [`MAX_COUNTER_POINTS`]
//! points. A scenario is simulated first and exported from its [`Run`]. The JSON is written through an
//! [`AtomicFile`] as it is produced.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::Path;

use gclab_core::importers::{Format, Imported, PauseRecords};
use gclab_core::input::{self, InputKind};
use gclab_core::io::AtomicFile;
use gclab_core::io::reorder::Reorder;
use gclab_core::trace::reader::CountingRead;
use gclab_core::trace::{Event, Table, TraceReader};
use gclab_core::{Cancel, Run, Scenario, simulate};
use serde::Serialize;
use serde_json::{Value, json};

use super::command::PerfettoArgs;

mod json_out;
mod log_pauses;
use super::{CliError, progress};

/// Most points per counter series.
pub const MAX_COUNTER_POINTS: usize = 20_000;
const PID: u64 = 1;
const GC_TID: u64 = 1;
const MUTATOR_TID: u64 = 100;
/// Thread ids of the per-core tracks (android-krait).
const CORE_TID: u64 = 10_000;

/// Streams trace events into the output file, which replaces `path` only when finished ([`AtomicFile`]).
struct Out {
    w: BufWriter<AtomicFile>,
    path: String,
    first: bool,
    events: u64,
}

impl Out {
    fn create(path: &str) -> Result<Out, CliError> {
        let f = AtomicFile::create(Path::new(path))
            .map_err(|e| CliError::other(format!("{path}: cannot create: {e}")))?;
        let mut o = Out {
            // 1 MiB writes: a pause CSV's export is 4.5 GB of JSON, 550 k system calls at the default 8 KiB.
            w: BufWriter::with_capacity(1 << 20, f),
            path: path.to_string(),
            first: true,
            events: 0,
        };
        o.raw("{\"traceEvents\":[\n")?;
        Ok(o)
    }

    fn raw(&mut self, s: &str) -> Result<(), CliError> {
        self.w
            .write_all(s.as_bytes())
            .map_err(|e| CliError::other(format!("{}: cannot write: {e}", self.path)))
    }

    /// Writes one event; serialised straight into the file (a `Value` per pause costs more than the rest of
    /// the export: its maps and strings are allocated and freed per event).
    fn ev<V: Serialize + ?Sized>(&mut self, v: &V) -> Result<(), CliError> {
        self.next_event()?;
        serde_json::to_writer(&mut self.w, v)
            .map_err(|e| CliError::other(format!("{}: cannot write: {e}", self.path)))
    }

    /// Counts one more event and writes the separator before it.
    fn next_event(&mut self) -> Result<(), CliError> {
        let sep = if self.first { "" } else { ",\n" };
        self.first = false;
        self.events += 1;
        self.raw(sep)
    }

    fn thread(&mut self, tid: u64, name: &str) -> Result<(), CliError> {
        self.ev(&thread_event(tid, name))
    }

    fn slice<A: Serialize + ?Sized>(
        &mut self,
        tid: u64,
        name: &str,
        ts_us: f64,
        dur_us: f64,
        args: &A,
    ) -> Result<(), CliError> {
        self.ev(&SliceEvent {
            args,
            cat: "gc",
            dur: dur_us.max(0.0),
            name,
            ph: "X",
            pid: PID,
            tid,
            ts: ts_us,
        })
    }

    /// Writes `events` events formatted elsewhere: `bytes` holds each after its `,\n` separator (the first
    /// event of the file has none).
    fn events_raw(&mut self, bytes: &[u8], events: u64) -> Result<(), CliError> {
        let bytes = match (self.first, events) {
            (_, 0) => return Ok(()),
            (true, _) => bytes.get(2..).unwrap_or_default(),
            (false, _) => bytes,
        };
        self.first = false;
        self.events += events;
        self.w
            .write_all(bytes)
            .map_err(|e| CliError::other(format!("{}: cannot write: {e}", self.path)))
    }

    fn counter<A: Serialize + ?Sized>(
        &mut self,
        name: &str,
        ts_us: f64,
        args: &A,
    ) -> Result<(), CliError> {
        self.ev(&CounterEvent {
            args,
            name,
            ph: "C",
            pid: PID,
            ts: ts_us,
        })
    }

    fn finish(mut self, process: &str, other: &Value) -> Result<u64, CliError> {
        self.ev(&json!({"name": "process_name", "ph": "M", "pid": PID, "tid": 0, "args": {"name": process}}))?;
        let tail = json!({"displayTimeUnit": "ns", "otherData": other});
        let tail = serde_json::to_string(&tail).map_err(|e| CliError::other(e.to_string()))?;
        // `{"displayTimeUnit":…}` → `],"displayTimeUnit":…}`
        self.raw(&format!("\n],{}", &tail[1..]))?;
        let path = self.path;
        self.w
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)
            .and_then(AtomicFile::commit)
            .map_err(|e| CliError::other(format!("{path}: cannot write: {e}")))?;
        Ok(self.events)
    }
}

/// The metadata event naming track `tid` (`ph: "M"`, `thread_name`).
fn thread_event(tid: u64, name: &str) -> Value {
    json!({"name": "thread_name", "ph": "M", "pid": PID, "tid": tid, "args": {"name": name}})
}

/// A complete slice (`ph: "X"`). Fields in the order of their names, as `serde_json`'s map (a `BTreeMap`)
/// writes an event built with `json!`: the output is byte for byte what it was.
#[derive(Serialize)]
struct SliceEvent<'a, A: ?Sized> {
    args: &'a A,
    cat: &'static str,
    dur: f64,
    name: &'a str,
    ph: &'static str,
    pid: u64,
    tid: u64,
    ts: f64,
}

/// A counter (`ph: "C"`), fields in name order as [`SliceEvent`]'s.
#[derive(Serialize)]
struct CounterEvent<'a, A: ?Sized> {
    args: &'a A,
    name: &'a str,
    ph: &'static str,
    pid: u64,
    ts: f64,
}

/// A logged pause's arguments, in name order; what the log does not give is left out (a `null` per field was
/// half of a pause CSV's 4.5 GB export).
#[derive(Serialize)]
struct PauseArgs<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gc_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heap_after_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heap_before_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heap_total_bytes: Option<u64>,
    line: usize,
}

/// A heap counter's arguments, in name order (no committed size when the log gives none).
#[derive(Serialize)]
struct HeapArgs {
    #[serde(skip_serializing_if = "Option::is_none")]
    committed_bytes: Option<u64>,
    used_bytes: u64,
}

/// Thins `points` (time-ordered) to at most `MAX_COUNTER_POINTS`, keeping each stretch's highest value (by
/// `key`).
fn thin<T: Copy>(points: &[T], key: impl Fn(&T) -> u64) -> Vec<T> {
    thin_in_order(points.len(), points.iter().copied(), key)
}

/// [`thin`] of the `len` points `points` yields, as they come (holding only the kept ones).
fn thin_in_order<T: Copy>(
    len: usize,
    points: impl Iterator<Item = T>,
    key: impl Fn(&T) -> u64,
) -> Vec<T> {
    let stride = len.div_ceil(MAX_COUNTER_POINTS).max(1);
    let mut kept = Vec::with_capacity(len.min(MAX_COUNTER_POINTS));
    let (mut best, mut in_stretch): (Option<T>, usize) = (None, 0);
    for p in points {
        // The highest of a stretch, the last of equals (as `max_by_key`).
        best = match best {
            Some(b) if key(&b) > key(&p) => Some(b),
            _ => Some(p),
        };
        in_stretch += 1;
        if in_stretch == stride {
            kept.extend(best.take());
            in_stretch = 0;
        }
    }
    kept.extend(best);
    kept
}

/// Runs `gclab export-perfetto`.
pub fn export_perfetto(a: &PerfettoArgs) -> Result<(), CliError> {
    let out = a.out.clone();
    if out.is_empty() {
        return Err(CliError::input(
            "export-perfetto: expected -o OUT.json, got an empty path",
        ));
    }
    let input = a.input.as_str();
    // What the input is comes from `gclab_core::input` (name and content, compressed or not): a gclab trace's
    // problems are reported as a trace's, never re-read as a GC log. `--format` names a GC log's format.
    let format = super::mmu::format_arg(a.format.as_deref())?;
    let kind = match input::sniff_arg(input) {
        Ok(k @ (InputKind::Scenario | InputKind::Trace(_))) => k,
        _ if format != Format::Auto => InputKind::GcLog(format),
        sniffed => sniffed.map_err(|e| CliError::input(e.to_string()))?,
    };
    let (events, what) = match kind {
        InputKind::Scenario => {
            let sc = Scenario::load(input, &a.overrides.set)?;
            let mut shown = progress::Line::stderr(format!("export-perfetto {input}"));
            let run = simulate(&sc, &Cancel::never(), &mut shown)
                .map_err(|e| CliError::input(format!("{input}: {e}")))?;
            shown.finish();
            (export_run(&out, &sc, &run)?, "scenario")
        }
        InputKind::Trace(_) => {
            let (read, shown) = progress::watch_file("export-perfetto", input);
            let f = std::fs::File::open(input)
                .map_err(|e| CliError::input(format!("{input}: cannot open: {e}")))?;
            let r = TraceReader::from_read(input, Box::new(CountingRead::new(f, read)))
                .map_err(|e| CliError::input(e.to_string()))?;
            (export_trace(&out, input, r, shown)?, "gclab trace")
        }
        InputKind::GcLog(format) => {
            // Every field of every pause is kept, in a temporary file beyond a few MB ([`PauseRecords`]).
            let (_, data) =
                super::mmu::import_log::<PauseRecords>("export-perfetto", input, format)?;
            (export_log(&out, input, &data)?, "GC log")
        }
        InputKind::AllocTrace(f) => {
            return Err(CliError::input(format!(
                "{input}: this is a {} allocation trace: expected a scenario, a gclab trace or a GC log \
                 (import it first: gclab trace import {input} -o OUT.gctrace)",
                f.name()
            )));
        }
    };
    let mut so = std::io::stdout().lock();
    writeln!(so, "{out}: {events} trace events from {input} ({what})")
        .map_err(|e| CliError::other(format!("stdout: {e}")))
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

fn name_of<T: serde::Serialize>(v: T) -> String {
    gclab_core::variant_name(&v).unwrap_or_default()
}

fn export_run(out: &str, sc: &Scenario, run: &Run) -> Result<u64, CliError> {
    let mut o = Out::create(out)?;
    o.thread(GC_TID, "GC")?;
    for g in &run.gc_events {
        o.slice(
            GC_TID,
            &format!("GC ({})", name_of(g.trigger)),
            us(g.start.0),
            us(g.end.0 - g.start.0),
            &json!({"trigger": name_of(g.trigger), "heap_bytes_before": g.heap_bytes_before,
                "live_bytes_after": g.live_bytes_after, "freed_bytes": g.freed_bytes,
                "moved_bytes": g.moved_bytes, "work_cycles": g.work_cycles}),
        )?;
    }
    let mut named = std::collections::BTreeSet::new();
    for p in &run.pauses {
        let tid = MUTATOR_TID + u64::from(p.mutator);
        if named.insert(tid) {
            o.thread(tid, &format!("mutator {}", p.mutator))?;
        }
        o.slice(
            tid,
            &format!("pause ({})", name_of(p.kind)),
            us(p.start.0),
            us(p.end.0 - p.start.0),
            &json!({"kind": name_of(p.kind)}),
        )?;
    }
    for s in thin(&run.occupancy, |s| s.live_bytes + s.dead_bytes) {
        o.counter(
            "heap",
            us(s.time.0),
            &json!({"live_bytes": s.live_bytes, "dead_bytes": s.dead_bytes}),
        )?;
    }
    if let Some(cpu) = &run.cpu {
        export_cores(&mut o, run, cpu)?;
    } else {
        // kvm-soc: one core at one clock for the whole run.
        let mhz = sc.file().kvm.clock_hz as f64 / 1e6;
        for t in [0, run.duration.0] {
            o.counter("cpu0 frequency", us(t), &json!({"MHz": mhz}))?;
        }
    }
    o.finish(
        &format!("gclab {}", sc.origin()),
        &json!({"source": sc.origin(), "collector": run.summary.collector, "platform": run.summary.platform}),
    )
}

/// android-krait: a track per core with what ran there (slices named by thread, `args.work` = mutator / gc /
/// other), a frequency counter per core (0 MHz while offline) and the CPU power counter.
fn export_cores(o: &mut Out, run: &Run, cpu: &gclab_core::CpuReport) -> Result<(), CliError> {
    for c in 0..cpu.cores.len() as u64 {
        o.thread(CORE_TID + c, &format!("core {c}"))?;
    }
    for a in &run.cpu_activity {
        let name = run
            .threads
            .get(a.thread as usize)
            .map_or("thread", |t| t.name.as_str());
        let work = match a.tag {
            gclab_core::CpuTag::Mutator => "mutator",
            gclab_core::CpuTag::Gc => "gc",
            gclab_core::CpuTag::Other => "other",
        };
        o.slice(
            CORE_TID + u64::from(a.core),
            name,
            us(a.start.0),
            us(a.end.0 - a.start.0),
            &json!({"work": work}),
        )?;
    }
    for sp in &cpu.timeline.spans {
        let mhz = sp.freq_khz.map_or(0.0, |k| f64::from(k) / 1000.0);
        o.counter(
            &format!("cpu{} frequency", sp.core),
            us(sp.start_ns),
            &json!({ "MHz": mhz }),
        )?;
    }
    for p in &cpu.timeline.power {
        o.counter("cpu power", us(p.start_ns), &json!({"mW": p.power_mw}))?;
    }
    Ok(())
}

fn export_trace(
    out: &str,
    input: &str,
    mut r: TraceReader,
    shown: Option<progress::Watcher>,
) -> Result<u64, CliError> {
    let unit = r.header().time_unit;
    let scale = unit.ns_per_unit().map_or(1.0, |ns| ns / 1000.0);
    let bad = |e: gclab_core::trace::TraceError| CliError::input(e.to_string());
    // Pass 1 (no output yet, so a bad file leaves nothing behind): live bytes after each distinct time.
    let mut sizes: HashMap<u64, u64> = HashMap::new();
    let mut live = 0u64;
    let mut points: Vec<(u64, u64)> = Vec::new();
    let mut gcs: Vec<(u64, u64, u32)> = Vec::new();
    let mut open: Vec<(u64, u32)> = Vec::new();
    for ev in r.by_ref() {
        let ev = ev.map_err(bad)?;
        match ev {
            Event::Alloc { id, size_bytes, .. } => {
                if let Some(old) = sizes.insert(id, size_bytes) {
                    live = live.saturating_sub(old);
                }
                live = live.saturating_add(size_bytes);
            }
            Event::Death { id, .. } => {
                live = live.saturating_sub(sizes.remove(&id).unwrap_or(0));
            }
            Event::GcStart { kind, t } => open.push((t, kind)),
            Event::GcEnd { t } => {
                if let Some((s, k)) = open.pop() {
                    gcs.push((s, t, k));
                }
            }
            Event::Move { .. } | Event::Access { .. } => {}
        }
        let t = ev.t();
        match points.last_mut() {
            Some(p) if p.0 == t => p.1 = p.1.max(live),
            _ => points.push((t, live)),
        }
        if points.len() > 4 * MAX_COUNTER_POINTS {
            points = thin(&points, |p| p.1);
        }
    }
    drop(shown);
    let tables = r.tables().clone();
    let mut o = Out::create(out)?;
    o.thread(GC_TID, "GC")?;
    for (s, e, k) in &gcs {
        let kind = tables.name(Table::GcKind, *k);
        o.slice(
            GC_TID,
            &format!("GC ({kind})"),
            *s as f64 * scale,
            e.saturating_sub(*s) as f64 * scale,
            &json!({"kind": kind}),
        )?;
    }
    for (t, l) in thin(&points, |p| p.1) {
        o.counter("heap", t as f64 * scale, &json!({"live_bytes": l}))?;
    }
    o.finish(
        &format!("gclab trace {input}"),
        &json!({"source": r.header().source, "time_unit": unit.name(),
            "time_note": if unit.ns_per_unit().is_some() { "real time" } else { "logical clock: 1 unit = 1 us" }}),
    )
}

fn export_log(out: &str, input: &str, data: &Imported<PauseRecords>) -> Result<u64, CliError> {
    let mut o = Out::create(out)?;
    match data {
        Imported::Pauses(p) => {
            let heap = log_pauses::write(&mut o, input, p)?;
            for (t, used, total) in heap.finish() {
                let args = HeapArgs {
                    committed_bytes: total,
                    used_bytes: used,
                };
                o.counter("heap", us(t), &args)?;
            }
        }
        Imported::Util(u) => {
            // Each series read in order (from its temporary files beyond a few thousand steps), only the points
            // kept held.
            for (name, s) in u.names.iter().zip(&u.series) {
                let pts = s.iter().map(|(t, v)| (t, (v * 1e6) as u64));
                let kept = thin_in_order(s.len(), pts, |p| u64::MAX - p.1);
                if let Some(e) = s.error() {
                    return Err(CliError::other(format!("{input}: {e}")));
                }
                for (t, v) in kept {
                    o.counter(
                        &format!("utilization {name}"),
                        us(t),
                        &json!({"utilization": v as f64 / 1e6}),
                    )?;
                }
            }
        }
    }
    o.finish(&format!("GC log {input}"), &json!({"source": input}))
}

/// A heap point: time `[ns]`, used bytes, committed bytes.
type HeapPoint = (u64, u64, Option<u64>);

/// A point waiting in a [`HeapThinner`]'s reorder buffer: time `[ns]`, arrival, used bytes, committed bytes.
type Waiting = (u64, u64, u64, Option<u64>);

/// Points a [`HeapThinner`] holds back to put them in time order (2 MB).
const REORDER_POINTS: usize = 1 << 16;

/// Thins a log's `total` heap points as they come, holding at most [`REORDER_POINTS`] +
/// [`MAX_COUNTER_POINTS`]: the points pass through a reorder buffer (a min-heap on time, then arrival) that hands
/// them on in time order, into stretches of `ceil(total / MAX_COUNTER_POINTS)` consecutive points, each keeping
/// its highest (the last of equals, as [`thin`] does); the kept points are finally put in time order (a stable
/// sort). When no point arrives more than [`REORDER_POINTS`] places after a later-timed one (logs: pauses of
/// several processes overlapping briefly), this is exactly [`thin`] of the time-sorted list, as before streaming;
/// otherwise the stretches are cut in the buffer's order, because sorting all of them would hold every point.
/// The buffer is core's [`Reorder`] (arrivals are unique, so it hands on the earliest waiting point as one heap
/// would).
struct HeapThinner {
    stride: usize,
    waiting: Reorder<Waiting>,
    arrived: u64,
    kept: Vec<HeapPoint>,
    /// Points in the current stretch.
    in_stretch: usize,
}

impl HeapThinner {
    fn new(total: usize) -> Self {
        HeapThinner {
            stride: total.div_ceil(MAX_COUNTER_POINTS).max(1),
            waiting: Reorder::new(REORDER_POINTS),
            arrived: 0,
            kept: Vec::with_capacity(total.min(MAX_COUNTER_POINTS)),
            in_stretch: 0,
        }
    }

    fn push(&mut self, (t, used, total): HeapPoint) {
        let p = self.waiting.push((t, self.arrived, used, total));
        self.arrived += 1;
        if let Some(p) = p {
            self.pass_one(p);
        }
    }

    /// Hands a point the reorder buffer let go to the stretches.
    fn pass_one(&mut self, (t, _, used, total): Waiting) {
        if self.in_stretch == 0 {
            self.kept.push((t, used, total));
        } else if let Some(top) = self.kept.last_mut()
            && used >= top.1
        {
            *top = (t, used, total);
        }
        self.in_stretch = (self.in_stretch + 1) % self.stride;
    }

    fn finish(mut self) -> Vec<HeapPoint> {
        while let Some(p) = self.waiting.pop() {
            self.pass_one(p);
        }
        self.kept.sort_by_key(|h| h.0);
        self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thinning points as they come keeps what thinning the whole list in stretches keeps (the highest of each
    /// stretch, the last of equals), at every length around the cap.
    #[test]
    fn thinning_in_order_keeps_what_the_stretches_of_the_whole_list_keep() {
        let mut x = 3u64;
        for len in [
            0,
            1,
            7,
            MAX_COUNTER_POINTS,
            MAX_COUNTER_POINTS + 1,
            3 * MAX_COUNTER_POINTS + 5,
        ] {
            let points: Vec<(u64, u64)> = (0..len as u64)
                .map(|t| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    (t, x >> 60)
                })
                .collect();
            let stride = len.div_ceil(MAX_COUNTER_POINTS).max(1);
            let want: Vec<(u64, u64)> = (points.chunks(stride))
                .filter_map(|c| c.iter().copied().max_by_key(|p| p.1))
                .collect();
            assert_eq!(thin(&points, |p| p.1), want, "{len} points");
        }
    }
}
