//! Scenarios: everything a run depends on, read in two stages. [`ScenarioFile`] mirrors the TOML (defaults,
//! unknown keys rejected); [`Scenario`] is the validated, resolved form — only [`Scenario`] can be simulated.
//!
//! Loading order: text → TOML table (syntax errors with line) → typed mirror (type errors and unknown keys with
//! line) → `--set` overrides applied to the table, each re-checked → workload profile resolved (embedded name or
//! path) and merged with the scenario's `[workload]` overrides → ranges checked, naming the field and its line.

pub mod file;
pub mod presets;
pub mod size;
pub mod toml_util;
pub mod wide_u64;

use std::path::{Path, PathBuf};

use serde::Serialize;
use toml::{Table, Value};

pub use file::{
    BankCount, CollectorConfig, CollectorKind, FORMAT_VERSION, ForcedTiming, HeapConfig,
    InitialBankState, KvmConfig, KvmEnergy, KvmGcCosts, PlatformKind, RecordConfig, ScenarioFile,
};
pub use size::ByteSize;

use crate::error::{Origin, ScenarioError};
use std::sync::Arc;

use crate::trace::{self, workload::ComputeModel};
use crate::workload::{AllocDraw, AndroidProfile, TraceWorkload, WorkloadProfile};
use toml_util::{deep_merge, line_of_key, line_of_offset, parse_override_value, set_path};

/// A validated scenario: the resolved file (workload profile merged in) plus where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    file: ScenarioFile,
    workload: WorkloadProfile,
    /// The allocation requests of `[workload.trace]`, if the workload is a recording.
    recorded: Option<Arc<[AllocDraw]>>,
    /// The raw table as read (before overrides), kept so that overrides can be applied again.
    raw: Table,
    source_text: String,
    origin: String,
    base_dir: Option<PathBuf>,
    overrides: Vec<(String, Value)>,
}

/// The echo of a scenario in `run --json`: the resolved file with its workload profile.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioEcho<'a> {
    #[serde(flatten)]
    file: &'a ScenarioFile,
    #[serde(rename = "workload_profile")]
    workload: &'a WorkloadProfile,
}

fn syntax_error(origin: &str, src: &str, e: &toml::de::Error) -> ScenarioError {
    let line = e.span().map(|s| line_of_offset(src, s.start));
    ScenarioError::Syntax {
        origin: Origin::File {
            file: origin.to_string(),
            line,
        },
        message: e.message().trim().replace('\n', " "),
    }
}

fn field_error(origin: Origin, field: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError::Field {
        origin,
        field: field.to_string(),
        message: message.into(),
    }
}

impl Scenario {
    /// Loads `spec`: `preset:NAME` or a path to a TOML file, with `--set KEY=VALUE` overrides.
    pub fn load(spec: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
        if let Some(name) = spec.strip_prefix("preset:") {
            return Scenario::preset_with(name, overrides);
        }
        let text = read_text_capped(Path::new(spec)).map_err(|message| ScenarioError::Io {
            path: spec.to_string(),
            message,
        })?;
        let base = Path::new(spec).parent().map(Path::to_path_buf);
        Scenario::from_toml_str(&text, spec, base.as_deref(), overrides)
    }

    /// The embedded preset `name` (e.g. `kvm/kwml`).
    pub fn preset(name: &str) -> Result<Scenario, ScenarioError> {
        Scenario::preset_with(name, &[])
    }

    fn preset_with(name: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
        let text = presets::preset_text(name).ok_or_else(|| ScenarioError::UnknownPreset {
            name: name.to_string(),
            example: presets::DEFAULT_PRESET.to_string(),
        })?;
        Scenario::from_toml_str(text, &format!("preset:{name}"), None, overrides)
    }

    /// The scenario the app opens with.
    pub fn default_preset() -> Result<Scenario, ScenarioError> {
        Scenario::preset(presets::DEFAULT_PRESET)
    }

    /// Parses and validates scenario text. `origin` names it in errors; `base_dir` resolves relative workload
    /// paths; `overrides` are `KEY=VALUE` strings as given to `--set`.
    pub fn from_toml_str(
        text: &str,
        origin: &str,
        base_dir: Option<&Path>,
        overrides: &[String],
    ) -> Result<Scenario, ScenarioError> {
        let raw: Table = text
            .parse::<Table>()
            .map_err(|e| syntax_error(origin, text, &e))?;
        // Stage 1 on the text itself, so type errors and unknown keys carry their line.
        toml::from_str::<ScenarioFile>(text).map_err(|e| syntax_error(origin, text, &e))?;
        let mut parsed = Vec::new();
        for arg in overrides {
            let (k, v) = arg
                .split_once('=')
                .ok_or_else(|| ScenarioError::BadOverride {
                    arg: arg.clone(),
                    message: "expected KEY=VALUE, e.g. --set heap.target_util=0.9".into(),
                })?;
            parsed.push((k.trim().to_string(), parse_override_value(v.trim())));
        }
        Scenario::build(
            raw,
            text.to_string(),
            origin.to_string(),
            base_dir.map(Path::to_path_buf),
            parsed,
            None,
        )
    }

    /// This scenario with further overrides (`heap.bank_size` = `"8KiB"`), re-validated. Used by sweeps and the
    /// app's controls.
    pub fn with_overrides(&self, extra: &[(String, Value)]) -> Result<Scenario, ScenarioError> {
        let mut all = self.overrides.clone();
        all.extend(extra.iter().cloned());
        let reuse = match (&self.workload.trace, &self.recorded) {
            (Some(t), Some(r)) => Some((t.clone(), self.file.kvm.clock_hz, r.clone())),
            _ => None,
        };
        Scenario::build(
            self.raw.clone(),
            self.source_text.clone(),
            self.origin.clone(),
            self.base_dir.clone(),
            all,
            reuse,
        )
    }

    /// This scenario with one override given as `KEY=VALUE` text.
    pub fn with_set(&self, arg: &str) -> Result<Scenario, ScenarioError> {
        let (k, v) = arg
            .split_once('=')
            .ok_or_else(|| ScenarioError::BadOverride {
                arg: arg.to_string(),
                message: "expected KEY=VALUE".into(),
            })?;
        self.with_overrides(&[(k.trim().to_string(), parse_override_value(v.trim()))])
    }

    fn build(
        raw: Table,
        source_text: String,
        origin: String,
        base_dir: Option<PathBuf>,
        overrides: Vec<(String, Value)>,
        reuse: Option<RecordedDraws>,
    ) -> Result<Scenario, ScenarioError> {
        let mut table = raw.clone();
        let mut set_keys: Vec<(String, String)> = Vec::new();
        // Overrides inside the workload profile are applied once the profile is merged in (`is_profile_key`).
        let profile_sets: Vec<(String, Value, String)> = overrides
            .iter()
            .filter(|(k, _)| is_profile_key(k))
            .map(|(k, v)| {
                (
                    k["workload.".len()..].to_string(),
                    v.clone(),
                    format!("{k}={v}"),
                )
            })
            .collect();
        for (k, v) in overrides.iter().filter(|(k, _)| !is_profile_key(k)) {
            let arg = format!("{k}={v}");
            set_path(&mut table, k, v.clone()).map_err(|m| ScenarioError::BadOverride {
                arg: arg.clone(),
                message: m,
            })?;
            set_keys.push((k.clone(), arg));
        }
        // One typed check of all overrides together (a slider move costs one deserialisation, not one per
        // override); only when it fails are they re-applied one by one to name the first that breaks the file.
        if !set_keys.is_empty()
            && Value::Table(table.clone())
                .try_into::<ScenarioFile>()
                .is_err()
        {
            first_bad_override(&raw, &overrides)?;
        }
        for (k, _, arg) in &profile_sets {
            set_keys.push((format!("workload.{k}"), arg.clone()));
        }
        platform_defaults(&mut table);
        let file: ScenarioFile = Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| ScenarioError::Syntax {
                origin: Origin::File {
                    file: origin.clone(),
                    line: None,
                },
                message: e.message().to_string(),
            })?;
        let origin_of = |field: &str| -> Origin {
            if let Some((_, arg)) = set_keys
                .iter()
                .rev()
                .find(|(k, _)| field == k || field.starts_with(&format!("{k}.")))
            {
                return Origin::Override(arg.clone());
            }
            Origin::File {
                file: origin.clone(),
                line: line_of_key(&source_text, field),
            }
        };
        let workload = resolve_workload(
            &file.workload,
            &profile_sets,
            base_dir.as_deref(),
            &origin_of,
        )?;
        let mut file = file;
        let mut workload = workload;
        let android_trace = file.platform == PlatformKind::AndroidKrait && workload.trace.is_some();
        if let (true, Some(t)) = (android_trace, workload.trace.clone()) {
            let p = android_from_recording(
                &t,
                workload.android.as_ref(),
                base_dir.as_deref(),
                &origin_of,
            )?;
            workload.android = Some(p);
        }
        validate(&mut file, &workload)
            .map_err(|(field, msg)| field_error(origin_of(&field), &field, msg))?;
        // A slider move re-validates the scenario: the trace is read again only if its settings changed.
        let recorded = match (&workload.trace, reuse) {
            _ if android_trace => None,
            (Some(t), Some((rt, hz, r))) if *t == rt && hz == file.kvm.clock_hz => Some(r),
            (Some(t), _) => Some(load_recorded(
                t,
                file.kvm.clock_hz,
                base_dir.as_deref(),
                &origin_of,
            )?),
            (None, _) => None,
        };
        Ok(Scenario {
            file,
            workload,
            recorded,
            raw,
            source_text,
            origin,
            base_dir,
            overrides,
        })
    }

    /// The validated file (defaults filled in, `collector.forced_bytes` resolved).
    pub fn file(&self) -> &ScenarioFile {
        &self.file
    }

    /// The resolved workload profile.
    pub fn workload(&self) -> &WorkloadProfile {
        &self.workload
    }

    /// The recorded allocation requests when the workload is a trace (`[workload.trace]`).
    pub fn recorded(&self) -> Option<&[AllocDraw]> {
        self.recorded.as_deref()
    }

    /// The program's own allocations: the recording's, or the profile's phases'. `[allocations]`
    pub fn work_allocations(&self) -> u64 {
        self.recorded
            .as_ref()
            .map_or_else(|| self.workload.work_allocations(), |r| r.len() as u64)
    }

    /// Where the scenario came from (`preset:kvm/kwml` or a path).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The scenario text as read (before overrides): with [`Scenario::origin`], [`Scenario::base_dir`] and the
    /// overrides it rebuilds this scenario through [`Scenario::from_toml_str`] (sweep plans carry it).
    pub fn source_text(&self) -> &str {
        &self.source_text
    }

    /// The folder relative workload and trace paths resolve against (`None` for presets).
    pub fn base_dir(&self) -> Option<&Path> {
        self.base_dir.as_deref()
    }

    /// The overrides applied, as `(key, value)`.
    pub fn overrides(&self) -> &[(String, Value)] {
        &self.overrides
    }

    /// The platform.
    pub fn platform(&self) -> PlatformKind {
        self.file.platform
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.file.seed
    }

    /// A serializable echo (file + resolved profile) for `run --json`.
    pub fn echo(&self) -> ScenarioEcho<'_> {
        ScenarioEcho {
            file: &self.file,
            workload: &self.workload,
        }
    }

    /// The scenario as a TOML file that loads back to the same scenario (workload profile inlined).
    pub fn to_toml_string(&self) -> String {
        let mut f = self.file.clone();
        f.workload = match toml::Value::try_from(&self.workload) {
            Ok(Value::Table(t)) => t,
            _ => Table::new(),
        };
        toml::to_string_pretty(&f).unwrap_or_default()
    }
}

/// Overrides inside the workload profile are applied once the profile is merged in (so that array paths such as
/// `workload.phases.1.allocations` reach the profile's arrays).
fn is_profile_key(k: &str) -> bool {
    k.starts_with("workload.") && k != "workload.profile"
}

/// The first override that makes the file fail its typed check, applied in order on `raw` (the error each one
/// gives is the one the user sees: `--set heap.size=banana` names `heap.size`, never a later, valid override).
fn first_bad_override(raw: &Table, overrides: &[(String, Value)]) -> Result<(), ScenarioError> {
    let mut table = raw.clone();
    for (k, v) in overrides.iter().filter(|(k, _)| !is_profile_key(k)) {
        let arg = format!("{k}={v}");
        set_path(&mut table, k, v.clone()).map_err(|m| ScenarioError::BadOverride {
            arg: arg.clone(),
            message: m,
        })?;
        Value::Table(table.clone())
            .try_into::<ScenarioFile>()
            .map_err(|e| ScenarioError::BadOverride {
                arg: arg.clone(),
                message: e.message().trim().replace('\n', " "),
            })?;
    }
    Ok(())
}

/// Fills the defaults that depend on the platform: on android-krait the heap is Dalvik's (growth limit 96 MiB,
/// 1 MiB lanes) unless the file says otherwise.
fn platform_defaults(table: &mut Table) {
    let android = table.get("platform").and_then(Value::as_str) == Some("android-krait");
    if !android {
        return;
    }
    let heap = table
        .entry("heap")
        .or_insert_with(|| Value::Table(Table::new()));
    if let Value::Table(h) = heap {
        h.entry("size")
            .or_insert_with(|| Value::String("96MiB".into()));
        h.entry("bank_size")
            .or_insert_with(|| Value::String("1MiB".into()));
    }
}

/// Most layout pieces an android-krait run may place (allocated bytes / `cohort_bytes` × `pieces_per_cohort`): the
/// documented maximum volume (100,000 MiB) at the default granularity (32 KiB × 8) is 25.6 M.
pub const MAX_ANDROID_PIECES: u64 = 64_000_000;

/// Longest scenario or workload-profile file read. `[bytes]`
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Reads a UTF-8 text file of at most [`MAX_FILE_BYTES`] (so that `/dev/zero` or a huge file given by mistake is
/// an error, not an unbounded allocation).
fn read_text_capped(path: &Path) -> Result<String, String> {
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
fn resolve_workload(
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
type RecordedDraws = (TraceWorkload, u64, Arc<[AllocDraw]>);

/// The allocation requests of `[workload.trace]` at `compute`, read once per scenario load (shared by clones and
/// sweeps), and whether the trace's clock is wall time.
fn read_recording(
    t: &TraceWorkload,
    compute: ComputeModel,
    base_dir: Option<&Path>,
    origin_of: &dyn Fn(&str) -> Origin,
) -> Result<(Vec<AllocDraw>, bool), ScenarioError> {
    let err = |m: String| field_error(origin_of("workload.trace.path"), "workload.trace.path", m);
    let (name, src): (String, Box<dyn std::io::Read>) = match presets::trace_bytes(&t.path) {
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
    let (draws, wall) = trace::workload::draws_from(&name, src, compute)
        .map_err(|e| err(format!("expected a readable gclab trace: {e}")))?;
    if draws.is_empty() {
        return Err(err(format!("`{}` records no allocation", t.path)));
    }
    Ok((draws, wall))
}

/// The kvm-soc requests of `[workload.trace]`: compute from the recorded clock at `clock_hz`, or fixed.
fn load_recorded(
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
fn android_from_recording(
    t: &TraceWorkload,
    base: Option<&AndroidProfile>,
    base_dir: Option<&Path>,
    origin_of: &dyn Fn(&str) -> Origin,
) -> Result<AndroidProfile, ScenarioError> {
    let (draws, wall) = read_recording(t, ComputeModel::Clock(1_000_000_000), base_dir, origin_of)?;
    let summary = trace::workload::summarize(&draws);
    AndroidProfile::from_recording(&summary, wall, base)
        .map_err(|m| field_error(origin_of("workload.trace.path"), "workload.trace.path", m))
}

fn in_range<T: PartialOrd + std::fmt::Display + Copy>(
    field: &str,
    v: T,
    lo: T,
    hi: T,
    unit: &str,
) -> Result<(), (String, String)> {
    if v < lo || v > hi {
        return Err((
            field.to_string(),
            format!("expected {lo}–{hi} {unit}, got {v}")
                .trim_end()
                .to_string(),
        ));
    }
    Ok(())
}

fn in_range_f(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), (String, String)> {
    if !(v.is_finite() && v >= lo && v <= hi) {
        return Err((
            field.to_string(),
            format!("expected a number in [{lo}, {hi}], got {v}"),
        ));
    }
    Ok(())
}

/// Checks every range once; resolves `collector.forced_bytes`. `Err((field, expectation))`.
fn validate(f: &mut ScenarioFile, w: &WorkloadProfile) -> Result<(), (String, String)> {
    if f.format_version == 0 || f.format_version > FORMAT_VERSION {
        return Err((
            "format_version".into(),
            format!(
                "expected 1–{FORMAT_VERSION} (this build reads up to version {FORMAT_VERSION}), got {}",
                f.format_version
            ),
        ));
    }
    let h = &f.heap;
    in_range("heap.size", h.size.0, 4 * 1024, 4 << 30, "bytes")?;
    in_range(
        "heap.bank_size",
        h.bank_size.0,
        1024,
        h.size.0,
        "bytes (1 KiB to the heap size)",
    )?;
    if !h.size.0.is_multiple_of(h.bank_size.0) {
        return Err((
            "heap.bank_size".into(),
            format!(
                "expected a divisor of heap.size ({}), got {}",
                h.size, h.bank_size
            ),
        ));
    }
    if !(1..=64).contains(&h.alignment) || !h.alignment.is_power_of_two() {
        return Err((
            "heap.alignment".into(),
            format!("expected a power of two in 1–64, got {}", h.alignment),
        ));
    }
    let c = &mut f.collector;
    if f.platform == PlatformKind::KvmSoc && !c.kind.is_kvm() {
        return Err((
            "collector.kind".into(),
            format!(
                "`{}` runs on android-krait; kvm-soc takes base, k-allocation or adaptive",
                c.kind.name()
            ),
        ));
    }
    in_range("collector.k", c.k, 1, 1_000_000_000, "allocations")?;
    in_range(
        "collector.lookahead_allocations",
        c.lookahead_allocations,
        0,
        1_000_000_000,
        "allocations",
    )?;
    let forced = c.forced_bytes.unwrap_or(f.heap.bank_size);
    in_range(
        "collector.forced_bytes",
        forced.0,
        1,
        f.heap.size.0,
        "bytes",
    )?;
    c.forced_bytes = Some(forced);
    let k = &f.kvm;
    in_range("kvm.clock_hz", k.clock_hz, 1_000_000, 1_000_000_000, "Hz")?;
    if !1_000_000_000u64.is_multiple_of(k.clock_hz) {
        return Err((
            "kvm.clock_hz".into(),
            format!(
                "expected a divisor of 1 GHz (e.g. 100000000), got {}",
                k.clock_hz
            ),
        ));
    }
    let e = &k.energy;
    in_range_f("kvm.energy.sram_access_j", e.sram_access_j, 0.0, 1e-6)?;
    in_range_f("kvm.energy.rom_access_j", e.rom_access_j, 0.0, 1e-6)?;
    in_range_f(
        "kvm.energy.leakage_per_cycle_over_access",
        e.leakage_per_cycle_over_access,
        0.0,
        100.0,
    )?;
    in_range_f(
        "kvm.energy.gated_leakage_fraction",
        e.gated_leakage_fraction,
        0.0,
        1.0,
    )?;
    in_range(
        "kvm.energy.resync_cycles",
        e.resync_cycles,
        0,
        1_000_000,
        "cycles",
    )?;
    in_range_f(
        "kvm.energy.mutator_heap_accesses_per_cycle",
        e.mutator_heap_accesses_per_cycle,
        0.0,
        10.0,
    )?;
    in_range_f(
        "kvm.energy.alloc_accesses_per_byte",
        e.alloc_accesses_per_byte,
        0.0,
        10.0,
    )?;
    in_range_f(
        "kvm.energy.stack_accesses_per_cycle",
        e.stack_accesses_per_cycle,
        0.0,
        10.0,
    )?;
    in_range_f(
        "kvm.energy.rom_accesses_per_cycle",
        e.rom_accesses_per_cycle,
        0.0,
        10.0,
    )?;
    in_range(
        "kvm.energy.stack_sram_size",
        e.stack_sram_size.0,
        0,
        1 << 30,
        "bytes",
    )?;
    in_range("kvm.energy.rom_size", e.rom_size.0, 0, 1 << 30, "bytes")?;
    in_range_f(
        "kvm.energy.cpu_energy_per_cycle_j",
        e.cpu_energy_per_cycle_j,
        0.0,
        1e-6,
    )?;
    in_range_f(
        "kvm.energy.cpu_stall_energy_fraction",
        e.cpu_stall_energy_fraction,
        0.0,
        1.0,
    )?;
    let g = &k.gc;
    for (name, v) in [
        ("kvm.gc.mark_cycles_per_byte", g.mark_cycles_per_byte),
        ("kvm.gc.compact_cycles_per_byte", g.compact_cycles_per_byte),
        (
            "kvm.gc.mark_accesses_per_object",
            g.mark_accesses_per_object,
        ),
        ("kvm.gc.mark_accesses_per_byte", g.mark_accesses_per_byte),
        (
            "kvm.gc.sweep_accesses_per_chunk",
            g.sweep_accesses_per_chunk,
        ),
        (
            "kvm.gc.compact_accesses_per_byte",
            g.compact_accesses_per_byte,
        ),
    ] {
        in_range_f(name, v, 0.0, 1e6)?;
    }
    for (name, v) in [
        ("kvm.gc.root_scan_cycles", g.root_scan_cycles),
        ("kvm.gc.mark_cycles_per_object", g.mark_cycles_per_object),
        ("kvm.gc.sweep_cycles_per_chunk", g.sweep_cycles_per_chunk),
        (
            "kvm.gc.compact_cycles_per_object",
            g.compact_cycles_per_object,
        ),
    ] {
        in_range(name, v, 0, 1_000_000_000, "cycles")?;
    }
    if w.permanent_bytes.0 >= f.heap.size.0 {
        return Err((
            "workload.permanent_bytes".into(),
            format!(
                "expected less than heap.size ({}), got {}",
                f.heap.size, w.permanent_bytes
            ),
        ));
    }
    in_range_f("heap.target_util", f.heap.target_util, 0.1, 0.9)?;
    match f.platform {
        PlatformKind::AndroidKrait => {
            if f.collector.kind.is_kvm() {
                return Err((
                    "collector.kind".into(),
                    format!(
                        "`{}` runs on kvm-soc; android-krait takes cms, gencms, cmsfly, bg or fg",
                        f.collector.kind.name()
                    ),
                ));
            }
            if w.android.is_none() {
                return Err((
                    "workload".into(),
                    "expected a profile with an [android] section (e.g. profile = \"android/lusearch\")"
                        .into(),
                ));
            }
            f.android.validate()?;
            if let Some(a) = &w.android {
                // The layout places every piece of every cohort: bound their number, so that a fine granularity
                // over a huge allocation volume is an error here, not an allocation failure in the engine.
                let e = &f.android.engine;
                let pieces = a.allocated_mib * 1_048_576.0 / e.cohort_bytes.0.max(1) as f64
                    * f64::from(e.pieces_per_cohort);
                if pieces > MAX_ANDROID_PIECES as f64 {
                    return Err((
                        "android.engine.cohort_bytes".into(),
                        format!(
                            "{} MiB allocated in cohorts of {} bytes × {} pieces makes {pieces:.0} pieces: expected \
                             at most {MAX_ANDROID_PIECES} (raise cohort_bytes or lower workload.android.allocated_mib)",
                            a.allocated_mib, e.cohort_bytes.0, e.pieces_per_cohort
                        ),
                    ));
                }
            }
        }
        PlatformKind::KvmSoc => {
            if w.phases.is_empty() && w.trace.is_none() {
                return Err((
                    "workload.phases".into(),
                    "expected a profile with [[phases]] (e.g. profile = \"kvm/kwml\") or a [workload.trace] for kvm-soc"
                        .into(),
                ));
            }
        }
    }
    Ok(())
}
