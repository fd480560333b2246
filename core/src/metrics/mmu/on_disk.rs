//! The MMU of more pauses than memory should hold ([`MmuCurve::from_pauses_on_disk`], issue 21 item 4): the
//! pauses are clipped to the span and sorted by mutator and time in runs of [`SORT_RUN`] that go to temporary
//! files ([`crate::io::spill`]), merged, turned into steps as they come ([`StepsFromPauses`], the same code as
//! [`UtilSeries::from_pauses`]), and every series longer than [`SPILL_STEPS`] keeps its per-step arrays on disk
//! behind a bounded block cache. The queries are the in-memory ones: the MMU values are bit-for-bit those of
//! [`MmuCurve::new`] over [`UtilSeries::from_pauses`] (the fine bands are capped at [`FINE_BANDS_ON_DISK`], which
//! changes how much is pruned, not the minimum), and the worst windows use the same 1000 bands, so they are the
//! same windows. Memory: one sort run, a few blocks per array and the fine bands, whatever the pause count.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;

use super::col::{Col, ColBuilder};
use super::prepared::Prepared;
use super::{MmuCurve, StepsFromPauses};
use crate::io::spill::{Record, Spill};

/// Pauses sorted in memory at a time (24 bytes each).
const SORT_RUN: usize = 1 << 20;
/// Steps of a series from which its arrays go to disk (fewer stay in memory: small, and no files).
const SPILL_STEPS: usize = 1 << 16;
/// Fine bands of a series on disk (20 bytes each, in memory): at least the minimum, at most the maximum, and
/// beyond the minimum only while the budget over all series lasts (84 MB). Finer bands prune more and bound the
/// searches inside a band (a 1 GB pause CSV: ~75 steps a band at the minimum, ~10 at the maximum); they change
/// what is pruned, never a result.
const FINE_BANDS_ON_DISK_MIN: usize = 1 << 17;
const FINE_BANDS_ON_DISK_MAX: usize = 1 << 20;
const FINE_BANDS_ON_DISK_BUDGET: usize = 1 << 22;

/// A clipped pause: mutator, start, end (sorted in that order). `[ns]`
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Key(u64, u64, u64);

impl Record for Key {
    const SIZE: usize = 24;
    fn put(self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.0.to_le_bytes());
        out[8..16].copy_from_slice(&self.1.to_le_bytes());
        out[16..].copy_from_slice(&self.2.to_le_bytes());
    }
    fn take(b: &[u8]) -> Self {
        Key(
            u64::take(&b[..8]),
            u64::take(&b[8..16]),
            u64::take(&b[16..]),
        )
    }
}

impl MmuCurve<'static> {
    /// The curve of `mutators` series (at least one) stopped during `pauses` (`(start, end, mutator)`, any order;
    /// mutators past the count are left out) over `[span.0, span.1]`, as [`MmuCurve::new`] over
    /// [`UtilSeries::from_pauses`](super::UtilSeries::from_pauses) per mutator would give, in bounded memory.
    /// Errors are the temporary files' (see [`MmuCurve::error`] for the ones met later, while querying).
    pub fn from_pauses_on_disk(
        pauses: impl Iterator<Item = (u64, u64, usize)>,
        mutators: usize,
        span: (u64, u64),
    ) -> io::Result<Self> {
        Self::on_disk_with(pauses, mutators, span, SORT_RUN, SPILL_STEPS)
    }

    /// [`MmuCurve::from_pauses_on_disk`] with the sort run and the spill threshold given (tests force both low).
    pub fn on_disk_with(
        pauses: impl Iterator<Item = (u64, u64, usize)>,
        mutators: usize,
        (s0, s1): (u64, u64),
        sort_run: usize,
        spill_steps: usize,
    ) -> io::Result<Self> {
        let count = mutators.max(1);
        let sort_run = sort_run.max(1);
        let mut runs: Vec<Spill<Key>> = Vec::new();
        let mut buf: Vec<Key> = Vec::new();
        for (a, b, m) in pauses {
            let (a, b) = (a.max(s0), b.min(s1));
            if b > a && m < count {
                buf.push(Key(m as u64, a, b));
                if buf.len() >= sort_run {
                    runs.push(spill_run(&mut buf)?);
                }
            }
        }
        buf.sort_unstable();
        let mut build = Builder {
            series: Vec::with_capacity(count),
            current: None,
            span: (s0, s1),
            spill_steps,
            fine_left: FINE_BANDS_ON_DISK_BUDGET,
        };
        if runs.is_empty() {
            for k in buf.drain(..) {
                build.add(k)?;
            }
        } else {
            if !buf.is_empty() {
                runs.push(spill_run(&mut buf)?);
            }
            drop(buf);
            // k-way merge of the sorted runs.
            let mut iters: Vec<_> = runs.iter().map(Spill::iter).collect();
            let mut heap: BinaryHeap<Reverse<(Key, usize)>> =
                BinaryHeap::with_capacity(iters.len());
            for (r, it) in iters.iter_mut().enumerate() {
                if let Some(k) = it.next() {
                    heap.push(Reverse((k, r)));
                }
            }
            while let Some(Reverse((k, r))) = heap.pop() {
                build.add(k)?;
                if let Some(next) = iters[r].next() {
                    heap.push(Reverse((next, r)));
                }
            }
            if let Some(e) = runs.iter().find_map(Spill::error) {
                return Err(io::Error::other(e.to_string()));
            }
        }
        while build.series.len() < count {
            build.next_series()?;
        }
        build.close()?;
        Ok(MmuCurve {
            series: build.series.into_iter().flatten().collect(),
            start_ns: s0,
        })
    }
}

impl MmuCurve<'_> {
    /// The first I/O error met on a temporary file while querying, if any: results computed after it are not
    /// to be trusted.
    pub fn error(&self) -> Option<String> {
        self.series
            .iter()
            .find_map(|(_, p)| p.error().map(str::to_string))
    }
}

/// Sorts `buf` and moves it to a temporary file.
fn spill_run(buf: &mut Vec<Key>) -> io::Result<Spill<Key>> {
    buf.sort_unstable();
    let mut run = Spill::new()?;
    buf.drain(..).for_each(|k| run.push(k));
    match run.error() {
        Some(e) => Err(io::Error::other(e.to_string())),
        None => Ok(run),
    }
}

/// The series being built from the sorted pauses.
struct Builder {
    /// Prepared series so far (None: left out, as [`MmuCurve::new`] leaves it out).
    series: Vec<Option<(usize, Prepared<'static>)>>,
    current: Option<Current>,
    span: (u64, u64),
    spill_steps: usize,
    /// What is left of [`FINE_BANDS_ON_DISK_BUDGET`].
    fine_left: usize,
}

struct Current {
    steps: StepsFromPauses,
    times: ColBuilder<u64>,
    util: ColBuilder<f64>,
    error: Option<io::Error>,
}

impl Builder {
    /// Adds a pause (mutators in ascending order).
    fn add(&mut self, Key(m, a, b): Key) -> io::Result<()> {
        while self.series.len() < m as usize + 1 || self.current.is_none() {
            self.next_series()?;
        }
        let c = self
            .current
            .as_mut()
            .ok_or_else(|| io::Error::other("no series"))?;
        let (times, util, error) = (&mut c.times, &mut c.util, &mut c.error);
        c.steps
            .pause(a, b, &mut |t, u| emit(times, util, error, t, u));
        Ok(())
    }

    /// Finishes the current series (if any) and starts the next.
    fn next_series(&mut self) -> io::Result<()> {
        self.close()?;
        self.series.push(None);
        self.current = Some(Current {
            steps: StepsFromPauses::new(self.span.0),
            times: ColBuilder::new(self.spill_steps, 0)?,
            util: ColBuilder::new(self.spill_steps, 0)?,
            error: None,
        });
        Ok(())
    }

    /// Finishes the current series into its slot.
    fn close(&mut self) -> io::Result<()> {
        let Some(mut c) = self.current.take() else {
            return Ok(());
        };
        let (times, util, error) = (&mut c.times, &mut c.util, &mut c.error);
        c.steps
            .finish(self.span.1, &mut |t, u| emit(times, util, error, t, u));
        if let Some(e) = c.error {
            return Err(e);
        }
        let on_disk = c.times.len() >= self.spill_steps;
        let (times, util): (Col<'static, u64>, Col<'static, f64>) =
            (c.times.finish(), c.util.finish());
        let fine = (self.fine_left).clamp(FINE_BANDS_ON_DISK_MIN, FINE_BANDS_ON_DISK_MAX);
        let spill = on_disk.then(|| {
            self.fine_left = self.fine_left.saturating_sub(fine);
            fine
        });
        let k = self.series.len() - 1;
        let p = Prepared::build(times, util, spill)?;
        if let Some(e) = p.as_ref().and_then(Prepared::error) {
            return Err(io::Error::other(e.to_string()));
        }
        self.series[k] = p.map(|p| (k, p));
        Ok(())
    }
}

fn emit(
    times: &mut ColBuilder<u64>,
    util: &mut ColBuilder<f64>,
    error: &mut Option<io::Error>,
    t: u64,
    u: f64,
) {
    if let Err(e) = times.push(t).and_then(|()| util.push(u)) {
        error.get_or_insert(e);
    }
}
