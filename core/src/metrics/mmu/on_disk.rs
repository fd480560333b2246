//! The MMU of more pauses than memory should hold ([`MmuCurve::from_pauses_on_disk`], issue 21 item 4): the
//! pauses are clipped to the span and go through a small reorder buffer per mutator ([`InOrder`]) straight to that
//! mutator's steps; only when some mutator's come too far out of order for it (no log tried does) are they sorted
//! by mutator and time in runs of [`SORT_RUN`] that go to temporary files ([`crate::io::spill`]) and merged. They
//! are turned into steps as they come ([`StepsFromPauses`], the same code as [`UtilSeries::from_pauses`]), and
//! every series longer than [`SPILL_STEPS`] keeps its per-step arrays on disk behind a bounded block cache. The
//! queries are the in-memory ones: the MMU values are bit-for-bit those of [`MmuCurve::new`] over
//! [`UtilSeries::from_pauses`] (the fine bands are capped at [`FINE_BANDS_ON_DISK_MAX`], which changes how much is
//! pruned, not the minimum), and the worst windows use the same 1000 bands, so they are the same windows. Memory:
//! a reorder buffer per mutator or one sort run, a few blocks per array and the fine bands, whatever the pause
//! count.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;

use super::col::{Col, ColBuilder, Idx, UtilBuilder};
use super::prepared::{Prepared, STEPS_PER_FINE_BAND};
use super::steps::{SPILL_STEPS, Steps};
use super::{MmuCurve, StepsFromPauses};
use crate::io::reorder::Reorder;
use crate::io::spill::{Record, Spill};

/// Pauses sorted in memory at a time (24 bytes each).
const SORT_RUN: usize = 1 << 20;
/// Fine bands of a series on disk (20 bytes each, in memory): while the budget over all series lasts (84 MB,
/// counted by the bands a series uses) at least the minimum and at most the maximum, after it the floor. Finer bands prune more and bound the
/// searches inside a band (a 1 GB pause CSV: ~75 steps a band at the minimum, ~10 at the maximum); they change
/// what is pruned, never a result.
const FINE_BANDS_ON_DISK_MIN: usize = 1 << 17;
const FINE_BANDS_ON_DISK_MAX: usize = 1 << 20;
const FINE_BANDS_ON_DISK_BUDGET: usize = 1 << 22;
/// Fine bands of a series on disk once the budget is spent (many mutators; a series is on disk from 2^16 steps, so
/// at most one per 2^16 steps of input): 80 KB each.
const FINE_BANDS_ON_DISK_FLOOR: usize = 1 << 12;
/// Most mutators whose steps are made all at once through their reorder buffers (each holds up to `SPILL_STEPS`
/// steps in memory before its arrays go to disk, 1 MiB, and its buffer, 64 KiB); more go through the sort.
const SORTED_PATH_MUTATORS: usize = 16;

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
    /// The curve of `mutators` series (at least one) stopped during the pauses that `pauses` iterates
    /// (`(start, end, mutator)`, any order; mutators past the count are left out) over `[span.0, span.1]`, as
    /// [`MmuCurve::new`] over [`UtilSeries::from_pauses`](super::UtilSeries::from_pauses) per mutator would
    /// give, in bounded memory. `pauses` is iterated a second time only when the first pass meets a mutator whose
    /// pauses are too far out of order for its reorder buffer: then they are sorted on disk.
    /// Errors are the temporary files' (see [`MmuCurve::error`] for the ones met later, while querying).
    pub fn from_pauses_on_disk<I: Iterator<Item = (u64, u64, usize)>>(
        pauses: impl Fn() -> I,
        mutators: usize,
        span: (u64, u64),
    ) -> io::Result<Self> {
        Self::on_disk_with(pauses, mutators, span, SORT_RUN, SPILL_STEPS)
    }

    /// [`MmuCurve::from_pauses_on_disk`] with the sort run and the spill threshold given (tests force both low).
    pub fn on_disk_with<I: Iterator<Item = (u64, u64, usize)>>(
        pauses: impl Fn() -> I,
        mutators: usize,
        (s0, s1): (u64, u64),
        sort_run: usize,
        spill_steps: usize,
    ) -> io::Result<Self> {
        let count = mutators.max(1);
        // Clipped to the span, empty ones and mutators past the count left out: the keys the series are built from.
        let keys = || {
            pauses().filter_map(move |(a, b, m)| {
                let (a, b) = (a.max(s0), b.min(s1));
                (b > a && m < count).then_some(Key(m as u64, a, b))
            })
        };
        // Each mutator's keys through its reorder buffer straight to its steps, all mutators at once; the sort
        // when there are many mutators or some come too far out of order.
        if count <= SORTED_PATH_MUTATORS {
            let mut live = LiveSteps::starting(s0, spill_steps);
            if keys().all(|Key(m, a, b)| live.add(m as usize, a, b))
                && let Some(curve) = live.into_curve(count, (s0, s1))
            {
                return curve;
            }
        }
        let mut build = Builder::new(count, (s0, s1), spill_steps);
        build.build_by_sorting(keys(), count, sort_run.max(1))?;
        Ok(build.curve())
    }
}

impl MmuCurve<'static> {
    /// The curve of `series` (a utilisation CSV's, in memory or on disk), as [`MmuCurve::new`] over the same steps
    /// in memory gives it: series with fewer than two steps, no duration or unsorted times are left out. Errors are
    /// the temporary files' (see [`MmuCurve::error`] for the ones met later, while querying).
    pub fn from_steps(series: Vec<Steps>) -> io::Result<Self> {
        let start = series.iter().map(|s| s.span().0).min().unwrap_or(0);
        let mut build = Builder::new(series.len(), (start, start), SPILL_STEPS);
        let ended = (series.into_iter())
            .map(|s| {
                let spill = build.fine_bands(s.len(), s.on_disk());
                (s.times, s.util, spill)
            })
            .collect();
        build.prepare_all(ended)?;
        Ok(build.curve())
    }
}

/// A pause list's series made while its pauses are read ([`LiveSteps::add`], in input order), so that they take
/// no pass of their own after the import (issue 21 item 4: a 1 GB pause CSV's steps took 0.9 s on one core
/// after it; made in the import's ordered job they overlap the parse). Each mutator's pauses go through its
/// [`InOrder`] to its steps for a span starting at 0 (the span's start, when [`MmuCurve::on_disk_with`] takes
/// this way with its clipped keys), whose end is given at the end: [`LiveSteps::into_curve`]
/// is then [`MmuCurve::from_pauses_on_disk`] over the same pauses, the same calls in the same order, whenever
/// that would clip nothing (the span starts at 0 and ends after every pause, as every importer's default span
/// does) and takes the in-order way (few mutators, pauses in order for the buffers); otherwise it is `None`.
pub struct LiveSteps {
    current: Vec<(InOrder, Current)>,
    /// Where the span starts (0 for the steps made as an import reads) and the steps from which a series' arrays
    /// go to disk. `[ns]`
    span_start: u64,
    spill_steps: usize,
    /// The latest end added. `[ns]`
    max_end: u64,
    /// False once a mutator's pauses came too far out of order, one past [`SORTED_PATH_MUTATORS`] came, or a
    /// temporary file failed: the steps are dropped and the caller takes the other way.
    ok: bool,
}

impl std::fmt::Debug for LiveSteps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (f.debug_struct("LiveSteps"))
            .field("mutators", &self.current.len())
            .field("max_end", &self.max_end)
            .field("ok", &self.ok)
            .finish()
    }
}

impl Default for LiveSteps {
    fn default() -> Self {
        Self::starting(0, SPILL_STEPS)
    }
}

impl LiveSteps {
    /// Steps for a span starting at `span_start` (the in-order way of [`MmuCurve::on_disk_with`], whose keys come
    /// clipped to its span).
    fn starting(span_start: u64, spill_steps: usize) -> Self {
        LiveSteps {
            current: Vec::new(),
            span_start,
            spill_steps,
            max_end: 0,
            ok: true,
        }
    }

    /// Adds mutator `m`'s pause `[a, b)` (an empty one is left out, as the clipped keys leave it out); false once
    /// the steps can no longer stand for the curve.
    pub fn add(&mut self, m: usize, a: u64, b: u64) -> bool {
        if !self.ok || b <= a {
            return self.ok;
        }
        self.max_end = self.max_end.max(b);
        while self.current.len() <= m {
            let made =
                (m < SORTED_PATH_MUTATORS).then(|| Current::new(self.span_start, self.spill_steps));
            match made {
                Some(Ok(c)) => self.current.push((InOrder::new(), c)),
                _ => {
                    self.fail();
                    return false;
                }
            }
        }
        let (r, c) = &mut self.current[m];
        if !r.push((a, b), |(a, b)| c.add(a, b)) {
            self.fail();
        }
        self.ok
    }

    fn fail(&mut self) {
        self.ok = false;
        self.current = Vec::new();
    }

    /// The curve of `mutators` series over `span`, as [`MmuCurve::from_pauses_on_disk`] would make it from the
    /// pauses added; `None` when these steps cannot stand for it (see the type).
    pub fn into_curve(
        mut self,
        mutators: usize,
        span: (u64, u64),
    ) -> Option<io::Result<MmuCurve<'static>>> {
        let count = mutators.max(1);
        if !self.ok
            || span.0 != self.span_start
            || span.1 < self.max_end
            || self.current.len() > count
        {
            return None;
        }
        if count > SORTED_PATH_MUTATORS
            || !self
                .current
                .iter_mut()
                .all(|(r, c)| r.drain(|(a, b)| c.add(a, b)))
        {
            return None;
        }
        let mut current: Vec<Current> = self.current.into_iter().map(|(_, c)| c).collect();
        while current.len() < count {
            match Current::new(self.span_start, self.spill_steps) {
                Ok(c) => current.push(c),
                Err(e) => return Some(Err(e)),
            }
        }
        let mut build = Builder::new(count, span, self.spill_steps);
        Some(build.finish_all(current).map(|()| build.curve()))
    }
}

/// One mutator's pauses `(start, end)` put back in order ([`crate::io::reorder`]; a log line giving a pause's end
/// time and its length places the pause before lines printed earlier), with a check that they are: a key coming
/// out lower than the one before means they were too far out of order for the buffer.
#[derive(Debug)]
struct InOrder {
    buffer: Reorder<(u64, u64)>,
    /// The last key out.
    last: (u64, u64),
}

/// Keys an [`InOrder`] holds per mutator (16 bytes each).
const REORDER: usize = 1 << 12;

impl InOrder {
    fn new() -> Self {
        InOrder {
            buffer: Reorder::new(REORDER),
            last: (0, 0),
        }
    }

    /// Hands `out` the key `k` lets go, if any; false when it is out of order.
    fn push(&mut self, k: (u64, u64), out: impl FnMut((u64, u64))) -> bool {
        let x = self.buffer.push(k);
        self.pass(x, out)
    }

    /// Hands `out` every key still held, in order; false as [`InOrder::push`].
    fn drain(&mut self, mut out: impl FnMut((u64, u64))) -> bool {
        let mut ok = true;
        while let Some(k) = self.buffer.pop() {
            ok &= self.pass(Some(k), &mut out);
        }
        ok
    }

    fn pass(&mut self, x: Option<(u64, u64)>, mut out: impl FnMut((u64, u64))) -> bool {
        let Some(k) = x else { return true };
        let ok = k >= self.last;
        self.last = k;
        out(k);
        ok
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

/// The series being built from the pauses, mutator by mutator in ascending order.
struct Builder {
    /// Prepared series so far (None: left out, as [`MmuCurve::new`] leaves it out).
    series: Vec<Option<(usize, Prepared<'static>)>>,
    span: (u64, u64),
    spill_steps: usize,
    /// What is left of [`FINE_BANDS_ON_DISK_BUDGET`].
    fine_left: usize,
}

/// A series' steps, ended: its times and utilisations, and its fine bands when its arrays are on disk.
type Ended = (Col<'static, u64>, Col<'static, f64>, Option<usize>);

/// One mutator's steps as they are made.
struct Current {
    steps: StepsFromPauses,
    times: ColBuilder<u64>,
    util: UtilBuilder,
    error: Option<io::Error>,
}

impl Current {
    fn new(span_start: u64, spill_steps: usize) -> io::Result<Self> {
        Ok(Current {
            steps: StepsFromPauses::new(span_start),
            times: ColBuilder::new(spill_steps, 0)?,
            util: UtilBuilder::new(spill_steps),
            error: None,
        })
    }

    fn add(&mut self, a: u64, b: u64) {
        let (times, util, error) = (&mut self.times, &mut self.util, &mut self.error);
        self.steps
            .pause(a, b, &mut |t, u| emit(times, util, error, t, u));
    }
}

impl Builder {
    fn new(count: usize, span: (u64, u64), spill_steps: usize) -> Self {
        Builder {
            series: Vec::with_capacity(count),
            span,
            spill_steps,
            fine_left: FINE_BANDS_ON_DISK_BUDGET,
        }
    }

    /// The curve of the series prepared.
    fn curve(self) -> MmuCurve<'static> {
        MmuCurve {
            series: self.series.into_iter().flatten().collect(),
            start_ns: self.span.0,
        }
    }

    /// Any order: sorted by mutator and time in runs of `sort_run` on disk, then merged.
    fn build_by_sorting(
        &mut self,
        keys: impl Iterator<Item = Key>,
        count: usize,
        sort_run: usize,
    ) -> io::Result<()> {
        let mut runs: Vec<Spill<Key>> = Vec::new();
        let mut buf: Vec<Key> = Vec::new();
        for k in keys {
            buf.push(k);
            if buf.len() >= sort_run {
                runs.push(spill_run(&mut buf)?);
            }
        }
        buf.sort_unstable();
        // The mutator whose steps are being made and its steps.
        let mut current: Option<(u64, Current)> = None;
        let mut add = |b: &mut Builder, Key(m, x, y): Key| -> io::Result<()> {
            if current.as_ref().is_none_or(|c| c.0 != m) {
                if let Some((_, c)) = current.take() {
                    b.finish(c)?;
                }
                while (b.series.len() as u64) < m {
                    b.finish(Current::new(b.span.0, b.spill_steps)?)?;
                }
                current = Some((m, Current::new(b.span.0, b.spill_steps)?));
            }
            if let Some((_, c)) = &mut current {
                c.add(x, y);
            }
            Ok(())
        };
        if runs.is_empty() {
            for k in buf.drain(..) {
                add(self, k)?;
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
                add(self, k)?;
                if let Some(next) = iters[r].next() {
                    heap.push(Reverse((next, r)));
                }
            }
            if let Some(e) = runs.iter().find_map(Spill::error) {
                return Err(io::Error::other(e.to_string()));
            }
        }
        if let Some((_, c)) = current.take() {
            self.finish(c)?;
        }
        while self.series.len() < count {
            self.finish(Current::new(self.span.0, self.spill_steps)?)?;
        }
        Ok(())
    }

    /// Ends a mutator's steps and prepares its series, the next in order.
    fn finish(&mut self, c: Current) -> io::Result<()> {
        let steps = self.end(c)?;
        self.prepared(Self::prepare(steps))
    }

    /// Ends the mutators' steps and prepares their series, the next ones in order, on every core
    /// ([`crate::parallel`]): each series is prepared alone, so the result is [`Builder::finish`]'s one by one.
    fn finish_all(&mut self, current: Vec<Current>) -> io::Result<()> {
        let ended = (current.into_iter())
            .map(|c| self.end(c))
            .collect::<io::Result<_>>()?;
        self.prepare_all(ended)
    }

    /// Prepares the ended series, the next ones in order, on every core.
    fn prepare_all(&mut self, ended: Vec<Ended>) -> io::Result<()> {
        let jobs: Vec<std::sync::Mutex<Option<Ended>>> = (ended.into_iter())
            .map(|e| std::sync::Mutex::new(Some(e)))
            .collect();
        let prepared = crate::parallel::map_on_cores(&jobs, "mmu-prepare", |job| {
            job.lock().ok()?.take().map(Self::prepare)
        });
        for p in prepared {
            let p = p.flatten();
            self.prepared(
                p.unwrap_or_else(|| Err(io::Error::other("a preparing thread stopped"))),
            )?;
        }
        Ok(())
    }

    /// Ends a mutator's steps: its arrays, and the fine bands it may have when on disk (out of what is left of the
    /// budget, in mutator order).
    fn end(&mut self, mut c: Current) -> io::Result<Ended> {
        let (times, util, error) = (&mut c.times, &mut c.util, &mut c.error);
        c.steps
            .finish(self.span.1, &mut |t, u| emit(times, util, error, t, u));
        if let Some(e) = c.error {
            return Err(e);
        }
        let spill = self.fine_bands(c.times.len(), c.times.len() >= self.spill_steps);
        Ok((c.times.finish(), c.util.finish()?, spill))
    }

    /// The fine bands of the next series, of `steps` steps, when `on_disk` (out of what is left of the budget, in
    /// series order); None in memory.
    fn fine_bands(&mut self, steps: usize, on_disk: bool) -> Option<usize> {
        // Past the budget, a series gets the floor: hundreds of mutators on disk once took 2^17 bands each.
        let fine = match self.fine_left {
            left if left >= FINE_BANDS_ON_DISK_MIN => left.min(FINE_BANDS_ON_DISK_MAX),
            left => left.max(FINE_BANDS_ON_DISK_FLOOR),
        };
        on_disk.then(|| {
            let used = (steps / STEPS_PER_FINE_BAND).clamp(1, fine);
            self.fine_left = self.fine_left.saturating_sub(used);
            fine
        })
    }

    /// Prepares one series from its ended steps.
    fn prepare((times, util, spill): Ended) -> io::Result<Option<Prepared<'static>>> {
        let p = Prepared::build(times, util, spill)?;
        // The blocks read while building are not kept: the queries run on views, each with its own caches.
        p.iter().for_each(Prepared::forget_blocks);
        match p.as_ref().and_then(Prepared::error) {
            Some(e) => Err(io::Error::other(e.to_string())),
            None => Ok(p),
        }
    }

    /// Adds the next series in order (None: left out).
    fn prepared(&mut self, p: io::Result<Option<Prepared<'static>>>) -> io::Result<()> {
        let k = self.series.len();
        self.series.push(p?.map(|p| (k, p)));
        Ok(())
    }
}

impl Prepared<'_> {
    /// Its arrays on disk, each behind a block cache (a view's share of the cache budget: [`MmuCurve::view`]).
    pub(super) fn arrays_on_disk(&self) -> usize {
        let idx = |i: &Idx<'_>| i.col().is_some_and(Col::paged);
        [self.times.paged(), self.util.paged(), self.sums.paged()]
            .into_iter()
            .chain([idx(&self.falls), idx(&self.rises)])
            .filter(|&on_disk| on_disk)
            .count()
    }

    /// Drops the blocks its caches hold (after it is built: the curve itself keeps none while views query).
    pub(super) fn forget_blocks(&self) {
        self.times.forget();
        self.util.forget();
        self.sums.forget();
        for i in [&self.falls, &self.rises] {
            i.col().map(Col::forget);
        }
    }
}

fn emit(
    times: &mut ColBuilder<u64>,
    util: &mut UtilBuilder,
    error: &mut Option<io::Error>,
    t: u64,
    u: f64,
) {
    if let Err(e) = times.push(t).and_then(|()| util.push(u)) {
        error.get_or_insert(e);
    }
}
