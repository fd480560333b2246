//! The storage under [`super::PauseRecords`]: pauses as fixed records in memory, then in two temporary files — a
//! 40-byte fixed part per pause ([`Core`]: times, line, mutator, kind, cause, and which optional values follow)
//! and the optional values a log gives (gc id, heap before, after, total), only those present, 8 bytes each. A pause
//! CSV, which gives none, spills 40 bytes a pause instead of 80 (half the temporary file's writes and reads, which
//! were a fifth of a 1 GB export's system time); a HotSpot line with all four, 72.
//!
//! Reading is sequential ([`Store::iter`], or runs of consecutive pauses by [`RunReader`]): a pause's optional
//! values are found by counting those of the pauses before it.

use crate::io::spill::{Record, Spill};

/// The index that stands for "no cause".
pub(super) const NONE: u32 = u32::MAX;
/// Bits of [`Core`]'s line word that hold the line (the top 4 say which optional values follow).
const LINE_BITS: u32 = 60;

/// One pause with its strings as table indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Rec {
    pub(super) start_ns: u64,
    pub(super) end_ns: u64,
    pub(super) mutator: u64,
    pub(super) kind: u32,
    /// [`NONE`]: no cause.
    pub(super) cause: u32,
    /// `Option<u64>` as (present, value): gc id, heap before, after, total.
    pub(super) opt: [(bool, u64); 4],
    /// 1-based input line, below 2^60.
    pub(super) line: u64,
}

impl Rec {
    /// The optional values present, in order (what follows the fixed part).
    fn present_values(&self) -> impl Iterator<Item = u64> + '_ {
        self.opt.iter().filter(|o| o.0).map(|o| o.1)
    }

    /// Which optional values are present, bit k for `opt[k]`.
    fn present(&self) -> u64 {
        (self.opt.iter().enumerate()).fold(0, |p, (k, &(has, _))| p | u64::from(has) << k)
    }

    /// The record from its fixed part and its optional values, taken in order from `opts`.
    fn join(c: &Core, mut opts: impl FnMut() -> u64) -> Rec {
        let present = c.line_present >> LINE_BITS;
        let mut opt = [(false, 0); 4];
        for (k, o) in opt.iter_mut().enumerate() {
            if (present >> k) & 1 == 1 {
                *o = (true, opts());
            }
        }
        Rec {
            start_ns: c.start_ns,
            end_ns: c.end_ns,
            mutator: c.mutator,
            kind: c.kind,
            cause: c.cause,
            opt,
            line: c.line_present & ((1 << LINE_BITS) - 1),
        }
    }
}

/// A record's fixed part in the temporary file.
#[derive(Debug, Clone, Copy, Default)]
struct Core {
    start_ns: u64,
    end_ns: u64,
    /// The line, and in the top 4 bits which optional values follow ([`Rec::present`]).
    line_present: u64,
    mutator: u64,
    kind: u32,
    cause: u32,
}

impl Core {
    fn of(r: &Rec) -> Core {
        Core {
            start_ns: r.start_ns,
            end_ns: r.end_ns,
            line_present: r.line.min((1 << LINE_BITS) - 1) | r.present() << LINE_BITS,
            mutator: r.mutator,
            kind: r.kind,
            cause: r.cause,
        }
    }
}

impl Record for Core {
    const SIZE: usize = 40;
    fn put(self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.start_ns.to_le_bytes());
        out[8..16].copy_from_slice(&self.end_ns.to_le_bytes());
        out[16..24].copy_from_slice(&self.line_present.to_le_bytes());
        out[24..32].copy_from_slice(&self.mutator.to_le_bytes());
        out[32..36].copy_from_slice(&self.kind.to_le_bytes());
        out[36..40].copy_from_slice(&self.cause.to_le_bytes());
    }
    fn take(b: &[u8]) -> Self {
        Core {
            start_ns: u64::take(&b[..8]),
            end_ns: u64::take(&b[8..16]),
            line_present: u64::take(&b[16..24]),
            mutator: u64::take(&b[24..32]),
            kind: u32::take(&b[32..36]),
            cause: u32::take(&b[36..40]),
        }
    }
}

/// How many optional values follow the fixed part in `b` (a [`Core`]'s bytes).
fn opts_of(b: &[u8]) -> usize {
    (u64::take(&b[16..24]) >> LINE_BITS).count_ones() as usize
}

/// The two temporary files.
#[derive(Debug)]
struct Spilled {
    core: Spill<Core>,
    opts: Spill<u64>,
}

impl Spilled {
    fn push(&mut self, r: &Rec) {
        self.core.push(Core::of(r));
        r.present_values().for_each(|v| self.opts.push(v));
    }
}

/// Records in memory, then in temporary files.
#[derive(Debug, Default)]
pub(super) struct Store {
    mem: Vec<Rec>,
    spill: Option<Spilled>,
    /// The first error making the temporary files.
    pub(super) error: Option<String>,
}

impl Store {
    pub(super) fn push(&mut self, r: Rec, spill_at: usize) {
        if let Some(s) = &mut self.spill {
            s.push(&r);
            return;
        }
        self.mem.push(r);
        if self.mem.len() >= spill_at {
            match Spill::new().and_then(|core| Ok((core, Spill::new()?))) {
                Ok((core, opts)) => {
                    let mut s = Spilled { core, opts };
                    self.mem.drain(..).for_each(|r| s.push(&r));
                    self.mem = Vec::new();
                    self.spill = Some(s);
                }
                // Kept in memory (`spill_at` is then unbounded), said once.
                Err(e) => {
                    self.error.get_or_insert(e.to_string());
                }
            }
        }
    }

    pub(super) fn on_disk(&self) -> bool {
        self.spill.is_some()
    }

    pub(super) fn len(&self) -> usize {
        self.mem.len() + self.spill.as_ref().map_or(0, |s| s.core.len())
    }

    pub(super) fn shrink_to_fit(&mut self) {
        self.mem.shrink_to_fit();
    }

    /// The records in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = Rec> + '_ {
        let spilled = self.spill.iter().flat_map(|s| {
            let mut opts = s.opts.iter();
            s.core
                .iter()
                .map(move |c| Rec::join(&c, || opts.next().unwrap_or(0)))
        });
        self.mem.iter().copied().chain(spilled)
    }

    pub(super) fn error(&self) -> Option<&str> {
        (self.error.as_deref()).or(self
            .spill
            .as_ref()
            .and_then(|s| s.core.error().or(s.opts.error())))
    }

    /// Changes the records in order through `f` (a record in, the record to keep or None to drop it). On disk,
    /// while every record is kept with the same optional values (a log's fix-up pass moves times, fills in causes),
    /// the fixed parts are written over themselves in their file ([`Spill::overwrite`]), whose pages the cache still
    /// holds: copying the logcat's 6.9 M rewritten pauses into a second file's fresh page-cache pages had taken 1.1 s
    /// of its 2 s fix-up pass on one core. From the first record that is dropped or changes its optional values, the
    /// records go to a new store: those before it read back as already changed, the rest through `f`.
    pub(super) fn rewrite(&mut self, spill_at: usize, mut f: impl FnMut(&Rec) -> Option<Rec>) {
        let Some(Spilled { core, opts }) = &mut self.spill else {
            for r in std::mem::take(&mut self.mem) {
                if let Some(r) = f(&r) {
                    self.push(r, spill_at);
                }
            }
            return;
        };
        let n = core.len();
        let (mut cores, mut bytes) = (Vec::new(), Vec::new());
        let mut values = opts.iter();
        // The first record not rewritten in place, and what `f` made of it.
        let mut stop: Option<(usize, Option<Rec>)> = None;
        let mut start = 0;
        while start < n && stop.is_none() {
            cores.resize(REWRITE_RUN.min(n - start), Core::default());
            core.read(start, &mut cores, &mut bytes);
            let mut done = 0;
            for c in &mut cores {
                let old = Rec::join(c, || values.next().unwrap_or(0));
                match f(&old) {
                    Some(new) if new.opt == old.opt => *c = Core::of(&new),
                    made => {
                        stop = Some((start + done, made));
                        break;
                    }
                }
                done += 1;
            }
            core.overwrite(start, &cores[..done]);
            start += done;
        }
        let Some((at, made)) = stop else { return };
        let mut fresh = Store::default();
        for r in self.iter().take(at) {
            fresh.push(r, spill_at);
        }
        if let Some(r) = made {
            fresh.push(r, spill_at);
        }
        for r in self.iter().skip(at + 1) {
            if let Some(r) = f(&r) {
                fresh.push(r, spill_at);
            }
        }
        if let Some(e) = self.error() {
            fresh.error.get_or_insert(e.to_string());
        }
        *self = fresh;
    }
}

/// Records [`Store::rewrite`] reads, changes and writes back at a time (2.5 MiB of fixed parts).
const REWRITE_RUN: usize = 1 << 16;

/// Reads a [`Store`] in runs of consecutive pauses, from the first.
#[derive(Debug)]
pub struct RunReader<'a> {
    store: &'a Store,
    /// The first pause of the next run, and the index of its first optional value.
    next: usize,
    next_opt: usize,
}

impl<'a> RunReader<'a> {
    pub(super) fn new(store: &'a Store) -> Self {
        RunReader {
            store,
            next: 0,
            next_opt: 0,
        }
    }

    /// Reads the next `n` pauses (those there are) into `run`, replacing what it held: one read of each file.
    pub fn next_run(&mut self, n: usize, run: &mut PauseRun) {
        let start = self.next;
        match &self.store.spill {
            Some(s) => {
                s.core.read_bytes(start, n, &mut run.core);
                let opts = run.core.chunks_exact(Core::SIZE).map(opts_of).sum();
                s.opts.read_bytes(self.next_opt, opts, &mut run.opts);
                self.next_opt += opts;
            }
            None => {
                let recs = self.store.mem.get(start..).unwrap_or_default();
                let recs = &recs[..n.min(recs.len())];
                run.core.resize(recs.len() * Core::SIZE, 0);
                run.opts.clear();
                for (r, b) in recs.iter().zip(run.core.chunks_exact_mut(Core::SIZE)) {
                    Core::of(r).put(b);
                    r.present_values()
                        .for_each(|v| run.opts.extend(v.to_le_bytes()));
                }
            }
        }
        self.next += run.len();
    }
}

/// A run of consecutive pauses read back in one go ([`RunReader`]: their fixed parts and optional values, one read
/// of each file) and decoded where they are used, on any core ([`PauseRun::recs`]): millions of pauses read
/// without an iterator step, a copy and a decoding per pause on the reading thread.
#[derive(Debug, Default)]
pub struct PauseRun {
    core: Vec<u8>,
    opts: Vec<u8>,
}

impl PauseRun {
    /// Pauses in the run.
    pub fn len(&self) -> usize {
        self.core.len() / Core::SIZE
    }

    /// Whether the run holds no pause.
    pub fn is_empty(&self) -> bool {
        self.core.is_empty()
    }

    /// Pause `i`'s mutator, without decoding the rest.
    pub fn mutator(&self, i: usize) -> usize {
        let at = i * Core::SIZE + 24;
        usize::try_from(u64::take(&self.core[at..at + 8])).unwrap_or(usize::MAX)
    }

    /// The records of pauses `range` of the run, in order (their optional values found by counting those of the
    /// pauses before `range.start`).
    pub(super) fn recs(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = Rec> + '_ {
        let cores = self
            .core
            .get(range.start * Core::SIZE..range.end * Core::SIZE)
            .unwrap_or_default();
        let skip: usize = (self.core.chunks_exact(Core::SIZE).take(range.start))
            .map(opts_of)
            .sum();
        let mut opts = self.opts.chunks_exact(8).skip(skip).map(u64::take);
        cores
            .chunks_exact(Core::SIZE)
            .map(move |b| Rec::join(&Core::take(b), || opts.next().unwrap_or(0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records with every combination of optional values and lines up to the 60-bit cap, in memory and spilled
    /// (the spill made part-way), read back whole by `iter` and in runs of every size.
    #[test]
    fn records_come_back_whole_from_memory_and_the_two_files() {
        let recs: Vec<Rec> = (0..700u64)
            .map(|k| Rec {
                start_ns: k * 10,
                end_ns: k * 10 + 3,
                mutator: k % 5,
                kind: (k % 3) as u32,
                cause: if k % 4 == 0 { NONE } else { (k % 7) as u32 },
                opt: std::array::from_fn(|b| ((k >> b) & 1 == 1, k * 1000 + b as u64)),
                line: if k == 699 {
                    (1 << LINE_BITS) - 1
                } else {
                    k + 1
                },
            })
            .map(|r| Rec {
                opt: r.opt.map(|(has, v)| (has, if has { v } else { 0 })),
                ..r
            })
            .collect();
        for spill_at in [usize::MAX, 1, 300] {
            let mut s = Store::default();
            recs.iter().for_each(|&r| s.push(r, spill_at));
            assert_eq!(s.on_disk(), spill_at <= 300, "spilled");
            assert_eq!(s.len(), recs.len(), "len");
            assert_eq!(s.iter().collect::<Vec<_>>(), recs, "iter at {spill_at}");
            for n in [1, 7, 256, 1000] {
                let (mut reader, mut run, mut back) =
                    (RunReader::new(&s), PauseRun::default(), vec![]);
                loop {
                    reader.next_run(n, &mut run);
                    if run.is_empty() {
                        break;
                    }
                    for i in 0..run.len() {
                        assert_eq!(
                            run.mutator(i) as u64,
                            recs[back.len() + i].mutator,
                            "mutator"
                        );
                    }
                    // In two pieces, as the export's cores take them.
                    let half = run.len() / 2;
                    back.extend(run.recs(0..half).chain(run.recs(half..run.len())));
                }
                assert_eq!(back, recs, "runs of {n} at {spill_at}");
            }
        }
    }
}
