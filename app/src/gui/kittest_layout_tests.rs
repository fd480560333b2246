//! egui_kittest tests of legibility at a projector's size (#19 item 5): 1280×720 at 200 % is 640×360 points, and
//! kittest sizes its window in points, so these run the real app in a window that small. Stacked time plots share
//! one x for each instant; the lesson title wraps instead of being cut; the top bar and the status bar stay one
//! line each.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use gclab_core::Scenario;

use super::command::Command;
use super::kittest_tests::{app, harness_sized, settle, wait_for_lesson, wait_for_run};
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

#[test]
fn kittest_the_heap_map_and_the_occupancy_plot_share_their_time_axis_in_the_overview() {
    // The map's plot leaves room for the "heap at the playhead" column and sized its y axis to its own labels; the
    // occupancy plot under it took the whole width: the same instant sat at two x positions.
    for size in [[1500.0, 940.0], SMALL] {
        let mut h = harness_sized(
            Scenario::default_preset().expect("default preset"),
            size,
            false,
        );
        wait_for_run(&mut h);
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
    let mut h = harness_sized(
        Scenario::default_preset().expect("default preset"),
        SMALL,
        false,
    );
    wait_for_run(&mut h);
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
    let mut h = harness_sized(
        Scenario::default_preset().expect("default preset"),
        SMALL,
        false,
    );
    wait_for_run(&mut h);
    settle(&mut h);
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
