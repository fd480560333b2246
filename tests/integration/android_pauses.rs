//! What counts as a mutator pause on android-krait (`[android.pauses]`, docs/models-android.md): the choices only
//! change what is recorded, never the run; a pause ending at dispatch contains the same pause ending at wake-up;
//! a mutator's own `System.gc()` is a foreground pause only when asked for.

use gclab_core::collector::Trigger;
use gclab_core::run::{GcEvent, PauseKind};
use gclab_core::{Cancel, NoProgress, Run, Scenario, simulate};

fn run(preset: &str, sets: &[&str]) -> Run {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    let sc = Scenario::load(&format!("preset:{preset}"), &sets).expect("preset loads");
    simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs")
}

fn pause_ns(r: &Run) -> u64 {
    r.pauses.iter().map(|p| p.end.0 - p.start.0).sum()
}

#[test]
fn a_pause_ending_at_dispatch_contains_the_pause_ending_at_wakeup() {
    for kind in ["cms", "bg", "fg"] {
        let k = format!("collector.kind={kind}");
        let wake = run("android/xalan", &[&k, "android.pauses.end=wakeup"]);
        let disp = run("android/xalan", &[&k, "android.pauses.end=dispatch"]);
        // Only the record differs: the same schedule, energy and collections.
        assert_eq!(
            wake.summary.execution_time_s, disp.summary.execution_time_s,
            "{kind}"
        );
        assert_eq!(wake.summary.energy_j, disp.summary.energy_j, "{kind}");
        assert_eq!(wake.gc_events, disp.gc_events, "{kind}");
        // Every wake-up pause lies inside a dispatch pause of the same mutator that starts with it or earlier.
        for p in &wake.pauses {
            assert!(
                disp.pauses
                    .iter()
                    .any(|q| q.mutator == p.mutator && q.start <= p.start && p.end <= q.end),
                "{kind}: {p:?} is not inside a dispatch pause"
            );
        }
        // The runnable-but-waiting time after a pause is real on a loaded machine: it adds up.
        assert!(pause_ns(&disp) > pause_ns(&wake), "{kind}");
    }
}

#[test]
fn a_mutators_own_explicit_gc_is_a_pause_only_when_asked() {
    let off = run("android/quadrant", &[]);
    let on = run("android/quadrant", &["android.pauses.explicit_gc=true"]);
    assert_eq!(off.gc_events, on.gc_events, "only the record differs");
    let explicit: Vec<_> = on
        .gc_events
        .iter()
        .filter(|e| e.trigger == Trigger::Explicit)
        .collect();
    assert_eq!(explicit.len(), 42, "Table 1: Quadrant's 42 explicit GCs");
    let covered = |r: &Run, e: &GcEvent| {
        r.pauses
            .iter()
            .any(|p| p.kind == PauseKind::Foreground && p.start <= e.start && e.end <= p.end)
    };
    assert!(explicit.iter().all(|e| covered(&on, e)));
    assert!(explicit.iter().all(|e| !covered(&off, e)));
    // Table 1's Max. Pause: only javac beyond 50 ms — Quadrant's explicit GCs over its 8 MiB heap are longer.
    assert!(
        off.summary.max_pause_ms < 50.0,
        "{}",
        off.summary.max_pause_ms
    );
    assert!(
        on.summary.max_pause_ms > 50.0,
        "{}",
        on.summary.max_pause_ms
    );
}
