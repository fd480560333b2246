//! heaptrack's raw capture (`heaptrack_preload` output, usually `*.raw.zst`; file format versions 2–3): one
//! record per line, numbers in hex. Used: `+ size trace ptr` (allocation: object ids are 1, 2, … in allocation
//! order, site = the backtrace index and its three innermost instruction pointers, type `malloc`), `- ptr` (free = death of the
//! live allocation at that pointer), `c ms` (clock: the time of the records that follow, in ms), `t ip parent`
//! (backtrace nodes, numbered 1, 2, … in order). Known and not needed: `v` (versions, kept in the source), `x`/`X`
//! (executable and command line, kept), `I`, `m`, `R`, `A`, `i`, `s`, `#`. Anything else is counted as a warning.
//! A `+` at a pointer still live means its free was not recorded: the old allocation dies there (a warning).
//!
//! heaptrack's *interpreted* format (what `heaptrack` leaves by default, `*.zst` without `.raw`) is read too:
//! `a size trace` defines allocation kinds (numbered 0, 1, … in order), `+ kind` allocates and `- kind` frees one
//! object of that kind, `t ip-index parent` are backtrace nodes over `i ip module [function file line …]` frames
//! and `s [length] text` strings (numbered 1, 2, …), which name the sites by function. It has no pointers: the
//! objects get no address (0; viewers lay them out in allocation order), and a free ends the most recently
//! allocated live object of its kind — objects of one kind have one size and one backtrace, so live bytes and the
//! peak are exact after every record, while which of several same-kind objects died first is not recorded.

use std::collections::HashMap;

use super::{ImportReport, write_error};
use crate::input::lines::Lines;
use crate::trace::{Event, HeapInfo, Table, TimeUnit, TraceError, TraceHeader, TraceWriter};

/// Most backtrace nodes (and frames, and allocation kinds) kept for naming sites (more are named by index only).
const MAX_TRACE_NODES: usize = 1 << 24;
/// Most bytes of strings (function and file names) kept for naming sites.
const MAX_STRING_TABLE_BYTES: usize = 64 << 20;

fn hex(tok: Option<&str>, field: &str, lines: &Lines) -> Result<u64, TraceError> {
    let tok =
        tok.ok_or_else(|| lines.error(format!("expected {field} (hex), got the end of the line")))?;
    u64::from_str_radix(tok, 16)
        .map_err(|_| lines.error(format!("expected {field} as a hex number, got `{tok}`")))
}

/// Frames named in a site label, innermost first.
const SITE_FRAMES: usize = 3;

/// `trace N @0xIP < 0xIP < 0xIP`: the backtrace index and its innermost frames (node `i` is the `i`-th `t` line),
/// each named by `frame` (raw: the instruction pointer; interpreted: the frame's function when known).
fn site_label(trace: u64, nodes: &[(u64, u64)], frame: impl Fn(u64) -> String) -> String {
    let mut label = format!("trace {trace}");
    let mut node = trace;
    for k in 0..SITE_FRAMES {
        let Some(&(ip, parent)) = usize::try_from(node)
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| nodes.get(i))
        else {
            break;
        };
        label += &format!("{}{}", if k == 0 { " @" } else { " < " }, frame(ip));
        if parent >= node {
            break;
        }
        node = parent;
    }
    label
}

/// Makes the writer once the header lines have been read, and defines the one type.
fn start<W, F>(
    make: &mut Option<F>,
    version: &str,
    command: &str,
    lines: &Lines,
    type_id: &mut u32,
) -> Result<TraceWriter<W>, TraceError>
where
    W: std::io::Write,
    F: FnOnce(&TraceHeader) -> Result<TraceWriter<W>, TraceError>,
{
    let header = TraceHeader::new(
        TimeUnit::Ms,
        HeapInfo::default(),
        &format!("heaptrack (versions {version}): {command}"),
    );
    let make = make
        .take()
        .ok_or_else(|| lines.error("internal: writer made twice"))?;
    let mut wr = make(&header)?;
    *type_id = wr
        .intern(Table::Type, "malloc")
        .map_err(|e| write_error(lines.name(), &e))?;
    Ok(wr)
}

/// The site of backtrace `trace`, interned under `label()` the first time it is met.
fn site_of<W: std::io::Write>(
    wr: &mut TraceWriter<W>,
    site_ids: &mut HashMap<u64, u32>,
    trace: u64,
    name: &str,
    label: impl FnOnce() -> String,
) -> Result<u32, TraceError> {
    if let Some(s) = site_ids.get(&trace) {
        return Ok(*s);
    }
    let s = wr
        .intern(Table::Site, &label())
        .map_err(|e| write_error(name, &e))?;
    site_ids.insert(trace, s);
    Ok(s)
}

/// Writes the death of object `id` at `t_ms` and counts it.
fn death<W: std::io::Write>(
    wr: &mut TraceWriter<W>,
    report: &mut ImportReport,
    id: u64,
    t_ms: u64,
    name: &str,
) -> Result<(), TraceError> {
    wr.event(&Event::Death { id, t: t_ms })
        .map_err(|e| write_error(name, &e))?;
    report.deaths += 1;
    Ok(())
}

/// Imports a heaptrack raw capture; `make` creates the writer from the header.
pub fn import<W, F>(mut lines: Lines, make: F) -> Result<(ImportReport, TraceWriter<W>), TraceError>
where
    W: std::io::Write,
    F: FnOnce(&TraceHeader) -> Result<TraceWriter<W>, TraceError>,
{
    let name = lines.name().to_string();
    let mut report = ImportReport::default();
    let mut version = String::new();
    let mut command = String::new();
    let mut make = Some(make);
    let mut w: Option<TraceWriter<W>> = None;
    // Backtrace nodes: (instruction pointer, parent index; 0 = root).
    let mut trace_ips: Vec<(u64, u64)> = Vec::new();
    let mut site_ids: HashMap<u64, u32> = HashMap::new();
    let mut live: HashMap<u64, (u64, u64)> = HashMap::new();
    let mut next_id = 1u64;
    let mut t_ms = 0u64;
    let mut type_id = 0u32;
    // The interpreted format: allocation kinds `(size, trace)`, the live objects of each kind (most recent last),
    // frames `(ip, function string index)` and strings.
    let mut interpreted = false;
    let mut kinds: Vec<(u64, u64)> = Vec::new();
    let mut live_of_kind: HashMap<u64, Vec<u64>> = HashMap::new();
    let mut live_interpreted = 0usize;
    let mut frames: Vec<(u64, Option<u64>)> = Vec::new();
    let mut strings: Vec<String> = Vec::new();
    let mut string_bytes = 0usize;
    while lines.advance()? {
        let line = lines.line();
        let mut toks = line.split(' ');
        let op = toks.next().unwrap_or("");
        // Header lines come before any record that needs the writer.
        match op {
            "v" => {
                version = line[1..].trim().to_string();
                continue;
            }
            "x" => continue,
            "X" => {
                command = line[1..].trim().to_string();
                continue;
            }
            "s" => {
                // v3: `s LEN TEXT` (LEN in hex); v2: `s TEXT`.
                let rest = line.get(2..).unwrap_or("");
                let text = match rest.split_once(' ') {
                    Some((len, text))
                        if usize::from_str_radix(len, 16).ok() == Some(text.len()) =>
                    {
                        text
                    }
                    _ => rest,
                };
                if string_bytes < MAX_STRING_TABLE_BYTES {
                    string_bytes += text.len();
                    strings.push(text.to_string());
                } else {
                    strings.push(String::new());
                }
                continue;
            }
            "i" => {
                let ip = hex(toks.next(), "the instruction pointer", &lines)?;
                let _module = toks.next();
                let function = match toks.next() {
                    Some(tok) => Some(hex(Some(tok), "the function's string index", &lines)?),
                    None => None,
                };
                if frames.len() < MAX_TRACE_NODES {
                    frames.push((ip, function));
                }
                continue;
            }
            "I" | "m" | "R" | "A" | "#" | "" => continue,
            _ => {}
        }
        if w.is_none() {
            w = Some(start(&mut make, &version, &command, &lines, &mut type_id)?);
        }
        let Some(wr) = w.as_mut() else { continue };
        match op {
            "a" => {
                interpreted = true;
                let size = hex(toks.next(), "the allocation's size", &lines)?;
                let trace = hex(toks.next(), "the allocation's trace index", &lines)?;
                if kinds.len() >= MAX_TRACE_NODES {
                    return Err(lines.error(format!(
                        "more than {MAX_TRACE_NODES} allocation kinds: expected a heaptrack file"
                    )));
                }
                kinds.push((size, trace));
            }
            "+" if interpreted => {
                let kind = hex(toks.next(), "the allocation kind", &lines)?;
                let Some(&(size, trace)) = usize::try_from(kind).ok().and_then(|k| kinds.get(k))
                else {
                    return Err(lines.error(format!(
                        "allocation of kind {kind:x}, which no `a size trace` line defined (expected 0 to {:x})",
                        kinds.len().saturating_sub(1)
                    )));
                };
                let site = site_of(wr, &mut site_ids, trace, &name, || {
                    let name_of = |ip_index: u64| {
                        let f = usize::try_from(ip_index)
                            .ok()
                            .and_then(|i| i.checked_sub(1))
                            .and_then(|i| frames.get(i));
                        match f {
                            Some((_, Some(func))) => usize::try_from(*func)
                                .ok()
                                .and_then(|i| i.checked_sub(1))
                                .and_then(|i| strings.get(i))
                                .filter(|s| !s.is_empty())
                                .cloned()
                                .unwrap_or_else(|| format!("string {func}")),
                            Some((ip, None)) => format!("0x{ip:x}"),
                            None => format!("frame {ip_index}"),
                        }
                    };
                    site_label(trace, &trace_ips, name_of)
                })?;
                let id = next_id;
                next_id += 1;
                live_of_kind.entry(kind).or_default().push(id);
                live_interpreted += 1;
                wr.event(&Event::Alloc {
                    id,
                    site,
                    type_id,
                    size_bytes: size,
                    addr: 0,
                    t: t_ms,
                })
                .map_err(|e| write_error(&name, &e))?;
                report.objects += 1;
            }
            "-" if interpreted => {
                let kind = hex(toks.next(), "the allocation kind", &lines)?;
                match live_of_kind.get_mut(&kind).and_then(Vec::pop) {
                    Some(id) => {
                        live_interpreted -= 1;
                        death(wr, &mut report, id, t_ms, &name)?;
                    }
                    None => report.warnings.skip(
                        lines.line_no(),
                        "free of an allocation kind with no live object in the trace",
                    ),
                }
            }
            "+" => {
                let size = hex(toks.next(), "the size", &lines)?;
                let trace = match toks.next() {
                    Some(tok) => hex(Some(tok), "the trace index", &lines)?,
                    None => {
                        return Err(lines.error(
                            "`+ INDEX` without an `a size trace` line before it: expected the raw capture's \
                             `+ size trace ptr`, or the interpreted format's `a` lines first",
                        ));
                    }
                };
                let ptr = hex(toks.next(), "the pointer", &lines)?;
                let site = site_of(wr, &mut site_ids, trace, &name, || {
                    site_label(trace, &trace_ips, |ip| format!("0x{ip:x}"))
                })?;
                if let Some((old, _)) = live.remove(&ptr) {
                    report.warnings.skip(
                        lines.line_no(),
                        "allocation at a pointer still live (its free was not recorded): the old object dies here",
                    );
                    death(wr, &mut report, old, t_ms, &name)?;
                }
                let id = next_id;
                next_id += 1;
                live.insert(ptr, (id, size));
                wr.event(&Event::Alloc {
                    id,
                    site,
                    type_id,
                    size_bytes: size,
                    addr: ptr,
                    t: t_ms,
                })
                .map_err(|e| write_error(&name, &e))?;
                report.objects += 1;
            }
            "-" => {
                let ptr = hex(toks.next(), "the pointer", &lines)?;
                match live.remove(&ptr) {
                    Some((id, _)) => death(wr, &mut report, id, t_ms, &name)?,
                    None => report.warnings.skip(
                        lines.line_no(),
                        "free of a pointer not allocated in the trace",
                    ),
                }
            }
            "c" => t_ms = hex(toks.next(), "the clock (ms)", &lines)?,
            "t" => {
                let ip = hex(toks.next(), "the instruction pointer", &lines)?;
                let parent = hex(toks.next(), "the parent index", &lines)?;
                if trace_ips.len() < MAX_TRACE_NODES {
                    trace_ips.push((ip, parent));
                }
            }
            _ => report
                .warnings
                .skip(lines.line_no(), "unknown heaptrack record"),
        }
    }
    let w = match w {
        Some(_) if version.is_empty() && report.objects == 0 && report.deaths == 0 => None,
        other => other,
    };
    let w = match w {
        Some(w) => w,
        None if !version.is_empty() => start(&mut make, &version, &command, &lines, &mut type_id)?,
        None => {
            return Err(TraceError::file(
                &name,
                "no heaptrack records: expected heaptrack's raw capture (a `v` version line, `+ size trace ptr` \
                 allocations, `- ptr` frees)",
            ));
        }
    };
    report.events = w.events();
    if interpreted {
        report.notes.push(format!(
            "heaptrack's interpreted format: free = death, matched to the most recent live object of the same \
             size and backtrace (live bytes exact; no addresses); {live_interpreted} allocation(s) never freed; \
             times in ms from heaptrack's `c` clock"
        ));
    } else {
        report.notes.push(format!(
            "free = death; {} allocation(s) never freed; times in ms from heaptrack's `c` clock",
            live.len()
        ));
    }
    Ok((report, w))
}
