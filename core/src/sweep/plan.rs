//! The sweep plan: a JSON file naming everything a sweep point depends on — the scenario (its text, so a cluster
//! node needs no copy of the file), the `--set` overrides, the `--vary` axes — and listing the ordered points,
//! each with its index. A task given the plan and an index runs exactly the point the one-machine sweep runs at
//! that position.
//!
//! Format (version 1), one point per line so that 10⁵ points stay a readable, `grep`-able file:
//! ```text
//! {
//!   "format": "gclab-sweep-plan",
//!   "format_version": 1,
//!   "gclab_version": "0.1.0",
//!   "scenario": {"spec":"preset:kvm/calculator","origin":"preset:kvm/calculator","base_dir":null,"text":"…"},
//!   "set": ["collector.kind=adaptive"],
//!   "vary": [{"key":"collector.k","values":["10","20"]}],
//!   "point_count": 2,
//!   "points": [
//!     {"index":0,"set":{"collector.k":10}},
//!     {"index":1,"set":{"collector.k":20}}
//!   ]
//! }
//! ```
//! `vary` values are the texts as given (`--set KEY=TEXT` syntax), parsed exactly as the one-machine sweep parses
//! them. `points` is derived from `vary` and checked when read (streamed into a digest, never held in memory): an
//! edited list is an error, not silently ignored. The plan's **fingerprint** (FNV-1a over everything but the
//! listing) is written into every point file, so results of another plan in the same folder are refused.

use std::io::{BufReader, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{SweepAxes, SweepError, split_vary};
use crate::error::ScenarioError;
use crate::scenario::Scenario;
use crate::scenario::toml_util::parse_override_value;

/// The `format` field of every plan.
pub const PLAN_FORMAT: &str = "gclab-sweep-plan";
/// The plan format this gclab writes and the newest it reads.
pub const PLAN_FORMAT_VERSION: u32 = 1;
/// The gclab version (results of two versions may differ, so a plan is run by the version that wrote it).
pub const GCLAB_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The scenario of a plan: enough to rebuild it anywhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanScenario {
    /// `SCENARIO` as given on the command line (a path or `preset:NAME`); for people, not read back.
    pub spec: String,
    /// The origin used in error messages (`preset:NAME` or the path).
    pub origin: String,
    /// The absolute folder relative workload and trace paths resolve against (`null` for presets).
    pub base_dir: Option<String>,
    /// The scenario's TOML text.
    pub text: String,
}

/// One `--vary` axis: the key and the value texts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanAxis {
    /// Dotted scenario key.
    pub key: String,
    /// Values as `--set` texts, in order.
    pub values: Vec<String>,
}

/// A validated sweep plan.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPlan {
    /// The gclab version that wrote it.
    pub gclab_version: String,
    /// The scenario.
    pub scenario: PlanScenario,
    /// `--set KEY=VALUE` overrides, as given.
    pub set: Vec<String>,
    /// The `--vary` axes, as given.
    pub vary: Vec<PlanAxis>,
    axes: SweepAxes,
    fingerprint: String,
}

impl SweepPlan {
    /// The plan of `gclab sweep SPEC --set … --vary …`, and its base scenario (the `--set`s applied). Points are
    /// not validated here: see [`SweepPlan::validate_points`].
    pub fn new(
        spec: &str,
        set: &[String],
        vary: &[String],
    ) -> Result<(SweepPlan, Scenario), ScenarioError> {
        let base = Scenario::load(spec, set)?;
        let base_dir = base.base_dir().map(|d| {
            let d = if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            };
            std::fs::canonicalize(d)
                .unwrap_or_else(|_| d.to_path_buf())
                .to_string_lossy()
                .into_owned()
        });
        let scenario = PlanScenario {
            spec: spec.to_string(),
            origin: base.origin().to_string(),
            base_dir,
            text: base.source_text().to_string(),
        };
        let vary: Vec<PlanAxis> = vary
            .iter()
            .map(|a| split_vary(a).map(|(key, values)| PlanAxis { key, values }))
            .collect::<Result<_, _>>()?;
        let plan = SweepPlan::assemble(GCLAB_VERSION.to_string(), scenario, set.to_vec(), vary)?;
        Ok((plan, base))
    }

    fn assemble(
        gclab_version: String,
        scenario: PlanScenario,
        set: Vec<String>,
        vary: Vec<PlanAxis>,
    ) -> Result<SweepPlan, ScenarioError> {
        let axes = SweepAxes::new(
            vary.iter()
                .map(|a| {
                    let vs = a.values.iter().map(|t| parse_override_value(t)).collect();
                    (a.key.clone(), vs)
                })
                .collect(),
        )?;
        let canonical =
            serde_json::to_string(&(PLAN_FORMAT_VERSION, &gclab_version, &scenario, &set, &vary))
                .unwrap_or_default();
        let fingerprint = format!("{:016x}", fnv1a(FNV_OFFSET, canonical.as_bytes()));
        Ok(SweepPlan {
            gclab_version,
            scenario,
            set,
            vary,
            axes,
            fingerprint,
        })
    }

    /// The base scenario (the plan's `--set`s applied), rebuilt from the plan's text exactly as
    /// [`Scenario::load`] built it when the plan was written.
    pub fn base_scenario(&self) -> Result<Scenario, ScenarioError> {
        Scenario::from_toml_str(
            &self.scenario.text,
            &self.scenario.origin,
            self.scenario.base_dir.as_deref().map(Path::new),
            &self.set,
        )
    }

    /// The scenario of point `index` (`index < len`), given the [`SweepPlan::base_scenario`].
    pub fn scenario_at(&self, base: &Scenario, index: u64) -> Result<Scenario, ScenarioError> {
        base.with_overrides(&self.axes.point_set(index))
    }

    /// Builds every point's scenario once (as the one-machine sweep does before it runs anything), so a bad
    /// combination is reported when the plan is written, not on a cluster node. Returns the first error.
    pub fn validate_points(&self, base: &Scenario) -> Result<(), ScenarioError> {
        (0..self.len()).try_for_each(|i| self.scenario_at(base, i).map(|_| ()))
    }

    /// Number of points. `[points]`
    pub fn len(&self) -> u64 {
        self.axes.len()
    }

    /// Never true (a plan has at least one point).
    pub fn is_empty(&self) -> bool {
        self.axes.is_empty()
    }

    /// The axes (typed values).
    pub fn axes(&self) -> &SweepAxes {
        &self.axes
    }

    /// 16 hex digits identifying the plan's content (written into every point file).
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Writes the plan file (format above).
    pub fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "{{")?;
        writeln!(out, "  \"format\": {},", js(&PLAN_FORMAT))?;
        writeln!(out, "  \"format_version\": {PLAN_FORMAT_VERSION},")?;
        writeln!(out, "  \"gclab_version\": {},", js(&self.gclab_version))?;
        writeln!(out, "  \"scenario\": {},", js(&self.scenario))?;
        writeln!(out, "  \"set\": {},", js(&self.set))?;
        writeln!(out, "  \"vary\": {},", js(&self.vary))?;
        writeln!(out, "  \"point_count\": {},", self.len())?;
        writeln!(out, "  \"points\": [")?;
        for i in 0..self.len() {
            let sep = if i + 1 < self.len() { "," } else { "" };
            let set = serde_json::Value::Object(self.axes.point_set_json(i));
            writeln!(out, "    {{\"index\":{i},\"set\":{}}}{sep}", set)?;
        }
        writeln!(out, "  ]")?;
        writeln!(out, "}}")
    }

    /// Reads and checks a plan file: JSON syntax (with line and column), the format and its version, the gclab
    /// version, the axes, and that `points` lists exactly the points of `vary` in index order.
    pub fn read(path: &Path) -> Result<SweepPlan, SweepError> {
        let name = path.display().to_string();
        let f = std::fs::File::open(path).map_err(|e| SweepError::Plan {
            path: name.clone(),
            message: format!("cannot read plan: {e}"),
        })?;
        let bad = |message: String| SweepError::Plan {
            path: name.clone(),
            message,
        };
        let file: PlanFile = serde_json::from_reader(BufReader::new(f))
            .map_err(|e| bad(format!("not a valid sweep plan: {e}")))?;
        if file.format != PLAN_FORMAT {
            return Err(bad(format!(
                "field `format`: expected \"{PLAN_FORMAT}\", found {:?}",
                file.format
            )));
        }
        if file.format_version == 0 || file.format_version > PLAN_FORMAT_VERSION {
            return Err(bad(format!(
                "field `format_version`: {} is not one this gclab reads (1..={PLAN_FORMAT_VERSION})",
                file.format_version
            )));
        }
        if file.gclab_version != GCLAB_VERSION {
            return Err(bad(format!(
                "field `gclab_version`: written by gclab {}, this is {GCLAB_VERSION} (results could differ; \
                 write the plan again with this gclab)",
                file.gclab_version
            )));
        }
        let plan = SweepPlan::assemble(file.gclab_version, file.scenario, file.set, file.vary)
            .map_err(|e| bad(format!("field `vary`: {e}")))?;
        if file.point_count != plan.len() {
            return Err(bad(format!(
                "field `point_count`: {} but `vary` makes {} points",
                file.point_count,
                plan.len()
            )));
        }
        if let Some((pos, idx)) = file.points.out_of_order {
            return Err(bad(format!(
                "field `points`: entry {pos} has index {idx} (expected the points in index order 0, 1, 2, …)"
            )));
        }
        if file.points.count != plan.len() || file.points.hash != plan.points_digest() {
            return Err(bad(format!(
                "field `points`: does not list the {} points `vary` makes (edited? write the plan again with \
                 `gclab sweep plan`)",
                plan.len()
            )));
        }
        Ok(plan)
    }

    /// The digest [`PointsDigest`] computes over a correct `points` listing.
    fn points_digest(&self) -> u64 {
        let mut h = FNV_OFFSET;
        for i in 0..self.len() {
            let set = serde_json::Value::Object(self.axes.point_set_json(i)).to_string();
            h = digest_point(h, i, &set);
        }
        h
    }
}

/// Compact JSON of `v` (plan header fields: strings, lists and plain structs, which always serialize).
fn js<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// The serde mirror of the plan file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    format: String,
    format_version: u32,
    gclab_version: String,
    scenario: PlanScenario,
    #[serde(default)]
    set: Vec<String>,
    vary: Vec<PlanAxis>,
    point_count: u64,
    points: PointsDigest,
}

/// `points` read as a stream: a count, a running digest, and the first entry out of index order.
struct PointsDigest {
    count: u64,
    hash: u64,
    out_of_order: Option<(u64, u64)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanPoint {
    index: u64,
    set: Box<RawValue>,
}

impl<'de> Deserialize<'de> for PointsDigest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = PointsDigest;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array of {\"index\": I, \"set\": {...}}")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<PointsDigest, A::Error> {
                let mut out = PointsDigest {
                    count: 0,
                    hash: FNV_OFFSET,
                    out_of_order: None,
                };
                while let Some(p) = seq.next_element::<PlanPoint>()? {
                    if p.index != out.count && out.out_of_order.is_none() {
                        out.out_of_order = Some((out.count, p.index));
                    }
                    out.hash = digest_point(out.hash, p.index, &compact(p.set.get()));
                    out.count += 1;
                }
                Ok(out)
            }
        }
        d.deserialize_seq(V)
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a 64, continuing from `h`.
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn digest_point(h: u64, index: u64, set_compact: &str) -> u64 {
    let h = fnv1a(h, index.to_string().as_bytes());
    let h = fnv1a(h, b" ");
    let h = fnv1a(h, set_compact.as_bytes());
    fnv1a(h, b"\n")
}

/// `json` without the whitespace outside strings (so a re-indented plan still checks).
fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_str, mut escaped) = (false, false);
    for c in json.chars() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if c == '"' {
            in_str = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> SweepPlan {
        SweepPlan::new(
            "preset:kvm/calculator",
            &["collector.kind=adaptive".into()],
            &[
                "heap.bank_size=8KiB,16KiB".into(),
                "collector.k=10,20,30".into(),
            ],
        )
        .unwrap()
        .0
    }

    fn read_text(text: &str) -> Result<SweepPlan, SweepError> {
        let dir = std::env::temp_dir().join(format!("gclab-plan-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(format!("{:016x}.json", fnv1a(FNV_OFFSET, text.as_bytes())));
        std::fs::write(&p, text).unwrap();
        let r = SweepPlan::read(&p);
        let _ = std::fs::remove_file(&p);
        r
    }

    #[test]
    fn a_written_plan_reads_back_equal() {
        let p = plan();
        let mut buf = Vec::new();
        p.write_to(&mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(read_text(&text).unwrap(), p, "round trip");
        assert!(
            text.contains(
                "{\"index\":5,\"set\":{\"collector.k\":30,\"heap.bank_size\":\"16KiB\"}}"
            ),
            "one point per line: {text}"
        );
    }

    #[test]
    fn an_edited_points_list_is_refused() {
        let mut buf = Vec::new();
        plan().write_to(&mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let edited = text.replace("\"collector.k\":30", "\"collector.k\":31");
        let e = read_text(&edited).unwrap_err().to_string();
        assert!(e.contains("field `points`"), "{e}");
        let swapped = text.replace("{\"index\":1,", "{\"index\":7,");
        let e = read_text(&swapped).unwrap_err().to_string();
        assert!(e.contains("entry 1 has index 7"), "{e}");
        let reindented = text.replace("{\"index\":", "{ \"index\" : ");
        assert!(read_text(&reindented).is_ok(), "whitespace does not matter");
    }

    #[test]
    fn the_fingerprint_follows_the_content() {
        let a = plan();
        let b = SweepPlan::new(
            "preset:kvm/calculator",
            &["collector.kind=base".into()],
            &[
                "heap.bank_size=8KiB,16KiB".into(),
                "collector.k=10,20,30".into(),
            ],
        )
        .unwrap()
        .0;
        assert_eq!(a.fingerprint(), plan().fingerprint(), "stable");
        assert_ne!(a.fingerprint(), b.fingerprint(), "another --set");
    }

    #[test]
    fn a_wrong_format_names_the_field() {
        let mut buf = Vec::new();
        plan().write_to(&mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let e = read_text(&text.replace("\"point_count\": 6", "\"point_count\": 7"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("field `point_count`: 7"), "{e}");
        let e = read_text(&text.replace("gclab-sweep-plan", "other"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("field `format`"), "{e}");
        let e = read_text("{\"runs\": []}").unwrap_err().to_string();
        assert!(e.contains("not a valid sweep plan"), "{e}");
    }
}
