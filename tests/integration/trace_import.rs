//! `gclab trace import` on the real traces of `../shared/data/object-traces/`: replaying the imported heaptrack
//! capture of jq reproduces `live_bytes` after every event of `events.csv.gz` and the exact peak of
//! `summary.txt`; the objects CSV gives the same trace; the four Elephant Tracks 2 traces import (deaths
//! reconstructed); bad inputs exit 2 naming the line.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use gclab_core::trace::reader::open_decompressed;
use gclab_core::trace::{Event, TraceReader};
use gclab_tests::{gclab, shared_data};

use super::trace_format::{scratch, stats_json};

fn jq() -> PathBuf {
    shared_data().join("object-traces/heaptrack/jq")
}

fn import(input: &Path, out: &Path, format: Option<&str>) -> String {
    let mut args = vec![
        "trace".to_string(),
        "import".to_string(),
        input.display().to_string(),
        "-o".to_string(),
        out.display().to_string(),
    ];
    if let Some(f) = format {
        args.push("--format".into());
        args.push(f.into());
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = gclab(&refs);
    assert!(
        o.status.success(),
        "import {}: {}",
        input.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// `key=value` lines of summary.txt.
fn summary(key: &str) -> u64 {
    let text = std::fs::read_to_string(jq().join("summary.txt")).expect("summary.txt");
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("{key} in summary.txt"))
}

/// Replays `trace` and checks live bytes after every event against events.csv.gz (kind A/F, live_bytes).
fn replay_matches_events_csv(trace: &Path) {
    let mut r = TraceReader::open(trace).expect("open imported trace");
    let csv =
        open_decompressed("events.csv.gz", &jq().join("events.csv.gz")).expect("events.csv.gz");
    let mut rows = BufReader::new(csv).lines();
    let header = rows.next().expect("header").expect("utf-8");
    let cols: Vec<&str> = header.split(',').collect();
    let col = |n: &str| cols.iter().position(|c| *c == n).expect("column");
    let (c_kind, c_size, c_live) = (col("kind"), col("size"), col("live_bytes"));
    let mut sizes = std::collections::HashMap::new();
    let mut live = 0u64;
    let mut peak = 0u64;
    let mut n = 0u64;
    for ev in r.by_ref() {
        let ev = ev.expect("event");
        let row = rows.next().expect("as many rows as events").expect("row");
        let f: Vec<&str> = row.split(',').collect();
        n += 1;
        match ev {
            Event::Alloc { id, size_bytes, .. } => {
                assert_eq!(f[c_kind], "A", "event {n}: alloc");
                assert_eq!(
                    f[c_size].parse::<u64>().expect("size"),
                    size_bytes,
                    "event {n}: size"
                );
                sizes.insert(id, size_bytes);
                live += size_bytes;
            }
            Event::Death { id, .. } => {
                assert_eq!(f[c_kind], "F", "event {n}: free");
                live -= sizes.remove(&id).expect("death of a live object");
            }
            other => panic!("unexpected event {other:?}"),
        }
        assert_eq!(
            live,
            f[c_live].parse::<u64>().expect("live_bytes"),
            "live bytes after event {n}"
        );
        peak = peak.max(live);
    }
    assert!(rows.next().is_none(), "as many events as rows");
    assert_eq!(n, summary("allocations") * 2, "every alloc and free");
    assert_eq!(peak, summary("peak_live_bytes"), "exact peak");
}

/// `trace stats --json` of `trace` against summary.txt: peak and where, bytes, objects, never freed.
fn stats_match_the_summary(trace: &Path) -> serde_json::Value {
    let v = stats_json(&trace.display().to_string());
    assert_eq!(
        v["peak_live_bytes"],
        summary("peak_live_bytes"),
        "stats peak"
    );
    assert_eq!(v["peak_at_event"], summary("peak_at_seq"), "peak at seq");
    assert_eq!(
        v["allocated_bytes"],
        summary("bytes_allocated_total"),
        "bytes"
    );
    assert_eq!(v["objects"], summary("allocations"), "objects");
    assert_eq!(v["never_freed"], summary("never_freed"), "never freed");
    v
}

#[test]
fn heaptrack_jq_replays_live_bytes_after_every_event_and_the_exact_peak() {
    let d = scratch("heaptrack");
    let out = d.join("jq.gctrace");
    let said = import(&jq().join("trace.raw.zst"), &out, None);
    assert!(said.contains("68973 objects"), "{said}");
    replay_matches_events_csv(&out);
    stats_match_the_summary(&out);
    // The text form carries the same trace.
    let txt = d.join("jq.gctrace.txt");
    import(&jq().join("trace.raw.zst"), &txt, Some("heaptrack"));
    replay_matches_events_csv(&txt);
}

/// heaptrack's interpreted file of the same run (what `heaptrack` leaves by default) replays the same live bytes
/// after every event and the same exact peak, although it has no pointers, and names sites by function.
#[test]
fn heaptrack_interpreted_jq_replays_the_same_live_bytes_and_peak() {
    let input = jq().join("trace.interpreted.zst");
    let d = scratch("heaptrack-interpreted");
    let out = d.join("jq.gctrace");
    let said = import(&input, &out, None);
    assert!(
        said.contains("68973 objects") && said.contains("interpreted format"),
        "{said}"
    );
    replay_matches_events_csv(&out);
    let text = stats_match_the_summary(&out).to_string();
    assert!(
        text.contains("jv_mem_alloc"),
        "sites named by their functions"
    );
}

/// The lifetime histogram in bytes allocated agrees with objects.csv's own clocks (free_clock − alloc_clock).
#[test]
fn lifetimes_in_bytes_allocated_match_the_objects_csv_clocks() {
    let d = scratch("lifetimes");
    let out = d.join("jq.gctrace");
    import(&jq().join("trace.raw.zst"), &out, None);
    let v = stats_json(&out.display().to_string());
    let csv =
        open_decompressed("objects.csv.gz", &jq().join("objects.csv.gz")).expect("objects.csv.gz");
    let mut rows = BufReader::new(csv).lines();
    let header = rows.next().expect("header").expect("utf-8");
    let cols: Vec<&str> = header.split(',').collect();
    let col = |n: &str| cols.iter().position(|c| *c == n).expect("column");
    let (a, f) = (col("alloc_clock_bytes"), col("free_clock_bytes"));
    let mut want = vec![0u64; 65];
    for row in rows {
        let row = row.expect("row");
        let c: Vec<&str> = row.split(',').collect();
        if c[f].is_empty() {
            continue;
        }
        let life =
            c[f].parse::<u64>().expect("free clock") - c[a].parse::<u64>().expect("alloc clock");
        want[(64 - life.leading_zeros()) as usize] += 1;
    }
    let got = v["lifetime_bytes_histogram"].as_array().expect("histogram");
    for (k, b) in got.iter().enumerate() {
        assert_eq!(b["objects"], want[k], "bucket [{}, {})", b["min"], b["max"]);
    }
    assert_eq!(
        want[got.len()..].iter().sum::<u64>(),
        0,
        "no lifetime beyond the histogram"
    );
}

#[test]
fn objects_csv_gives_the_same_replay() {
    let d = scratch("objects-csv");
    let out = d.join("jq-objects.gctrace");
    import(&jq().join("objects.csv.gz"), &out, Some("objects-csv"));
    replay_matches_events_csv(&out);
    // Auto-detected too.
    import(&jq().join("objects.csv.gz"), &d.join("auto.gctrace"), None);
}

#[test]
fn elephant_tracks_2_traces_import_with_reconstructed_deaths() {
    let d = scratch("et2");
    let root = shared_data().join("object-traces/elephant-tracks-2");
    // Traces without an allocation record have nothing usable: exit 2, no output (issue 21).
    for name in ["hello_world", "methods"] {
        let out = d.join(format!("{name}.gctrace"));
        let o = gclab(&[
            "trace",
            "import",
            root.join(name).to_str().expect("utf-8"),
            "-o",
            out.to_str().expect("utf-8"),
        ]);
        assert_eq!(o.status.code(), Some(2), "{name}: no objects exits 2");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("no objects"),
            "{name}: says why"
        );
        assert!(!out.exists(), "{name}: no output written");
    }
    for (name, objects) in [("lots_of_allocs", 1003), ("new_call", 2)] {
        let out = d.join(format!("{name}.gctrace"));
        let said = import(&root.join(name), &out, None);
        assert!(said.contains("(et2)"), "{name}: detected: {said}");
        assert!(
            said.contains("lower bound"),
            "{name}: says how exact: {said}"
        );
        let v = stats_json(&out.display().to_string());
        assert_eq!(v["objects"], objects, "{name}");
        assert_eq!(
            v["never_freed"], 0,
            "{name}: every object dies at its last use"
        );
        assert_eq!(v["deaths"], objects, "{name}");
    }
    // The trace file itself, with --format.
    let out = d.join("lots.gctrace.txt");
    import(&root.join("lots_of_allocs/trace.bz2"), &out, Some("et2"));
    let v = stats_json(&out.display().to_string());
    assert_eq!(
        v["top_classes"][0]["name"], "FooClass",
        "classes.list names types"
    );
    assert_eq!(v["allocated_bytes"], 1003 * 24, "sizes");
}

#[test]
fn bad_import_inputs_exit_2_naming_the_line() {
    let d = scratch("bad-import");
    let cases: [(&str, &[u8], &str, &str); 5] = [
        ("h.raw", b"v 10400 3\n+ 10 1 zz\n", "heaptrack", ":2:"),
        // An interpreted file allocating a kind no `a` line defined.
        ("h.zst", b"v 10400 3\na 10 1\n+ 5\n", "heaptrack", ":3:"),
        (
            "o.csv",
            b"obj,size,alloc_seq,free_seq\n1,8,1,2\n2,x,3,\n",
            "objects-csv",
            ":3:",
        ),
        ("u.raw", b"v 10400 3\n+ 10 1 \xff\n", "heaptrack", ":2:"),
        ("nothing.txt", b"hello\nworld\n", "", ":1:"),
    ];
    for (name, bytes, format, want) in cases {
        let p = d.join(name);
        std::fs::write(&p, bytes).expect("write");
        let out = d.join("out.gctrace").display().to_string();
        let ps = p.display().to_string();
        let mut args = vec!["trace", "import", ps.as_str(), "-o", out.as_str()];
        if !format.is_empty() {
            args.extend(["--format", format]);
        }
        let o = gclab(&args);
        assert_eq!(o.status.code(), Some(2), "{name}: exit 2");
        let e = String::from_utf8_lossy(&o.stderr).trim().to_string();
        assert_eq!(e.lines().count(), 1, "{name}: one line: {e}");
        assert!(e.contains(name) && e.contains(want), "{name}: {e}");
        assert!(!Path::new(&out).exists(), "{name}: no half-written output");
    }
    let o = gclab(&["trace", "import", "x", "-o", "y", "--format", "nope"]);
    assert_eq!(o.status.code(), Some(2), "unknown format");
}
