//! Issue 21, items 4–5, for `gclab export-perfetto` and `gclab trace record`: a GC log's pauses are exported
//! from a temporary file beyond 65536 pauses with every field intact and the heap counter thinned on the fly;
//! recordings in small windows equal the whole-run sort; every long command takes `--quiet` and prints nothing
//! on a piped stderr, and export-perfetto shows progress on a terminal.

use gclab_tests::{gclab, gclab_bin, path_str, scratch_dir, shared_data};

/// Most points per counter series (`cli::perfetto::MAX_COUNTER_POINTS`).
const MAX_COUNTER_POINTS: usize = 20_000;

fn export(input: &str, out: &std::path::Path) -> serde_json::Value {
    let o = gclab(&["export-perfetto", input, "-o", path_str(out)]);
    assert!(
        o.status.success(),
        "{input}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&std::fs::read(out).expect("output")).expect("valid JSON")
}

fn events<'a>(v: &'a serde_json::Value, ph: &str) -> Vec<&'a serde_json::Value> {
    v["traceEvents"]
        .as_array()
        .expect("traceEvents")
        .iter()
        .filter(|e| e["ph"] == ph)
        .collect()
}

/// A G1 log of `n` young pauses, 10 ms apart, each `B->A(128M)` with `B` rising and falling.
fn g1_log(n: usize) -> String {
    let mut s = String::new();
    for k in 0..n {
        let before = 20 + (k * 7919) % 97;
        let cause = if k % 3 == 0 {
            "G1 Evacuation Pause"
        } else {
            "G1 Humongous Allocation"
        };
        s += &format!(
            "[{}.{:03}s][info][gc] GC({k}) Pause Young (Normal) ({cause}) {before}M->{}M(128M) 1.{:03}ms\n",
            k / 100,
            (k % 100) * 10,
            before / 2,
            k % 1000
        );
    }
    s
}

/// Beyond 65536 pauses the records go to a temporary file: every pause comes back with its kind, cause, cycle
/// and heap figures, in input order; the heap counter's 2n points are thinned to stretches of ceil(2n / 20000)
/// keeping each one's highest, so the log's peak survives.
#[test]
fn a_log_of_70000_pauses_is_exported_whole_with_a_thinned_heap_counter() {
    let d = scratch_dir("streaming-exports", "g1");
    let n = 70_000;
    let log = d.join("g1.log");
    std::fs::write(&log, g1_log(n)).expect("log");
    let v = export(path_str(&log), &d.join("g1.json"));
    let slices = events(&v, "X");
    assert_eq!(slices.len(), n, "one slice a pause");
    for (k, s) in slices.iter().enumerate() {
        assert_eq!(s["args"]["gc_id"], k as u64, "in input order, cycle kept");
        assert_eq!(s["args"]["line"], k as u64 + 1, "line kept");
        assert_eq!(s["name"], "Pause Young (Normal)", "kind kept");
        let before = (20 + (k * 7919) % 97) as u64;
        assert_eq!(
            s["args"]["heap_before_bytes"],
            before << 20,
            "heap before kept"
        );
        assert_eq!(
            s["args"]["heap_total_bytes"],
            128u64 << 20,
            "heap total kept"
        );
        let cause = if k % 3 == 0 {
            "G1 Evacuation Pause"
        } else {
            "G1 Humongous Allocation"
        };
        assert_eq!(s["args"]["cause"], cause, "cause kept");
    }
    let heap = events(&v, "C");
    let stride = (2 * n).div_ceil(MAX_COUNTER_POINTS);
    assert_eq!(heap.len(), (2 * n).div_ceil(stride), "thinned to stretches");
    let top = heap
        .iter()
        .filter_map(|c| c["args"]["used_bytes"].as_u64())
        .max();
    assert_eq!(top, Some(116u64 << 20), "the peak survives");
    let ts: Vec<f64> = heap.iter().filter_map(|c| c["ts"].as_f64()).collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "in time order");
}

/// Pauses beyond one formatting run (65536) of several mutators, two of them first named in a later run and one
/// on the last row: every slice in row order on its mutator's track, and each track named once, before its first
/// slice — as writing them one by one would.
#[test]
fn a_pause_csv_of_many_runs_and_mutators_is_exported_in_row_order_with_each_track_named_first() {
    let d = scratch_dir("streaming-exports", "mutators");
    let n = 150_000usize;
    let name = |k: usize| match k {
        _ if k == n - 1 => "last".to_string(),
        _ if k < 70_000 => format!("m{}", k % 3),
        _ => format!("m{}", k % 5),
    };
    let mut csv = String::from("start_ns,end_ns,mutator,kind\n");
    for k in 0..n {
        csv += &format!(
            "{},{},{},stw\n",
            1000 * k as u64 + 7,
            1000 * k as u64 + 500,
            name(k)
        );
    }
    let path = d.join("p.csv");
    std::fs::write(&path, csv).expect("csv");
    let v = export(path_str(&path), &d.join("p.json"));
    let evs = v["traceEvents"].as_array().expect("traceEvents");
    let mut named = std::collections::HashMap::new();
    let mut row = 0usize;
    for e in evs {
        let tid = e["tid"].as_u64().unwrap_or(0);
        match e["ph"].as_str() {
            Some("M") if e["name"] == "thread_name" => {
                let who = e["args"]["name"].as_str().unwrap_or("").to_string();
                assert!(named.insert(tid, who).is_none(), "track {tid} named once");
            }
            Some("X") => {
                assert_eq!(e["args"]["line"], row as u64 + 2, "row order");
                assert_eq!(
                    named.get(&tid),
                    Some(&name(row)),
                    "named before its first slice"
                );
                assert_eq!(
                    e["ts"].as_f64(),
                    Some((1000 * row as u64 + 7) as f64 / 1000.0),
                    "ts"
                );
                assert_eq!(e["dur"].as_f64(), Some(0.493), "dur");
                row += 1;
            }
            _ => {}
        }
    }
    assert_eq!(row, n, "every pause");
    assert_eq!(named.len(), 6, "m0–m4 and last");
}

/// The real logs export to valid JSON with one slice per pause `gclab mmu` counts.
#[test]
fn real_logs_export_one_slice_per_pause() {
    let d = scratch_dir("streaming-exports", "real");
    for dir in ["jvm-logs", "android-logs"] {
        let Ok(rd) = std::fs::read_dir(shared_data().join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let input = path_str(&p).to_string();
            let o = gclab(&["mmu", &input, "--json", "-"]);
            if !o.status.success() {
                continue;
            }
            let m: serde_json::Value = serde_json::from_slice(&o.stdout).expect("mmu JSON");
            let Some(pauses) = m["pauses"].as_u64() else {
                continue;
            };
            if m["mutators"].as_u64() != Some(1) {
                continue;
            }
            let v = export(&input, &d.join("out.json"));
            assert_eq!(
                events(&v, "X").len() as u64,
                pauses,
                "{input}: one slice a pause"
            );
        }
    }
}

/// Item 5: each long command accepts `--quiet`, and a piped stderr gets no progress line.
#[test]
fn long_commands_take_quiet_and_stay_silent_on_a_pipe() {
    let d = scratch_dir("streaming-exports", "quiet");
    let log = shared_data().join("jvm-logs/jdk17-g1-xmx128m.log");
    let tr = d.join("k.gctrace");
    let commands: Vec<Vec<String>> = vec![
        vec!["run".into(), "preset:kvm/kwml".into()],
        vec![
            "trace".into(),
            "record".into(),
            "preset:kvm/kwml".into(),
            "-o".into(),
            path_str(&tr).into(),
        ],
        vec![
            "trace".into(),
            "import".into(),
            path_str(&tr).into(),
            "-o".into(),
            path_str(&d.join("k2.gctrace")).into(),
        ],
        vec!["mmu".into(), path_str(&log).into()],
        vec![
            "export-perfetto".into(),
            "preset:kvm/kwml".into(),
            "-o".into(),
            path_str(&d.join("p.json")).into(),
        ],
        vec![
            "export-perfetto".into(),
            path_str(&log).into(),
            "-o".into(),
            path_str(&d.join("l.json")).into(),
        ],
        vec![
            "export-perfetto".into(),
            path_str(&tr).into(),
            "-o".into(),
            path_str(&d.join("t.json")).into(),
        ],
    ];
    for quiet in [false, true] {
        for c in &commands {
            let mut a: Vec<&str> = c.iter().map(String::as_str).collect();
            if quiet {
                a.push("--quiet");
            }
            let o = gclab(&a);
            assert!(
                o.status.success(),
                "{a:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(
                !String::from_utf8_lossy(&o.stderr).contains("gclab: "),
                "{a:?}: no progress on a pipe: {:?}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
    // reproduce takes --quiet (a bad --paper stops it before any run).
    let o = gclab(&["reproduce", "--quiet", "--paper", "none"]);
    assert_eq!(o.status.code(), Some(2), "parsed up to --paper");
    assert!(String::from_utf8_lossy(&o.stderr).contains("--paper"));
}

/// Item 5: export-perfetto of a scenario shows its simulation's progress on a terminal, cleared at the end.
#[test]
fn export_perfetto_shows_progress_on_a_terminal() {
    let d = scratch_dir("streaming-exports", "tty");
    let out = d.join("p.json");
    let cmd = format!(
        "{} export-perfetto preset:android/jack -o {}",
        gclab_bin().display(),
        path_str(&out)
    );
    let o = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("util-linux `script`");
    let shown = String::from_utf8_lossy(&o.stdout);
    assert!(
        shown.contains("gclab: export-perfetto preset:android/jack") && shown.contains("\r\x1b[2K"),
        "progress line, cleared: {shown:?}"
    );
}

/// A logcat capture of `n` GCs from three pids, threadtime-stamped over two days, every seventh line stamped an
/// hour before the first (captures interleave buffers), with Dalvik's two-pause and ART's one-pause lines.
fn logcat(n: usize) -> String {
    let mut s = String::new();
    for k in 0..n {
        let ms = if k % 7 == 3 {
            k as u64 * 40
        } else {
            3_600_000 + k as u64 * 40
        };
        let (day, rest) = (27 + ms / 86_400_000, ms % 86_400_000);
        let stamp = format!(
            "04-{day:02} {:02}:{:02}:{:02}.{:03}",
            rest / 3_600_000,
            rest / 60_000 % 60,
            rest / 1000 % 60,
            rest % 1000
        );
        let pid = 380 + k % 3;
        if k % 2 == 0 {
            s += &format!(
                "{stamp}   {pid}   {} D dalvikvm: GC_CONCURRENT freed {}K, 17% free 15805K/19020K, paused {}ms+{}ms, total {}ms\n",
                pid + 10,
                k % 900,
                1 + k % 5,
                2 + k % 3,
                20 + k % 11
            );
        } else {
            s += &format!(
                "{stamp}   {pid}   {} I art     : Background sticky concurrent mark sweep GC freed {}(1MB) AllocSpace objects, 0(0B) LOS objects, 20% free, 9MB/12MB, paused {}us total {}.{}ms\n",
                pid + 10,
                k % 7000,
                300 + k % 700,
                10 + k % 9,
                k % 10
            );
        }
    }
    s
}

/// Beyond 65536 pauses a logcat's records go to a temporary file and are moved onto the capture's time axis as
/// they are read back, not rewritten: every slice is the pause the in-memory import places, in input order.
#[test]
fn a_logcat_of_70000_gcs_is_exported_on_the_time_axis_the_in_memory_import_gives() {
    let d = scratch_dir("streaming-exports", "logcat");
    let n = 70_000;
    let log = d.join("big.logcat");
    let text = logcat(n);
    std::fs::write(&log, &text).expect("log");
    let want = gclab_core::importers::logcat::parse("big.logcat", &text).expect("parses");
    assert!(
        want.pauses.len() > 1 << 16,
        "{} pauses: past the records kept in memory",
        want.pauses.len()
    );
    assert!(
        want.pauses.iter().any(|p| p.start_ns == 0) && want.pauses[0].start_ns > 0,
        "the first line is not the earliest: the move is not the identity"
    );
    let v = export(path_str(&log), &d.join("big.json"));
    let slices = events(&v, "X");
    assert_eq!(slices.len(), want.pauses.len(), "one slice a pause");
    for (s, p) in slices.iter().zip(&want.pauses) {
        assert_eq!(s["args"]["line"], p.line as u64, "in input order");
        // Perfetto's microseconds, as `json_out::pause_slice` writes them (ns / 1000, three decimals).
        let us = |ns: u64| ns as f64 / 1000.0;
        assert_eq!(s["ts"].as_f64(), Some(us(p.start_ns)), "line {}", p.line);
        assert_eq!(
            s["dur"].as_f64(),
            Some(us(p.end_ns - p.start_ns)),
            "line {}",
            p.line
        );
    }
}
