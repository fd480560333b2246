//! Scenarios: everything a run depends on, read in two stages. [`ScenarioFile`] mirrors the TOML (defaults,
//! unknown keys rejected); [`Scenario`] is the validated, resolved form — only [`Scenario`] can be simulated.
//!
//! Loading order, one stage per file: build (here: text → TOML table, syntax errors with line → typed mirror, type
//! errors and unknown keys with line → `--set` overrides applied to the table and type-checked together) →
//! resolve (`resolve.rs`: workload profile by embedded name or path, merged with the scenario's `[workload]`
//! overrides; a recorded trace's requests) → validate (`validate.rs`: ranges checked, naming the field and its
//! line or override).

pub mod file;
pub mod keys;
pub mod presets;
mod resolve;
pub mod toml_util;
mod validate;

use std::path::{Path, PathBuf};

use serde::Serialize;
use toml::{Table, Value};

pub use crate::collector::config::{BankCount, CollectorConfig, CollectorKind, ForcedTiming};
pub use crate::heap::config::{HeapConfig, InitialBankState};
pub use crate::platform::kvm::config::{KvmConfig, KvmEnergy, KvmGcCosts};
pub use crate::units::ByteSize;
pub use file::{FORMAT_VERSION, PlatformKind, RecordConfig, ScenarioFile};
pub use keys::Set;
pub use resolve::MAX_FILE_BYTES;
pub use validate::MAX_ANDROID_PIECES;

use crate::error::{Origin, ScenarioError};
use std::sync::Arc;

use crate::workload::{AllocDraw, WorkloadProfile};
use resolve::{
    RecordedDraws, android_from_recording, load_recorded, read_text_capped, resolve_workload,
};
use toml_util::{line_of_key, line_of_offset, parse_override_value, set_path};
use validate::validate;

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

    /// This scenario with typed overrides ([`Set`]: the fields code sets, declared once), re-validated.
    pub fn with(&self, sets: &[Set]) -> Result<Scenario, ScenarioError> {
        self.with_overrides(&Set::pairs(sets))
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
            let arg = apply_override(&mut table, k, v)?;
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
        // An override of the other platform's section would be accepted and change nothing (`kvm.energy.*` on an
        // android run): refused, naming the platform the scenario runs on (#21).
        if let Some((k, arg)) = set_keys
            .iter()
            .find(|(k, _)| other_platform_key(file.platform, k))
        {
            return Err(ScenarioError::BadOverride {
                arg: arg.clone(),
                message: format!(
                    "`{k}` configures another platform, but this scenario runs on {} (it would change nothing)",
                    match file.platform {
                        PlatformKind::KvmSoc => "kvm-soc",
                        PlatformKind::AndroidKrait => "android-krait",
                    }
                ),
            });
        }
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

/// Sets `k` = `v` in `table`; returns the override as the user wrote it (`heap.size=64KiB`) for error messages.
fn apply_override(table: &mut Table, k: &str, v: &Value) -> Result<String, ScenarioError> {
    let arg = format!("{k}={v}");
    set_path(table, k, v.clone()).map_err(|m| ScenarioError::BadOverride {
        arg: arg.clone(),
        message: m,
    })?;
    Ok(arg)
}

/// The first override that makes the file fail its typed check, applied in order on `raw` (the error each one
/// gives is the one the user sees: `--set heap.size=banana` names `heap.size`, never a later, valid override).
fn first_bad_override(raw: &Table, overrides: &[(String, Value)]) -> Result<(), ScenarioError> {
    let mut table = raw.clone();
    for (k, v) in overrides.iter().filter(|(k, _)| !is_profile_key(k)) {
        let arg = apply_override(&mut table, k, v)?;
        Value::Table(table.clone())
            .try_into::<ScenarioFile>()
            .map_err(|e| ScenarioError::BadOverride {
                arg: arg.clone(),
                message: e.message().trim().replace('\n', " "),
            })?;
    }
    Ok(())
}

/// Whether an override key configures the platform the scenario does not run on.
fn other_platform_key(platform: PlatformKind, k: &str) -> bool {
    let section = k.split('.').next().unwrap_or(k);
    match platform {
        PlatformKind::KvmSoc => section == "android",
        PlatformKind::AndroidKrait => section == "kvm",
    }
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
