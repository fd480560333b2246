//! `gclab lesson list | check [ID|FILE]... | show ID|FILE`: the built-in lessons (issue #19) from the command line.
//! `check` evaluates every claim of every step against the model and exits 1 naming each claim that fails — the
//! test suite runs it, so a lesson can never say what the model does not show.

use std::io::Write;

use gclab_core::lesson::{CheckedClaim, Evaluator, Lesson, builtin_ids, check_lesson};

use super::CliError;
use super::command::LessonCommand;

/// Runs `gclab lesson …`.
pub fn lesson(l: LessonCommand) -> Result<(), CliError> {
    match l {
        LessonCommand::List => {
            let mut out = std::io::stdout().lock();
            for id in builtin_ids() {
                writeln!(out, "{id}").map_err(|e| CliError::other(e.to_string()))?;
            }
            Ok(())
        }
        LessonCommand::Check { lessons } => check(&lessons),
        LessonCommand::Show { lesson } => show(&lesson),
    }
}

fn load(spec: &str) -> Result<Lesson, CliError> {
    Lesson::load(spec).map_err(|e| CliError::input(e.to_string()))
}

fn check(specs: &[String]) -> Result<(), CliError> {
    let specs: Vec<String> = if specs.is_empty() {
        builtin_ids().into_iter().map(String::from).collect()
    } else {
        specs.to_vec()
    };
    let lessons = specs
        .iter()
        .map(|s| load(s))
        .collect::<Result<Vec<_>, _>>()?;
    let results = crate::parallel::map_on_cores(&lessons, "lesson", |l| {
        check_lesson(l, &mut Evaluator::default())
    });
    let mut out = std::io::stdout().lock();
    let w = |e: std::io::Error| CliError::other(e.to_string());
    let mut problems = Vec::new();
    let mut claims = 0;
    for (l, r) in lessons.iter().zip(results) {
        let (checked, p): (Vec<CheckedClaim>, Vec<String>) =
            r.ok_or_else(|| CliError::other("a lesson worker panicked"))?;
        writeln!(out, "{} — {}", l.id, l.title).map_err(w)?;
        for c in &checked {
            claims += 1;
            let tag = if c.is_answer { " (answer)" } else { "" };
            writeln!(out, "  step {}: {}{tag}", c.step + 1, c.outcome.line()).map_err(w)?;
        }
        problems.extend(p);
    }
    writeln!(
        out,
        "lessons: {} passed, {} failed",
        claims - problems.len().min(claims),
        problems.len()
    )
    .map_err(w)?;
    if problems.is_empty() {
        Ok(())
    } else {
        Err(CliError::other(format!(
            "lesson check: {}",
            problems.join("; ")
        )))
    }
}

fn show(spec: &str) -> Result<(), CliError> {
    let l = load(spec)?;
    let mut out = std::io::stdout().lock();
    let w = |e: std::io::Error| CliError::other(e.to_string());
    writeln!(out, "{} ({})", l.title, l.id).map_err(w)?;
    if !l.summary.is_empty() {
        writeln!(out, "{}", l.summary).map_err(w)?;
    }
    for (i, s) in l.steps.iter().enumerate() {
        writeln!(out, "\n{}. {}\n{}", i + 1, s.title, s.text).map_err(w)?;
        if let Some(p) = &s.prediction {
            writeln!(out, "   Predict: {}", p.question).map_err(w)?;
            for c in &p.choices {
                writeln!(out, "   - {}", c.text).map_err(w)?;
            }
        }
        for c in &s.claims {
            writeln!(out, "   claim: {}", c.says).map_err(w)?;
        }
    }
    Ok(())
}
