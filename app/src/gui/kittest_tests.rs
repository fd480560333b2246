//! egui_kittest tests (issue #4 point 8): the real app driven through its real widgets — found by their
//! accessible names (AccessKit), clicked, given values — not through the command queue. Each test builds the app
//! on a scenario, waits for the worker's result the way a user would (frames keep running meanwhile), and reads
//! what is on screen: the summary table, the status bar, the scrubber's time.
//!
//! The harness also checks, whenever the UI settles, that every input widget has an accessible name
//! (`Harness::check_accessibility`), so an unlabelled knob fails here.
//!
//! Per-view PNGs rendered by kittest (wgpu on lavapipe, no display): `cargo test -p gclab --lib
//! kittest_view_snapshots -- --ignored` writes `screenshots/kittest/<view>.png`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use gclab_core::Scenario;

use super::GclabApp;
use super::state::ViewKind;

pub(super) type H = Harness<'static, Option<GclabApp>>;

/// A harness showing the app on `sc` at the window's default size.
pub(super) fn harness(sc: Scenario) -> H {
    harness_sized(sc, [1500.0, 940.0], false)
}

pub(super) fn harness_sized(sc: Scenario, size: [f32; 2], wgpu: bool) -> H {
    let b = Harness::builder().with_size(size).with_max_steps(8);
    let b = if wgpu { b.wgpu() } else { b };
    b.build_ui_state(
        move |ui, app: &mut Option<GclabApp>| {
            app.get_or_insert_with(|| GclabApp::new(ui.ctx(), sc.clone()))
                .frame(ui);
        },
        None,
    )
}

/// The default scenario in a window of `size` points (no wgpu), its first run arrived.
pub(super) fn default_ran_at(size: [f32; 2]) -> H {
    let mut h = harness_sized(
        Scenario::default_preset().expect("default preset"),
        size,
        false,
    );
    wait_for_run(&mut h);
    h
}

pub(super) fn app(h: &H) -> &GclabApp {
    h.state()
        .as_ref()
        .expect("the app is built on the first frame")
}

/// Steps frames until the newest request's run is on screen (at most 60 s), then lets the UI settle (which also
/// checks that every input widget has an accessible name).
pub(super) fn wait_for_run(h: &mut H) {
    let t0 = Instant::now();
    loop {
        h.step();
        let st = &app(h).state;
        let done = !st.computing
            && st
                .current
                .as_ref()
                .is_some_and(|v| v.generation == st.generation);
        if done {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "no run within 60 s");
        std::thread::sleep(Duration::from_millis(2));
    }
    settle(h);
    h.check_accessibility();
}

/// Runs frames until nothing more changes (or a few frames pass).
pub(super) fn settle(h: &mut H) {
    // A file being opened (scenarios too) is read on the loader's thread, a big curve's worst windows searched on
    // a task: wait for them.
    let t0 = Instant::now();
    while (app(h).logs.busy() || app(h).worst_busy()) && t0.elapsed() < Duration::from_secs(30) {
        h.step();
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = h.run_ok();
    h.run_steps(2);
}

/// The text of every label on screen, in document order.
pub(super) fn labels(h: &H) -> Vec<String> {
    h.root()
        .query_all_by(|n| n.role() == Role::Label)
        .filter_map(|n| n.accesskit_node().value())
        .collect()
}

/// The current run's value in the summary table's row `row`, as shown.
pub(super) fn summary(h: &H, row: &str) -> String {
    let l = labels(h);
    let start = l
        .iter()
        .position(|s| s == "summary")
        .expect("the summary table is on screen");
    let i = l[start..]
        .iter()
        .position(|s| s == row)
        .unwrap_or_else(|| panic!("row {row} in the summary table"));
    l[start + i + 1].clone()
}

/// Opens the combo box labelled `combo` and clicks its entry `entry`.
/// Sets the slider labelled `label` to `value` through accesskit and returns the run it caused.
pub(super) fn drag_to(
    h: &mut H,
    label: &str,
    value: f64,
) -> std::sync::Arc<super::analysis::RunView> {
    h.get_by_role_and_label(Role::Slider, label)
        .set_value_accesskit(value);
    h.run_steps(2);
    wait_for_run(h);
    app(h).state.current.clone().expect("a run")
}

pub(super) fn choose(h: &mut H, combo: &str, entry: &str) {
    h.get_by_role_and_label(Role::ComboBox, combo).click();
    settle(h);
    // AccessKit's click: the entry may lie below the popup's scrolled part.
    h.get_by_role_and_label(Role::Button, entry)
        .click_accesskit();
    h.run_steps(2);
}

#[test]
fn kittest_collector_and_k_through_the_widgets_rerun_and_change_the_summary() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    assert_eq!(
        summary(&h, "collector"),
        "adaptive",
        "the default collector"
    );
    let collections_adaptive = summary(&h, "collections");

    choose(&mut h, "collector", "k-allocation");
    wait_for_run(&mut h);
    assert_eq!(
        summary(&h, "collector"),
        "k-allocation",
        "the summary shows the new collector"
    );
    let collections_k = summary(&h, "collections");
    assert_ne!(
        collections_adaptive, collections_k,
        "and a different number of collections"
    );

    let v = drag_to(&mut h, "k", 50.0);
    assert_eq!(v.scenario.file().collector.k, 50, "the slider's k ran");
    assert_ne!(
        summary(&h, "collections"),
        collections_k,
        "k = 50 collects more often than the preset's k"
    );
    assert!(
        !app(&h).state.status.is_error,
        "{}",
        app(&h).state.status.message
    );
}

#[test]
fn kittest_android_preset_and_target_util_slider() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    choose(&mut h, "preset", "android/jack");
    wait_for_run(&mut h);
    assert_eq!(
        app(&h).state.base.platform(),
        gclab_core::PlatformKind::AndroidKrait,
        "the android preset is loaded"
    );
    assert_eq!(summary(&h, "collector"), "cms", "its collector");
    // Energy by what the cores did, not the kvm-soc's memories (which this platform does not model).
    assert!(
        h.query_all_by_label("cores collecting (GC)")
            .next()
            .is_some(),
        "the CPU split by use"
    );
    assert!(
        h.query_all_by_label("  heap leakage").next().is_none(),
        "no empty memory rows"
    );
    let time_before = summary(&h, "execution time");
    let energy_before = summary(&h, "energy, total");
    let v = drag_to(&mut h, "targetUtil", 0.2);
    assert!(
        (v.scenario.file().heap.target_util - 0.2).abs() < 1e-9,
        "targetUtil reached the run"
    );
    assert!(
        summary(&h, "execution time") != time_before
            || summary(&h, "energy, total") != energy_before,
        "a tighter heap changes the summary"
    );
    // Fewer cores: the run schedules its threads on two.
    let v = drag_to(&mut h, "cores", 2.0);
    assert_eq!(
        v.scenario.file().android.cpu.cores,
        2,
        "cores reached the run"
    );
    assert_eq!(
        v.run.cpu.as_ref().map(|c| c.cores.len()),
        Some(2),
        "two core lanes"
    );
    // Large objects (bitmaps): requests that jump the 128 KiB window collect in the foreground.
    let v = drag_to(&mut h, "large objects", 0.3);
    assert_eq!(
        v.scenario
            .workload()
            .android
            .as_ref()
            .and_then(|a| a.large_objects)
            .map(|l| l.share),
        Some(0.3),
        "the share reached the workload"
    );
    assert!(
        v.run
            .summary
            .collections_by_trigger
            .get("alloc")
            .is_some_and(|n| *n > 0),
        "foreground GC-ALLOCs: {:?}",
        v.run.summary.collections_by_trigger
    );
}

#[test]
fn kittest_scrub_with_the_buttons_the_slider_and_the_keys() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    let v = app(&h).state.current.clone().expect("a run");
    let playhead = |h: &H| app(h).state.playback.playhead;

    h.get_by_role_and_label(Role::Button, "next GC >").click();
    settle(&mut h);
    assert_eq!(
        playhead(&h),
        v.gc_start_s[0],
        "next GC: the first collection"
    );
    let shown = super::format::secs(v.gc_start_s[0]);
    assert!(
        h.query_by_label_contains(&format!("{shown} / ")).is_some(),
        "the scrubber shows the playhead's time {shown}"
    );
    h.key_press(egui::Key::ArrowRight);
    settle(&mut h);
    assert_eq!(playhead(&h), v.gc_start_s[1], "→: the second collection");
    h.get_by_role_and_label(Role::Button, "< prev GC").click();
    settle(&mut h);
    assert_eq!(playhead(&h), v.gc_start_s[0], "prev GC: back to the first");

    let half = v.duration_s / 2.0;
    h.get_by_role_and_label(Role::Slider, "playhead")
        .set_value_accesskit(half);
    settle(&mut h);
    assert!(
        (playhead(&h) - half).abs() < v.duration_s * 1e-6,
        "the scrubber slider moved the playhead to {half}: {}",
        playhead(&h)
    );
    h.key_press(egui::Key::End);
    settle(&mut h);
    assert_eq!(playhead(&h), v.duration_s, "End: the end of the run");
    h.get_by_role_and_label(Role::Button, "Play").click();
    h.run_steps(2);
    assert!(
        app(&h).state.playback.playing,
        "Play plays (from the start)"
    );
    assert!(
        h.query_by_role_and_label(Role::Button, "Pause").is_some(),
        "and the button turns into Pause"
    );
    h.key_press(egui::Key::Space);
    h.run_steps(2);
    assert!(!app(&h).state.playback.playing, "space pauses");
}

#[test]
fn kittest_pin_as_baseline_then_compare() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    assert!(
        h.query_by_label("Δ").is_none(),
        "no comparison before pinning"
    );
    h.get_by_role_and_label(Role::Button, "Pin as baseline")
        .click();
    settle(&mut h);
    assert!(
        h.query_all_by_label_contains("baseline: adaptive").count() > 0,
        "the tab row names the baseline"
    );
    choose(&mut h, "collector", "base");
    wait_for_run(&mut h);
    assert_eq!(summary(&h, "collector"), "base", "the current run is base");
    assert!(h.query_by_label("Δ").is_some(), "the table compares");
    let l = labels(&h);
    let table = l.iter().position(|s| s == "summary").expect("the table");
    let row = table
        + l[table..]
            .iter()
            .position(|s| s == "collector")
            .expect("collector row");
    assert_eq!(
        l[row + 1..row + 3],
        ["base".to_string(), "adaptive".to_string()],
        "current beside baseline"
    );
    assert!(
        h.query_by_label("baseline: live + dead").is_some(),
        "the occupancy plot draws the baseline too"
    );
    h.get_by_role_and_label(Role::Button, "Clear baseline")
        .click();
    settle(&mut h);
    assert!(h.query_by_label("Δ").is_none(), "cleared");
}

#[test]
fn kittest_a_malformed_scenario_typed_in_the_path_field_shows_an_error_and_keeps_the_run() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    let before = app(&h).state.current.clone().expect("a run");
    let collections = summary(&h, "collections");
    let path = std::env::temp_dir().join(format!("gclab-kittest-bad-{}.toml", std::process::id()));
    std::fs::write(&path, "format_version = 1\n[heap]\nsize = \"lots\"\n").expect("temp file");

    let field = h.get_by_role_and_label(Role::TextInput, "file:");
    field.focus();
    h.run_steps(1);
    h.key_combination_modifiers(egui::Modifiers::COMMAND, &[egui::Key::A]);
    h.get_by_role_and_label(Role::TextInput, "file:")
        .type_text(&path.display().to_string());
    h.run_steps(2);
    assert_eq!(
        app(&h).state.path_text,
        path.display().to_string(),
        "the path was typed"
    );
    h.get_by_role_and_label(Role::Button, "Open").click();
    settle(&mut h);
    let status = h
        .query_by_label_contains("error: not loaded")
        .expect("the status bar shows the error");
    let text = status.accesskit_node().value().unwrap_or_default();
    assert!(text.contains("size"), "naming the bad field: {text}");
    let now = app(&h).state.current.clone().expect("a run");
    assert!(Arc::ptr_eq(&before, &now), "the run on screen is unchanged");
    assert!(!app(&h).state.computing, "nothing re-runs");
    assert_eq!(summary(&h, "collections"), collections, "the same summary");
    let _ = std::fs::remove_file(&path);
}

/// Renders every view with kittest (wgpu, lavapipe) into `screenshots/kittest/`.
#[test]
#[ignore = "writes PNGs for the README; run on request"]
fn kittest_view_snapshots() {
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../screenshots/kittest");
    std::fs::create_dir_all(&out).expect("output directory");
    let mut h = harness_sized(
        Scenario::default_preset().expect("default preset"),
        [1500.0, 940.0],
        true,
    );
    wait_for_run(&mut h);
    for view in ViewKind::ALL {
        h.state_mut().as_mut().expect("app").state.settings.view = view;
        if view == ViewKind::Sweep {
            h.get_by_role_and_label(Role::Button, "Run sweep over k")
                .click();
            h.run_steps(2);
            let t0 = Instant::now();
            while app(&h).sweep.running() && t0.elapsed() < Duration::from_secs(120) {
                h.step();
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        settle(&mut h);
        let img = h.render().expect("kittest renders with wgpu");
        let name = view.title().to_ascii_lowercase().replace(' ', "-");
        img.save(out.join(format!("{name}.png")))
            .expect("PNG written");
    }
}

/// A file in `tests/fixtures/logs/`.
pub(super) fn fixture_log(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/logs")
        .join(name)
}

/// Types `path` into the file field and clicks Open, as a user does.
fn type_and_open(h: &mut H, path: &std::path::Path) {
    h.get_by_role_and_label(Role::TextInput, "file:").focus();
    h.run_steps(1);
    h.key_combination_modifiers(egui::Modifiers::COMMAND, &[egui::Key::A]);
    h.get_by_role_and_label(Role::TextInput, "file:")
        .type_text(&path.display().to_string());
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Open").click();
}

/// Types `path` into the file field and clicks Open, as a user does; waits for the log loader.
pub(super) fn open_through_the_path_field(h: &mut H, path: &std::path::Path) {
    type_and_open(h, path);
    h.run_steps(2);
    let t0 = Instant::now();
    while app(h).logs.busy() {
        assert!(t0.elapsed() < Duration::from_secs(30), "the log loads");
        h.step();
        std::thread::sleep(Duration::from_millis(2));
    }
    settle(h);
}

/// A log of 200,000 pauses (400,000 steps, past what the UI thread searches) opens with its pauses in a temporary
/// file and its worst windows searched on the "worst-windows" task (once), and the windows that come are the
/// curve's own.
#[test]
fn kittest_a_big_logs_worst_windows_are_searched_off_the_ui_thread() {
    use std::fmt::Write as _;
    let path = std::env::temp_dir().join(format!("gclab-big-worst-{}.csv", std::process::id()));
    let mut text = String::from("start_ns,end_ns\n");
    for i in 0..200_000u64 {
        let start = i * 1_000_000;
        let _ = writeln!(text, "{start},{}", start + 100_000 + (i * 7919) % 300_000);
    }
    gclab_core::io::write_file_atomic(&path, text.as_bytes()).expect("temp file");
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    let searches = app(&h).worst_searches;
    type_and_open(&mut h, &path);
    let t0 = Instant::now();
    while app(&h).state.log().is_none() {
        assert!(t0.elapsed() < Duration::from_secs(30), "the log loads");
        h.step();
        std::thread::sleep(Duration::from_millis(2));
    }
    settle(&mut h);
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        app(&h).worst_searches,
        searches + 1,
        "the search ran on the task, not in the frame"
    );
    let log = app(&h).state.log().cloned().expect("the log is on screen");
    assert_eq!(log.pauses, 200_000);
    let st = &app(&h).state;
    let w = st.worst.clone().expect("worst windows");
    assert_eq!(w.window_ms, st.mmu_window_ms, "for the window on screen");
    let curve = log.mmu.lock().expect("curve");
    assert!(
        curve.steps() > 1 << 18,
        "a big curve: {} steps",
        curve.steps()
    );
    let want = curve.worst((st.mmu_window_ms * 1e6) as u64, 5);
    assert_eq!(w.windows, want, "the curve's own worst windows");
}

#[test]
fn kittest_a_hotspot_log_opens_into_pauses_heap_and_minmu_with_clickable_worst_windows() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    let run = app(&h).state.current.clone().expect("a run");
    let path = fixture_log("jdk17-serial-xmx128m.log");
    open_through_the_path_field(&mut h, &path);
    let log = app(&h).state.log().cloned().expect("the log is on screen");
    assert!(
        !app(&h).state.status.is_error,
        "{}",
        app(&h).state.status.message
    );
    // The same pauses as the derived pause list of this log.
    let derived = std::fs::read_to_string(fixture_log("jdk17-serial-xmx128m.pauses.csv"))
        .expect("derived pauses");
    assert_eq!(
        log.pauses,
        derived.lines().count() - 1,
        "every logged pause"
    );
    assert!(
        !log.heap_before.is_empty() && !log.heap_total.is_empty(),
        "heap sizes"
    );
    assert!(
        h.query_by_label_contains("Pauses — jdk17-serial").is_some(),
        "the pause timeline"
    );
    assert!(
        h.query_by_label("Heap occupancy (from the log)").is_some(),
        "the heap plot"
    );
    assert!(
        h.query_by_label("Minimum mutator utilisation (MinMU) of the log")
            .is_some(),
        "the MinMU plot"
    );
    // A worst window, clicked, moves the playhead to its start.
    let w = app(&h).state.worst.clone().expect("worst windows");
    let first = w.windows.first().expect("one");
    let t = first.start_ns as f64 * 1e-9;
    let text = format!(
        "{} @ {}",
        super::format::percent(first.utilization),
        super::format::secs(t)
    );
    h.get_by_role_and_label(Role::Button, &text).click();
    settle(&mut h);
    assert_eq!(app(&h).state.playback.playhead, t, "the playhead moved");
    // → steps from pause to pause.
    h.key_press(egui::Key::ArrowRight);
    settle(&mut h);
    let next = log.pause_near(t, true).expect("a later pause");
    assert_eq!(
        app(&h).state.playback.playhead,
        next,
        "→ goes to the next pause"
    );
    // Views a log cannot fill say so.
    for (tab, says) in [
        ("CPU cores", "No per-core lanes in a GC log"),
        ("Energy", "No energy in a GC log"),
        ("Heap layout", "No heap layout in a GC log"),
        ("Sweep", "Sweeps simulate the scenario"),
    ] {
        h.get_by_role_and_label(Role::Button, tab).click();
        settle(&mut h);
        assert!(h.query_by_label(says).is_some(), "{tab} says: {says}");
    }
    // Closing the log shows the run again, unchanged.
    h.get_by_role_and_label(Role::Button, "Close file").click();
    settle(&mut h);
    assert!(app(&h).state.log().is_none(), "closed");
    let now = app(&h).state.current.clone().expect("a run");
    assert!(Arc::ptr_eq(&run, &now), "the run underneath is the same");
}

#[test]
fn kittest_android_logcat_dalvik_and_art_open_in_the_app() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    for (file, pauses, concurrent) in [("dalvik-logcat.txt", 8, 2), ("art-logcat.txt", 3, 3)] {
        open_through_the_path_field(&mut h, &fixture_log(file));
        let log = app(&h).state.log().cloned().expect("the log is on screen");
        assert_eq!(log.format, "logcat", "{file}");
        assert_eq!(log.pauses, pauses, "{file}: pauses");
        assert!(!log.heap_used.is_empty(), "{file}: heap sizes");
        // GCs that ran longer than their pauses are concurrent phases, drawn under the pause bars.
        assert_eq!(log.concurrent_phases, concurrent, "{file}: concurrent GCs");
        assert!(
            h.query_by_label(&format!("concurrent phases ({concurrent})"))
                .is_some(),
            "{file}: the concurrent phases' legend"
        );
        assert!(
            h.query_by_label_contains(&format!("Pauses — {file}"))
                .is_some(),
            "{file}: the pause timeline"
        );
    }
}

#[test]
fn kittest_a_garbled_log_is_an_error_and_the_views_stay() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    let run = app(&h).state.current.clone().expect("a run");
    let path =
        std::env::temp_dir().join(format!("gclab-kittest-garbled-{}.log", std::process::id()));
    std::fs::write(&path, b"\xff\xfe not a log\n").expect("temp file");
    open_through_the_path_field(&mut h, &path);
    assert!(app(&h).state.log().is_none(), "no log on screen");
    assert!(
        h.query_by_label_contains("error: not opened").is_some(),
        "the status bar says why: {}",
        app(&h).state.status.message
    );
    let now = app(&h).state.current.clone().expect("a run");
    assert!(Arc::ptr_eq(&run, &now), "the run on screen is unchanged");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn kittest_a_recorded_trace_opens_in_the_heap_layout_view_and_scrubs() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/trace/v1.gctrace");
    open_through_the_path_field(&mut h, &path);
    let t = app(&h)
        .state
        .trace()
        .cloned()
        .expect("the trace is on screen");
    assert_eq!(t.len(), 4, "four objects");
    assert_eq!(t.collections.len(), 2, "two collections");
    assert!(
        h.query_by_label("Heap layout — v1.gctrace (as recorded)")
            .is_some(),
        "the heap-layout view shows the trace"
    );
    h.get_by_role_and_label(Role::Button, "next GC >").click();
    settle(&mut h);
    let first = t.secs(t.collections[0].0);
    assert_eq!(
        app(&h).state.playback.playhead,
        first,
        "next GC: the trace's first collection"
    );
    h.get_by_role_and_label(Role::Slider, "playhead")
        .set_value_accesskit(t.duration_s() / 2.0);
    settle(&mut h);
    assert!(
        (app(&h).state.playback.playhead - t.duration_s() / 2.0).abs() < 1e-12,
        "the scrubber moves through the trace"
    );
    h.get_by_role_and_label(Role::Button, "MinMU").click();
    settle(&mut h);
    assert!(
        h.query_by_label("No pauses in a trace replayed as recorded")
            .is_some(),
        "MinMU says why it is empty"
    );
    // The same recording as a workload: a kvm-soc run of its four objects, the trace closed.
    let generation = app(&h).state.generation;
    h.get_by_role_and_label(Role::Button, "Re-simulate as a workload")
        .click();
    let t0 = Instant::now();
    while app(&h).state.generation == generation {
        h.step();
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no re-simulation within 60 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    wait_for_run(&mut h);
    let st = &app(&h).state;
    assert!(st.trace().is_none(), "the simulation is on screen again");
    let run = st.current.as_ref().expect("a run");
    assert_eq!(
        run.run.summary.allocations, 4,
        "the recording's four objects"
    );
    assert_eq!(run.run.summary.platform, "kvm-soc", "on kvm-soc");
}

/// Steps frames until the lesson's claims are computed and the step's run or log is on screen (at most 60 s).
pub(super) fn wait_for_lesson(h: &mut H) {
    let t0 = Instant::now();
    loop {
        h.step();
        let a = app(h);
        let st = &a.state;
        let lesson_ready = a.lesson.as_ref().is_some_and(|l| !l.busy());
        let run_ready = !st.computing
            && st
                .current
                .as_ref()
                .is_some_and(|v| v.generation == st.generation);
        if lesson_ready && run_ready && !a.logs.busy() {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "lesson step not ready within 60 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    settle(h);
}

/// Steps `h` until the trade-off sweep has finished with points, then settles the frames.
pub(super) fn wait_for_tradeoff(h: &mut H) {
    let t0 = Instant::now();
    while app(h).tradeoff.running()
        || app(h)
            .tradeoff
            .result
            .as_ref()
            .is_none_or(|r| r.heap.is_empty())
    {
        h.step();
        assert!(
            t0.elapsed() < Duration::from_secs(240),
            "sweep within 240 s"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    settle(h);
}

#[test]
fn kittest_every_lesson_walks_step_by_step_in_presentation_mode() {
    let mut h = default_ran_at([1280.0, 720.0]);
    for id in gclab_core::lesson::builtin_ids() {
        let lesson = gclab_core::lesson::Lesson::load(id).expect("built-in lesson");
        // Open it from the top bar's menu, as a teacher would, then present.
        h.get_by_label("Lessons").click();
        settle(&mut h);
        h.get_by_role_and_label(Role::Button, &lesson.title)
            .click_accesskit();
        h.run_steps(2);
        wait_for_lesson(&mut h);
        if !app(&h).present {
            h.get_by_role_and_label(Role::Button, "Present").click();
            h.run_steps(2);
        }
        assert!(app(&h).present, "{id}: presentation mode on");
        let n = lesson.steps.len();
        for (i, step) in lesson.steps.iter().enumerate() {
            // What a presenter's clicker sends: PageDown, or the right arrow, or space — each steps forward.
            let forward = [egui::Key::PageDown, egui::Key::ArrowRight, egui::Key::Space][i % 3];
            wait_for_lesson(&mut h);
            let counter = format!("step {} / {n}", i + 1);
            assert!(
                h.query_all_by_label(&counter).next().is_some(),
                "{id}: the counter reads {counter}"
            );
            let l = app(&h).lesson.as_ref().expect("lesson open");
            assert_eq!(l.step, i, "{id}: on step {}", i + 1);
            assert!(
                l.problems.is_empty(),
                "{id}: every claim holds: {:?}",
                l.problems
            );
            if let Some(v) = &step.view {
                assert_eq!(
                    Some(app(&h).state.settings.view),
                    ViewKind::parse(v),
                    "{id} step {}: the step's view",
                    i + 1
                );
            }
            if step.prediction.is_some() {
                // The class answers, then the clicker reveals (the first PageDown on a prediction step).
                h.get_by_role_and_label(
                    Role::RadioButton,
                    &step
                        .prediction
                        .as_ref()
                        .map_or(String::new(), |p| p.choices[0].text.clone()),
                )
                .click();
                h.run_steps(2);
                h.key_press(forward);
                h.run_steps(2);
                assert!(
                    app(&h).lesson.as_ref().is_some_and(|l| l.revealed),
                    "{id} step {}: {forward:?} revealed the answer",
                    i + 1
                );
                assert!(
                    labels(&h)
                        .iter()
                        .any(|s| s.starts_with("Right") || s.starts_with("The model says")),
                    "{id} step {}: the verdict is shown",
                    i + 1
                );
            }
            if !step.claims.is_empty() {
                assert!(
                    labels(&h)
                        .iter()
                        .any(|s| s.starts_with("holds: ") && s.contains("(model: ")),
                    "{id} step {}: the measured numbers are beside the text: {:?}",
                    i + 1,
                    labels(&h)
                );
            }
            // A step longer than the panel is shown a page at a time: the key shows its pages, then the next step.
            for _ in 0..6 {
                h.key_press(forward);
                h.run_steps(2);
                wait_for_lesson(&mut h);
                if app(&h).lesson.as_ref().is_none_or(|l| l.step != i) || i + 1 == n {
                    break;
                }
            }
        }
        // PageUp and the left arrow step back (and so does nothing else: the step stays put at the last one) — through
        // the last step's earlier pages first, when it has some.
        for _ in 0..6 {
            h.key_press(egui::Key::PageUp);
            h.run_steps(2);
            if app(&h).lesson.as_ref().is_none_or(|l| l.step + 1 != n) {
                break;
            }
        }
        assert_eq!(
            app(&h).lesson.as_ref().map(|l| l.step),
            Some(n.saturating_sub(2)),
            "{id}: PageUp goes back a step"
        );
        h.key_press(egui::Key::ArrowLeft);
        h.run_steps(2);
        assert_eq!(
            app(&h).lesson.as_ref().map(|l| l.step),
            Some(n.saturating_sub(3)),
            "{id}: the left arrow goes back a step"
        );
        // Presenting, the way out is *Leave presentation*, then *Close lesson*.
        h.get_by_role_and_label(Role::Button, "Leave presentation")
            .click();
        h.run_steps(2);
        h.get_by_role_and_label(Role::Button, "Close lesson")
            .click();
        h.run_steps(2);
        assert!(app(&h).lesson.is_none() && !app(&h).present, "{id}: closed");
    }
}

#[test]
fn kittest_help_glossary_lists_the_terms_and_headings_explain_them() {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    h.get_by_label("Help").click();
    settle(&mut h);
    h.get_by_role_and_label(Role::Button, "Glossary").click();
    settle(&mut h);
    assert!(app(&h).state.glossary_open, "the glossary window opened");
    let on_screen = labels(&h);
    for term in ["MMU / MinMU", "Mutator", "targetUtil", "Bank"] {
        assert!(
            on_screen.iter().any(|l| l == term),
            "{term} is listed: {on_screen:?}"
        );
    }
    // The MinMU heading's hover text carries the glossary's definition.
    let tip = crate::gui::glossary::with_entry("Minimum mutator utilisation (MinMU)", "x");
    assert!(tip.contains("Glossary — MMU / MinMU"), "{tip}");
}

#[test]
fn kittest_the_trade_off_tab_sweeps_heap_sizes_from_its_button() {
    let mut h = harness(Scenario::preset("kvm/calculator").expect("preset"));
    wait_for_run(&mut h);
    h.get_by_role_and_label(Role::Button, "Trade-off").click();
    settle(&mut h);
    h.get_by_role_and_label(Role::Button, "Run heap-size sweep")
        .click();
    h.run_steps(2);
    wait_for_tradeoff(&mut h);
    let r = app(&h).tradeoff.result.clone().expect("a result");
    assert!(r.heap.len() >= 10, "the sizes ran: {}", r.heap.len());
    let on_screen = labels(&h);
    for l in [
        "total energy (CPU included)",
        "memory only",
        "longest pause",
        "this scenario's heap",
    ] {
        assert!(
            on_screen.iter().any(|s| s == l),
            "legend {l:?}: {on_screen:?}"
        );
    }
}

/// A merged sweep result of 3 collectors × 2 bank sizes on kvm/calculator, written by the core's merge exactly as
/// `gclab sweep merge --json` writes it.
fn merged_sweep_file() -> std::path::PathBuf {
    use gclab_core::sweep::SweepPlan;
    use gclab_core::sweep::merge::{MemorySource, MergeOutputs, Sink, merge};
    use gclab_core::sweep::point::render_point;
    let (plan, base) = SweepPlan::new(
        "preset:kvm/calculator",
        &[],
        &[
            "collector.kind=base,k-allocation,adaptive".into(),
            "heap.bank_size=8KiB,16KiB".into(),
        ],
    )
    .expect("plan");
    let mut src = MemorySource::default();
    for i in 0..plan.len() {
        let sc = plan.scenario_at(&base, i).expect("point");
        let run = gclab_core::simulate(
            &sc,
            &gclab_core::Cancel::never(),
            &mut gclab_core::NoProgress,
        )
        .expect("run");
        src.texts.push(Some(render_point(&plan, i, &run.summary)));
    }
    let mut out = Vec::new();
    let outs = MergeOutputs {
        json: Some(Sink {
            name: "mem".into(),
            out: &mut out,
        }),
        ..MergeOutputs::default()
    };
    merge(&plan, &mut src, "mem", outs, &mut |_| {}).expect("merge");
    let path =
        std::env::temp_dir().join(format!("gclab-kittest-sweep-{}.json", std::process::id()));
    std::fs::write(&path, out).expect("write");
    path
}

#[test]
fn kittest_the_pareto_explorer_lists_the_frontier_and_a_click_resimulates_that_point() {
    let mut h = harness(Scenario::preset("kvm/calculator").expect("preset"));
    wait_for_run(&mut h);
    let path = merged_sweep_file();
    open_through_the_path_field(&mut h, &path);
    assert_eq!(
        app(&h).state.settings.view,
        ViewKind::Pareto,
        "the explorer opens"
    );
    let r = app(&h)
        .state
        .pareto
        .results
        .clone()
        .expect("the sweep is loaded");
    assert_eq!(r.points.len(), 6, "3 × 2 points");
    assert!(!r.frontier.is_empty(), "a frontier");
    assert!(
        h.query_all_by_label_contains("6 points").count() >= 1,
        "the count is on screen"
    );
    // Pick the frontier point that differs most from the scenario on screen: the last one listed.
    let p = r.points[*r.frontier.last().expect("a point")].clone();
    h.get_by_role_and_label(Role::Button, &format!("open #{}", p.index))
        .click();
    wait_for_run(&mut h);
    let st = &app(&h).state;
    assert_eq!(
        st.settings.view,
        ViewKind::Overview,
        "back to the run's views"
    );
    for (k, v) in p.overrides() {
        assert!(
            st.base
                .overrides()
                .iter()
                .any(|(k2, v2)| *k2 == k && *v2 == v),
            "{k}={v} applied to the scenario: {:?}",
            st.base.overrides()
        );
    }
    let want = gclab_core::simulate(
        &Scenario::preset("kvm/calculator")
            .expect("preset")
            .with_overrides(&p.overrides())
            .expect("point"),
        &gclab_core::Cancel::never(),
        &mut gclab_core::NoProgress,
    )
    .expect("run");
    let shown = st.current.clone().expect("a run");
    assert_eq!(
        shown.run.summary.energy_j.total, p.energy_j,
        "the re-simulated run is the sweep's point"
    );
    assert_eq!(
        shown.run.summary, want.summary,
        "same run as simulating the point"
    );
    let _ = std::fs::remove_file(&path);
}

/// The default scenario switched to k-allocation with k = 1 (a long run), settled: the harness and that run — the
/// start of the tests where a later, shorter run (k = 1000) must redraw the heap map.
pub(super) fn default_under_k_allocation_at_k_1() -> (H, Arc<super::analysis::RunView>) {
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    choose(&mut h, "collector", "k-allocation");
    wait_for_run(&mut h);
    let long = drag_to(&mut h, "k", 1.0);
    settle(&mut h);
    (h, long)
}

/// The time range the overview's heap map shows, and the run's duration. `[s]`
fn heap_map_range(h: &H) -> ([f64; 2], [f64; 2], f64) {
    let a = app(h);
    let dur = a.state.current.as_ref().expect("a run").duration_s;
    (a.layout.shown_t[0], a.layout.shown_t[1], dur)
}

#[test]
fn kittest_the_heap_map_follows_a_shorter_run_and_compare_maps_share_one_time_axis() {
    // #19 item 7: k = 1 (a long run), then k = 1000 (a short one) left the second run squashed into the left few
    // per cent of the first run's time axis.
    let (mut h, long) = default_under_k_allocation_at_k_1();
    let short = drag_to(&mut h, "k", 1000.0);
    settle(&mut h);
    assert!(
        long.duration_s > short.duration_s * 1.05,
        "the test needs runs of different lengths: {} s vs {} s",
        long.duration_s,
        short.duration_s
    );
    let (shown, _, dur) = heap_map_range(&h);
    assert!(
        shown[0].abs() < 1e-9 && (shown[1] - dur).abs() < 1e-6 * dur.max(1.0),
        "the map shows the whole current run [0, {dur}] s, not {shown:?}"
    );
    // Pinned as baseline, then the long run again: both maps on the longer run's axis.
    h.get_by_role_and_label(Role::Button, "Pin as baseline")
        .click();
    settle(&mut h);
    drag_to(&mut h, "k", 1.0);
    settle(&mut h);
    let (cur, base, dur) = heap_map_range(&h);
    assert_eq!(cur, base, "one time axis for the current and baseline maps");
    assert!(
        (cur[1] - dur.max(short.duration_s)).abs() < 1e-6,
        "the axis ends where the longer run ends: {cur:?} vs {dur} s"
    );
}

#[test]
fn kittest_a_start_playhead_survives_a_log_opening_after_the_first_run() {
    // #19 item 7: GCLAB_PLAYHEAD with GCLAB_OPEN: the default scenario's run (1.2 s) finished before the log loaded,
    // clamped the playhead to 1.2 s, and the log opened there instead of at the asked time.
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    h.step();
    {
        let a = h.state_mut().as_mut().expect("the app is built");
        a.startup_playhead = Some(3.0);
        a.state.playback.playhead = 3.0;
        a.queue(super::command::Command::LoadFile(fixture_log(
            "jdk17-serial-xmx128m.log",
        )));
    }
    let t0 = Instant::now();
    while app(&h).state.log().is_none() || app(&h).state.computing {
        assert!(t0.elapsed() < Duration::from_secs(60), "the log opens");
        h.step();
        std::thread::sleep(Duration::from_millis(2));
    }
    settle(&mut h);
    let a = app(&h);
    assert!(
        a.state.current.as_ref().is_some_and(|v| v.duration_s < 3.0),
        "the first run ends before 3 s (what made the race)"
    );
    assert_eq!(a.state.playback.playhead, 3.0, "the log opened at 3 s");
    assert_eq!(
        a.startup_playhead, None,
        "held only until the log is on screen"
    );
}

#[test]
fn kittest_a_plain_mouse_wheel_zooms_the_heap_map_around_the_pointer() {
    // #19 item 7: "scroll to zoom" said the heading, but only Ctrl+wheel zoomed.
    let mut h = harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    let (before, _, dur) = heap_map_range(&h);
    let rect = app(&h).layout.map_rect[0].expect("the overview shows the heap map");
    assert!(
        rect.width() > 100.0,
        "the overview shows the heap map: {rect:?}"
    );
    h.hover_at(rect.center());
    h.run_steps(2);
    for _ in 0..3 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, 120.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: egui::Modifiers::NONE,
        });
        h.run_steps(4);
    }
    settle(&mut h);
    let (after, _, _) = heap_map_range(&h);
    let span = |r: [f64; 2]| r[1] - r[0];
    assert!(
        span(after) < 0.9 * span(before),
        "the wheel zoomed in: {before:?} -> {after:?} of a {dur} s run"
    );
    let mid = (before[0] + before[1]) / 2.0;
    assert!(
        after[0] < mid && mid < after[1],
        "around the pointer at the map's centre: {after:?}"
    );
}
