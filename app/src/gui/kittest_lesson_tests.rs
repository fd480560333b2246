//! egui_kittest tests of a teacher's own lesson (#19 item 1): a lesson file opens through the file field as
//! *Open…* does — not as a scenario — and is listed in the Lessons menu; each highlight a step names is drawn on
//! the views it concerns and a step's time range zooms the heap map, read from what the plots drew.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use gclab_core::Scenario;

use super::kittest_tests::{
    H, app, harness, open_through_the_path_field, settle, wait_for_lesson, wait_for_run,
};
use super::marks::Mark;
use super::views::highlight;

/// The kinds of mark the plots drew last frame: `time`, `collection`, `address`, `bank`.
fn drawn_kinds(h: &H) -> Vec<&'static str> {
    highlight::drawn(&h.ctx)
        .iter()
        .map(|m| match m {
            Mark::TimeSpan { .. } => "time",
            Mark::Collection { .. } => "collection",
            Mark::AddressBand { .. } => "address",
            Mark::BankRow { .. } => "bank",
        })
        .collect()
}

fn next_step(h: &mut H) {
    h.get_by_role_and_label(Role::Button, "next >").click();
    h.run_steps(2);
    wait_for_lesson(h);
    h.run_steps(3);
}

#[test]
fn kittest_a_lesson_file_opens_like_a_scenario_and_each_highlight_is_drawn_where_it_points() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    let run = app(&h).state.current.clone().expect("a run");
    let dur_ms = run.duration_s * 1e3;
    let heap_kib = run.run.geometry.heap_bytes as f64 / 1024.0;
    assert!(
        !run.run.gc_events.is_empty() && run.run.geometry.banks > 1,
        "the test needs collections and banks"
    );
    let (a, b) = (dur_ms * 0.2, dur_ms * 0.4);
    let (z0, z1) = (dur_ms * 0.1, dur_ms * 0.5);
    let text = format!(
        "id = \"my-lesson\"\ntitle = \"My own lesson\"\n\
         [[steps]]\ntitle = \"a span\"\ntext = \"t\"\nscenario = \"preset:default\"\nview = \"layout\"\n\
         time_range_ms = [{z0}, {z1}]\nhighlight = [{{ kind = \"time-span\", from_ms = {a}, to_ms = {b} }}]\n\
         [[steps]]\ntitle = \"addresses\"\ntext = \"t\"\nview = \"layout\"\n\
         highlight = [{{ kind = \"address-range\", from_kib = 0.0, to_kib = {q} }}]\n\
         [[steps]]\ntitle = \"a bank\"\ntext = \"t\"\nview = \"layout\"\nhighlight = [{{ kind = \"bank\", bank = 1 }}]\n\
         [[steps]]\ntitle = \"a collection\"\ntext = \"t\"\nview = \"overview\"\n\
         highlight = [{{ kind = \"collection\", index = 0 }}]\n",
        q = heap_kib / 4.0
    );
    let dir = std::env::temp_dir().join(format!("gclab-kittest-lesson-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join("mylesson.toml");
    std::fs::write(&path, text).expect("write lesson");

    // Opened as Open… opens a file: a lesson, not a scenario ("unknown field `id`").
    open_through_the_path_field(&mut h, &path);
    wait_for_lesson(&mut h);
    h.run_steps(3);
    let l = app(&h)
        .lesson
        .as_ref()
        .expect("the lesson file opened as a lesson");
    assert_eq!(l.lesson.id, "my-lesson", "the file's lesson");
    assert!(
        !app(&h).state.status.is_error,
        "{}",
        app(&h).state.status.message
    );

    // Step 1: the span shaded on the heap map, the time axis zoomed to the step's range.
    assert_eq!(drawn_kinds(&h), vec!["time"], "step 1 draws its time span");
    let shown = app(&h).layout.shown_t[0];
    let want = [z0 * 1e-3, z1 * 1e-3];
    assert!(
        (shown[0] - want[0]).abs() < 1e-6 * run.duration_s
            && (shown[1] - want[1]).abs() < 1e-6 * run.duration_s,
        "the heap map shows the step's range {want:?}, not {shown:?}"
    );
    next_step(&mut h);
    assert_eq!(drawn_kinds(&h), vec!["address"], "step 2: the address band");
    let shown = app(&h).layout.shown_t[0];
    assert!(
        shown[0].abs() < 1e-9 && (shown[1] - run.duration_s).abs() < 1e-6 * run.duration_s,
        "a step without a range shows the whole run again: {shown:?}"
    );
    next_step(&mut h);
    assert_eq!(drawn_kinds(&h), vec!["bank"], "step 3: the bank's row");
    next_step(&mut h);
    let kinds = drawn_kinds(&h);
    assert!(
        kinds.len() >= 2 && kinds.iter().all(|k| *k == "collection"),
        "step 4: the collection on the heap map and the timelines under it: {kinds:?}"
    );

    // The Lessons menu lists the file for next time.
    h.get_by_label("Lessons").click();
    settle(&mut h);
    assert!(
        h.query_all_by_role_and_label(Role::Button, "My own lesson")
            .next()
            .is_some(),
        "the Lessons menu lists the opened lesson file"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
