//! `AndroidProfile`: a benchmark of SYSTOR'15 Table 1 as the android-krait engine runs it — how much it allocates
//! and keeps live, how long objects live (the lifetime columns), its threads, explicit GCs and iterations — plus
//! the mutator's compute per allocated byte, which the paper does not give (an estimate, stated per profile).
//!
//! **Lifetimes** are in the allocation clock (bytes allocated by the whole process since the object's birth), as
//! Table 1 measures them: `lifetime_pct` are the percentages of objects dead within 128, 256 and 512 KiB of
//! allocation. The distribution is piecewise linear through those points, then linear up to a longest lifetime
//! `L_max` chosen so that the mean lifetime equals the live size (Little's law in the allocation clock: the bytes
//! live at any moment = the mean lifetime of a byte, in bytes allocated). That is derived from Table 1's inputs
//! (Alloc, Live and the lifetime columns) alone; the GC counts then have to come out of sizing and scheduling.

use serde::{Deserialize, Serialize};

use crate::workload::from_trace::RecordingSummary;

/// `[android]` section of a workload profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AndroidProfile {
    /// Heap allocated over the run (Table 1 Alloc). `[MiB]`, range 0.01–100000.
    pub allocated_mib: f64,
    /// Live heap (Table 1 Live): the reachable bytes, read as `live_reading` says. `[MiB]`, range 0.01–4096.
    pub live_mib: f64,
    /// Whether Table 1's Live is the run's mean reachable bytes (default) or its peak. §2.4 measured it with a GC
    /// every 64 KiB "to obtain tight estimates" and does not say which; the two differ only for a live set that
    /// outlives the run (Quadrant, Pandora), where a mean of Live lets the live set end near twice Live. An
    /// unknown of the calibration (docs/models-android.md, "Calibration") [E].
    #[serde(default, skip_serializing_if = "LiveReading::is_mean")]
    pub live_reading: LiveReading,
    /// Objects allocated (Table 1). `[millions]`, range 0.0001–10000.
    pub objects_m: f64,
    /// Live objects (Table 1), which sets the mean size of a live object — tracing costs per object. `[millions]`,
    /// default: live bytes at the allocation's mean object size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_objects_m: Option<f64>,
    /// Percent of objects dead within 128, 256 and 512 KiB of allocation (Table 1 Lifetime), ascending, 0–100.
    pub lifetime_pct: [f64; 3],
    /// Application (mutator) threads that allocate. Range 1–64.
    pub mutators: u32,
    /// All threads of the process (Table 1 Threads): mutators, the GC daemon and the rest (binder, JIT,
    /// finalizer, …) which run as background load. Range ≥ mutators + 1.
    pub threads: u32,
    /// `System.gc()` calls over the run (Table 1 EXPLICIT), made by mutator 0 at iteration ends. Range 0–10⁶.
    #[serde(default)]
    pub explicit_gcs: u32,
    /// Harness iterations: all mutators meet at a barrier after each. Default 1, range 1–10⁶.
    #[serde(default = "one")]
    pub iterations: u32,
    /// Mutator compute per KiB allocated, at `reference_mhz` of `[android.gc]`. `[µs/KiB]`, range (0, 10⁶] [E].
    pub mutator_us_per_kib: f64,
    /// Memory-stall share of mutator work at the reference clock. Default 0.25 (models.md §5: 0.2–0.3) [E].
    #[serde(default = "mutator_stall")]
    pub mutator_stall_fraction: f64,
    /// Time a mutator sleeps (waits for input, network, audio) per KiB it allocates. `[µs/KiB]`, default 0.
    #[serde(default)]
    pub think_us_per_kib: f64,
    /// Background threads: mean time between wake-ups of each. `[ms]`, default 50 [E].
    #[serde(default = "bg_period")]
    pub background_period_ms: f64,
    /// Background threads: work per wake-up at the reference clock. `[µs]`, default 100 [E].
    #[serde(default = "bg_work")]
    pub background_work_us: f64,
    /// JIT compilations (Table 1 Compilations Count), spread over the first iteration. Default 0.
    #[serde(default)]
    pub compilations: u32,
    /// Work per compilation on the JIT thread, at the reference clock. `[µs]`, default 300 [E].
    #[serde(default = "jit_work")]
    pub compile_us: f64,
    /// Large single-object requests (bitmap pixels, I/O buffers): none by default — no Table 1 benchmark
    /// publishes its size tail. `[android.large_objects]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub large_objects: Option<LargeObjects>,
    /// The object-size tail (issue #16 mechanism 3; used only under `android.heap.footprint_limit`): the share of
    /// the allocated bytes in objects of 256 B or more (dlmalloc's MIN_LARGE_SIZE: served best-fit from the tree
    /// bins) — arrays and strings' `char[]` — too large for the holes a sweep leaves between small live objects,
    /// so they need a run of dead objects or dlmalloc's top chunk. Table 1 gives only the mean object size; the
    /// tail is not published. Default 0.1 [E], range 0–0.5 (docs/models-android.md, "Calibration").
    #[serde(default = "tail_share")]
    pub tail_share: f64,
}

fn tail_share() -> f64 {
    0.1
}

/// `[android.large_objects]`: a share of the allocated bytes requested as single objects, each succeeding or
/// failing whole (models.md §1.3). A request bigger than the 128 KiB between the concurrent trigger and the soft
/// limit can fail from below the trigger, with no GC-CONC signalled: a foreground GC-ALLOC (SYSTOR'15 §2.1, "or
/// when allocation fails"). Bitmaps are Java byte arrays on Android 3.0–7.1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LargeObjects {
    /// Share of the allocated bytes in large objects. Range [0, 0.95].
    pub share: f64,
    /// Smallest large object; sizes are uniform between `min_kib` and `max_kib`. `[KiB]`, default 256.
    #[serde(default = "large_min")]
    pub min_kib: f64,
    /// Largest large object. `[KiB]`, default 1024, at least `min_kib`.
    #[serde(default = "large_max")]
    pub max_kib: f64,
}

fn large_min() -> f64 {
    256.0
}
fn large_max() -> f64 {
    1024.0
}

fn one() -> u32 {
    1
}
fn mutator_stall() -> f64 {
    0.25
}
fn bg_period() -> f64 {
    50.0
}
fn bg_work() -> f64 {
    100.0
}
fn jit_work() -> f64 {
    300.0
}

/// What Table 1's Live column measures (see [`AndroidProfile::live_reading`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LiveReading {
    /// The reachable bytes averaged over the run.
    #[default]
    Mean,
    /// The largest reachable bytes over the run (at the end, for a live set that only grows).
    Peak,
}

impl LiveReading {
    fn is_mean(&self) -> bool {
        *self == LiveReading::Mean
    }
}

const KIB: f64 = 1024.0;
const MIB: f64 = 1024.0 * 1024.0;

impl AndroidProfile {
    /// Checks every field; `Err((field, expectation))` relative to the profile's `[android]`.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let check = |f: &str, v: f64, lo: f64, hi: f64| {
            if v.is_finite() && v >= lo && v <= hi {
                Ok(())
            } else {
                Err((
                    format!("android.{f}"),
                    format!("expected a number in [{lo}, {hi}], got {v}"),
                ))
            }
        };
        check("allocated_mib", self.allocated_mib, 0.01, 100_000.0)?;
        check("live_mib", self.live_mib, 0.01, 4096.0)?;
        check("objects_m", self.objects_m, 0.0001, 10_000.0)?;
        if let Some(n) = self.live_objects_m {
            check("live_objects_m", n, 0.000_001, self.objects_m)?;
        }
        let mut prev = 0.0;
        for (i, p) in self.lifetime_pct.iter().enumerate() {
            check(&format!("lifetime_pct.{i}"), *p, prev, 100.0)?;
            prev = *p;
        }
        check("mutators", f64::from(self.mutators), 1.0, 64.0)?;
        check(
            "threads",
            f64::from(self.threads),
            f64::from(self.mutators) + 1.0,
            4096.0,
        )?;
        check("explicit_gcs", f64::from(self.explicit_gcs), 0.0, 1e6)?;
        check("iterations", f64::from(self.iterations), 1.0, 1e6)?;
        check("mutator_us_per_kib", self.mutator_us_per_kib, 1e-6, 1e6)?;
        check(
            "mutator_stall_fraction",
            self.mutator_stall_fraction,
            0.0,
            1.0,
        )?;
        check("think_us_per_kib", self.think_us_per_kib, 0.0, 1e9)?;
        check("background_period_ms", self.background_period_ms, 0.01, 1e7)?;
        check("background_work_us", self.background_work_us, 0.0, 1e7)?;
        check("compilations", f64::from(self.compilations), 0.0, 1e7)?;
        check("compile_us", self.compile_us, 0.0, 1e7)?;
        check("tail_share", self.tail_share, 0.0, 0.5)?;
        if let Some(l) = &self.large_objects {
            check("large_objects.share", l.share, 0.0, 0.95)?;
            check("large_objects.min_kib", l.min_kib, 1.0, 1024.0 * 1024.0)?;
            check(
                "large_objects.max_kib",
                l.max_kib,
                l.min_kib,
                1024.0 * 1024.0,
            )?;
        }
        Ok(())
    }

    /// The profile of a recording (`[workload.trace]` on android-krait): Table 1's allocated, live and object
    /// counts and lifetime columns measured from it, and — when its clock is wall time — its compute per KiB;
    /// what a trace does not record (threads, explicit GCs, iterations, background load, and the compute of a
    /// logical-clock trace) comes from `base`, the profile the scenario names, or is one mutator and the GC daemon.
    pub fn from_recording(
        s: &RecordingSummary,
        wall_clock: bool,
        base: Option<&AndroidProfile>,
    ) -> Result<AndroidProfile, String> {
        let kib = s.allocated_bytes / KIB;
        let recorded_us_per_kib =
            (wall_clock && s.compute_ns > 0.0 && kib > 0.0).then(|| s.compute_ns / 1000.0 / kib);
        let mutator_us_per_kib = match (recorded_us_per_kib, base) {
            (Some(v), _) => v.max(1e-6),
            (None, Some(b)) => b.mutator_us_per_kib,
            (None, None) => {
                return Err("the trace records no wall time between allocations: name a base profile                             (workload.profile = \"android/jack\") for the mutator's compute"
                    .into());
            }
        };
        let mut p = base.cloned().unwrap_or(AndroidProfile {
            allocated_mib: 0.0,
            live_mib: 0.0,
            objects_m: 0.0,
            live_objects_m: None,
            lifetime_pct: [0.0; 3],
            mutators: 1,
            threads: 2,
            explicit_gcs: 0,
            iterations: 1,
            mutator_us_per_kib,
            mutator_stall_fraction: mutator_stall(),
            think_us_per_kib: 0.0,
            background_period_ms: bg_period(),
            background_work_us: bg_work(),
            compilations: 0,
            compile_us: jit_work(),
            large_objects: None,
            tail_share: tail_share(),
            live_reading: LiveReading::Mean,
        });
        p.allocated_mib = s.allocated_bytes / MIB;
        p.live_mib = s.mean_live_bytes / MIB;
        p.live_reading = LiveReading::Mean;
        p.objects_m = s.objects as f64 / 1e6;
        p.live_objects_m = Some((s.mean_live_objects / 1e6).max(1e-6));
        p.lifetime_pct = s.dead_within_pct;
        p.mutator_us_per_kib = mutator_us_per_kib;
        Ok(p)
    }

    /// The large-object stream, when it has a share to allocate.
    pub fn active_large_objects(&self) -> Option<LargeObjects> {
        self.large_objects.filter(|l| l.share > 0.0)
    }

    /// Mean object size. `[bytes]`
    pub fn mean_object_bytes(&self) -> f64 {
        self.allocated_mib * MIB / (self.objects_m * 1e6)
    }

    /// Mean size of a live object. `[bytes]`
    pub fn mean_live_object_bytes(&self) -> f64 {
        match self.live_objects_m {
            Some(n) => self.live_mib * MIB / (n * 1e6),
            None => self.mean_object_bytes(),
        }
    }

    /// The lifetime distribution this profile implies.
    pub fn lifetimes(&self) -> LifetimeCdf {
        LifetimeCdf::from_table1_run(
            self.lifetime_pct,
            self.live_mib * MIB,
            self.allocated_mib * MIB,
            self.live_reading,
        )
    }
}

/// A piecewise-linear lifetime CDF in the allocation clock: points `(bytes, fraction dead)`, from `(0, 0)` to
/// `(L_max, 1 − immortal)`; the remaining `immortal` fraction never dies; `initial_live` bytes are live before the
/// run starts.
#[derive(Debug, Clone, PartialEq)]
pub struct LifetimeCdf {
    points: Vec<(f64, f64)>,
    immortal: f64,
    initial_live: f64,
}

impl LifetimeCdf {
    /// As [`LifetimeCdf::from_table1`] for a run allocating `alloc_bytes` in all: when the tail would be longer
    /// than a quarter of the run, it is cut there and an immortal fraction makes up the live size — the
    /// run-averaged live bytes, or the live bytes at the run's end (its peak: with immortal objects the live set
    /// only grows) when `reading` is [`LiveReading::Peak`]. A steady state (no cut) has both equal to the mean
    /// lifetime.
    pub fn from_table1_run(
        pct: [f64; 3],
        live_bytes: f64,
        alloc_bytes: f64,
        reading: LiveReading,
    ) -> LifetimeCdf {
        let steady = LifetimeCdf::from_table1(pct, live_bytes);
        let cap = alloc_bytes / 4.0;
        if steady.max() <= cap || cap <= 512.0 * KIB {
            return steady;
        }
        let head: Vec<(f64, f64)> = steady.points[..4].to_vec();
        let with = |p: f64| {
            let mut points = head.clone();
            points.push((cap, 1.0 - p));
            LifetimeCdf {
                points,
                immortal: p,
                initial_live: 0.0,
            }
        };
        // The run-averaged live bytes, (1/A)·∫₀^A S(x)·(A − x) dx, and the live bytes at the end, ∫₀^A S(x) dx,
        // both grow with p: bisect for Live.
        let live_of = |c: &LifetimeCdf| match reading {
            LiveReading::Mean => c.run_mean_live(alloc_bytes),
            LiveReading::Peak => c.end_live(alloc_bytes),
        };
        let (mut lo, mut hi) = (0.0, 1.0 - head[3].1);
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if live_of(&with(mid)) < live_bytes {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let mut cdf = with((lo + hi) / 2.0);
        // Even with every long-lived object immortal the run may average less than Live (Pandora: a large state
        // built before the measured interval): the rest is live data present when the run starts.
        cdf.initial_live = (live_bytes - live_of(&cdf)).max(0.0);
        cdf
    }

    /// Live bytes at the end of a run allocating `alloc_bytes` from an empty heap: `∫₀^A S(x) dx`. `[bytes]`
    pub fn end_live(&self, alloc_bytes: f64) -> f64 {
        simpson(alloc_bytes, |x| 1.0 - self.cdf(x))
    }

    /// Live data present before the first allocation (never dies, not counted as allocated). `[bytes]`
    pub fn initial_live(&self) -> f64 {
        self.initial_live
    }

    /// Live bytes averaged over a run allocating `alloc_bytes` from an empty heap: `(1/A)·∫₀^A S(x)·(A − x) dx`
    /// with S the survival function (the fraction still alive at age x). `[bytes]`
    pub fn run_mean_live(&self, alloc_bytes: f64) -> f64 {
        simpson(alloc_bytes, |x| (1.0 - self.cdf(x)) * (alloc_bytes - x)) / alloc_bytes
    }

    /// The fraction of objects that never die.
    pub fn immortal(&self) -> f64 {
        self.immortal
    }

    /// Through Table 1's three points, then linear to the `L_max` that makes the mean lifetime `live_bytes`.
    /// When even an immediate tail gives a larger mean (a live size smaller than the lifetime columns allow),
    /// the tail ends 1 byte after 512 KiB and the mean is as small as the columns permit.
    pub fn from_table1(pct: [f64; 3], live_bytes: f64) -> LifetimeCdf {
        let mut points = vec![(0.0, 0.0)];
        for (i, p) in pct.iter().enumerate() {
            points.push((128.0 * KIB * f64::from(1u32 << i), p / 100.0));
        }
        let head = LifetimeCdf::mean_of(&points);
        let (x3, f3) = points[3];
        let survive = 1.0 - f3;
        // Tail from (x3, f3) to (L, 1) adds survive · (L − x3) / 2 to the mean.
        let tail_len = if survive > 0.0 {
            (2.0 * (live_bytes - head) / survive).max(1.0)
        } else {
            1.0
        };
        points.push((x3 + tail_len, 1.0));
        LifetimeCdf {
            points,
            immortal: 0.0,
            initial_live: 0.0,
        }
    }

    fn mean_of(points: &[(f64, f64)]) -> f64 {
        points
            .windows(2)
            .map(|w| (w[1].0 - w[0].0) * (1.0 - (w[0].1 + w[1].1) / 2.0))
            .sum()
    }

    /// The mean lifetime of the mortal objects' distribution (immortal ones excluded). `[bytes allocated]`
    pub fn mean(&self) -> f64 {
        LifetimeCdf::mean_of(&self.points)
    }

    /// The longest lifetime. `[bytes allocated]`
    pub fn max(&self) -> f64 {
        self.points.last().map_or(0.0, |p| p.0)
    }

    /// The fraction dead within `x` bytes of allocation.
    pub fn cdf(&self, x: f64) -> f64 {
        for w in self.points.windows(2) {
            if x <= w[1].0 {
                let span = w[1].0 - w[0].0;
                return if span <= 0.0 {
                    w[1].1
                } else {
                    w[0].1 + (w[1].1 - w[0].1) * (x - w[0].0) / span
                };
            }
        }
        1.0 - self.immortal
    }

    /// The lifetime at quantile `u` in [0, 1) (inverse CDF); `f64::INFINITY` for the immortal fraction.
    /// `[bytes allocated]`
    pub fn quantile(&self, u: f64) -> f64 {
        if u >= 1.0 - self.immortal {
            return f64::INFINITY;
        }
        for w in self.points.windows(2) {
            if u <= w[1].1 {
                let rise = w[1].1 - w[0].1;
                return if rise <= 0.0 {
                    w[0].0
                } else {
                    w[0].0 + (w[1].0 - w[0].0) * (u - w[0].1) / rise
                };
            }
        }
        self.max()
    }
}

/// `∫₀^a f(x) dx` by Simpson's rule over 2000 intervals.
fn simpson(a: f64, f: impl Fn(f64) -> f64) -> f64 {
    let n = 2000;
    let h = a / f64::from(n);
    let mut sum = f(0.0) + f(a);
    for i in 1..n {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * f(h * f64::from(i));
    }
    sum * h / 3.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_lifetime_equals_the_live_size() {
        // lusearch: 1.22 MiB live, 10.3/22.5/47.2 % dead within 128/256/512 KiB (Table 1).
        let c = LifetimeCdf::from_table1([10.3, 22.5, 47.2], 1.22 * MIB);
        assert!((c.mean() - 1.22 * MIB).abs() < 1.0, "mean {}", c.mean());
        assert!((c.cdf(128.0 * KIB) - 0.103).abs() < 1e-12, "first point");
        assert!((c.cdf(512.0 * KIB) - 0.472).abs() < 1e-12, "third point");
        assert!(
            c.max() > 3.0 * MIB && c.max() < 4.0 * MIB,
            "L_max {}",
            c.max()
        );
    }

    #[test]
    fn a_live_set_longer_than_the_run_becomes_an_immortal_fraction() {
        // Pandora: 18.76 MiB live of 48.91 MiB allocated (Table 1).
        let c = LifetimeCdf::from_table1_run(
            [13.0, 24.9, 46.0],
            18.76 * MIB,
            48.91 * MIB,
            LiveReading::Mean,
        );
        assert!(
            c.immortal() > 0.3 && c.immortal() < 0.6,
            "p = {}",
            c.immortal()
        );
        assert!(
            (c.max() - 48.91 * MIB / 4.0).abs() < 1.0,
            "tail ends at a quarter of the run"
        );
        assert!(
            c.quantile(0.999).is_infinite(),
            "the top quantiles never die"
        );
        // lusearch reaches a steady state: no immortal fraction.
        let l = LifetimeCdf::from_table1_run(
            [10.3, 22.5, 47.2],
            1.22 * MIB,
            686.75 * MIB,
            LiveReading::Mean,
        );
        assert_eq!(l.immortal(), 0.0, "lusearch");
    }

    #[test]
    fn live_read_as_the_peak_ends_the_run_at_live_and_averages_less() {
        // Quadrant: 8.23 MiB live of 28.71 MiB allocated (Table 1), a live set that outlives the run.
        let (pct, live, alloc) = ([9.5, 20.5, 40.7], 8.23 * MIB, 28.71 * MIB);
        let mean = LifetimeCdf::from_table1_run(pct, live, alloc, LiveReading::Mean);
        let peak = LifetimeCdf::from_table1_run(pct, live, alloc, LiveReading::Peak);
        let end = peak.end_live(alloc) + peak.initial_live();
        assert!(
            (end / live - 1.0).abs() < 0.01,
            "peak reading ends at {end}"
        );
        assert!(
            peak.run_mean_live(alloc) < 0.8 * live,
            "its mean is below Live: {}",
            peak.run_mean_live(alloc)
        );
        assert!(
            mean.end_live(alloc) > 1.5 * live,
            "the mean reading ends far above Live: {}",
            mean.end_live(alloc)
        );
        assert!(peak.immortal() < mean.immortal());
        // A steady state is the same under both readings.
        let (pct, live, alloc) = ([10.3, 22.5, 47.2], 1.22 * MIB, 686.75 * MIB);
        assert_eq!(
            LifetimeCdf::from_table1_run(pct, live, alloc, LiveReading::Mean),
            LifetimeCdf::from_table1_run(pct, live, alloc, LiveReading::Peak)
        );
    }

    #[test]
    fn quantile_inverts_cdf() {
        let c = LifetimeCdf::from_table1([7.6, 15.8, 32.7], 10.19 * MIB);
        for u in [0.01, 0.1, 0.3, 0.5, 0.9, 0.999] {
            let x = c.quantile(u);
            assert!(
                (c.cdf(x) - u).abs() < 1e-9,
                "u {u}: x {x}, cdf {}",
                c.cdf(x)
            );
        }
    }
}
