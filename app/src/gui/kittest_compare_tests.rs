//! egui_kittest tests of comparing (#19 item 7) and of the heap map's raster cache (#18 item 6), on the real app
//! through its widgets, with the helpers of [`super::kittest_tests`].

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use gclab_core::Scenario;

use super::kittest_tests::{
    app, default_under_k_allocation_at_k_1, drag_to, fixture_log, harness,
    open_through_the_path_field, settle, wait_for_run,
};

#[test]
fn kittest_a_new_run_rasterises_the_heap_map_once_not_again_while_the_plot_bounds_settle() {
    // #18 item 6: the map's cache key held the plot's bounds, which reach a new run's extent a frame after the run
    // arrives: every slider move rasterised the map twice (28 % of the round trip). Runs of different lengths (k = 1,
    // k = 1000) are the case where the bounds move.
    let (mut h, long) = default_under_k_allocation_at_k_1();
    let before = app(&h).layout.rebuilds;
    let short = drag_to(&mut h, "k", 1000.0);
    settle(&mut h);
    h.run_steps(4);
    assert!(
        long.duration_s > short.duration_s * 1.05,
        "the test needs runs of different lengths: {} s vs {} s",
        long.duration_s,
        short.duration_s
    );
    assert_eq!(
        app(&h).layout.rebuilds - before,
        1,
        "one raster for the new run"
    );
    let shown = app(&h).layout.shown_t[0];
    assert!(
        shown[0].abs() < 1e-9 && (shown[1] - short.duration_s).abs() < 1e-6,
        "and it is the whole new run: {shown:?} vs {} s",
        short.duration_s
    );
}

#[test]
fn kittest_a_pinned_log_compares_with_the_run_and_with_another_log_in_minmu_and_pauses() {
    // #19 item 7: Pin refused while a log was on screen; now the log is pinned, and the MinMU and pause views draw
    // it against the run or a second log, each named; energy is compared only where both have it.
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    let run_label = app(&h).state.current.as_ref().expect("a run").label.clone();
    open_through_the_path_field(&mut h, &fixture_log("jdk17-serial-xmx128m.log"));
    assert!(app(&h).state.log().is_some(), "the first log is open");
    h.get_by_role_and_label(Role::Button, "Pin as baseline")
        .click();
    settle(&mut h);
    let st = &app(&h).state;
    assert!(
        !st.status.is_error && st.baseline.as_ref().is_some_and(|b| b.run().is_none()),
        "the log is pinned, not the run under it: {}",
        st.status.message
    );
    let base = "GC log jdk17-serial-xmx128m.log";
    assert!(
        h.query_all_by_label(&format!("baseline: {base}")).count() > 0,
        "the tab row names the pinned log"
    );
    // The run against the log: MinMU overlays both, named; energy says the log has none.
    h.get_by_role_and_label(Role::Button, "Close file").click();
    settle(&mut h);
    assert!(
        h.query_by_label(&format!("current: {run_label}")).is_some(),
        "the run's MinMU curve is named after its scenario"
    );
    assert!(
        h.query_by_label(&format!("baseline (dashed): {base}"))
            .is_some(),
        "the log's MinMU curve is drawn beside it, named after the file"
    );
    assert!(
        h.query_by_label_contains("energy not in a GC log")
            .is_some(),
        "no energy Δ against a log, and it says why"
    );
    assert!(h.query_by_label("Δ").is_none(), "the table has no Δ column");
    // A second log against the first: MinMU and the pause timeline.
    open_through_the_path_field(&mut h, &fixture_log("jdk17-parallel-gc-only-xmx64m.log"));
    assert!(
        h.query_by_label("current: GC log jdk17-parallel-gc-only-xmx64m.log")
            .is_some(),
        "the second log's MinMU curve is named"
    );
    assert!(
        h.query_by_label(&format!("baseline (dashed): {base}"))
            .is_some(),
        "beside the first log's"
    );
    assert!(
        h.query_all_by_label(&format!("baseline: {base}")).count() >= 2,
        "the tab row names the first log, and the pause timeline draws its pauses too"
    );
}

#[test]
fn kittest_pin_on_a_recorded_trace_says_why_it_pins_nothing() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/trace/v1.gctrace");
    open_through_the_path_field(&mut h, &path);
    assert!(app(&h).state.trace().is_some(), "the trace is open");
    h.get_by_role_and_label(Role::Button, "Pin as baseline")
        .click();
    settle(&mut h);
    let st = &app(&h).state;
    assert!(st.baseline.is_none(), "nothing pinned");
    assert!(
        st.status.is_error && st.status.message.contains("no pauses, MinMU or energy"),
        "and the status bar says why: {}",
        st.status.message
    );
}
