//! egui_kittest tests of legibility at a projector's size (#19 item 5): 1280×720 at 200 % is 640×360 points, and
//! kittest sizes its window in points, so these run the real app in a window that small. Stacked time plots share
//! one x for each instant; the lesson title wraps instead of being cut; the top bar and the status bar stay one
//! line each.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use gclab_core::Scenario;

use super::command::Command;
use super::kittest_tests::{
    H, app, default_ran_at, harness_sized, settle, wait_for_lesson, wait_for_run, wait_for_tradeoff,
};
use super::state::ViewKind;
use super::views::time_plot_frame;

/// 1280×720 at 200 % zoom, in points.
const SMALL: [f32; 2] = [640.0, 360.0];

/// Asserts that the time plots `a` and `b` show the same time range in the same x range (to half a point).
fn same_x_range(ctx: &egui::Context, a: &str, b: &str, case: &str) {
    let (fa, ta) = time_plot_frame(ctx, a).unwrap_or_else(|| panic!("{case}: {a} drawn"));
    let (fb, tb) = time_plot_frame(ctx, b).unwrap_or_else(|| panic!("{case}: {b} drawn"));
    assert!(
        (fa.left() - fb.left()).abs() < 0.5 && (fa.right() - fb.right()).abs() < 0.5,
        "{case}: {a} spans x {:.1}..{:.1}, {b} spans {:.1}..{:.1}: one instant would sit at two x",
        fa.left(),
        fa.right(),
        fb.left(),
        fb.right()
    );
    let span = (ta[1] - ta[0]).abs().max(1e-12);
    assert!(
        (ta[0] - tb[0]).abs() < span * 1e-3 && (ta[1] - tb[1]).abs() < span * 1e-3,
        "{case}: {a} shows {ta:?} s, {b} shows {tb:?} s"
    );
}

/// Opens the built-in lesson `id` presenting and goes to its step `step` (0-based), each loaded.
pub(super) fn present_lesson_step(h: &mut H, id: &str, step: usize) {
    {
        let a = h.state_mut().as_mut().expect("app");
        a.queue(Command::OpenLesson(id.into()));
        a.present = true;
    }
    h.run_steps(2);
    wait_for_lesson(h);
    h.state_mut()
        .as_mut()
        .expect("app")
        .queue(Command::LessonGoto(step));
    h.run_steps(2);
    wait_for_lesson(h);
}

/// Presents the first step of built-in lesson `id` that `pick` accepts (`what` names it in the failure) and
/// returns its index.
pub(super) fn present_first_step(
    h: &mut H,
    id: &str,
    what: &str,
    pick: impl Fn(&gclab_core::lesson::Step) -> bool,
) -> usize {
    let lesson = gclab_core::lesson::Lesson::load(id).expect("built-in lesson");
    let step = lesson.steps.iter().position(pick).expect(what);
    present_lesson_step(h, id, step);
    step
}

/// The default scenario at [`SMALL`], its run shown and the frames settled.
fn default_at_small_settled() -> H {
    let mut h = default_ran_at(SMALL);
    settle(&mut h);
    h
}

#[test]
fn kittest_the_heap_map_and_the_occupancy_plot_share_their_time_axis_in_the_overview() {
    // The map's plot leaves room for the "heap at the playhead" column and sized its y axis to its own labels; the
    // occupancy plot under it took the whole width: the same instant sat at two x positions.
    for size in [[1500.0, 940.0], SMALL] {
        let h = default_ran_at(size);
        assert_eq!(app(&h).state.settings.view, ViewKind::Overview);
        same_x_range(&h.ctx, "layout", "occupancy", &format!("{size:?}"));
    }
}

#[test]
fn kittest_the_cpu_power_plot_lines_up_with_the_cpu_lanes_above_it() {
    // Each plot sized its y axis to its own tick labels ("cpu3" against "2000" mW): the power plot began further
    // right than the lanes above it.
    let mut h = harness_sized(
        Scenario::preset("android/jack").expect("android preset"),
        [1500.0, 940.0],
        false,
    );
    h.state_mut().as_mut().expect("app").state.settings.view = ViewKind::Cpu;
    wait_for_run(&mut h);
    same_x_range(&h.ctx, "cpu-lanes", "cpu-power", "CPU view");
}

#[test]
fn kittest_the_lesson_title_wraps_and_is_never_cut_at_200_percent() {
    // Presenting at 1280×720 and 200 % the lesson title was one line cut with "…"; a teacher wants all of it.
    let mut h = default_ran_at(SMALL);
    let id = "cost-of-a-collection";
    let title = gclab_core::lesson::Lesson::load(id)
        .expect("built-in lesson")
        .title;
    {
        let a = h.state_mut().as_mut().expect("app");
        a.queue(Command::OpenLesson(id.into()));
        a.present = true;
    }
    h.run_steps(2);
    wait_for_lesson(&mut h);
    let node = h.get_by_role_and_label(Role::Label, &title);
    let rect = node.rect();
    // The title's font presenting in a window this short: 15 points (lesson.rs).
    let font = egui::FontId::proportional(15.0);
    let (whole_w, row_h) = h.ctx.fonts_mut(|f| {
        (
            f.layout_no_wrap(title.clone(), font.clone(), egui::Color32::WHITE)
                .size()
                .x,
            f.row_height(&font),
        )
    });
    assert!(
        whole_w > rect.width() + 1.0,
        "the test needs a title wider than its panel: {whole_w:.0} vs {:.0} points",
        rect.width()
    );
    assert!(
        rect.height() > 1.5 * row_h,
        "the title is {:.0} points high, one line of {row_h:.0}: cut to fit {:.0} points, not wrapped",
        rect.height(),
        rect.width()
    );
}

#[test]
fn kittest_the_top_bar_and_the_status_bar_stay_one_line_at_200_percent() {
    // At 1280×720 and 200 % the top bar took three lines and the status bar two: the views lost a quarter of the
    // height. The file row folds into a File menu, the key list into "keys", the status is cut with "…" on hover.
    let h = default_at_small_settled();
    let row_h = h
        .ctx
        .fonts_mut(|f| f.row_height(&egui::FontId::proportional(14.0)));
    let top = h.get_by_label("gclab").rect();
    let theme = h.get_by_role_and_label(Role::Button, "Dark theme").rect();
    assert!(
        (theme.center().y - top.center().y).abs() < row_h,
        "the theme button (y {:.0}) is on the title's line (y {:.0})",
        theme.center().y,
        top.center().y
    );
    assert!(
        h.query_by_role_and_label(Role::Button, "File").is_some(),
        "the file row folded into a File menu"
    );
    let keys = h.get_by_role_and_label(Role::Label, "keys").rect();
    let frame = h
        .query_all_by(|n| {
            n.role() == Role::Label && n.value().is_some_and(|v| v.starts_with("frame "))
        })
        .next()
        .expect("the frame time in the status bar")
        .rect();
    assert!(
        (keys.center().y - frame.center().y).abs() < row_h / 2.0,
        "the key list folded to \"keys\" on the frame time's line: {keys:?} vs {frame:?}"
    );
}

/// The top of the playback bar: a view drawn below it is off-screen.
fn playback_top(h: &super::kittest_tests::H) -> f32 {
    h.get_by_role_and_label(Role::Button, "Play").rect().top()
}

/// Asserts that the view `scroll_id` was drawn without scrolling and that each time plot in `plots` ends above the
/// playback bar.
fn fits(h: &super::kittest_tests::H, scroll_id: &str, plots: &[&str], case: &str) {
    assert_eq!(
        super::views::scrolled(&h.ctx, scroll_id),
        Some(false),
        "{case}: the view scrolls: part of it is off-screen"
    );
    let bottom = playback_top(h);
    for id in plots {
        let (frame, _) =
            time_plot_frame(&h.ctx, id).unwrap_or_else(|| panic!("{case}: {id} drawn"));
        assert!(
            frame.bottom() <= bottom && frame.height() >= 20.0,
            "{case}: {id} spans y {:.0}..{:.0}, the playback bar starts at {bottom:.0}",
            frame.top(),
            frame.bottom()
        );
    }
}

#[test]
fn kittest_the_overview_and_the_cpu_view_fit_1280x720_at_200_percent_beside_the_knob_panel() {
    // Beside the knob panel the centre is about 330 × 230 points: the two-column overview stacked four headings
    // and plots into it and scrolled (the occupancy and energy below the fold), the CPU view scrolled its power
    // plot and histogram away. Now the overview is one column and the CPU view drops the histogram.
    let h = default_at_small_settled();
    assert!(
        h.query_by_label("Scenario").is_some(),
        "the knob panel is open"
    );
    fits(
        &h,
        "overview-scroll",
        &["layout", "occupancy"],
        "kvm overview",
    );
    let mut h = harness_sized(
        Scenario::preset("android/quadrant").expect("android preset"),
        SMALL,
        false,
    );
    wait_for_run(&mut h);
    settle(&mut h);
    fits(
        &h,
        "overview-scroll",
        &["layout", "occupancy"],
        "android overview",
    );
    h.state_mut().as_mut().expect("app").state.settings.view = ViewKind::Cpu;
    settle(&mut h);
    fits(&h, "cpu-scroll", &["cpu-lanes", "cpu-power"], "CPU view");
}

/// A sweep whose k-allocation curve rises into the plot's top-right corner, where egui_plot puts its legend.
fn sweep_into_the_corner() -> crate::gui::sweep::SweepResult {
    let point = |k: u64, heap_j: f64| crate::gui::sweep::SweepPoint {
        k,
        target_util: 0.0,
        heap_j,
        total_j: heap_j,
        time_s: 1.0,
        memory_j: heap_j,
        heap_kib: 128,
        max_pause_ms: 1.0,
        collections: 10,
        out_of_memory: false,
        mmu: Vec::new(),
    };
    crate::gui::sweep::SweepResult {
        name: "corner".into(),
        k_allocation: [2u64, 10, 100, 1000, 10000]
            .iter()
            .enumerate()
            .map(|(i, &k)| point(k, 1e-3 * (1.0 + i as f64)))
            .collect(),
        base: Some(point(0, 4.5e-3)),
        adaptive: Some(point(0, 0.8e-3)),
        ..Default::default()
    }
}

#[test]
fn kittest_the_sweep_legend_is_outside_the_plot_so_it_covers_no_point() {
    // egui_plot's legend sat in the plot's top-right corner, over the k = 10000 point and the base line.
    for size in [[1500.0, 940.0], SMALL] {
        let mut h = default_ran_at(size);
        {
            let a = h.state_mut().as_mut().expect("app");
            a.sweep.result = Some(sweep_into_the_corner());
            a.state.settings.view = ViewKind::Sweep;
        }
        settle(&mut h);
        let (frame, _) = time_plot_frame(&h.ctx, "sweep").expect("the sweep plot drawn");
        for name in ["k-allocation", "adaptive: 800.000 µJ", "base: 4.500 mJ"] {
            let r = h.get_by_role_and_label(Role::Label, name).rect();
            assert!(
                !r.intersects(frame),
                "{size:?}: the legend entry {name:?} at {r:?} lies on the plot {frame:?}"
            );
        }
    }
}

#[test]
fn kittest_each_energy_label_sits_beside_its_bar_or_inside_it_never_across_its_end() {
    // The total was written from the bar's end with two spaces: at 200 % it touched the bar and ran over the
    // plot's edge or its grid labels.
    for (size, present) in [([1500.0, 940.0], false), (SMALL, false), (SMALL, true)] {
        let mut h = default_ran_at(size);
        {
            let a = h.state_mut().as_mut().expect("app");
            a.queue(Command::PinBaseline);
            a.present = present;
            a.state.settings.view = ViewKind::Energy;
        }
        settle(&mut h);
        let (frame, placed) =
            super::views::energy::drawn_labels(&h.ctx).expect("the energy bars drawn");
        assert!(!placed.is_empty(), "{size:?}: labels drawn");
        for (label, bar) in placed {
            let case = format!("{size:?} presenting {present}: label {label:?}, bar {bar:?}");
            assert!(
                frame.expand(0.5).contains_rect(label),
                "{case}: the label leaves the plot {frame:?}"
            );
            let beside = label.left() >= bar.right() + 3.0;
            let inside = bar.expand(0.5).contains_rect(label);
            assert!(beside || inside, "{case}: the label crosses the bar's end");
        }
    }
}

#[test]
fn kittest_a_lesson_step_highlights_a_traces_map_and_a_bank_beside_the_runs_map() {
    use super::marks::{LessonMarks, Mark};
    use gclab_core::lesson::Highlight;
    // A recorded trace's map drew no highlights, and a bank was outlined on the run's map only.
    let mut h = super::kittest_tests::harness(Scenario::default_preset().expect("default preset"));
    wait_for_run(&mut h);
    let marks = LessonMarks {
        highlights: vec![
            Highlight::TimeSpan {
                from_ms: 0.0,
                to_ms: 0.001,
            },
            Highlight::AddressRange {
                from_kib: 0.0,
                to_kib: 0.01,
            },
            Highlight::Collection { index: 0 },
            Highlight::Bank { bank: 1 },
        ],
        time_range_s: None,
        step_token: 1,
    };
    {
        let a = h.state_mut().as_mut().expect("app");
        a.state.lesson_marks = marks.clone();
        a.state.settings.view = ViewKind::Layout;
    }
    settle(&mut h);
    let outline = super::views::layout::now::bank_outline(&h.ctx, 1)
        .expect("bank 1 outlined in the heap at the playhead");
    assert!(outline.height() > 4.0, "{outline:?}");
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/trace/v1.gctrace");
    super::kittest_tests::open_through_the_path_field(&mut h, &path);
    assert!(app(&h).state.trace().is_some(), "the trace is on screen");
    h.state_mut().as_mut().expect("app").state.lesson_marks = marks;
    settle(&mut h);
    let drawn = super::views::highlight::drawn(&h.ctx);
    // A trace has no banks: a bank row among the marks would be the run's map's, from before the trace opened.
    assert!(
        !drawn.iter().any(|m| matches!(m, Mark::BankRow { .. })),
        "these marks are the run's map's, not the trace's: {drawn:?}"
    );
    for kind in ["time span", "address band", "collection"] {
        let found = drawn.iter().any(|m| {
            matches!(
                (kind, m),
                ("time span", Mark::TimeSpan { .. })
                    | ("address band", Mark::AddressBand { .. })
                    | ("collection", Mark::Collection { .. })
            )
        });
        assert!(found, "the trace's map draws the {kind}: {drawn:?}");
    }
}

/// Every bank label the "heap at the playhead" column painted last frame, with whether it shows whole.
fn bank_labels(h: &H) -> Vec<(String, bool)> {
    fn walk(s: &egui::epaint::Shape, clip: egui::Rect, out: &mut Vec<(String, bool)>) {
        match s {
            egui::epaint::Shape::Vec(v) => v.iter().for_each(|s| walk(s, clip, out)),
            egui::epaint::Shape::Text(t) => {
                let text = t.galley.text();
                let bank = text
                    .strip_prefix("bank ")
                    .or_else(|| text.strip_prefix('b'));
                if bank.is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit())) {
                    let r = s.visual_bounding_rect();
                    out.push((text.to_string(), clip.expand(0.5).contains_rect(r)));
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for c in &h.output().shapes {
        walk(&c.shape, c.clip_rect, &mut out);
    }
    out
}

#[test]
fn kittest_presenting_at_200_percent_the_bank_labels_are_whole_and_a_reveal_shows_the_answer() {
    // Presenting at 1280×720 and 200 % the bank labels were cut at the panel's edge ("b6 gated, unus"), the status
    // bar spent a line on the frame time and a key list that is not what the keys do, and *Reveal* put the answer
    // below the fold.
    let mut h = default_at_small_settled();
    let id = "cost-of-a-collection";
    let step = present_first_step(&mut h, id, "a prediction step over the heap map", |s| {
        s.prediction.is_some() && s.view.as_deref() == Some("layout")
    });
    settle(&mut h);
    let labels = bank_labels(&h);
    assert!(labels.len() >= 4, "bank labels drawn: {labels:?}");
    for (text, whole) in &labels {
        assert!(*whole, "the bank label {text:?} is cut at its panel's edge");
    }
    assert!(
        h.query_all_by(|n| n.value().is_some_and(|v| v.starts_with("frame ")))
            .next()
            .is_none(),
        "presenting, the status bar shows no frame time"
    );
    // The step's text fills the first page at this size: PageDown shows the question, then reveals.
    for _ in 0..3 {
        if app(&h).lesson.as_ref().is_some_and(|l| l.revealed) {
            break;
        }
        h.key_press(egui::Key::PageDown);
        h.run_steps(2);
        settle(&mut h);
    }
    assert!(
        app(&h)
            .lesson
            .as_ref()
            .is_some_and(|l| l.revealed && l.step == step),
        "PageDown revealed on the step"
    );
    let verdict = h
        .query_all_by(|n| {
            n.role() == Role::Label
                && n.value()
                    .is_some_and(|v| v.starts_with("Right") || v.starts_with("The model says"))
        })
        .next()
        .expect("the verdict")
        .rect();
    let bottom = playback_top(&h);
    assert!(
        verdict.bottom() <= bottom + 0.5 && verdict.top() >= 0.0,
        "the verdict spans y {:.0}..{:.0}; the playback bar starts at {bottom:.0}",
        verdict.top(),
        verdict.bottom()
    );
}

/// 1280×720 at 150 % in points.
const AT_150: [f32; 2] = [1280.0 / 1.5, 720.0 / 1.5];

/// The GC-log lesson presented in a window of `size` points, its log loaded and the frames settled.
fn gc_log_lesson_presented(size: [f32; 2]) -> H {
    let mut h = default_ran_at(size);
    {
        let a = h.state_mut().as_mut().expect("app");
        a.queue(Command::OpenLesson("reading-a-gc-log".into()));
        a.present = true;
    }
    h.run_steps(2);
    wait_for_lesson(&mut h);
    let t0 = std::time::Instant::now();
    while app(&h).logs.busy() || app(&h).state.log().is_none() {
        assert!(t0.elapsed().as_secs() < 30, "the lesson's log loads");
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    settle(&mut h);
    h
}

#[test]
fn kittest_a_gc_log_lesson_presented_at_1280x720_and_150_percent_shows_the_pause_timeline_whole() {
    // The log's overview kept two columns in a 425-point-wide centre: the table was cut at the lesson panel, the
    // pause legend ran under the MinMU plot and left the timeline a 30-point sliver under eight legend rows.
    let size = AT_150;
    let h = gc_log_lesson_presented(size);
    assert_eq!(app(&h).state.settings.view, ViewKind::Overview);
    let (pauses, _) = time_plot_frame(&h.ctx, "log-pauses").expect("the pause timeline drawn");
    let lesson_left = h
        .get_by_role_and_label(Role::Button, "Leave presentation")
        .rect()
        .left();
    assert!(
        pauses.right() < lesson_left && pauses.height() >= size[1] * 0.2,
        "the pause timeline spans x {:.0}..{:.0} (the lesson panel starts at {lesson_left:.0}) and is {:.0} points \
         high in a {:.0}-point window",
        pauses.left(),
        pauses.right(),
        pauses.height(),
        size[1]
    );
    let (occupancy, _) = time_plot_frame(&h.ctx, "occupancy").expect("the occupancy drawn");
    assert!(
        occupancy.bottom() <= playback_top(&h) && occupancy.height() >= 40.0,
        "the occupancy spans y {:.0}..{:.0}, the playback bar starts at {:.0}",
        occupancy.top(),
        occupancy.bottom(),
        playback_top(&h)
    );
}

#[test]
fn kittest_presenting_the_trade_off_at_200_percent_leaves_each_plot_room_for_two_y_labels() {
    // At 1280×720 and 200 % beside a lesson the trade-off's two-line title and wrapped control bar left the three
    // plots ~27 points each: the energy axis read only "0". A one-line title and one-row bar give them ~40.
    let mut h = default_at_small_settled();
    let id = "heap-size-trade-off";
    let _ = present_first_step(&mut h, id, "a trade-off step", |s| {
        s.view.as_deref() == Some("tradeoff")
    });
    wait_for_tradeoff(&mut h);
    let (frame, _) = time_plot_frame(&h.ctx, "tradeoff-energy").expect("the energy plot drawn");
    assert!(
        frame.height() >= 36.0,
        "the energy plot is {:.0} points tall: too short for two y labels 20 points apart",
        frame.height()
    );
}

#[test]
fn kittest_the_worst_window_list_of_a_gc_log_lesson_at_150_percent_ends_above_the_playback_bar() {
    // In a 425-point-wide centre (the app at 1280×720 and 150 %) the five worst-window buttons wrap into three rows;
    // the plot kept a fixed 40 points for the list, so the fifth button lay under the playback bar. The harness's
    // centre is a little wider (two rows), so a 600-point window (three rows: it fails with the fixed 40) is checked
    // too.
    for size in [AT_150, [600.0, AT_150[1]]] {
        worst_windows_end_above_the_playback_bar(size);
    }
}

/// [`kittest_the_worst_window_list_of_a_gc_log_lesson_at_150_percent_ends_above_the_playback_bar`] at `size`.
fn worst_windows_end_above_the_playback_bar(size: [f32; 2]) {
    let mut h = gc_log_lesson_presented(size);
    let lesson = gclab_core::lesson::Lesson::load("reading-a-gc-log").expect("built-in lesson");
    let step = lesson
        .steps
        .iter()
        .rposition(|s| s.view.as_deref() == Some("mmu"))
        .expect("a MinMU step");
    h.state_mut()
        .as_mut()
        .expect("app")
        .queue(Command::LessonGoto(step));
    h.run_steps(2);
    wait_for_lesson(&mut h);
    let chips = |h: &H| {
        h.query_all_by(|n| n.role() == Role::Button && n.label().is_some_and(|l| l.contains(" @ ")))
            .map(|n| n.rect().bottom())
            .collect::<Vec<f32>>()
    };
    let t0 = std::time::Instant::now();
    while chips(&h).len() < 5 {
        assert!(t0.elapsed().as_secs() < 30, "the worst windows listed");
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    settle(&mut h);
    let bottoms = chips(&h);
    let bar = playback_top(&h);
    assert!(
        bottoms.iter().all(|b| *b <= bar),
        "{size:?}: worst-window buttons end at y {bottoms:?}; the playback bar starts at {bar:.0}"
    );
}
