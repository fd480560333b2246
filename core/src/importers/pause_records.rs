//! [`PauseRecords`]: a [`PauseSink`] that keeps every field of every pause, as `Vec<Pause>` does, in bounded
//! memory — for `gclab export-perfetto`, which writes each pause's kind, cause, cycle and heap figures (issue 21,
//! item 4: a 1 GB log exported within 200 MB).
//!
//! A pause is kept as a fixed 80-byte record whose kind and cause are indices into a table of the distinct strings
//! seen (a log has a handful: `Pause Young (Normal)`, `G1 Evacuation Pause`). Up to [`RECORDS_IN_MEMORY`] records
//! stay in memory; beyond, they go to a temporary file ([`crate::io::spill`]), so memory holds one block, the
//! string table and a counter whatever the input's size. The importers' fix-up pass ([`PauseSink::retain_mut`],
//! which places logcat's GCs on one time axis and fills HotSpot's causes) reads the records back in order and
//! writes them anew. [`PauseRecords::iter`] hands the pauses back whole, in input order.
//!
//! A temporary-file error is sticky ([`PauseRecords::error`]): the pauses are then incomplete and must not be used.

use std::collections::HashMap;

use super::{Pause, PauseSink};
use crate::io::spill::{Record, Spill};

/// Records held in memory before they go to a temporary file (5 MB).
pub const RECORDS_IN_MEMORY: usize = 1 << 16;
/// The index that stands for "no cause".
const NONE: u32 = u32::MAX;

/// One pause with its strings as table indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Rec {
    start_ns: u64,
    end_ns: u64,
    mutator: u64,
    kind: u32,
    /// [`NONE`]: no cause.
    cause: u32,
    /// `Option<u64>` as (present, value): gc id, heap before, after, total.
    opt: [(bool, u64); 4],
    line: u64,
}

impl Record for Rec {
    const SIZE: usize = 80;
    fn put(self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.start_ns.to_le_bytes());
        out[8..16].copy_from_slice(&self.end_ns.to_le_bytes());
        out[16..24].copy_from_slice(&self.mutator.to_le_bytes());
        out[24..28].copy_from_slice(&self.kind.to_le_bytes());
        out[28..32].copy_from_slice(&self.cause.to_le_bytes());
        let mut present = 0u64;
        for (k, &(has, v)) in self.opt.iter().enumerate() {
            present |= u64::from(has) << k;
            out[40 + 8 * k..48 + 8 * k].copy_from_slice(&v.to_le_bytes());
        }
        out[32..40].copy_from_slice(&present.to_le_bytes());
        out[72..80].copy_from_slice(&self.line.to_le_bytes());
    }
    fn take(b: &[u8]) -> Self {
        let present = u64::take(&b[32..40]);
        let mut opt = [(false, 0); 4];
        for (k, o) in opt.iter_mut().enumerate() {
            *o = (
                (present >> k) & 1 == 1,
                u64::take(&b[40 + 8 * k..48 + 8 * k]),
            );
        }
        Rec {
            start_ns: u64::take(&b[..8]),
            end_ns: u64::take(&b[8..16]),
            mutator: u64::take(&b[16..24]),
            kind: u32::take(&b[24..28]),
            cause: u32::take(&b[28..32]),
            opt,
            line: u64::take(&b[72..80]),
        }
    }
}

/// Distinct kind and cause strings, each stored once.
#[derive(Debug, Default)]
struct Strings {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Strings {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&k) = self.index.get(s) {
            return k;
        }
        let k = u32::try_from(self.names.len()).unwrap_or(NONE - 1);
        self.names.push(s.to_string());
        self.index.insert(s.to_string(), k);
        k
    }

    fn name(&self, k: u32) -> String {
        self.names.get(k as usize).cloned().unwrap_or_default()
    }
}

/// A [`Pause`] read back from [`PauseRecords`], its strings borrowed from the records (fields as [`Pause`]'s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PauseRef<'a> {
    /// Start. `[ns]`
    pub start_ns: u64,
    /// End. `[ns]`
    pub end_ns: u64,
    /// Index into the mutator names.
    pub mutator: usize,
    /// What kind of pause.
    pub kind: &'a str,
    /// Why it happened, when logged.
    pub cause: Option<&'a str>,
    /// The collector's cycle number, when logged.
    pub gc_id: Option<u64>,
    /// Heap occupancy before the pause. `[bytes]`
    pub heap_before_bytes: Option<u64>,
    /// Heap occupancy after the pause. `[bytes]`
    pub heap_after_bytes: Option<u64>,
    /// Heap capacity. `[bytes]`
    pub heap_total_bytes: Option<u64>,
    /// 1-based line of the input it came from.
    pub line: usize,
}

/// Records in memory, then in a temporary file.
#[derive(Debug, Default)]
struct Store {
    mem: Vec<Rec>,
    spill: Option<Spill<Rec>>,
    error: Option<String>,
}

impl Store {
    fn push(&mut self, r: Rec, spill_at: usize) {
        if let Some(f) = &mut self.spill {
            f.push(r);
            return;
        }
        self.mem.push(r);
        if self.mem.len() >= spill_at {
            match Spill::new() {
                Ok(mut f) => {
                    self.mem.drain(..).for_each(|r| f.push(r));
                    self.mem = Vec::new();
                    self.spill = Some(f);
                }
                // Kept in memory (`spill_at` is then unbounded), said once.
                Err(e) => {
                    self.error.get_or_insert(e.to_string());
                }
            }
        }
    }

    fn len(&self) -> usize {
        self.mem.len() + self.spill.as_ref().map_or(0, Spill::len)
    }

    fn iter(&self) -> impl Iterator<Item = Rec> + '_ {
        (self.mem.iter().copied()).chain(self.spill.iter().flat_map(Spill::iter))
    }

    fn error(&self) -> Option<&str> {
        (self.error.as_deref()).or(self.spill.as_ref().and_then(Spill::error))
    }

    /// Records `[start, start + n)` (those there are) as their bytes into `out`, in one read of the file.
    fn read_bytes(&self, start: usize, n: usize, out: &mut Vec<u8>) {
        match &self.spill {
            Some(f) => f.read_bytes(start, n, out),
            None => {
                let recs = self.mem.get(start..).unwrap_or_default();
                let recs = &recs[..n.min(recs.len())];
                out.resize(recs.len() * Rec::SIZE, 0);
                for (r, b) in recs.iter().zip(out.chunks_exact_mut(Rec::SIZE)) {
                    r.put(b);
                }
            }
        }
    }
}

/// A run of consecutive pauses read back in one go ([`PauseRecords::read_run`]: their records' bytes, one read of
/// the file) and decoded by index where they are used ([`PauseRecords::at`], on any core): reading millions of
/// pauses without an iterator step, a copy and a decoding per pause on the reading thread.
#[derive(Debug, Default)]
pub struct PauseRun {
    bytes: Vec<u8>,
}

impl PauseRun {
    /// Pauses in the run.
    pub fn len(&self) -> usize {
        self.bytes.len() / Rec::SIZE
    }

    /// Whether the run holds no pause.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Pause `i`'s mutator, without decoding the rest.
    pub fn mutator(&self, i: usize) -> usize {
        let at = i * Rec::SIZE + 16;
        usize::try_from(u64::take(&self.bytes[at..at + 8])).unwrap_or(usize::MAX)
    }
}

/// Every field of every pause, in input order, in bounded memory (see the module notes).
#[derive(Debug)]
pub struct PauseRecords {
    store: Store,
    strings: Strings,
    spill_at: usize,
    /// Heap figures held (before and after, each when logged).
    heap_figures: usize,
}

impl Default for PauseRecords {
    fn default() -> Self {
        PauseRecords::spilling_at(RECORDS_IN_MEMORY)
    }
}

impl PauseRecords {
    /// Keeps at most `spill_at` records in memory (tests force the file with a small number).
    pub fn spilling_at(spill_at: usize) -> Self {
        PauseRecords {
            store: Store::default(),
            strings: Strings::default(),
            spill_at: spill_at.max(1),
            heap_figures: 0,
        }
    }

    /// Whether the records are in a temporary file.
    pub fn on_disk(&self) -> bool {
        self.store.spill.is_some()
    }

    /// The first error of the temporary file, if any: the pauses are then incomplete and must not be used.
    pub fn error(&self) -> Option<&str> {
        self.store.error()
    }

    /// Heap figures of the pauses held: how many `heap_before_bytes` and `heap_after_bytes` are logged (the points
    /// of a heap counter, known before the pauses are read back).
    pub fn heap_figures(&self) -> usize {
        self.heap_figures
    }

    /// The pauses, whole, in input order.
    pub fn iter(&self) -> impl Iterator<Item = Pause> + '_ {
        self.store.iter().map(|r| self.pause(&r))
    }

    /// Reads pauses `[start, start + n)` (those that exist) into `run`, replacing what it held.
    pub fn read_run(&self, start: usize, n: usize, run: &mut PauseRun) {
        self.store.read_bytes(start, n, &mut run.bytes);
    }

    /// Pause `i` of `run`, its strings borrowed from the records.
    pub fn at<'a>(&'a self, run: &PauseRun, i: usize) -> PauseRef<'a> {
        self.pause_ref(&Rec::take(&run.bytes[i * Rec::SIZE..(i + 1) * Rec::SIZE]))
    }

    /// `r` with its strings borrowed from the table.
    fn pause_ref(&self, r: &Rec) -> PauseRef<'_> {
        let o = |(has, v): (bool, u64)| has.then_some(v);
        let name = |k: u32| {
            self.strings
                .names
                .get(k as usize)
                .map_or("", String::as_str)
        };
        PauseRef {
            start_ns: r.start_ns,
            end_ns: r.end_ns,
            mutator: usize::try_from(r.mutator).unwrap_or(usize::MAX),
            kind: name(r.kind),
            cause: (r.cause != NONE).then(|| name(r.cause)),
            gc_id: o(r.opt[0]),
            heap_before_bytes: o(r.opt[1]),
            heap_after_bytes: o(r.opt[2]),
            heap_total_bytes: o(r.opt[3]),
            line: usize::try_from(r.line).unwrap_or(usize::MAX),
        }
    }

    fn rec(&mut self, p: &Pause) -> Rec {
        let o = |v: Option<u64>| (v.is_some(), v.unwrap_or(0));
        self.heap_figures +=
            usize::from(p.heap_before_bytes.is_some()) + usize::from(p.heap_after_bytes.is_some());
        Rec {
            start_ns: p.start_ns,
            end_ns: p.end_ns,
            mutator: p.mutator as u64,
            kind: self.strings.id(&p.kind),
            cause: p.cause.as_deref().map_or(NONE, |c| self.strings.id(c)),
            opt: [
                o(p.gc_id),
                o(p.heap_before_bytes),
                o(p.heap_after_bytes),
                o(p.heap_total_bytes),
            ],
            line: p.line as u64,
        }
    }

    fn pause(&self, r: &Rec) -> Pause {
        let o = |(has, v): (bool, u64)| has.then_some(v);
        Pause {
            start_ns: r.start_ns,
            end_ns: r.end_ns,
            mutator: usize::try_from(r.mutator).unwrap_or(usize::MAX),
            kind: self.strings.name(r.kind),
            cause: (r.cause != NONE).then(|| self.strings.name(r.cause)),
            gc_id: o(r.opt[0]),
            heap_before_bytes: o(r.opt[1]),
            heap_after_bytes: o(r.opt[2]),
            heap_total_bytes: o(r.opt[3]),
            line: usize::try_from(r.line).unwrap_or(usize::MAX),
        }
    }

    fn spill_at(&self) -> usize {
        if self.store.error.is_some() {
            usize::MAX
        } else {
            self.spill_at
        }
    }
}

impl PauseSink for PauseRecords {
    const NAMES: bool = true;
    // `export-perfetto` writes pauses and heap figures only: the phases are counted, not kept.
    const PHASES: bool = false;

    fn push(&mut self, p: Pause) {
        let r = self.rec(&p);
        let at = self.spill_at();
        self.store.push(r, at);
    }

    fn len(&self) -> usize {
        self.store.len()
    }

    fn retain_mut(&mut self, mut f: impl FnMut(&mut Pause) -> bool) {
        let old = std::mem::take(&mut self.store);
        let at = self.spill_at();
        self.heap_figures = 0;
        for r in old.iter() {
            let mut p = self.pause(&r);
            if f(&mut p) {
                let r = self.rec(&p);
                self.store.push(r, at);
            }
        }
        if let Some(e) = old.error() {
            self.store.error.get_or_insert(e.to_string());
        }
    }

    fn spans(&self) -> impl Iterator<Item = (u64, u64, usize)> + '_ {
        self.store
            .iter()
            .map(|r| (r.start_ns, r.end_ns, r.mutator as usize))
    }

    fn shrink_to_fit(&mut self) {
        self.store.mem.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pauses() -> Vec<Pause> {
        (0..5u64)
            .map(|k| Pause {
                start_ns: 10 * k,
                end_ns: 10 * k + 5,
                mutator: (k % 2) as usize,
                kind: if k % 2 == 0 {
                    "Pause Young (Normal)"
                } else {
                    "Pause Remark"
                }
                .into(),
                cause: (k != 3).then(|| format!("cause {}", k % 3)),
                gc_id: (k != 1).then_some(k),
                heap_before_bytes: Some(1000 + k),
                heap_after_bytes: (k != 2).then_some(500 + k),
                heap_total_bytes: (k == 4).then_some(u64::MAX),
                line: 7 * k as usize + 1,
            })
            .collect()
    }

    #[test]
    fn pause_records_give_back_every_field_in_memory_and_on_disk() {
        for at in [RECORDS_IN_MEMORY, 1, 2] {
            let mut s = PauseRecords::spilling_at(at);
            pauses().into_iter().for_each(|p| s.push(p));
            assert_eq!(s.on_disk(), at <= 2, "in a temporary file");
            assert_eq!(s.iter().collect::<Vec<_>>(), pauses(), "every field kept");
            assert_eq!(PauseSink::len(&s), 5, "len");
            assert_eq!(s.heap_figures(), 9, "heap figures");
            assert!(s.error().is_none(), "no temporary-file error");
        }
    }

    /// Runs read back at every start and length, in memory and from a file whose last records are still unwritten,
    /// give the pauses `iter` gives, and their mutators without decoding.
    #[test]
    fn runs_read_back_are_the_pauses_in_memory_and_on_disk() {
        let many: Vec<Pause> = (0..3000)
            .map(|k| Pause {
                mutator: k % 7,
                line: k,
                ..pauses()[k % 5].clone()
            })
            .collect();
        for at in [RECORDS_IN_MEMORY, 1, 1000] {
            let mut s = PauseRecords::spilling_at(at);
            many.iter().cloned().for_each(|p| s.push(p));
            let mut run = PauseRun::default();
            for start in [0, 1, 999, 1000, 2047, 2999, 3000, 3500] {
                for n in [0, 1, 2, 1000, 5000] {
                    s.read_run(start, n, &mut run);
                    let want = &many[start.min(3000)..(start + n).min(3000)];
                    assert_eq!(run.len(), want.len(), "run {start}+{n} at {at}");
                    for (i, p) in want.iter().enumerate() {
                        let x = s.at(&run, i);
                        assert_eq!(run.mutator(i), p.mutator, "mutator {i}");
                        let back = Pause {
                            start_ns: x.start_ns,
                            end_ns: x.end_ns,
                            mutator: x.mutator,
                            kind: x.kind.to_string(),
                            cause: x.cause.map(str::to_string),
                            gc_id: x.gc_id,
                            heap_before_bytes: x.heap_before_bytes,
                            heap_after_bytes: x.heap_after_bytes,
                            heap_total_bytes: x.heap_total_bytes,
                            line: x.line,
                        };
                        assert_eq!(&back, p, "pause {} of run {start}+{n} at {at}", start + i);
                    }
                }
            }
        }
    }

    #[test]
    fn retain_mut_changes_and_drops_like_a_vec() {
        let fix = |p: &mut Pause| {
            p.start_ns += 1;
            p.cause.get_or_insert_with(|| "filled in".into());
            p.mutator != 1
        };
        let mut want = pauses();
        want.retain_mut(fix);
        for at in [RECORDS_IN_MEMORY, 1, 3] {
            let mut s = PauseRecords::spilling_at(at);
            pauses().into_iter().for_each(|p| s.push(p));
            s.retain_mut(fix);
            assert_eq!(s.iter().collect::<Vec<_>>(), want, "kept and changed");
            assert_eq!(s.heap_figures(), 5, "heap figures of the kept");
            assert_eq!(
                s.spans().collect::<Vec<_>>(),
                want.iter()
                    .map(|p| (p.start_ns, p.end_ns, p.mutator))
                    .collect::<Vec<_>>(),
                "spans"
            );
        }
    }
}
