//! A lesson in the app (issue #19): the step's text beside one view, a step counter, predict-then-reveal, and the
//! step's claims with the numbers the model gives — evaluated on a `lesson-claims` thread (the UI never waits) when
//! the lesson opens. In presentation mode the knob panel is hidden and PageUp/PageDown, the arrows and space (what a
//! presenter's clicker sends) step through the lesson.

use gclab_core::lesson::{CheckedClaim, Evaluator, Lesson, Source, check_lesson};

use super::command::Command;
use super::lesson_pages::{Block, Paging, paginate};
use super::theme::Palette;
use crate::background::BackgroundTask;

/// An open lesson: where the class is, what it answered, and the claims' numbers once computed.
#[derive(Debug)]
pub struct LessonState {
    /// The lesson.
    pub lesson: Lesson,
    /// 0-based step on screen.
    pub step: usize,
    /// The class has pressed *Reveal* on this step.
    pub revealed: bool,
    /// The choice the class made, if any.
    pub chosen: Option<usize>,
    /// The class's estimate, as typed.
    pub estimate: String,
    /// Every claim of the lesson, evaluated; `None` while the `lesson-claims` thread works.
    pub claims: Option<Vec<CheckedClaim>>,
    /// Why the claims could not be evaluated.
    pub problems: Vec<String>,
    /// The source last applied (a step that keeps it does not re-run the scenario).
    pub applied: Option<Source>,
    /// The revealed answer has been scrolled into view (once: afterwards the teacher scrolls).
    answer_shown: bool,
    /// Presenting, the first block of the page on screen ([`super::lesson_pages`]).
    pub page_first: usize,
    /// Presenting, the step's pages as last measured.
    pub paging: Option<Paging>,
    task: BackgroundTask<(Vec<CheckedClaim>, Vec<String>)>,
}

impl LessonState {
    /// Opens `lesson` at step 0 and starts evaluating its claims; `repaint` wakes the UI when they arrive.
    pub fn open(lesson: Lesson, wake: &egui::Context) -> LessonState {
        let mut task = BackgroundTask::new("lesson-claims", 1);
        let l2 = lesson.clone();
        let started = task.start(Some(wake), move |sink| {
            let _ = sink.send(check_lesson(&l2, &mut Evaluator::default()));
        });
        LessonState {
            lesson,
            step: 0,
            revealed: false,
            chosen: None,
            estimate: String::new(),
            claims: None,
            problems: started.err().into_iter().collect(),
            applied: None,
            answer_shown: false,
            page_first: 0,
            paging: None,
            task,
        }
    }

    /// Takes the claims if they have arrived.
    pub fn poll(&mut self) {
        if let Some((claims, problems)) = self.task.poll_latest() {
            self.claims = Some(claims);
            self.problems = problems;
        }
    }

    /// Whether the claims are still being computed.
    pub fn busy(&self) -> bool {
        self.task.running()
    }

    /// Moves to step `i` (clamped); forgets the class's answer.
    pub fn goto(&mut self, i: usize) {
        self.step = i.min(self.lesson.steps.len().saturating_sub(1));
        self.revealed = false;
        self.answer_shown = false;
        self.page_first = 0;
        self.paging = None;
        self.chosen = None;
        self.estimate.clear();
    }

    /// *Reveal*: the answer shows on the page that asked the question, though the verdict may push it onto a page
    /// of its own.
    pub fn reveal(&mut self) {
        self.revealed = true;
        if let Some(i) = self
            .paging
            .as_ref()
            .and_then(|p| p.blocks.iter().position(|b| *b == Block::Prediction))
        {
            self.page_first = i;
        }
    }

    /// The claims of the step on screen.
    pub fn step_claims(&self) -> Vec<&CheckedClaim> {
        self.claims
            .iter()
            .flatten()
            .filter(|c| c.step == self.step)
            .collect()
    }
}

/// What a clicker or keyboard does in presentation mode: forward reveals a waiting prediction once it is on screen,
/// else shows the step's next page, else the next step; back shows the previous page, else the previous step.
pub fn advance(l: &LessonState, forward: bool) -> Command {
    let waits = l.lesson.steps[l.step].prediction.is_some() && !l.revealed;
    let paging = l.paging.as_ref().filter(|p| !p.pages.is_empty());
    let page = paging.map_or(0, |p| p.page_of(l.page_first));
    if !forward {
        return match paging.filter(|_| page > 0) {
            Some(p) => Command::LessonPage(p.pages[page - 1].start),
            None => Command::LessonGoto(l.step.saturating_sub(1)),
        };
    }
    let asked = paging.is_none_or(|p| {
        p.pages[..=page]
            .iter()
            .any(|r| p.blocks[r.clone()].contains(&Block::Prediction))
    });
    match paging.and_then(|p| p.pages.get(page + 1)) {
        _ if waits && asked => Command::LessonReveal,
        Some(next) => Command::LessonPage(next.start),
        None => Command::LessonGoto(l.step + 1),
    }
}

/// The lesson panel: title, step counter, text, prediction, reveal, claims with the model's numbers. Presenting,
/// the step is shown a page at a time ([`super::lesson_pages`]), never under a scroll bar; otherwise the caller
/// scrolls it.
pub fn ui(
    ui: &mut egui::Ui,
    l: &mut LessonState,
    pal: &Palette,
    present: bool,
    cmds: &mut Vec<Command>,
) {
    let full = ui.available_rect_before_wrap();
    let step = l.lesson.steps[l.step].clone();
    // Presenting, the text is a quarter larger, unless the window is short in points already (1280×720 at 200 % is
    // 360 points high): there the zoom has made it large, and the extra quarter pushed the step's text below the fold.
    let short = ui.ctx().content_rect().height() < 400.0;
    let big = if present && !short { 1.25 } else { 1.0 };
    header(ui, l, present, big, cmds);
    let all: Vec<CheckedClaim> = l.step_claims().into_iter().cloned().collect();
    // A prediction's wrong answer is a claim that fails on purpose: it greys its choice, it is not listed.
    let claims: Vec<&CheckedClaim> = all
        .iter()
        .filter(|c| !c.is_answer || c.outcome.holds)
        .collect();
    let mut blocks = vec![Block::Text];
    if step.prediction.is_some() {
        blocks.push(Block::Prediction);
    }
    if (step.prediction.is_none() || l.revealed) && !step.claims.is_empty() {
        blocks.push(Block::Heading);
        blocks.extend((0..claims.len()).map(Block::Claim));
    }
    if !l.problems.is_empty() {
        blocks.push(Block::Problems);
    }
    let draw = |ui: &mut egui::Ui, l: &mut LessonState, b: Block, cmds: &mut Vec<Command>| {
        block(ui, l, &step, (&all, &claims), b, pal, present, big, cmds);
    };
    if !present {
        for b in blocks {
            draw(ui, l, b, cmds);
        }
        return;
    }
    let room_whole = full.bottom() - ui.cursor().top();
    // The pager row: a button's height (its text's row and padding) and the spacing above and below it.
    let pager_h = {
        let font = egui::TextStyle::Button.resolve(ui.style());
        let text_h = ui.fonts_mut(|f| f.row_height(&font));
        let s = ui.spacing();
        s.interact_size.y.max(text_h + 2.0 * s.button_padding.y) + 2.0 * s.item_spacing.y
    };
    let key = {
        use std::hash::{Hash as _, Hasher as _};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (l.step, l.revealed, &blocks, l.busy()).hash(&mut h);
        [full.width(), full.height(), big]
            .map(f32::to_bits)
            .hash(&mut h);
        h.finish()
    };
    let Some(p) = l.paging.clone().filter(|p| p.key == key) else {
        // The measuring frame: every block once, its height kept; the next frame shows the first page.
        let mut heights = Vec::with_capacity(blocks.len());
        for &b in &blocks {
            let y0 = ui.cursor().top();
            draw(ui, l, b, cmds);
            heights.push(ui.cursor().top() - y0);
        }
        let pages = paginate(&blocks, &heights, room_whole, room_whole - pager_h);
        l.paging = Some(Paging {
            key,
            blocks,
            heights,
            pages,
        });
        ui.ctx().request_repaint();
        return;
    };
    let page = p.page_of(l.page_first);
    let paged = p.pages.len() > 1;
    let room = if paged {
        room_whole - pager_h
    } else {
        room_whole
    };
    if p.height(page) <= room + 0.5 {
        for &b in p.page(page) {
            draw(ui, l, b, cmds);
        }
    } else {
        // A block taller than the panel (a teacher's own long text): it scrolls, the pager stays in view.
        egui::ScrollArea::vertical()
            .max_height(room)
            .id_salt(("lesson-page", l.step, page))
            .show(ui, |ui| {
                for &b in p.page(page) {
                    draw(ui, l, b, cmds);
                }
            });
    }
    note_viewport(ui, full);
    if !paged {
        return;
    }
    // The pager on the panel's last line, where it stays from page to page.
    let gap = full.bottom() - pager_h + ui.spacing().item_spacing.y - ui.cursor().top();
    ui.add_space(gap.max(0.0));
    ui.horizontal(|ui| {
        if ui
            .add_enabled(page > 0, egui::Button::new("< previous"))
            .on_hover_text("The previous part of this step (PageUp, ←)")
            .clicked()
        {
            cmds.push(Command::LessonPage(p.pages[page - 1].start));
        }
        ui.label(egui::RichText::new(p.label(page)).strong());
        if ui
            .add_enabled(page + 1 < p.pages.len(), egui::Button::new("more >"))
            .on_hover_text("The rest of this step (PageDown, →, space)")
            .clicked()
        {
            cmds.push(Command::LessonPage(p.pages[page + 1].start));
        }
    });
}

/// The lesson's title, the step counter with *back* and *next*, the presentation switch.
fn header(ui: &mut egui::Ui, l: &LessonState, present: bool, big: f32, cmds: &mut Vec<Command>) {
    let n = l.lesson.steps.len();
    // Wrapped, never cut with "…": a class reads the whole title (#19 item 5). Presenting, it is the size of the step
    // title, not larger, so at 1280×720 and 200 % two lines of it still leave the step's text in view.
    let title_size = if present { 15.0 * big } else { 17.0 };
    ui.add(
        egui::Label::new(
            egui::RichText::new(&l.lesson.title)
                .strong()
                .size(title_size),
        )
        .wrap(),
    );
    ui.horizontal_wrapped(|ui| {
        if ui
            .add_enabled(l.step > 0, egui::Button::new("< back"))
            .on_hover_text("Previous step (PageUp, ←)")
            .clicked()
        {
            cmds.push(Command::LessonGoto(l.step - 1));
        }
        ui.label(
            egui::RichText::new(format!("step {} / {n}", l.step + 1))
                .monospace()
                .size(14.0 * big),
        );
        if ui
            .add_enabled(l.step + 1 < n, egui::Button::new("next >"))
            .on_hover_text("Next step (PageDown, →, space)")
            .clicked()
        {
            cmds.push(Command::LessonGoto(l.step + 1));
        }
        // Presenting in a narrow panel (1280×720 at 200 %), "Leave" keeps the row one line and the step's text a
        // line more room; its accessible name stays "Leave presentation".
        let font = egui::TextStyle::Button.resolve(ui.style());
        let need = ui.fonts_mut(|f| {
            f.layout_no_wrap("Leave presentation".into(), font, egui::Color32::WHITE)
                .size()
                .x
        }) + 2.0 * ui.spacing().button_padding.x;
        let name = match (present, ui.available_rect_before_wrap().width() < need) {
            (false, _) => "Present",
            (true, false) => "Leave presentation",
            (true, true) => "Leave",
        };
        let r = ui.button(name).on_hover_text(if present {
            "Leave presentation: the knob panel back, the lesson text beside the views"
        } else {
            "Presentation mode: one large view and this text, the knob panel hidden"
        });
        if present {
            r.widget_info(|| {
                egui::WidgetInfo::labeled(egui::Role::Button, true, "Leave presentation")
            });
        }
        if r.clicked() {
            cmds.push(Command::Present(!present));
        }
        // Presenting, one way out (leave presentation first): the row stays one line at a projector's zoom.
        if !present && ui.button("Close lesson").clicked() {
            cmds.push(Command::CloseLesson);
        }
    });
    ui.separator();
}

/// Draws one block of the step's panel.
#[allow(clippy::too_many_arguments)] // the panel's parts, borrowed apart so a block is drawn alone or with others
fn block(
    ui: &mut egui::Ui,
    l: &mut LessonState,
    step: &gclab_core::lesson::Step,
    (all, claims): (&[CheckedClaim], &[&CheckedClaim]),
    b: Block,
    pal: &Palette,
    present: bool,
    big: f32,
    cmds: &mut Vec<Command>,
) {
    let holds = |i: usize| all.iter().find(|c| c.claim == i).map(|c| c.outcome.holds);
    match b {
        Block::Text => {
            ui.label(egui::RichText::new(&step.title).strong().size(15.0 * big));
            ui.add_space(4.0);
            ui.label(egui::RichText::new(&step.text).size(14.0 * big));
            ui.add_space(8.0);
        }
        Block::Prediction => {
            let Some(p) = &step.prediction else { return };
            ui.group(|ui| {
                ui.label(
                    egui::RichText::new(format!("What do you expect? {}", p.question))
                        .size(14.0 * big),
                );
                for (i, c) in p.choices.iter().enumerate() {
                    let mut text = egui::RichText::new(&c.text).size(14.0 * big);
                    if l.revealed {
                        match holds(c.claim) {
                            Some(true) => text = text.color(pal.better).strong(),
                            Some(false) => text = text.weak(),
                            None => {}
                        }
                    }
                    if ui.radio(l.chosen == Some(i), text).clicked() && !l.revealed {
                        cmds.push(Command::LessonChoose(i));
                    }
                }
                if let Some(e) = &p.estimate {
                    ui.horizontal_wrapped(|ui| {
                        ui.label("your estimate:");
                        ui.add(egui::TextEdit::singleline(&mut l.estimate).desired_width(80.0));
                        ui.label(&e.unit);
                    });
                }
                if !l.revealed {
                    if ui
                        .button(egui::RichText::new("Reveal").size(14.0 * big))
                        .on_hover_text("Run it: show what the model gives")
                        .clicked()
                    {
                        cmds.push(Command::LessonReveal);
                    }
                    return;
                }
                let right: Vec<usize> = p
                    .choices
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| holds(c.claim) == Some(true))
                    .map(|(i, _)| i)
                    .collect();
                let verdict = match (l.chosen, right.first()) {
                    (_, None) => "the model is still computing…".to_string(),
                    (Some(c), Some(_)) if right.contains(&c) => {
                        "Right — the model agrees.".to_string()
                    }
                    (Some(_), Some(r)) => format!("The model says: {}", p.choices[*r].text),
                    (None, Some(r)) => format!("The model says: {}", p.choices[*r].text),
                };
                let r = ui.label(egui::RichText::new(verdict).strong().size(14.0 * big));
                // Not presenting, the answer is brought into view once (presenting, it is on the page shown).
                if !present && !l.answer_shown && !right.is_empty() {
                    r.scroll_to_me(None);
                    l.answer_shown = true;
                }
            });
            ui.add_space(6.0);
        }
        Block::Heading => {
            let on = if matches!(l.lesson.source_at(l.step), Source::Log(_)) {
                "Measured on the log"
            } else {
                "Measured on the model"
            };
            ui.label(egui::RichText::new(on).weak());
            if all.is_empty() && l.busy() {
                ui.horizontal_wrapped(|ui| {
                    ui.spinner();
                    ui.label("running the scenarios behind this step's numbers…");
                });
            }
        }
        Block::Claim(i) => {
            let Some(c) = claims.get(i) else { return };
            let color = if c.outcome.holds {
                pal.better
            } else {
                pal.worse
            };
            ui.label(
                egui::RichText::new(claim_text(&c.outcome))
                    .color(color)
                    .size(13.0 * big),
            );
        }
        Block::Problems => {
            ui.add_space(6.0);
            for p in &l.problems {
                ui.colored_label(
                    pal.worse,
                    format!(
                        "not shown by the model: {}",
                        p.replace('✓', "holds").replace('✗', "fails")
                    ),
                );
            }
        }
    }
}

/// Keeps the lesson panel's visible rectangle, the panel's content area `full` as far as it is not clipped (tests:
/// what the class sees of it).
fn note_viewport(ui: &egui::Ui, full: egui::Rect) {
    let r = full.intersect(ui.clip_rect());
    ui.ctx()
        .data_mut(|d| d.insert_temp(egui::Id::unique("lesson-viewport"), r));
}

/// The lesson panel's visible rectangle, as last drawn presenting a page.
#[cfg(test)]
pub fn viewport(ctx: &egui::Context) -> Option<egui::Rect> {
    ctx.data(|d| d.get_temp(egui::Id::unique("lesson-viewport")))
}

/// A claim as the panel shows it, in characters every egui font has: `holds: SENTENCE (model: 391 > 20)`.
pub fn claim_text(o: &gclab_core::lesson::ClaimOutcome) -> String {
    use gclab_core::lesson::claims::{Op, fmt_num};
    if let Some(e) = &o.error {
        return format!("not evaluated: {} ({e})", o.says);
    }
    let op = match o.op {
        Op::Lt => "<",
        Op::Le => "<=",
        Op::Gt => ">",
        Op::Ge => ">=",
    };
    format!(
        "{}: {} (model: {} {op} {})",
        if o.holds { "holds" } else { "does not hold" },
        o.says,
        fmt_num(o.left),
        fmt_num(o.right)
    )
}
