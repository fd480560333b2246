//! Sweeps: the cartesian product of `--vary KEY=V1,V2,…` lists. Pure — the caller runs the points (the CLI on
//! its cores, or a scheduler's array of tasks); the results do not depend on the order, the threads or the machine.
//!
//! Every point has an **index** in `0..len`, in row-major order (the last `--vary` varies fastest), and
//! [`SweepAxes::point_set`] turns an index into its settings on demand — the one way points are enumerated, used by
//! the one-machine sweep and by a [`plan::SweepPlan`] alike, so 10⁶ points never sit in memory at once.
//!
//! The distributed form: [`plan`] (the plan file naming the scenario, overrides and ordered points), [`point`]
//! (one result file per point, written atomically), [`merge`] (streams the point files in index order into the
//! same `{"runs": [...]}` JSON as the one-machine sweep, or CSV) and [`pareto`] (the non-dominated frontier).

pub mod error;
pub mod merge;
pub mod pareto;
pub mod plan;
pub mod point;

use toml::Value;

pub use error::SweepError;
pub use plan::SweepPlan;

use crate::error::ScenarioError;
use crate::scenario::Scenario;
use crate::scenario::toml_util::parse_override_value;

/// Most points a sweep may have (a plan lists every point; 10⁸ lines is already a 5 GB file).
pub const MAX_POINTS: u64 = 100_000_000;

/// One point of a sweep: the settings that make it, and its scenario.
#[derive(Debug, Clone)]
pub struct SweepPoint {
    /// `(key, value)` pairs, in the order of the `--vary` arguments.
    pub set: Vec<(String, Value)>,
    /// The scenario with them applied.
    pub scenario: Scenario,
}

/// Splits one `KEY=V1,V2,...` argument into the key and the value texts. Values split on commas outside brackets
/// and quotes; each text is what `--set KEY=TEXT` would take.
pub fn split_vary(arg: &str) -> Result<(String, Vec<String>), ScenarioError> {
    let bad = |m: &str| ScenarioError::BadOverride {
        arg: arg.to_string(),
        message: m.to_string(),
    };
    let (k, vs) = arg
        .split_once('=')
        .ok_or_else(|| bad("--vary expects KEY=V1,V2,..."))?;
    let mut values = Vec::new();
    let (mut depth, mut quoted, mut cur) = (0i32, false, String::new());
    for ch in vs.chars() {
        match ch {
            '"' => quoted = !quoted,
            '[' if !quoted => depth += 1,
            ']' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                values.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        values.push(cur.trim().to_string());
    }
    if values.is_empty() || k.trim().is_empty() {
        return Err(bad("--vary expects KEY=V1,V2,... with at least one value"));
    }
    Ok((k.trim().to_string(), values))
}

/// Parses one `KEY=V1,V2,...` argument into the key and its typed values.
pub fn parse_vary(arg: &str) -> Result<(String, Vec<Value>), ScenarioError> {
    let (k, texts) = split_vary(arg)?;
    Ok((k, texts.iter().map(|t| parse_override_value(t)).collect()))
}

/// The axes of a sweep: keys and their values, in `--vary` order. Point `i` is the mixed-radix digits of `i`
/// with the last axis as the least significant digit.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepAxes {
    axes: Vec<(String, Vec<Value>)>,
    len: u64,
}

impl SweepAxes {
    /// The axes `varies` (at least one, each with at least one value, at most [`MAX_POINTS`] points).
    pub fn new(varies: Vec<(String, Vec<Value>)>) -> Result<SweepAxes, ScenarioError> {
        let bad = |m: String| ScenarioError::BadOverride {
            arg: "--vary".into(),
            message: m,
        };
        if varies.is_empty() {
            return Err(bad("expected at least one --vary KEY=V1,V2,...".into()));
        }
        let mut len: u64 = 1;
        for (k, vs) in &varies {
            if vs.is_empty() {
                return Err(bad(format!("`{k}` has no values")));
            }
            len = len
                .checked_mul(vs.len() as u64)
                .filter(|n| *n <= MAX_POINTS)
                .ok_or_else(|| bad(format!("more than {MAX_POINTS} points")))?;
        }
        Ok(SweepAxes { axes: varies, len })
    }

    /// Number of points. `[points]`
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Never true (an axis has at least one value); for clippy's `len_without_is_empty`.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The keys and values, in `--vary` order.
    pub fn axes(&self) -> &[(String, Vec<Value>)] {
        &self.axes
    }

    /// The settings of point `index` (`index < len`), in `--vary` order.
    pub fn point_set(&self, index: u64) -> Vec<(String, Value)> {
        let mut rest = index;
        let mut set: Vec<(String, Value)> = Vec::with_capacity(self.axes.len());
        for (k, vs) in self.axes.iter().rev() {
            let n = vs.len() as u64;
            let digit = usize::try_from(rest % n).unwrap_or(0);
            rest /= n;
            set.push((k.clone(), vs[digit].clone()));
        }
        set.reverse();
        set
    }

    /// The settings of point `index` as the JSON object the sweep output prints (keys sorted).
    pub fn point_set_json(&self, index: u64) -> serde_json::Map<String, serde_json::Value> {
        set_json(&self.point_set(index))
    }
}

/// `set` as the JSON object of a sweep row: `{"KEY": VALUE}`, keys sorted, a value JSON cannot hold as `null`.
pub fn set_json(set: &[(String, Value)]) -> serde_json::Map<String, serde_json::Value> {
    set.iter()
        .map(|(k, v)| {
            (
                k.clone(),
                serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
            )
        })
        .collect()
}

/// Every combination of the `varies`, in row-major order (the last key varies fastest), each validated.
pub fn expand(
    base: &Scenario,
    varies: &[(String, Vec<Value>)],
) -> Result<Vec<SweepPoint>, ScenarioError> {
    let axes = SweepAxes::new(varies.to_vec())?;
    (0..axes.len())
        .map(|i| {
            let set = axes.point_set(i);
            Ok(SweepPoint {
                scenario: base.with_overrides(&set)?,
                set,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_row_major_with_the_last_axis_fastest() {
        let axes = SweepAxes::new(vec![
            ("a".into(), vec![Value::Integer(1), Value::Integer(2)]),
            (
                "b".into(),
                vec![Value::from("x"), Value::from("y"), Value::from("z")],
            ),
        ])
        .unwrap();
        assert_eq!(axes.len(), 6, "2 × 3 points");
        let names: Vec<String> = (0..6)
            .map(|i| {
                let s = axes.point_set(i);
                format!("{}{}", s[0].1, s[1].1.as_str().unwrap())
            })
            .collect();
        assert_eq!(
            names,
            ["1x", "1y", "1z", "2x", "2y", "2z"],
            "mixed radix, last axis least significant"
        );
    }

    #[test]
    fn split_keeps_brackets_and_quotes_together() {
        let (k, v) = split_vary(r#"x=[1,2],"a,b",3"#).unwrap();
        assert_eq!(k, "x", "key");
        assert_eq!(v, ["[1,2]", "\"a,b\"", "3"], "three values");
        assert!(split_vary("x=").is_err(), "no value");
        assert!(split_vary("novalue").is_err(), "no =");
    }

    #[test]
    fn too_many_points_is_an_error() {
        let ten: Vec<Value> = (0..10).map(Value::Integer).collect();
        let axes: Vec<(String, Vec<Value>)> =
            (0..9).map(|i| (format!("k{i}"), ten.clone())).collect();
        assert!(
            SweepAxes::new(axes).is_err(),
            "10⁹ points exceed MAX_POINTS"
        );
    }
}
