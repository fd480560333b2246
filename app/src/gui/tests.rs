//! Headless tests of the app's behaviour: the real `GclabApp` built on an `egui::Context` with no window, frames
//! run with `Context::run_ui`, the worker thread real. They check the controls → re-run → views loop, the
//! playhead, pin-and-compare and a malformed scenario file, on data (no pixels).

use gclab_core::{CollectorKind, Scenario};

use super::ViewKind;
use super::command::{Command, PlaybackCommand};
use super::headless::{frame, frame_with, headless, settle};

#[test]
fn the_app_opens_on_the_default_scenario_and_fills_every_view() {
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    settle(&ctx, &mut app);
    let v = app.state.current.clone().expect("a run");
    assert_eq!(
        v.run.summary.collector, "adaptive",
        "the default scenario runs"
    );
    for view in ViewKind::ALL {
        app.queue(Command::SetView(view));
        frame(&ctx, &mut app);
        frame(&ctx, &mut app);
        assert_eq!(app.state.settings.view, view, "the tab switched");
    }
    assert!(!app.state.status.is_error, "{}", app.state.status.message);
}

#[test]
fn changing_the_collector_and_k_reruns_and_changes_the_summary() {
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    settle(&ctx, &mut app);
    let before = app.state.current.clone().expect("a run");
    app.state.controls.collector = CollectorKind::KAllocation;
    app.state.controls.k = 500;
    app.queue(Command::Rerun);
    settle(&ctx, &mut app);
    let after = app.state.current.clone().expect("a run");
    assert_eq!(
        after.run.summary.collector, "k-allocation",
        "the new collector ran"
    );
    assert_ne!(
        before.run.summary.collections, after.run.summary.collections,
        "the summary changed"
    );
    // A burst of slider moves: only the newest is kept on screen.
    for k in [10, 20, 50, 100, 200] {
        app.state.controls.k = k;
        app.queue(Command::Rerun);
        frame(&ctx, &mut app);
    }
    settle(&ctx, &mut app);
    let last = app.state.current.clone().expect("a run");
    assert_eq!(
        last.scenario.file().collector.k,
        200,
        "the newest setting wins"
    );
}

#[test]
fn scrubbing_steps_between_collections_and_clamps_to_the_run() {
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    settle(&ctx, &mut app);
    let v = app.state.current.clone().expect("a run");
    app.queue(Command::Playback(PlaybackCommand::StepGc(true)));
    frame(&ctx, &mut app);
    assert_eq!(
        app.state.playback.playhead, v.gc_start_s[0],
        "next GC from 0 is the first collection"
    );
    app.queue(Command::Playback(PlaybackCommand::StepGc(true)));
    frame(&ctx, &mut app);
    assert_eq!(
        app.state.playback.playhead, v.gc_start_s[1],
        "then the second"
    );
    app.queue(Command::Playback(PlaybackCommand::StepGc(false)));
    frame(&ctx, &mut app);
    assert_eq!(app.state.playback.playhead, v.gc_start_s[0], "and back");
    app.queue(Command::Playback(PlaybackCommand::SeekTo(1e9)));
    frame(&ctx, &mut app);
    assert_eq!(
        app.state.playback.playhead, v.duration_s,
        "seeking clamps to the run"
    );
    app.queue(Command::Playback(PlaybackCommand::TogglePlay));
    frame(&ctx, &mut app);
    assert!(app.state.playback.playing, "play from the end restarts");
    assert!(app.state.playback.playhead < v.duration_s, "at the start");
}

#[test]
fn a_pinned_baseline_stays_while_the_current_run_changes() {
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    settle(&ctx, &mut app);
    app.queue(Command::PinBaseline);
    app.state.controls.collector = CollectorKind::Base;
    app.queue(Command::Rerun);
    settle(&ctx, &mut app);
    let b = app.state.baseline_run().cloned().expect("a baseline run");
    let c = app.state.current.clone().expect("a run");
    assert_eq!(
        b.run.summary.collector, "adaptive",
        "the baseline is the pinned run"
    );
    assert_eq!(
        c.run.summary.collector, "base",
        "the current run is the new one"
    );
    frame(&ctx, &mut app); // every view draws both
    app.queue(Command::ClearBaseline);
    frame(&ctx, &mut app);
    assert!(app.state.baseline.is_none(), "cleared");
}

#[test]
fn a_malformed_scenario_shows_an_error_and_changes_nothing() {
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    settle(&ctx, &mut app);
    let before = app.state.current.clone().expect("a run");
    let gen_before = app.state.generation;
    app.queue(Command::LoadText {
        text: "format_version = 1\n[heap]\nsize = \"lots\"\n".into(),
        origin: "bad.toml".into(),
    });
    frame(&ctx, &mut app);
    assert!(app.state.status.is_error, "the status bar shows the error");
    assert!(
        app.state.status.message.contains("bad.toml"),
        "naming the file: {}",
        app.state.status.message
    );
    assert_eq!(app.state.generation, gen_before, "no re-run");
    let now = app.state.current.clone().expect("a run");
    assert!(
        std::sync::Arc::ptr_eq(&before, &now),
        "the last good run stays"
    );
    // A bad knob combination is refused the same way.
    app.state.controls.bank_kib = 48;
    app.queue(Command::Rerun);
    frame(&ctx, &mut app);
    assert!(
        app.state.status.is_error,
        "bank size not dividing the heap is refused"
    );
}

#[test]
fn save_and_load_a_scenario_file_round_trips() {
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    settle(&ctx, &mut app);
    app.state.controls.collector = CollectorKind::KAllocation;
    app.state.controls.k = 321;
    let path = std::env::temp_dir().join(format!("gclab-gui-{}.toml", std::process::id()));
    app.queue(Command::SaveFile(path.clone()));
    frame(&ctx, &mut app);
    assert!(!app.state.status.is_error, "{}", app.state.status.message);
    app.queue(Command::LoadPreset("kvm/calculator".into()));
    frame(&ctx, &mut app);
    app.queue(Command::LoadFile(path.clone()));
    settle(&ctx, &mut app);
    let v = app.state.current.clone().expect("a run");
    assert_eq!(v.scenario.file().collector.k, 321, "the saved k came back");
    assert_eq!(app.state.controls.k, 321, "and the controls show it");
    let stem = path.file_stem().and_then(|s| s.to_str()).expect("a stem");
    assert_eq!(
        v.scenario.file().name,
        stem,
        "the saved scenario is named after its file"
    );
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_baseline_does_not_survive_a_platform_switch() {
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    settle(&ctx, &mut app);
    app.queue(Command::PinBaseline);
    app.queue(Command::LoadPreset("kvm/calculator".into()));
    settle(&ctx, &mut app);
    assert!(
        app.state.baseline.is_some(),
        "same platform: the baseline stays"
    );
    app.queue(Command::LoadPreset("android/quadrant".into()));
    settle(&ctx, &mut app);
    assert!(
        app.state.baseline.is_none(),
        "a kvm-soc baseline is not compared with an android-krait run"
    );
}

#[test]
fn pin_with_a_log_open_pins_the_log_not_the_hidden_run() {
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    settle(&ctx, &mut app);
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/logs/jdk17-serial-xmx128m.log");
    app.queue(Command::LoadFile(log));
    let t0 = std::time::Instant::now();
    while app.state.log().is_none() && t0.elapsed().as_secs() < 60 {
        frame(&ctx, &mut app);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let shown = app.state.log().cloned().expect("the log opened");
    app.queue(Command::PinBaseline);
    frame(&ctx, &mut app);
    assert!(
        matches!(&app.state.baseline, Some(super::state::Pinned::Log(l)) if std::sync::Arc::ptr_eq(l, &shown)),
        "the log on screen is pinned, not the run under it"
    );
    // A knob closes the log: the run comes back and the pinned log stays, to compare with.
    app.queue(Command::CloseLog);
    frame(&ctx, &mut app);
    assert!(
        app.state
            .baseline
            .as_ref()
            .is_some_and(|b| b.run().is_none()),
        "the log stays pinned under the run"
    );
}

#[test]
fn the_sweep_runs_in_the_background_and_can_be_cancelled() {
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    settle(&ctx, &mut app);
    app.queue(Command::StartSweep);
    frame(&ctx, &mut app);
    assert!(app.sweep.running(), "the sweep started");
    let t0 = std::time::Instant::now();
    while app.sweep.running() && t0.elapsed().as_secs() < 120 {
        frame(&ctx, &mut app);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let r = app.sweep.result.clone().expect("a result");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(
        r.k_allocation.len(),
        super::sweep::K_VALUES.len(),
        "every k ran"
    );
    assert!(
        r.adaptive.is_some() && r.base.is_some(),
        "and both references"
    );
    app.queue(Command::StartSweep);
    frame(&ctx, &mut app);
    app.queue(Command::CancelSweep);
    frame(&ctx, &mut app);
    assert!(!app.sweep.running(), "cancelled");
}

#[test]
fn the_trade_off_view_sweeps_heap_sizes_with_energy_pauses_and_minmu() {
    let (ctx, mut app) = headless(Scenario::preset("kvm/kwml").expect("kwml preset"));
    app.state.controls.collector = gclab_core::CollectorKind::Base;
    app.state.controls.set_heap_kib(256);
    app.queue(Command::Rerun);
    settle(&ctx, &mut app);
    app.queue(Command::SetView(ViewKind::TradeOff));
    app.queue(Command::StartTradeOff);
    frame(&ctx, &mut app);
    assert!(app.tradeoff.running(), "the heap-size sweep started");
    let t0 = std::time::Instant::now();
    while app.tradeoff.running() && t0.elapsed().as_secs() < 300 {
        frame(&ctx, &mut app);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let r = app.tradeoff.result.clone().expect("a result");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let sizes: Vec<u64> = r.heap.iter().map(|p| p.heap_kib).collect();
    assert_eq!(
        sizes,
        super::sweep::heap_sizes(256, app.state.controls.bank_kib, 4),
        "every size ran, smallest first"
    );
    assert_eq!(sizes.first(), Some(&32), "an eighth of 256 KiB");
    assert_eq!(
        sizes.last(),
        Some(&2048),
        "to eight times it, past the old 2 MiB menu's end"
    );
    assert!(r.memory_modelled, "kvm-soc models the memories");
    let at = |kib: u64| r.heap.iter().find(|p| p.heap_kib == kib).expect("swept");
    let (small, big) = (at(64), at(512));
    assert!(
        small.collections > 10 * big.collections,
        "the lesson's claim: 64 KiB collects more than ten times as often as 512 KiB ({} vs {})",
        small.collections,
        big.collections
    );
    assert!(
        big.max_pause_ms > small.max_pause_ms,
        "and pauses longer ({} vs {} ms)",
        big.max_pause_ms,
        small.max_pause_ms
    );
    assert!(
        r.heap
            .iter()
            .all(|p| p.total_j > p.memory_j && p.memory_j > 0.0),
        "the total includes the CPU, the memory-only figure is part of it"
    );
    let csv = super::views::tradeoff::csv(&r, 1.0);
    assert_eq!(
        csv.lines().count(),
        r.heap.len() + 1,
        "a CSV line per heap size"
    );
    frame(&ctx, &mut app);
}

#[test]
fn keys_play_and_step_between_collections() {
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    settle(&ctx, &mut app);
    let v = app.state.current.clone().expect("a run");
    let key = |k: egui::Key| egui::Event::Key {
        key: k,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers: egui::Modifiers::NONE,
    };
    frame_with(&ctx, &mut app, vec![key(egui::Key::ArrowRight)]);
    assert_eq!(
        app.state.playback.playhead, v.gc_start_s[0],
        "→ steps to the first collection"
    );
    frame_with(&ctx, &mut app, vec![key(egui::Key::Space)]);
    assert!(app.state.playback.playing, "space plays");
    frame_with(&ctx, &mut app, vec![key(egui::Key::Space)]);
    assert!(!app.state.playback.playing, "space pauses");
    frame_with(&ctx, &mut app, vec![key(egui::Key::End)]);
    assert_eq!(
        app.state.playback.playhead, v.duration_s,
        "End jumps to the end"
    );
}

#[test]
fn android_runs_fill_the_cpu_lanes_and_overlay_five_minmu_curves() {
    let (ctx, mut app) = headless(Scenario::preset("android/quadrant").expect("android preset"));
    settle(&ctx, &mut app);
    let v = app.state.current.clone().expect("a run");
    assert!(v.cpu.is_some(), "the CPU timeline is there");
    assert!(!v.gc_on_cores.is_empty(), "and GC work per core");
    app.state.controls.target_util = 0.5;
    app.queue(Command::Rerun);
    settle(&ctx, &mut app);
    let v2 = app.state.current.clone().expect("a run");
    assert_eq!(
        v2.scenario.file().heap.target_util,
        0.5,
        "targetUtil reached the core"
    );
    app.queue(Command::MmuVariants(true));
    let t0 = std::time::Instant::now();
    while (app.variants.running() || app.variants.curves.len() < 5) && t0.elapsed().as_secs() < 60 {
        frame(&ctx, &mut app);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(app.variants.curves.len(), 5, "five variants");
    for view in [ViewKind::Overview, ViewKind::Mmu, ViewKind::Cpu] {
        app.queue(Command::SetView(view));
        frame(&ctx, &mut app);
        frame(&ctx, &mut app);
    }
}

#[test]
fn the_native_open_dialog_never_blocks_the_ui_and_its_absence_is_reported() {
    // The dialog runs on its own thread; frames go on meanwhile. Under CI there is no desktop portal, so the
    // dialog answers "nothing chosen" and the status bar says how else to open a file; the scenario stays.
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    settle(&ctx, &mut app);
    let before = app
        .state
        .current
        .clone()
        .expect("a run")
        .scenario
        .origin()
        .to_string();
    app.queue(Command::OpenDialog);
    let t0 = std::time::Instant::now();
    frame(&ctx, &mut app);
    assert!(
        t0.elapsed().as_secs_f64() < 1.0,
        "queuing the dialog returned at once"
    );
    let mut answered = false;
    for _ in 0..600 {
        frame(&ctx, &mut app);
        if app.state.status.message.contains("no file chosen") {
            answered = true;
            break;
        }
        if app.state.status.message.contains("not loaded") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if answered {
        assert!(
            !app.state.status.is_error,
            "no dialog is information, not an error"
        );
    }
    let after = app
        .state
        .current
        .clone()
        .expect("a run")
        .scenario
        .origin()
        .to_string();
    assert_eq!(
        before, after,
        "the scenario is unchanged without a chosen file"
    );
}

#[test]
fn settings_persist_across_a_restart() {
    let dir = std::env::temp_dir().join(format!("gclab-persist-{}", std::process::id()));
    let path = dir.join("gclab").join("settings.toml");
    let _ = std::fs::remove_dir_all(&dir);
    {
        let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
        app.enable_persistence(path.clone(), true);
        settle(&ctx, &mut app);
        app.state.settings.theme = super::Theme::Dark;
        app.state.settings.zoom = 1.75;
        app.queue(Command::SetView(ViewKind::Mmu));
        app.queue(Command::LoadPreset("kvm/dragon".into()));
        settle(&ctx, &mut app);
    }
    let text = std::fs::read_to_string(&path).expect("settings written");
    assert!(text.contains("kvm/dragon"), "the scenario is kept: {text}");
    // A restart: a new app on the default scenario reads them back.
    let (ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    app.enable_persistence(path.clone(), true);
    app.apply_commands(&ctx);
    settle(&ctx, &mut app);
    let s = &app.state.settings;
    assert_eq!(s.theme, super::Theme::Dark, "theme");
    assert_eq!(s.zoom, 1.75, "zoom");
    assert_eq!(s.view, ViewKind::Mmu, "view");
    assert_eq!(
        app.state.base.origin(),
        "preset:kvm/dragon",
        "last preset reopened"
    );
    let v = app.state.current.clone().expect("a run");
    assert!(v.scenario.origin().contains("kvm/dragon"), "and run");
    // Unreadable settings mean defaults, not an error.
    std::fs::write(&path, "zoom = \"big\"").expect("write");
    let (_ctx, mut app) = headless(Scenario::default_preset().expect("default preset"));
    app.enable_persistence(path.clone(), true);
    assert_eq!(app.state.settings.zoom, 1.25, "defaults");
    let _ = std::fs::remove_dir_all(&dir);
}
