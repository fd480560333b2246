//! The android-krait platform (SYSTOR'15): a Dalvik process — mutator threads, the GC daemon, the JIT and other
//! background threads — scheduled on the Krait cores of [`crate::cpu`] (ondemand + mpdecision hotplug), with
//! Dalvik heap sizing ([`heap_sizing`]), the heap lock, and the CMS collector and its variants ([`cycle`]).
//!
//! * [`config`] — the `[android]` scenario section (heap sizing, GC costs, scheduler, CPU).
//! * [`sim`] — engine state, the event loop.
//! * [`sched`] — Linux 3.4's CFS: per-core run queues, wake-up placement, dispatch.
//! * [`balance`] — its load balancing (newly idle, periodic, NOHZ) and hotplug migration.
//! * [`program`] — what each thread does: the allocation path, iterations and explicit GCs, the daemon, trims.
//! * [`cycle`] — a collection's phases, safepoints, sweeping and re-sizing; [`cycle_costs`] — what its phases cost;
//!   [`suspend`] — how the collector waits for the world to stop.
//!
//! Objects are allocated in cohorts (`android.engine.cohort_bytes` per heap-lock acquisition), each split into
//! pieces with lifetimes drawn from the profile's Table 1 distribution ([`crate::workload::LifetimeCdf`]); the
//! heap is accounted in bytes (live, dead-not-yet-swept, free under the soft limit).

mod balance;
pub mod config;
mod cycle;
mod cycle_costs;
mod daemon;
pub mod heap_sizing;
mod layout;
mod mspace;
mod pages;
mod placement;
mod program;
mod queue;
mod sched;
mod sim;
mod state;
mod suspend;
pub mod system;

use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use crate::collector::Trigger;
use crate::cpu::opp::mhz_to_khz;
use crate::cpu::{Cpu, CpuTag, Work};
use crate::rng::SimRng;
use crate::run::{
    EnergySummary, HeapGeometry, LayoutRecorder, ObjectEvents, PauseKind, Run, Summary, ThreadInfo,
};
use crate::scenario::Scenario;
use crate::units::SimTime;
use crate::{Cancel, Progress, SimError, WorkloadTapes};
use heap_sizing::{SizingParams, limits_after_gc};
use state::{Block, MutState, Role, Sim, Step, TState, Thread};

const MIB: f64 = 1024.0 * 1024.0;

fn thread(name: String, role: Role, nice: i32) -> Thread {
    Thread {
        name,
        role,
        nice,
        state: TState::Blocked(Block::Idle),
        vruntime: 0,
        last_core: None,
        runnable_since: 0,
        seg_start: 0,
        work: Work::default(),
        step: Step::None,
        tag: CpuTag::Other,
        saved: None,
        deferred: None,
        on_gc_end: None,
        token: 0,
        pause: None,
        pause_ending: false,
        pause_closed_until: 0,
        cpu_ns: 0,
        migrations: 0,
        delayed_ns: 0,
        rq_core: 0,
        last_ran_ns: 0,
    }
}

/// Runs an android-krait scenario. The platforms share one entry shape ([`crate::platform`]); `_tapes` is not used
/// here: an android workload is drawn as the engine runs (its threads' draws depend on the schedule), so there is
/// nothing to replay. `objects`: stream the heap map's events there instead of keeping a layout (`gclab trace
/// record`).
pub fn simulate(
    sc: &Scenario,
    _tapes: Option<&WorkloadTapes>,
    objects: Option<Box<dyn ObjectEvents>>,
    cancel: &Cancel,
    progress: &mut dyn Progress,
) -> Result<Run, SimError> {
    let f = sc.file();
    let cfg = &f.android;
    let prof = sc.workload().android.as_ref().ok_or_else(|| {
        SimError::Unsupported(
            "android-krait needs a workload profile with an [android] section".into(),
        )
    })?;
    let cpu = Cpu::new(&cfg.cpu, cfg.cpu.cores as usize)
        .map_err(|(field, m)| SimError::Unsupported(format!("android.cpu.{field}: {m}")))?;
    let kind = f.collector.kind;
    let growth_limit = f.heap.size.0;
    let m = prof.mutators as usize;
    let mut threads = Vec::new();
    for i in 0..m {
        threads.push(thread(format!("mutator-{i}"), Role::Mutator(i as u32), 0));
    }
    let daemon = (kind != crate::CollectorKind::Fg).then(|| {
        threads.push(thread("GC".into(), Role::Daemon, cfg.sched.daemon_nice));
        threads.len() - 1
    });
    let jit = (prof.compilations > 0).then(|| {
        threads.push(thread("JIT".into(), Role::Jit, cfg.sched.background_nice));
        threads.len() - 1
    });
    let others = prof.threads as usize - m - 1 - usize::from(jit.is_some());
    for i in 0..others {
        threads.push(thread(
            format!("background-{i}"),
            Role::Background,
            cfg.sched.background_nice,
        ));
    }
    if cfg.system.enabled {
        for (c, prefix) in config::SYSTEM_CLASSES.iter().enumerate() {
            let cls = cfg.system.class(c as u8);
            for i in 0..cls.threads {
                threads.push(thread(
                    format!("{prefix}-{i}"),
                    Role::System(c as u8),
                    cls.nice,
                ));
            }
        }
    }
    let total_bytes = (prof.allocated_mib * MIB).round() as u64;
    let per_iteration = (total_bytes / (m as u64 * u64::from(prof.iterations))).max(1);
    let cohorts_first = per_iteration.div_ceil(cfg.engine.cohort_bytes.0) * m as u64;
    let params = SizingParams::of(&cfg.heap, f.heap.target_util, growth_limit);
    let lifetimes = prof.lifetimes();
    let initial_live = lifetimes.initial_live().round() as u64;
    let soft = cfg
        .heap
        .start_size
        .0
        .max(limits_after_gc(initial_live, &params).soft_limit_bytes)
        .min(growth_limit);
    let conc_start = (soft >= params.concurrent_min_limit_bytes)
        .then(|| soft - params.concurrent_start_delta_bytes);
    let cores = cpu.cores();
    let threads_len = threads.len();
    let mut sim = Sim {
        cfg,
        prof,
        kind,
        target_util: f.heap.target_util,
        growth_limit,
        ref_khz: mhz_to_khz(cfg.gc.reference_mhz),
        sched_ns: state::SchedNs::of(&cfg.sched, mhz_to_khz(cfg.gc.reference_mhz)),
        now: 0,
        events: state::EventQueue::default(),
        cpu,
        cores: vec![state::CoreSlot::default(); cores],
        threads,
        runq: Vec::new(),
        min_vruntime: 0,
        rqs: vec![state::Rq::new(state::us_to_ns(cfg.sched.migration_cost_us)); cores],
        waker_core: None,
        runnable_reported: 0,
        active_threads: 0,
        rng: SimRng::fork(sc.seed(), "android"),
        jit_rng: SimRng::fork(sc.seed(), "android-jit"),
        sys_rng: SimRng::fork(sc.seed(), "android-system"),
        sys_next: vec![0; threads_len],
        lifetimes,
        mutators: vec![
            MutState {
                left_in_iteration: per_iteration,
                ..MutState::default()
            };
            m
        ],
        mutator_count: m,
        daemon,
        jit,
        jit_queue: 0,
        jit_credit: 0.0,
        jit_per_cohort: f64::from(prof.compilations) / cohorts_first.max(1) as f64,
        at_barrier: 0,
        per_iteration_bytes: per_iteration,
        done_mutators: 0,
        daemon_request: None,
        trim_token: 0,
        trim_armed: false,
        clock_bytes: 0,
        allocated: initial_live,
        live: initial_live,
        dead: 0,
        dead_young: 0,
        dead_pieces_young: Vec::new(),
        dead_pieces_old: Vec::new(),
        young_alloc: 0,
        epoch: 0,
        pieces: BinaryHeap::new(),
        soft_limit: soft,
        footprint: initial_live,
        mspace: cfg
            .heap
            .footprint_limit
            .then(|| mspace::Mspace::new(initial_live, soft, prof.tail_share)),
        conc_start,
        major_soft_limit: soft,
        young_room: soft,
        next_major: false,
        lock_holder: None,
        lock_waiters: VecDeque::new(),
        gc_waiters: Vec::new(),
        cycle: None,
        suspending: false,
        suspend_pending: 0,
        oom: false,
        record_activity: f.record.layout,
        // Large objects need the map to decide contiguity (layout.rs); it is recorded only when asked for.
        layout: (f.record.layout || objects.is_some() || prof.active_large_objects().is_some())
            .then(|| {
                let rec = objects.map_or_else(LayoutRecorder::new, LayoutRecorder::streaming);
                layout::AndroidLayout::new(growth_limit, initial_live, rec)
            }),
        activity: Vec::new(),
        occupancy: Vec::new(),
        gc_events: Vec::new(),
        pauses: Vec::new(),
        trigger_counts: [0; Trigger::COUNT],
        minors: 0,
        majors: 0,
        contentions: 0,
        alloc_waits: 0,
        context_switches: 0,
        page_faults: 0,
        live_at_gc_sum: 0.0,
        live_at_gc_n: 0,
        live_clock_sum: 0.0,
        peak_live: 0,
        trim_work: None,
        trim_holds_lock: false,
    };
    sim.sample_occupancy();
    for t in 0..sim.threads.len() {
        match sim.threads[t].role {
            Role::Mutator(_) => sim.mutator_next(t),
            Role::Background => sim.background_sleep(t),
            Role::System(c) => sim.system_start(t, c),
            Role::Daemon | Role::Jit => {}
        }
    }
    sim.start_tick();
    sim.run_loop(cancel, progress, total_bytes)?;
    progress.report(1.0);
    Ok(finish(sim, sc))
}

/// Sorts `pauses` by (start, mutator). Each mutator's pauses are recorded in start order — a pause starts no
/// earlier than the mutator's previous one ended ([`Sim::close_pause_at`], `pause_closed_until`) — so the sort is
/// a merge of `mutators` sorted runs, O(n·mutators) where a general sort of the interleaved runs is O(n log n)
/// (237 k pauses on android/lusearch). Keys are then unique, so the merge gives exactly the sort's order; a run
/// found out of order falls back to the sort.
fn sort_pauses(pauses: &mut [crate::run::Pause], mutators: usize) {
    let mut runs: Vec<Vec<crate::run::Pause>> = vec![Vec::new(); mutators];
    for p in pauses.iter() {
        match runs.get_mut(p.mutator as usize) {
            Some(r) if r.last().is_none_or(|l| l.start < p.start) => r.push(*p),
            _ => {
                pauses.sort_by_key(|p| (p.start, p.mutator));
                return;
            }
        }
    }
    let mut heads = vec![0usize; mutators];
    for slot in pauses.iter_mut() {
        // The run whose head starts first; the lower mutator on a tie (scanning up, strictly earlier wins).
        let mut best: Option<(usize, u64)> = None;
        for (m, run) in runs.iter().enumerate() {
            if let Some(p) = run.get(heads[m])
                && best.is_none_or(|(_, start)| p.start.0 < start)
            {
                best = Some((m, p.start.0));
            }
        }
        // As many pauses as in the runs: a head is always left.
        let Some((m, _)) = best else {
            break;
        };
        *slot = runs[m][heads[m]];
        heads[m] += 1;
    }
}

fn finish(mut sim: Sim<'_>, sc: &Scenario) -> Run {
    sim.close_all();
    let end = sim.now.max(1);
    for t in 0..sim.threads.len() {
        if sim.threads[t].pause.is_some() {
            sim.close_pause(t);
        }
    }
    sort_pauses(&mut sim.pauses, sim.mutator_count);
    let f = sc.file();
    let cpu = sim.cpu.finish(SimTime(end));
    let e = cpu.energy_by_use();
    let time = cpu.cores.iter().fold((0u64, 0u64, 0u64), |acc, c| {
        (
            acc.0 + c.time.mutator_ns,
            acc.1 + c.time.gc_ns,
            acc.2 + c.time.other_ns,
        )
    });
    // The other processes ([`system`]) ran on the same cores — in the energy and what the governors saw — but the
    // app's statistics (GC CPU share, Table 3, context switches) are the app's threads' only.
    let is_app = |t: &state::Thread| !matches!(t.role, Role::System(_));
    let system_ns: u64 = sim
        .threads
        .iter()
        .filter(|t| !is_app(t))
        .map(|t| t.cpu_ns)
        .sum();
    let busy = (time.0 + time.1 + time.2.saturating_sub(system_ns)) as f64;
    let energy = EnergySummary {
        total: cpu.total_j(),
        cpu: cpu.total_j(),
        gc: e.gc_j,
        mutator: e.mutator_j,
        other: Some(e.other_j),
        idle: Some(e.idle_j),
        offline: Some(e.offline_j),
        uncore: Some(cpu.uncore_j),
        ..EnergySummary::default()
    };
    let (mmu, max_pause_ns) = crate::run::pause_metrics(&sim.pauses, sim.mutator_count as u32, end);
    // Counted per kind first: a run has a few hundred thousand pauses, and a key string each would allocate. The
    // longest per kind in the same pass: Table 1's Max-Pause is the longest safepoint or foreground one.
    let (mut counts, mut longest_ns) = ([0u64; 3], [0u64; 3]);
    for p in &sim.pauses {
        let k = match p.kind {
            PauseKind::Safepoint => 0,
            PauseKind::Foreground => 1,
            PauseKind::ConcurrentWait => 2,
        };
        counts[k] += 1;
        longest_ns[k] = longest_ns[k].max(p.end.0 - p.start.0);
    }
    let by_kind: BTreeMap<String, u64> = ["safepoint", "foreground", "concurrent_wait"]
        .into_iter()
        .zip(counts)
        .filter(|&(_, n)| n > 0)
        .map(|(k, n)| (k.to_string(), n))
        .collect();
    let mut by_trigger = Trigger::count_map(&sim.trigger_counts);
    if sim.kind == crate::CollectorKind::Gencms {
        by_trigger.insert("minor".into(), sim.minors);
        by_trigger.insert("major".into(), sim.majors);
    }
    let mean_obj = sim.prof.mean_object_bytes();
    let summary = Summary {
        platform: "android-krait".into(),
        collector: f.collector.kind.name().into(),
        execution_time_s: end as f64 * 1e-9,
        allocations: (sim.clock_bytes as f64 / mean_obj).round() as u64,
        allocated_bytes: sim.clock_bytes,
        collections: sim.gc_events.len() as u64,
        collections_by_trigger: by_trigger,
        energy_j: energy,
        gc_cpu_fraction: if busy > 0.0 {
            time.1 as f64 / busy
        } else {
            0.0
        },
        max_pause_ms: max_pause_ns as f64 * 1e-6,
        frequency_transitions: cpu.timeline.total_transitions(),
        execution_cycles: None,
        out_of_memory: sim.oom,
        mmu,
        bank_wakeups: None,
        mean_powered_banks: None,
        peak_live_bytes: sim.peak_live,
        migrations: Some(
            sim.threads
                .iter()
                .filter(|t| is_app(t))
                .map(|t| t.migrations)
                .sum(),
        ),
        delayed_time_s: Some(
            sim.threads
                .iter()
                .filter(|t| is_app(t))
                .map(|t| t.delayed_ns)
                .sum::<u64>() as f64
                * 1e-9,
        ),
        time_at_frequency_s: Some(cpu.timeline.time_at_frequency_s()),
        heap_contentions: Some(sim.contentions),
        context_switches: Some(sim.context_switches),
        mean_live_bytes: Some(if sim.clock_bytes > 0 {
            (sim.live_clock_sum / sim.clock_bytes as f64) as u64
        } else {
            0
        }),
        end_live_bytes: Some(sim.live),
        pauses_by_kind: Some(by_kind),
        max_stop_pause_ms: Some(longest_ns[0].max(longest_ns[1]) as f64 * 1e-6),
        alloc_waits: Some(sim.alloc_waits),
        page_faults: Some(sim.page_faults),
    };
    let threads = sim
        .threads
        .iter()
        .map(|t| ThreadInfo {
            name: t.name.clone(),
            cpu_ns: t.cpu_ns,
            migrations: t.migrations,
            delayed_ns: t.delayed_ns,
        })
        .collect();
    let bank = f.heap.bank_size.0.max(1);
    // The map's top, from the pieces placed (a streamed layout keeps no objects).
    let top = sim
        .layout
        .as_ref()
        .filter(|_| f.record.layout)
        .and_then(layout::AndroidLayout::top);
    let layout = sim
        .layout
        .take()
        .filter(|_| f.record.layout)
        .map(layout::AndroidLayout::finish)
        .unwrap_or_default();
    // The heap's address range as the run grew it: the map's top rounded up to a bank (the growth limit is a
    // reservation the footprint rarely reaches; 96 MiB would squeeze a 10 MiB heap into a sliver of the map).
    let span = top
        .map_or(sim.growth_limit, |t| t.max(1).div_ceil(bank) * bank)
        .min(sim.growth_limit);
    Run {
        summary,
        duration: SimTime(end),
        geometry: HeapGeometry {
            heap_bytes: span,
            bank_bytes: bank,
            banks: (span / bank) as u32,
            permanent_start: span,
        },
        occupancy: sim.occupancy,
        banks: Vec::new(),
        gc_events: sim.gc_events,
        pauses: sim.pauses,
        layout,
        bank_leakage_j: Vec::new(),
        cpu: Some(cpu),
        cpu_activity: sim.activity,
        threads,
    }
}
