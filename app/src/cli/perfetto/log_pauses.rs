//! A GC log's pauses written as slice events on every core (issue 21, item 4: `export-perfetto` of a 1 GB log at
//! 200 MB/s; one thread formatting and writing them was 81–127 MB/s). The pauses are read back from
//! [`PauseRecords`] in input order in runs of [`BATCH`] ([`PauseRecords::runs`]: one read of each temporary file,
//! decoded where they are formatted; a run's buffers are used again); per round of
//! [`crate::parallel::in_rounds`] one core writes the run formatted in the round before, one reads the next
//! run, and the cores format this one's pieces ([`json_out::pause_slice`]) into memory. What depends on the pauses
//! before — the `thread_name` event before a track's first slice and the heap counter's points ([`HeapThinner`])
//! — is decided while a run is read, in order, so the bytes are those of writing the pauses one by one.

use std::io;
use std::sync::Mutex;

use gclab_core::importers::{PauseRecords, PauseRun, PauseSeries, PauseSink, RunReader};

use super::{GC_TID, HeapThinner, MUTATOR_TID, Out, PauseArgs, json_out, thread_event};
use crate::cli::{CliError, progress};

/// Pauses read per round.
const BATCH: usize = 1 << 16;
/// Pieces a run is formatted in (more than the cores, so that a core that finishes early takes another).
const PIECES: usize = 8;

/// A run of pauses with the track names to declare: (index in the run, name) before a track's first slice.
struct Batch<'s> {
    run: PauseRun,
    names: Vec<(usize, String)>,
    /// Where the run goes when the batch is written, to be read into again (no fresh pages per run: a third of the
    /// reading).
    spare: &'s Mutex<Vec<PauseRun>>,
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        if let Ok(mut spare) = self.spare.lock() {
            spare.push(std::mem::take(&mut self.run));
        }
    }
}

/// What is decided in input order while the runs are read.
struct InOrder<'a> {
    runs: RunReader<'a>,
    /// Per mutator (at most [`gclab_core::importers::MAX_MUTATORS`] of them), whether its track is named yet.
    named: Vec<bool>,
    heap: HeapThinner,
}

/// Writes the pauses of `p` as slices (one track per mutator, or the `GC` track when there is one) and returns
/// the heap points to be written as the `heap` counter.
pub(super) fn write(
    o: &mut Out,
    input: &str,
    p: &PauseSeries<PauseRecords>,
) -> Result<HeapThinner, CliError> {
    let records = &p.pauses;
    let broken = |e: &str| CliError::other(format!("{input}: cannot keep the pauses: {e}"));
    if let Some(e) = records.error() {
        return Err(broken(e));
    }
    let state = Mutex::new(InOrder {
        runs: records.runs(),
        named: vec![false; p.mutators.len()],
        heap: HeapThinner::new(records.heap_figures()),
    });
    let spare = Mutex::new(Vec::new());
    let stopped = || {
        CliError::other(format!(
            "{input}: a formatting thread stopped (internal error)"
        ))
    };
    let read = || -> Result<Option<Batch<'_>>, CliError> {
        let mut st = state.lock().map_err(|_| stopped())?;
        let st = &mut *st;
        let mut run = spare
            .lock()
            .ok()
            .and_then(|mut s| s.pop())
            .unwrap_or_default();
        st.runs.next_run(BATCH, &mut run);
        if run.is_empty() {
            return Ok(None);
        }
        let mut names = Vec::new();
        if records.heap_figures() > 0 {
            for x in records.run_pauses(&run, 0..run.len()) {
                if let Some(b) = x.heap_before_bytes {
                    st.heap.push((x.start_ns, b, x.heap_total_bytes));
                }
                if let Some(a) = x.heap_after_bytes {
                    st.heap.push((x.end_ns, a, x.heap_total_bytes));
                }
            }
        }
        for i in 0..run.len() {
            // Importers number at most MAX_MUTATORS mutators; the cap only bounds the table for a broken file.
            let m = run.mutator(i).min(gclab_core::importers::MAX_MUTATORS);
            if m >= st.named.len() {
                st.named.resize(m + 1, false);
            }
            if !std::mem::replace(&mut st.named[m], true) {
                let name = p
                    .mutators
                    .get(m)
                    .filter(|_| tid(p, m) != GC_TID)
                    .cloned()
                    .unwrap_or_else(|| "GC".to_string());
                names.push((i, name));
            }
        }
        Ok(Some(Batch {
            run,
            names,
            spare: &spare,
        }))
    };
    let piece = |b: &Batch<'_>, k: usize| {
        let n = b.run.len();
        let range = k * n / PIECES..(k + 1) * n / PIECES;
        // A pause's slice is at most about 250 bytes. (A fresh buffer per piece formats twice as fast as one
        // used again, measured.)
        let mut w = Vec::with_capacity(range.len() * 256);
        format_events(p, b, range, &mut w).map(|events| (w, events))
    };
    // The import showed its own progress; this line follows the writing (a 1 GB log's 2.5 GB of JSON take seconds).
    let total = records.len().max(1);
    let (mut shown, mut written) = (
        progress::Line::stderr(format!("export-perfetto {input}: writing")),
        0,
    );
    let apply = |b: &Batch<'_>, pieces: &[io::Result<(Vec<u8>, u64)>]| {
        written += b.run.len();
        shown.set(written as f64 / total as f64);
        for f in pieces {
            let (bytes, events) = f
                .as_ref()
                .map_err(|e| CliError::other(format!("{input}: cannot format a pause: {e}")))?;
            o.events_raw(bytes, *events)?;
        }
        Ok(())
    };
    crate::parallel::in_rounds("export", read, |_| PIECES, piece, apply, stopped)?;
    let state = state.into_inner().map_err(|_| stopped())?;
    if let Some(e) = records.error() {
        return Err(broken(e));
    }
    Ok(state.heap)
}

/// A pause's track: its mutator's, or the `GC` track when the log has one mutator.
fn tid(p: &PauseSeries<PauseRecords>, mutator: usize) -> u64 {
    if p.mutators.len() > 1 {
        MUTATOR_TID + mutator as u64
    } else {
        GC_TID
    }
}

/// Writes the events of `b`'s pauses in `range` to `w`, each after `,\n` (a track's name before its first slice),
/// and says how many.
fn format_events(
    p: &PauseSeries<PauseRecords>,
    b: &Batch<'_>,
    range: std::ops::Range<usize>,
    w: &mut Vec<u8>,
) -> io::Result<u64> {
    let mut events = 0;
    let mut names = b.names[b.names.partition_point(|(i, _)| *i < range.start)..].iter();
    let mut next_name = names.next();
    let pauses = p.pauses.run_pauses(&b.run, range.clone());
    for (i, x) in range.zip(pauses) {
        let tid = tid(p, x.mutator);
        if let Some((_, name)) = next_name.filter(|(at, _)| *at == i) {
            w.extend_from_slice(b",\n");
            serde_json::to_writer(&mut *w, &thread_event(tid, name))?;
            events += 1;
            next_name = names.next();
        }
        w.extend_from_slice(b",\n");
        json_out::pause_slice(
            &mut *w,
            tid,
            x.kind,
            x.start_ns,
            x.end_ns - x.start_ns.min(x.end_ns),
            &PauseArgs {
                cause: x.cause,
                gc_id: x.gc_id,
                heap_after_bytes: x.heap_after_bytes,
                heap_before_bytes: x.heap_before_bytes,
                heap_total_bytes: x.heap_total_bytes,
                line: x.line,
            },
        )?;
        events += 1;
    }
    Ok(events)
}
