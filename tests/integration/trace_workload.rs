//! A recorded trace as the workload (`[workload.trace]`, issue #5 item 4): a simulated run recorded and replayed
//! under the same collector collects exactly as the original (the recording keeps every size, lifetime and
//! allocation order); the embedded `trace/jq` preset (a real program, heaptrack) runs under every kvm collector;
//! on android-krait a recording becomes the Table 1 profile measured from it; a missing trace is a one-line error
//! naming the field and the file.

use std::path::Path;

use gclab_tests::gclab;

use super::trace_format::scratch;

fn summary(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "-"]);
    let o = gclab(&all);
    assert!(
        o.status.success(),
        "gclab {all:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("run JSON");
    v["summary"].clone()
}

/// A scenario file in `dir` replaying `trace` (relative to it) under `collector` on kwml's heap and profile.
fn replay_scenario(dir: &Path, trace: &str, collector: &str) -> String {
    let p = dir.join(format!(
        "replay-{}.toml",
        collector.replace(['=', ' ', '\n'], "_")
    ));
    let text = format!(
        "format_version = 1\nplatform = \"kvm-soc\"\n\n[workload]\nprofile = \"kvm/kwml\"\n\n\
         [workload.trace]\npath = \"{trace}\"\n\n[collector]\n{collector}\n\n[heap]\nsize = \"128KiB\"\n\
         bank_size = \"16KiB\"\n"
    );
    std::fs::write(&p, text).expect("scenario written");
    p.display().to_string()
}

#[test]
fn a_recording_replayed_under_its_own_collector_collects_as_the_original() {
    let d = scratch("replay");
    for (set, toml) in [
        (vec!["collector.kind=base"], "kind = \"base\""),
        (
            vec!["collector.kind=k-allocation", "collector.k=40"],
            "kind = \"k-allocation\"\nk = 40",
        ),
    ] {
        let mut rec = vec!["trace", "record", "preset:kvm/kwml"];
        for s in &set {
            rec.extend_from_slice(&["--set", s]);
        }
        let out = d.join("kwml.gctrace").display().to_string();
        rec.extend_from_slice(&["-o", &out]);
        let o = gclab(&rec);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

        let mut orig_args = vec!["preset:kvm/kwml"];
        for s in &set {
            orig_args.extend_from_slice(&["--set", s]);
        }
        let orig = summary(&orig_args);
        let replay = summary(&[&replay_scenario(&d, "kwml.gctrace", toml)]);
        for field in [
            "allocations",
            "allocated_bytes",
            "collections",
            "collections_by_trigger",
            "peak_live_bytes",
        ] {
            assert_eq!(replay[field], orig[field], "{toml}: {field}");
        }
        assert!(
            replay["collections"].as_u64().unwrap_or(0) > 0,
            "{toml}: the replay collects"
        );
    }
}

#[test]
fn the_embedded_jq_recording_runs_under_every_kvm_collector() {
    let mut counts = Vec::new();
    for set in [
        "collector.kind=base",
        "collector.kind=adaptive",
        "collector.kind=k-allocation",
    ] {
        let a = summary(&["preset:trace/jq", "--set", set]);
        let b = summary(&["preset:trace/jq", "--set", set]);
        assert_eq!(a, b, "{set}: deterministic");
        assert_eq!(a["allocations"], 68_973, "{set}: every recorded malloc");
        assert!(
            a["allocated_bytes"].as_u64().unwrap_or(0) >= 9_104_219,
            "{set}: at least the recorded bytes (sizes aligned up)"
        );
        assert_eq!(
            a["out_of_memory"], false,
            "{set}: 8 MiB holds jq's 5.6 MB peak"
        );
        counts.push(a["collections"].as_u64().unwrap_or(0));
    }
    assert!(
        counts[2] > counts[0],
        "k-allocation (k = 100) collects more often than base: {counts:?}"
    );
}

#[test]
fn on_android_a_recording_runs_as_its_table_1_characteristics() {
    let o = gclab(&[
        "run",
        "preset:android/jack",
        "--set",
        "workload.trace.path=sample/jq",
        "--json",
        "-",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("run JSON");
    let a = &v["scenario"]["workload_profile"]["android"];
    // jq under heaptrack: 68,973 objects, 9,104,219 bytes (summary.txt of the recording).
    assert_eq!(a["objects_m"], 0.068_973, "objects measured from the trace");
    let mib = a["allocated_mib"].as_f64().unwrap_or(0.0);
    assert!(
        (mib - 9_104_219.0 / 1_048_576.0).abs() < 1e-9,
        "allocated: {mib}"
    );
    let live = a["live_mib"].as_f64().unwrap_or(0.0);
    assert!(
        live > 0.0 && live < 5.36,
        "mean live below the 5.6 MB peak: {live}"
    );
    assert_eq!(
        a["iterations"], 5,
        "what a trace does not record comes from jack's profile"
    );
    let s = &v["summary"];
    assert_eq!(s["allocations"], 68_973, "every recorded object");
    assert!(s["collections"].as_u64().unwrap_or(0) > 0, "it collects");
}

#[test]
fn a_missing_or_newer_trace_is_a_one_line_error() {
    let d = scratch("replay-errors");
    let p = replay_scenario(&d, "no-such.gctrace", "kind = \"base\"");
    let o = gclab(&["run", &p]);
    assert_eq!(o.status.code(), Some(2), "bad input");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("workload.trace.path")
            && err.contains("no-such.gctrace")
            && err.lines().count() == 1,
        "names the field and the file in one line: {err}"
    );
    // A trace of a newer format version than this build reads.
    std::fs::write(d.join("future.gctrace"), "gclab-trace 99\ntime_unit ns\n").expect("written");
    let p = replay_scenario(&d, "future.gctrace", "kind = \"base\"");
    let o = gclab(&["run", &p]);
    assert_eq!(o.status.code(), Some(2), "bad input");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("workload.trace.path") && err.contains("99") && err.lines().count() == 1,
        "names the field and the version in one line: {err}"
    );
}
