//! [`Cpu`]: the cores, their governor, hotplug, energy meter and timeline — the one type the engine drives.
//!
//! The engine reports what each core does ([`Cpu::set_busy`] with a [`CpuTag`], [`Cpu::set_idle`],
//! [`Cpu::set_iowait`]) and how many threads are runnable ([`Cpu::set_runnable`]); it calls [`Cpu::on_tick`] at
//! [`Cpu::next_event_time`] and applies the [`CpuChange`]s returned. Within one tick, due governor samples run
//! first, in core order, then a due hotplug decision (which sees the new frequencies). Times never go backwards:
//! an earlier time than the latest seen is taken as the latest — so the engine must run `on_tick` at
//! `next_event_time` *before* reporting anything later, or the late tick runs (and re-schedules) at that later time. Calls about an offline core are ignored (and
//! counted in [`CpuReport::ignored_offline_calls`]): the engine must not run threads there.
//!
//! Run start: cores `0..k` are online (k from the hotplug policy: 1 for mpdecision by default, all for none), at
//! `start_freq_mhz` (or where the governor puts them), idle since long before — so an idle core starts in the
//! deepest idle mode the LPM policy allows, with no entry cost. A core taken offline keeps its clock and comes
//! back at it (Krait acpuclock's `prev_khz`), then idles until the engine runs something on it.

use super::governor::{CpuView, FreqRequest, Governor};
use super::hotplug::{Hotplug, HotplugAction, HotplugView, RunQueueMeter};
use super::meter::{CoreEnergy, CoreTime, CpuTag, EnergyMeter, Use};
use super::opp::{Relation, mhz_to_khz};
use super::power::{BusyFit, IdleState, PowerModel};
use super::timeline::{CpuTimeline, TimelineRecorder};
use super::{CpuConfig, HotplugKind, OppTable, Work};
use crate::units::SimTime;

/// A change the engine must react to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuChange {
    /// A core's clock changed: re-time the work running there.
    Freq {
        /// The core.
        core: usize,
        /// Old clock. `[kHz]`
        from_khz: u32,
        /// New clock. `[kHz]`
        to_khz: u32,
    },
    /// A core came online (idle).
    Online {
        /// The core.
        core: usize,
    },
    /// A core went offline: move its threads elsewhere.
    Offline {
        /// The core.
        core: usize,
    },
}

/// One core's totals.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CoreReport {
    /// Energy by use.
    pub energy: CoreEnergy,
    /// Time by use.
    pub time: CoreTime,
}

/// Everything the CPU recorded in a run.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuReport {
    /// End of the run. `[ns]`
    pub end_ns: u64,
    /// Per-core energy and time.
    pub cores: Vec<CoreReport>,
    /// Uncore/L2 energy. `[J]`
    pub uncore_j: f64,
    /// Spans, transitions, time at frequency, power over time.
    pub timeline: CpuTimeline,
    /// The busy-power fit in use (for the record).
    pub fit: BusyFit,
    /// Governor name.
    pub governor: String,
    /// Hotplug policy name.
    pub hotplug: String,
    /// Calls about offline cores that were ignored.
    pub ignored_offline_calls: u64,
}

impl CpuReport {
    /// Energy of all cores by use (uncore not included). `[J]`
    pub fn energy_by_use(&self) -> CoreEnergy {
        let mut e = CoreEnergy::default();
        for c in &self.cores {
            e.add(&c.energy);
        }
        e
    }

    /// All CPU energy: cores and uncore. `[J]`
    pub fn total_j(&self) -> f64 {
        self.energy_by_use().total_j() + self.uncore_j
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Activity {
    Busy(CpuTag),
    Idle,
    IoWait,
}

#[derive(Debug, Clone)]
struct Core {
    online: bool,
    opp: usize,
    activity: Activity,
    seg_start_ns: u64,
    idle_state: IdleState,
    idle_start_ns: u64,
    last_idle_ns: u64,
    win_start_ns: u64,
    win_busy_ns: u64,
    next_sample_ns: Option<u64>,
}

/// The CPU of the android-krait platform.
pub struct Cpu {
    table: OppTable,
    min_khz: u32,
    max_khz: u32,
    power: PowerModel,
    governor: Box<dyn Governor>,
    hotplug: Box<dyn Hotplug>,
    io_is_busy: bool,
    cores: Vec<Core>,
    rq: RunQueueMeter,
    meter: EnergyMeter,
    rec: TimelineRecorder,
    last_ns: u64,
    ignored: u64,
}

impl Cpu {
    /// A CPU of `cores` cores configured by `cfg`, at time 0. Fails like [`CpuConfig::validate`], or with field
    /// `cores` when there are none (or more than 4 under mpdecision, whose thresholds cover a quad-core).
    pub fn new(cfg: &CpuConfig, cores: usize) -> Result<Cpu, (String, String)> {
        cfg.validate()?;
        if cores == 0 || (cfg.hotplug == HotplugKind::Mpdecision && cores > 4) {
            return Err((
                "cores".into(),
                "expected 1 to 4 cores (1 or more without hotplug)".into(),
            ));
        }
        let table = cfg.table()?;
        let (min_khz, max_khz) =
            table.snap_limits(mhz_to_khz(cfg.min_freq_mhz), mhz_to_khz(cfg.max_freq_mhz));
        let start = table.target(
            mhz_to_khz(cfg.start_freq_mhz),
            Relation::L,
            min_khz,
            max_khz,
        );
        let power = PowerModel::new(&cfg.power, &table, cores);
        let hotplug = cfg.hotplug.create(&cfg.mpdecision);
        let online = hotplug.initial_online(cores);
        let core = |i: usize| Core {
            online: i < online,
            opp: start,
            activity: Activity::Idle,
            seg_start_ns: 0,
            idle_state: power.idle_state(u64::MAX),
            idle_start_ns: 0,
            last_idle_ns: u64::MAX,
            win_start_ns: 0,
            win_busy_ns: 0,
            next_sample_ns: None,
        };
        let window_ns = cfg.power_window_ms * 1_000_000;
        let mut cpu = Cpu {
            governor: cfg.governor.create(&cfg.ondemand),
            hotplug,
            io_is_busy: cfg.ondemand.io_is_busy,
            cores: (0..cores).map(core).collect(),
            rq: RunQueueMeter::default(),
            meter: EnergyMeter::new(cores, window_ns),
            rec: TimelineRecorder::new(&[]),
            last_ns: 0,
            ignored: 0,
            table,
            min_khz,
            max_khz,
            power,
        };
        for c in 0..cores {
            if cpu.cores[c].online {
                let snap = cpu.view(0);
                let d = cpu.governor.start(c, &snap.as_view());
                cpu.cores[c].next_sample_ns = d.next_sample_ns;
                if let Some(r) = d.request {
                    cpu.cores[c].opp = cpu.table.target(r.target_khz, r.relation, min_khz, max_khz);
                }
            }
        }
        let initial: Vec<Option<u32>> = (0..cores).map(|c| cpu.state_khz(c)).collect();
        cpu.rec = TimelineRecorder::new(&initial);
        Ok(cpu)
    }

    /// Number of cores.
    pub fn cores(&self) -> usize {
        self.cores.len()
    }

    /// The operating-point table.
    pub fn table(&self) -> &OppTable {
        &self.table
    }

    /// The power model.
    pub fn power_model(&self) -> &PowerModel {
        &self.power
    }

    /// Current clock of `core` (the clock it will resume at, when offline). `[kHz]`
    pub fn freq_khz(&self, core: usize) -> u32 {
        self.table.opp(self.cores[core].opp).freq_khz
    }

    /// Current clock of `core`. `[MHz]`
    pub fn freq_mhz(&self, core: usize) -> f64 {
        f64::from(self.freq_khz(core)) / 1000.0
    }

    /// Whether `core` is online.
    pub fn is_online(&self, core: usize) -> bool {
        self.cores[core].online
    }

    /// Number of online cores.
    pub fn online_count(&self) -> usize {
        self.cores.iter().filter(|c| c.online).count()
    }

    /// Time `work` would take on `core` at its current clock. `[ns]`
    pub fn work_time_ns(&self, core: usize, work: &Work) -> u64 {
        work.time_ns(self.freq_khz(core))
    }

    fn state_khz(&self, core: usize) -> Option<u32> {
        self.cores[core].online.then(|| self.freq_khz(core))
    }

    fn clock(&mut self, now: SimTime) -> u64 {
        self.last_ns = self.last_ns.max(now.as_nanos());
        self.last_ns
    }

    fn view(&self, now_ns: u64) -> Snapshot {
        Snapshot {
            now_ns,
            online: self.cores.iter().map(|c| c.online).collect(),
            cur_khz: (0..self.cores.len()).map(|c| self.freq_khz(c)).collect(),
            min_khz: self.min_khz,
            max_khz: self.max_khz,
        }
    }

    /// Charges `core` up to `now_ns` in its current state.
    fn settle(&mut self, core: usize, now_ns: u64) {
        let c = &self.cores[core];
        let from = c.seg_start_ns;
        if now_ns <= from {
            return;
        }
        let (usage, mw, busy) = match (c.online, c.activity) {
            (false, _) => (Use::Offline, self.power.offline_mw(), false),
            (true, Activity::Busy(tag)) => (Use::Busy(tag), self.power.busy_mw(c.opp), true),
            (true, Activity::Idle) => (Use::Idle, self.power.idle_mw(c.idle_state, c.opp), false),
            (true, Activity::IoWait) => (
                Use::Idle,
                self.power.idle_mw(c.idle_state, c.opp),
                self.io_is_busy,
            ),
        };
        self.meter.charge(core, usage, from, now_ns, mw);
        let c = &mut self.cores[core];
        if busy {
            c.win_busy_ns += now_ns - from;
        }
        c.seg_start_ns = now_ns;
    }

    fn set_activity(&mut self, core: usize, now: SimTime, act: Activity) {
        let now = self.clock(now);
        if !self.cores[core].online {
            self.ignored += 1;
            return;
        }
        let old = self.cores[core].activity;
        if old == act {
            return;
        }
        self.settle(core, now);
        let busy = |a: Activity| matches!(a, Activity::Busy(_));
        let (was_busy, will_busy) = (busy(old), busy(act));
        if !was_busy && will_busy {
            let c = &mut self.cores[core];
            c.last_idle_ns = now - c.idle_start_ns;
        } else if was_busy && !will_busy {
            self.enter_idle(core, now);
        }
        self.cores[core].activity = act;
    }

    fn enter_idle(&mut self, core: usize, now_ns: u64) {
        let state = self.power.idle_state(self.cores[core].last_idle_ns);
        self.meter
            .charge_lump(core, Use::Idle, now_ns, self.power.idle_entry_j(state));
        let c = &mut self.cores[core];
        c.idle_state = state;
        c.idle_start_ns = now_ns;
    }

    /// The exit latency of the low-power mode `core` idles in, if it is online and idle now (0 when busy or
    /// offline). `[ns]`
    pub fn idle_exit_ns(&self, core: usize) -> u64 {
        let c = &self.cores[core];
        if c.online && matches!(c.activity, Activity::Idle | Activity::IoWait) {
            self.power.exit_latency_ns(c.idle_state)
        } else {
            0
        }
    }

    /// From `now` on, `core` runs work of `tag`.
    pub fn set_busy(&mut self, core: usize, now: SimTime, tag: CpuTag) {
        self.set_activity(core, now, Activity::Busy(tag));
    }

    /// From `now` on, `core` is idle.
    pub fn set_idle(&mut self, core: usize, now: SimTime) {
        self.set_activity(core, now, Activity::Idle);
    }

    /// From `now` on, `core` is idle waiting for I/O (busy for ondemand when `io_is_busy`, idle for power).
    pub fn set_iowait(&mut self, core: usize, now: SimTime) {
        self.set_activity(core, now, Activity::IoWait);
    }

    /// From `now` on, `runnable` threads are runnable (running or waiting) system-wide — the hotplug input.
    pub fn set_runnable(&mut self, now: SimTime, runnable: u32) {
        let now = self.clock(now);
        self.rq.set(now, runnable);
    }

    /// The next governor sample or hotplug decision (`None`: nothing is scheduled).
    pub fn next_event_time(&self) -> Option<SimTime> {
        let samples = self
            .cores
            .iter()
            .filter(|c| c.online)
            .filter_map(|c| c.next_sample_ns);
        samples
            .chain(self.hotplug.next_decision_ns())
            .min()
            .map(SimTime)
    }

    /// Runs every governor sample and hotplug decision due at or before `now`, at `now`; returns the changes
    /// in the order they happened.
    pub fn on_tick(&mut self, now: SimTime) -> Vec<CpuChange> {
        let now = self.clock(now);
        let mut changes = Vec::new();
        for core in 0..self.cores.len() {
            let c = &self.cores[core];
            if !c.online || c.next_sample_ns.is_none_or(|t| t > now) {
                continue;
            }
            self.settle(core, now);
            let c = &mut self.cores[core];
            let wall = now - c.win_start_ns;
            let load = if wall == 0 {
                0
            } else {
                (u128::from(c.win_busy_ns) * 100 / u128::from(wall)) as u32
            };
            c.win_start_ns = now;
            c.win_busy_ns = 0;
            let snap = self.view(now);
            let d = self.governor.sample(core, load.min(100), &snap.as_view());
            self.cores[core].next_sample_ns = d.next_sample_ns;
            if let Some(r) = d.request {
                self.apply(core, r, now, &mut changes);
            }
        }
        if self.hotplug.next_decision_ns().is_some_and(|t| t <= now) {
            let snap = self.view(now);
            let hv = HotplugView {
                now_ns: now,
                online: &snap.online,
                cur_khz: &snap.cur_khz,
            };
            match self.hotplug.decide(&hv, &mut self.rq) {
                HotplugAction::Stay => {}
                HotplugAction::Online(c) => self.bring_online(c, now, &mut changes),
                HotplugAction::Offline(c) => self.take_offline(c, now, &mut changes),
            }
        }
        changes
    }

    fn apply(&mut self, core: usize, r: FreqRequest, now_ns: u64, changes: &mut Vec<CpuChange>) {
        let idx = self
            .table
            .target(r.target_khz, r.relation, self.min_khz, self.max_khz);
        if idx == self.cores[core].opp {
            return;
        }
        self.settle(core, now_ns);
        let from_khz = self.freq_khz(core);
        self.cores[core].opp = idx;
        let to_khz = self.freq_khz(core);
        self.rec.set(core, now_ns, Some(to_khz));
        changes.push(CpuChange::Freq {
            core,
            from_khz,
            to_khz,
        });
    }

    fn bring_online(&mut self, core: usize, now_ns: u64, changes: &mut Vec<CpuChange>) {
        if core >= self.cores.len() || self.cores[core].online {
            return;
        }
        self.settle(core, now_ns);
        let khz = self.freq_khz(core);
        let c = &mut self.cores[core];
        c.online = true;
        c.activity = Activity::Idle;
        c.opp = self
            .table
            .target(khz, Relation::L, self.min_khz, self.max_khz);
        c.win_start_ns = now_ns;
        c.win_busy_ns = 0;
        self.enter_idle(core, now_ns);
        self.rec.set(core, now_ns, self.state_khz(core));
        changes.push(CpuChange::Online { core });
        let snap = self.view(now_ns);
        let d = self.governor.start(core, &snap.as_view());
        self.cores[core].next_sample_ns = d.next_sample_ns;
        if let Some(r) = d.request {
            self.apply(core, r, now_ns, changes);
        }
    }

    fn take_offline(&mut self, core: usize, now_ns: u64, changes: &mut Vec<CpuChange>) {
        if core == 0 || core >= self.cores.len() || !self.cores[core].online {
            return;
        }
        self.settle(core, now_ns);
        let c = &mut self.cores[core];
        c.online = false;
        c.activity = Activity::Idle;
        c.next_sample_ns = None;
        self.rec.set(core, now_ns, None);
        changes.push(CpuChange::Offline { core });
    }

    /// Ends the run at `now`: charges every core and the uncore up to it and returns the report.
    pub fn finish(mut self, now: SimTime) -> CpuReport {
        let end_ns = self.clock(now);
        for c in 0..self.cores.len() {
            self.settle(c, end_ns);
        }
        self.meter.charge_uncore(0, end_ns, self.power.uncore_mw());
        let cores = (0..self.cores.len())
            .map(|c| CoreReport {
                energy: self.meter.core_energy(c),
                time: self.meter.core_time(c),
            })
            .collect();
        CpuReport {
            end_ns,
            cores,
            uncore_j: self.meter.uncore_j(),
            timeline: self
                .rec
                .finish(end_ns, self.meter.window_ns(), self.meter.window_j()),
            fit: self.power.fit(),
            governor: self.governor.name().to_string(),
            hotplug: self.hotplug.name().to_string(),
            ignored_offline_calls: self.ignored,
        }
    }
}

/// Owned copies of the per-core state a policy looks at (so the policy can be borrowed mutably meanwhile).
struct Snapshot {
    now_ns: u64,
    online: Vec<bool>,
    cur_khz: Vec<u32>,
    min_khz: u32,
    max_khz: u32,
}

impl Snapshot {
    fn as_view(&self) -> CpuView<'_> {
        CpuView {
            now_ns: self.now_ns,
            online: &self.online,
            cur_khz: &self.cur_khz,
            min_khz: self.min_khz,
            max_khz: self.max_khz,
        }
    }
}

#[cfg(test)]
#[path = "system_tests.rs"]
mod tests;
