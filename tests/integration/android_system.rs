//! The phone's other processes on android-krait (`[android.system]`, docs/models-android.md "The phone's other
//! processes"): a second process's threads share the app's cores — in the energy and the schedule — but stay out
//! of the app's statistics; with no thread of theirs the run is the model without them, bit for bit.

use gclab_core::{Cancel, NoProgress, Run, Scenario, simulate};

fn run(preset: &str, sets: &[&str]) -> Run {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
    let sc = Scenario::load(&format!("preset:{preset}"), &sets).expect("preset loads");
    simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs")
}

const SYSTEM: [&str; 3] = ["surfaceflinger-", "system_server-", "kthread-"];

fn is_system(name: &str) -> bool {
    SYSTEM.iter().any(|p| name.starts_with(p))
}

#[test]
fn other_processes_without_threads_are_no_other_processes() {
    let off = run("android/jack", &["android.system.enabled=false"]);
    let empty = run(
        "android/jack",
        &[
            "android.system.enabled=true",
            "android.system.display_threads=0",
            "android.system.server_threads=0",
            "android.system.kernel_threads=0",
        ],
    );
    assert_eq!(off, empty);
    assert!(!off.threads.iter().any(|t| is_system(&t.name)));
}

#[test]
fn other_processes_run_on_the_phone_but_not_in_the_apps_statistics() {
    let sets = [
        "android.system.enabled=true",
        "android.system.server_burst_us=2000",
        "android.system.server_period_ms=20",
    ];
    let on = run("android/xalan", &sets);
    let off = run("android/xalan", &["android.system.enabled=false"]);
    let sys: Vec<_> = on.threads.iter().filter(|t| is_system(&t.name)).collect();
    // 1 surfaceflinger + 4 system_server + 4 kernel threads (the defaults), each of which ran.
    assert_eq!(sys.len(), 9);
    assert!(sys.iter().all(|t| t.cpu_ns > 0), "{sys:?}");
    // Table 3's statistics are the app's threads' only.
    let app_migrations: u64 = on
        .threads
        .iter()
        .filter(|t| !is_system(&t.name))
        .map(|t| t.migrations)
        .sum();
    assert_eq!(on.summary.migrations, Some(app_migrations));
    let app_delayed: u64 = on
        .threads
        .iter()
        .filter(|t| !is_system(&t.name))
        .map(|t| t.delayed_ns)
        .sum();
    let delayed = on.summary.delayed_time_s.expect("android reports it");
    assert!((delayed - app_delayed as f64 * 1e-9).abs() < 1e-9);
    // The same phone: their work costs energy (about 0.4 cores of system_server alone here).
    let sys_s: f64 = sys.iter().map(|t| t.cpu_ns as f64 * 1e-9).sum();
    assert!(sys_s > 0.3 * on.summary.execution_time_s, "{sys_s}");
    assert!(on.summary.energy_j.total > off.summary.energy_j.total);
    // The GC's share is of the app's CPU time: other processes do not dilute it by their share.
    let ratio = on.summary.gc_cpu_fraction / off.summary.gc_cpu_fraction;
    assert!((0.8..1.25).contains(&ratio), "GC CPU share on/off {ratio}");
}
