//! Collectors decide *when* to collect (a [`TriggerPolicy`], chosen by [`CollectorKind`] through
//! [`BuiltinTrigger::new`]) and *how* (the platform's collector mechanism, e.g. `platform::kvm::gc`). Triggers see only
//! an [`AllocRequest`] and the outcome of each collection, so they can serve any platform.

pub mod config;
pub mod trigger;

use serde::{Deserialize, Serialize};

pub use config::CollectorKind;
pub use trigger::{AdaptiveTrigger, BaseTrigger, KAllocationTrigger};

use config::CollectorConfig;

/// Why a collection started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// An allocation found no free chunk that fits (KVM's only trigger; Dalvik's GC_FOR_ALLOC).
    Alloc,
    /// k allocations since the last periodic collection (JVM'02 §3.2).
    KAllocation,
    /// Adaptive rule 1: at least two banks could be gated after collecting (JVM'02 §2).
    AdaptiveTwoBanks,
    /// Adaptive rule 2: one bank could be gated and the room left lasts at least L allocations.
    AdaptiveOneBank,
    /// Adaptive rule 3: B bytes allocated without a collection.
    AdaptiveForced,
    /// Dalvik GC_CONCURRENT: an allocation passed the concurrent-start threshold (SYSTOR'15 §2.1).
    Concurrent,
    /// Dalvik GC_EXPLICIT: `System.gc()`.
    Explicit,
    /// The GC daemon's trim after 5 s without a GC request (models.md §1.7).
    Trim,
}

impl Trigger {
    /// Number of variants (for per-trigger counters indexed by `trigger as usize`).
    pub const COUNT: usize = 8;

    /// Every variant, in discriminant order.
    pub const ALL: [Trigger; Trigger::COUNT] = [
        Trigger::Alloc,
        Trigger::KAllocation,
        Trigger::AdaptiveTwoBanks,
        Trigger::AdaptiveOneBank,
        Trigger::AdaptiveForced,
        Trigger::Concurrent,
        Trigger::Explicit,
        Trigger::Trim,
    ];

    /// Per-trigger counters → the summary's `collections_by_trigger` map (zero counts omitted).
    pub fn count_map(counts: &[u64; Trigger::COUNT]) -> std::collections::BTreeMap<String, u64> {
        let mut m = std::collections::BTreeMap::new();
        for t in Trigger::ALL {
            if counts[t as usize] > 0 {
                *m.entry(t.summary_key().to_string()).or_insert(0) += counts[t as usize];
            }
        }
        m
    }

    /// The `collections_by_trigger` key this trigger counts under (DESIGN §5).
    pub fn summary_key(self) -> &'static str {
        match self {
            Trigger::Alloc => "alloc",
            Trigger::KAllocation => "k_allocation",
            Trigger::AdaptiveTwoBanks | Trigger::AdaptiveOneBank | Trigger::AdaptiveForced => {
                "adaptive"
            }
            Trigger::Concurrent => "concurrent",
            Trigger::Explicit => "explicit",
            Trigger::Trim => "trim",
        }
    }

    /// A one-line explanation for tooltips and reports.
    pub fn describe(self) -> &'static str {
        match self {
            Trigger::Alloc => "allocation failed: no free chunk fits",
            Trigger::KAllocation => "k allocations since the last periodic collection",
            Trigger::AdaptiveTwoBanks => "adaptive: estimated garbage frees two or more banks",
            Trigger::AdaptiveOneBank => {
                "adaptive: garbage frees one bank and the room lasts L allocations"
            }
            Trigger::AdaptiveForced => "adaptive: B bytes allocated since the last collection",
            Trigger::Concurrent => "GC-CONC: allocation passed the concurrent-start threshold",
            Trigger::Explicit => "GC-EXPLICIT: the program called System.gc()",
            Trigger::Trim => "trim: no GC request for 5 s, free pages returned",
        }
    }
}

/// What a trigger sees at an allocation request, before the object is placed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AllocRequest {
    /// Allocations completed so far: the allocation clock t_i. `[allocations]`
    pub alloc_index: u64,
    /// Requested size s_i (aligned). `[bytes]`
    pub size_bytes: u64,
    /// Object bytes in the dynamic heap, live and dead: h_i. `[bytes]`
    pub heap_bytes: u64,
    /// Bytes allocated since the last collection of any kind. `[bytes]`
    pub bytes_since_gc: u64,
    /// Bank size B. `[bytes]`
    pub bank_size: u64,
    /// True when first-fit would place the object (partly) in a gated bank, i.e. this allocation activates one.
    pub activates_bank: bool,
    /// Banks of the dynamic heap that would be powered once the object is placed (physical count). Only
    /// meaningful when `activates_bank`.
    pub powered_banks_after: u64,
}

/// What a trigger learns when any collection ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectionOutcome {
    /// Allocation clock at the collection: t2. `[allocations]`
    pub alloc_index: u64,
    /// Object bytes just before it, live and dead: h2. `[bytes]`
    pub heap_bytes_before: u64,
    /// Live bytes after it: a2. `[bytes]`
    pub live_bytes_after: u64,
    /// Why it ran.
    pub trigger: Trigger,
}

/// Decides when to collect, besides the allocation failures every collector handles.
pub trait TriggerPolicy: std::fmt::Debug {
    /// Called at every allocation request, before placement: `Some(trigger)` collects first.
    fn before_alloc(&mut self, req: &AllocRequest) -> Option<Trigger>;
    /// Called when any collection ends (its own or a failure-driven one).
    fn after_collection(&mut self, outcome: &CollectionOutcome);

    /// Whether [`AllocRequest::activates_bank`] and [`AllocRequest::powered_banks_after`] must be filled in (they
    /// cost a first-fit look-ahead per allocation). Default: no.
    fn needs_placement(&self) -> bool {
        false
    }
}

/// Limits that tell the engine how a collector behaves (mmtk's `PlanConstraints`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectorConstraints {
    /// Objects may move (compaction).
    pub moves_objects: bool,
    /// Mutators stop for the whole collection.
    pub stop_the_world: bool,
    /// Young and old objects are collected separately.
    pub generational: bool,
}

/// KVM's compacting mark-sweep (JVM'02 §3.1): stop-the-world, compacts when the largest free chunk is too small.
pub const KVM_MARK_SWEEP: CollectorConstraints = CollectorConstraints {
    moves_objects: true,
    stop_the_world: true,
    generational: false,
};

/// The built-in triggers by value: an engine holds this rather than a `Box<dyn TriggerPolicy>`, so its
/// per-allocation [`TriggerPolicy::before_alloc`] call is a `match` the compiler can inline (one call per
/// allocation, millions per sweep). Another platform's own trigger still only has to implement the trait.
#[derive(Debug, Clone)]
pub enum BuiltinTrigger {
    /// [`BaseTrigger`].
    Base(BaseTrigger),
    /// [`KAllocationTrigger`].
    KAllocation(KAllocationTrigger),
    /// [`AdaptiveTrigger`].
    Adaptive(AdaptiveTrigger),
}

impl BuiltinTrigger {
    /// The trigger `config.kind` selects (kinds without a trigger of their own collect on failure only);
    /// `forced_bytes` must be resolved (the scenario does so).
    pub fn new(config: &CollectorConfig) -> Self {
        match config.kind {
            CollectorKind::KAllocation => BuiltinTrigger::KAllocation(KAllocationTrigger::new(
                config.k,
                config.failure_resets_k,
            )),
            CollectorKind::Adaptive => BuiltinTrigger::Adaptive(AdaptiveTrigger::new(config)),
            _ => BuiltinTrigger::Base(BaseTrigger),
        }
    }
}

impl TriggerPolicy for BuiltinTrigger {
    #[inline]
    fn before_alloc(&mut self, req: &AllocRequest) -> Option<Trigger> {
        match self {
            BuiltinTrigger::Base(t) => t.before_alloc(req),
            BuiltinTrigger::KAllocation(t) => t.before_alloc(req),
            BuiltinTrigger::Adaptive(t) => t.before_alloc(req),
        }
    }

    fn after_collection(&mut self, outcome: &CollectionOutcome) {
        match self {
            BuiltinTrigger::Base(t) => t.after_collection(outcome),
            BuiltinTrigger::KAllocation(t) => t.after_collection(outcome),
            BuiltinTrigger::Adaptive(t) => t.after_collection(outcome),
        }
    }

    fn needs_placement(&self) -> bool {
        match self {
            BuiltinTrigger::Base(t) => t.needs_placement(),
            BuiltinTrigger::KAllocation(t) => t.needs_placement(),
            BuiltinTrigger::Adaptive(t) => t.needs_placement(),
        }
    }
}
