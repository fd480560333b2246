//! The simulation's one random-number generator: **xoshiro256\*\*** (Blackman & Vigna, 2018), seeded through
//! **SplitMix64**. Written here rather than taken from a crate so that the bit stream, and therefore every run,
//! can never change under a dependency update. Each subsystem forks its own stream from the scenario seed with
//! [`SimRng::fork`], so adding draws in one subsystem does not shift another's.

/// Deterministic pseudo-random generator (xoshiro256\*\*).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimRng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `x.round() as u64`, bit for bit (half away from zero, negative and NaN to 0, saturating), without the libm
/// call `f64::round` compiles to on baseline x86-64 — the workload generator rounds twice per allocation.
#[inline]
pub fn round_to_u64(x: f64) -> u64 {
    // The common case, 0 ≤ x < 2^52, through the signed conversions: one instruction each way on x86-64, where
    // `f64 as u64` and `u64 as f64` are branchy sequences. Same arithmetic, same result.
    if (0.0..4_503_599_627_370_496.0).contains(&x) {
        let t = x as i64;
        return (t + i64::from(x - t as f64 >= 0.5)) as u64;
    }
    let t = x as u64;
    // Exact: for 0 ≤ x < 2^53 the fraction is representable; above, x is an integer and the fraction 0.
    t.saturating_add(u64::from(x - t as f64 >= 0.5))
}

impl SimRng {
    /// A generator seeded from `seed` (any value, zero included).
    pub fn new(seed: u64) -> Self {
        let mut st = seed;
        let s = [
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
        ];
        SimRng { s }
    }

    /// An independent stream for a named subsystem: the same `(seed, stream)` always gives the same stream.
    pub fn fork(seed: u64, stream: &str) -> Self {
        // FNV-1a of the stream name, mixed into the seed.
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        for b in stream.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01B3);
        }
        SimRng::new(seed ^ h.rotate_left(17))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A float uniform in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An integer uniform in `[lo, hi]` (inclusive). Returns `lo` when `hi <= lo`.
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let span = hi - lo;
        if span == u64::MAX {
            return self.next_u64();
        }
        let n = span + 1;
        // Lemire's nearly-divisionless method with rejection: unbiased. The threshold `2⁶⁴ mod n` is below n, so
        // a low word ≥ n is accepted without computing it (the division is the costly part).
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            let low = m as u64;
            if low >= n || low >= n.wrapping_neg() % n {
                return lo + (m >> 64) as u64;
            }
        }
    }

    /// A geometric/exponential draw with the given mean, rounded to a whole number ≥ 1.
    pub fn exp_count(&mut self, mean: f64) -> u64 {
        if mean <= 1.0 {
            return 1;
        }
        let u = 1.0 - self.next_f64(); // (0, 1]
        let x = -mean * u.ln();
        round_to_u64(x).max(1)
    }

    /// Picks an index with probability proportional to `weights` (all ≥ 0, at least one > 0); `total` is their
    /// sum, `weights.iter().sum()`, which a caller drawing many times from the same weights works out once.
    pub fn pick_weighted(&mut self, weights: &[f64], total: f64) -> usize {
        let mut x = self.next_f64() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len().saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = SimRng::fork(7, "workload");
        let mut b = SimRng::fork(7, "workload");
        let mut c = SimRng::fork(7, "timer");
        let xa: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb, "a fork is a pure function of seed and name");
        assert_ne!(xa, xc, "different names give different streams");
    }

    #[test]
    fn xoshiro_reference_vector() {
        // Reference: xoshiro256** with state [1, 2, 3, 4] yields 11520 then 0 then 1509978240.
        let mut r = SimRng { s: [1, 2, 3, 4] };
        assert_eq!(r.next_u64(), 11520);
        assert_eq!(r.next_u64(), 0);
        assert_eq!(r.next_u64(), 1_509_978_240);
    }

    #[test]
    fn round_to_u64_is_round_as_u64() {
        let mut r = SimRng::new(9);
        let special = [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -0.7,
            0.499_999_999_999_999_94,
            4_503_599_627_370_495.5,
            4_503_599_627_370_495.0,
            4_503_599_627_370_496.0,
            9_007_199_254_740_993.0,
            1e19,
            1.9e19,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for x in special
            .into_iter()
            .chain((0..10_000).map(|_| r.next_f64() * 1e4))
        {
            assert_eq!(round_to_u64(x), x.round() as u64, "x = {x:e}");
        }
    }

    #[test]
    fn ranges_stay_inside() {
        let mut r = SimRng::new(1);
        for _ in 0..1000 {
            let v = r.range_inclusive(10, 20);
            assert!((10..=20).contains(&v), "{v} out of range");
        }
    }
}
