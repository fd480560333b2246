//! `ScenarioFile`: the serde mirror of a scenario TOML file — every knob, its unit, default and allowed range.
//! Each model owns its section's type (`collector::config`, `heap::config`, `platform::{kvm,android}::config`);
//! this file puts them together.
//! Missing fields take their defaults (`#[serde(default)]`, so older files keep loading); unknown fields are
//! errors (`deny_unknown_fields`, so typos are caught). Ranges are checked once, by
//! [`crate::Scenario::from_file`]; `docs/scenario.md` lists every field.

use serde::{Deserialize, Serialize};

use crate::collector::config::CollectorConfig;
use crate::heap::config::HeapConfig;
use crate::platform::android::config::AndroidConfig;
use crate::platform::kvm::config::KvmConfig;

/// The newest scenario format version this build writes; it reads every version up to it.
pub const FORMAT_VERSION: u32 = 1;

/// Which simulated machine runs the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PlatformKind {
    /// One 100 MHz core, a heap of supply-gated SRAM banks, ROM and stack SRAM (Chen et al., JVM'02 §3.3).
    #[default]
    KvmSoc,
    /// Four Krait cores with ondemand and hotplug under a Dalvik heap (Hussein et al., SYSTOR'15 §2).
    AndroidKrait,
}

/// What the run records besides the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecordConfig {
    /// Keep per-object records and layout keyframes for the heap-layout replay. Default true.
    pub layout: bool,
}

impl Default for RecordConfig {
    fn default() -> Self {
        RecordConfig { layout: true }
    }
}

/// A scenario file as written: every section optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScenarioFile {
    /// Format version of the file. Default 1 (the current one); a newer version is an error.
    pub format_version: u32,
    /// A short name shown in the app and in summaries.
    pub name: String,
    /// One or two sentences on what the scenario shows.
    pub description: String,
    /// Which platform runs it. Default `kvm-soc`.
    pub platform: PlatformKind,
    /// Seed of every random draw. Same scenario + seed → bit-identical run. Default 1.
    #[serde(with = "crate::units::wide_u64")]
    pub seed: u64,
    /// `[workload]`: `profile = "kvm/kwml"` (an embedded profile) or a path relative to the scenario file, plus
    /// any profile field to override (`[workload.timer]`, `[[workload.phases]]`, …).
    pub workload: toml::Table,
    /// `[collector]`.
    pub collector: CollectorConfig,
    /// `[heap]`.
    pub heap: HeapConfig,
    /// `[kvm]`.
    pub kvm: KvmConfig,
    /// `[android]`.
    pub android: AndroidConfig,
    /// `[record]`.
    pub record: RecordConfig,
}

impl Default for ScenarioFile {
    fn default() -> Self {
        ScenarioFile {
            format_version: FORMAT_VERSION,
            name: String::new(),
            description: String::new(),
            platform: PlatformKind::KvmSoc,
            seed: 1,
            workload: toml::Table::new(),
            collector: CollectorConfig::default(),
            heap: HeapConfig::default(),
            kvm: KvmConfig::default(),
            android: AndroidConfig::default(),
            record: RecordConfig::default(),
        }
    }
}
