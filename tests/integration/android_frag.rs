//! Issue #16 mechanism 3 on android-krait: allocation failure below the soft limit (`android.heap.footprint_limit`,
//! `core/src/platform/android/mspace.rs`). Dalvik's `setSoftLimit` lets the mspace's footprint grow to the target,
//! and a request fails when no free chunk holds it and the top chunk cannot grow: free bytes below the footprint
//! that no request uses (fragments, `android.heap.frag_share`) bring the failure before `bytesAllocated` reaches
//! the concurrent trigger, so no GC-CONC was signalled and the mutator collects in the foreground.

use crate::support::run;

/// javac (one mutator, 10 MiB live) with a shorter run: the mechanism acts from the first collections on. Without
/// the presets' large objects (a calibrated share), which fail below the trigger by themselves.
const JAVAC: &[&str] = &[
    "workload.android.large_objects.share=0",
    "workload.android.allocated_mib=60",
    "workload.android.objects_m=1.7",
    "android.system.enabled=false",
];

fn javac(sets: &[&str]) -> gclab_core::Run {
    let mut all = JAVAC.to_vec();
    all.extend_from_slice(sets);
    run("android/javac", &all)
}

fn foreground_allocs(r: &gclab_core::Run) -> u64 {
    r.summary
        .collections_by_trigger
        .get("alloc")
        .copied()
        .unwrap_or(0)
}

#[test]
fn without_fragments_or_a_tail_the_footprint_limit_is_the_soft_limit() {
    // Every byte below the footprint is usable: the footprint reaches its limit exactly when bytesAllocated
    // reaches the soft limit, so the run is the one without the mechanism.
    let off = javac(&["android.heap.footprint_limit=false"]);
    let on = javac(&[
        "android.heap.footprint_limit=true",
        "android.heap.frag_share=0",
        "workload.android.tail_share=0",
    ]);
    assert_eq!(on.summary.energy_j, off.summary.energy_j);
    assert_eq!(on.gc_events.len(), off.gc_events.len());
}

#[test]
fn fragments_below_the_footprint_turn_concurrent_collections_into_foreground_ones() {
    // frag_share of the free bytes below the top chunk no request fits: with a few MiB freed per javac cycle,
    // 10 % and 20 % hold back far more than the 128 KiB between the concurrent trigger and the limit.
    let counts: Vec<(u64, u64)> = [0.0, 0.1, 0.2]
        .iter()
        .map(|f| {
            let r = javac(&[
                "android.heap.footprint_limit=true",
                &format!("android.heap.frag_share={f}"),
                "workload.android.tail_share=0",
            ]);
            let conc = r
                .summary
                .collections_by_trigger
                .get("concurrent")
                .copied()
                .unwrap_or(0);
            (foreground_allocs(&r), conc)
        })
        .collect();
    eprintln!("(GC_FOR_ALLOC, GC_CONCURRENT) at frag_share 0 / 0.1 / 0.2: {counts:?}");
    assert_eq!(
        counts[0].0, 0,
        "no fragments: the daemon is always signalled first"
    );
    assert!(counts[1].0 > 0 && counts[2].0 > counts[1].0, "{counts:?}");
    assert!(
        counts[2].1 < counts[0].1,
        "{counts:?}: foreground instead of concurrent"
    );
}
