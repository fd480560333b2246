//! Helpers the topic modules share: load a preset with `--set` overrides and run it, and the layout-replay check
//! both platforms' heap maps must pass.

use gclab_core::{Cancel, NoProgress, Run, Scenario, simulate};

/// `preset:NAME` with `--set KEY=VALUE` overrides, loaded as the CLI would.
pub fn scenario(preset: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    Scenario::load(&format!("preset:{preset}"), &sets).expect("preset loads")
}

/// Runs `preset:NAME` with overrides to the end.
pub fn run(preset: &str, sets: &[&str]) -> Run {
    simulate(&scenario(preset, sets), &Cancel::never(), &mut NoProgress).expect("runs")
}

/// At every `step`-th occupancy sample the replayed layout holds exactly the timeline's live and dead bytes (its
/// last sample at that instant), no two pieces overlap and every piece lies below `heap_bytes`.
pub fn assert_layout_agrees_with_occupancy(r: &Run, step: usize, heap_bytes: u64, what: &str) {
    for s in r.occupancy.iter().step_by(step) {
        let objs = r.layout.at(s.time);
        let live: u64 = objs.iter().filter(|o| !o.dead).map(|o| o.size).sum();
        let dead: u64 = objs.iter().filter(|o| o.dead).map(|o| o.size).sum();
        let last = r
            .occupancy
            .iter()
            .rev()
            .find(|x| x.time == s.time)
            .expect("sample");
        assert_eq!(
            (live, dead),
            (last.live_bytes, last.dead_bytes),
            "{what} at {:?}",
            s.time
        );
        assert!(
            objs.windows(2).all(|w| w[0].addr + w[0].size <= w[1].addr),
            "{what}: pieces never overlap at {:?}",
            s.time
        );
        assert!(
            objs.last().is_none_or(|o| o.addr + o.size <= heap_bytes),
            "{what}: inside the heap at {:?}",
            s.time
        );
    }
}

/// The android-krait switches of issue #16 that correct the model toward Linux 3.4 / Dalvik 4.3 (the source audit),
/// mechanism 3's footprint limit and CMSFly's on-the-fly resume (§3.2), as (key, on, off). The presets carry them
/// on (the calibration search ran every point with them on, docs/calibration-android.md). A test of one of these
/// mechanisms sets every one explicitly ([`android_switches`]), so it tests the mechanism whatever a preset says.
pub const ANDROID_SWITCHES: [(&str, &str, &str); 8] = [
    ("android.sched.boost", "\"source\"", "\"fixed\""),
    ("android.sched.slice_at_tick", "true", "false"),
    ("android.sched.fresh_min_vruntime", "true", "false"),
    ("android.heap.chunk_accounting", "true", "false"),
    ("android.gc.sweep_per_buffer", "true", "false"),
    ("android.gc.trim_locked", "true", "false"),
    ("android.heap.footprint_limit", "true", "false"),
    ("android.gc.fly_scanned_run", "true", "false"),
];

/// `--set` overrides for every one of [`ANDROID_SWITCHES`]: `rest_on` for all but `key` (the key, not a prefix;
/// "" for none), which is set to `key_on`. Later overrides a test appends never repeat these keys.
pub fn android_switches(rest_on: bool, key: &str, key_on: bool) -> Vec<String> {
    ANDROID_SWITCHES
        .iter()
        .map(|(k, on, off)| {
            let v = if *k == key { key_on } else { rest_on };
            format!("{k}={}", if v { on } else { off })
        })
        .collect()
}

/// Runs `preset:NAME` with every source switch explicit (`rest_on` but `key` at `key_on`, see [`android_switches`])
/// and then `sets`.
pub fn run_switched(preset: &str, rest_on: bool, key: &str, key_on: bool, sets: &[&str]) -> Run {
    let mut all = android_switches(rest_on, key, key_on);
    assert!(
        key.is_empty() || ANDROID_SWITCHES.iter().any(|(k, _, _)| *k == key),
        "{key} is one of the switches"
    );
    all.extend(sets.iter().map(|s| (*s).to_string()));
    simulate(
        &Scenario::load(&format!("preset:{preset}"), &all).expect("preset loads"),
        &Cancel::never(),
        &mut NoProgress,
    )
    .expect("runs")
}
