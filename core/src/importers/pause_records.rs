//! [`PauseRecords`]: a [`PauseSink`] that keeps every field of every pause, as `Vec<Pause>` does, in bounded
//! memory — for `gclab export-perfetto`, which writes each pause's kind, cause, cycle and heap figures (issue 21,
//! item 4: a 1 GB log exported within 200 MB), and, as [`LogRecords`] (the concurrent phases kept too), for the
//! app's log views.
//!
//! A pause is kept as a record whose kind and cause are indices into a table of the distinct strings seen (a log
//! has a handful: `Pause Young (Normal)`, `G1 Evacuation Pause`). Up to [`RECORDS_IN_MEMORY`] records stay in
//! memory; beyond, they go to temporary files ([`super::pause_store`]: 40 bytes a pause and 8 per optional value
//! given), so memory holds a block per file, the string table and a counter whatever the input's size. The
//! importers' fix-up pass ([`PauseSink::retain_mut`], which fills HotSpot's causes, and places a logcat's GCs on
//! one time axis when they cannot all move by one amount) reads the records back in order and writes them anew
//! (in place while it can); a move by one amount ([`PauseSink::place_all`]) is kept and applied to each record
//! read. [`PauseRecords::iter`] hands the pauses back whole, in input order, and [`PauseRecords::runs`] in runs
//! decoded where they are used.
//!
//! A temporary-file error is sticky ([`PauseRecords::error`]): the pauses are then incomplete and must not be used.

use super::names::Texts;
use super::pause_store::{NONE, PauseRun, Rec, RunReader, Store};
use super::sink::Placement;
use super::{Pause, PauseSink};

/// Records held in memory before they go to a temporary file (5 MB).
pub const RECORDS_IN_MEMORY: usize = 1 << 16;
/// Distinct kind and cause strings, each stored once: the importers' table of texts (found by hash, the last two
/// compared first), numbered in 32 bits.
#[derive(Debug, Default)]
struct Strings(Texts);

impl Strings {
    fn id(&mut self, s: &str) -> u32 {
        u32::try_from(self.0.id(s)).unwrap_or(NONE - 1)
    }

    fn name(&self, k: u32) -> &str {
        self.0.list.get(k as usize).map_or("", String::as_str)
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

impl PauseRef<'_> {
    /// The pause whole, its strings copied.
    pub fn to_pause(&self) -> Pause {
        Pause {
            kind: self.kind.to_string(),
            cause: self.cause.map(str::to_string),
            ..self.bare()
        }
    }

    /// The pause with an empty kind and no cause.
    fn bare(self) -> Pause {
        Pause {
            start_ns: self.start_ns,
            end_ns: self.end_ns,
            mutator: self.mutator,
            kind: String::new(),
            cause: None,
            gc_id: self.gc_id,
            heap_before_bytes: self.heap_before_bytes,
            heap_after_bytes: self.heap_after_bytes,
            heap_total_bytes: self.heap_total_bytes,
            line: self.line,
        }
    }
}

/// Every field of every pause, in input order, in bounded memory (see the module notes). `PHASES` is the sink's
/// [`PauseSink::PHASES`]: false for `export-perfetto`, which writes pauses and heap figures only; true for
/// [`LogRecords`].
#[derive(Debug)]
pub struct PauseRecords<const PHASES: bool = false> {
    store: Store,
    strings: Strings,
    spill_at: usize,
    /// Heap figures held (before and after, each when logged).
    heap_figures: usize,
    /// A move onto the time axis applied as the records are read ([`PauseSink::place_all`] on records on disk).
    placement: Placement,
}

/// [`PauseRecords`] that also keep the log's heap transitions and safepoints whole (in memory: a log has a few a
/// cycle) and the union of its concurrent phases' spans ([`PauseSink::PHASE_SPANS`]): what the app draws of a log,
/// its pauses in bounded memory (issue 21: a 1 GB pause CSV held as `Vec<Pause>` took 5 GB in the app).
pub type LogRecords = PauseRecords<true>;

impl<const PHASES: bool> Default for PauseRecords<PHASES> {
    fn default() -> Self {
        PauseRecords::spilling_at(RECORDS_IN_MEMORY)
    }
}

impl<const PHASES: bool> PauseRecords<PHASES> {
    /// Keeps at most `spill_at` records in memory (tests force the file with a small number).
    pub fn spilling_at(spill_at: usize) -> Self {
        PauseRecords {
            store: Store::default(),
            strings: Strings::default(),
            spill_at: spill_at.max(1),
            heap_figures: 0,
            placement: Placement::default(),
        }
    }

    /// Whether the records are in temporary files.
    pub fn on_disk(&self) -> bool {
        self.store.on_disk()
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

    /// The pauses in input order, their strings borrowed from the records (no allocation a pause).
    pub fn refs(&self) -> impl Iterator<Item = PauseRef<'_>> + '_ {
        self.store.iter().map(|r| self.pause_ref(&r))
    }

    /// A reader of the pauses in runs of consecutive ones, from the first ([`RunReader::next_run`]).
    pub fn runs(&self) -> RunReader<'_> {
        RunReader::new(&self.store)
    }

    /// Pauses `range` of `run` (read by [`PauseRecords::runs`]), their strings borrowed from the records.
    pub fn run_pauses<'a>(
        &'a self,
        run: &'a PauseRun,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = PauseRef<'a>> + 'a {
        run.recs(range).map(|r| self.pause_ref(&r))
    }

    /// `r` with its strings borrowed from the table.
    fn pause_ref(&self, r: &Rec) -> PauseRef<'_> {
        let o = |(has, v): (bool, u64)| has.then_some(v);
        let name = |k: u32| self.strings.name(k);
        let (start_ns, end_ns) = self.placement.apply(r.start_ns, r.end_ns);
        PauseRef {
            start_ns,
            end_ns,
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
        self.rec_kind(p, &p.kind)
    }

    /// [`PauseRecords::rec`] with the kind given apart.
    fn rec_kind(&mut self, p: &Pause, kind: &str) -> Rec {
        let o = |v: Option<u64>| (v.is_some(), v.unwrap_or(0));
        self.heap_figures +=
            usize::from(p.heap_before_bytes.is_some()) + usize::from(p.heap_after_bytes.is_some());
        Rec {
            start_ns: p.start_ns,
            end_ns: p.end_ns,
            mutator: p.mutator as u64,
            kind: self.strings.id(kind),
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
        self.pause_ref(r).to_pause()
    }

    /// Makes `p` the pause of `r` ([`PauseRecords::pause`]), writing its kind and cause into the buffers `p` holds.
    fn refill(&self, r: &Rec, p: &mut Pause) {
        let x = self.pause_ref(r);
        let mut kind = std::mem::take(&mut p.kind);
        kind.clear();
        kind.push_str(x.kind);
        let cause = x.cause.map(|c| {
            let mut s = p.cause.take().unwrap_or_default();
            s.clear();
            s.push_str(c);
            s
        });
        *p = Pause {
            kind,
            cause,
            ..x.bare()
        };
    }

    /// Records pushed after a move (no importer does): the records held are moved first.
    fn unplaced(&mut self) {
        if self.placement.pending() {
            self.retain_mut(|_| true);
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

impl<const P: bool> PauseSink for PauseRecords<P> {
    const NAMES: bool = true;
    // `export-perfetto` writes pauses and heap figures only: there the phases are counted, not kept.
    const PHASES: bool = P;
    // The app draws when some concurrent phase runs, never which: it keeps their union, not the phases.
    const PHASE_SPANS: bool = P;
    // The app ([`LogRecords`]) measures a utilisation CSV's steps in memory, as it did before the records.
    const STEPS_ON_DISK: bool = !P;

    fn push(&mut self, p: Pause) {
        self.unplaced();
        let r = self.rec(&p);
        let at = self.spill_at();
        self.store.push(r, at);
    }

    fn push_kind(&mut self, p: Pause, kind: &str) {
        self.unplaced();
        let r = self.rec_kind(&p, kind);
        let at = self.spill_at();
        self.store.push(r, at);
    }

    fn len(&self) -> usize {
        self.store.len()
    }

    fn retain_mut(&mut self, mut f: impl FnMut(&mut Pause) -> bool) {
        let mut store = std::mem::take(&mut self.store);
        let at = self.spill_at();
        self.heap_figures = 0;
        // One pause refilled for every record, its strings' buffers used again (two allocations and two frees a
        // pause were the most of a logcat's fix-up pass after its records are read); the records changed in place
        // while they can be (`Store::rewrite`).
        let mut p = Pause::default();
        store.rewrite(at, |r| {
            self.refill(r, &mut p);
            f(&mut p).then(|| self.rec(&p))
        });
        // The records written hold their times on the axis.
        self.placement = Placement::default();
        self.store = store;
    }

    fn place_all(&mut self, shift: i128) {
        if !self.placement.keep(self.store.on_disk(), shift) {
            self.retain_mut(Placement::mover(shift));
        }
    }

    fn spans(&self) -> impl Iterator<Item = (u64, u64, usize)> + '_ {
        self.store.iter().map(|r| {
            let (a, b) = self.placement.apply(r.start_ns, r.end_ns);
            (a, b, r.mutator as usize)
        })
    }

    fn shrink_to_fit(&mut self) {
        self.store.shrink_to_fit();
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
            let mut s: PauseRecords = PauseRecords::spilling_at(at);
            pauses().into_iter().for_each(|p| s.push(p));
            assert_eq!(s.on_disk(), at <= 2, "in a temporary file");
            assert_eq!(s.iter().collect::<Vec<_>>(), pauses(), "every field kept");
            assert_eq!(PauseSink::len(&s), 5, "len");
            assert_eq!(s.heap_figures(), 9, "heap figures");
            assert!(s.error().is_none(), "no temporary-file error");
        }
    }

    /// Runs of every length, in memory and from files whose last records are still unwritten, give the pauses
    /// pushed, and their mutators without decoding.
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
            let mut s: PauseRecords = PauseRecords::spilling_at(at);
            many.iter().cloned().for_each(|p| s.push(p));
            for n in [1, 2, 999, 1000, 5000] {
                let (mut runs, mut run, mut start) = (s.runs(), PauseRun::default(), 0);
                loop {
                    runs.next_run(n, &mut run);
                    if run.is_empty() {
                        break;
                    }
                    let want = &many[start..start + run.len()];
                    for (i, (p, x)) in want
                        .iter()
                        .zip(s.run_pauses(&run, 0..run.len()))
                        .enumerate()
                    {
                        assert_eq!(run.mutator(i), p.mutator, "mutator {i}");
                        assert_eq!(
                            &x.to_pause(),
                            p,
                            "pause {} of runs of {n} at {at}",
                            start + i
                        );
                    }
                    start += run.len();
                }
                assert_eq!(start, many.len(), "every pause in runs of {n} at {at}");
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
            let mut s: PauseRecords = PauseRecords::spilling_at(at);
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

    /// Many runs of records on disk, changed in place while every one is kept with its optional values, then from
    /// a record that is dropped, or one given a heap figure, written anew: the same pauses as `Vec::retain_mut`.
    #[test]
    fn records_rewritten_in_place_then_anew_are_what_a_vec_keeps() {
        let many: Vec<Pause> = (0..150_000u64)
            .map(|k| Pause {
                start_ns: 10 * k,
                end_ns: 10 * k + 3,
                mutator: (k % 3) as usize,
                kind: ["young", "remark"][(k % 2) as usize].into(),
                cause: (k % 5 == 0).then(|| "explicit".into()),
                gc_id: (k % 4 == 0).then_some(k),
                line: k as usize + 1,
                ..Pause::default()
            })
            .collect();
        // None: every record kept with its values; Some(k): record k dropped (even k) or given a heap figure. Every
        // record's start moves, so one changed twice would show.
        fn fixer(change_at: Option<u64>) -> impl FnMut(&mut Pause) -> bool {
            let mut k = 0u64;
            move |p| {
                let here = change_at == Some(k);
                k += 1;
                p.start_ns += 7;
                p.cause.get_or_insert_with(|| "filled in".into());
                if here && k.is_multiple_of(2) {
                    p.heap_after_bytes = Some(42);
                }
                !(here && k % 2 == 1)
            }
        }
        for change_at in [
            None,
            Some(0),
            Some(65_535),
            Some(65_536),
            Some(140_001),
            Some(149_999),
        ] {
            let mut want = many.clone();
            want.retain_mut(fixer(change_at));
            for at in [RECORDS_IN_MEMORY, 1000] {
                let mut s: PauseRecords = PauseRecords::spilling_at(at);
                many.iter().cloned().for_each(|p| s.push(p));
                s.retain_mut(fixer(change_at));
                assert!(
                    s.iter().eq(want.iter().cloned()),
                    "the kept pauses ({change_at:?}, {at})"
                );
            }
        }
    }
}
