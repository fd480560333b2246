//! The three GC triggers of JVM'02: **base** (collect only when an allocation fails, §3.1), **k-allocation**
//! (once after every k allocations, §3.2) and **adaptive** (§2's k1/k2 bank rules). Time is the allocation clock:
//! §2 measures L "in terms of the number of allocations", so k1 and k2 are bytes per allocation.

use super::config::{BankCount, CollectorConfig, ForcedTiming};
use super::{AllocRequest, CollectionOutcome, Trigger, TriggerPolicy};

/// Collects only when an allocation fails (the engine handles that); never early.
#[derive(Debug, Clone, Copy, Default)]
pub struct BaseTrigger;

impl TriggerPolicy for BaseTrigger {
    fn before_alloc(&mut self, _req: &AllocRequest) -> Option<Trigger> {
        None
    }

    fn after_collection(&mut self, _outcome: &CollectionOutcome) {}
}

/// Collects once after every `k` allocations (JVM'02 §3.2), plus on failure.
#[derive(Debug, Clone)]
pub struct KAllocationTrigger {
    k: u64,
    since: u64,
    failure_resets: bool,
}

impl KAllocationTrigger {
    /// A trigger with period `k` (≥ 1). `failure_resets`: a failure-driven collection restarts the count.
    pub fn new(k: u64, failure_resets: bool) -> Self {
        KAllocationTrigger {
            k: k.max(1),
            since: 0,
            failure_resets,
        }
    }
}

impl TriggerPolicy for KAllocationTrigger {
    fn before_alloc(&mut self, _req: &AllocRequest) -> Option<Trigger> {
        // k allocations have completed since the last periodic collection: collect before the next one.
        if self.since >= self.k {
            return Some(Trigger::KAllocation);
        }
        self.since += 1;
        None
    }

    fn after_collection(&mut self, outcome: &CollectionOutcome) {
        if outcome.trigger == Trigger::KAllocation || self.failure_resets {
            self.since = 0;
        }
        if outcome.trigger == Trigger::KAllocation {
            // The request that triggered it is about to be allocated: count it.
            self.since = 1;
        }
    }
}

/// JVM'02 §2: after collections c1 (at t1, live a1 after) and c2 (at t2, heap h2 before, live a2 after),
/// k1 = (h2 − a1)/(t2 − t1) and k2 = (h2 − a2)/(t2 − t1). At allocation i (time t_i, heap h_i, size s_i), with
/// g = k2·(t_i − t2) the garbage estimated since c2 and x = h_i + s_i:
/// 1. collect if b(x) − b(x − g) ≥ 2;
/// 2. collect if b(x) − b(x − g) = 1 and b(x − g)·B − (x − g) ≥ k1·L;
/// 3. collect after every B bytes allocated without a collection.
#[derive(Debug, Clone)]
pub struct AdaptiveTrigger {
    lookahead: f64,
    forced_bytes: u64,
    bank_count: BankCount,
    forced_timing: ForcedTiming,
    /// t1, a1: the collection before the last (initially the empty heap at t = 0).
    t1: u64,
    a1: u64,
    /// t2: the last collection.
    t2: u64,
    k1: f64,
    k2: f64,
}

impl AdaptiveTrigger {
    /// An adaptive trigger with the scenario's L, B, counting and timing choices.
    pub fn new(c: &CollectorConfig) -> Self {
        AdaptiveTrigger {
            lookahead: c.lookahead_allocations as f64,
            forced_bytes: c.forced_bytes.map_or(16 * 1024, |b| b.0).max(1),
            bank_count: c.bank_count,
            forced_timing: c.forced_timing,
            t1: 0,
            a1: 0,
            t2: 0,
            k1: 0.0,
            k2: 0.0,
        }
    }

    /// Current rate estimates (k1, k2). `[bytes/allocation]`
    pub fn rates(&self) -> (f64, f64) {
        (self.k1, self.k2)
    }
}

/// b(s): banks needed for `s` bytes of objects packed from address 0.
fn banks_for(s: f64, bank: f64) -> f64 {
    if s <= 0.0 { 0.0 } else { (s / bank).ceil() }
}

impl TriggerPolicy for AdaptiveTrigger {
    fn before_alloc(&mut self, r: &AllocRequest) -> Option<Trigger> {
        let forced = match self.forced_timing {
            ForcedTiming::Before => r.bytes_since_gc + r.size_bytes > self.forced_bytes,
            ForcedTiming::After => r.bytes_since_gc >= self.forced_bytes,
        };
        let evaluate = match self.bank_count {
            BankCount::Bytes => true,
            BankCount::OnActivation => r.activates_bank,
        };
        if evaluate && self.k2 > 0.0 {
            let bank = r.bank_size as f64;
            let x = (r.heap_bytes + r.size_bytes) as f64;
            let g =
                (self.k2 * r.alloc_index.saturating_sub(self.t2) as f64).min(r.heap_bytes as f64);
            let after = x - g;
            let banks_now = match self.bank_count {
                BankCount::Bytes => banks_for(x, bank),
                BankCount::OnActivation => r.powered_banks_after as f64,
            };
            let freed = banks_now - banks_for(after, bank);
            if freed >= 2.0 {
                return Some(Trigger::AdaptiveTwoBanks);
            }
            if freed >= 1.0 && banks_for(after, bank) * bank - after >= self.k1 * self.lookahead {
                return Some(Trigger::AdaptiveOneBank);
            }
        }
        forced.then_some(Trigger::AdaptiveForced)
    }

    fn needs_placement(&self) -> bool {
        self.bank_count == BankCount::OnActivation
    }

    fn after_collection(&mut self, o: &CollectionOutcome) {
        let t2 = o.alloc_index;
        if t2 > self.t1 {
            let dt = (t2 - self.t1) as f64;
            self.k1 = o.heap_bytes_before.saturating_sub(self.a1) as f64 / dt;
            self.k2 = o.heap_bytes_before.saturating_sub(o.live_bytes_after) as f64 / dt;
        }
        self.t1 = t2;
        self.a1 = o.live_bytes_after;
        self.t2 = t2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(i: u64, h: u64, s: u64, since: u64) -> AllocRequest {
        AllocRequest {
            alloc_index: i,
            size_bytes: s,
            heap_bytes: h,
            bytes_since_gc: since,
            bank_size: 1000,
            activates_bank: false,
            powered_banks_after: 0,
        }
    }

    #[test]
    fn k_allocation_fires_after_every_k() {
        let mut t = KAllocationTrigger::new(3, false);
        let mut fired = Vec::new();
        for i in 0..10 {
            if let Some(tr) = t.before_alloc(&req(i, 0, 8, 0)) {
                fired.push(i);
                t.after_collection(&CollectionOutcome {
                    alloc_index: i,
                    heap_bytes_before: 0,
                    live_bytes_after: 0,
                    trigger: tr,
                });
            }
        }
        assert_eq!(
            fired,
            vec![3, 6, 9],
            "collect before allocations 4, 7, 10 (after every 3)"
        );
    }

    #[test]
    fn adaptive_rules_follow_the_paper() {
        let cfg = CollectorConfig {
            forced_bytes: Some(crate::scenario::ByteSize(1000)),
            bank_count: BankCount::Bytes,
            ..CollectorConfig::default()
        };
        let mut a = AdaptiveTrigger::new(&cfg);
        // c at t=100: heap was 900 before, 300 live after → k1 = 9, k2 = 6 bytes/allocation.
        a.after_collection(&CollectionOutcome {
            alloc_index: 100,
            heap_bytes_before: 900,
            live_bytes_after: 300,
            trigger: Trigger::Alloc,
        });
        assert_eq!(a.rates(), (9.0, 6.0));
        // t=150: g = 300. x = 1950+10 → b = 2; x−g = 1660 → b = 2: nothing, and under B bytes.
        assert_eq!(a.before_alloc(&req(150, 1950, 10, 500)), None);
        // t=250: g = 900; x = 2010 (b=3), x−g = 1110 (b=2): one bank, room 890 ≥ k1·L = 180 → rule 2.
        assert_eq!(
            a.before_alloc(&req(250, 2000, 10, 500)),
            Some(Trigger::AdaptiveOneBank)
        );
        // t=450: g = 2100 → capped at h; x = 3010 (b=4), x−g = 1010 (b=2) → rule 1.
        assert_eq!(
            a.before_alloc(&req(450, 3000, 10, 500)),
            Some(Trigger::AdaptiveTwoBanks)
        );
        // forced: 995 + 10 > 1000.
        assert_eq!(
            a.before_alloc(&req(101, 300, 10, 995)),
            Some(Trigger::AdaptiveForced)
        );
    }

    #[test]
    fn on_activation_counts_physical_banks_only_when_a_bank_would_wake() {
        let cfg = CollectorConfig {
            forced_bytes: Some(crate::scenario::ByteSize(100_000)),
            ..CollectorConfig::default()
        };
        assert_eq!(
            cfg.bank_count,
            BankCount::OnActivation,
            "§4.3's reading is the default"
        );
        let mut a = AdaptiveTrigger::new(&cfg);
        a.after_collection(&CollectionOutcome {
            alloc_index: 100,
            heap_bytes_before: 900,
            live_bytes_after: 300,
            trigger: Trigger::Alloc,
        });
        // Heap 1500 bytes (2 banks packed), garbage estimate 6·100 = 600 → 910 after: 1 bank by bytes.
        let mut r = req(200, 1500, 10, 500);
        assert_eq!(
            a.before_alloc(&r),
            None,
            "no bank would wake: the rules are not evaluated"
        );
        r.activates_bank = true;
        r.powered_banks_after = 3; // fragmentation: the object lands in a third bank
        assert_eq!(
            a.before_alloc(&r),
            Some(Trigger::AdaptiveTwoBanks),
            "3 powered vs 1 needed after GC"
        );
        r.powered_banks_after = 2;
        assert_eq!(
            a.before_alloc(&r),
            None,
            "2 vs 1 bank, but the room left (90 B) < k1·L (180 B): keep it on"
        );
        r.heap_bytes = 1200; // after = 610: room 390 ≥ 180
        assert_eq!(
            a.before_alloc(&r),
            Some(Trigger::AdaptiveOneBank),
            "one bank, room lasts L allocations"
        );
    }
}
