//! Resolving what a scenario refers to: its workload profile (embedded name or path, merged with the scenario's
//! `[workload]` overrides) and a recorded trace's allocation requests, each read under a size cap.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toml::{Table, Value};

use super::toml_util::{deep_merge, line_of_key, set_path};
use super::{field_error, presets, syntax_error};
use crate::error::{Origin, ScenarioError};
use crate::workload::from_trace::{self, ComputeModel};
use crate::workload::{AllocDraw, AndroidProfile, TraceWorkload, WorkloadProfile};

/// Longest scenario or workload-profile file read. `[bytes]`
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Reads a UTF-8 text file of at most [`MAX_FILE_BYTES`] (so that `/dev/zero` or a huge file given by mistake is
/// an error, not an unbounded allocation).
pub(super) fn read_text_capped(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    f.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "larger than {} MiB: expected a scenario or workload TOML file",
            MAX_FILE_BYTES >> 20
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "invalid UTF-8 at byte {}: expected a TOML text file",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Resolves `[workload]`: an embedded profile or a file named by `profile`, merged with the other keys.
pub(super) fn resolve_workload(
    section: &Table,
    sets: &[(String, Value, String)],
    base_dir: Option<&Path>,
    origin_of: &dyn Fn(&str) -> Origin,
) -> Result<WorkloadProfile, ScenarioError> {
    let mut merged = Table::new();
    if let Some(p) = section.get("profile") {
        let name = p.as_str().ok_or_else(|| {
            field_error(
                origin_of("workload.profile"),
                "workload.profile",
                "expected a profile name or a path string",
            )
        })?;
        let (text, prof_origin) = if let Some(t) = presets::workload_text(name) {
            (t.to_string(), format!("workload:{name}"))
        } else {
            let path = base_dir.map_or_else(|| PathBuf::from(name), |d| d.join(name));
            // Only a TOML file is read: a scenario naming any other file (`/etc/passwd`) would otherwise get
            // pieces of it quoted back in the parse error.
            let is_toml = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
            if !is_toml {
                return Err(field_error(
                    origin_of("workload.profile"),
                    "workload.profile",
                    format!(
                        "`{name}` is neither an embedded profile nor a .toml file (expected a profile name such as kvm/kwml or a path ending in .toml)"
                    ),
                ));
            }
            let text = read_text_capped(&path).map_err(|e| {
                field_error(
                    origin_of("workload.profile"),
                    "workload.profile",
                    format!("`{name}` is neither an embedded profile nor a readable file ({e})"),
                )
            })?;
            (text, path.display().to_string())
        };
        let table: Table = text
            .parse()
            .map_err(|e| syntax_error(&prof_origin, &text, &e))?;
        let prof: WorkloadProfile =
            toml::from_str(&text).map_err(|e| syntax_error(&prof_origin, &text, &e))?;
        prof.validate().map_err(|(f, m)| {
            field_error(
                Origin::File {
                    file: prof_origin.clone(),
                    line: line_of_key(&text, &f),
                },
                &f,
                m,
            )
        })?;
        merged = table;
    }
    let mut over = section.clone();
    over.remove("profile");
    deep_merge(&mut merged, &over);
    for (k, v, arg) in sets {
        set_path(&mut merged, k, v.clone()).map_err(|m| ScenarioError::BadOverride {
            arg: arg.clone(),
            message: m,
        })?;
    }
    let mut prof: WorkloadProfile =
        Value::Table(merged)
            .try_into()
            .map_err(|e: toml::de::Error| {
                field_error(
                    origin_of("workload"),
                    "workload",
                    e.message().trim().replace('\n', " "),
                )
            })?;
    if prof.trace.is_some() {
        // The recording is the program: a base profile's generated allocations give way to it.
        prof.phases.clear();
        prof.timer = None;
        prof.on_collection = None;
    }
    prof.validate().map_err(|(f, m)| {
        let field = format!("workload.{f}");
        field_error(origin_of(&field), &field, m)
    })?;
    Ok(prof)
}

/// A trace workload's settings, the clock its compute was converted at, and its draws.
pub(super) type RecordedDraws = (TraceWorkload, u64, Arc<[AllocDraw]>);

/// The allocation requests of `[workload.trace]` at `compute`, read once per scenario load (shared by clones and
/// sweeps), and whether the trace's clock is wall time.
pub(super) fn read_recording(
    t: &TraceWorkload,
    compute: ComputeModel,
    base_dir: Option<&Path>,
    origin_of: &dyn Fn(&str) -> Origin,
) -> Result<(Vec<AllocDraw>, bool), ScenarioError> {
    let err = |m: String| field_error(origin_of("workload.trace.path"), "workload.trace.path", m);
    let (name, src): (String, Box<dyn std::io::Read + Send>) = match presets::trace_bytes(&t.path) {
        Some(bytes) => (
            format!("trace:{}", t.path),
            Box::new(std::io::Cursor::new(bytes)),
        ),
        None => {
            let path = base_dir.map_or_else(|| PathBuf::from(&t.path), |d| d.join(&t.path));
            let f = std::fs::File::open(&path).map_err(|e| {
                err(format!(
                    "expected a readable gclab trace: {}: {e}",
                    path.display()
                ))
            })?;
            (
                path.display().to_string(),
                Box::new(std::io::BufReader::new(f)),
            )
        }
    };
    let (draws, wall) = from_trace::draws_from(&name, src, compute)
        .map_err(|e| err(format!("expected a readable gclab trace: {e}")))?;
    if draws.is_empty() {
        return Err(err(format!("`{}` records no allocation", t.path)));
    }
    Ok((draws, wall))
}

/// The kvm-soc requests of `[workload.trace]`: compute from the recorded clock at `clock_hz`, or fixed.
pub(super) fn load_recorded(
    t: &TraceWorkload,
    clock_hz: u64,
    base_dir: Option<&Path>,
    origin_of: &dyn Fn(&str) -> Origin,
) -> Result<Arc<[AllocDraw]>, ScenarioError> {
    let compute = if t.cycles_per_allocation > 0 {
        ComputeModel::PerAllocation(t.cycles_per_allocation)
    } else {
        ComputeModel::Clock(clock_hz)
    };
    Ok(read_recording(t, compute, base_dir, origin_of)?.0.into())
}

/// On android-krait a recording becomes the `[android]` profile of its Table 1 characteristics
/// (`AndroidProfile::from_recording`): that engine runs statistical profiles, not single objects.
pub(super) fn android_from_recording(
    t: &TraceWorkload,
    base: Option<&AndroidProfile>,
    base_dir: Option<&Path>,
    origin_of: &dyn Fn(&str) -> Origin,
) -> Result<AndroidProfile, ScenarioError> {
    let (draws, wall) = read_recording(t, ComputeModel::Clock(1_000_000_000), base_dir, origin_of)?;
    let summary = from_trace::summarize(&draws);
    AndroidProfile::from_recording(&summary, wall, base)
        .map_err(|m| field_error(origin_of("workload.trace.path"), "workload.trace.path", m))
}
