//! `[heap]`: the heap's geometry and its banks' initial power state — the heap's own configuration.

use serde::{Deserialize, Serialize};

use crate::units::ByteSize;

/// The power state of heap banks that have never held an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum InitialBankState {
    /// Supply-gated until first used (JVM'02 §4.3: a new bank "is activated"; §3.3: ROM partitions likewise).
    #[default]
    Gated,
    /// Powered from the start; gated only after a collection finds them empty.
    Active,
}

/// `[heap]`: the heap's geometry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HeapConfig {
    /// Heap size. `[bytes]`, default 128 KiB (JVM'02 §3.3), range 4 KiB – 4 GiB. On android-krait it is Dalvik's
    /// heapgrowthlimit, default 96 MiB (SYSTOR'15 Table 2) [P].
    pub size: ByteSize,
    /// Bank size: the unit of supply gating. `[bytes]`, default 16 KiB (JVM'02 §3.3), range 1 KiB – heap size;
    /// must divide the heap size. On android-krait default 1 MiB (the lanes of the layout view).
    pub bank_size: ByteSize,
    /// Power state of banks never used yet. Default `gated`.
    pub initial_bank_state: InitialBankState,
    /// Object alignment: sizes round up to a multiple. `[bytes]`, default 4 (KVM's word), range 1–64, power of 2.
    #[serde(with = "crate::units::wide_u64")]
    pub alignment: u64,
    /// android-krait: Dalvik's heaptargetutilization — the heap is sized to live / targetUtil after each
    /// collection (SYSTOR'15 Eq. (1), models.md §1.4). Larger means a tighter heap. Default 0.75 (Table 2) [P],
    /// range 0.1–0.9 (`-XX:HeapTargetUtilization`).
    pub target_util: f64,
}

impl Default for HeapConfig {
    fn default() -> Self {
        HeapConfig {
            size: ByteSize(128 * 1024),
            bank_size: ByteSize(16 * 1024),
            initial_bank_state: InitialBankState::Gated,
            alignment: 4,
            target_util: 0.75,
        }
    }
}
