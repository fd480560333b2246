//! Mechanisms of the kvm-soc platform, checked on real runs: gating never loses live data, permanent banks stay
//! on, wake-ups cost exactly the resynchronisation time, leakage follows the power states, out-of-memory is a
//! result, a slower interactive run allocates more, objects larger than a bank span banks, and the layout replay
//! agrees with the occupancy timeline; the start-up and permanent-space live states allocate the same objects.

use crate::support::{assert_layout_agrees_with_occupancy, run};
use gclab_core::BankState;
use gclab_core::{Cancel, NoProgress, Run, Scenario, SimError, SimTime, simulate};

#[test]
fn no_bank_holding_live_or_permanent_data_is_ever_gated() {
    let r = run("kvm/kwml", &["collector.kind=adaptive"]);
    let bank = r.geometry.bank_bytes;
    // Check just after each collection (when gating happens) and at the end.
    let mut instants: Vec<SimTime> = r.gc_events.iter().map(|g| g.end).collect();
    instants.push(SimTime(r.duration.0.saturating_sub(1)));
    for t in instants.into_iter().step_by(7) {
        for o in r.layout.at(t) {
            if o.dead {
                continue;
            }
            for b in (o.addr / bank)..=((o.addr + o.size - 1) / bank) {
                let st = r.bank_state_at(b as u32, t);
                assert_ne!(
                    st,
                    Some(BankState::Gated),
                    "bank {b} gated at {t:?} while object {} lives there",
                    o.id
                );
            }
        }
        for b in (r.geometry.permanent_start / bank)..u64::from(r.geometry.banks) {
            assert_ne!(
                r.bank_state_at(b as u32, t),
                Some(BankState::Gated),
                "permanent bank {b} gated at {t:?}"
            );
        }
    }
}

#[test]
fn each_wake_up_costs_the_resynchronisation_time() {
    // Dragon has no timer, so time does not feed back into what it allocates: the runs differ only by stalls.
    let with = run("kvm/dragon", &["collector.kind=adaptive"]);
    let without = run(
        "kvm/dragon",
        &["collector.kind=adaptive", "kvm.energy.resync_cycles=0"],
    );
    let wakes = with.summary.bank_wakeups.expect("kvm summary");
    assert!(wakes > 0, "Dragon wakes banks");
    assert_eq!(
        with.summary.execution_cycles.expect("cycles")
            - without.summary.execution_cycles.expect("cycles"),
        wakes * 350,
        "350 cycles per wake-up (JVM'02 §3.3)"
    );
}

#[test]
fn bank_leakage_integrates_the_power_states() {
    let r = run("kvm/manyballs", &["collector.kind=adaptive"]);
    let sc = Scenario::load("preset:kvm/manyballs", &[]).expect("loads");
    let e = &sc.file().kvm.energy;
    let mem = (sc.file().heap.size.0 + e.stack_sram_size.0 + e.rom_size.0) as f64;
    let per_bank_cycle =
        e.sram_access_j * e.leakage_per_cycle_over_access / mem * r.geometry.bank_bytes as f64;
    let ns_per_cycle = 10.0;
    for b in 0..r.geometry.banks {
        let mut expect = 0.0;
        for iv in r.banks.iter().filter(|iv| iv.bank == b) {
            let cycles = (iv.end.0 - iv.start.0) as f64 / ns_per_cycle;
            let f = match iv.state {
                BankState::Active => 1.0,
                BankState::Gated => 0.05,
                BankState::Waking => 0.525,
            };
            expect += cycles * per_bank_cycle * f;
        }
        let got = r.bank_leakage_j[b as usize];
        assert!(
            (got - expect).abs() <= 1e-9 * expect.max(1e-30),
            "bank {b}: {got:e} J vs {expect:e} J"
        );
    }
}

#[test]
fn out_of_memory_ends_the_run_as_a_result() {
    let r = run("kvm/kshape", &["heap.size=32KiB"]);
    assert!(
        r.summary.out_of_memory,
        "Kshape's state and map cache outgrow 32 KiB"
    );
    assert!(
        r.summary.allocations < 22_800,
        "the run stopped at the failing allocation"
    );
    let r = run("kvm/dragon", &["heap.size=16KiB", "heap.bank_size=4KiB"]);
    assert!(
        r.summary.out_of_memory,
        "Dragon's large objects cannot fit the 4 KiB left beside its 12 KiB permanent space"
    );
}

#[test]
fn a_run_that_collects_more_allocates_more() {
    // Kwml's browser thread runs after each collection and allocates (workload.on_collection).
    let base = run("kvm/kwml", &["collector.kind=base"]);
    let k10 = run(
        "kvm/kwml",
        &["collector.kind=k-allocation", "collector.k=10"],
    );
    assert!(
        k10.summary.execution_time_s > 1.5 * base.summary.execution_time_s,
        "k=10 is much slower"
    );
    assert!(
        k10.summary.allocations > base.summary.allocations + 5_000,
        "allocations after each collection add up"
    );
    let quiet = |k: &str| {
        run(
            "kvm/kwml",
            &[
                k,
                "collector.k=10",
                "workload.on_collection.allocations_mean=0",
            ],
        )
        .summary
        .allocations
    };
    assert_eq!(
        quiet("collector.kind=base"),
        quiet("collector.kind=k-allocation"),
        "without it the work is fixed"
    );
}

#[test]
fn a_timer_makes_a_slower_run_allocate_more() {
    // The time-driven alternative (workload.timer): ticks by wall time, queued while the collector runs.
    let timer = [
        "workload.timer.period_cycles=20000",
        "workload.timer.allocations_per_tick=1",
        "workload.timer.sizes=[{weight = 1.0, min = 16, max = 32}]",
        "workload.timer.lifetimes=[{weight = 1.0, kind = \"exp\", mean_allocations = 5.0}]",
    ];
    let with = |kind: &str| {
        let mut sets = vec![kind, "collector.k=10"];
        sets.extend(timer);
        run("kvm/crypto", &sets)
    };
    let (base, k10) = (
        with("collector.kind=base"),
        with("collector.kind=k-allocation"),
    );
    assert!(
        k10.summary.execution_time_s > base.summary.execution_time_s * 1.3,
        "k=10 is slower"
    );
    assert!(
        k10.summary.allocations > base.summary.allocations,
        "more wall time, more ticks, more allocations"
    );
}

#[test]
fn objects_larger_than_a_bank_span_banks() {
    let r = run(
        "kvm/dragon",
        &["heap.bank_size=4KiB", "collector.kind=adaptive"],
    );
    assert!(
        !r.summary.out_of_memory,
        "Dragon fits with 4 KiB banks (the paper could not run it)"
    );
    let spanning = r.layout.objects.iter().filter(|o| o.size > 4096).count();
    assert!(spanning > 0, "Dragon allocates objects larger than 4 KiB");
}

#[test]
fn compaction_happens_only_when_a_failed_allocation_still_does_not_fit() {
    for p in gclab_core::scenario::presets::KVM_APPS {
        let r = run(p, &["collector.kind=k-allocation", "collector.k=40"]);
        for g in &r.gc_events {
            if g.moved_bytes > 0 {
                assert_eq!(
                    g.trigger,
                    gclab_core::Trigger::Alloc,
                    "{p}: only failure collections compact"
                );
            }
        }
    }
}

#[test]
fn layout_replay_agrees_with_the_occupancy_timeline() {
    let r = run("kvm/calculator", &["collector.kind=adaptive"]);
    assert_layout_agrees_with_occupancy(&r, 37, r.geometry.heap_bytes, "kvm/calculator");
}

#[test]
fn cancel_stops_a_run() {
    let sc = Scenario::preset("kvm/kwml").expect("loads");
    let r = simulate(&sc, &Cancel::from_fn(|| true), &mut NoProgress);
    assert_eq!(
        r.err(),
        Some(SimError::Cancelled),
        "a cancelled run returns Cancelled"
    );
}

#[test]
fn collecting_after_every_allocation_terminates() {
    // k = 1 under Kwml, whose waiting thread allocates ~1.5 objects after each collection: a collection inside
    // that thread's own burst must not start another burst, or the run allocates without end.
    let r = run("default", &["collector.kind=k-allocation", "collector.k=1"]);
    let s = &r.summary;
    assert!(!s.out_of_memory, "k = 1 fits");
    assert!(
        s.collections + 1 >= s.allocations && s.collections <= s.allocations,
        "one collection per allocation: {} collections, {} allocations",
        s.collections,
        s.allocations
    );
    let base = run("default", &["collector.kind=k-allocation", "collector.k=2"]);
    assert!(
        s.allocations < 2 * base.summary.allocations,
        "the after-collection allocations stay bounded: {} at k=1 vs {} at k=2",
        s.allocations,
        base.summary.allocations
    );
}

#[test]
fn a_cache_sized_by_free_memory_takes_back_what_a_collection_frees() {
    // 4000 entries of 64 B that never age out (256 KiB) into a 22 KiB dynamic heap (crypto's 10 KiB permanent
    // space in 32 KiB): as plain long-lived objects they run out of memory; as cache entries the program evicts
    // its oldest entry whenever it inserts one with less than 2 KiB free, and the run completes.
    let phase = |kind: &str| {
        format!(
            "workload.phases=[{{name = \"tiles\", allocations = 4000, sizes = [{{weight = 1.0, min = 64, max = 64}}], \
             lifetimes = [{{weight = 1.0, kind = \"{kind}\", min_allocations = 100000, max_allocations = 100000}}]}}]"
        )
    };
    let sets = |kind: &str, collector: &str| {
        vec![
            phase(kind),
            "workload.cache_free_bytes=2048".to_string(),
            "heap.size=32KiB".to_string(),
            "heap.bank_size=4KiB".to_string(),
            collector.to_string(),
            "collector.k=100".to_string(),
        ]
    };
    let go = |s: Vec<String>| {
        let sc = Scenario::load("preset:kvm/crypto", &s).expect("loads");
        simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs")
    };
    let plain = go(sets("uniform", "collector.kind=base"));
    assert!(
        plain.summary.out_of_memory,
        "plain long-lived objects overflow"
    );
    let cached = go(sets("cache", "collector.kind=base"));
    assert!(
        !cached.summary.out_of_memory,
        "the cache shrinks to the heap"
    );
    assert_eq!(cached.summary.allocations, 4000);
    // Every periodic collection's freed memory is taken back by the growing cache, so allocation failures go on
    // between periodic collections: 100 allocations of 64 B outrun a 2 KiB slack (32 allocations) each window.
    let k = go(sets("cache", "collector.kind=k-allocation"));
    let failures = k
        .gc_events
        .iter()
        .filter(|e| e.trigger == gclab_core::Trigger::Alloc)
        .count();
    let periodic = k.gc_events.len() - failures;
    assert!(periodic >= 35, "{periodic} periodic collections");
    assert!(
        failures >= periodic,
        "{failures} failures against {periodic} periodic collections"
    );
}

#[test]
fn a_cache_class_needs_its_free_memory_bound() {
    let sets = vec![
        "workload.phases=[{name = \"tiles\", allocations = 10, sizes = [{weight = 1.0, min = 64, max = 64}], \
         lifetimes = [{weight = 1.0, kind = \"cache\", min_allocations = 5, max_allocations = 9}]}]"
            .to_string(),
    ];
    let e = Scenario::load("preset:kvm/crypto", &sets).expect_err("refused");
    assert!(e.to_string().contains("cache_free_bytes"), "{e}");
}

/// The start-up live state (`workload.live_state`): the same program — allocations and bytes unchanged — whose
/// immortal objects all come first, so they sit packed at the bottom of the heap; the shared tape replays it bit
/// for bit.
#[test]
fn live_state_at_start_up_packs_the_same_objects_first() {
    let start = ["collector.kind=adaptive", "workload.live_state=start-up"];
    let spread = run("kvm/crypto", &["collector.kind=adaptive"]);
    let packed = run("kvm/crypto", &start);
    assert_eq!(packed.summary.allocations, spread.summary.allocations);
    // The immortal objects are the live data at the end; at start-up they are allocated into an empty heap, so
    // they end up below the scattered live set of the spread run.
    let top = |r: &Run| {
        r.layout
            .at(SimTime(r.duration.0.saturating_sub(1)))
            .iter()
            .filter(|o| !o.dead)
            .map(|o| o.addr + o.size)
            .max()
            .unwrap_or(0)
    };
    assert!(
        top(&packed) < top(&spread),
        "start-up live data should be packed lower: {} vs {}",
        top(&packed),
        top(&spread)
    );
    let sc = Scenario::load(
        "preset:kvm/crypto",
        &start.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    )
    .expect("loads");
    let tapes = gclab_core::WorkloadTapes::new();
    let taped = gclab_core::simulate_with(&sc, Some(&tapes), &Cancel::never(), &mut NoProgress)
        .expect("runs");
    assert_eq!(taped.summary, packed.summary);
}

/// The permanent-space live state (`workload.live_state=permanent`): the immortal objects are still allocations
/// (counted, and the k counter sees them), but they live in the permanent space — reserved at start-up by their
/// expected bytes — so the dynamic heap ends holding only objects that die.
#[test]
fn live_state_in_the_permanent_space_keeps_the_dynamic_heap_to_the_dying() {
    let spread = run("kvm/crypto", &["collector.kind=base"]);
    let perm = run(
        "kvm/crypto",
        &["collector.kind=base", "workload.live_state=permanent"],
    );
    assert_eq!(perm.summary.allocations, spread.summary.allocations);
    // Crypto's immortal objects: 5 % of 5898 of mean size 64 B.
    let reserved = (5898.0_f64 * 0.05 * 64.0).round() as u64;
    let align = 4;
    assert_eq!(
        spread.geometry.permanent_start - perm.geometry.permanent_start,
        reserved.div_ceil(align) * align
    );
    let live_at_end = |r: &Run| -> u64 {
        r.layout
            .at(SimTime(r.duration.0.saturating_sub(1)))
            .iter()
            .filter(|o| !o.dead)
            .map(|o| o.size)
            .sum()
    };
    // The spread run ends with its ~19 KiB of state in the dynamic heap; the permanent one with a few young objects.
    assert!(live_at_end(&spread) > 15 * 1024, "{}", live_at_end(&spread));
    assert!(live_at_end(&perm) < 4 * 1024, "{}", live_at_end(&perm));
}
