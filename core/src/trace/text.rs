//! The text form (version 1): UTF-8, one record per line, `#` comments and blank lines ignored. Encoding
//! functions turn the header and records into lines; [`TextDecoder`] reads them back with bounded line length and
//! names the line of any bad record. See `docs/trace-format.md` for the grammar.

use std::borrow::Cow;
use std::io::BufRead;

use super::{
    Event, HeapInfo, MAX_STRING_BYTES, TEXT_MAGIC, Table, Tables, TimeUnit, TraceError,
    TraceHeader, VERSION,
};

/// Longest line a reader accepts (an escaped string of the maximum length plus its keyword). `[bytes]`
pub const MAX_LINE_BYTES: usize = 2 * MAX_STRING_BYTES + 64;

/// Escapes `\`, newline, carriage return and tab so that a string stays on its line.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.contains(['\\', '\n', '\r', '\t']) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Undoes [`escape`]; `Err` says what was expected.
pub fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            other => {
                return Err(format!(
                    "an escape \\\\, \\n, \\r or \\t, got `\\{}`",
                    other.map(String::from).unwrap_or_default()
                ));
            }
        }
    }
    Ok(out)
}

/// The header lines.
pub fn header(h: &TraceHeader) -> String {
    let mut s = format!(
        "{TEXT_MAGIC} {VERSION}\ntime_unit {}\nheap base=0x{:x} size={} bank={}\n",
        h.time_unit.name(),
        h.heap.base_addr,
        h.heap.size_bytes,
        h.heap.bank_bytes
    );
    if !h.source.is_empty() {
        s += &format!("source {}\n", escape(&h.source));
    }
    s
}

/// A string-table definition line.
pub fn def(table: Table, id: u32, name: &str) -> String {
    format!("{} {id} {}\n", table.keyword(), escape(name))
}

/// An event line.
pub fn event(ev: &Event) -> String {
    match *ev {
        Event::Alloc {
            id,
            site,
            type_id,
            size_bytes,
            addr,
            t,
        } => format!("alloc {id} {site} {type_id} {size_bytes} 0x{addr:x} {t}\n"),
        Event::Move { id, addr, t } => format!("move {id} 0x{addr:x} {t}\n"),
        Event::Death { id, t } => format!("death {id} {t}\n"),
        Event::Access { id, t } => format!("access {id} {t}\n"),
        Event::GcStart { kind, t } => format!("gc_start {kind} {t}\n"),
        Event::GcEnd { t } => format!("gc_end {t}\n"),
    }
}

/// The closing line.
pub fn end(events: u64) -> String {
    format!("end {events}\n")
}

/// Reads the lines of a text trace.
pub(crate) struct TextDecoder {
    name: String,
    src: Box<dyn BufRead + Send>,
    line_no: u64,
    line: Vec<u8>,
    /// A record line read while looking for more header lines.
    pending: Option<String>,
}

fn number(tok: Option<&str>, field: &str) -> Result<u64, String> {
    let tok = tok.ok_or_else(|| format!("expected {field} (a number), got the end of the line"))?;
    let parsed = match tok.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => tok.parse::<u64>(),
    };
    parsed.map_err(|_| {
        format!("expected {field} as an unsigned 64-bit number (decimal or 0x hex), got `{tok}`")
    })
}

fn id32(tok: Option<&str>, field: &str) -> Result<u32, String> {
    let v = number(tok, field)?;
    u32::try_from(v).map_err(|_| format!("expected {field} below 2^32, got {v}"))
}

impl TextDecoder {
    /// Reads the magic line and the header lines from `src`.
    pub(crate) fn open(
        name: &str,
        src: Box<dyn BufRead + Send>,
    ) -> Result<(TextDecoder, TraceHeader), TraceError> {
        let mut dec = TextDecoder {
            name: name.to_string(),
            src,
            line_no: 0,
            line: Vec::new(),
            pending: None,
        };
        let first = dec
            .next_line()?
            .ok_or_else(|| TraceError::line(name, 1, "empty file: expected `gclab-trace 1`"))?;
        let mut toks = first.split_whitespace();
        if toks.next() != Some(TEXT_MAGIC) {
            return Err(TraceError::line(
                name,
                dec.line_no,
                format!("not a gclab trace: expected `{TEXT_MAGIC} {VERSION}` as the first line"),
            ));
        }
        let version = toks
            .next()
            .and_then(|v| v.parse::<u32>().ok())
            .filter(|v| (1..=VERSION).contains(v))
            .ok_or_else(|| {
                TraceError::line(
                    name,
                    dec.line_no,
                    format!(
                        "unsupported format version `{}` (this reader knows versions 1 to {VERSION})",
                        first.trim_start_matches(TEXT_MAGIC).trim()
                    ),
                )
            })?;
        let mut time_unit = None;
        let mut heap = HeapInfo::default();
        let mut source = String::new();
        while let Some(line) = dec.next_line()? {
            let (key, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
            let err = |m: String| TraceError::line(name, dec.line_no, m);
            match key {
                "time_unit" => {
                    time_unit = Some(TimeUnit::parse(rest.trim()).ok_or_else(|| {
                        err(format!(
                            "unknown time unit `{}`: expected ns, us, ms, s, cycles, records or bytes",
                            rest.trim()
                        ))
                    })?);
                }
                "heap" => {
                    for kv in rest.split_whitespace() {
                        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                        let field = match k {
                            "base" => &mut heap.base_addr,
                            "size" => &mut heap.size_bytes,
                            "bank" => &mut heap.bank_bytes,
                            _ => {
                                return Err(err(format!(
                                    "unknown heap field `{k}`: expected base=, size= or bank="
                                )));
                            }
                        };
                        *field = number(Some(v), &format!("heap {k}")).map_err(err)?;
                    }
                }
                "source" => {
                    source = unescape(rest).map_err(|e| err(format!("source: expected {e}")))?;
                }
                _ => {
                    dec.pending = Some(line);
                    break;
                }
            }
        }
        let time_unit = time_unit.ok_or_else(|| {
            TraceError::line(
                name,
                dec.line_no,
                "expected a `time_unit UNIT` header line before the first record",
            )
        })?;
        Ok((
            dec,
            TraceHeader {
                version,
                time_unit,
                heap,
                source,
            },
        ))
    }

    /// The next line that is neither blank nor a comment (without its line ending), or `None` at the end.
    fn next_line(&mut self) -> Result<Option<String>, TraceError> {
        loop {
            self.line.clear();
            self.line_no += 1;
            loop {
                let buf = self.src.fill_buf().map_err(|e| {
                    TraceError::line(&self.name, self.line_no, format!("cannot read: {e}"))
                })?;
                if buf.is_empty() {
                    break;
                }
                let (take, done) = match buf.iter().position(|b| *b == b'\n') {
                    Some(i) => (i + 1, true),
                    None => (buf.len(), false),
                };
                if self.line.len() + take > MAX_LINE_BYTES + 2 {
                    return Err(TraceError::line(
                        &self.name,
                        self.line_no,
                        format!(
                            "line longer than {MAX_LINE_BYTES} bytes: expected one record per line"
                        ),
                    ));
                }
                self.line.extend_from_slice(&buf[..take]);
                self.src.consume(take);
                if done {
                    break;
                }
            }
            if self.line.is_empty() {
                return Ok(None);
            }
            if self.line.ends_with(b"\n") {
                self.line.pop();
                if self.line.ends_with(b"\r") {
                    self.line.pop();
                }
            }
            let s = std::str::from_utf8(&self.line).map_err(|e| {
                TraceError::line(
                    &self.name,
                    self.line_no,
                    format!(
                        "invalid UTF-8 at column {}: expected UTF-8 text",
                        e.valid_up_to() + 1
                    ),
                )
            })?;
            let trimmed = s.trim_start();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            return Ok(Some(s.to_string()));
        }
    }

    /// The next event (definitions go into `tables`), or `None` after an `end` line whose count matched `events`.
    pub(crate) fn next(
        &mut self,
        tables: &mut Tables,
        events: u64,
    ) -> Result<Option<Event>, TraceError> {
        loop {
            let line = match self.pending.take() {
                Some(l) => l,
                None => self.next_line()?.ok_or_else(|| {
                    TraceError::line(
                        &self.name,
                        self.line_no,
                        "unexpected end of file: expected a record or `end N`",
                    )
                })?,
            };
            let at = self.line_no;
            let err = |m: String| TraceError::line(&self.name, at, m);
            let (key, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
            let table = match key {
                "site" => Some(Table::Site),
                "type" => Some(Table::Type),
                "gc_kind" => Some(Table::GcKind),
                _ => None,
            };
            if let Some(table) = table {
                let (id, name) = rest.split_once(' ').unwrap_or((rest, ""));
                let id = id32(Some(id), &format!("the {} id", table.keyword())).map_err(err)?;
                let expected = tables.get(table).len() as u64;
                if u64::from(id) != expected {
                    return Err(err(format!(
                        "{} ids are defined in order: expected {expected}, got {id}",
                        table.keyword()
                    )));
                }
                let name = unescape(name).map_err(|e| err(format!("expected {e}")))?;
                tables
                    .push(table, name)
                    .map_err(|e| err(format!("expected {e}")))?;
                continue;
            }
            let mut toks = rest.split(' ').filter(|t| !t.is_empty());
            let ev = match key {
                "alloc" => {
                    let id = number(toks.next(), "the object id").map_err(err)?;
                    let site = id32(toks.next(), "the site id").map_err(err)?;
                    let type_id = id32(toks.next(), "the type id").map_err(err)?;
                    let size_bytes = number(toks.next(), "the size").map_err(err)?;
                    let addr = number(toks.next(), "the address").map_err(err)?;
                    let t = number(toks.next(), "the time").map_err(err)?;
                    tables
                        .check(Table::Site, site)
                        .and_then(|()| tables.check(Table::Type, type_id))
                        .map_err(|e| err(format!("expected {e}")))?;
                    Event::Alloc {
                        id,
                        site,
                        type_id,
                        size_bytes,
                        addr,
                        t,
                    }
                }
                "move" => Event::Move {
                    id: number(toks.next(), "the object id").map_err(err)?,
                    addr: number(toks.next(), "the address").map_err(err)?,
                    t: number(toks.next(), "the time").map_err(err)?,
                },
                "death" => Event::Death {
                    id: number(toks.next(), "the object id").map_err(err)?,
                    t: number(toks.next(), "the time").map_err(err)?,
                },
                "access" => Event::Access {
                    id: number(toks.next(), "the object id").map_err(err)?,
                    t: number(toks.next(), "the time").map_err(err)?,
                },
                "gc_start" => {
                    let kind = id32(toks.next(), "the gc_kind id").map_err(err)?;
                    tables
                        .check(Table::GcKind, kind)
                        .map_err(|e| err(format!("expected {e}")))?;
                    Event::GcStart {
                        kind,
                        t: number(toks.next(), "the time").map_err(err)?,
                    }
                }
                "gc_end" => Event::GcEnd {
                    t: number(toks.next(), "the time").map_err(err)?,
                },
                "end" => {
                    let n = number(toks.next(), "the event count").map_err(err)?;
                    if n != events {
                        return Err(err(format!(
                            "`end` counts {n} events but {events} were read"
                        )));
                    }
                    if let Some(extra) = self.next_line()? {
                        return Err(TraceError::line(
                            &self.name,
                            self.line_no,
                            format!(
                                "`{}` after `end`: expected the end of the file",
                                extra.chars().take(40).collect::<String>()
                            ),
                        ));
                    }
                    return Ok(None);
                }
                "time_unit" | "heap" | "source" => {
                    return Err(err(format!(
                        "header line `{key}` after the first record: expected it before"
                    )));
                }
                _ => {
                    return Err(err(format!(
                        "unknown record `{}`: expected site, type, gc_kind, alloc, move, death, access, gc_start, gc_end or end",
                        key.chars().take(40).collect::<String>()
                    )));
                }
            };
            if let Some(extra) = toks.next() {
                return Err(err(format!(
                    "unexpected `{}` at the end of a {key} record",
                    extra.chars().take(40).collect::<String>()
                )));
            }
            return Ok(Some(ev));
        }
    }
}
