//! The slider → new views round trip of `benches/gui.rs` (`rerun`), driven without the worker thread so that
//! `valgrind --tool=callgrind` counts the same instructions on every run, whatever else the machine is doing:
//! each step moves a knob, applies the controls to the base scenario, simulates (the session's workload tapes
//! reused, as the worker does), derives the views' data ([`RunView::build`]) and draws the frame that shows it.
//! Steps run in `round_trips`, the function to read in `callgrind_annotate --inclusive=yes`.
//!
//! `cargo build --release --example rerun_profile`, then
//! `valgrind --tool=callgrind target/release/examples/rerun_profile k 5` (cases: `k`, `seed`, `lusearch`).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use gclab::gui::headless::{frame, headless, settle};
use gclab::gui::{GclabApp, RunView};
use gclab_core::{Cancel, CollectorKind, NoProgress, Scenario, WorkloadTapes, simulate_with};

/// Moves the knob of `case` to its `i`-th position.
fn change(app: &mut GclabApp, case: &str, i: u64) {
    let c = &mut app.state.controls;
    match case {
        "k" => {
            c.collector = CollectorKind::KAllocation;
            c.k = 10 + i % 491;
        }
        _ => c.seed = 1 + i,
    }
}

/// One round trip: knob, scenario, simulation, derived data, the frame that draws them.
/// Returns the wall time of its parts: scenario, simulation, derived data, frame. `[s]`
fn step(
    ctx: &egui::Context,
    app: &mut GclabApp,
    tapes: &WorkloadTapes,
    case: &str,
    i: u64,
) -> [f64; 4] {
    let t0 = Instant::now();
    change(app, case, i);
    let sc = app
        .state
        .controls
        .apply(&app.state.base)
        .expect("the knob's scenario is valid");
    let t1 = Instant::now();
    let run = simulate_with(&sc, Some(tapes), &Cancel::never(), &mut NoProgress).expect("runs");
    let t2 = Instant::now();
    app.state.generation += 1;
    let view = RunView::build(run, sc, app.state.generation, 0.0);
    app.state.current = Some(Arc::new(view));
    let t3 = Instant::now();
    frame(ctx, app);
    let t4 = Instant::now();
    [t1 - t0, t2 - t1, t3 - t2, t4 - t3].map(|d| d.as_secs_f64())
}

#[inline(never)]
fn round_trips(
    ctx: &egui::Context,
    app: &mut GclabApp,
    tapes: &WorkloadTapes,
    case: &str,
    n: u64,
) -> Vec<[f64; 4]> {
    (0..n)
        .map(|i| step(ctx, app, tapes, case, 100 + i))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map_or("k", String::as_str).to_string();
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let sc = if case == "lusearch" {
        Scenario::preset("android/lusearch").expect("android preset")
    } else {
        Scenario::default_preset().expect("default")
    };
    let (ctx, mut app) = headless(sc);
    settle(&ctx, &mut app);
    let tapes = WorkloadTapes::new();
    // One step first: the tapes hold the workload (a k change replays it) and every view has drawn once.
    step(&ctx, &mut app, &tapes, &case, 0);
    let times = round_trips(&ctx, &mut app, &tapes, &case, n);
    black_box(&app.state.current);
    // Medians of the parts, for a first look (criterion's `rerun` bench is the measurement).
    if n > 0 {
        let median = |k: usize| {
            let mut v: Vec<f64> = times.iter().map(|t| t[k]).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2] * 1e3
        };
        eprintln!(
            "{case}: median of {n} steps: scenario {:.2} ms, simulation {:.2} ms, derived data {:.2} ms, frame {:.2} ms",
            median(0),
            median(1),
            median(2),
            median(3)
        );
    }
}
