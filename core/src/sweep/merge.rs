//! The merge: every point of a plan, read in index order from a [`PointSource`] and written as it goes — the
//! `{"runs": [...]}` JSON of the one-machine sweep (byte for byte: rows are the point files' `set` and `summary`
//! text, re-indented), a CSV table, and/or the Pareto frontier. Memory does not grow with the number of points:
//! one point file is held at a time (the CSV's column list and the frontier aside).
//!
//! A merge first checks that every point is present and refuses to write anything otherwise
//! ([`SweepError::Missing`] naming the indices).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::value::RawValue;

use super::error::format_ranges;
use super::pareto::ParetoFront;
use super::point::{parse_point, point_path};
use super::{SweepError, SweepPlan};

/// Where the point files come from.
pub trait PointSource {
    /// A name for point `index` in messages (its file).
    fn name(&self, index: u64) -> String;
    /// True when point `index` has a result.
    fn exists(&self, index: u64) -> bool;
    /// The text of point `index`'s file.
    fn read(&mut self, index: u64) -> Result<String, SweepError>;
}

/// Point files in a results folder (`gclab sweep run --out DIR`).
#[derive(Debug, Clone)]
pub struct DirSource {
    dir: PathBuf,
    count: u64,
}

impl DirSource {
    /// The results of a `count`-point plan under `dir`.
    pub fn new(dir: &Path, count: u64) -> DirSource {
        DirSource {
            dir: dir.to_path_buf(),
            count,
        }
    }
}

impl PointSource for DirSource {
    fn name(&self, index: u64) -> String {
        point_path(&self.dir, index, self.count)
            .display()
            .to_string()
    }
    fn exists(&self, index: u64) -> bool {
        point_path(&self.dir, index, self.count).is_file()
    }
    fn read(&mut self, index: u64) -> Result<String, SweepError> {
        let p = point_path(&self.dir, index, self.count);
        std::fs::read_to_string(&p).map_err(|e| SweepError::io(&p, &e))
    }
}

/// Point file texts held in memory, by index (the one-machine sweep).
#[derive(Debug, Clone, Default)]
pub struct MemorySource {
    /// Text of each point, `None` when it has none.
    pub texts: Vec<Option<String>>,
}

impl PointSource for MemorySource {
    fn name(&self, index: u64) -> String {
        format!("point {index}")
    }
    fn exists(&self, index: u64) -> bool {
        self.get(index).is_some()
    }
    fn read(&mut self, index: u64) -> Result<String, SweepError> {
        self.get(index).cloned().ok_or_else(|| SweepError::Io {
            path: self.name(index),
            message: "no result".into(),
        })
    }
}

impl MemorySource {
    fn get(&self, index: u64) -> Option<&String> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.texts.get(i))
            .and_then(Option::as_ref)
    }
}

/// The indices of `plan` without a result in `source`, ascending.
pub fn missing(plan: &SweepPlan, source: &dyn PointSource) -> Vec<u64> {
    (0..plan.len()).filter(|i| !source.exists(*i)).collect()
}

/// An output of the merge: a name for messages and the writer.
pub struct Sink<'a> {
    /// The destination as given (`-` for stdout).
    pub name: String,
    /// Where the text goes.
    pub out: &'a mut dyn Write,
}

impl std::fmt::Debug for Sink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink").field("name", &self.name).finish()
    }
}

/// What a merge writes; any subset.
#[derive(Debug, Default)]
pub struct MergeOutputs<'a> {
    /// The sweep JSON (`{"runs": [...]}`).
    pub json: Option<Sink<'a>>,
    /// The CSV table: `index`, the `--vary` keys, then every scalar of the summary by dotted path.
    pub csv: Option<Sink<'a>>,
    /// The Pareto frontier, filled.
    pub pareto: Option<&'a mut ParetoFront>,
}

/// Merges every point of `plan` from `source` into `outs`, in index order. `progress` is called with the number
/// of points written so far. `dir` names the results in the missing-points error.
pub fn merge(
    plan: &SweepPlan,
    source: &mut dyn PointSource,
    dir: &str,
    mut outs: MergeOutputs<'_>,
    progress: &mut dyn FnMut(u64),
) -> Result<(), SweepError> {
    let gone = missing(plan, source);
    if !gone.is_empty() {
        return Err(SweepError::Missing {
            dir: dir.to_string(),
            count: gone.len() as u64,
            total: plan.len(),
            indices: format_ranges(&gone, 40),
        });
    }
    let columns = match outs.csv {
        Some(_) => Some(csv_columns(plan, source)?),
        None => None,
    };
    let io = |s: &Sink<'_>, e: std::io::Error| SweepError::Io {
        path: s.name.clone(),
        message: format!("cannot write: {e}"),
    };
    if let Some(s) = outs.json.as_mut() {
        s.out
            .write_all(b"{\n  \"runs\": [\n")
            .map_err(|e| io(s, e))?;
    }
    if let (Some(s), Some(cols)) = (outs.csv.as_mut(), &columns) {
        let mut head: Vec<String> = vec!["index".into()];
        head.extend(plan.vary.iter().map(|a| csv_field(&a.key)));
        head.extend(cols.iter().map(|c| csv_field(c)));
        writeln!(s.out, "{}", head.join(",")).map_err(|e| io(s, e))?;
    }
    for i in 0..plan.len() {
        let name = source.name(i);
        let text = source.read(i)?;
        let rec = parse_point(&text, plan, i, &name)?;
        if let Some(s) = outs.json.as_mut() {
            let row = format!(
                "{}    {{\n      \"set\": {},\n      \"summary\": {}\n    }}",
                if i == 0 { "" } else { ",\n" },
                reindent(rec.set.get()),
                reindent(rec.summary.get())
            );
            s.out.write_all(row.as_bytes()).map_err(|e| io(s, e))?;
        }
        if let (Some(s), Some(cols)) = (outs.csv.as_mut(), &columns) {
            let set = leaves(rec.set, &name)?;
            let summary = leaves(rec.summary, &name)?;
            let mut row: Vec<String> = vec![i.to_string()];
            for a in &plan.vary {
                row.push(set.get(&a.key).map_or_else(String::new, |v| csv_field(v)));
            }
            for c in cols {
                row.push(summary.get(c).map_or_else(String::new, |v| csv_field(v)));
            }
            writeln!(s.out, "{}", row.join(",")).map_err(|e| io(s, e))?;
        }
        if let Some(front) = outs.pareto.as_deref_mut() {
            let set = compact_set(rec.set);
            front
                .offer_summary(i, &set, rec.summary.get())
                .map_err(|m| SweepError::Point {
                    path: name.clone(),
                    message: format!("field `summary`: {m}"),
                })?;
        }
        progress(i + 1);
    }
    if let Some(s) = outs.json.as_mut() {
        s.out.write_all(b"\n  ]\n}\n").map_err(|e| io(s, e))?;
    }
    for s in [outs.json.as_mut(), outs.csv.as_mut()]
        .into_iter()
        .flatten()
    {
        s.out.flush().map_err(|e| io(s, e))?;
    }
    Ok(())
}

/// A point file's value (indented as a top-level field) indented as a field of a `runs` row: four more spaces
/// after every line break. JSON strings hold no raw line break, so every one is the printer's.
fn reindent(raw: &str) -> String {
    raw.replace('\n', "\n    ")
}

fn compact_set(set: &RawValue) -> String {
    serde_json::from_str::<serde_json::Value>(set.get())
        .map(|v| v.to_string())
        .unwrap_or_else(|_| set.get().to_string())
}

/// The CSV's summary columns: the union of every point's scalar paths, in order of first appearance.
fn csv_columns(plan: &SweepPlan, source: &mut dyn PointSource) -> Result<Vec<String>, SweepError> {
    let mut cols: Vec<String> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..plan.len() {
        let name = source.name(i);
        let text = source.read(i)?;
        let rec = parse_point(&text, plan, i, &name)?;
        for k in leaves(rec.summary, &name)?.into_keys_ordered() {
            if seen.insert(k.clone()) {
                cols.push(k);
            }
        }
    }
    Ok(cols)
}

/// Scalars of a JSON value by dotted path (`energy_j.total`, `mmu.0.window_ms`), as text: numbers as written,
/// strings unquoted, `null` empty. Kept in document order.
struct Leaves {
    order: Vec<String>,
    map: BTreeMap<String, String>,
}

impl Leaves {
    fn get(&self, k: &str) -> Option<&String> {
        self.map.get(k)
    }
    fn into_keys_ordered(self) -> Vec<String> {
        self.order
    }
}

fn leaves(raw: &RawValue, name: &str) -> Result<Leaves, SweepError> {
    let mut out = Leaves {
        order: Vec::new(),
        map: BTreeMap::new(),
    };
    walk(raw, "", &mut out).map_err(|e| SweepError::Point {
        path: name.to_string(),
        message: format!("not valid JSON: {e}"),
    })?;
    Ok(out)
}

fn walk(raw: &RawValue, prefix: &str, out: &mut Leaves) -> Result<(), serde_json::Error> {
    let text = raw.get().trim_start();
    let join = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    if text.starts_with('{') {
        let m: Vec<(String, &RawValue)> = serde_json::from_str::<OrderedMap<'_>>(text)?.0;
        for (k, v) in m {
            walk(v, &join(&k), out)?;
        }
    } else if text.starts_with('[') {
        let items: Vec<&RawValue> = serde_json::from_str(text)?;
        for (i, v) in items.into_iter().enumerate() {
            walk(v, &join(&i.to_string()), out)?;
        }
    } else {
        let value = if text.starts_with('"') {
            serde_json::from_str::<String>(text)?
        } else if text.starts_with("null") {
            String::new()
        } else {
            text.trim_end().to_string()
        };
        out.order.push(prefix.to_string());
        out.map.insert(prefix.to_string(), value);
    }
    Ok(())
}

/// A JSON object's entries in document order, values as raw text.
struct OrderedMap<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for OrderedMap<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = OrderedMap<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<OrderedMap<'a>, A::Error> {
                let mut v = Vec::new();
                while let Some((k, val)) = m.next_entry::<String, &'de RawValue>()? {
                    v.push((k, val));
                }
                Ok(OrderedMap(v))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// One CSV field: quoted when it holds a comma, quote or line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::point::render_point;
    use crate::{Cancel, NoProgress, simulate};

    fn plan() -> SweepPlan {
        SweepPlan::new(
            "preset:kvm/calculator",
            &[],
            &[
                "collector.kind=base,adaptive".into(),
                "heap.bank_size=8KiB,16KiB".into(),
            ],
        )
        .unwrap()
        .0
    }

    fn source(plan: &SweepPlan) -> (MemorySource, Vec<serde_json::Value>) {
        let base = plan.base_scenario().unwrap();
        let mut src = MemorySource::default();
        let mut rows = Vec::new();
        for i in 0..plan.len() {
            let sc = plan.scenario_at(&base, i).unwrap();
            let run = simulate(&sc, &Cancel::never(), &mut NoProgress).unwrap();
            src.texts.push(Some(render_point(plan, i, &run.summary)));
            rows.push(
                serde_json::json!({"set": plan.axes().point_set_json(i), "summary": run.summary}),
            );
        }
        (src, rows)
    }

    #[test]
    fn merged_json_is_the_pretty_printed_sweep_byte_for_byte() {
        let p = plan();
        let (mut src, rows) = source(&p);
        let mut out = Vec::new();
        let outs = MergeOutputs {
            json: Some(Sink {
                name: "-".into(),
                out: &mut out,
            }),
            ..MergeOutputs::default()
        };
        merge(&p, &mut src, "mem", outs, &mut |_| {}).unwrap();
        let want =
            serde_json::to_string_pretty(&serde_json::json!({ "runs": rows })).unwrap() + "\n";
        assert_eq!(String::from_utf8(out).unwrap(), want, "byte-identical");
    }

    #[test]
    fn a_missing_point_is_named_and_nothing_is_written() {
        let p = plan();
        let (mut src, _) = source(&p);
        src.texts[2] = None;
        let mut out = Vec::new();
        let outs = MergeOutputs {
            json: Some(Sink {
                name: "-".into(),
                out: &mut out,
            }),
            ..MergeOutputs::default()
        };
        let e = merge(&p, &mut src, "mem", outs, &mut |_| {}).unwrap_err();
        assert_eq!(
            e.to_string(),
            "mem: 1 of 4 points missing: indices 2",
            "named"
        );
        assert!(out.is_empty(), "nothing written");
    }

    #[test]
    fn csv_has_one_row_per_point_and_the_vary_columns() {
        let p = plan();
        let (mut src, rows) = source(&p);
        let mut out = Vec::new();
        let mut front = ParetoFront::new();
        let outs = MergeOutputs {
            csv: Some(Sink {
                name: "-".into(),
                out: &mut out,
            }),
            pareto: Some(&mut front),
            ..MergeOutputs::default()
        };
        merge(&p, &mut src, "mem", outs, &mut |_| {}).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "header + 4 rows");
        let head: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(
            &head[..3],
            ["index", "collector.kind", "heap.bank_size"],
            "{}",
            lines[0]
        );
        let col = head.iter().position(|h| *h == "energy_j.total").unwrap();
        let row3: Vec<&str> = lines[4].split(',').collect();
        assert_eq!(&row3[..3], ["3", "adaptive", "16KiB"], "values unquoted");
        let e: f64 = row3[col].parse().unwrap();
        assert_eq!(
            e,
            rows[3]["summary"]["energy_j"]["total"].as_f64().unwrap(),
            "exact number"
        );
        assert!(!front.points().is_empty(), "a frontier");
        assert_eq!(front.offered(), 4, "every point offered");
    }
}
