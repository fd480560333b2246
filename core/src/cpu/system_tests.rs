//! Tests of [`Cpu`] driven like the engine will drive it: busy/idle switches, ticks at `next_event_time`.

use super::*;
use crate::cpu::{GovernorKind, HotplugKind};

const MS: u64 = 1_000_000;
const MAX: u32 = 2_150_400;

fn cfg(governor: GovernorKind, hotplug: HotplugKind, start_mhz: f64) -> CpuConfig {
    CpuConfig {
        governor,
        hotplug,
        start_freq_mhz: start_mhz,
        ..CpuConfig::default()
    }
}

/// Advances the CPU to `t_ns`, running every tick on the way; returns all changes.
fn run_until(cpu: &mut Cpu, t_ns: u64) -> Vec<CpuChange> {
    let mut all = Vec::new();
    while let Some(t) = cpu.next_event_time().filter(|t| t.0 <= t_ns) {
        all.extend(cpu.on_tick(t));
    }
    all
}

/// Every `period_ns`, core `core` gets `cycles` of pure compute to run; it idles once done. Runs to `until_ns`.
fn periodic_work(cpu: &mut Cpu, core: usize, cycles: u64, period_ns: u64, until_ns: u64) {
    let (mut t, mut period_start) = (0u64, 0u64);
    let mut left = Work {
        cycles,
        stall_ns: 0,
    };
    cpu.set_busy(core, SimTime(0), CpuTag::Mutator);
    while t < until_ns {
        let f = cpu.freq_khz(core);
        let done_at = if left.is_done() {
            u64::MAX
        } else {
            t + left.time_ns(f)
        };
        let tick = cpu.next_event_time().map_or(u64::MAX, |s| s.0);
        let next = done_at
            .min(tick)
            .min(period_start + period_ns)
            .min(until_ns);
        left = left.remaining_after(next - t, f);
        t = next;
        if t == done_at {
            cpu.set_idle(core, SimTime(t));
        }
        if t == period_start + period_ns {
            period_start = t;
            left = Work {
                cycles,
                stall_ns: 0,
            };
            cpu.set_busy(core, SimTime(t), CpuTag::Mutator);
        }
        if t == tick {
            cpu.on_tick(SimTime(t));
        }
    }
}

#[test]
fn busy_core_jumps_to_max_and_holds_for_sampling_down_factor_periods() {
    let mut cpu = Cpu::new(&cfg(GovernorKind::Ondemand, HotplugKind::None, 300.0), 1).unwrap();
    cpu.set_busy(0, SimTime(0), CpuTag::Gc);
    assert_eq!(cpu.next_event_time(), Some(SimTime(50 * MS)));
    let ch = cpu.on_tick(SimTime(50 * MS));
    assert_eq!(
        ch,
        vec![CpuChange::Freq {
            core: 0,
            from_khz: 300_000,
            to_khz: MAX
        }]
    );
    cpu.set_idle(0, SimTime(50 * MS));
    assert_eq!(
        cpu.next_event_time(),
        Some(SimTime(150 * MS)),
        "next sample 2 × 50 ms later"
    );
    run_until(&mut cpu, 149 * MS);
    assert_eq!(
        cpu.freq_khz(0),
        MAX,
        "idle but still at max until the deferred sample"
    );
    run_until(&mut cpu, 150 * MS);
    assert_eq!(cpu.freq_khz(0), 300_000, "load 0 → policy min");
    let r = cpu.finish(SimTime(200 * MS));
    assert!(
        (r.timeline.time_at_frequency_s()["2150.4"] - 0.100).abs() < 1e-12,
        "at max for exactly 100 ms"
    );
    assert_eq!(r.timeline.total_transitions(), 2);
}

#[test]
fn thirty_percent_load_settles_at_the_lowest_step_above_load_over_80_percent() {
    // 30 % of 2150.4 MHz = 645.12 MHz of work; 645.12 / (90 − 10) % = 806.4 MHz → RELATION_L → 883.2 MHz,
    // where the load is 73 % (< 80: no further step down, < 90: no jump up).
    let mut cpu = Cpu::new(&cfg(GovernorKind::Ondemand, HotplugKind::None, 2150.4), 1).unwrap();
    let cycles = 6_451_200; // 30 % of 10 ms at 2150.4 MHz
    periodic_work(&mut cpu, 0, cycles, 10 * MS, 2000 * MS);
    assert_eq!(cpu.freq_khz(0), 883_200);
    let r = cpu.finish(SimTime(2000 * MS));
    assert_eq!(r.timeline.total_transitions(), 1, "one step, then steady");
    assert!(
        r.cores[0].time.mutator_ns > 1_400 * MS,
        "busy ≈ 73 % of the time at 883.2 MHz"
    );
}

#[test]
fn multi_core_floor_holds_a_light_core_at_sync_freq() {
    let mut cpu = Cpu::new(&cfg(GovernorKind::Ondemand, HotplugKind::None, 300.0), 2).unwrap();
    cpu.set_busy(0, SimTime(0), CpuTag::Mutator);
    // Core 1 works 5 % of every 10 ms at whatever clock it has.
    let mut t = 0;
    while t < 1000 * MS {
        cpu.set_busy(1, SimTime(t), CpuTag::Other);
        cpu.set_idle(1, SimTime(t + MS / 2));
        t += 10 * MS;
        run_until(&mut cpu, t);
    }
    assert_eq!(cpu.freq_khz(0), MAX);
    assert_eq!(
        cpu.freq_khz(1),
        960_000,
        "sync_freq floor while core 0 is loaded"
    );
    let lone = {
        let mut c = Cpu::new(&cfg(GovernorKind::Ondemand, HotplugKind::None, 960.0), 1).unwrap();
        run_until(&mut c, 100 * MS);
        c.freq_khz(0)
    };
    assert_eq!(lone, 300_000, "no floor with one core");
}

#[test]
fn idle_system_decays_to_the_minimum() {
    let mut cpu = Cpu::new(&cfg(GovernorKind::Ondemand, HotplugKind::None, 2150.4), 4).unwrap();
    let ch = run_until(&mut cpu, 50 * MS);
    assert_eq!(ch.len(), 4, "every core steps down at the first sample");
    // Cores 0–2 still see a later core at max (while at ≥ optimal_freq): max_load_other is forced to 80 and
    // the sync floor (80 > 70 − 10) stops them at 960 MHz; core 3 sees none and drops to 300 MHz.
    let f: Vec<u32> = (0..4).map(|c| cpu.freq_khz(c)).collect();
    assert_eq!(f, vec![960_000, 960_000, 960_000, 300_000]);
    run_until(&mut cpu, 100 * MS);
    assert!(
        (0..4).all(|c| cpu.freq_khz(c) == 300_000),
        "all at the minimum by the second sample"
    );
    let r = cpu.finish(SimTime(1000 * MS));
    let t = r.timeline.time_at_frequency_s();
    assert!((t["300"] - (0.95 + 3.0 * 0.9)).abs() < 1e-9, "{t:?}");
    assert!((t["960"] - 0.15).abs() < 1e-9);
}

#[test]
fn run_queue_brings_core_one_online_and_low_load_takes_it_off() {
    let mut cpu = Cpu::new(&CpuConfig::default(), 4).unwrap();
    assert_eq!(cpu.online_count(), 1, "mpdecision starts with one core");
    cpu.set_busy(0, SimTime(0), CpuTag::Mutator);
    cpu.set_runnable(SimTime(0), 2); // rq 2.0 ≥ 1.2
    let ch = run_until(&mut cpu, 300 * MS);
    assert!(ch.contains(&CpuChange::Online { core: 1 }), "{ch:?}");
    assert!(
        cpu.is_online(1),
        "after TwTs = 140 ms of rq ≥ 1.2 (decisions at 100, 200, 300 ms)"
    );
    assert!(!cpu.is_online(2));
    // Load stops at 400 ms. rq ≤ 2.0 from then on, but at 450 ms core 0 steps down only to 1497.6 MHz and core 1
    // is held at sync_freq (core 0's max_load is 100): the slowest online core is above idle_freq → vetoed.
    run_until(&mut cpu, 400 * MS);
    cpu.set_idle(0, SimTime(400 * MS));
    cpu.set_runnable(SimTime(400 * MS), 0);
    run_until(&mut cpu, 450 * MS);
    assert_eq!((cpu.freq_khz(0), cpu.freq_khz(1)), (1_497_600, 960_000));
    assert!(
        cpu.is_online(1),
        "vetoed while the slowest online core is above idle_freq"
    );
    // At 500 ms core 0 reaches 300 MHz (≤ 486): the slowest online core qualifies and core 1 (the slowest other
    // than core 0) goes, after rq ≤ 2.0 has held 190 ms since the up decision.
    let ch = run_until(&mut cpu, 500 * MS);
    assert_eq!(ch.last(), Some(&CpuChange::Offline { core: 1 }), "{ch:?}");
    cpu.set_busy(1, SimTime(650 * MS), CpuTag::Gc);
    let r = cpu.finish(SimTime(1000 * MS));
    assert_eq!(r.ignored_offline_calls, 1);
    assert_eq!((r.timeline.onlines, r.timeline.offlines), (1, 1));
    let t = r.timeline.time_at_frequency_s();
    assert!(
        (t.values().sum::<f64>() - 4.0).abs() < 1e-9,
        "4 cores × 1 s"
    );
    assert!(
        (t["offline"] - 2.8).abs() < 1e-9,
        "cores 2, 3 all along; core 1 outside 300–500 ms"
    );
}

#[test]
fn sync_floor_and_idle_freq_check_keep_a_second_core_online() {
    // Core 0 is fully busy (one thread: rq 1.0 ≤ 2.0 asks for 2 → 1), core 1 idles. Ondemand holds core 1 at
    // sync_freq = 960 MHz because core 0 is loaded; 960 > idle_freq 486 vetoes the unplug for ever.
    let mut c = CpuConfig::default();
    c.mpdecision.start_online_cores = 2;
    let run = |c: &CpuConfig| {
        let mut cpu = Cpu::new(c, 4).unwrap();
        cpu.set_busy(0, SimTime(0), CpuTag::Gc);
        cpu.set_runnable(SimTime(0), 1);
        run_until(&mut cpu, 3000 * MS);
        (cpu.is_online(1), cpu.freq_khz(1))
    };
    assert_eq!(run(&c), (true, 960_000), "never offlined");
    c.mpdecision.idle_freq_check = false;
    assert!(!run(&c).0, "without the check core 1 goes offline");
}

#[test]
fn energy_of_an_idle_and_a_busy_second() {
    let perf = cfg(GovernorKind::Performance, HotplugKind::None, 300.0);
    let idle = Cpu::new(&perf, 1).unwrap();
    let m = idle.power_model().clone();
    let r_idle = idle.finish(SimTime(1000 * MS));
    let pc = m.idle_mw(crate::cpu::power::IdleState::Pc, 13);
    assert!(
        (r_idle.total_j() - (m.uncore_mw() + pc) * 1e-3).abs() < 1e-12,
        "idle: uncore + PC"
    );
    let mut busy = Cpu::new(&perf, 1).unwrap();
    busy.set_busy(0, SimTime(0), CpuTag::Mutator);
    busy.set_busy(0, SimTime(500 * MS), CpuTag::Gc);
    let r_busy = busy.finish(SimTime(1000 * MS));
    let e = r_busy.energy_by_use();
    assert!((e.mutator_j - e.gc_j).abs() < 1e-12, "half each");
    assert!((r_busy.total_j() - (m.uncore_mw() + m.busy_mw(13)) * 1e-3).abs() < 1e-12);
    assert!(
        r_busy.total_j() > 10.0 * r_idle.total_j(),
        "{} J vs {} J",
        r_busy.total_j(),
        r_idle.total_j()
    );
    let windows: f64 = r_busy
        .timeline
        .power
        .iter()
        .map(|p| p.power_mw * 1e-2 * 1e-3)
        .sum();
    assert!(
        (windows - r_busy.total_j()).abs() < 1e-9,
        "power series integrates to the total"
    );
    assert_eq!(r_busy.timeline.power.len(), 100, "10 ms windows");
}

#[test]
fn iowait_counts_busy_for_the_governor_but_idle_for_power() {
    let mut cpu = Cpu::new(&cfg(GovernorKind::Ondemand, HotplugKind::None, 300.0), 1).unwrap();
    cpu.set_iowait(0, SimTime(0));
    run_until(&mut cpu, 50 * MS);
    assert_eq!(cpu.freq_khz(0), MAX, "io_is_busy: 100 % load");
    let r = cpu.finish(SimTime(50 * MS));
    assert_eq!(r.cores[0].time.idle_ns, 50 * MS, "charged as idle");
}

fn scripted(cores: usize) -> CpuReport {
    let mut cpu = Cpu::new(&CpuConfig::default(), cores).unwrap();
    let mut x: u64 = 12345;
    let mut t = 0;
    while t < 3000 * MS {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let core = (x >> 33) as usize % cores;
        if cpu.is_online(core) {
            match (x >> 40) % 3 {
                0 => cpu.set_busy(core, SimTime(t), CpuTag::Mutator),
                1 => cpu.set_busy(core, SimTime(t), CpuTag::Gc),
                _ => cpu.set_idle(core, SimTime(t)),
            }
        }
        cpu.set_runnable(SimTime(t), ((x >> 50) % 5) as u32);
        t += (x >> 20) % (7 * MS);
        run_until(&mut cpu, t);
    }
    cpu.finish(SimTime(t))
}

#[test]
fn same_calls_give_the_same_report() {
    let (a, b) = (scripted(4), scripted(4));
    assert_eq!(a, b, "bit-identical");
    assert!(
        a.timeline.total_transitions() > 10 && a.timeline.onlines > 0,
        "the script exercises DVFS and hotplug"
    );
    let t = a.timeline.time_at_frequency_s();
    assert!((t.values().sum::<f64>() - 4.0 * a.end_ns as f64 * 1e-9).abs() < 1e-6);
    let per_window: f64 = a
        .timeline
        .power
        .iter()
        .map(|p| p.power_mw * (p.end_ns - p.start_ns) as f64 * 1e-12)
        .sum();
    assert!((per_window - a.total_j()).abs() < 1e-9 * a.total_j().max(1.0));
}
