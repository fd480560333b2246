//! One array of a prepared series ([`Col`]): borrowed from a [`UtilSeries`](super::UtilSeries), built in memory,
//! or spilled to a temporary file and read through a bounded block cache ([`Paged`]) when the input is too big
//! for memory. The MMU reads it by index; its cursors move forward, so a spilled array is read almost
//! sequentially. [`ColBuilder`] fills one in memory or on disk.

use crate::io::spill::{Paged, Record, Spill};

/// An array of `T`, in memory or on disk.
#[derive(Debug)]
pub(super) enum Col<'a, T: Record> {
    Slice(&'a [T]),
    Vec(Vec<T>),
    /// Boxed: a block cache is 100 bytes, and a curve of 60,000 small series kept three copies of every array's
    /// slot (the curve and a view per core).
    Paged(Box<Paged<T>>),
    /// Two values taking turns (`[even, odd]`) over a length: a pause list's utilisations, 1 and 0 in turn.
    Alt([T; 2], usize),
}

impl<'a, T: Record> Col<'a, T> {
    /// Element `k`.
    #[inline(always)]
    pub(super) fn get(&self, k: usize) -> T {
        match self {
            Col::Slice(s) => s[k],
            Col::Vec(v) => v[k],
            Col::Paged(p) => p.get(k),
            Col::Alt(a, _) => a[k & 1],
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Col::Slice(s) => s.len(),
            Col::Vec(v) => v.len(),
            Col::Paged(p) => p.len(),
            Col::Alt(_, n) => *n,
        }
    }

    /// The first index in `[from, len)` at which `pred` is false (`pred` holds on a prefix of the range), by
    /// galloping from `from`: cheap when the answer is near, as for the MMU's forward cursors.
    pub(super) fn partition_point_from(&self, from: usize, pred: impl Fn(T) -> bool) -> usize {
        let n = self.len();
        let (mut lo, mut step) = (from, 1);
        // Invariant: pred holds below `lo`; find `hi` where it fails (or n).
        let mut hi = loop {
            let probe = lo.saturating_add(step);
            if probe >= n {
                break n;
            }
            if !pred(self.get(probe - 1)) {
                break probe - 1;
            }
            lo = probe;
            step *= 2;
        };
        // pred holds on [from, lo) and fails at hi (or hi = n).
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(self.get(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The I/O error of a spilled array, if any.
    pub(super) fn error(&self) -> Option<&str> {
        match self {
            Col::Paged(p) => p.error(),
            _ => None,
        }
    }

    /// The same array, borrowed, with its own block cache of at most `blocks` blocks when on disk (for a query on
    /// another thread).
    pub(super) fn view(&self, blocks: usize) -> Col<'_, T> {
        match self {
            Col::Slice(s) => Col::Slice(s),
            Col::Vec(v) => Col::Slice(v),
            Col::Paged(p) => Col::Paged(Box::new(p.reader_keeping(blocks))),
            Col::Alt(a, n) => Col::Alt(*a, *n),
        }
    }

    /// The same array as a second owner: copied when in memory, shared with its own cache when on disk.
    pub(super) fn duplicate(&self) -> Col<'a, T> {
        match self {
            Col::Slice(s) => Col::Slice(s),
            Col::Vec(v) => Col::Vec(v.clone()),
            Col::Paged(p) => Col::Paged(Box::new(p.reader())),
            Col::Alt(a, n) => Col::Alt(*a, *n),
        }
    }

    /// Whether the array is on disk (behind a block cache).
    pub(super) fn paged(&self) -> bool {
        matches!(self, Col::Paged(_))
    }

    /// Drops the blocks its cache holds (on disk; nothing otherwise).
    pub(super) fn forget(&self) {
        if let Col::Paged(p) = self {
            p.forget();
        }
    }
}

/// Step indices ascending (where utilisation falls or rises): a [`Col`], or every other step from `first` (a
/// pause list, whose falls and rises take turns), which needs neither memory nor a file.
#[derive(Debug)]
pub(super) enum Idx<'a> {
    Col(Col<'a, u32>),
    Every2 { first: u32, len: usize },
}

impl Idx<'_> {
    /// The array, if any ([`Col::paged`], [`Col::forget`]).
    pub(super) fn col(&self) -> Option<&Col<'_, u32>> {
        match self {
            Idx::Col(c) => Some(c),
            Idx::Every2 { .. } => None,
        }
    }

    /// Index `x`.
    #[inline(always)]
    pub(super) fn get(&self, x: usize) -> u32 {
        match self {
            Idx::Col(c) => c.get(x),
            Idx::Every2 { first, .. } => first + 2 * x as u32,
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Idx::Col(c) => c.len(),
            Idx::Every2 { len, .. } => *len,
        }
    }

    pub(super) fn error(&self) -> Option<&str> {
        match self {
            Idx::Col(c) => c.error(),
            Idx::Every2 { .. } => None,
        }
    }

    /// See [`Col::view`].
    pub(super) fn view(&self, blocks: usize) -> Idx<'_> {
        match self {
            Idx::Col(c) => Idx::Col(c.view(blocks)),
            Idx::Every2 { first, len } => Idx::Every2 {
                first: *first,
                len: *len,
            },
        }
    }
}

/// Fills a [`Col`]: in memory until it holds `spill_at` elements, then in a temporary file.
#[derive(Debug)]
pub(super) struct ColBuilder<T: Record> {
    vec: Vec<T>,
    spill: Option<Spill<T>>,
    spill_at: usize,
}

impl<T: Record> ColBuilder<T> {
    /// In memory with `capacity` reserved, moving to disk once `spill_at` elements are held (`usize::MAX`:
    /// never; 0: from the start).
    pub(super) fn new(spill_at: usize, capacity: usize) -> std::io::Result<Self> {
        let spill = if spill_at == 0 {
            Some(Spill::new()?)
        } else {
            None
        };
        Ok(ColBuilder {
            vec: Vec::with_capacity(if spill.is_some() { 0 } else { capacity }),
            spill,
            spill_at,
        })
    }

    #[inline]
    pub(super) fn push(&mut self, x: T) -> std::io::Result<()> {
        match &mut self.spill {
            Some(s) => s.push(x),
            None => {
                self.vec.push(x);
                if self.vec.len() >= self.spill_at {
                    self.move_to_disk()?;
                }
            }
        }
        Ok(())
    }

    /// Moves what it holds to a temporary file, where every later element goes too (nothing when already there).
    pub(super) fn move_to_disk(&mut self) -> std::io::Result<()> {
        if self.spill.is_none() {
            let mut s = Spill::new()?;
            self.vec.drain(..).for_each(|x| s.push(x));
            self.vec = Vec::new();
            self.spill = Some(s);
        }
        Ok(())
    }

    /// Elements held in memory (not yet in a temporary file).
    pub(super) fn in_memory(&self) -> usize {
        self.vec.len()
    }

    /// Elements held.
    pub(super) fn len(&self) -> usize {
        self.vec.len() + self.spill.as_ref().map_or(0, Spill::len)
    }

    pub(super) fn finish<'a>(self) -> Col<'a, T> {
        match self.spill {
            Some(s) => Col::Paged(Box::new(Paged::new(s))),
            None => {
                // Grown by doubling: up to half its room spare, in every small series a curve keeps.
                let mut v = self.vec;
                v.shrink_to_fit();
                Col::Vec(v)
            }
        }
    }
}

/// Fills the utilisations of steps as they are made ([`ColBuilder`] for `f64`): while they take turns between two
/// values (a pause list: 1, 0, 1, …) nothing is stored and the result is a [`Col::Alt`]; the first value that
/// breaks the turns moves them all to a [`ColBuilder`]. The last step's value does not count: it is the end
/// marker's, which no query reads (`Prepared::u` takes it as 0), so a pause list ending at the span's end (two 1s
/// in a row) stays [`Col::Alt`].
#[derive(Debug)]
pub(super) struct UtilBuilder {
    pair: [f64; 2],
    /// Values taken in turn so far.
    n: usize,
    /// The last value pushed, not yet counted.
    last: Option<f64>,
    col: Option<ColBuilder<f64>>,
    spill_at: usize,
}

impl UtilBuilder {
    /// As [`ColBuilder::new`] once the turns break.
    pub(super) fn new(spill_at: usize) -> Self {
        UtilBuilder {
            pair: [0.0; 2],
            n: 0,
            last: None,
            col: None,
            spill_at,
        }
    }

    #[inline]
    pub(super) fn push(&mut self, x: f64) -> std::io::Result<()> {
        match self.last.replace(x) {
            Some(prev) => self.count(prev),
            None => Ok(()),
        }
    }

    fn count(&mut self, x: f64) -> std::io::Result<()> {
        if let Some(c) = &mut self.col {
            return c.push(x);
        }
        if self.n < 2 {
            self.pair[self.n] = x;
        } else if x.to_bits() != self.pair[self.n & 1].to_bits() {
            let mut c = ColBuilder::new(self.spill_at, 0)?;
            for k in 0..self.n {
                c.push(self.pair[k & 1])?;
            }
            c.push(x)?;
            self.col = Some(c);
            return Ok(());
        }
        self.n += 1;
        Ok(())
    }

    pub(super) fn finish<'a>(mut self) -> std::io::Result<Col<'a, f64>> {
        match (self.col.take(), self.last) {
            (Some(mut c), last) => {
                if let Some(x) = last {
                    c.push(x)?;
                }
                Ok(c.finish())
            }
            (None, Some(x)) if self.n < 2 => {
                self.count(x)?;
                Ok(Col::Alt(self.pair, self.n))
            }
            (None, last) => Ok(Col::Alt(self.pair, self.n + usize::from(last.is_some()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(values: &[f64]) -> Vec<f64> {
        let mut b = UtilBuilder::new(usize::MAX);
        values.iter().for_each(|&x| b.push(x).expect("in memory"));
        let c = b.finish().expect("in memory");
        (0..c.len()).map(|k| c.get(k)).collect()
    }

    #[test]
    fn utilisations_taking_turns_are_stored_as_two_values_and_any_other_as_given() {
        // Taking turns, the last value free (an end marker): two values kept, the marker read as the turn's.
        let turns = built(&[1.0, 0.0, 1.0, 0.0, 1.0, 1.0]);
        assert_eq!(turns, vec![1.0, 0.0, 1.0, 0.0, 1.0, 0.0], "turns");
        // Broken inside: every value as given, the last too.
        for v in [
            vec![1.0, 0.0, 0.5, 0.0, 1.0],
            vec![0.0, 1.0, 0.0, 0.0, 1.0, 0.25],
            vec![0.3],
            vec![0.3, 0.7],
            vec![],
        ] {
            let got = built(&v);
            assert_eq!(got.len(), v.len(), "length of {v:?}");
            let n = v.len().saturating_sub(1);
            assert_eq!(got[..n], v[..n], "values of {v:?}");
        }
    }

    #[test]
    fn galloping_search_matches_the_slice_search_from_every_start() {
        let v: Vec<u64> = (0..300u64).map(|k| k / 3 * 7).collect();
        let c = Col::Slice(&v);
        for from in [0, 1, 5, 100, 299] {
            for t in [0u64, 6, 7, 8, 350, 697, 698, 10_000] {
                let want = from + v[from..].partition_point(|&x| x <= t);
                assert_eq!(
                    c.partition_point_from(from, |x| x <= t),
                    want,
                    "from {from}, t {t}"
                );
            }
        }
    }
}
