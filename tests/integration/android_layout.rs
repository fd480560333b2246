//! The android-krait heap map (issue #3 item 14): every cohort piece placed first-fit in the Dalvik heap, never
//! moved, freed by the sweep that reclaims it. At every occupancy sample the map holds exactly the engine's live
//! and dead bytes, pieces never overlap and stay inside the growth limit, and the map changes no result.

use crate::support::{assert_layout_agrees_with_occupancy, run};

#[test]
fn the_heap_map_holds_the_engines_live_and_dead_bytes_for_every_variant() {
    for kind in ["cms", "gencms", "cmsfly", "bg", "fg"] {
        let set = format!("collector.kind={kind}");
        let r = run("android/jack", &[&set]);
        assert!(!r.layout.objects.is_empty(), "{kind}: a map is recorded");
        assert!(
            r.layout.moves.is_empty(),
            "{kind}: Dalvik's mark-sweep never moves"
        );
        assert_layout_agrees_with_occupancy(&r, 53, r.geometry.heap_bytes, kind);
        assert_eq!(
            r.summary,
            run("android/jack", &[&set, "record.layout=false"]).summary,
            "{kind}: the map only observes"
        );
    }
}
