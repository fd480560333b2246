//! App speed (issue #4, "Speed"): the heap-layout raster at view size, a whole headless frame with every view of
//! the Overview visible (CPU lanes included on android-krait), and the slider → new views round trip (worker
//! simulation + derived data + one frame), on the default scenario, a run with a million objects and an android
//! preset; the slider case twice: a seed change (a new workload drawn) and a k change (the same workload, replayed
//! from the session's tapes).
//!
//! A recorded trace replayed as recorded (issue #5 point 10): a headless frame of the heap-layout view at a moving
//! scrub position on a synthetic 10 M-object trace (≥ 60 fps: ≤ 16.7 ms), the one-off map raster of the whole
//! trace, the hover look-up of the object under the pointer, and the resident bytes per object (printed).
//!
//! `cargo bench -p gclab --bench gui` (add `-- --quick` for a short run; `-- trace` for the trace cases only).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use gclab::gui::headless::{frame, headless, settle};
use gclab::gui::{Command, Palette, RasterSpec, Theme, rasterize};
use gclab_core::{Cancel, NoProgress, Run, Scenario, simulate};

fn million() -> Scenario {
    Scenario::default_preset()
        .and_then(|s| s.with_set("workload.phases.0.allocations=1000000"))
        .and_then(|s| s.with_set("heap.size=1MiB"))
        .and_then(|s| s.with_set("heap.bank_size=64KiB"))
        .expect("the million-object scenario")
}

fn full_view(run: &Run, w: usize, h: usize) -> RasterSpec {
    RasterSpec {
        t0: 0.0,
        t1: run.duration.as_secs_f64(),
        a0: 0.0,
        a1: run.geometry.heap_bytes as f64 * 1.05,
        width: w,
        height: h,
        lanes: true,
    }
}

fn raster(c: &mut Criterion) {
    let pal = Palette::of(Theme::Light);
    let mut g = c.benchmark_group("layout_raster");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    for (name, sc) in [
        ("default", Scenario::default_preset().expect("default")),
        ("1M_objects", million()),
    ] {
        let run = simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs");
        let spec = full_view(&run, 1100, 420);
        g.bench_function(format!("{name}_full_1100x420"), |b| {
            b.iter(|| black_box(rasterize(&run, &spec, &pal)));
        });
        let mut zoom = spec;
        zoom.t0 = spec.t1 * 0.45;
        zoom.t1 = spec.t1 * 0.55;
        g.bench_function(format!("{name}_zoomed10pct_1100x420"), |b| {
            b.iter(|| black_box(rasterize(&run, &zoom, &pal)));
        });
    }
    g.finish();
}

fn frames(c: &mut Criterion) {
    let mut g = c.benchmark_group("frame");
    g.sample_size(30).measurement_time(Duration::from_secs(4));
    for (name, sc) in [
        ("default", Scenario::default_preset().expect("default")),
        ("1M_objects", million()),
        (
            "android_quadrant",
            Scenario::preset("android/quadrant").expect("android preset"),
        ),
    ] {
        let (ctx, mut app) = headless(sc);
        settle(&ctx, &mut app);
        // Steady state: every Overview view drawn, the heap map's texture reused.
        g.bench_function(format!("{name}_overview"), |b| {
            b.iter(|| frame(&ctx, &mut app));
        });
        // Scrubbing: the playhead moves every frame (the "now" column rebuilds its column).
        let dur = app.state.current.as_ref().map_or(1.0, |v| v.duration_s);
        let mut i = 0u32;
        g.bench_function(format!("{name}_overview_scrubbing"), |b| {
            b.iter(|| {
                i = (i + 1) % 100;
                app.queue(Command::Playback(gclab::gui::PlaybackCommand::SeekTo(
                    dur * f64::from(i) / 100.0,
                )));
                frame(&ctx, &mut app);
            });
        });
    }
    g.finish();
}

fn rerun(c: &mut Criterion) {
    let mut g = c.benchmark_group("rerun");
    g.sample_size(20).measurement_time(Duration::from_secs(6));
    let default = || Scenario::default_preset().expect("default");
    // A seed change draws a new workload; the default scenario, and android/lusearch (issue #16: an android run must
    // stay fast enough for live sliders).
    round_trip(
        &mut g,
        "default_slider_to_new_views",
        default(),
        |app, i| {
            app.state.controls.seed = 1 + i;
        },
    );
    let lusearch = Scenario::preset("android/lusearch").expect("android preset");
    round_trip(
        &mut g,
        "android_lusearch_slider_to_new_views",
        lusearch,
        |app, i| {
            app.state.controls.seed = 1 + i;
        },
    );
    // The k slider (a policy knob): the workload is the same, so the worker replays its draws from the session's
    // tapes and only the collector's decisions are new — the common case while exploring.
    round_trip(
        &mut g,
        "default_k_slider_to_new_views",
        default(),
        |app, i| {
            app.state.controls.collector = gclab_core::CollectorKind::KAllocation;
            app.state.controls.k = 10 + i % 491;
        },
    );
    g.finish();
}

/// Benchmarks `change` (the i-th slider move) → worker round trip → the frame that shows the new run.
fn round_trip(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    sc: Scenario,
    mut change: impl FnMut(&mut gclab::gui::GclabApp, u64),
) {
    let (ctx, mut app) = headless(sc);
    settle(&ctx, &mut app);
    let mut i = 0u64;
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                i += 1;
                change(&mut app, i);
                let t0 = Instant::now();
                app.queue(Command::Rerun);
                settle(&ctx, &mut app);
                total += t0.elapsed();
            }
            total
        });
    });
}

fn trace_replay(c: &mut Criterion) {
    use gclab::gui::trace::TraceReplay;
    let n = 10_000_000;
    let t0 = Instant::now();
    let tr = TraceReplay::synthetic(n);
    let built = t0.elapsed();
    eprintln!(
        "trace_replay: {n} objects built in {:.2} s; resident {:.1} MiB = {:.2} bytes/object",
        built.as_secs_f64(),
        tr.resident_bytes() as f64 / (1 << 20) as f64,
        tr.resident_bytes() as f64 / n as f64
    );
    let pal = Palette::of(Theme::Light);
    let mut g = c.benchmark_group("trace_replay");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    let dur = tr.duration_s();
    let heap = tr.heap_bytes as f64;
    // The whole trace, from the overview grid (what the UI thread draws on a zoom or pan at full range).
    g.bench_function("10M_objects_map_from_overview_1100x420", |b| {
        b.iter(|| {
            black_box(tr.rasterize_overview((0.0, dur), (0.0, heap * 1.05), (1100, 420), &pal))
        });
    });
    // A full raster from the objects (done on the trace-raster thread when zoomed in past the overview).
    g.bench_function("10M_objects_map_raster_1100x420", |b| {
        b.iter(|| black_box(tr.rasterize((0.0, dur), (0.0, heap * 1.05), (1100, 420), &pal)));
    });
    g.bench_function("10M_objects_map_raster_zoomed10pct_1100x420", |b| {
        b.iter(|| {
            black_box(tr.rasterize(
                (dur * 0.45, dur * 0.55),
                (0.0, heap * 1.05),
                (1100, 420),
                &pal,
            ))
        });
    });
    // Hover: what is under the pointer (through the address index), at a new position every time.
    let mut k = 0u32;
    g.bench_function("10M_objects_hover_lookup", |b| {
        b.iter(|| {
            k = (k + 7919) % 100_000;
            let f = f64::from(k) / 100_000.0;
            black_box(tr.describe(dur * f, heap * (1.0 - f)))
        });
    });
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default"));
    settle(&ctx, &mut app);
    app.state.source = gclab::gui::Source::Trace(std::sync::Arc::new(tr));
    app.queue(Command::SetView(gclab::gui::ViewKind::Layout));
    frame(&ctx, &mut app);
    frame(&ctx, &mut app);
    let mut i = 0u32;
    g.sample_size(50).measurement_time(Duration::from_secs(5));
    // Scrubbing: the playhead moves every frame; the map's texture stays, the "now" column is one overview column.
    g.bench_function("10M_objects_layout_frame_scrubbing", |b| {
        b.iter(|| {
            i = (i + 7) % 1000;
            app.queue(Command::Playback(gclab::gui::PlaybackCommand::SeekTo(
                dur * f64::from(i) / 1000.0,
            )));
            frame(&ctx, &mut app);
        });
    });
    g.finish();
}

criterion_group!(benches, raster, frames, rerun, trace_replay);
criterion_main!(benches);
