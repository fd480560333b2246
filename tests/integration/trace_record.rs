//! `gclab trace record` writes a simulated run's objects (one alloc per allocation of the run, moves, deaths,
//! collections) in either form, and `gclab export-perfetto` writes Chrome trace-event JSON from a scenario, a
//! gclab trace or a GC log: parsed back with serde_json and checked for its structure.

use gclab_tests::{gclab, shared_data};

use super::trace_format::{scratch, stats_json};

fn run_summary(preset: &str, set: &str) -> serde_json::Value {
    let o = gclab(&["run", preset, "--set", set, "--json", "-"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("run JSON");
    v["summary"].clone()
}

#[test]
fn recorded_runs_hold_every_allocation_and_collection() {
    let d = scratch("record");
    let set = "collector.kind=adaptive";
    let s = run_summary("preset:kvm/kwml", set);
    let mut stats = Vec::new();
    for name in ["kwml.gctrace", "kwml.gctrace.txt"] {
        let out = d.join(name).display().to_string();
        let o = gclab(&[
            "trace",
            "record",
            "preset:kvm/kwml",
            "--set",
            set,
            "-o",
            &out,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v = stats_json(&out);
        assert_eq!(
            v["objects"], s["allocations"],
            "{name}: one alloc per allocation"
        );
        assert_eq!(v["allocated_bytes"], s["allocated_bytes"], "{name}: bytes");
        assert_eq!(v["gc_cycles"], s["collections"], "{name}: collections");
        assert_eq!(v["time_unit"], "ns", "{name}");
        assert_eq!(
            v["inconsistent_events"], 0,
            "{name}: a consistent object history"
        );
        assert!(
            v["lifetime_gc_epochs_histogram"].is_array(),
            "{name}: epochs"
        );
        stats.push(v);
    }
    let strip = |v: &serde_json::Value| {
        let mut v = v.clone();
        v.as_object_mut().map(|o| o.remove("file"));
        v
    };
    assert_eq!(
        strip(&stats[0]),
        strip(&stats[1]),
        "both forms hold the same trace"
    );
    let text = std::fs::read_to_string(d.join("kwml.gctrace.txt")).expect("text");
    assert!(text.starts_with("gclab-trace 2\n"), "text by extension");
    assert!(
        std::fs::read(d.join("kwml.gctrace"))
            .expect("bin")
            .starts_with(b"\x89GCTRACE"),
        "binary by extension"
    );
    let o = gclab(&["trace", "record", "preset:kvm/nope", "-o", "x.gctrace"]);
    assert_eq!(o.status.code(), Some(2), "bad scenario");
    let o = gclab(&["trace", "record", "preset:kvm/kwml"]);
    assert_eq!(o.status.code(), Some(2), "missing -o");
}

/// Parses a trace-event JSON file and checks the shape every event must have.
fn trace_events(path: &str) -> Vec<serde_json::Value> {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path).expect("json file")).expect("valid JSON");
    let evs = v["traceEvents"]
        .as_array()
        .expect("traceEvents array")
        .clone();
    for e in &evs {
        let ph = e["ph"].as_str().expect("ph");
        assert!(e["pid"].is_u64(), "pid: {e}");
        assert!(e["name"].is_string(), "name: {e}");
        match ph {
            "X" => {
                assert!(
                    e["ts"].is_number() && e["dur"].as_f64().is_some_and(|d| d >= 0.0),
                    "{e}"
                );
                assert!(e["tid"].is_u64(), "slice on a thread: {e}");
            }
            "C" => {
                assert!(e["ts"].is_number(), "{e}");
                assert!(
                    e["args"]
                        .as_object()
                        .is_some_and(|a| !a.is_empty() && a.values().all(|x| x.is_number())),
                    "numeric counter args: {e}"
                );
            }
            "M" => assert!(e["args"]["name"].is_string(), "{e}"),
            other => panic!("unexpected phase {other}"),
        }
    }
    evs
}

#[test]
fn perfetto_export_of_an_android_run_has_core_tracks_and_frequency_counters() {
    let d = scratch("perfetto-android");
    let out = d.join("jack.json").display().to_string();
    let o = gclab(&["export-perfetto", "preset:android/jack", "-o", &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let evs = trace_events(&out);
    for c in 0..4 {
        assert!(
            count(&evs, "C", &format!("cpu{c} frequency")) >= 1,
            "a frequency counter for core {c}"
        );
    }
    assert!(
        count(&evs, "M", "thread_name") >= 5,
        "GC, mutator and core tracks named"
    );
    assert!(
        count(&evs, "X", "mutator-0") > 10,
        "what ran on the cores, by thread"
    );
    assert!(count(&evs, "X", "GC (") > 10, "GC slices");
    assert!(count(&evs, "C", "cpu power") > 10, "power counter");
}

fn count(evs: &[serde_json::Value], ph: &str, name_has: &str) -> usize {
    evs.iter()
        .filter(|e| e["ph"] == ph && e["name"].as_str().is_some_and(|n| n.contains(name_has)))
        .count()
}

#[test]
fn perfetto_export_of_a_scenario_a_trace_and_a_gc_log() {
    let d = scratch("perfetto");
    let set = "collector.kind=adaptive";
    let s = run_summary("preset:kvm/kwml", set);
    let out = d.join("run.json").display().to_string();
    let o = gclab(&[
        "export-perfetto",
        "preset:kvm/kwml",
        "--set",
        set,
        "-o",
        &out,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let evs = trace_events(&out);
    assert_eq!(
        count(&evs, "X", "GC ("),
        s["collections"].as_u64().expect("collections") as usize,
        "one GC slice per collection"
    );
    assert!(count(&evs, "C", "heap") > 10, "heap counter");
    assert!(count(&evs, "C", "frequency") >= 2, "frequency counter");
    assert!(count(&evs, "M", "thread_name") >= 1, "named threads");

    // A recorded trace: GC slices from gc_start/gc_end, live bytes counter.
    let tr = d.join("kwml.gctrace").display().to_string();
    let o = gclab(&[
        "trace",
        "record",
        "preset:kvm/kwml",
        "--set",
        set,
        "-o",
        &tr,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = d.join("trace.json").display().to_string();
    let o = gclab(&["export-perfetto", &tr, "-o", &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let evs = trace_events(&out);
    assert_eq!(
        count(&evs, "X", "GC ("),
        s["collections"].as_u64().expect("collections") as usize,
        "GC slices from the trace"
    );
    assert!(count(&evs, "C", "heap") > 10, "live-bytes counter");

    // A HotSpot log.
    let log = shared_data()
        .join("jvm-logs/jdk17-g1-xmx128m.log")
        .display()
        .to_string();
    let out = d.join("log.json").display().to_string();
    let o = gclab(&["export-perfetto", &log, "-o", &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let evs = trace_events(&out);
    assert!(count(&evs, "X", "Pause") > 10, "pause slices");
    assert!(count(&evs, "C", "heap") > 10, "heap counter");

    // Bad input.
    let junk = d.join("junk.bin");
    std::fs::write(&junk, b"\x89GCTRACE\x05").expect("write");
    let o = gclab(&["export-perfetto", &junk.display().to_string(), "-o", &out]);
    assert_eq!(o.status.code(), Some(2), "unsupported trace version");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("version 5"),
        "names the version"
    );
}
