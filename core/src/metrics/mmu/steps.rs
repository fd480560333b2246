//! A step function's arrays as an importer reads them ([`Steps`], issue 21 item 4): a utilisation CSV's steps go to
//! temporary files ([`crate::io::spill`]) once a series holds [`StepsBuilder::new`]'s threshold of them in memory
//! (or when its importer's budget over all series asks, [`StepsBuilder::move_to_disk`]), so a file of any size is read,
//! clipped, counted, exported and measured in bounded memory. [`MmuCurve::from_steps`](super::MmuCurve::from_steps)
//! over them gives bit for bit what [`MmuCurve::new`](super::MmuCurve::new) gives over the same steps in memory.

use std::io;

use super::UtilSeries;
use super::col::{Col, ColBuilder};

/// Steps of a series from which its arrays go to disk (a series of fewer stays in memory: small, and no files).
pub const SPILL_STEPS: usize = 1 << 16;

/// Blocks cached by a sequential read ([`Steps::iter`]).
const ITER_BLOCKS: usize = 2;

/// A utilisation step function (as [`UtilSeries`]: `util[i]` holds on `[times[i], times[i+1])`, the last time ends
/// it), in memory or on disk.
#[derive(Debug)]
pub struct Steps {
    pub(super) times: Col<'static, u64>,
    pub(super) util: Col<'static, f64>,
}

impl Default for Steps {
    fn default() -> Self {
        Steps::from(UtilSeries::default())
    }
}

impl From<UtilSeries> for Steps {
    fn from(s: UtilSeries) -> Self {
        let UtilSeries {
            mut times,
            mut util,
        } = s;
        let n = times.len().min(util.len());
        times.truncate(n);
        util.truncate(n);
        Steps {
            times: Col::Vec(times),
            util: Col::Vec(util),
        }
    }
}

impl Clone for Steps {
    fn clone(&self) -> Self {
        Steps {
            times: self.times.duplicate(),
            util: self.util.duplicate(),
        }
    }
}

impl PartialEq for Steps {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other.iter())
                .all(|(a, b)| a.0 == b.0 && a.1.to_bits() == b.1.to_bits())
    }
}

impl Steps {
    /// Steps held.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// No step held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether its arrays are in temporary files.
    pub fn on_disk(&self) -> bool {
        self.times.paged()
    }

    /// Step `k`: its time `[ns]` and utilisation.
    pub fn get(&self, k: usize) -> (u64, f64) {
        (self.times.get(k), self.util.get(k))
    }

    /// First and last time (`(0, 0)` when empty), as [`UtilSeries::span`]. `[ns]`
    pub fn span(&self) -> (u64, u64) {
        match self.len() {
            0 => (0, 0),
            n => (self.times.get(0), self.times.get(n - 1)),
        }
    }

    /// The steps in order, read through small caches of their own.
    pub fn iter(&self) -> impl Iterator<Item = (u64, f64)> + '_ {
        self.iter_from(0)
    }

    /// The steps from step `k` on, in order (nothing before `k` is read).
    fn iter_from(&self, k: usize) -> impl Iterator<Item = (u64, f64)> + '_ {
        let (times, util) = (self.times.view(ITER_BLOCKS), self.util.view(ITER_BLOCKS));
        (k..self.len()).map(move |k| (times.get(k), util.get(k)))
    }

    /// The first I/O error met on its temporary files, if any: what was read after it is not to be trusted.
    pub fn error(&self) -> Option<&str> {
        self.times.error().or_else(|| self.util.error())
    }

    /// The steps in memory.
    pub fn to_series(&self) -> UtilSeries {
        let (times, util) = self.iter().unzip();
        UtilSeries { times, util }
    }

    /// The series restricted to `[a, b]`, as [`UtilSeries::into_clipped`] (unchanged when it lies inside; empty when
    /// it does not overlap); the part kept goes to disk as the steps were read (beyond [`SPILL_STEPS`]).
    pub fn into_clipped(self, a: u64, b: u64) -> io::Result<Steps> {
        let (s0, s1) = self.span();
        if a <= s0 && b >= s1 {
            return Ok(self);
        }
        let mut out = StepsBuilder::new(SPILL_STEPS)?;
        clip_steps(
            self.len(),
            (s0, s1),
            (a, b),
            |lo| self.times.partition_point_from(0, |t| t <= lo),
            |k| self.iter_from(k),
            |t, u| out.push(t, u),
        )?;
        if let Some(e) = self.error() {
            return Err(io::Error::other(e.to_string()));
        }
        Ok(out.finish())
    }
}

/// The steps inside `[a, b]` of a series of `len` steps from `s0` to `s1` that `[a, b]` does not cover, handed to
/// `push` in order: the value holding at the later start from there, the steps before the earlier end, then that
/// end (at utilisation 0, the end marker); nothing when the two do not overlap. `after(t)` is the number of steps
/// at or before `t`, and `from(k)` the steps from step `k` on. The one rule of [`UtilSeries::clipped`] and
/// [`Steps::into_clipped`].
pub(super) fn clip_steps<I: Iterator<Item = (u64, f64)>, E>(
    len: usize,
    (s0, s1): (u64, u64),
    (a, b): (u64, u64),
    after: impl FnOnce(u64) -> usize,
    from: impl FnOnce(usize) -> I,
    mut push: impl FnMut(u64, f64) -> Result<(), E>,
) -> Result<(), E> {
    let (lo, hi) = (a.max(s0), b.min(s1));
    if hi <= lo || len < 2 {
        return Ok(());
    }
    let mut steps = from(after(lo).saturating_sub(1));
    push(lo, steps.next().map_or(1.0, |s| s.1))?;
    for (t, u) in steps {
        if t >= hi {
            break;
        }
        push(t, u)?;
    }
    push(hi, 0.0)
}

/// Fills a [`Steps`] in input order: in memory until the series holds its threshold of steps, then in two
/// temporary files.
#[derive(Debug)]
pub struct StepsBuilder {
    times: ColBuilder<u64>,
    util: ColBuilder<f64>,
}

impl StepsBuilder {
    /// Moving to disk once it holds `spill_at` steps (`usize::MAX`: never).
    pub fn new(spill_at: usize) -> io::Result<Self> {
        Ok(StepsBuilder {
            times: ColBuilder::new(spill_at, 0)?,
            util: ColBuilder::new(spill_at, 0)?,
        })
    }

    /// Appends the step `(t, u)` (times ascending: the caller checks). `[ns]`
    pub fn push(&mut self, t: u64, u: f64) -> io::Result<()> {
        self.times.push(t)?;
        self.util.push(u)
    }

    /// Steps held.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// No step held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Steps held in memory.
    pub fn in_memory(&self) -> usize {
        self.times.in_memory()
    }

    /// Moves its steps to temporary files now (where the rest follow).
    pub fn move_to_disk(&mut self) -> io::Result<()> {
        self.times.move_to_disk()?;
        self.util.move_to_disk()
    }

    /// The steps made.
    pub fn finish(self) -> Steps {
        Steps {
            times: self.times.finish(),
            util: self.util.finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(s: &UtilSeries, spill_at: usize) -> Steps {
        let mut b = StepsBuilder::new(spill_at).expect("temporary file");
        for (&t, &u) in s.times.iter().zip(&s.util) {
            b.push(t, u).expect("temporary file");
        }
        b.finish()
    }

    #[test]
    fn steps_in_memory_or_on_disk_read_and_clip_as_the_series_does() {
        let times: Vec<u64> = (0..5000u64).map(|k| k * 7 + k % 3).collect();
        let util: Vec<f64> = (0..5000).map(|k| f64::from(k % 11) / 10.0).collect();
        let s = UtilSeries { times, util };
        for spill_at in [1, 100, 4999, 5000, usize::MAX] {
            let steps = built(&s, spill_at);
            assert_eq!(steps.on_disk(), spill_at <= 5000, "on disk at {spill_at}");
            assert_eq!(steps.to_series(), s, "read back at {spill_at}");
            assert_eq!(steps.span(), s.span(), "span at {spill_at}");
            assert_eq!(steps.clone(), steps, "a clone at {spill_at}");
            for (a, b) in [
                (0, u64::MAX),
                (3, 9000),
                (7000, 7001),
                (500, 40000),
                (40000, 50000),
            ] {
                let clipped = steps.clone().into_clipped(a, b).expect("temporary file");
                assert_eq!(
                    clipped.to_series(),
                    s.clipped(a, b),
                    "[{a}, {b}] at {spill_at}"
                );
            }
        }
        assert_eq!(Steps::default().span(), (0, 0), "empty");
    }

    /// The curve of steps on disk answers as [`MmuCurve::new`]'s over the same steps in memory: the same MMU and
    /// the same worst windows at every window, bit for bit.
    #[test]
    fn a_curve_of_steps_on_disk_is_the_curve_of_the_series_in_memory() {
        use crate::metrics::mmu::MmuCurve;
        let mut x = 7u64;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        let series: Vec<UtilSeries> = (0..3)
            .map(|k| {
                let mut t = 1000 * k;
                let (mut times, mut util) = (Vec::new(), Vec::new());
                for _ in 0..3000 + 500 * k {
                    times.push(t);
                    util.push([0.0, 1.0, 0.25, 0.5][(next() % 4) as usize]);
                    t += 1 + next() % 5000;
                }
                UtilSeries { times, util }
            })
            .collect();
        let memory = MmuCurve::new(&series);
        let steps = series.iter().map(|s| built(s, 100)).collect();
        let disk = MmuCurve::from_steps(steps).expect("temporary files");
        for w in [1, 700, 10_000, 250_000, 2_000_000, 20_000_000] {
            assert_eq!(disk.mmu(w), memory.mmu(w), "MMU at {w} ns");
            assert_eq!(disk.worst(w, 5), memory.worst(w, 5), "worst at {w} ns");
        }
        assert!(disk.error().is_none(), "no I/O error");
    }
}
