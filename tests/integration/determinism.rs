//! Same scenario + seed → bit-identical `Run`, sequentially, across threads (as `sweep` runs them) and against
//! stored fingerprints (`tests/fixtures/fingerprints.txt`; regenerate with `GCLAB_BLESS=1` after an intended
//! model change, and say why in the commit).

use gclab_core::{Cancel, NoProgress, Scenario, WorkloadTapes, simulate, simulate_with};

use crate::support::scenario as sc;

#[test]
fn same_scenario_twice_is_bit_identical() {
    for (p, set) in [
        ("kvm/kwml", "collector.kind=adaptive"),
        ("kvm/dragon", "collector.kind=base"),
        ("kvm/kshape", "collector.k=75"),
    ] {
        let s = sc(
            p,
            &[set, "collector.kind=k-allocation"][..if set.contains("k=") { 2 } else { 1 }],
        );
        let a = simulate(&s, &Cancel::never(), &mut NoProgress).expect("runs");
        let b = simulate(&s, &Cancel::never(), &mut NoProgress).expect("runs");
        assert_eq!(a, b, "{p} with {set}: two runs differ");
        assert_eq!(a.fingerprint(), b.fingerprint(), "{p}: fingerprints differ");
    }
}

#[test]
#[allow(clippy::disallowed_methods)] // threads are what this test checks (clippy.toml)
fn parallel_runs_match_sequential_runs() {
    let scenarios: Vec<Scenario> = gclab_core::scenario::presets::KVM_APPS
        .iter()
        .map(|p| sc(p, &["collector.kind=adaptive"]))
        .collect();
    let sequential: Vec<u64> = scenarios
        .iter()
        .map(|s| {
            simulate(s, &Cancel::never(), &mut NoProgress)
                .expect("runs")
                .fingerprint()
        })
        .collect();
    let parallel: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = scenarios
            .iter()
            .map(|s| {
                scope.spawn(move || {
                    simulate(s, &Cancel::never(), &mut NoProgress)
                        .expect("runs")
                        .fingerprint()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    });
    assert_eq!(
        sequential, parallel,
        "thread scheduling must not change any run"
    );
}

#[test]
#[allow(clippy::disallowed_methods)] // threads are what this test checks (clippy.toml)
fn shared_workload_tapes_change_no_run() {
    // The 72 runs of the reproduction, two threads sharing one store of tapes (as `sweep` and the app use it),
    // against each run drawing its workload itself.
    let scenarios: Vec<Scenario> = gclab_core::scenario::presets::KVM_APPS
        .iter()
        .flat_map(|p| {
            gclab_core::reproduce::kvm::collector_sets()
                .into_iter()
                .map(move |set| {
                    let set: Vec<&str> = set.iter().map(String::as_str).collect();
                    sc(p, &set)
                })
        })
        .collect();
    assert_eq!(scenarios.len(), 72);
    let tapes = WorkloadTapes::new();
    let (first, second) = scenarios.split_at(36);
    let taped: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = [first, second]
            .into_iter()
            .map(|half| {
                let tapes = &tapes;
                scope.spawn(move || {
                    half.iter()
                        .map(|s| {
                            simulate_with(s, Some(tapes), &Cancel::never(), &mut NoProgress)
                                .expect("runs")
                                .fingerprint()
                        })
                        .collect::<Vec<u64>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("thread"))
            .collect()
    });
    assert_eq!(tapes.len(), 9, "one tape per application");
    for (s, f) in scenarios.iter().zip(taped) {
        let own = simulate(s, &Cancel::never(), &mut NoProgress).expect("runs");
        assert_eq!(
            own.fingerprint(),
            f,
            "{} {:?}: a taped run differs",
            s.origin(),
            s.overrides()
        );
    }
}

#[test]
fn sweep_cli_output_is_deterministic_and_matches_single_runs() {
    let args = [
        "sweep",
        "preset:kvm/calculator",
        "--vary",
        "collector.kind=base,adaptive",
        "--vary",
        "heap.bank_size=8KiB,16KiB",
        "--json",
        "-",
    ];
    let a = gclab_tests::gclab(&args);
    let b = gclab_tests::gclab(&args);
    assert!(
        a.status.success(),
        "sweep failed: {}",
        String::from_utf8_lossy(&a.stderr)
    );
    assert_eq!(a.stdout, b.stdout, "two sweeps printed different JSON");
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).expect("sweep JSON");
    let runs = v["runs"].as_array().expect("runs array");
    assert_eq!(runs.len(), 4, "2 × 2 combinations");
    let single = gclab_tests::gclab(&[
        "run",
        "preset:kvm/calculator",
        "--set",
        "collector.kind=adaptive",
        "--set",
        "heap.bank_size=8KiB",
        "--json",
        "-",
    ]);
    let s: serde_json::Value = serde_json::from_slice(&single.stdout).expect("run JSON");
    assert_eq!(
        runs[2]["set"]["collector.kind"], "adaptive",
        "row-major order: the last --vary varies fastest"
    );
    assert_eq!(runs[2]["set"]["heap.bank_size"], "8KiB", "row-major order");
    assert_eq!(
        runs[2]["summary"], s["summary"],
        "a sweep point equals the same single run"
    );
}

#[test]
fn fingerprints_match_the_stored_ones() {
    let path = gclab_tests::repo_root().join("tests/fixtures/fingerprints.txt");
    let mut runs: Vec<(&str, &str)> = Vec::new();
    for p in gclab_core::scenario::presets::KVM_APPS {
        runs.extend(["base", "k-allocation", "adaptive"].map(|k| (p, k)));
    }
    for p in gclab_core::scenario::presets::ANDROID_BENCHMARKS {
        if p == "android/jack" {
            runs.extend(["cms", "gencms", "cmsfly", "bg", "fg"].map(|k| (p, k)));
        } else {
            runs.push((p, "cms"));
        }
    }
    let lines: Vec<String> = runs
        .iter()
        .map(|(p, kind)| {
            let r = simulate(
                &sc(p, &[&format!("collector.kind={kind}")]),
                &Cancel::never(),
                &mut NoProgress,
            )
            .expect("runs");
            format!("{p} {kind} {:016x}", r.fingerprint())
        })
        .collect();
    let now = lines.join("\n") + "\n";
    if std::env::var_os("GCLAB_BLESS").is_some() {
        std::fs::write(&path, &now).expect("write fingerprints");
    }
    let stored = std::fs::read_to_string(&path)
        .expect("tests/fixtures/fingerprints.txt (GCLAB_BLESS=1 writes it)");
    assert_eq!(
        stored, now,
        "a run changed: if the model change is intended, rerun with GCLAB_BLESS=1"
    );
}
