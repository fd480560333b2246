//! The Pareto explorer's data: a merged sweep result — the `{"runs": [{"set", "summary"}]}` JSON of
//! `gclab sweep --json` or `gclab sweep merge --json` — read into points (settings, total energy, longest pause,
//! execution time, MinMU curve), with the non-dominated frontier computed by the core's
//! [`gclab_core::sweep::pareto::ParetoFront`] (energy × max pause × time, all minimised; out-of-memory runs left
//! out), so the app and `gclab sweep merge --pareto` agree.

use std::path::Path;
use std::sync::Arc;

use gclab_core::sweep::pareto::{ParetoFront, ParetoPoint};
use toml::Value;

/// One point of the sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct ExplorerPoint {
    /// Its index (position in `runs`).
    pub index: u64,
    /// Its settings, as in the file (`"collector.k": 50`).
    pub set: Vec<(String, serde_json::Value)>,
    /// `collector.k=50 seed=3`, for hover text and the list.
    pub set_text: String,
    /// Total energy. `[J]`
    pub energy_j: f64,
    /// Longest mutator pause. `[ms]`
    pub max_pause_ms: f64,
    /// Execution time. `[s]`
    pub time_s: f64,
    /// MinMU by window: `(window [ms], utilisation)`.
    pub mmu: Vec<(f64, f64)>,
    /// The run ended out of memory.
    pub out_of_memory: bool,
}

impl ExplorerPoint {
    /// MinMU at window `w_ms` (the curve's nearest window), if the summary has one.
    pub fn minmu_at(&self, w_ms: f64) -> Option<f64> {
        self.mmu
            .iter()
            .min_by(|a, b| (a.0 - w_ms).abs().total_cmp(&(b.0 - w_ms).abs()))
            .map(|m| m.1)
    }

    /// The settings as `--set` overrides for [`gclab_core::Scenario::with_overrides`].
    pub fn overrides(&self) -> Vec<(String, Value)> {
        self.set
            .iter()
            .filter_map(|(k, v)| json_to_toml(v).map(|t| (k.clone(), t)))
            .collect()
    }
}

/// A loaded sweep result.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepResults {
    /// The file's name.
    pub name: String,
    /// Every point, by index.
    pub points: Vec<ExplorerPoint>,
    /// Positions in `points` of the frontier, by energy.
    pub frontier: Vec<usize>,
    /// The MinMU windows of the summaries. `[ms]`
    pub windows_ms: Vec<f64>,
}

/// The explorer's state: the loaded result and the chosen y axis.
#[derive(Debug, Clone, Default)]
pub struct ParetoState {
    /// The result on screen.
    pub results: Option<Arc<SweepResults>>,
    /// `None`: maximum pause on y; `Some(w)`: MinMU at window `w` ms.
    pub minmu_window_ms: Option<f64>,
}

/// True when `path` looks like a merged sweep result (a `.json` file whose object starts with `"runs"`).
pub fn is_sweep_result(path: &Path) -> bool {
    if path.extension().and_then(|e| e.to_str()) != Some("json") {
        return false;
    }
    let mut head = [0u8; 64];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let text: String = String::from_utf8_lossy(&head[..n])
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    text.starts_with("{\"runs\":")
}

/// Reads the sweep result at `path`.
pub fn load(path: &Path) -> Result<SweepResults, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    from_json(&name, &text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses a sweep result's text.
pub fn from_json(name: &str, text: &str) -> Result<SweepResults, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let runs = v.get("runs").and_then(serde_json::Value::as_array).ok_or(
        "expected {\"runs\": [...]} (the JSON of gclab sweep --json or gclab sweep merge --json)",
    )?;
    let mut points = Vec::with_capacity(runs.len());
    let mut front = ParetoFront::new();
    for (i, r) in runs.iter().enumerate() {
        let num = |path: &[&str]| -> Result<f64, String> {
            let mut x = &r["summary"];
            for p in path {
                x = &x[*p];
            }
            x.as_f64()
                .ok_or_else(|| format!("runs[{i}].summary.{}: expected a number", path.join(".")))
        };
        let set: Vec<(String, serde_json::Value)> = r["set"]
            .as_object()
            .ok_or_else(|| format!("runs[{i}].set: expected an object"))?
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let set_text = set
            .iter()
            .map(|(k, v)| match v.as_str() {
                Some(s) => format!("{k}={s}"),
                None => format!("{k}={v}"),
            })
            .collect::<Vec<_>>()
            .join(" ");
        let mmu = r["summary"]["mmu"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|m| Some((m["window_ms"].as_f64()?, m["utilization"].as_f64()?)))
                    .collect()
            })
            .unwrap_or_default();
        let p = ExplorerPoint {
            index: i as u64,
            set,
            set_text,
            energy_j: num(&["energy_j", "total"])?,
            max_pause_ms: num(&["max_pause_ms"])?,
            time_s: num(&["execution_time_s"])?,
            mmu,
            out_of_memory: r["summary"]["out_of_memory"].as_bool().unwrap_or(false),
        };
        if !p.out_of_memory {
            front.offer(ParetoPoint {
                index: p.index,
                set: p.set_text.clone(),
                energy_j: p.energy_j,
                max_pause_ms: p.max_pause_ms,
                execution_time_s: p.time_s,
            });
        }
        points.push(p);
    }
    if points.is_empty() {
        return Err("no runs".into());
    }
    let frontier = front
        .points()
        .iter()
        .filter_map(|p| usize::try_from(p.index).ok())
        .collect();
    let windows_ms = points[0].mmu.iter().map(|m| m.0).collect();
    Ok(SweepResults {
        name: name.to_string(),
        points,
        frontier,
        windows_ms,
    })
}

/// A JSON setting as the TOML value `--set` would give (`"8KiB"` → string, `50` → integer, `0.9` → float).
fn json_to_toml(v: &serde_json::Value) -> Option<Value> {
    Some(match v {
        serde_json::Value::Bool(b) => Value::Boolean(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Float(n.as_f64()?),
        },
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(a) => Value::Array(a.iter().filter_map(json_to_toml).collect()),
        serde_json::Value::Object(o) => Value::Table(
            o.iter()
                .filter_map(|(k, v)| Some((k.clone(), json_to_toml(v)?)))
                .collect(),
        ),
        serde_json::Value::Null => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_reads_with_its_frontier_and_overrides() {
        let text = r#"{"runs": [
          {"set": {"collector.k": 10, "heap.bank_size": "8KiB"},
           "summary": {"energy_j": {"total": 2.0}, "max_pause_ms": 1.0, "execution_time_s": 1.0, "out_of_memory": false,
                       "mmu": [{"window_ms": 1.0, "utilization": 0.5}, {"window_ms": 10.0, "utilization": 0.8}]}},
          {"set": {"collector.k": 20, "heap.bank_size": "8KiB"},
           "summary": {"energy_j": {"total": 3.0}, "max_pause_ms": 2.0, "execution_time_s": 2.0, "out_of_memory": false, "mmu": []}},
          {"set": {"collector.k": 30, "heap.bank_size": "8KiB"},
           "summary": {"energy_j": {"total": 1.0}, "max_pause_ms": 0.0, "execution_time_s": 0.1, "out_of_memory": true, "mmu": []}}
        ]}"#;
        let r = from_json("t.json", text).unwrap();
        assert_eq!(r.points.len(), 3, "three runs");
        assert_eq!(
            r.frontier,
            [0],
            "point 1 is dominated, point 2 ran out of memory"
        );
        assert_eq!(r.windows_ms, [1.0, 10.0], "windows of the first summary");
        assert_eq!(r.points[0].minmu_at(9.0), Some(0.8), "nearest window");
        assert_eq!(
            r.points[0].overrides(),
            [
                ("collector.k".to_string(), Value::Integer(10)),
                ("heap.bank_size".to_string(), Value::String("8KiB".into()))
            ],
            "typed overrides"
        );
        assert_eq!(
            r.points[0].set_text, "collector.k=10 heap.bank_size=8KiB",
            "text"
        );
        assert!(from_json("x", "{\"rows\": []}").is_err(), "not a sweep");
    }
}
