//! egui_kittest tests of presentation mode at a projector's size (#19 item 5): walked with the clicker's key
//! (PageDown), every step of every built-in lesson shows its text, its question and each of its checked claims
//! whole inside the lesson panel at some point — on a page, not below the fold of a scroll area — and no label of
//! the panel is cut at its edge. 1280×720 at 200 % is 640×360 points, 1920×1080 at 200 % is 960×540.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use gclab_core::Scenario;

use super::command::Command;
use super::kittest_layout_tests::present_lesson_step;
use super::kittest_tests::{H, app, harness_sized, settle, wait_for_lesson, wait_for_run};
use super::lesson;

/// Whether a label reading `text` lies whole inside `view` (to half a point).
fn whole_in(h: &H, text: &str, view: egui::Rect) -> bool {
    h.query_all_by_label(text)
        .any(|n| view.expand(0.5).contains_rect(n.rect()))
}

/// Labels that lie partly inside the lesson panel's visible rectangle `view` and partly outside: cut.
fn cut_labels(h: &H, view: egui::Rect) -> Vec<String> {
    h.query_all_by(|n| n.role() == Role::Label)
        .filter(|n| {
            let r = n.rect();
            r.left() >= view.left() - 0.5
                && r.intersects(view)
                && !view.expand(0.5).contains_rect(r)
        })
        .map(|n| format!("{} at {:?}", n.value().unwrap_or_default(), n.rect()))
        .collect()
}

/// Walks every step of every built-in lesson presenting in a window of `size` points, pressing PageDown as a
/// clicker does, and asserts that each step's text, question and claims were each seen whole.
fn every_step_shows_its_text_and_claims_whole(size: [f32; 2]) {
    let mut h = harness_sized(
        Scenario::default_preset().expect("default preset"),
        size,
        false,
    );
    wait_for_run(&mut h);
    for id in gclab_core::lesson::builtin_ids() {
        let lesson = gclab_core::lesson::Lesson::load(id).expect("built-in lesson");
        present_lesson_step(&mut h, id, 0);
        for (i, step) in lesson.steps.iter().enumerate() {
            let case = format!("{size:?} {id} step {}", i + 1);
            let mut want: Vec<String> = vec![step.text.clone()];
            if let Some(p) = &step.prediction {
                want.push(format!("What do you expect? {}", p.question));
            }
            let mut seen = vec![false; want.len()];
            let mut claims_seen = std::collections::BTreeMap::new();
            for press in 0.. {
                assert!(press < 12, "{case}: the clicker never leaves the step");
                settle(&mut h);
                let l = app(&h).lesson.as_ref().expect("the lesson is open");
                assert_eq!(l.step, i, "{case}: on the step");
                let view = lesson::viewport(&h.ctx)
                    .unwrap_or_else(|| panic!("{case}: the lesson panel drew a page"));
                for (s, w) in seen.iter_mut().zip(&want) {
                    *s |= whole_in(&h, w, view);
                }
                for c in l.step_claims() {
                    if c.is_answer && !c.outcome.holds {
                        continue;
                    }
                    let text = lesson::claim_text(&c.outcome);
                    let whole = whole_in(&h, &text, view);
                    *claims_seen.entry(text).or_insert(false) |= whole;
                }
                let cut = cut_labels(&h, view);
                assert!(
                    cut.is_empty(),
                    "{case}: cut at the lesson panel's edge {view:?}: {cut:?}"
                );
                let next = lesson::advance(l, true);
                if i + 1 == lesson.steps.len() && matches!(next, Command::LessonGoto(_)) {
                    break;
                }
                h.key_press(egui::Key::PageDown);
                h.run_steps(2);
                wait_for_lesson(&mut h);
                if app(&h).lesson.as_ref().is_some_and(|l| l.step != i) {
                    break;
                }
            }
            for (s, w) in seen.iter().zip(&want) {
                assert!(*s, "{case}: never seen whole in the lesson panel: {w:?}");
            }
            assert!(
                step.claims.is_empty() || !claims_seen.is_empty(),
                "{case}: the claims were evaluated"
            );
            let unseen: Vec<&String> = claims_seen
                .iter()
                .filter(|(_, s)| !**s)
                .map(|(t, _)| t)
                .collect();
            assert!(
                unseen.is_empty(),
                "{case}: claims never seen whole in the lesson panel (cut or below its fold): {unseen:?}"
            );
        }
    }
}

#[test]
fn kittest_presenting_at_1280x720_and_200_percent_every_steps_text_and_claims_are_seen_whole() {
    every_step_shows_its_text_and_claims_whole([640.0, 360.0]);
}

#[test]
fn kittest_presenting_at_1920x1080_and_200_percent_every_steps_text_and_claims_are_seen_whole() {
    every_step_shows_its_text_and_claims_whole([960.0, 540.0]);
}

#[test]
fn kittest_pageup_goes_back_through_a_steps_pages_before_the_previous_step() {
    // At 1280×720 and 200 % the energy step of the gated-banks lesson (its text and eight claims) takes pages: the
    // clicker's back key shows the previous page first, and the pager names the claims on screen.
    let mut h = harness_sized(
        Scenario::default_preset().expect("default preset"),
        [640.0, 360.0],
        false,
    );
    wait_for_run(&mut h);
    let id = "gated-banks-adaptive";
    let lesson = gclab_core::lesson::Lesson::load(id).expect("built-in lesson");
    let step = lesson
        .steps
        .iter()
        .position(|s| s.claims.len() >= 6 && s.prediction.is_none())
        .expect("a step with many claims");
    present_lesson_step(&mut h, id, step);
    settle(&mut h);
    let pages = |h: &H| {
        app(h)
            .lesson
            .as_ref()
            .and_then(|l| l.paging.as_ref())
            .map_or(0, |p| p.pages.len())
    };
    let n = pages(&h);
    assert!(n >= 2, "the step takes pages at 640×360 points: {n}");
    assert!(
        h.query_by_label(&format!("part 1 of {n}")).is_some()
            || h.query_all_by(|x| x.value().is_some_and(|v| v.starts_with("claims 1–")))
                .next()
                .is_some(),
        "the pager says which part is shown"
    );
    for _ in 1..n {
        h.key_press(egui::Key::PageDown);
        h.run_steps(2);
        settle(&mut h);
    }
    let l = app(&h).lesson.as_ref().expect("open");
    assert_eq!(l.step, step, "the pages come before the next step");
    let last = l.paging.as_ref().map(|p| p.page_of(l.page_first));
    assert_eq!(last, Some(n - 1), "on the last page");
    h.key_press(egui::Key::PageUp);
    h.run_steps(2);
    settle(&mut h);
    let l = app(&h).lesson.as_ref().expect("open");
    assert_eq!(
        (l.step, l.paging.as_ref().map(|p| p.page_of(l.page_first))),
        (step, Some(n - 2)),
        "PageUp shows the previous page of the same step"
    );
}
