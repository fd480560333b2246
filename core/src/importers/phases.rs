//! The concurrent phases of a log (logcat, HotSpot) counted rather than kept ([`PhaseUnion`]): how many lie in
//! range and how long some phase runs (the length of their union, as [`covered_ns`](crate::importers::covered_ns)
//! gives it), for a sink that keeps no phases. Memory is bounded: phases are held as 16-byte offsets in chunks of
//! [`CHUNK`], each chunk sorted and appended to a temporary file as a sorted run ([`crate::io::spill`]); at the
//! end, once the origin is known, the runs are merged in start order and the union is swept in one pass.

use super::series::extend_union;
use crate::importers::MAX_TIME_NS;
use crate::io::spill::{Record, Spill};

/// Phases sorted in memory before they go to the temporary file as one run (16 MiB).
const CHUNK: usize = 1 << 20;
/// Phases read at a time from each run while merging. (64 KiB a run)
const READ: usize = 4096;

/// One phase: its start's offset from an origin of the importer's (logcat: the first GC's start) (saturated at `i64::MAX`), and its length. `[ns]`
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
struct Rec {
    off: i64,
    dur: u64,
}

impl Record for Rec {
    const SIZE: usize = 16;
    fn put(self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.off.to_le_bytes());
        out[8..].copy_from_slice(&self.dur.to_le_bytes());
    }
    fn take(b: &[u8]) -> Self {
        Rec {
            off: u64::take(&b[..8]) as i64,
            dur: u64::take(&b[8..]),
        }
    }
}

/// Phases counted as they come; see the module header.
#[derive(Debug, Default)]
pub(super) struct PhaseUnion {
    /// The chunk being filled (unsorted).
    chunk: Vec<Rec>,
    /// Sorted runs, one after another, and where each ends.
    runs: Option<Spill<Rec>>,
    run_ends: Vec<usize>,
    /// Phases starting more than 2⁶³ ns before the first GC (garbled dates): offset and length, exactly. `[ns]`
    far: Vec<(i128, u64)>,
    /// The temporary file could not be made: the phases stay in memory (said in the result's error, never lost).
    no_file: bool,
}

impl PhaseUnion {
    /// Adds the phase starting `off` after the first GC's start and lasting `dur`. `[ns]`
    pub(super) fn push(&mut self, off: i128, dur: u64) {
        if off < i128::from(i64::MIN) {
            self.far.push((off, dur));
            return;
        }
        self.chunk.push(Rec {
            off: off.min(i128::from(i64::MAX)) as i64,
            dur,
        });
        if self.chunk.len() >= CHUNK && !self.no_file {
            if self.runs.is_none() {
                match Spill::new() {
                    Ok(s) => self.runs = Some(s),
                    Err(_) => {
                        self.no_file = true;
                        return;
                    }
                }
            }
            self.chunk.sort_unstable();
            if let Some(runs) = &mut self.runs {
                self.chunk.drain(..).for_each(|r| runs.push(r));
                self.run_ends.push(runs.len());
            }
        }
    }

    /// The phases in range once the origin is `origin_off` after the first GC's start (a phase is in range when
    /// both its ends are in `[origin, origin + MAX_TIME_NS)`): how many, and how long some phase runs. `[ns]`
    /// An error when the temporary file failed (the count would be wrong). With `spans`, the union's disjoint
    /// spans are appended to it in time order.
    pub(super) fn finish(
        mut self,
        origin_off: i128,
        spans: Option<&mut Vec<(u64, u64)>>,
    ) -> Result<(usize, u64), String> {
        let in_range = |ns: i128| u64::try_from(ns).ok().filter(|&v| v < MAX_TIME_NS);
        let mut union = Union {
            spans,
            ..Union::default()
        };
        let mut add = |off: i128, dur: u64| {
            let a = off - origin_off;
            if let (Some(a), Some(b)) = (in_range(a), in_range(a + i128::from(dur))) {
                union.add(a, b);
            }
        };
        // Far phases start before every other one.
        self.far.sort_unstable();
        for &(off, dur) in &self.far {
            add(off, dur);
        }
        self.chunk.sort_unstable();
        let mut cursors: Vec<Cursor> = Vec::new();
        if let Some(runs) = &self.runs {
            let mut from = 0;
            for &end in &self.run_ends {
                cursors.push(Cursor::new(runs, from, end));
                from = end;
            }
        }
        let mut mem = self.chunk.iter().copied().peekable();
        // The smallest head among the runs and the in-memory chunk, each time (few runs: a linear pick).
        loop {
            let run = (0..cursors.len())
                .filter_map(|i| cursors[i].head().map(|r| (r, i)))
                .min();
            let next = match (run, mem.peek().copied()) {
                (Some((r, i)), Some(m)) if r <= m => {
                    cursors[i].advance(self.runs.as_ref());
                    r
                }
                (_, Some(_)) => mem.next().unwrap_or_default(),
                (Some((r, i)), None) => {
                    cursors[i].advance(self.runs.as_ref());
                    r
                }
                (None, None) => break,
            };
            add(i128::from(next.off), next.dur);
        }
        if let Some(e) = self.runs.as_ref().and_then(Spill::error) {
            return Err(e.to_string());
        }
        Ok((union.count, union.total))
    }
}

/// A sorted run being read.
struct Cursor {
    buf: Vec<Rec>,
    /// The bytes read into `buf`, kept between reads.
    bytes: Vec<u8>,
    at: usize,
    next: usize,
    end: usize,
}

impl Cursor {
    fn new(runs: &Spill<Rec>, from: usize, end: usize) -> Self {
        let mut c = Cursor {
            buf: Vec::new(),
            bytes: Vec::new(),
            at: 0,
            next: from,
            end,
        };
        c.fill(runs);
        c
    }

    fn fill(&mut self, runs: &Spill<Rec>) {
        let n = READ.min(self.end - self.next);
        self.buf.resize(n, Rec::default());
        runs.read(self.next, &mut self.buf, &mut self.bytes);
        self.next += n;
        self.at = 0;
    }

    fn head(&self) -> Option<Rec> {
        self.buf.get(self.at).copied()
    }

    fn advance(&mut self, runs: Option<&Spill<Rec>>) {
        self.at += 1;
        if self.at == self.buf.len()
            && let Some(runs) = runs
        {
            self.fill(runs);
        }
    }
}

/// The union of spans given in start order: how many, and their covered length; with `spans`, the union itself.
/// `[ns]`
#[derive(Debug, Default)]
struct Union<'a> {
    count: usize,
    total: u64,
    reach: u64,
    spans: Option<&'a mut Vec<(u64, u64)>>,
}

impl Union<'_> {
    fn add(&mut self, a: u64, b: u64) {
        if let Some(spans) = self.spans.as_deref_mut() {
            extend_union(spans, a, b);
        }
        self.count += 1;
        let a = a.max(self.reach);
        if b > a {
            self.total += b - a;
            self.reach = b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::importers::covered_ns;

    /// Counted with runs on disk, the phases give the count and covered time that the kept phases give.
    #[test]
    fn counted_phases_equal_kept_phases() {
        let mut state = 7u64;
        let mut rnd = move |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let n = 2 * CHUNK + 1234;
        let spans: Vec<(i128, u64)> = (0..n)
            .map(|k| {
                (
                    k as i128 * 1000 - rnd(50_000) as i128 - 5_000_000,
                    rnd(20_000),
                )
            })
            .collect();
        let origin = spans.iter().map(|s| s.0).min().unwrap_or(0) + 3_000;
        let mut u = PhaseUnion::default();
        for &(a, d) in &spans {
            u.push(a, d);
        }
        assert!(u.runs.is_some(), "runs on disk");
        let kept: Vec<(u64, u64)> = spans
            .iter()
            .filter_map(|&(a, d)| {
                let a = u64::try_from(a - origin).ok()?;
                Some((a, a + d))
            })
            .collect();
        let mut union = Vec::new();
        assert_eq!(
            u.finish(origin, Some(&mut union)),
            Ok((kept.len(), covered_ns(kept.iter().copied()))),
            "count and covered time"
        );
        // The union's spans: disjoint, in order, covering exactly what the phases cover.
        assert!(
            union.windows(2).all(|w| w[0].1 < w[1].0),
            "disjoint, in order"
        );
        assert_eq!(
            union.iter().map(|s| s.1 - s.0).sum::<u64>(),
            covered_ns(kept.iter().copied()),
            "the union's length"
        );
        let inside = |t: u64| union.iter().any(|&(a, b)| a <= t && t < b);
        assert!(
            kept.iter()
                .filter(|k| k.1 > k.0)
                .all(|&(a, b)| inside(a) && inside(b - 1)),
            "every phase inside the union"
        );
    }
}
