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

use super::{Event, TraceError, TraceReader};
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

/// The allocation requests of a trace read from `src` (`name` labels errors).
pub fn draws_from(
    name: &str,
    src: Box<dyn std::io::Read>,
    compute: ComputeModel,
) -> Result<Vec<AllocDraw>, TraceError> {
    draws_of(TraceReader::from_read(name, src)?, compute)
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
