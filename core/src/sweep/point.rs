//! Point files: the result of one sweep point, one file per index under the results folder, written atomically
//! (a temporary file in the same folder, `fsync`, `rename`) so a killed task leaves either the whole result or
//! none — which is what makes re-running a task a resume.
//!
//! Layout: `DIR/000/000123.json` — a sub-folder per thousand points (1 M points: 1 000 folders of 1 000 files),
//! zero-padded so names sort in index order. Content (pretty JSON, keys sorted):
//! `{"index": 123, "plan": "<fingerprint>", "set": {...}, "summary": {...}}` — `set` and `summary` exactly as the
//! one-machine sweep prints them, so the merge copies their text without re-parsing a number.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{SweepError, SweepPlan};
use crate::run::Summary;

/// The point file of `index` in a plan of `count` points under `dir`.
pub fn point_path(dir: &Path, index: u64, count: u64) -> PathBuf {
    let width = count.saturating_sub(1).to_string().len().max(6);
    let sub = index / 1000;
    dir.join(format!("{sub:0w$}", w = width - 3))
        .join(format!("{index:0width$}.json"))
}

/// The point file text of `index` with `summary`.
pub fn render_point(plan: &SweepPlan, index: u64, summary: &Summary) -> String {
    let mut m = serde_json::Map::new();
    m.insert("index".into(), index.into());
    m.insert("plan".into(), plan.fingerprint().into());
    m.insert(
        "set".into(),
        serde_json::Value::Object(plan.axes().point_set_json(index)),
    );
    m.insert(
        "summary".into(),
        serde_json::to_value(summary).unwrap_or(serde_json::Value::Null),
    );
    let mut text = serde_json::to_string_pretty(&serde_json::Value::Object(m)).unwrap_or_default();
    text.push('\n');
    text
}

/// A point file as read: its `set` and `summary` kept as the exact text written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointRecord<'a> {
    /// The point's index.
    pub index: u64,
    /// The fingerprint of the plan it belongs to.
    pub plan: String,
    /// `{"KEY": VALUE}` text.
    #[serde(borrow)]
    pub set: &'a RawValue,
    /// The run's summary text.
    #[serde(borrow)]
    pub summary: &'a RawValue,
}

/// Parses the point file `text` (read from `path`) and checks it is `plan`'s result for `index`.
pub fn parse_point<'a>(
    text: &'a str,
    plan: &SweepPlan,
    index: u64,
    path: &str,
) -> Result<PointRecord<'a>, SweepError> {
    let bad = |message: String| SweepError::Point {
        path: path.to_string(),
        message,
    };
    let r: PointRecord<'a> =
        serde_json::from_str(text).map_err(|e| bad(format!("not a sweep point file: {e}")))?;
    if r.plan != plan.fingerprint() {
        return Err(bad(format!(
            "field `plan`: the result of plan {}, not of this plan {} (use a fresh results folder per plan)",
            r.plan,
            plan.fingerprint()
        )));
    }
    if r.index != index {
        return Err(bad(format!(
            "field `index`: {} in the file of point {index}",
            r.index
        )));
    }
    Ok(r)
}

/// Writes `bytes` to `path` atomically ([`crate::io::write_file_atomic`]: a temporary file beside it, named after
/// this host and process so two tasks given the same point never share one, synced, renamed). Creates the folder.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SweepError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| SweepError::io(dir, &e))?;
    crate::io::write_file_atomic(path, bytes).map_err(|e| SweepError::io(path, &e))
}

/// Flushes a folder's entries (the renames into it) to disk.
pub fn sync_dir(dir: &Path) -> Result<(), SweepError> {
    std::fs::File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(|e| SweepError::io(dir, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_sort_in_index_order_and_group_by_thousand() {
        let d = Path::new("out");
        assert_eq!(
            point_path(d, 123, 120_000),
            Path::new("out/000/000123.json"),
            "small index"
        );
        assert_eq!(
            point_path(d, 54_321, 120_000),
            Path::new("out/054/054321.json"),
            "thousands"
        );
        assert_eq!(
            point_path(d, 1_234_567, 2_000_000),
            Path::new("out/1234/1234567.json"),
            "wider for millions"
        );
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("gclab-point-test-{}", std::process::id()));
        let p = dir.join("a/000001.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two", "replaced");
        let names: Vec<_> = std::fs::read_dir(dir.join("a")).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary left: {names:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
