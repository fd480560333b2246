//! Sweeps: the cartesian product of `--vary KEY=V1,V2,…` lists, as scenarios with their settings. Pure — the
//! caller runs them (the CLI in parallel; the results do not depend on the order or the threads).

use toml::Value;

use crate::error::ScenarioError;
use crate::scenario::Scenario;
use crate::scenario::toml_util::parse_override_value;

/// One point of a sweep: the settings that make it, and its scenario.
#[derive(Debug, Clone)]
pub struct SweepPoint {
    /// `(key, value)` pairs, in the order of the `--vary` arguments.
    pub set: Vec<(String, Value)>,
    /// The scenario with them applied.
    pub scenario: Scenario,
}

/// Parses one `KEY=V1,V2,...` argument. Values split on commas outside brackets and quotes.
pub fn parse_vary(arg: &str) -> Result<(String, Vec<Value>), ScenarioError> {
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
                values.push(parse_override_value(cur.trim()));
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        values.push(parse_override_value(cur.trim()));
    }
    if values.is_empty() || k.trim().is_empty() {
        return Err(bad("--vary expects KEY=V1,V2,... with at least one value"));
    }
    Ok((k.trim().to_string(), values))
}

/// Every combination of the `varies`, in row-major order (the last key varies fastest), each validated.
pub fn expand(
    base: &Scenario,
    varies: &[(String, Vec<Value>)],
) -> Result<Vec<SweepPoint>, ScenarioError> {
    let mut combos: Vec<Vec<(String, Value)>> = vec![Vec::new()];
    for (k, vals) in varies {
        let mut next = Vec::with_capacity(combos.len() * vals.len());
        for c in &combos {
            for v in vals {
                let mut c2 = c.clone();
                c2.push((k.clone(), v.clone()));
                next.push(c2);
            }
        }
        combos = next;
    }
    combos
        .into_iter()
        .map(|set| {
            Ok(SweepPoint {
                scenario: base.with_overrides(&set)?,
                set,
            })
        })
        .collect()
}
