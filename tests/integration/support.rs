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
