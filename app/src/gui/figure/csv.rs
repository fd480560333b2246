//! A figure's CSV (issue #19 item 6): the data the view on screen draws, per view kind and per source — the
//! simulated run, an opened GC log or a recorded trace — with the pinned baseline's series beside the current one
//! wherever the view draws it. Views that draw several plots (the overview; a log's pause and heap plots) write one
//! long table, `plot,series,x,y`, one row per drawn point.

use std::fmt::Write as _;

use crate::gui::analysis::RunView;
use crate::gui::format::csv_ms;
use crate::gui::log::LogView;
use crate::gui::state::{AppState, Source, ViewKind};
use crate::gui::sweep::SweepState;
use crate::gui::trace::TraceReplay;

/// The header of a long table.
pub const LONG: &str = "plot,series,x,y\n";

/// The data the view on screen draws, as CSV.
pub fn view_csv(st: &AppState, sweep: &SweepState, tradeoff: &SweepState) -> String {
    let view = st.settings.view;
    if view == ViewKind::Pareto {
        return pareto(st);
    }
    match &st.source {
        Source::Log(l) => return of_log(st, l, view),
        Source::Trace(t) => return of_trace(t),
        Source::Run => {}
    }
    match view {
        ViewKind::TradeOff => {
            return tradeoff.result.as_ref().map_or_else(
                || note("no trade-off sweep has run"),
                |r| crate::gui::views::tradeoff::csv(r, st.mmu_window_ms),
            );
        }
        ViewKind::Sweep => return sweep_csv(sweep),
        _ => {}
    }
    let Some(v) = &st.current else {
        return note("no run yet");
    };
    let base: Option<&RunView> = st.baseline_run().map(|b| &**b);
    match view {
        ViewKind::Mmu => minmu(st),
        ViewKind::Energy => energy(v, base),
        ViewKind::Cpu => cpu(v, base),
        ViewKind::Layout => occupancy(v, base),
        _ => {
            let mut s = String::from(LONG);
            for (series, run) in [("current", Some(&**v)), ("baseline", base)] {
                let Some(run) = run else { continue };
                for o in &run.run.occupancy {
                    let t = o.time.0 as f64 * 1e-9;
                    for (name, b) in [
                        ("live_bytes", o.live_bytes),
                        ("dead_bytes", o.dead_bytes),
                        ("free_bytes", o.free_bytes),
                    ] {
                        let _ = writeln!(s, "occupancy time_s,{series} {name},{t},{b}");
                    }
                }
            }
            s.push_str(&minmu(st).lines().skip(1).fold(String::new(), |mut a, l| {
                let _ = writeln!(a, "minmu window_ms,{l}");
                a
            }));
            for (series, run) in [("current", Some(&**v)), ("baseline", base)] {
                let Some(run) = run else { continue };
                for (name, j) in parts(run) {
                    let _ = writeln!(s, "energy J,{series},{name},{j}");
                }
            }
            s
        }
    }
}

/// A one-line CSV saying why there is no data.
fn note(why: &str) -> String {
    format!("note\n{why}\n")
}

/// MinMU curves as drawn (current, then the baseline — a run or a log): `series,window_ms,minmu`.
fn minmu(st: &AppState) -> String {
    let mut s = String::from("series,window_ms,minmu\n");
    let curves = [
        ("current", st.shown()),
        ("baseline", st.baseline.as_ref().map(|b| b.shown())),
    ];
    for (series, shown) in curves {
        if let Some(m) = shown.and_then(|s| s.minmu()) {
            for p in m.curve {
                let _ = writeln!(s, "{series},{},{}", csv_ms(10f64.powf(p.x)), p.y);
            }
        }
    }
    s
}

/// The energy parts a run's bars draw, and its total.
fn parts(v: &RunView) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = v
        .energy
        .scheme
        .names()
        .iter()
        .zip(v.energy.parts)
        .filter(|((name, _), _)| !name.is_empty())
        .map(|((name, _), j)| ((*name).to_string(), j))
        .collect();
    out.push(("total".into(), v.energy.total));
    out
}

/// The energy bars: `part,energy_j` and, with a run pinned, `baseline_energy_j`.
fn energy(v: &RunView, base: Option<&RunView>) -> String {
    let b = base.map(parts);
    let mut s = String::from("part,energy_j");
    s.push_str(if b.is_some() {
        ",baseline_energy_j\n"
    } else {
        "\n"
    });
    for (name, j) in parts(v) {
        let _ = write!(s, "{name},{j}");
        if let Some(b) = &b {
            let bj = b.iter().find(|(n, _)| *n == name).map(|(_, j)| *j);
            let _ = write!(s, ",{}", bj.map_or(String::new(), |j| j.to_string()));
        }
        s.push('\n');
    }
    s
}

/// The CPU view: each core's frequency spans (MHz, empty when offline) and the CPU power steps (mW), current and
/// baseline: `plot,series,core,start_s,end_s,value`.
fn cpu(v: &RunView, base: Option<&RunView>) -> String {
    let mut s = String::from("plot,series,core,start_s,end_s,value\n");
    for (series, run) in [("current", Some(v)), ("baseline", base)] {
        let Some(c) = run.and_then(|r| r.cpu.as_ref()) else {
            continue;
        };
        for f in &c.spans {
            let mhz = f
                .freq_khz
                .map_or(String::new(), |k| (f64::from(k) / 1e3).to_string());
            let _ = writeln!(
                s,
                "frequency MHz,{series},{},{},{},{mhz}",
                f.core,
                f.start_ns as f64 * 1e-9,
                f.end_ns as f64 * 1e-9
            );
        }
        for p in &c.power {
            let _ = writeln!(
                s,
                "power mW,{series},,{},{},{}",
                p.start_ns as f64 * 1e-9,
                p.end_ns as f64 * 1e-9,
                p.power_mw
            );
        }
    }
    s
}

/// The heap map's run(s) over time: `series,time_ns,live_bytes,dead_bytes,free_bytes`.
fn occupancy(v: &RunView, base: Option<&RunView>) -> String {
    let mut s = String::from("series,time_ns,live_bytes,dead_bytes,free_bytes\n");
    for (series, run) in [("current", Some(v)), ("baseline", base)] {
        let Some(run) = run else { continue };
        for o in &run.run.occupancy {
            let _ = writeln!(
                s,
                "{series},{},{},{},{}",
                o.time.0, o.live_bytes, o.dead_bytes, o.free_bytes
            );
        }
    }
    s
}

/// The collector sweep's points.
fn sweep_csv(sweep: &SweepState) -> String {
    let Some(r) = &sweep.result else {
        return note("no sweep has run");
    };
    let mut s = String::from(
        "collector,k,target_util,total_energy_j,memory_energy_j,time_s,max_pause_ms\n",
    );
    let rows = r
        .base
        .iter()
        .map(|p| ("base", p))
        .chain(r.adaptive.iter().map(|p| ("adaptive", p)))
        .chain(r.k_allocation.iter().map(|p| ("k-allocation", p)))
        .chain(
            r.variants
                .iter()
                .flat_map(|(k, v)| v.iter().map(move |p| (k.name(), p))),
        );
    for (name, p) in rows {
        let _ = writeln!(
            s,
            "{name},{},{},{},{},{},{}",
            p.k,
            p.target_util,
            p.total_j,
            p.memory_j,
            p.time_s,
            csv_ms(p.max_pause_ms)
        );
    }
    s
}

/// The Pareto explorer's points.
fn pareto(st: &AppState) -> String {
    let Some(r) = &st.pareto.results else {
        return note("no sweep result loaded");
    };
    let w = st.pareto.minmu_window_ms;
    let mut s = String::from(
        "set,energy_j,max_pause_ms,time_s,minmu_window_ms,minmu,on_frontier,out_of_memory\n",
    );
    for (i, p) in r.points.iter().enumerate() {
        let _ = writeln!(
            s,
            "\"{}\",{},{},{},{},{},{},{}",
            p.set_text.replace('"', "'"),
            p.energy_j,
            csv_ms(p.max_pause_ms),
            p.time_s,
            w.map_or(String::new(), csv_ms),
            w.and_then(|w| p.minmu_at(w))
                .map_or(String::new(), |m| m.to_string()),
            r.frontier.contains(&i),
            p.out_of_memory
        );
    }
    s
}

/// A GC log's views: its MinMU curve (the MinMU view), or its pauses by kind and heap as drawn (`plot,series,x,y`).
fn of_log(st: &AppState, l: &LogView, view: ViewKind) -> String {
    match view {
        ViewKind::Mmu => return minmu(st),
        ViewKind::Energy | ViewKind::Sweep | ViewKind::TradeOff => {
            return note("a GC log has no energy and cannot be swept");
        }
        _ => {}
    }
    let mut s = String::from(LONG);
    for k in &l.kinds {
        for (t, ms) in &k.bars {
            let _ = writeln!(s, "pause ms,\"{}\",{t},{ms}", k.kind.replace('"', "'"));
        }
    }
    if view != ViewKind::Cpu {
        for (series, pts) in [
            ("heap used MiB", &l.heap_used),
            ("heap total MiB", &l.heap_total),
        ] {
            for p in pts {
                let _ = writeln!(s, "heap MiB,{series},{},{}", p.x, p.y);
            }
        }
    }
    if view == ViewKind::Overview {
        s.push_str(&minmu(st).lines().skip(1).fold(String::new(), |mut a, l| {
            let _ = writeln!(a, "minmu window_ms,{l}");
            a
        }));
    }
    s
}

/// A recorded trace's heap map: every object's place and lifetime, and the collections.
fn of_trace(t: &TraceReplay) -> String {
    let tick_s = t.tick_ns as f64 * 1e-9;
    let mut s = String::from("object,address,size_bytes,alloc_s,death_s,freed_s\n");
    for (i, &addr) in t.addr.iter().enumerate() {
        // u32::MAX: never (still live at the end).
        let at = |v: &[u32]| {
            v.get(i)
                .filter(|&&x| x != u32::MAX)
                .map_or(String::new(), |&x| (f64::from(x) * tick_s).to_string())
        };
        let _ = writeln!(
            s,
            "{i},{},{},{},{},{}",
            u64::from(addr) * t.granule.max(1),
            t.size.get(i).copied().unwrap_or(0),
            at(&t.alloc),
            at(&t.death),
            at(&t.freed)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use gclab_core::{Cancel, NoProgress, Scenario, simulate};

    use super::*;
    use crate::gui::state::Pinned;
    use crate::gui::sweep::{SweepMode, SweepPoint, SweepResult};

    fn header(st: &mut AppState, view: ViewKind, tradeoff: &SweepState) -> String {
        st.settings.view = view;
        let csv = view_csv(st, &SweepState::default(), tradeoff);
        csv.lines().next().unwrap_or_default().to_string()
    }

    #[test]
    fn each_views_csv_is_the_data_it_draws_with_the_baseline_beside_it() {
        // The CSV was the occupancy timeline for the CPU, Pareto and Overview views and the pause list for every
        // view of a GC log; a pinned baseline was dropped.
        let sc = Scenario::default_preset().expect("default preset");
        let run = simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs");
        let v = Arc::new(RunView::build(run, sc.clone(), 1, 0.0));
        let mut st = AppState::new(sc, "default");
        st.current = Some(v.clone());
        let none = SweepState::default();
        for (view, want) in [
            (ViewKind::Overview, "plot,series,x,y"),
            (
                ViewKind::Layout,
                "series,time_ns,live_bytes,dead_bytes,free_bytes",
            ),
            (ViewKind::Mmu, "series,window_ms,minmu"),
            (ViewKind::Energy, "part,energy_j"),
            (ViewKind::Cpu, "plot,series,core,start_s,end_s,value"),
            (ViewKind::Sweep, "note"),
            (ViewKind::TradeOff, "note"),
            (ViewKind::Pareto, "note"),
        ] {
            assert_eq!(header(&mut st, view, &none), want, "{view:?}");
        }
        st.settings.view = ViewKind::Overview;
        let csv = view_csv(&st, &none, &none);
        for plot in [
            "occupancy time_s,current",
            "minmu window_ms,current",
            "energy J,current,total",
        ] {
            assert!(csv.contains(plot), "the overview's {plot} rows");
        }
        // A pinned baseline reaches the CSV beside the current run.
        st.baseline = Some(Pinned::Run(v.clone()));
        assert_eq!(
            header(&mut st, ViewKind::Energy, &none),
            "part,energy_j,baseline_energy_j",
            "the baseline's energy beside the current"
        );
        st.settings.view = ViewKind::Mmu;
        assert!(
            view_csv(&st, &none, &none).contains("\nbaseline,"),
            "the baseline's MinMU"
        );
        // The android trade-off: its targetUtil column.
        let mut tradeoff = SweepState::default();
        tradeoff.result = Some(SweepResult {
            mode: SweepMode::TargetUtil,
            heap: vec![SweepPoint {
                k: 0,
                target_util: 0.5,
                heap_j: 0.0,
                total_j: 1.0,
                time_s: 1.0,
                memory_j: 0.0,
                heap_kib: 1024,
                // A pause of whole nanoseconds as the model gives it: 331 840 ns × 1e-6.
                max_pause_ms: 331_840.0 * 1e-6,
                collections: 3,
                out_of_memory: false,
                mmu: Vec::new(),
            }],
            ..SweepResult::default()
        });
        assert!(
            header(&mut st, ViewKind::TradeOff, &tradeoff).starts_with("target_util,heap_kib,"),
            "the swept knob first"
        );
        // #19 item 7: no binary-fraction noise (0.33183999999999997) in a figure's CSV.
        st.settings.view = ViewKind::TradeOff;
        let csv = view_csv(&st, &none, &tradeoff);
        assert!(
            csv.contains(",0.33184,") && !csv.contains("9999"),
            "the longest pause as written: {csv}"
        );
    }

    #[test]
    fn a_gc_logs_csv_follows_the_view_not_always_the_pause_list() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/logs/jdk17-serial-xmx128m.log");
        let format = gclab_core::input::sniff_gc_log(&path).expect("a GC log");
        let log = LogView::load(
            &path,
            format,
            Box::new(gclab_core::NoProgress),
            &Cancel::never(),
        )
        .expect("loads");
        let mut st = AppState::new(Scenario::default_preset().expect("default"), "default");
        st.source = Source::Log(Arc::new(log));
        let none = SweepState::default();
        assert_eq!(
            header(&mut st, ViewKind::Mmu, &none),
            "series,window_ms,minmu",
            "the log's MinMU curve, not its pauses"
        );
        assert_eq!(
            header(&mut st, ViewKind::Overview, &none),
            "plot,series,x,y",
            "the log overview's plots"
        );
        let csv = view_csv(&st, &none, &none);
        for plot in ["\npause ms,", "\nheap MiB,", "\nminmu window_ms,current,"] {
            assert!(csv.contains(plot), "the log overview's {plot} rows");
        }
        assert_eq!(
            header(&mut st, ViewKind::Energy, &none),
            "note",
            "a log has no energy"
        );
    }
}
