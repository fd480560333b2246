//! When a program's long-lived state is allocated — a workload mechanism of the kvm profiles (issue #17,
//! docs/models-kvm.md "Workload mechanisms tried").
//!
//! A profile gives each phase a share of `immortal` objects (application state that lives to the end). By default
//! (`spread`) they are drawn among the phase's other objects, so the live set grows steadily through the run and
//! its objects are scattered over the banks that first-fit happens to be filling. With `start-up` the same objects
//! — the same count per phase, drawn from that phase's size classes — are allocated first, before the program's
//! work, in a start-up phase per source phase: the live set is built at start and then stays flat, packed at the
//! bottom of the heap. JVM'02 describes its programs' heaps in these terms (§4.3, Fig. 6: Calculator's live data
//! stays within one bank while the collectors differ only in how much garbage they let accumulate above it); how
//! a program builds its state is not given for any application, so both profiles are tried and reported.
//!
//! With `permanent` they stay where the profile puts them in the run, but KVM allocates them in its permanent
//! space (§3.1: "a certain amount of space from the end of the heap is allocated for permanent objects … which
//! will be referenced until the end of execution of application"), never marked, swept or moved: the dynamic heap
//! then holds only the objects that die. The permanent space is sized up front by the immortal objects' expected
//! bytes (KVM grows it on demand, compacting as it does — §3.1's occasion (ii); gclab reserves it at start-up).
//!
//! Nothing else changes: total allocations, sizes and the short-lived objects are the same. The compute per
//! allocation is calibrated to Table 3's k = 10 column for each mechanism separately (`[live_state_compute]`),
//! since the collector's cost per collection depends on the live set it marks (docs/calibration.md §2).

use std::borrow::Cow;

use super::profile::{LifetimeClass, LifetimeKind, LiveState, Phase, WorkloadProfile};

/// Immortal share of a phase's lifetime weights.
fn immortal_share(l: &[LifetimeClass]) -> f64 {
    let total: f64 = l.iter().map(|c| c.weight).sum();
    let imm: f64 = l
        .iter()
        .filter(|c| c.kind == LifetimeKind::Immortal)
        .map(|c| c.weight)
        .sum();
    if total > 0.0 { imm / total } else { 0.0 }
}

impl WorkloadProfile {
    /// The profile the run uses: itself under `spread`; under `start-up`, every phase's immortal objects moved
    /// to start-up phases at the front; under `permanent`, the permanent space grown by their expected bytes (see
    /// the module doc) — each with its `[live_state_compute]`. The result's `live_state` is `spread` for
    /// `start-up` (nothing left to do) and stays `permanent` (the engine places those objects).
    pub fn effective(&self) -> Cow<'_, WorkloadProfile> {
        let compute = self.live_state_compute.as_ref();
        let mut p = match self.live_state {
            LiveState::Spread => return Cow::Borrowed(self),
            LiveState::Permanent => {
                let mut p = self.clone();
                if let Some(m) = compute.and_then(|c| c.permanent) {
                    p.mutator_cycles_per_allocation = m;
                }
                p.permanent_bytes.0 += self.expected_immortal_bytes();
                return Cow::Owned(p);
            }
            LiveState::StartUp => self.clone(),
        };
        if let Some(m) = compute.and_then(|c| c.start_up) {
            p.mutator_cycles_per_allocation = m;
        }
        let mut start = Vec::new();
        for ph in &mut p.phases {
            let share = immortal_share(&ph.lifetimes);
            let rest: Vec<LifetimeClass> = ph
                .lifetimes
                .iter()
                .filter(|c| c.kind != LifetimeKind::Immortal)
                .cloned()
                .collect();
            if share <= 0.0 || !rest.iter().any(|c| c.weight > 0.0) {
                continue;
            }
            let n = ((ph.allocations as f64 * share).round() as u64).min(ph.allocations);
            if n == 0 {
                continue;
            }
            start.push(Phase {
                name: format!("start-up state of {}", ph.name),
                allocations: n,
                mutator_cycles_per_allocation: ph.mutator_cycles_per_allocation,
                sizes: ph.sizes.clone(),
                lifetimes: vec![LifetimeClass {
                    weight: 1.0,
                    kind: LifetimeKind::Immortal,
                    mean_allocations: None,
                    min_allocations: None,
                    max_allocations: None,
                }],
                stratified: ph.stratified,
            });
            ph.allocations -= n;
            ph.lifetimes = rest;
        }
        start.append(&mut p.phases);
        p.phases = start;
        p.live_state = LiveState::Spread;
        Cow::Owned(p)
    }

    /// Expected bytes of the phases' immortal objects (sizes uniform within their classes). `[bytes]`
    pub fn expected_immortal_bytes(&self) -> u64 {
        let bytes: f64 = self
            .phases
            .iter()
            .map(|ph| {
                let w: f64 = ph.sizes.iter().map(|c| c.weight).sum();
                let mean = if w > 0.0 {
                    ph.sizes
                        .iter()
                        .map(|c| c.weight * (c.min.0 + c.max.0) as f64 / 2.0)
                        .sum::<f64>()
                        / w
                } else {
                    0.0
                };
                ph.allocations as f64 * immortal_share(&ph.lifetimes) * mean
            })
            .sum();
        bytes.round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn profile(state: &str) -> WorkloadProfile {
        Scenario::load(
            "preset:kvm/crypto",
            &[format!("workload.live_state=\"{state}\"")],
        )
        .expect("preset")
        .workload()
        .clone()
    }

    #[test]
    fn spread_is_the_profile_itself() {
        let p = profile("spread");
        assert!(matches!(p.effective(), Cow::Borrowed(_)));
    }

    #[test]
    fn start_up_moves_the_immortal_share_to_the_front_and_keeps_the_total() {
        let spread = profile("spread");
        let p = profile("start-up");
        let e = p.effective();
        assert_eq!(e.work_allocations(), spread.work_allocations());
        assert_eq!(e.phases.len(), spread.phases.len() + 1);
        // Crypto: 5 % of 5898 allocations are immortal.
        assert_eq!(e.phases[0].allocations, 295);
        assert!(
            e.phases[0]
                .lifetimes
                .iter()
                .all(|c| c.kind == LifetimeKind::Immortal)
        );
        assert!(
            e.phases[1]
                .lifetimes
                .iter()
                .all(|c| c.kind != LifetimeKind::Immortal)
        );
        assert_eq!(e.phases[0].sizes, spread.phases[0].sizes);
        if let Some(m) = p.live_state_compute.as_ref().and_then(|c| c.start_up) {
            assert_eq!(e.mutator_cycles_per_allocation, m);
        }
    }

    #[test]
    fn permanent_reserves_the_immortal_bytes_and_keeps_the_phases() {
        let spread = profile("spread");
        let p = profile("permanent");
        let e = p.effective();
        assert_eq!(e.phases, spread.phases);
        // Crypto: 5 % of 5898 objects of mean size 0.8 × 40 + 0.2 × 160 = 64 B.
        let expect = (5898.0_f64 * 0.05 * 64.0).round() as u64;
        assert_eq!(p.expected_immortal_bytes(), expect);
        assert_eq!(e.permanent_bytes.0, spread.permanent_bytes.0 + expect);
        assert_eq!(e.live_state, LiveState::Permanent);
    }
}
