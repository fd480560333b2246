//! Where an importer puts the pauses it reads ([`PauseSink`]): every record ([`Vec<Pause>`], for the app and
//! `export-perfetto`) or only what the exact MMU needs ([`PauseSpans`]: start, end, mutator and line in 24 bytes a
//! pause, for `gclab mmu`). The parsers are generic over the sink, so a 1 GB input measured by `gclab mmu` never
//! holds the kinds, causes and heap figures of its millions of pauses (issue 21, item 4; docs/fuzzing.md).

use super::Pause;

/// A store of imported pauses, filled in input order.
pub trait PauseSink: Default + std::fmt::Debug {
    /// Adds a pause.
    fn push(&mut self, p: Pause);
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
    /// Whether the names of concurrent phases, safepoints and heap transitions are worth keeping (false for a
    /// sink that only measures: it counts them and their spans).
    const NAMES: bool;
}

impl PauseSink for Vec<Pause> {
    const NAMES: bool = true;

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

/// One pause as [`PauseSpans`] keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start_ns: u64,
    end_ns: u64,
    mutator: u32,
    /// 1-based line, saturated at `u32::MAX` (only warnings name it).
    line: u32,
}

/// Pauses kept as start, end, mutator and line only: what `gclab mmu` measures. Kinds, causes, cycle numbers and
/// heap figures are dropped as they come.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PauseSpans {
    spans: Vec<Span>,
}

impl PauseSink for PauseSpans {
    const NAMES: bool = false;

    fn push(&mut self, p: Pause) {
        self.spans.push(Span {
            start_ns: p.start_ns,
            end_ns: p.end_ns,
            mutator: u32::try_from(p.mutator).unwrap_or(u32::MAX),
            line: u32::try_from(p.line).unwrap_or(u32::MAX),
        });
    }

    fn len(&self) -> usize {
        self.spans.len()
    }

    fn retain_mut(&mut self, mut f: impl FnMut(&mut Pause) -> bool) {
        self.spans.retain_mut(|s| {
            let mut p = Pause {
                start_ns: s.start_ns,
                end_ns: s.end_ns,
                mutator: s.mutator as usize,
                line: s.line as usize,
                ..Pause::default()
            };
            let keep = f(&mut p);
            s.start_ns = p.start_ns;
            s.end_ns = p.end_ns;
            keep
        });
    }

    fn spans(&self) -> impl Iterator<Item = (u64, u64, usize)> + '_ {
        self.spans
            .iter()
            .map(|s| (s.start_ns, s.end_ns, s.mutator as usize))
    }

    fn shrink_to_fit(&mut self) {
        self.spans.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pause_spans_keep_times_mutator_and_line_and_drop_the_rest() {
        let mut s = PauseSpans::default();
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
    }
}
