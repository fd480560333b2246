//! Heap pages faulted back in after a trim (SYSTOR'15 §4.1.2's cost of bg's trimming;
//! core/src/platform/android/pages.rs): CMS touches each page of its heap once, bg — whose daemon trims the pages
//! its forced allocations grew after each cycle — faults back in most of what it allocates, and the fault's cost
//! (`android.heap.fault_us_per_page`) is mutator work.

use gclab_core::Run;

use crate::support::run;

/// Linux 3.4's ARM page. `[bytes]`
const PAGE: u64 = 4096;

fn pages(r: &Run) -> u64 {
    r.summary
        .page_faults
        .expect("an android run counts its page faults")
}

#[test]
fn cms_faults_its_heap_in_once_and_bg_after_each_trim() {
    let cms = run("android/lusearch", &["collector.kind=cms"]);
    let bg = run("android/lusearch", &["collector.kind=bg"]);
    // No 5 s without a request in lusearch: CMS never trims, so it faults only the first touch of its footprint,
    // which stays far below the 96 MiB heap.
    assert_eq!(cms.summary.collections_by_trigger.get("trim"), None);
    assert!(
        pages(&cms) * PAGE < 32 << 20,
        "CMS faults its heap in once ({} pages)",
        pages(&cms)
    );
    let trims = bg.summary.collections_by_trigger.get("trim").copied();
    assert!(
        trims.is_some_and(|t| t > 100),
        "bg trims after its cycles ({trims:?})"
    );
    assert!(
        2 * pages(&bg) * PAGE > bg.summary.allocated_bytes,
        "bg faults back in most of the {} bytes it allocates ({} pages)",
        bg.summary.allocated_bytes,
        pages(&bg)
    );
    assert!(pages(&bg) > 20 * pages(&cms));
}

#[test]
fn a_page_fault_costs_the_mutators_time_and_energy() {
    let at = |us: &str| {
        run(
            "android/lusearch",
            &[
                "collector.kind=bg",
                &format!("android.heap.fault_us_per_page={us}"),
            ],
        )
    };
    let (free, dear) = (at("0"), at("10"));
    // ~180,000 faults at 10 µs: nearly 2 s more mutator work than with faults free.
    assert!(
        dear.summary.energy_j.mutator > 1.02 * free.summary.energy_j.mutator,
        "mutator energy {} J with faults at 10 µs, {} J free",
        dear.summary.energy_j.mutator,
        free.summary.energy_j.mutator
    );
    assert!(dear.summary.energy_j.total > free.summary.energy_j.total);
}
