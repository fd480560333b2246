//! Where an importer puts the pauses it reads ([`PauseSink`]): every record ([`Vec<Pause>`], for the app and
//! `export-perfetto`) or only what the exact MMU needs ([`PauseSpans`]: start, end, mutator and line in 24 bytes a
//! pause, for `gclab mmu`). The parsers are generic over the sink, so a 1 GB input measured by `gclab mmu` never
//! holds the kinds, causes and heap figures of its millions of pauses (issue 21, item 4; docs/fuzzing.md), and
//! beyond [`SPANS_IN_MEMORY`] pauses [`PauseSpans`] keeps them in a temporary file.

use super::Pause;
use crate::io::spill::{Record, Spill};
use crate::metrics::mmu::{LiveSteps, MmuCurve};

/// A store of imported pauses, filled in input order.
pub trait PauseSink: Default + std::fmt::Debug + Send {
    /// Adds a pause.
    fn push(&mut self, p: Pause);
    /// Adds a pause whose kind is `kind` (its `kind` field is left empty by the caller): a sink that keeps kinds as
    /// table indices takes the text without a `String` per pause (a pause CSV's 19.6 M rows allocated and freed
    /// one each).
    fn push_kind(&mut self, mut p: Pause, kind: &str) {
        if Self::NAMES {
            p.kind = kind.to_string();
        }
        self.push(p);
    }
    /// Pauses held.
    fn len(&self) -> usize;
    /// No pause held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Lets `f` change each pause in input order (a sink that keeps less than a [`Pause`] hands it one with only
    /// what it keeps, and keeps only that back); drops the pauses for which `f` returns false.
    fn retain_mut(&mut self, f: impl FnMut(&mut Pause) -> bool);
    /// `(start, end, mutator)` of each pause, in input order. `[ns]`
    fn spans(&self) -> impl Iterator<Item = (u64, u64, usize)> + '_;
    /// Frees spare capacity once the input is read.
    fn shrink_to_fit(&mut self);
    /// Moves every pause held onto the time axis: each holds its start as an offset from a base (`start_ns`, the
    /// bits of an `i64`) and its duration (`end_ns`), and starts at `shift` + offset. The caller has checked that
    /// every pause then lies in `[0, MAX_TIME_NS)`, so none is dropped. By default a [`PauseSink::retain_mut`]
    /// pass; a sink whose pauses are in temporary files applies it as they are read back ([`Placement`]) instead
    /// of rewriting them (a pass over all 6.9 M pauses of a 1 GB logcat, alone on one core; issue 21).
    fn place_all(&mut self, shift: i128) {
        self.retain_mut(Placement::mover(shift));
    }
    /// Told by an importer, before its first pause, that it will not change the pauses it pushes (no fix-up pass:
    /// the pause CSV's), so that a sink may build on them as they come. Nothing by default.
    fn final_as_pushed(&mut self) {}
    /// Whether the kinds and causes of the pauses are worth keeping (false for a sink that only measures).
    const NAMES: bool;
    /// Whether the concurrent phases, safepoints and heap transitions are kept as records (false: only counted,
    /// with the time some phase runs and the time the safepoints stop the program — all `gclab mmu` reports and
    /// nothing `export-perfetto` writes), so that their number never grows memory (issue 21, item 4).
    const PHASES: bool;
    /// Whether the concurrent phases are kept only as the union of their spans ([`PauseSeries::concurrent_union`]:
    /// disjoint, in time order, 16 bytes each) and counted as without [`PauseSink::PHASES`], while the heap
    /// transitions and safepoints follow `PHASES`: for a sink that draws when some phase runs but never names one
    /// (the app's [`LogRecords`](crate::importers::LogRecords); a 1 GB logcat's 4.9 M phases kept whole held
    /// about 430 MB there, issue 21).
    const PHASE_SPANS: bool = false;
    /// Whether the concurrent phases are kept whole (`PauseSeries::concurrent`).
    const WHOLE_PHASES: bool = Self::PHASES && !Self::PHASE_SPANS;
    /// Whether a utilisation CSV's steps go to temporary files beyond a few thousand a series (true for the sinks of
    /// `gclab mmu` and `export-perfetto`, which read them in order; false keeps them in memory, for the app and
    /// `Vec<Pause>`).
    const STEPS_ON_DISK: bool = false;
}

impl PauseSink for Vec<Pause> {
    const NAMES: bool = true;
    const PHASES: bool = true;

    fn push(&mut self, p: Pause) {
        Vec::push(self, p);
    }

    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn retain_mut(&mut self, f: impl FnMut(&mut Pause) -> bool) {
        Vec::retain_mut(self, f);
    }

    fn spans(&self) -> impl Iterator<Item = (u64, u64, usize)> + '_ {
        self.iter().map(|p| (p.start_ns, p.end_ns, p.mutator))
    }

    fn shrink_to_fit(&mut self) {
        Vec::shrink_to_fit(self);
    }
}

/// A move onto the time axis not yet applied to the pauses held ([`PauseSink::place_all`]): `None`, or the shift
/// of pauses held as an offset (`start_ns`, `i64` bits) and a duration (`end_ns`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Placement {
    shift: Option<i128>,
}

impl Placement {
    /// `(start, end)` as held → on the time axis. `[ns]`
    pub(super) fn apply(self, start_ns: u64, end_ns: u64) -> (u64, u64) {
        match self.shift {
            None => (start_ns, end_ns),
            // In range by `place_all`'s contract; saturated rather than wrapped if not.
            Some(d) => {
                let s = (i128::from(start_ns as i64) + d).clamp(0, i128::from(u64::MAX)) as u64;
                (s, s.saturating_add(end_ns))
            }
        }
    }

    /// A fix-up pass's function that moves each pause by `shift` and keeps it.
    pub(super) fn mover(shift: i128) -> impl FnMut(&mut Pause) -> bool {
        let at = Placement { shift: Some(shift) };
        move |p| {
            (p.start_ns, p.end_ns) = at.apply(p.start_ns, p.end_ns);
            true
        }
    }

    /// [`PauseSink::place_all`] for a sink that may keep the move: kept (true) when its pauses are `on_disk` and
    /// no move is kept yet; false when the caller is to move them now ([`Placement::mover`]).
    pub(super) fn keep(&mut self, on_disk: bool, shift: i128) -> bool {
        let keep = on_disk && self.shift.is_none();
        if keep {
            self.shift = Some(shift);
        }
        keep
    }

    /// Whether a move is kept: pauses pushed now would be read moved too, so the held ones are moved first.
    pub(super) fn pending(self) -> bool {
        self.shift.is_some()
    }
}

/// One pause as [`PauseSpans`] keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Span {
    start_ns: u64,
    end_ns: u64,
    mutator: u32,
    /// 1-based line, saturated at `u32::MAX` (only warnings name it).
    line: u32,
}

impl Record for Span {
    const SIZE: usize = 24;
    fn put(self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.start_ns.to_le_bytes());
        out[8..16].copy_from_slice(&self.end_ns.to_le_bytes());
        out[16..20].copy_from_slice(&self.mutator.to_le_bytes());
        out[20..].copy_from_slice(&self.line.to_le_bytes());
    }
    fn take(b: &[u8]) -> Self {
        Span {
            start_ns: u64::take(&b[..8]),
            end_ns: u64::take(&b[8..16]),
            mutator: u32::take(&b[16..20]),
            line: u32::take(&b[20..]),
        }
    }
}

/// Pauses [`PauseSpans`] holds in memory; from this many on they go to a temporary file (24 MB).
pub const SPANS_IN_MEMORY: usize = 1 << 20;

/// Pauses kept as start, end, mutator and line only: what `gclab mmu` measures. Kinds, causes, cycle numbers and
/// heap figures are dropped as they come. Beyond `spill_at` pauses (default [`SPANS_IN_MEMORY`]) they are kept
/// in a temporary file ([`crate::io::spill`]), so memory stays bounded whatever the input's size.
#[derive(Debug)]
pub struct PauseSpans {
    spans: Vec<Span>,
    spill: Option<Spill<Span>>,
    spill_at: usize,
    /// The first temporary-file error (then the pauses are incomplete).
    error: Option<String>,
    /// The importer said its pauses are final ([`PauseSink::final_as_pushed`]): once they spill (few pauses are
    /// measured in memory, no steps made ahead), the series' steps are made as they come, in `live`.
    live_wanted: bool,
    /// Those steps; dropped by a fix-up pass.
    live: Option<LiveSteps>,
    /// A move onto the time axis applied as the pauses are read ([`PauseSink::place_all`] on pauses on disk).
    placement: Placement,
}

impl Default for PauseSpans {
    fn default() -> Self {
        PauseSpans::spilling_at(SPANS_IN_MEMORY)
    }
}

impl PauseSpans {
    /// Keeps at most `spill_at` pauses in memory (tests force the file with a small number).
    pub fn spilling_at(spill_at: usize) -> Self {
        PauseSpans {
            spans: Vec::new(),
            spill: None,
            spill_at: spill_at.max(1),
            error: None,
            live_wanted: false,
            live: None,
            placement: Placement::default(),
        }
    }

    /// The curve of the `mutators` series over `span` made as the pauses came ([`LiveSteps::into_curve`]), once;
    /// `None` when none was made (the pauses are in memory, or were fixed up) or it cannot stand for this span:
    /// then measure [`PauseSink::spans`].
    pub fn take_live_curve(
        &mut self,
        mutators: usize,
        span: (u64, u64),
    ) -> Option<std::io::Result<MmuCurve<'static>>> {
        self.live.take()?.into_curve(mutators, span)
    }

    /// Whether the pauses are in a temporary file.
    pub fn on_disk(&self) -> bool {
        self.spill.is_some()
    }

    /// The first error of the temporary file, if any: the pauses are then incomplete and must not be measured.
    pub fn error(&self) -> Option<&str> {
        (self.error.as_deref()).or(self.spill.as_ref().and_then(Spill::error))
    }

    fn all(&self) -> impl Iterator<Item = Span> + '_ {
        (self.spans.iter().copied()).chain(self.spill.iter().flat_map(Spill::iter))
    }
}

impl PauseSink for PauseSpans {
    const NAMES: bool = false;
    const PHASES: bool = false;
    const STEPS_ON_DISK: bool = true;

    fn push(&mut self, p: Pause) {
        if self.placement.pending() {
            // Pushed after a move (no importer does): the pauses held are moved first.
            self.retain_mut(|_| true);
        }
        let s = Span {
            start_ns: p.start_ns,
            end_ns: p.end_ns,
            mutator: u32::try_from(p.mutator).unwrap_or(u32::MAX),
            line: u32::try_from(p.line).unwrap_or(u32::MAX),
        };
        if let Some(live) = &mut self.live {
            live.add(s.mutator as usize, s.start_ns, s.end_ns);
        }
        if let Some(f) = &mut self.spill {
            f.push(s);
            return;
        }
        self.spans.push(s);
        if self.spans.len() >= self.spill_at {
            match Spill::new() {
                Ok(mut f) => {
                    if self.live_wanted {
                        let mut live = LiveSteps::default();
                        for s in &self.spans {
                            live.add(s.mutator as usize, s.start_ns, s.end_ns);
                        }
                        self.live = Some(live);
                    }
                    self.spans.drain(..).for_each(|s| f.push(s));
                    self.spans = Vec::new();
                    self.spill = Some(f);
                }
                // Kept in memory, said once.
                Err(e) => {
                    self.error.get_or_insert(e.to_string());
                    self.spill_at = usize::MAX;
                }
            }
        }
    }

    fn len(&self) -> usize {
        self.spans.len() + self.spill.as_ref().map_or(0, Spill::len)
    }

    fn retain_mut(&mut self, mut f: impl FnMut(&mut Pause) -> bool) {
        // The steps made so far are of the pauses before the fix-up.
        (self.live, self.live_wanted) = (None, false);
        let placement = std::mem::take(&mut self.placement);
        let mut fix = |s: &mut Span| {
            let (start_ns, end_ns) = placement.apply(s.start_ns, s.end_ns);
            let mut p = Pause {
                start_ns,
                end_ns,
                mutator: s.mutator as usize,
                line: s.line as usize,
                ..Pause::default()
            };
            let keep = f(&mut p);
            s.start_ns = p.start_ns;
            s.end_ns = p.end_ns;
            keep
        };
        self.spans.retain_mut(&mut fix);
        if let Some(old) = self.spill.take() {
            match Spill::new() {
                Ok(mut new) => {
                    for mut s in old.iter() {
                        if fix(&mut s) {
                            new.push(s);
                        }
                    }
                    if let Some(e) = old.error() {
                        self.error.get_or_insert(e.to_string());
                    }
                    self.spill = Some(new);
                }
                Err(e) => {
                    self.error.get_or_insert(e.to_string());
                    self.spill = Some(old);
                }
            }
        }
    }

    fn spans(&self) -> impl Iterator<Item = (u64, u64, usize)> + '_ {
        let at = self.placement;
        self.all().map(move |s| {
            let (a, b) = at.apply(s.start_ns, s.end_ns);
            (a, b, s.mutator as usize)
        })
    }

    fn place_all(&mut self, shift: i128) {
        if self.placement.keep(self.spill.is_some(), shift) {
            // The steps made so far are of the pauses before the move.
            (self.live, self.live_wanted) = (None, false);
        } else {
            self.retain_mut(Placement::mover(shift));
        }
    }

    fn shrink_to_fit(&mut self) {
        self.spans.shrink_to_fit();
    }

    fn final_as_pushed(&mut self) {
        self.live_wanted = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pause_spans_keep_times_mutator_and_line_and_drop_the_rest() {
        for at in [SPANS_IN_MEMORY, 1, 2] {
            keep_times_mutator_and_line(PauseSpans::spilling_at(at), at <= 2);
        }
    }

    fn keep_times_mutator_and_line(mut s: PauseSpans, on_disk: bool) {
        for (k, line) in [(0u64, 3usize), (1, 7)] {
            s.push(Pause {
                start_ns: 10 * k,
                end_ns: 10 * k + 5,
                mutator: k as usize,
                kind: "Pause Young (Normal)".into(),
                cause: Some("G1 Evacuation Pause".into()),
                line,
                ..Pause::default()
            });
        }
        assert_eq!(
            s.spans().collect::<Vec<_>>(),
            vec![(0, 5, 0), (10, 15, 1)],
            "spans"
        );
        assert_eq!(s.on_disk(), on_disk, "in a temporary file");
        let mut lines = Vec::new();
        s.retain_mut(|p| {
            lines.push(p.line);
            p.start_ns += 1;
            p.end_ns += 1;
            p.mutator == 1
        });
        assert_eq!(lines, vec![3, 7], "lines handed to the fix-up");
        assert_eq!(s.spans().collect::<Vec<_>>(), vec![(11, 16, 1)], "kept");
        assert_eq!(PauseSink::len(&s), 1, "len");
        assert!(s.error().is_none(), "no temporary-file error");
    }

    /// Pauses held as offsets (some before the base) and durations, as the logcat importer holds them.
    fn offset_pauses() -> Vec<Pause> {
        (0..40u64)
            .map(|k| Pause {
                start_ns: (if k % 5 == 2 {
                    -(k as i64) * 1000
                } else {
                    k as i64 * 700
                }) as u64,
                end_ns: 10 + k,
                mutator: (k % 3) as usize,
                kind: format!("kind {}", k % 2),
                line: k as usize + 1,
                ..Pause::default()
            })
            .collect()
    }

    /// A move applied as the pauses are read back ([`PauseSink::place_all`] on a sink on disk) gives what moving
    /// them in memory gives: the same spans and pauses, then the same after a later fix-up pass or push.
    #[test]
    fn pauses_moved_as_they_are_read_are_the_pauses_moved_in_memory() {
        let shift = 40_000i128;
        let later = Pause {
            start_ns: 5,
            end_ns: 6,
            line: 99,
            ..Pause::default()
        };
        let fix = |p: &mut Pause| {
            p.end_ns += 1;
            !p.line.is_multiple_of(4)
        };
        let mut want = offset_pauses();
        want.place_all(shift);
        assert!(want.iter().all(|p| p.start_ns <= p.end_ns), "placed");
        let spans = |v: &Vec<Pause>| v.spans().collect::<Vec<_>>();
        let mut fixed = want.clone();
        PauseSink::retain_mut(&mut fixed, fix);
        let mut pushed = want.clone();
        PauseSink::push(&mut pushed, later.clone());
        let mut twice = want.clone();
        twice.place_all(shift);
        for at in [1, 7, 40, usize::MAX] {
            let filled = || {
                let mut s = PauseSpans::spilling_at(at);
                let mut r: crate::importers::PauseRecords =
                    crate::importers::PauseRecords::spilling_at(at);
                for p in offset_pauses() {
                    s.push(p.clone());
                    r.push(p);
                }
                s.place_all(shift);
                r.place_all(shift);
                (s, r)
            };
            let (mut s, mut r) = filled();
            assert_eq!(s.spans().collect::<Vec<_>>(), spans(&want), "spans, {at}");
            assert_eq!(
                r.spans().collect::<Vec<_>>(),
                spans(&want),
                "record spans, {at}"
            );
            assert_eq!(r.iter().collect::<Vec<_>>(), want, "records, {at}");
            s.retain_mut(fix);
            r.retain_mut(fix);
            assert_eq!(s.spans().collect::<Vec<_>>(), spans(&fixed), "fixed, {at}");
            assert_eq!(r.iter().collect::<Vec<_>>(), fixed, "fixed records, {at}");
            let (mut s, mut r) = filled();
            s.push(later.clone());
            r.push(later.clone());
            assert_eq!(
                s.spans().collect::<Vec<_>>(),
                spans(&pushed),
                "pushed, {at}"
            );
            assert_eq!(r.iter().collect::<Vec<_>>(), pushed, "pushed records, {at}");
            let (mut s, mut r) = filled();
            s.place_all(shift);
            r.place_all(shift);
            assert_eq!(
                s.spans().collect::<Vec<_>>(),
                spans(&twice),
                "moved twice, {at}"
            );
            assert_eq!(
                r.iter().collect::<Vec<_>>(),
                twice,
                "records moved twice, {at}"
            );
            assert!(r.error().is_none() && s.error().is_none());
        }
    }
}
