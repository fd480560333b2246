//! Dalvik heap sizing after every collection: the soft limit (allocation ceiling) and the concurrent-start
//! threshold as functions of the live bytes. Two forms, both selectable (issue #3, item 1):
//!
//! * **Source** — `dvmHeapSourceGrowForUtilization` in Dalvik 4.4 (models.md §1.4 [P]): target = live / targetUtil,
//!   clamped to `[live + minFree, live + maxFree]`; concurrent GC starts `CONCURRENT_START` (128 KiB) below the
//!   soft limit, and not at all when the limit is under `CONCURRENT_MIN_FREE` (256 KiB).
//! * **Printed** — SYSTOR'15 Eq. (1): room = (1 − targetUtil) × live, softLimit = live + min(max(room, 2 MiB),
//!   8 MiB), CSB = softLimit − δ (δ = 128 KiB).
//!
//! **The default is the source form**, from the paper's own evidence: for the benchmarks whose live set is under
//! ~2 MiB (lusearch 1.22 MiB, jack 0.87 MiB, xalan 2.26 MiB), the printed room (1 − u)·live stays below the
//! 2 MiB floor for every targetUtil in 0.1–0.9, so Eq. (1) gives the same heap at every setting — yet Fig. 6 shows
//! those benchmarks' time and energy moving with targetUtil. The source form's room live·(1 − u)/u reaches the
//! 8 MiB cap at u = 0.1 for lusearch (1.22·9 ≈ 11 MiB → 8 MiB) and the floor at u ≥ 0.4: the printed `(1 − u)`
//! reads as a misprint of `(1 − u)/u`, and the measured device ran the source.
//!
//! Both forms are clamped to the growth limit. Sizes are bytes.

use super::config::AndroidHeap;
pub use super::config::SizingRule;

/// The heap sizing parameters (SYSTOR'15 Table 2 defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizingParams {
    /// targetUtil, 0.1–0.9.
    pub target_util: f64,
    /// heapminfree. `[bytes]`
    pub min_free_bytes: u64,
    /// heapmaxfree. `[bytes]`
    pub max_free_bytes: u64,
    /// heapgrowthlimit. `[bytes]`
    pub growth_limit_bytes: u64,
    /// δ / CONCURRENT_START: how far below the soft limit a concurrent GC starts. `[bytes]`
    pub concurrent_start_delta_bytes: u64,
    /// CONCURRENT_MIN_FREE: no concurrent GC when the soft limit is below this. `[bytes]`
    pub concurrent_min_limit_bytes: u64,
    /// The rule.
    pub rule: SizingRule,
}

impl SizingParams {
    /// The sizing parameters of `heap` at `target_util` under a growth limit, for [`limits_after_gc`].
    pub fn of(heap: &AndroidHeap, target_util: f64, growth_limit_bytes: u64) -> SizingParams {
        SizingParams {
            target_util,
            min_free_bytes: heap.min_free.0,
            max_free_bytes: heap.max_free.0,
            growth_limit_bytes,
            concurrent_start_delta_bytes: heap.concurrent_start_delta.0,
            concurrent_min_limit_bytes: heap.concurrent_min_limit.0,
            rule: heap.sizing,
        }
    }
}

impl Default for SizingParams {
    fn default() -> Self {
        SizingParams {
            target_util: 0.75,
            min_free_bytes: 2 << 20,
            max_free_bytes: 8 << 20,
            growth_limit_bytes: 96 << 20,
            concurrent_start_delta_bytes: 128 << 10,
            concurrent_min_limit_bytes: 256 << 10,
            rule: SizingRule::Source,
        }
    }
}

/// Limits in force until the next collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeapLimits {
    /// Allocation ceiling: an allocation that would pass it fails (GC-ALLOC). `[bytes]`
    pub soft_limit_bytes: u64,
    /// Allocation level that signals the GC daemon (GC-CONC); `None` when concurrent GC is off. `[bytes]`
    pub concurrent_start_bytes: Option<u64>,
}

/// The limits after a collection that left `live_bytes` live.
pub fn limits_after_gc(live_bytes: u64, p: &SizingParams) -> HeapLimits {
    let live = live_bytes as f64;
    let (lo, hi) = (live_bytes + p.min_free_bytes, live_bytes + p.max_free_bytes);
    let target = match p.rule {
        SizingRule::Source => ((live / p.target_util).floor() as u64).clamp(lo, hi),
        SizingRule::Printed => {
            let room = ((1.0 - p.target_util) * live).floor() as u64;
            live_bytes + room.clamp(p.min_free_bytes, p.max_free_bytes)
        }
    };
    let soft = target.min(p.growth_limit_bytes);
    let conc =
        (soft >= p.concurrent_min_limit_bytes).then(|| soft - p.concurrent_start_delta_bytes);
    HeapLimits {
        soft_limit_bytes: soft,
        concurrent_start_bytes: conc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn source_form_matches_the_worked_example() {
        // models.md §1.4: live 3 MiB → 4 MiB → clamped up to 5 MiB; concurrent start 128 KiB below.
        let l = limits_after_gc(3 * MIB, &SizingParams::default());
        assert_eq!(l.soft_limit_bytes, 5 * MIB, "live + minFree");
        assert_eq!(
            l.concurrent_start_bytes,
            Some(5 * MIB - 128 * 1024),
            "128 KiB below the soft limit"
        );
        // live 30 MiB → 40 MiB → clamped down to 38 MiB.
        assert_eq!(
            limits_after_gc(30 * MIB, &SizingParams::default()).soft_limit_bytes,
            38 * MIB,
            "live + maxFree"
        );
    }

    #[test]
    fn small_live_sets_respond_to_target_util_only_in_the_source_form() {
        let live = (1.22 * MIB as f64) as u64; // lusearch, SYSTOR'15 Table 1
        let room = |u: f64, rule| {
            limits_after_gc(
                live,
                &SizingParams {
                    target_util: u,
                    rule,
                    ..Default::default()
                },
            )
            .soft_limit_bytes
                - live
        };
        let printed: Vec<u64> = [0.1, 0.5, 0.9]
            .iter()
            .map(|u| room(*u, SizingRule::Printed))
            .collect();
        assert!(
            printed.iter().all(|r| *r == 2 * MIB),
            "Eq. (1) as printed pins the room at 2 MiB: {printed:?}"
        );
        let source: Vec<u64> = [0.1, 0.5, 0.9]
            .iter()
            .map(|u| room(*u, SizingRule::Source))
            .collect();
        assert_eq!(
            source[0],
            8 * MIB,
            "u = 0.1: live·9 ≈ 11 MiB, capped at maxFree"
        );
        assert_eq!(source[2], 2 * MIB, "u = 0.9: floored at minFree");
    }

    #[test]
    fn growth_limit_and_tiny_heaps() {
        let p = SizingParams {
            growth_limit_bytes: 10 * MIB,
            ..Default::default()
        };
        assert_eq!(
            limits_after_gc(9 * MIB, &p).soft_limit_bytes,
            10 * MIB,
            "clamped to the growth limit"
        );
        let tiny = SizingParams {
            min_free_bytes: 64 * 1024,
            max_free_bytes: 128 * 1024,
            ..Default::default()
        };
        assert_eq!(
            limits_after_gc(0, &tiny).concurrent_start_bytes,
            None,
            "no concurrent GC under 256 KiB"
        );
    }
}
