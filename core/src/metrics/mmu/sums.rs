//! The prefix sums of a pause list on disk ([`DerivedSums`]), computed a block at a time from its spilled step
//! times when a [`Paged`](crate::io::spill::Paged) reader misses, instead of spilled beside them (issue 21 item 4:
//! half the bytes written while building and read while querying a 1 GB pause CSV).
//!
//! A pause list's utilisations take turns between two values ([`Col::Alt`](super::col::Col::Alt)), so the sum at
//! step k is the sum at its block's first step plus that block's steps alone. Only the sums at block starts are
//! kept (8 bytes per [`block_len`] steps), computed by [`Prepared::build`](super::prepared::Prepared::build)'s own
//! pass, and each block repeats that pass's additions in the same order from the same value: the sums are the bits
//! the spilled array held.

use std::sync::Arc;

use crate::io::spill::{Blocks, block_len};

/// Prefix sums of steps whose utilisations take turns (`pair[k & 1]` from step k to step k + 1), read from the
/// step times a block at a time. `[ns]`
#[derive(Debug)]
pub(super) struct DerivedSums {
    pub(super) times: Arc<dyn Blocks<u64>>,
    /// The sum at the first step of each block of [`block_len`]`::<f64>()` steps. `[ns]`
    pub(super) starts: Vec<f64>,
    pub(super) pair: [f64; 2],
}

impl Blocks<f64> for DerivedSums {
    fn len(&self) -> usize {
        self.times.len()
    }

    /// Sums `[start, start + out.len())`; `start` is a block's first step, as a `Paged` reader asks.
    fn read(&self, start: usize, out: &mut [f64], buf: &mut Vec<u8>) {
        let mut t = vec![0u64; out.len()];
        self.times.read(start, &mut t, buf);
        let mut sum = (self.starts)
            .get(start / block_len::<f64>())
            .copied()
            .unwrap_or_default();
        for (i, o) in out.iter_mut().enumerate() {
            if i > 0 {
                sum += self.pair[(start + i - 1) & 1] * (t[i] - t[i - 1]) as f64;
            }
            *o = sum;
        }
    }

    fn error(&self) -> Option<&str> {
        self.times.error()
    }
}

#[cfg(test)]
mod tests {
    use super::super::col::Col;
    use super::super::prepared::Prepared;
    use crate::io::spill::{Paged, Spill, block_len};

    /// Sums derived from spilled times are the bits the in-memory pass computes, at every step, across blocks,
    /// for utilisations of 1 and 0 and for fractions taking turns.
    #[test]
    fn derived_sums_are_the_sums_of_the_pass_bit_for_bit() {
        let n = 3 * block_len::<f64>() + 17;
        let times: Vec<u64> = (0..n as u64)
            .map(|k| 1_000 + k * 137 + (k * k) % 101)
            .collect();
        for pair in [[1.0, 0.0], [0.0, 1.0], [0.7, 0.2]] {
            let util: Vec<f64> = (0..n).map(|k| pair[k & 1]).collect();
            let mut spill = Spill::new().expect("temp file");
            times.iter().for_each(|&t| spill.push(t));
            let disk = Prepared::build(
                Col::Paged(Box::new(Paged::new(spill))),
                Col::Alt(pair, n),
                Some(1 << 10),
            )
            .expect("temp files")
            .expect("a series");
            assert!(matches!(disk.sums, Col::Paged(_)), "{pair:?}: on disk");
            let memory = Prepared::build(Col::Slice(&times), Col::Slice(&util), None)
                .expect("in memory")
                .expect("a series");
            // Read backwards too: every block is read on its own, not only after the one before.
            for k in (0..n).chain((0..n).rev()) {
                assert_eq!(
                    disk.sums.get(k).to_bits(),
                    memory.sums.get(k).to_bits(),
                    "{pair:?}: step {k}"
                );
            }
        }
    }
}
