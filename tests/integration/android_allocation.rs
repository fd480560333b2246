//! The android-krait allocation path against Dalvik's (models.md §1.3, §1.6): the sweep returns memory batch by
//! batch, so `bytesAllocated` falls while the cycle still runs, and a cohort that reaches the soft limit is
//! allocated object by object up to it — the first object past it fails and waits for the running cycle.

use gclab_core::{Cancel, NoProgress, Run, Scenario, simulate};

fn run(preset: &str) -> Run {
    let sc = Scenario::load(&format!("preset:{preset}"), &[]).expect("preset loads");
    simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs")
}

#[test]
fn the_sweep_frees_batch_by_batch_before_the_cycle_ends() {
    let r = run("android/jack");
    let used = |i: usize| r.occupancy[i].live_bytes + r.occupancy[i].dead_bytes;
    let mut cycles = 0;
    let mut freeing_early = 0;
    for g in &r.gc_events {
        // The last sample before the cycle, and those taken while it runs.
        let first_in = r.occupancy.partition_point(|s| s.time <= g.start);
        let Some(before) = first_in.checked_sub(1) else {
            continue;
        };
        let inside = first_in..r.occupancy.partition_point(|s| s.time < g.end);
        if inside.is_empty() || g.freed_bytes == 0 {
            continue;
        }
        cycles += 1;
        if inside.clone().any(|i| used(i) < used(before)) {
            freeing_early += 1;
        }
    }
    assert!(cycles > 10, "jack collects while it allocates ({cycles})");
    assert!(
        2 * freeing_early > cycles,
        "in most cycles the heap shrinks before the cycle ends ({freeing_early} of {cycles})"
    );
}

#[test]
fn an_allocation_fills_the_heap_to_the_soft_limit_before_it_waits() {
    let r = run("android/javac");
    let waits = r.summary.alloc_waits.expect("android reports its waits");
    assert!(
        waits > 0,
        "javac's mutator meets the soft limit during cycles"
    );
    let full = r.occupancy.iter().filter(|s| s.free_bytes == 0).count() as u64;
    assert!(
        full >= waits,
        "every wait follows an allocation that filled the heap exactly to its soft limit ({full} full samples, \
         {waits} waits)"
    );
    assert_eq!(
        r.summary
            .collections_by_trigger
            .get("alloc")
            .copied()
            .unwrap_or(0)
            + r.summary
                .collections_by_trigger
                .get("concurrent")
                .copied()
                .unwrap_or(0)
            + r.summary
                .collections_by_trigger
                .get("explicit")
                .copied()
                .unwrap_or(0)
            + r.summary
                .collections_by_trigger
                .get("trim")
                .copied()
                .unwrap_or(0),
        r.summary.collections,
        "waits are not collections"
    );
}
