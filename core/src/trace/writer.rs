//! `TraceWriter`: streams a trace of either form to any `Write`. Strings are interned (a site, type or GC kind is
//! defined the first time it is used) or defined explicitly (to copy a trace's tables exactly); every event is
//! checked against the tables before it is written, so a writer never produces a file its reader rejects.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::io::AtomicFile;

use super::binary::BinEncoder;
use super::{Event, Form, MAX_STRING_BYTES, Table, Tables, TraceError, TraceHeader, blocks, text};

/// A streaming trace writer. Call [`TraceWriter::finish`] to write the `end` record: a file without it is
/// reported as truncated by readers.
pub struct TraceWriter<W: Write> {
    out: W,
    form: Form,
    bin: BinEncoder,
    buf: Vec<u8>,
    tables: Tables,
    interned: HashMap<(Table, String), u32>,
    events: u64,
}

impl<W: Write> std::fmt::Debug for TraceWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceWriter")
            .field("form", &self.form)
            .field("events", &self.events)
            .finish_non_exhaustive()
    }
}

fn invalid(msg: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, msg)
}

/// A trace writer to a file: the file is replaced atomically by [`TraceWriter::commit`] (see [`AtomicFile`]), so
/// an interrupted or failed write leaves the old file, and the input may be the file being replaced.
pub type FileTraceWriter = TraceWriter<BufWriter<AtomicFile>>;

impl FileTraceWriter {
    /// Starts replacing `path` and writes the header; the form is `form`, or the one the path's name asks for
    /// ([`Form::for_path`]). Nothing appears at `path` until [`TraceWriter::commit`].
    pub fn create(
        path: &Path,
        form: Option<Form>,
        header: &TraceHeader,
    ) -> Result<Self, TraceError> {
        let name = path.display().to_string();
        let f = AtomicFile::create(path)
            .map_err(|e| TraceError::writing(&name, format!("cannot create: {e}")))?;
        TraceWriter::new(
            BufWriter::with_capacity(256 * 1024, f),
            form.unwrap_or_else(|| Form::for_path(path)),
            header,
        )
        .map_err(|e| TraceError::writing(&name, format!("cannot write: {e}")))
    }

    /// Writes the `end` record and replaces the destination with the finished file.
    pub fn commit(self) -> std::io::Result<()> {
        self.finish()?
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?
            .commit()
    }
}

impl<W: Write> TraceWriter<W> {
    /// Writes the header of a `form` trace to `out`.
    pub fn new(mut out: W, form: Form, header: &TraceHeader) -> std::io::Result<Self> {
        if header.source.len() > MAX_STRING_BYTES {
            return Err(invalid(format!(
                "source longer than {MAX_STRING_BYTES} bytes"
            )));
        }
        let mut bin = BinEncoder::default();
        let mut buf = Vec::with_capacity(64 * 1024);
        match form {
            Form::Text => {
                buf.extend_from_slice(text::header(header).as_bytes());
                out.write_all(&buf)?;
                buf.clear();
            }
            Form::Binary => {
                // The magic and version stand before the blocks; the header fields open the first block.
                bin.preamble(&mut buf);
                out.write_all(&buf)?;
                buf.clear();
                bin.header(&mut buf, header);
            }
        }
        Ok(TraceWriter {
            out,
            form,
            bin,
            buf,
            tables: Tables::default(),
            interned: HashMap::new(),
            events: 0,
        })
    }

    /// Defines a new entry `name` in `table` (even if an equal one exists) and returns its id.
    pub fn define(&mut self, table: Table, name: &str) -> std::io::Result<u32> {
        let id = self.tables.push(table, name.to_string()).map_err(invalid)?;
        match self.form {
            Form::Text => self
                .buf
                .extend_from_slice(text::def(table, id, name).as_bytes()),
            Form::Binary => self.bin.def(&mut self.buf, table, name),
        }
        self.interned.entry((table, name.to_string())).or_insert(id);
        self.flush_if_full()?;
        Ok(id)
    }

    /// The id of `name` in `table`, defining it on first use (names longer than the limit are cut).
    pub fn intern(&mut self, table: Table, name: &str) -> std::io::Result<u32> {
        let name = super::clip_string(name);
        if let Some(id) = self.interned.get(&(table, name.to_string())) {
            return Ok(*id);
        }
        self.define(table, name)
    }

    /// The tables written so far.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// Writes one event.
    pub fn event(&mut self, ev: &Event) -> std::io::Result<()> {
        match *ev {
            Event::Alloc { site, type_id, .. } => self
                .tables
                .check(Table::Site, site)
                .and_then(|()| self.tables.check(Table::Type, type_id)),
            Event::GcStart { kind, .. } => self.tables.check(Table::GcKind, kind),
            _ => Ok(()),
        }
        .map_err(|e| invalid(format!("event {ev:?}: expected {e}")))?;
        match self.form {
            Form::Text => self.buf.extend_from_slice(text::event(ev).as_bytes()),
            Form::Binary => self.bin.event(&mut self.buf, ev),
        }
        self.events += 1;
        self.flush_if_full()
    }

    /// Events written so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    fn flush_if_full(&mut self) -> std::io::Result<()> {
        if self.buf.len() >= 60 * 1024 {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// Writes what is buffered: as it is (text) or as one checksummed block (binary).
    fn flush_buf(&mut self) -> std::io::Result<()> {
        match self.form {
            Form::Text => self.out.write_all(&self.buf)?,
            Form::Binary => blocks::frame(&mut self.out, &self.buf)?,
        }
        self.buf.clear();
        Ok(())
    }

    /// Writes the `end` record, flushes, and returns the sink.
    pub fn finish(mut self) -> std::io::Result<W> {
        match self.form {
            Form::Text => self
                .buf
                .extend_from_slice(text::end(self.events).as_bytes()),
            Form::Binary => self.bin.end(&mut self.buf, self.events),
        }
        self.flush_buf()?;
        self.out.flush()?;
        Ok(self.out)
    }
}
