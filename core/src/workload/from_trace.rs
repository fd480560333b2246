//! A trace as a workload: its objects turned into the allocation requests ([`AllocDraw`]) a simulated program
//! makes, so that a recorded program's allocation pattern can be re-simulated under any collector, trigger and
//! platform. Each `alloc` becomes one draw (size, site); its lifetime is the number of allocations between it and
//! its `death` ([`Lifetime::Allocations`], the engine's own clock), or [`Lifetime::Immortal`] without one; the
//! mutator compute before it is the time since the previous allocation converted to cycles.
//!
//! What is lost: addresses and moves (the simulated allocator and collector place objects themselves), accesses,
//! the recorded collections, and time spent in the recorded program's own GC (it is counted as mutator compute).
//! Scenarios use it through `[workload.trace]` (`crate::workload::TraceWorkload`); the kvm-soc engine then takes
//! these draws in order instead of a generator's.

use std::collections::HashMap;
use std::path::Path;

use crate::trace::{Event, TraceError, TraceReader};
use crate::workload::{AllocDraw, AllocSource, Lifetime};

/// How trace time becomes mutator compute.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ComputeModel {
    /// Trace time in wall-clock units at this CPU clock. `[Hz]`
    Clock(u64),
    /// A fixed compute per allocation (for logical clocks). `[cycles]`
    PerAllocation(u64),
}

/// The allocation requests of the trace at `path`, in allocation order.
pub fn draws(path: &Path, compute: ComputeModel) -> Result<Vec<AllocDraw>, TraceError> {
    draws_of(TraceReader::open(path)?, compute)
}

/// The allocation requests of a trace read from `src` (`name` labels errors), and whether its clock is wall time
/// (then `ComputeModel::Clock` cycles are real time at that clock; on a logical clock they are ticks).
pub fn draws_from(
    name: &str,
    src: Box<dyn std::io::Read + Send>,
    compute: ComputeModel,
) -> Result<(Vec<AllocDraw>, bool), TraceError> {
    let r = TraceReader::from_read(name, src)?;
    let wall = r.header().time_unit.ns_per_unit().is_some();
    Ok((draws_of(r, compute)?, wall))
}

/// SYSTOR'15 Table 1's characteristics of a recording — what the android-krait engine, which runs statistical
/// profiles rather than single objects, takes from it. Lifetimes are in the allocation clock (bytes allocated by
/// the program between an object's allocation and its death, its own excluded), as Table 1 measures them.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordingSummary {
    /// Bytes allocated. `[bytes]`
    pub allocated_bytes: f64,
    /// Objects allocated.
    pub objects: u64,
    /// Live bytes averaged over the allocation clock. `[bytes]`
    pub mean_live_bytes: f64,
    /// Live objects averaged over the allocation clock.
    pub mean_live_objects: f64,
    /// Percent of all objects dead within 128, 256 and 512 KiB allocated (Table 1's lifetime columns).
    pub dead_within_pct: [f64; 3],
    /// Sum of the draws' compute: the recorded time when the draws were read at `ComputeModel::Clock(1 GHz)` from a
    /// wall-clock trace. `[ns]`
    pub compute_ns: f64,
}

/// Summarises draws (read at `ComputeModel::Clock(1_000_000_000)` for `compute_ns` to be nanoseconds).
pub fn summarize(draws: &[AllocDraw]) -> RecordingSummary {
    // prefix[i] = bytes allocated before draw i.
    let mut prefix = Vec::with_capacity(draws.len() + 1);
    let mut acc = 0u64;
    prefix.push(0u64);
    for d in draws {
        acc += d.size_bytes;
        prefix.push(acc);
    }
    let total = acc.max(1) as f64;
    let n = draws.len();
    let (mut live_byte_bytes, mut live_obj_bytes) = (0.0f64, 0.0f64);
    let mut dead_within = [0u64; 3];
    let limits = [128.0 * 1024.0, 256.0 * 1024.0, 512.0 * 1024.0];
    let mut compute_ns = 0.0;
    for (i, d) in draws.iter().enumerate() {
        compute_ns += d.compute_cycles as f64;
        let end = match d.lifetime {
            Lifetime::Allocations(k) => Some((i + 1 + k as usize).min(n)),
            _ => None,
        };
        let life = (prefix[end.unwrap_or(n)] - prefix[i + 1]) as f64;
        live_byte_bytes += d.size_bytes as f64 * life;
        live_obj_bytes += life;
        if end.is_some() {
            for (j, lim) in limits.iter().enumerate() {
                if life <= *lim {
                    dead_within[j] += 1;
                }
            }
        }
    }
    let pct = |c: u64| 100.0 * c as f64 / n.max(1) as f64;
    RecordingSummary {
        allocated_bytes: acc as f64,
        objects: n as u64,
        mean_live_bytes: live_byte_bytes / total,
        mean_live_objects: live_obj_bytes / total,
        dead_within_pct: [
            pct(dead_within[0]),
            pct(dead_within[1]),
            pct(dead_within[2]),
        ],
        compute_ns,
    }
}

/// The most bytes live at once when `draws` run in order (an object is live from its allocation until the
/// allocation its lifetime ends before): what a heap replaying them must hold at least. `[bytes]`
pub fn peak_live_bytes(draws: &[AllocDraw]) -> u64 {
    let n = draws.len();
    // ends[i]: bytes that die just before allocation i.
    let mut ends = vec![0u64; n + 1];
    for (i, d) in draws.iter().enumerate() {
        if let Lifetime::Allocations(k) = d.lifetime {
            ends[(i + 1).saturating_add(k as usize).min(n)] += d.size_bytes;
        }
    }
    let (mut live, mut peak) = (0u64, 0u64);
    for (i, d) in draws.iter().enumerate() {
        live = live.saturating_sub(ends[i]) + d.size_bytes;
        peak = peak.max(live);
    }
    peak
}

fn draws_of(r: TraceReader, compute: ComputeModel) -> Result<Vec<AllocDraw>, TraceError> {
    let ns_per_unit = r.header().time_unit.ns_per_unit();
    let mut out: Vec<AllocDraw> = Vec::new();
    let mut live: HashMap<u64, usize> = HashMap::new();
    let mut last_t: Option<u64> = None;
    for ev in r {
        match ev? {
            Event::Alloc {
                id,
                site,
                size_bytes,
                t,
                ..
            } => {
                let compute_cycles = match (compute, ns_per_unit) {
                    (ComputeModel::Clock(hz), Some(ns)) => {
                        let dt = t.saturating_sub(last_t.unwrap_or(t)) as f64 * ns;
                        (dt * hz as f64 / 1e9).round() as u64
                    }
                    (ComputeModel::PerAllocation(c), _) => c,
                    // A logical clock has no wall time: one cycle per unit.
                    (ComputeModel::Clock(_), None) => t.saturating_sub(last_t.unwrap_or(t)),
                };
                last_t = Some(t);
                // A second alloc of a live id: the first object ends here.
                if let Some(k) = live.insert(id, out.len()) {
                    out[k].lifetime = Lifetime::Allocations((out.len() - k - 1) as u64);
                }
                out.push(AllocDraw {
                    compute_cycles,
                    size_bytes,
                    lifetime: Lifetime::Immortal,
                    source: AllocSource::Work,
                    phase: 0,
                    site,
                });
            }
            Event::Death { id, .. } => {
                if let Some(k) = live.remove(&id) {
                    out[k].lifetime = Lifetime::Allocations((out.len() - k - 1) as u64);
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_measures_lifetimes_in_the_allocation_clock() {
        let d = |size_bytes, lifetime| AllocDraw {
            compute_cycles: 10,
            size_bytes,
            lifetime,
            source: AllocSource::Work,
            phase: 0,
            site: 0,
        };
        // 100 KiB dies after one 200 KiB allocation; 200 KiB dies at once; 1 KiB never dies.
        let k = 1024;
        let s = summarize(&[
            d(100 * k, Lifetime::Allocations(1)),
            d(200 * k, Lifetime::Allocations(0)),
            d(k, Lifetime::Immortal),
        ]);
        assert_eq!(s.objects, 3, "objects");
        assert_eq!(s.allocated_bytes, 301.0 * k as f64, "bytes");
        // Lives: 200 KiB, 0, 0 (allocated last) → one of three dead within 128 KiB, two within 256 KiB.
        let third = 100.0 / 3.0;
        assert_eq!(
            s.dead_within_pct,
            [third, 2.0 * third, 2.0 * third],
            "dead within"
        );
        assert_eq!(
            s.mean_live_bytes,
            (100.0 * 200.0) * (k * k) as f64 / (301 * k) as f64,
            "Little's law"
        );
        assert_eq!(s.compute_ns, 30.0, "compute");
        // Peak: 100 KiB + 200 KiB live together (the first dies before the third allocation).
        let draws = [
            d(100 * k, Lifetime::Allocations(1)),
            d(200 * k, Lifetime::Allocations(0)),
            d(k, Lifetime::Immortal),
        ];
        assert_eq!(peak_live_bytes(&draws), 300 * k, "peak");
    }

    #[test]
    fn fixture_objects_become_draws() {
        let p =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/trace/v1.gctrace.txt");
        let d = draws(&p, ComputeModel::Clock(1_000_000_000)).expect("fixture");
        assert_eq!(d.len(), 4, "one draw per alloc");
        let sizes: Vec<u64> = d.iter().map(|x| x.size_bytes).collect();
        assert_eq!(sizes, vec![24, 40, 24, 4096], "sizes");
        // Object 2 dies after one further allocation (object 3); object 1 after three.
        assert_eq!(d[1].lifetime, Lifetime::Allocations(1), "{:?}", d[1]);
        assert_eq!(d[0].lifetime, Lifetime::Allocations(3), "{:?}", d[0]);
        assert_eq!(d[2].lifetime, Lifetime::Immortal, "never freed");
        // 1 GHz: cycles = ns between allocations.
        assert_eq!(d[1].compute_cycles, 50, "150 − 100 ns");
    }
}
