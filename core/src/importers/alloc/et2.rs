//! Elephant Tracks 2 traces (`trace.bz2` or plain `trace`, with `classes.list` beside it naming type ids). Records:
//! `N obj size type site 0 thread` (object), `A obj size type site length thread` (array), `U target field referent
//! thread` (pointer store), `M method receiver thread` / `E method thread` (method entry/exit), `W obj class thread`
//! (witness: the object is alive then). Buffer-cut tails — two records glued on one line (`…2018699554W 650…`)
//! — are split; records with a wrong field count are counted as warnings.
//!
//! ET2 writes no deaths. Each object's death is reconstructed as its last *use*: the last record naming it (a `W`
//! witness, a `U` as target or referent, an `M` as receiver, or else its allocation). That is a lower bound of
//! the true death (the object may stay reachable, unused, for longer) and exact only for objects dropped right
//! after their last use; ET2's own offline Merlin pass, which needs the root set, is not reproducible from the
//! trace alone. Every object therefore dies in the trace (none is `never_freed`). Time is the record number
//! (unit `records`); an id allocated again starts a new object. Two passes over the input: memory is a few
//! words per object.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::{ImportReport, write_error};
use crate::input::lines::Lines;
use crate::input::warnings::Warnings;
use crate::trace::{Event, HeapInfo, Table, TimeUnit, TraceError, TraceHeader, TraceWriter};

/// The trace file of `path`: for a directory `path/trace.bz2` (or `trace`, `trace.gz`, `trace.zst`, or else the
/// first `trace*` file), else `path`.
pub fn trace_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        for name in ["trace.bz2", "trace", "trace.gz", "trace.zst"] {
            if path.join(name).is_file() {
                return path.join(name);
            }
        }
        // Any other `trace*` file (first by name).
        let mut other: Vec<PathBuf> = std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("trace"))
            })
            .collect();
        other.sort();
        other
            .into_iter()
            .next()
            .unwrap_or_else(|| path.join("trace.bz2"))
    } else {
        path.to_path_buf()
    }
}

/// One parsed record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rec {
    Alloc {
        obj: u64,
        size: u64,
        type_id: u64,
        site: u64,
    },
    Uses([u64; 2]),
    Other,
}

/// Splits a line into records, undoing glued buffer tails: a token `DIGITS` + record letter ends one record and
/// starts the next.
fn records(line: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    for tok in line.split_whitespace() {
        let b = tok.as_bytes();
        let glued = b.len() > 1
            && matches!(b[b.len() - 1], b'N' | b'A' | b'U' | b'M' | b'E' | b'W')
            && b[..b.len() - 1].iter().all(u8::is_ascii_digit);
        if glued {
            cur.push(&tok[..tok.len() - 1]);
            out.push(std::mem::take(&mut cur));
            cur.push(&tok[tok.len() - 1..]);
        } else {
            cur.push(tok);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The reason of a record of a known kind with the wrong field count or a non-number: an error, as in every
/// importer (`docs/trace-format.md`, "bad lines").
const MALFORMED: &str =
    "malformed record: expected the field count of its kind, each field a decimal number";

/// Parses one record's tokens; `Err` is the reason (an error for [`MALFORMED`], else a warning).
fn parse(r: &[&str]) -> Result<Rec, &'static str> {
    let n = |i: usize| r.get(i).and_then(|t| t.parse::<u64>().ok());
    let fields = |k: usize| -> Result<(), &'static str> {
        if r.len() == k && (1..k).all(|i| n(i).is_some()) {
            Ok(())
        } else {
            Err(MALFORMED)
        }
    };
    match r.first().copied() {
        Some("N" | "A") => {
            fields(7)?;
            Ok(Rec::Alloc {
                obj: n(1).unwrap_or(0),
                size: n(2).unwrap_or(0),
                type_id: n(3).unwrap_or(0),
                site: n(4).unwrap_or(0),
            })
        }
        Some("U") => {
            fields(5)?;
            Ok(Rec::Uses([n(1).unwrap_or(0), n(3).unwrap_or(0)]))
        }
        Some("M") => {
            fields(4)?;
            Ok(Rec::Uses([n(2).unwrap_or(0), 0]))
        }
        Some("W") => {
            fields(4)?;
            Ok(Rec::Uses([n(1).unwrap_or(0), 0]))
        }
        Some("E") => {
            fields(3)?;
            Ok(Rec::Other)
        }
        _ => Err("unknown record type (expected N, A, U, M, E or W)"),
    }
}

/// Walks every record of the trace: `f(record number, line, record)`.
fn walk(
    name: &str,
    file: &Path,
    read: &Arc<AtomicU64>,
    warnings: &mut Warnings,
    mut f: impl FnMut(u64, Rec) -> Result<(), TraceError>,
) -> Result<u64, TraceError> {
    let mut lines = Lines::open_counted(name, file, read)?;
    let mut rec_no = 0u64;
    while lines.advance()? {
        for r in records(lines.line()) {
            match parse(&r) {
                Ok(rec) => {
                    rec_no += 1;
                    f(rec_no, rec)?;
                }
                Err(MALFORMED) => {
                    let shown: String = r.join(" ").chars().take(80).collect();
                    return Err(lines.error(format!("`{shown}`: {MALFORMED}")));
                }
                Err(why) => warnings.skip(lines.line_no(), why),
            }
        }
    }
    Ok(rec_no)
}

/// `classes.list` beside the trace: `ID NAME` per line.
fn class_names(dir: &Path) -> HashMap<u64, String> {
    let mut out = HashMap::new();
    if let Ok(text) = std::fs::read_to_string(dir.join("classes.list")) {
        for l in text.lines() {
            let mut it = l.trim().splitn(2, char::is_whitespace);
            if let (Some(id), Some(name)) = (it.next().and_then(|t| t.parse().ok()), it.next()) {
                out.insert(id, name.trim().to_string());
            }
        }
    }
    out
}

/// Imports an Elephant Tracks 2 trace (a directory or its trace file); `make` creates the writer.
pub fn import<W, F>(
    name: &str,
    path: &Path,
    make: F,
) -> Result<(ImportReport, TraceWriter<W>), TraceError>
where
    W: std::io::Write,
    F: FnOnce(&TraceHeader) -> Result<TraceWriter<W>, TraceError>,
{
    import_counted(name, path, &Arc::default(), make)
}

/// [`import`], adding the bytes read (compressed; the file is read twice) to `read`.
pub fn import_counted<W, F>(
    name: &str,
    path: &Path,
    read: &Arc<AtomicU64>,
    make: F,
) -> Result<(ImportReport, TraceWriter<W>), TraceError>
where
    W: std::io::Write,
    F: FnOnce(&TraceHeader) -> Result<TraceWriter<W>, TraceError>,
{
    let file = trace_file(path);
    let dir = file
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let classes = class_names(&dir);
    // Pass 1: each allocation's last use.
    let mut report = ImportReport::default();
    let mut cur: HashMap<u64, u32> = HashMap::new();
    let mut last_use: Vec<u64> = Vec::new();
    let mut unallocated = 0u64;
    let records = walk(name, &file, read, &mut report.warnings, |rec_no, rec| {
        match rec {
            Rec::Alloc { obj, .. } => {
                let idx = u32::try_from(last_use.len()).map_err(|_| {
                    TraceError::file(name, "more than 2^32 objects: expected fewer")
                })?;
                last_use.push(rec_no);
                cur.insert(obj, idx);
            }
            Rec::Uses(objs) => {
                for o in objs.into_iter().filter(|o| *o != 0) {
                    match cur.get(&o) {
                        Some(i) => last_use[*i as usize] = rec_no,
                        None => unallocated += 1,
                    }
                }
            }
            Rec::Other => {}
        }
        Ok(())
    })?;
    if records == 0 {
        return Err(TraceError::file(
            name,
            "no Elephant Tracks 2 records: expected lines such as `N obj size type site 0 thread` or \
             `W obj class thread`",
        ));
    }
    if last_use.is_empty() {
        return Err(TraceError::file(
            name,
            format!(
                "no objects: {records} Elephant Tracks 2 records but no allocation (expected `N` or `A` records, \
                 e.g. `N obj size type site 0 thread`)"
            ),
        ));
    }
    let mut deaths: Vec<(u64, u32)> = last_use
        .iter()
        .enumerate()
        .map(|(i, t)| (*t, i as u32))
        .collect();
    deaths.sort_unstable();
    drop(last_use);
    drop(cur);
    // Pass 2: the events.
    let header = TraceHeader::new(
        TimeUnit::Records,
        HeapInfo::default(),
        &format!("Elephant Tracks 2 {}", file.display()),
    );
    let mut w = make(&header)?;
    let mut sites: HashMap<u64, u32> = HashMap::new();
    let mut types: HashMap<u64, u32> = HashMap::new();
    let mut next = 0u32;
    let mut d = 0usize;
    let mut ignore = Warnings::default();
    walk(name, &file, read, &mut ignore, |rec_no, rec| {
        let io = |e: std::io::Error| write_error(name, &e);
        if let Rec::Alloc {
            size,
            type_id,
            site,
            ..
        } = rec
        {
            let s = match sites.get(&site) {
                Some(s) => *s,
                None => {
                    let s = w.intern(Table::Site, &format!("site {site}")).map_err(io)?;
                    sites.insert(site, s);
                    s
                }
            };
            let t = match types.get(&type_id) {
                Some(t) => *t,
                None => {
                    let label = classes
                        .get(&type_id)
                        .cloned()
                        .unwrap_or_else(|| format!("class {type_id}"));
                    let t = w.intern(Table::Type, &label).map_err(io)?;
                    types.insert(type_id, t);
                    t
                }
            };
            next += 1;
            w.event(&Event::Alloc {
                id: u64::from(next),
                site: s,
                type_id: t,
                size_bytes: size,
                addr: 0,
                t: rec_no,
            })
            .map_err(io)?;
        }
        while let Some(&(t, idx)) = deaths.get(d) {
            if t != rec_no || idx >= next {
                break;
            }
            w.event(&Event::Death {
                id: u64::from(idx) + 1,
                t,
            })
            .map_err(io)?;
            d += 1;
        }
        Ok(())
    })?;
    report.objects = u64::from(next);
    report.deaths = d as u64;
    report.events = w.events();
    report.notes.push(format!(
        "deaths reconstructed as each object's last use (W witness, U target/referent, M receiver, else its \
         allocation): a lower bound of the true death; {unallocated} use(s) named an object with no allocation \
         record (allocated before tracing began) and were ignored"
    ));
    Ok((report, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glued_records_are_split() {
        let r = records("M 515 0 2018699554W 650023597 123 2018699554");
        assert_eq!(r.len(), 2, "two records");
        assert_eq!(r[0], vec!["M", "515", "0", "2018699554"]);
        assert_eq!(parse(&r[1]), Ok(Rec::Uses([650023597, 0])));
        assert_eq!(
            parse(&["N", "5", "24", "123", "325", "0", "7"]),
            Ok(Rec::Alloc {
                obj: 5,
                size: 24,
                type_id: 123,
                site: 325
            })
        );
        assert!(parse(&["E", "1"]).is_err(), "short record");
    }
}
