//! The per-object CSV form (one row per object, e.g. `objects.csv.gz` beside a heaptrack capture): columns found
//! by header name, case-insensitive, others ignored. Required: the object id (`obj`, `id` or `object`) and size
//! (`size`, `size_bytes` or `bytes`). Order: `alloc_seq`/`free_seq` (a global event sequence; exact) and/or times
//! `alloc_t_UNIT`/`free_t_UNIT` with UNIT `ns`, `us`, `ms` or `s`. Optional: `trace` or `site` (allocation site),
//! `type` or `class`, `addr` or `ptr` (decimal or 0x hex). An empty free column means never freed.
//!
//! Events are ordered by sequence when the sequence columns exist, else by time (a death after the allocations
//! of the same instant). Times are the time columns' values; without them the sequence numbers are the clock
//! (unit `records`). All rows are held in memory to be ordered (about 100 bytes per object).

use std::collections::HashMap;

use super::{ImportReport, write_error};
use crate::input::lines::Lines;
use crate::trace::{Event, HeapInfo, Table, TimeUnit, TraceError, TraceHeader, TraceWriter};

/// Splits a CSV line (fields may be double-quoted, `""` inside quotes is a quote).
pub fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out
}

struct Row {
    id: u64,
    size: u64,
    site: u32,
    type_id: u32,
    addr: u64,
    alloc_key: u64,
    alloc_t: u64,
    free: Option<(u64, u64)>,
}

fn find(cols: &[String], names: &[&str]) -> Option<usize> {
    cols.iter().position(|c| names.contains(&c.as_str()))
}

/// Imports an objects CSV; `make` creates the writer from the header.
pub fn import<W, F>(mut lines: Lines, make: F) -> Result<(ImportReport, TraceWriter<W>), TraceError>
where
    W: std::io::Write,
    F: FnOnce(&TraceHeader) -> Result<TraceWriter<W>, TraceError>,
{
    let name = lines.name().to_string();
    if !lines.advance()? {
        return Err(lines.error("empty file: expected a CSV header naming obj and size"));
    }
    let cols: Vec<String> = split_csv(lines.line())
        .into_iter()
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    let need = |names: &[&str], what: &str| {
        find(&cols, names).ok_or_else(|| {
            lines.error(format!(
                "no {what} column: expected one named {} in the header",
                names.join(" or ")
            ))
        })
    };
    let c_id = need(&["obj", "id", "object"], "object id")?;
    let c_size = need(&["size", "size_bytes", "bytes"], "size")?;
    let c_site = find(&cols, &["trace", "site"]);
    let c_type = find(&cols, &["type", "class"]);
    let c_addr = find(&cols, &["addr", "ptr", "address"]);
    let c_aseq = find(&cols, &["alloc_seq"]);
    let c_fseq = find(&cols, &["free_seq", "death_seq"]);
    let mut time = None;
    for (unit, u) in [
        ("ns", TimeUnit::Ns),
        ("us", TimeUnit::Us),
        ("ms", TimeUnit::Ms),
        ("s", TimeUnit::S),
    ] {
        if let Some(a) = find(&cols, &[&format!("alloc_t_{unit}")]) {
            let f = find(
                &cols,
                &[&format!("free_t_{unit}"), &format!("death_t_{unit}")],
            );
            time = Some((u, a, f));
            break;
        }
    }
    if c_aseq.is_none() && time.is_none() {
        return Err(lines.error(
            "no order: expected alloc_seq/free_seq columns or alloc_t_UNIT/free_t_UNIT (UNIT ns, us, ms or s)",
        ));
    }
    let unit = time.map_or(TimeUnit::Records, |t| t.0);
    let header = TraceHeader::new(unit, HeapInfo::default(), &format!("objects CSV {name}"));
    let mut w = make(&header)?;
    let mut report = ImportReport::default();
    let mut sites: HashMap<String, u32> = HashMap::new();
    let mut types: HashMap<String, u32> = HashMap::new();
    let mut rows: Vec<Row> = Vec::new();
    while lines.advance()? {
        let line = lines.line();
        if line.trim().is_empty() {
            continue;
        }
        let f = split_csv(line);
        let cell = |i: usize| f.get(i).map_or("", |s| s.trim());
        let num = |i: usize, what: &str| -> Result<u64, TraceError> {
            let v = cell(i);
            let parsed = match v.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => v.parse::<u64>(),
            };
            parsed.map_err(|_| {
                lines.error(format!(
                    "column {} ({what}): expected an unsigned integer, got `{}`",
                    cols[i],
                    v.chars().take(40).collect::<String>()
                ))
            })
        };
        let opt = |i: Option<usize>, what: &str| -> Result<Option<u64>, TraceError> {
            match i {
                Some(i) if !cell(i).is_empty() => num(i, what).map(Some),
                _ => Ok(None),
            }
        };
        let id = num(c_id, "object id")?;
        let size = num(c_size, "size")?;
        let site_name = c_site.map_or("unknown", cell);
        let site_name = match c_site {
            Some(i) if cols[i] == "trace" => format!("trace {site_name}"),
            _ => site_name.to_string(),
        };
        let type_name = c_type.map_or("malloc", cell).to_string();
        let site = match sites.get(&site_name) {
            Some(s) => *s,
            None => {
                let s = w
                    .intern(Table::Site, &site_name)
                    .map_err(|e| write_error(&name, &e))?;
                sites.insert(site_name, s);
                s
            }
        };
        let type_id = match types.get(&type_name) {
            Some(t) => *t,
            None => {
                let t = w
                    .intern(Table::Type, &type_name)
                    .map_err(|e| write_error(&name, &e))?;
                types.insert(type_name, t);
                t
            }
        };
        let addr = opt(c_addr, "address")?.unwrap_or(0);
        let aseq = opt(c_aseq, "allocation sequence")?;
        let fseq = opt(c_fseq, "free sequence")?;
        let at = match time {
            Some((_, a, _)) => opt(Some(a), "allocation time")?,
            None => None,
        };
        let ft = match time {
            Some((_, _, f)) => opt(f, "free time")?,
            None => None,
        };
        let alloc_t = at.or(aseq).ok_or_else(|| {
            lines.error("empty allocation time and sequence: expected at least one")
        })?;
        let alloc_key = aseq.unwrap_or(alloc_t);
        let free = if c_aseq.is_some() {
            fseq.map(|s| (s, ft.unwrap_or(if time.is_some() { alloc_t } else { s })))
        } else {
            ft.map(|t| (t, t))
        };
        if let Some((k, _)) = free
            && k < alloc_key
        {
            return Err(lines.error(format!(
                "object {id} is freed (at {k}) before it is allocated (at {alloc_key}): expected free ≥ alloc"
            )));
        }
        rows.push(Row {
            id,
            size,
            site,
            type_id,
            addr,
            alloc_key,
            alloc_t,
            free,
        });
    }
    if rows.is_empty() {
        return Err(TraceError::file(
            &name,
            "no rows: expected one row per object after the header",
        ));
    }
    // (key, deaths after allocations of the same key when ordering by time, row, event)
    let by_seq = c_aseq.is_some();
    let mut evs: Vec<(u64, u8, usize, Event)> = Vec::with_capacity(rows.len() * 2);
    for (i, r) in rows.iter().enumerate() {
        evs.push((
            r.alloc_key,
            0,
            i,
            Event::Alloc {
                id: r.id,
                site: r.site,
                type_id: r.type_id,
                size_bytes: r.size,
                addr: r.addr,
                t: r.alloc_t,
            },
        ));
        if let Some((k, t)) = r.free {
            evs.push((k, u8::from(!by_seq), i, Event::Death { id: r.id, t }));
        }
    }
    report.objects = rows.len() as u64;
    drop(rows);
    evs.sort_unstable_by_key(|e| (e.0, e.1, e.2));
    for (_, _, _, ev) in &evs {
        if matches!(ev, Event::Death { .. }) {
            report.deaths += 1;
        }
        w.event(ev).map_err(|e| write_error(&name, &e))?;
    }
    report.events = w.events();
    report.notes.push(format!(
        "ordered by {}; {} object(s) never freed",
        if by_seq {
            "alloc_seq/free_seq (exact)"
        } else {
            "time (deaths after allocations of the same instant)"
        },
        report.objects - report.deaths
    ));
    Ok((report, w))
}
