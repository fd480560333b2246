//! Checked claims: a lesson's quantitative sentence as a comparison `left op factor × right` over the model's own
//! numbers. An operand is a metric of a run (the step's scenario with extra overrides) or of the step's GC log, or
//! a constant. Metrics are the run summary's fields by dotted path (`collections`, `energy_j.total`,
//! `max_pause_ms`, `collections_by_trigger.alloc`, …, as in `gclab run --json`) and `mmu@Wms`, the minimum mutator
//! utilisation at a window of W ms (one of the summary's windows); for a log: `max_pause_ms`, `pauses` and
//! `mmu@Wms` (exact, any window). An [`Evaluator`] caches runs, so the claims of a lesson cost one run per distinct
//! scenario.

use std::collections::HashMap;

use serde::Deserialize;

use super::{BUILTIN_LOGS, Lesson, Source};
use crate::importers::{Format, Imported, import_file, import_reader};
use crate::metrics::mmu::mmu_at;
use crate::progress::{Cancel, NoProgress};
use crate::run::Summary;
use crate::scenario::Scenario;
use crate::simulate;

/// One checked sentence.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The sentence as the class reads it.
    pub says: String,
    /// Left-hand side.
    pub left: Operand,
    /// Comparison.
    pub op: Op,
    /// Right-hand side (multiplied by `factor`).
    pub right: Operand,
    /// Multiplies the right-hand side ("saves at least 20 %": left < 0.8 × right).
    #[serde(default = "one")]
    pub factor: f64,
}

fn one() -> f64 {
    1.0
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Op {
    /// Less than.
    #[serde(rename = "<")]
    Lt,
    /// At most.
    #[serde(rename = "<=")]
    Le,
    /// Greater than.
    #[serde(rename = ">")]
    Gt,
    /// At least.
    #[serde(rename = ">=")]
    Ge,
}

impl Op {
    /// The symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Lt => "<",
            Op::Le => "≤",
            Op::Gt => ">",
            Op::Ge => "≥",
        }
    }

    fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Gt => a > b,
            Op::Ge => a >= b,
        }
    }
}

/// A side of a claim: a metric (of the step's scenario with `set` added, or of its log) or a constant `value`.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Operand {
    /// Metric name (see the module docs).
    #[serde(default)]
    pub metric: Option<String>,
    /// Extra overrides on the step's scenario for this side.
    #[serde(default)]
    pub set: Vec<String>,
    /// A constant instead of a metric.
    #[serde(default)]
    pub value: Option<f64>,
}

impl Operand {
    fn validate(&self) -> Result<(), String> {
        match (&self.metric, self.value) {
            (Some(_), Some(_)) => Err("give a metric or a value, not both".into()),
            (None, None) => Err("give a metric or a value".into()),
            (None, Some(v)) if !v.is_finite() => Err(format!("value must be finite, got {v}")),
            _ => Ok(()),
        }
    }

    /// A short description: `collections [collector.kind=base]` or the constant.
    pub fn describe(&self) -> String {
        match (&self.metric, self.value) {
            (Some(m), _) if self.set.is_empty() => m.clone(),
            (Some(m), _) => format!("{m} [{}]", self.set.join(", ")),
            (None, Some(v)) => format!("{v}"),
            (None, None) => "?".into(),
        }
    }
}

impl Claim {
    /// Checks the claim's shape (not its truth).
    pub fn validate(&self) -> Result<(), String> {
        self.left.validate().map_err(|m| format!("left: {m}"))?;
        self.right.validate().map_err(|m| format!("right: {m}"))?;
        if !(self.factor.is_finite() && self.factor > 0.0) {
            return Err(format!(
                "factor: expected a positive number, got {}",
                self.factor
            ));
        }
        Ok(())
    }
}

/// A claim evaluated on the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimOutcome {
    /// The sentence.
    pub says: String,
    /// The left-hand number.
    pub left: f64,
    /// The right-hand number, factor applied.
    pub right: f64,
    /// The comparison.
    pub op: Op,
    /// Whether the model shows it.
    pub holds: bool,
    /// Why it could not be evaluated (then `holds` is false).
    pub error: Option<String>,
}

impl ClaimOutcome {
    /// `✓ says (measured: 391 > 20)` or `✗ …`.
    pub fn line(&self) -> String {
        match &self.error {
            Some(e) => format!("✗ {} — not evaluated: {e}", self.says),
            None => format!(
                "{} {} (measured: {} {} {})",
                if self.holds { "✓" } else { "✗" },
                self.says,
                fmt_num(self.left),
                self.op.symbol(),
                fmt_num(self.right)
            ),
        }
    }
}

impl ClaimOutcome {
    /// How far the claim holds, relative to the larger of its two sides: positive when it holds (0.04 for
    /// "0.48 < 0.50"), negative when it does not, 0 on an exact tie; `None` when it could not be evaluated. A claim
    /// that holds by a few per cent can turn with the next calibration of the model it is checked against.
    pub fn margin(&self) -> Option<f64> {
        if self.error.is_some() || !(self.left.is_finite() && self.right.is_finite()) {
            return None;
        }
        let scale = self.left.abs().max(self.right.abs());
        if scale == 0.0 {
            return Some(0.0);
        }
        let d = match self.op {
            Op::Lt | Op::Le => self.right - self.left,
            Op::Gt | Op::Ge => self.left - self.right,
        };
        Some(d / scale)
    }
}

/// A number as a lesson shows it: four significant digits.
pub fn fmt_num(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if (1e-3..1e6).contains(&v.abs()) {
        let digits = (3 - v.abs().log10().floor().max(-3.0) as i32).clamp(0, 6) as usize;
        format!("{v:.digits$}")
    } else {
        format!("{v:.3e}")
    }
}

/// Evaluates claims, caching runs by scenario and overrides and logs by spec.
#[derive(Debug, Default)]
pub struct Evaluator {
    runs: HashMap<(String, Vec<String>), Summary>,
    logs: HashMap<String, Imported>,
}

impl Evaluator {
    /// The value of `op` under `src`.
    pub fn value(&mut self, src: &Source, op: &Operand) -> Result<f64, String> {
        if let Some(v) = op.value {
            return Ok(v);
        }
        let metric = op.metric.as_deref().unwrap_or_default();
        match src {
            Source::Scenario { spec, set } => {
                let mut all = set.clone();
                all.extend(op.set.iter().cloned());
                let s = self.summary(spec, &all)?;
                summary_metric(s, metric)
            }
            Source::Log(spec) => {
                if !op.set.is_empty() {
                    return Err("`set` applies to scenarios, not to a log".into());
                }
                let imported = self.log(spec)?;
                log_metric(imported, metric)
            }
        }
    }

    fn summary(&mut self, spec: &str, set: &[String]) -> Result<&Summary, String> {
        let key = (spec.to_string(), set.to_vec());
        if !self.runs.contains_key(&key) {
            let sc = Scenario::load(spec, set).map_err(|e| e.to_string())?;
            let run =
                simulate(&sc, &Cancel::never(), &mut NoProgress).map_err(|e| e.to_string())?;
            self.runs.insert(key.clone(), run.summary);
        }
        self.runs
            .get(&key)
            .ok_or_else(|| "run not cached".to_string())
    }

    fn log(&mut self, spec: &str) -> Result<&Imported, String> {
        if !self.logs.contains_key(spec) {
            let imported = match spec.strip_prefix("builtin:") {
                Some(name) => {
                    let (_, bytes) = BUILTIN_LOGS
                        .iter()
                        .find(|(n, _)| *n == name)
                        .ok_or_else(|| format!("no built-in log {name:?}"))?;
                    let src = crate::trace::reader::decompressed(name, Box::new(*bytes))
                        .map_err(|e| e.message)?;
                    import_reader(name, std::io::BufReader::new(src), Format::Auto)
                        .map_err(|e| e.to_string())?
                        .1
                }
                None => {
                    import_file(std::path::Path::new(spec), Format::Auto)
                        .map_err(|e| e.to_string())?
                        .1
                }
            };
            self.logs.insert(spec.to_string(), imported);
        }
        self.logs
            .get(spec)
            .ok_or_else(|| "log not cached".to_string())
    }

    /// The imported log behind `spec` (`builtin:NAME` or a path), read once.
    pub fn imported_log(&mut self, spec: &str) -> Result<&Imported, String> {
        self.log(spec)
    }
}

/// `mmu@10ms` → 10.0.
fn mmu_window_ms(metric: &str) -> Option<Result<f64, String>> {
    let w = metric.strip_prefix("mmu@")?;
    Some(
        w.strip_suffix("ms")
            .and_then(|n| n.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(|| format!("{metric}: expected mmu@Wms with W > 0, e.g. mmu@10ms")),
    )
}

/// Summary maps whose absent keys mean zero.
const COUNTED_BY_KEY: [&str; 3] = [
    "collections_by_trigger",
    "pauses_by_kind",
    "time_at_frequency_s",
];

/// A summary metric by name.
pub fn summary_metric(s: &Summary, metric: &str) -> Result<f64, String> {
    if let Some(w) = mmu_window_ms(metric) {
        let w = w?;
        return s
            .mmu
            .iter()
            .find(|p| (p.window_ms - w).abs() <= 1e-9 * w.max(1.0))
            .map(|p| p.utilization)
            .ok_or_else(|| {
                let have: Vec<String> = s.mmu.iter().map(|p| fmt_num(p.window_ms)).collect();
                format!(
                    "{metric}: the run's MinMU windows are {} ms",
                    have.join(", ")
                )
            });
    }
    let v = serde_json::to_value(s).map_err(|e| e.to_string())?;
    let mut at = &v;
    for part in metric.split('.') {
        match at.get(part) {
            Some(next) => at = next,
            // A count or time keyed by kind (`pauses_by_kind.foreground`) is absent when zero.
            None if COUNTED_BY_KEY
                .iter()
                .any(|m| metric.starts_with(&format!("{m}.")))
                && metric.split('.').count() == 2 =>
            {
                return Ok(0.0);
            }
            None => {
                return Err(format!(
                    "{metric}: no such summary field (see `gclab run --json`)"
                ));
            }
        }
    }
    match at {
        serde_json::Value::Number(n) => n.as_f64().ok_or_else(|| format!("{metric}: not a number")),
        serde_json::Value::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        serde_json::Value::Null => Ok(0.0),
        _ => Err(format!("{metric}: not a number")),
    }
}

/// A log metric by name: `max_pause_ms`, `pauses`, `mmu@Wms`.
pub fn log_metric(imported: &Imported, metric: &str) -> Result<f64, String> {
    let span = imported.default_span_ns();
    if let Some(w) = mmu_window_ms(metric) {
        let w_ns = (w? * 1e6).round() as u64;
        return Ok(mmu_at(&imported.util_series(span), w_ns).utilization);
    }
    let st = imported.pause_stats(span);
    match metric {
        "max_pause_ms" => Ok(st.max_pause_ns as f64 * 1e-6),
        "pauses" => Ok(st.pauses as f64),
        other => Err(format!(
            "{other}: a log has max_pause_ms, pauses and mmu@Wms"
        )),
    }
}

/// Evaluates the claims of step `i` (`0`-based) of `lesson`.
pub fn evaluate_step(lesson: &Lesson, i: usize, ev: &mut Evaluator) -> Vec<ClaimOutcome> {
    let Some(step) = lesson.steps.get(i) else {
        return Vec::new();
    };
    let src = lesson.source_at(i);
    step.claims
        .iter()
        .map(|c| {
            let l = ev.value(&src, &c.left);
            let r = ev.value(&src, &c.right).map(|v| v * c.factor);
            match (l, r) {
                (Ok(l), Ok(r)) => ClaimOutcome {
                    says: c.says.clone(),
                    left: l,
                    right: r,
                    op: c.op,
                    holds: c.op.holds(l, r),
                    error: None,
                },
                (Err(e), _) | (_, Err(e)) => ClaimOutcome {
                    says: c.says.clone(),
                    left: f64::NAN,
                    right: f64::NAN,
                    op: c.op,
                    holds: false,
                    error: Some(e),
                },
            }
        })
        .collect()
}

/// One claim of a lesson as checked: its step, its outcome, and whether it is an answer to a prediction (those
/// are alternatives: the model decides which holds, and at least one of a prediction's must).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedClaim {
    /// 0-based step.
    pub step: usize,
    /// 0-based claim within the step.
    pub claim: usize,
    /// What the model gives.
    pub outcome: ClaimOutcome,
    /// The claim is a prediction choice's answer.
    pub is_answer: bool,
}

/// Every claim of `lesson`, evaluated, and the problems: a claim that does not hold, a claim that could not be
/// evaluated, or a prediction none of whose answers holds.
pub fn check_lesson(lesson: &Lesson, ev: &mut Evaluator) -> (Vec<CheckedClaim>, Vec<String>) {
    let mut all = Vec::new();
    let mut problems = Vec::new();
    for (i, step) in lesson.steps.iter().enumerate() {
        let answers: Vec<usize> = step
            .prediction
            .iter()
            .flat_map(|p| p.choices.iter().map(|c| c.claim))
            .collect();
        let outcomes = evaluate_step(lesson, i, ev);
        for (c, o) in outcomes.iter().enumerate() {
            let is_answer = answers.contains(&c);
            if let Some(e) = &o.error {
                problems.push(format!(
                    "{} step {}: \"{}\" not evaluated: {e}",
                    lesson.id,
                    i + 1,
                    o.says
                ));
            } else if !is_answer && !o.holds {
                problems.push(format!(
                    "{} step {}: \"{}\" does not hold ({})",
                    lesson.id,
                    i + 1,
                    o.says,
                    o.line()
                ));
            }
        }
        if !answers.is_empty()
            && !answers
                .iter()
                .any(|a| outcomes.get(*a).is_some_and(|o| o.holds))
        {
            problems.push(format!(
                "{} step {}: no answer to the prediction holds",
                lesson.id,
                i + 1
            ));
        }
        all.extend(
            outcomes
                .into_iter()
                .enumerate()
                .map(|(c, outcome)| CheckedClaim {
                    step: i,
                    claim: c,
                    outcome,
                    is_answer: answers.contains(&c),
                }),
        );
    }
    (all, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson(claims: &str) -> Lesson {
        Lesson::parse(
            &format!(
                "id = \"t\"\ntitle = \"t\"\n[[steps]]\ntitle = \"s\"\ntext = \"x\"\nscenario = \"preset:kvm/calculator\"\n{claims}"
            ),
            "t.toml",
        )
        .expect("test lesson parses")
    }

    #[test]
    fn a_true_claim_holds_and_its_negation_fails() {
        let l = lesson(
            "[[steps.claims]]\nsays = \"k = 10 collects more often than base\"\nleft = { metric = \"collections\", set = [\"collector.kind=k-allocation\", \"collector.k=10\"] }\nop = \">\"\nright = { metric = \"collections\", set = [\"collector.kind=base\"] }\n\
             [[steps.claims]]\nsays = \"k = 10 collects less often than base\"\nleft = { metric = \"collections\", set = [\"collector.kind=k-allocation\", \"collector.k=10\"] }\nop = \"<\"\nright = { metric = \"collections\", set = [\"collector.kind=base\"] }\n",
        );
        let mut ev = Evaluator::default();
        let out = evaluate_step(&l, 0, &mut ev);
        assert!(out[0].holds, "{}", out[0].line());
        assert!(!out[1].holds, "{}", out[1].line());
        assert!(
            out[0].left > 100.0,
            "k = 10 on Calculator collects ~104 times"
        );
        assert_eq!(ev.runs.len(), 2, "two distinct runs, each simulated once");
    }

    #[test]
    fn unknown_metrics_are_named() {
        let l = lesson(
            "[[steps.claims]]\nsays = \"x\"\nleft = { metric = \"energy_j.nope\" }\nop = \">\"\nright = { value = 0 }\n",
        );
        let out = evaluate_step(&l, 0, &mut Evaluator::default());
        let e = out[0].error.clone().unwrap_or_default();
        assert!(e.contains("energy_j.nope"), "{e}");
        assert!(!out[0].holds, "an unevaluated claim does not hold");
    }

    #[test]
    fn a_claims_margin_is_how_far_it_holds_relative_to_its_larger_side() {
        let c = |left: f64, op: Op, right: f64| ClaimOutcome {
            says: String::new(),
            left,
            right,
            op,
            holds: op.holds(left, right),
            error: None,
        };
        let m = |c: ClaimOutcome| c.margin().expect("evaluated");
        assert!(
            (m(c(0.48, Op::Lt, 0.50)) - 0.04).abs() < 1e-12,
            "0.48 < 0.50 holds by 4 %"
        );
        assert!(
            (m(c(0.50, Op::Gt, 0.48)) - 0.04).abs() < 1e-12,
            "0.50 > 0.48 the same"
        );
        assert!(
            m(c(0.52, Op::Lt, 0.50)) < 0.0,
            "a claim that fails has a negative margin"
        );
        assert_eq!(m(c(0.0, Op::Le, 0.0)), 0.0, "a tie");
        assert!(
            (m(c(-2.0, Op::Lt, 2.0)) - 2.0).abs() < 1e-12,
            "signs: measured from the larger magnitude"
        );
        let broken = ClaimOutcome {
            error: Some("no such metric".into()),
            ..c(1.0, Op::Lt, 2.0)
        };
        assert_eq!(broken.margin(), None, "an unevaluated claim has none");
    }

    #[test]
    fn numbers_read_as_a_class_reads_them() {
        assert_eq!(fmt_num(391.0), "391.0");
        assert_eq!(fmt_num(0.0542), "0.05420");
        assert_eq!(fmt_num(12.346), "12.35");
    }
}
