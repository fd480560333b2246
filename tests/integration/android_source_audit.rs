//! android-krait mechanisms the source audit of issue #16 found deviating from Linux 3.4 / Dalvik 4.3, each
//! switchable for the ablation: the foreground collector's priority boost (`os_raiseThreadPriority`), Dalvik's
//! chunk accounting and footprint limit, the sweep's per-buffer heap lock, the trim under the heap lock, slice
//! expiry at the scheduler tick and `min_vruntime` advancing with the running thread.

use crate::support::run;

#[test]
fn a_nice_0_mutator_collecting_in_the_foreground_is_not_boosted() {
    // Dalvik's os_raiseThreadPriority lifts only threads below normal priority, to nice 0: mutators run at nice
    // 0, so the source rule is the same run as a "boost" to nice 0, and differs from the old fixed −4.
    for p in ["android/lusearch", "android/pandora"] {
        let k = "collector.kind=fg";
        let source = run(p, &[k]);
        let to_zero = run(p, &[k, "android.sched.boost=\"fixed\"", "android.sched.boost_nice=0"]);
        let minus4 = run(p, &[k, "android.sched.boost=\"fixed\""]);
        assert_eq!(source.summary.energy_j, to_zero.summary.energy_j, "{p}");
        assert_ne!(source.summary.energy_j, minus4.summary.energy_j, "{p}: the switch acts");
    }
}
