//! The work a collection's phases cost, as time at the reference clock (`[android.gc]`,
//! `AndroidGcCosts`): tracing the live set and the immune zygote heap, and the concurrent sweep's batches. The
//! phase machine that spends it is `cycle.rs`.

use super::cycle::MIB;
use super::state::Sim;
use crate::collector::Trigger;

impl Sim<'_> {
    pub(super) fn sweep_batch_us(&self) -> f64 {
        let g = &self.cfg.gc;
        let freed = self.cycle.as_ref().map_or(0, |c| c.reclaim_bytes) as f64;
        let objects = freed / self.prof.mean_object_bytes();
        (freed / MIB * g.sweep_us_per_mib_freed + objects * g.sweep_ns_per_object_freed / 1000.0)
            / f64::from(self.sweep_batches())
    }

    /// The running cycle's sweep batches: one per `pointerBuf` flush of the concurrent sweep
    /// (`android.gc.sweep_per_buffer`, Dalvik's `sweepBitmapCallback`), one when the cycle holds the lock
    /// throughout, or the fixed `sweep_batches`.
    pub(super) fn sweep_batches(&self) -> u32 {
        let g = &self.cfg.gc;
        if !g.sweep_per_buffer {
            return g.sweep_batches;
        }
        let Some(c) = self.cycle.as_ref() else {
            return 1;
        };
        if !c.concurrent || c.hold_lock {
            return 1;
        }
        let objects = c.reclaim_bytes as f64 / self.prof.mean_object_bytes();
        (objects / f64::from(g.sweep_objects_per_lock.max(1)))
            .ceil()
            .clamp(1.0, f64::from(u32::MAX)) as u32
    }

    pub(super) fn mark_us(&self) -> f64 {
        let cfg = self.cfg;
        let g = &cfg.gc;
        let Some(c) = self.cycle.as_ref() else {
            return 0.0;
        };
        // Survivors of a minor collection are young objects (the allocation's mean size); a major traces the
        // live set (Table 1's live objects).
        let object_bytes = if c.minor {
            self.prof.mean_object_bytes()
        } else {
            self.prof.mean_live_object_bytes()
        };
        let objects = c.mark_bytes as f64 / object_bytes;
        let mut us =
            c.mark_bytes as f64 / MIB * g.mark_us_per_mib + objects * g.mark_ns_per_object / 1000.0;
        if c.minor {
            let old = c.heap_before.saturating_sub(c.mark_bytes) as f64 / MIB;
            us += old * g.card_scan_us_per_mib;
        } else {
            // The zygote heap: immune and scanned in address order by every partial cycle; traced by a full one, an
            // explicit GC, at a cost between that scan and an app object's trace (`AndroidGcCosts::zygote_objects`,
            // `full_gc_traces_zygote`, `zygote_full_trace_share`).
            let full = c.trigger == Trigger::Explicit && g.full_gc_traces_zygote;
            let scan = g.zygote_scan_ns_per_object;
            let per_object_ns = if full {
                scan + g.zygote_full_trace_share * (g.mark_ns_per_object - scan)
            } else {
                scan
            };
            us += g.zygote_objects * per_object_ns / 1000.0;
        }
        us
    }
}
