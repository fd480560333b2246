//! egui_kittest tests of presentation mode at a projector's size (#19 item 5): walked with the clicker's key
//! (PageDown), every step of every built-in lesson shows its text, its question and each of its checked claims
//! whole inside the lesson panel at some point — on a page, not below the fold of a scroll area — and no label of
//! the panel is cut at its edge. 1280×720 at 200 % is 640×360 points, 1920×1080 at 200 % is 960×540; 1280×720 at
//! 100 % and 150 % are walked too.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use gclab_core::Scenario;

use super::command::Command;
use super::kittest_layout_tests::{present_first_step, present_lesson_step};
use super::kittest_tests::{
    H, app, default_ran_at, harness_sized, settle, wait_for_lesson, wait_for_run,
};
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
    let mut h = default_ran_at(size);
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
            let mut was_revealed = false;
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
                if l.revealed && !was_revealed {
                    // The press that revealed leaves the question and its answer in view.
                    let asked = want.last().expect("the question");
                    assert!(
                        whole_in(&h, asked, view),
                        "{case}: revealing took the question {asked:?} off the page"
                    );
                }
                was_revealed = l.revealed;
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
fn kittest_presenting_at_1280x720_at_100_and_150_percent_every_steps_text_and_claims_are_seen_whole()
 {
    every_step_shows_its_text_and_claims_whole([1280.0, 720.0]);
    every_step_shows_its_text_and_claims_whole([1280.0 / 1.5, 720.0 / 1.5]);
}

#[test]
fn kittest_pageup_goes_back_through_a_steps_pages_before_the_previous_step() {
    // At 1280×720 and 200 % the energy step of the gated-banks lesson (its text and eight claims) takes pages: the
    // clicker's back key shows the previous page first, and the pager names the claims on screen.
    let mut h = default_ran_at([640.0, 360.0]);
    let id = "gated-banks-adaptive";
    let step = present_first_step(&mut h, id, "a step with many claims", |s| {
        s.claims.len() >= 6 && s.prediction.is_none()
    });
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

/// Byte ranges `[from, to)` that every object in `placed` leaves free or that it covers, merged when they touch.
fn merged(mut spans: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    spans.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// A collection whose fade lasts at least `min_ns` and the longest address range `[from, to)` it reclaimed that
/// stays free through the fade (at each of `times`), with the fade's effective length. `[bytes]`, `[ns]`
fn reclaimed_and_left_free(
    run: &gclab_core::Run,
    fade_ns: u64,
) -> (gclab_core::units::SimTime, u64, (u64, u64)) {
    use gclab_core::units::SimTime;
    let mut best: Option<(SimTime, u64, (u64, u64))> = None;
    for (i, gc) in run.gc_events.iter().enumerate() {
        let fade = run
            .gc_events
            .get(i + 1)
            .map_or(fade_ns, |n| fade_ns.min(n.start.0.saturating_sub(gc.end.0)));
        if fade < 100 {
            continue;
        }
        let dead = merged(
            run.layout
                .at(SimTime(gc.start.0.saturating_sub(1)))
                .into_iter()
                .filter(|o| o.dead)
                .map(|o| (o.addr, o.addr + o.size))
                .collect(),
        );
        let taken = merged(
            (0..=4)
                .flat_map(|k| run.layout.at(SimTime(gc.end.0 + k * fade / 4)))
                .map(|o| (o.addr, o.addr + o.size))
                .collect(),
        );
        for (a, b) in dead {
            // The parts of [a, b) no object takes during the fade.
            let mut x = a;
            for &(ta, tb) in taken.iter().filter(|t| t.1 > a && t.0 < b) {
                if ta > x && best.is_none_or(|(_, _, r)| ta.min(b) - x > r.1 - r.0) {
                    best = Some((gc.end, fade, (x, ta.min(b))));
                }
                x = x.max(tb);
            }
            if b > x && best.is_none_or(|(_, _, r)| b - x > r.1 - r.0) {
                best = Some((gc.end, fade, (x, b)));
            }
        }
    }
    best.expect("a collection that reclaims memory left free during its fade")
}

#[test]
fn kittest_the_garbage_a_collection_reclaims_fades_on_the_heap_map_over_frames_and_steps_back_stably()
 {
    // #19 item 5: at a collection the garbage it reclaimed fades out on the heap map (the heap at the playhead beside
    // it) over a few frames instead of vanishing. Read from the rendered pixels (wgpu): the reclaimed rows go from
    // the garbage colour to the free colour through intermediate colours, monotonically; stepping back shows the
    // same pixels at the same rows.
    use super::command::PlaybackCommand;
    use super::state::ViewKind;
    use super::theme::Palette;
    let mut h = harness_sized(
        Scenario::default_preset().expect("default preset"),
        // Tall, so that the reclaimed range spans several pixel rows (the map's texture stays under 2048 pixels).
        [1500.0, 1600.0],
        true,
    );
    h.state_mut().as_mut().expect("app").state.settings.view = ViewKind::Layout;
    wait_for_run(&mut h);
    let run = app(&h).state.current.clone().expect("a run").run.clone();
    let pal = Palette::of(app(&h).state.settings.theme);
    let fade_ns = super::views::fade::fade_ns(app(&h).state.playback.speed);
    let (end, fade, (a, b)) = reclaimed_and_left_free(&run, fade_ns);
    let mid = (a + b) / 2;
    let bank = (mid / run.geometry.bank_bytes) as u32;
    // The colour of the heap at the playhead's bar, at address `mid`, with the playhead at `t_ns`.
    let mut at = |t_ns: u64| -> ([u8; 3], Vec<[u8; 3]>) {
        h.state_mut()
            .as_mut()
            .expect("app")
            .queue(Command::Playback(PlaybackCommand::SeekTo(
                t_ns as f64 * 1e-9 + 1e-13,
            )));
        settle(&mut h);
        let (bar, y0, y1) = super::views::layout::now::bar(&h.ctx).expect("the bar drawn");
        let y_of = |bytes: u64| {
            bar.max.y - ((bytes as f64 / 1024.0 - y0) / (y1 - y0)) as f32 * bar.height()
        };
        let ppp = h.ctx.pixels_per_point();
        let img = h.render().expect("kittest renders with wgpu");
        let px = |y: f32| {
            let p = img
                .get_pixel((bar.center().x * ppp) as u32, (y * ppp) as u32)
                .0;
            [p[0], p[1], p[2]]
        };
        // Every whole pixel row of the reclaimed range, and the one at its middle.
        // Rows drawn at fractional positions blur into their neighbours: one pixel kept clear at each end.
        let (top, bottom) = (y_of(b).ceil() + 1.0, y_of(a).floor() - 2.0);
        let rows = (top as i32..=bottom as i32)
            .map(|y| px(y as f32 + 0.5))
            .collect();
        (px(y_of(mid)), rows)
    };
    let rgb = |c: egui::Color32| [c.r(), c.g(), c.b()];
    let dist = |p: [u8; 3], q: [u8; 3]| -> i32 {
        p.iter()
            .zip(q)
            .map(|(x, y)| (i32::from(*x) - i32::from(y)).abs())
            .sum()
    };
    // Just before the collection that reclaims it.
    let start = run
        .gc_events
        .iter()
        .find(|g| g.end == end)
        .expect("the collection")
        .start;
    let (_, rows_before) = at(start.0.saturating_sub(1));
    let times: Vec<u64> = (0..=4).map(|k| end.0 + k * fade / 4).collect();
    let seen: Vec<([u8; 3], Vec<[u8; 3]>)> = times.iter().map(|t| at(*t)).collect();
    let free = rgb(pal.free(run.bank_state_at(bank, gclab_core::units::SimTime(times[4]))));
    let dead = rgb(pal.dead);
    let case = format!(
        "reclaimed [{a}, {b}) bytes at {:.3} ms, fade {fade} ns: pixels {:?}",
        end.0 as f64 * 1e-6,
        seen.iter().map(|s| s.0).collect::<Vec<_>>()
    );
    assert!(
        rows_before.len() >= 2,
        "{case}: the range spans whole pixel rows"
    );
    assert!(
        dist(seen[0].0, dead) <= 6,
        "{case}: at the collection's end the reclaimed garbage still shows in the garbage colour {dead:?}"
    );
    assert_eq!(
        seen[0].1, rows_before,
        "{case}: the fade starts from the pixels the garbage had before the collection, row for row"
    );
    assert!(
        dist(seen[4].0, free) <= 6,
        "{case}: after the fade it is free memory {free:?}"
    );
    let d: Vec<i32> = seen.iter().map(|s| dist(s.0, free)).collect();
    assert!(
        d.windows(2).all(|w| w[1] < w[0]),
        "{case}: the colour moves toward the free colour frame by frame: distances {d:?}"
    );
    for s in &seen[1..4] {
        assert!(
            dist(s.0, dead) > 12 && dist(s.0, free) > 12,
            "{case}: the frames between show intermediate colours, not one step"
        );
    }
    // Stable positions: the garbage fades in the rows where it lay before the collection, each row on its way from
    // its colour then to free memory.
    for j in 0..rows_before.len() {
        let path: Vec<[u8; 3]> = seen.iter().map(|s| s.1[j]).collect();
        let d: Vec<i32> = path.iter().map(|p| dist(*p, free)).collect();
        assert!(
            d[4] <= 6 && d.windows(2).all(|w| w[1] < w[0]),
            "{case}: row {j} fades frame by frame to free memory: {path:?}"
        );
    }
    assert!(
        rows_before.iter().all(|p| dist(*p, free) > 60),
        "{case}: before the collection those rows held garbage: {rows_before:?}"
    );
    // Stepping back to a frame of the fade shows that frame again, pixel for pixel.
    let again = at(times[2]);
    assert_eq!(again, seen[2], "{case}: stepping back to the fade's middle");
    let again = at(times[1]);
    assert_eq!(again, seen[1], "{case}: and a frame further back");
}
