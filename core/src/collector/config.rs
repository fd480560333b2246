//! `[collector]`: which collector runs and its trigger's parameters — the collector's own configuration, read
//! from the scenario file (`crate::scenario::ScenarioFile`) and checked by `scenario/validate.rs`.

use serde::{Deserialize, Serialize};

use crate::units::ByteSize;

/// Which collector (and with it, which GC trigger) runs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "kebab-case")]
pub enum CollectorKind {
    /// KVM's compacting mark-sweep, collecting only when an allocation fails (JVM'02 §3.1).
    #[default]
    Base,
    /// The base collector, also run once after every `k` allocations (JVM'02 §3.2).
    KAllocation,
    /// The base collector triggered by the k1/k2 bank rules of JVM'02 §2.
    Adaptive,
    /// Dalvik concurrent mark-sweep (SYSTOR'15 §2.2).
    Cms,
    /// Generational CMS (SYSTOR'15 §3.1).
    Gencms,
    /// CMS with on-the-fly root scanning (SYSTOR'15 §3.2).
    Cmsfly,
    /// CMS with every collection left to the GC daemon: mutators never collect, they force the allocation past
    /// the soft limit and signal the daemon (SYSTOR'15 §3.3 "background").
    Bg,
    /// CMS with no GC daemon: the allocating mutator collects at boosted priority holding the heap lock
    /// (SYSTOR'15 §3.3 "foreground").
    Fg,
}

impl CollectorKind {
    /// Every variant, in menu order.
    pub const ALL: [CollectorKind; 8] = [
        CollectorKind::Base,
        CollectorKind::KAllocation,
        CollectorKind::Adaptive,
        CollectorKind::Cms,
        CollectorKind::Gencms,
        CollectorKind::Cmsfly,
        CollectorKind::Bg,
        CollectorKind::Fg,
    ];

    /// The name used in scenario files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            CollectorKind::Base => "base",
            CollectorKind::KAllocation => "k-allocation",
            CollectorKind::Adaptive => "adaptive",
            CollectorKind::Cms => "cms",
            CollectorKind::Gencms => "gencms",
            CollectorKind::Cmsfly => "cmsfly",
            CollectorKind::Bg => "bg",
            CollectorKind::Fg => "fg",
        }
    }

    /// True for the collectors of the kvm-soc platform (base, k-allocation, adaptive).
    pub fn is_kvm(self) -> bool {
        matches!(
            self,
            CollectorKind::Base | CollectorKind::KAllocation | CollectorKind::Adaptive
        )
    }
}

/// How the adaptive trigger's b() counts banks (JVM'02 §2 leaves the physical reading open).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BankCount {
    /// b(s) = ⌈s / B⌉ over dynamic object bytes for both terms, evaluated at every allocation: the formula read
    /// literally, as if the heap were always packed.
    Bytes,
    /// Evaluated when first-fit would place the object in a gated bank — §4.3: the GC "is invoked just in time
    /// before the new bank is activated" — with b(h+s) the dynamic banks that would then be powered (where the
    /// object physically lands) and b(h+s−g) = ⌈(h+s−g)/B⌉, the banks the data would need once the estimated
    /// garbage is gone. The default: §4.3 and Fig. 6 describe this behaviour.
    #[default]
    OnActivation,
}

/// When the adaptive collector's forced collection fires relative to the allocation that crosses `B` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ForcedTiming {
    /// Before placing the allocation that would make the bytes since the last GC exceed B (the same decision
    /// point as the other rules, which include s_i).
    #[default]
    Before,
    /// At the first allocation after B bytes have been allocated.
    After,
}

/// `[collector]`: which collector runs and its trigger's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CollectorConfig {
    /// Collector variant. Default `base`.
    pub kind: CollectorKind,
    /// k-allocation period: collect once after every `k` allocations. `[allocations]`, default 100, range 1–10⁹.
    #[serde(with = "crate::units::wide_u64")]
    pub k: u64,
    /// Adaptive: L, the interval the room freed in one bank must last. `[allocations]`, default 20, range 0–10⁹.
    #[serde(with = "crate::units::wide_u64")]
    pub lookahead_allocations: u64,
    /// Adaptive: forced collection after this many bytes without one. `[bytes]`, default = `heap.bank_size`
    /// (JVM'02 §2 uses the bank size B), range 1 B – heap size.
    pub forced_bytes: Option<ByteSize>,
    /// Adaptive: how and when b() counts banks. Default `on-activation`.
    pub bank_count: BankCount,
    /// Adaptive: when the forced collection fires. Default `before`.
    pub forced_timing: ForcedTiming,
    /// k-allocation: whether a collection forced by an allocation failure restarts the k counter. Default false
    /// (Table 2: Kshape's k = 500 count of 93 ≈ 45 periodic + 48 failure collections needs an unreset counter).
    pub failure_resets_k: bool,
}

impl Default for CollectorConfig {
    fn default() -> Self {
        CollectorConfig {
            kind: CollectorKind::Base,
            k: 100,
            lookahead_allocations: 20,
            forced_bytes: None,
            bank_count: BankCount::OnActivation,
            forced_timing: ForcedTiming::Before,
            failure_resets_k: false,
        }
    }
}
