//! `[android.sched]`: the CFS-like scheduler's settings (Linux 3.4 defaults for 4 CPUs where stated; issue #16
//! mechanism 1), split from [`super`] to keep each file small.

use serde::{Deserialize, Serialize};

/// `[android.sched]`: the CFS-like scheduler (Linux 3.4 defaults for 4 CPUs where stated).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AndroidSched {
    /// sched_latency before scaling (`normalized_sysctl_sched_latency`): the period in which every runnable
    /// thread runs once. `[ms]`, default 6 [P: Linux 3.4 kernel/sched/fair.c], range 0.1–1000.
    pub latency_ms: f64,
    /// sched_min_granularity before scaling. `[ms]`, default 0.75 [P], range 0.01–1000.
    pub min_granularity_ms: f64,
    /// sched_wakeup_granularity before scaling: a woken thread preempts only if this much more deserving.
    /// `[ms]`, default 1 [P].
    pub wakeup_granularity_ms: f64,
    /// Mechanism 1 (issue #16): CFS as Linux 3.4 computes its tunables. On (default): the three times above are
    /// multiplied by `1 + ilog2(min(online CPUs, 8))` (`update_sysctl()` with SCHED_TUNABLESCALING_LOG, re-run
    /// by `rq_online_fair`/`rq_offline_fair` at every hotplug — 1× with one core online, 2× with two or three,
    /// 3× with four), and the wake-up granularity is converted to the woken thread's virtual time
    /// (`wakeup_gran()` → `calc_delta_fair(gran, se)` = gran × 1024 / weight), so a boosted thread preempts more
    /// easily and a niced one less [P: Linux 3.4 kernel/sched/fair.c]. Off: the unscaled times and a fixed
    /// granularity (the model before #16).
    pub cfs_3_4: bool,
    /// Mechanism 1, the rest (issue #16): per-core CFS run queues with Linux 3.4's wake-up placement
    /// (`select_task_rq_fair`: wake-affine, `select_idle_sibling`), newly idle balancing gated by `avg_idle`,
    /// periodic and NOHZ idle load balancing at the tick (SD_MC_INIT intervals) and migration of an offlined
    /// core's threads [P: Linux 3.4 kernel/sched/fair.c, include/linux/topology.h]. Default true. Off: one
    /// system-wide queue any idle core takes from (the model before).
    pub per_core_rq: bool,
    /// Scheduler tick rate HZ, the period of periodic balancing and of slice expiry. `[Hz]`, default 100
    /// [P: CONFIG_HZ=100 in the Nexus 5's Linux 3.4.0 config, CyanogenMod/android_kernel_lge_hammerhead
    /// arch/arm/configs/hammerhead_defconfig], range 10–1000.
    pub hz: u32,
    /// `sysctl_sched_migration_cost`: a thread that ran this recently is cache-hot (not pulled by balancing), and
    /// a core whose average idle period is shorter does no newly idle balancing. `[µs]`, default 500 [P: Linux
    /// 3.4 kernel/sched/core.c], range 0–10⁶.
    pub migration_cost_us: f64,
    /// Direct cost of a context switch, run on the core before the incoming thread. `[µs]`, default 5 [E]
    /// (ARMv7 context switch with TLB/ASID handling, a few µs).
    pub context_switch_us: f64,
    /// Extra cost when a thread resumes on another core (cold L1). `[µs]`, default 15 [E].
    pub migration_us: f64,
    /// Nice value of the mutator running a foreground collection under `boost = "fixed"` (the ablation).
    /// Default −4 [E] (the paper: "boosts the collector priority"), range −20–19.
    pub boost_nice: i32,
    /// Nice value of the GC daemon. Default 0 (Dalvik's internal threads run at normal priority) [P].
    pub daemon_nice: i32,
    /// Nice value of the process's other threads (binder, JIT, finalizer, …). Default 0 [E].
    pub background_nice: i32,
    /// How a mutator collecting in the foreground (a non-concurrent cycle: GC_FOR_ALLOC, fg) is boosted. See
    /// [`BoostRule`]. Default `fixed` until the calibration search is re-run with `source` (docs/models-android.md,
    /// "Source audit").
    pub boost: BoostRule,
    /// Slice expiry at the scheduler tick (source audit of issue #16): Linux 3.4 builds with
    /// `SCHED_FEAT(HRTICK, false)` (kernel/sched/features.h), so a running thread's slice is checked only by
    /// `check_preempt_tick` from `task_tick_fair` at the periodic tick (`hz`): a slice ends at the first tick
    /// after the thread has run longer than its ideal runtime [P: Linux 3.4 kernel/sched/fair.c]. Default false until the calibration search is re-run with it (docs/models-android.md, "Source audit").
    /// False: a slice ends at its exact time (the model before; what HRTICK would do).
    pub slice_at_tick: bool,
    /// `min_vruntime` advancing with the running thread (source audit of issue #16): in Linux 3.4 `update_curr`
    /// → `update_min_vruntime` sets it to max(min_vruntime, min(current's vruntime, leftmost queued)) on every
    /// accounting update, and `enqueue_entity` calls `update_curr` before `place_entity`, so a woken thread's
    /// GENTLE_FAIR_SLEEPERS floor uses the fresh value [P: Linux 3.4 kernel/sched/fair.c] (per-core run queues). Default false until the calibration search is re-run with it (docs/models-android.md, "Source audit"). False: `min_vruntime` moves only when a thread is dispatched (the model before).
    pub fresh_min_vruntime: bool,
}

/// The priority boost of a thread running a non-concurrent collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BoostRule {
    /// Dalvik 4.3: `dvmCollectGarbageInternal` calls `os_raiseThreadPriority()` when `!spec->isConcurrent`
    /// (dalvik/vm/alloc/Heap.cpp), which only raises a thread whose nice value is above
    /// ANDROID_PRIORITY_NORMAL (0) and only to 0 (dalvik/vm/os/android.cpp, `os_raiseThreadPriority`): a
    /// nice-0 mutator gets no boost [P: Dalvik android-4.3_r1].
    Source,
    /// Every collecting mutator runs at `boost_nice` (the model the presets were calibrated with; the default).
    #[default]
    Fixed,
}

impl Default for AndroidSched {
    fn default() -> Self {
        AndroidSched {
            latency_ms: 6.0,
            min_granularity_ms: 0.75,
            wakeup_granularity_ms: 1.0,
            cfs_3_4: true,
            per_core_rq: true,
            hz: 100,
            migration_cost_us: 500.0,
            context_switch_us: 5.0,
            migration_us: 15.0,
            boost_nice: -4,
            daemon_nice: 0,
            background_nice: 0,
            boost: BoostRule::Fixed,
            slice_at_tick: false,
            fresh_min_vruntime: false,
        }
    }
}
