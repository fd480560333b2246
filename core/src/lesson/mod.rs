//! Lessons as data (issue #19): a lesson is a TOML file — a title, then steps a teacher walks a class through. A
//! step sets a scenario (a preset or a file, with `--set`-style overrides) or opens a GC log, picks the view, the
//! playhead or a time range and highlights, shows a short text, may ask the class to predict before *Reveal*, and
//! carries **claims**: every quantitative sentence it shows is a comparison over the model's own numbers
//! ([`claims`]), evaluated by `gclab lesson check` and shown beside the text in the app, so a lesson can never say
//! what the model does not show.
//!
//! The built-in lessons are `assets/lessons/*.toml`, embedded in the binary ([`builtin`]); a teacher's own lesson
//! file opens the same way ([`Lesson::load`]).

pub mod claims;

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use claims::{CheckedClaim, ClaimOutcome, Evaluator, Operand, check_lesson, evaluate_step};

/// The views a step may show (the app's `GCLAB_VIEW` names).
pub const VIEWS: [&str; 7] = [
    "overview", "layout", "mmu", "energy", "cpu", "sweep", "tradeoff",
];

/// A lesson: a title and its steps.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    /// Short id (`gclab lesson check ID`), lowercase with dashes.
    pub id: String,
    /// Title shown at the top.
    pub title: String,
    /// How long it takes in class. `[min]`
    #[serde(default)]
    pub minutes: Option<u32>,
    /// One paragraph: what the class learns.
    #[serde(default)]
    pub summary: String,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Where it came from (`builtin:ID` or the file's path); relative paths in steps resolve against its folder.
    #[serde(skip)]
    pub origin: String,
}

/// One step of a lesson.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Heading of the step.
    pub title: String,
    /// What the teacher says (a short paragraph).
    pub text: String,
    /// The scenario: `preset:NAME` or a TOML path (relative to the lesson file). Absent with `log`: the previous
    /// step's scenario stays.
    #[serde(default)]
    pub scenario: Option<String>,
    /// `--set` overrides on the scenario (`collector.kind=adaptive`).
    #[serde(default)]
    pub set: Vec<String>,
    /// A GC log to open instead of a scenario: `builtin:NAME` (an embedded log) or a path.
    #[serde(default)]
    pub log: Option<String>,
    /// The view to show ([`VIEWS`]).
    #[serde(default)]
    pub view: Option<String>,
    /// Where the playhead goes. `[ms]`
    #[serde(default)]
    pub playhead_ms: Option<f64>,
    /// The time range to show. `[ms]`
    #[serde(default)]
    pub time_range_ms: Option<[f64; 2]>,
    /// What to point at.
    #[serde(default)]
    pub highlight: Vec<Highlight>,
    /// A question the class answers before *Reveal*.
    #[serde(default)]
    pub prediction: Option<Prediction>,
    /// The quantitative sentences of this step, each checked against the model.
    #[serde(default)]
    pub claims: Vec<claims::Claim>,
}

/// Something a step points at.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Highlight {
    /// A span of time. `[ms]`
    TimeSpan {
        /// Start. `[ms]`
        from_ms: f64,
        /// End. `[ms]`
        to_ms: f64,
    },
    /// A range of heap addresses. `[KiB]`
    AddressRange {
        /// Start. `[KiB]`
        from_kib: f64,
        /// End. `[KiB]`
        to_kib: f64,
    },
    /// One memory bank (0-based).
    Bank {
        /// Bank index.
        bank: u32,
    },
    /// One collection (0-based, in time order).
    Collection {
        /// Collection index.
        index: u32,
    },
    /// A MinMU window length. `[ms]`
    MmuWindow {
        /// Window. `[ms]`
        window_ms: f64,
    },
}

/// A question asked before *Reveal*: choices, each right when its claim holds, or a number to estimate.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prediction {
    /// The question.
    pub question: String,
    /// The choices; a choice is right when the claim it names holds (the model decides, not the file).
    #[serde(default)]
    pub choices: Vec<Choice>,
    /// A number the class estimates; *Reveal* shows the model's.
    #[serde(default)]
    pub estimate: Option<Estimate>,
}

/// One answer to a [`Prediction`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    /// What the class may answer.
    pub text: String,
    /// Index of the step's claim that makes this choice right.
    pub claim: usize,
}

/// A number to estimate.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    /// The model's number.
    pub of: Operand,
    /// Its unit, as shown.
    #[serde(default)]
    pub unit: String,
}

/// A lesson file that could not be used: which file, where, and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct LessonError {
    /// The lesson's file or `builtin:ID`.
    pub origin: String,
    /// What is wrong, naming the field.
    pub message: String,
}

/// The embedded lessons' sources: (id, TOML).
const BUILTIN: [(&str, &str); 7] = [
    (
        "cost-of-a-collection",
        include_str!("../../../assets/lessons/cost-of-a-collection.toml"),
    ),
    (
        "heap-size-trade-off",
        include_str!("../../../assets/lessons/heap-size-trade-off.toml"),
    ),
    (
        "gated-banks-adaptive",
        include_str!("../../../assets/lessons/gated-banks-adaptive.toml"),
    ),
    (
        "governors-and-memory-bound-gc",
        include_str!("../../../assets/lessons/governors-and-memory-bound-gc.toml"),
    ),
    (
        "concurrent-gc-design",
        include_str!("../../../assets/lessons/concurrent-gc-design.toml"),
    ),
    (
        "reading-a-gc-log",
        include_str!("../../../assets/lessons/reading-a-gc-log.toml"),
    ),
    (
        "time-to-safepoint",
        include_str!("../../../assets/lessons/time-to-safepoint.toml"),
    ),
];

/// Embedded GC logs a lesson may open as `builtin:NAME`: (name, gzip bytes).
pub const BUILTIN_LOGS: [(&str, &[u8]); 1] = [(
    "javac-g1.log.gz",
    include_bytes!("../../../assets/logs/javac-g1.log.gz"),
)];

/// The ids of the built-in lessons, in teaching order.
pub fn builtin_ids() -> Vec<&'static str> {
    BUILTIN.iter().map(|(id, _)| *id).collect()
}

/// (id, title) of every built-in lesson that parses, read once (the app's menu lists them every frame it is open).
pub fn builtin_titles() -> &'static [(&'static str, String)] {
    static TITLES: std::sync::OnceLock<Vec<(&'static str, String)>> = std::sync::OnceLock::new();
    TITLES.get_or_init(|| {
        BUILTIN
            .iter()
            .filter_map(|(id, text)| {
                Lesson::parse(text, &format!("builtin:{id}"))
                    .ok()
                    .map(|l| (*id, l.title))
            })
            .collect()
    })
}

/// Every built-in lesson, parsed and validated.
pub fn builtin() -> Result<Vec<Lesson>, LessonError> {
    BUILTIN
        .iter()
        .map(|(id, text)| Lesson::parse(text, &format!("builtin:{id}")))
        .collect()
}

/// Most bytes of a `.toml` file read to tell a lesson from a scenario. `[bytes]`
const SNIFF_BYTES: u64 = 1 << 20;

/// True when the file at `path` is a lesson, not a scenario: a `.toml` name and a `[[steps]]` table in its first
/// [`SNIFF_BYTES`] (no scenario has steps). Decided on the text, not on a full parse, so a lesson with a mistake
/// is still told a lesson and its error names the lesson's field, not a scenario's ("unknown field `id`").
/// What `gclab open` and the app's *Open…* ask before treating a `.toml` as a scenario.
pub fn is_lesson_file(path: &Path) -> bool {
    use std::io::Read as _;
    if !crate::input::is_scenario_path(path) || !path.is_file() {
        return false;
    }
    let mut head = String::new();
    let read = std::fs::File::open(path)
        .and_then(|f| f.take(SNIFF_BYTES).read_to_string(&mut head))
        .is_ok();
    read && head.lines().any(|l| {
        let l = l.trim();
        l.starts_with("[[steps]]") || l.starts_with("[[ steps ]]")
    })
}

impl Lesson {
    /// A built-in lesson by id, or a lesson file by path.
    pub fn load(spec: &str) -> Result<Lesson, LessonError> {
        if let Some((id, text)) = BUILTIN.iter().find(|(id, _)| *id == spec) {
            return Lesson::parse(text, &format!("builtin:{id}"));
        }
        let path = Path::new(spec);
        if !path.is_file() {
            return Err(LessonError {
                origin: spec.to_string(),
                message: format!(
                    "not a built-in lesson ({}) nor a lesson file",
                    builtin_ids().join(", ")
                ),
            });
        }
        let text = std::fs::read_to_string(path).map_err(|e| LessonError {
            origin: spec.to_string(),
            message: format!("cannot read: {e}"),
        })?;
        Lesson::parse(&text, spec)
    }

    /// Parses and validates lesson TOML; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Lesson, LessonError> {
        let err = |message: String| LessonError {
            origin: origin.to_string(),
            message,
        };
        let mut lesson: Lesson = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| {
                    format!(
                        "line {}: ",
                        text.get(..s.start).unwrap_or(text).matches('\n').count() + 1
                    )
                })
                .unwrap_or_default();
            err(format!("{at}{}", e.message()))
        })?;
        lesson.origin = origin.to_string();
        if lesson.id.is_empty()
            || !lesson
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(err(format!(
                "id: expected lowercase letters, digits and dashes, got {:?}",
                lesson.id
            )));
        }
        if lesson.steps.is_empty() {
            return Err(err("steps: a lesson needs at least one step".into()));
        }
        let mut has_source = false;
        for (i, s) in lesson.steps.iter().enumerate() {
            let at = |field: &str| format!("steps[{i}].{field}");
            if s.scenario.is_some() && s.log.is_some() {
                return Err(err(format!(
                    "{}: a step shows a scenario or a log, not both",
                    at("log")
                )));
            }
            has_source |= s.scenario.is_some() || s.log.is_some();
            if !has_source {
                return Err(err(format!(
                    "{}: the first step must set a scenario or a log",
                    at("scenario")
                )));
            }
            if let Some(v) = &s.view
                && !VIEWS.contains(&v.as_str())
            {
                return Err(err(format!(
                    "{}: expected one of {}, got {v:?}",
                    at("view"),
                    VIEWS.join(", ")
                )));
            }
            if let Some([a, b]) = s.time_range_ms
                && !(a.is_finite() && b.is_finite() && 0.0 <= a && a < b)
            {
                return Err(err(format!(
                    "{}: expected [from, to] with 0 ≤ from < to, got [{a}, {b}]",
                    at("time_range_ms")
                )));
            }
            if let Some(p) = &s.prediction {
                if p.choices.is_empty() == p.estimate.is_none() {
                    return Err(err(format!(
                        "{}: give either choices or an estimate",
                        at("prediction")
                    )));
                }
                for (c, ch) in p.choices.iter().enumerate() {
                    if ch.claim >= s.claims.len() {
                        return Err(err(format!(
                            "{}: choice {c} names claim {} but the step has {} claims",
                            at("prediction.choices"),
                            ch.claim,
                            s.claims.len()
                        )));
                    }
                }
            }
            for (c, claim) in s.claims.iter().enumerate() {
                claim
                    .validate()
                    .map_err(|m| err(format!("{}: {m}", at(&format!("claims[{c}]")))))?;
            }
        }
        Ok(lesson)
    }

    /// The folder relative scenario and log paths resolve against (none for built-in lessons).
    pub fn base_dir(&self) -> Option<PathBuf> {
        if self.origin.starts_with("builtin:") {
            return None;
        }
        Path::new(&self.origin).parent().map(Path::to_path_buf)
    }

    /// The scenario spec and log spec in force at step `i` (a step without either keeps the previous one's), with
    /// relative file paths resolved against the lesson's folder.
    pub fn source_at(&self, i: usize) -> Source {
        let mut src = Source::Scenario {
            spec: String::new(),
            set: Vec::new(),
        };
        for s in self.steps.iter().take(i + 1) {
            if let Some(sc) = &s.scenario {
                src = Source::Scenario {
                    spec: self.resolve(sc),
                    set: s.set.clone(),
                };
            } else if let Some(l) = &s.log {
                src = Source::Log(self.resolve(l));
            } else if let Source::Scenario { set, .. } = &mut src
                && !s.set.is_empty()
            {
                *set = s.set.clone();
            }
        }
        src
    }

    fn resolve(&self, spec: &str) -> String {
        if spec.starts_with("preset:")
            || spec.starts_with("builtin:")
            || Path::new(spec).is_absolute()
        {
            return spec.to_string();
        }
        match self.base_dir() {
            Some(d) => d.join(spec).display().to_string(),
            None => spec.to_string(),
        }
    }
}

/// What a step shows: a scenario with overrides, or a GC log.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// `preset:NAME` or a path, and the overrides.
    Scenario {
        /// The scenario spec.
        spec: String,
        /// Its overrides.
        set: Vec<String>,
    },
    /// `builtin:NAME` or a path.
    Log(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_lesson_parses() {
        let all = builtin().expect("built-in lessons parse");
        assert_eq!(all.len(), BUILTIN.len(), "one lesson per file");
        for l in &all {
            assert_eq!(
                l.origin,
                format!("builtin:{}", l.id),
                "the file's id matches its name"
            );
            assert!(l.steps.len() >= 3, "{}: a lesson of several steps", l.id);
        }
    }

    #[test]
    fn a_copied_lesson_file_is_told_from_a_scenario() {
        let dir = std::env::temp_dir().join(format!("gclab-lesson-sniff-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let lesson = dir.join("mylesson.toml");
        std::fs::write(&lesson, BUILTIN[0].1).expect("write lesson");
        assert!(is_lesson_file(&lesson), "a copy of a built-in lesson");
        let scenario = dir.join("scenario.toml");
        std::fs::write(
            &scenario,
            "[workload]\nkind = \"synthetic\"\n# steps are not [[steps]] here\n",
        )
        .expect("write scenario");
        assert!(!is_lesson_file(&scenario), "a scenario has no [[steps]]");
        let renamed = dir.join("lesson.txt");
        std::fs::write(&renamed, BUILTIN[0].1).expect("write");
        assert!(!is_lesson_file(&renamed), "only a .toml name is a lesson");
        assert!(
            !is_lesson_file(&dir.join("absent.toml")),
            "no file, no lesson"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_lessons_name_the_field() {
        let e = Lesson::parse("id = \"x\"\ntitle = \"t\"\nsteps = []\n", "f.toml")
            .expect_err("no steps");
        assert!(e.to_string().contains("steps"), "{e}");
        let e = Lesson::parse(
            "id = \"x\"\ntitle = \"t\"\n[[steps]]\ntitle = \"a\"\ntext = \"b\"\nscenario = \"preset:default\"\nview = \"pie\"\n",
            "f.toml",
        )
        .expect_err("bad view");
        assert!(e.to_string().contains("steps[0].view"), "{e}");
        let e = Lesson::parse("id = \"x\"\ntitle = \"t\"\nbogus = 1\n", "f.toml")
            .expect_err("unknown field");
        assert!(e.to_string().starts_with("f.toml: line 3"), "{e}");
    }
}
