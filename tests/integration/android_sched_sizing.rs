//! Two android-krait mechanisms of issue #16, each switchable for the ablation: CFS's tunables as Linux 3.4
//! computes them (mechanism 1: latency and granularities × (1 + ilog2 online CPUs), the wake-up granularity in
//! the woken thread's virtual time), and heap sizing from what Dalvik sees after a collection (mechanism 5:
//! `bytesAllocated` after the sweep, which includes floating garbage and what was allocated during the cycle).

use gclab_core::{Cancel, NoProgress, Run, Scenario, simulate};

fn run(preset: &str, sets: &[&str]) -> Run {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    let sc = Scenario::load(&format!("preset:{preset}"), &sets).expect("preset loads");
    simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs")
}

#[test]
fn scaled_cfs_slices_mean_fewer_migrations() {
    // With four cores online Linux 3.4 runs an 18 ms latency, 2.25 ms minimum slices and a 3 ms wake-up
    // granularity instead of 6, 0.75 and 1 ms: fewer wake-up preemptions and slice ends move threads between
    // cores less often (Table 3's migrations).
    let (mut on_m, mut off_m) = (0, 0);
    for p in ["android/xalan", "android/javac", "android/jack"] {
        let on = run(p, &[]);
        let off = run(p, &["android.sched.cfs_3_4=false"]);
        assert_ne!(
            on.summary.energy_j, off.summary.energy_j,
            "{p}: the switch acts"
        );
        on_m += on.summary.migrations.expect("migrations");
        off_m += off.summary.migrations.expect("migrations");
    }
    assert!(
        on_m < off_m,
        "migrations with 3.4 tunables {on_m}, without {off_m}"
    );
}

#[test]
fn the_heap_is_sized_from_bytes_allocated_after_the_sweep() {
    // Dalvik's dvmHeapSourceGrowForUtilization reads heap->bytesAllocated: survivors + floating garbage + the
    // cycle's own allocations. Sizing from the reachable bytes instead gives smaller heaps, hence more cycles.
    for p in ["android/xalan", "android/javac", "android/lusearch"] {
        let seen = run(p, &[]);
        let reachable = run(p, &["android.heap.sizing_live=\"reachable\""]);
        assert!(
            reachable.summary.collections > seen.summary.collections,
            "{p}: {} cycles sized from reachable bytes vs {} from bytesAllocated",
            reachable.summary.collections,
            seen.summary.collections
        );
        // What sizes the heap (GcEvent::live_bytes_after, bytesAllocated after the sweep) is above the reachable
        // bytes Table 1 reports, averaged over the collections.
        let n = seen.gc_events.len().max(1) as f64;
        let after = seen
            .gc_events
            .iter()
            .map(|e| e.live_bytes_after as f64)
            .sum::<f64>()
            / n;
        let mean_live = seen.summary.mean_live_bytes.expect("mean live") as f64;
        assert!(
            after > mean_live,
            "{p}: bytesAllocated after the sweep {after:.0} vs reachable {mean_live:.0}"
        );
    }
}
