//! A lesson in the app (issue #19): the step's text beside one view, a step counter, predict-then-reveal, and the
//! step's claims with the numbers the model gives — evaluated on a `lesson-claims` thread (the UI never waits) when
//! the lesson opens. In presentation mode the knob panel is hidden and PageUp/PageDown, the arrows and space (what a
//! presenter's clicker sends) step through the lesson.

use gclab_core::lesson::{CheckedClaim, Evaluator, Lesson, Source, check_lesson};

use super::command::Command;
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
        self.chosen = None;
        self.estimate.clear();
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

/// What a clicker or keyboard does in presentation mode: next (reveal first when a prediction waits) or back.
pub fn advance(l: &LessonState, forward: bool) -> Command {
    let waits = l.lesson.steps[l.step].prediction.is_some() && !l.revealed;
    match (forward, waits) {
        (true, true) => Command::LessonReveal,
        (true, false) => Command::LessonGoto(l.step + 1),
        (false, _) => Command::LessonGoto(l.step.saturating_sub(1)),
    }
}

/// The lesson panel: title, step counter, text, prediction, reveal, claims with the model's numbers.
pub fn ui(
    ui: &mut egui::Ui,
    l: &mut LessonState,
    pal: &Palette,
    present: bool,
    cmds: &mut Vec<Command>,
) {
    let n = l.lesson.steps.len();
    let step = l.lesson.steps[l.step].clone();
    // Presenting, the text is a quarter larger, unless the window is short in points already (1280×720 at 200 % is
    // 360 points high): there the zoom has made it large, and the extra quarter pushed the step's text below the fold.
    let short = ui.ctx().content_rect().height() < 400.0;
    let big = if present && !short { 1.25 } else { 1.0 };
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
        if ui
            .button(if present {
                "Leave presentation"
            } else {
                "Present"
            })
            .on_hover_text("Presentation mode: one large view and this text, the knob panel hidden")
            .clicked()
        {
            cmds.push(Command::Present(!present));
        }
        // Presenting, one way out (leave presentation first): the row stays one line at a projector's zoom.
        if !present && ui.button("Close lesson").clicked() {
            cmds.push(Command::CloseLesson);
        }
    });
    ui.separator();
    ui.label(egui::RichText::new(&step.title).strong().size(15.0 * big));
    ui.add_space(4.0);
    ui.label(egui::RichText::new(&step.text).size(14.0 * big));
    ui.add_space(8.0);
    let claims: Vec<CheckedClaim> = l.step_claims().into_iter().cloned().collect();
    let holds = |i: usize| {
        claims
            .iter()
            .find(|c| c.claim == i)
            .map(|c| c.outcome.holds)
    };
    if let Some(p) = &step.prediction {
        ui.group(|ui| {
            ui.label(
                egui::RichText::new(format!("What do you expect? {}", p.question)).size(14.0 * big),
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
            } else {
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
                // A clicker's PageDown reveals: the answer is brought into view, though at 1280×720 and 200 % the
                // question and its choices fill the panel (#19 item 5).
                if !l.answer_shown && !right.is_empty() {
                    r.scroll_to_me(None);
                    l.answer_shown = true;
                }
            }
        });
        ui.add_space(6.0);
    }
    let show_claims = step.prediction.is_none() || l.revealed;
    if show_claims && !step.claims.is_empty() {
        let on = if matches!(
            l.lesson.source_at(l.step),
            gclab_core::lesson::Source::Log(_)
        ) {
            "Measured on the log"
        } else {
            "Measured on the model"
        };
        ui.label(egui::RichText::new(on).weak());
        if claims.is_empty() && l.busy() {
            ui.horizontal_wrapped(|ui| {
                ui.spinner();
                ui.label("running the scenarios behind this step's numbers…");
            });
        }
        for c in &claims {
            if c.is_answer && !c.outcome.holds {
                continue;
            }
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
    }
    if !l.problems.is_empty() {
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
