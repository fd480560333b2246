//! The android-krait heap map (issue #3 item 14): every cohort piece placed first-fit in the Dalvik heap, never
//! moved, freed by the sweep that reclaims it. At every occupancy sample the map holds exactly the engine's live
//! and dead bytes, pieces never overlap and stay inside the growth limit, and the map changes no result.

use gclab_core::{Cancel, NoProgress, Run, Scenario, simulate};

fn run(preset: &str, sets: &[String]) -> Run {
    let sc = Scenario::load(&format!("preset:{preset}"), sets).expect("preset loads");
    simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs")
}

#[test]
fn the_heap_map_holds_the_engines_live_and_dead_bytes_for_every_variant() {
    for kind in ["cms", "gencms", "cmsfly", "bg", "fg"] {
        let sets = vec![format!("collector.kind={kind}")];
        let r = run("android/jack", &sets);
        assert!(!r.layout.objects.is_empty(), "{kind}: a map is recorded");
        assert!(
            r.layout.moves.is_empty(),
            "{kind}: Dalvik's mark-sweep never moves"
        );
        let heap = r.geometry.heap_bytes;
        for s in r.occupancy.iter().step_by(53) {
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
                "{kind} at {:?}",
                s.time
            );
            assert!(
                objs.windows(2).all(|w| w[0].addr + w[0].size <= w[1].addr),
                "{kind}: pieces never overlap at {:?}",
                s.time
            );
            assert!(
                objs.last().is_none_or(|o| o.addr + o.size <= heap),
                "{kind}: inside the growth limit"
            );
        }
        let mut off = sets.clone();
        off.push("record.layout=false".into());
        assert_eq!(
            r.summary,
            run("android/jack", &off).summary,
            "{kind}: the map only observes"
        );
    }
}
