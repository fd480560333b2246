//! Real GC logs through the importers and `gclab mmu`.
//!
//! * HotSpot (`../shared/data/jvm-logs/*.log`, JDK 17, Serial, Parallel, G1, ZGC): pause count, log line, end time
//!   and duration of every pause agree with the independent extraction `derived/*.pauses.csv`; no line of these
//!   logs is left not understood. The ZGC log's last `MMU:` line is reproduced by the exact MMU of its own pauses.
//! * Decorator forms, collectors and JDK eras not in those files (uptime in ms or ns, wall time, no decorators,
//!   Shenandoah, generational ZGC, a JDK 25 safepoint-only log) from small inline logs.
//! * Android (`../shared/data/android-logs/real-lines.tsv`): every one of the 56 real lines parses, and a GC line
//!   yields as many pauses as its `paused` field lists.
//! * Bad input: at least 10 cases exit with status 2 and one line naming the file and line (or the option).

use std::path::{Path, PathBuf};
use std::process::Output;

use gclab_core::importers::logcat::{self, LogcatLine};
use gclab_core::importers::{Format, Imported, PauseSeries, import_bytes, import_file};
use gclab_core::metrics::mmu::MmuCurve;
use gclab_tests::{gclab, shared_data};

const LOGS: [&str; 4] = [
    "jdk17-serial-xmx128m",
    "jdk17-parallel-xmx128m",
    "jdk17-g1-xmx128m",
    "jdk17-zgc-xmx256m",
];

fn jvm_log(name: &str) -> PathBuf {
    shared_data().join("jvm-logs").join(format!("{name}.log"))
}

fn pauses_of(path: &Path, format: Format) -> PauseSeries {
    match import_file(path, format) {
        Ok((_, Imported::Pauses(p))) => p,
        other => panic!("{}: expected pauses, got {other:?}", path.display()),
    }
}

fn pauses_in(text: &str, format: Format) -> PauseSeries {
    match import_bytes("inline.log", text.as_bytes(), format) {
        Ok((_, Imported::Pauses(p))) => p,
        other => panic!("expected pauses, got {other:?}"),
    }
}

/// Splits a CSV line with double-quoted fields.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// `derived/NAME.pauses.csv` rows: (line, gc_id, kind, end ns, duration ns).
fn derived(name: &str) -> Vec<(usize, u64, String, u64, u64)> {
    let path = shared_data()
        .join("jvm-logs/derived")
        .join(format!("{name}.pauses.csv"));
    let text = std::fs::read_to_string(&path).expect("derived CSV");
    let to_ns = |v: &str, scale: f64| (v.parse::<f64>().expect("number") * scale).round() as u64;
    text.lines()
        .skip(1)
        .map(|l| {
            let f = csv_fields(l);
            (
                f[0].parse().expect("line"),
                f[1].parse().expect("gc id"),
                f[2].clone(),
                to_ns(&f[3], 1e9),
                to_ns(&f[5], 1e6),
            )
        })
        .collect()
}

#[test]
fn jvm_pauses_agree_with_the_derived_extraction() {
    for name in LOGS {
        let p = pauses_of(&jvm_log(name), Format::Auto);
        let want = derived(name);
        assert_eq!(p.pauses.len(), want.len(), "{name}: pause count");
        for (got, (line, id, kind, end_ns, dur_ns)) in p.pauses.iter().zip(&want) {
            assert_eq!(got.line, *line, "{name}: log line");
            assert_eq!(got.gc_id, Some(*id), "{name} line {line}: GC id");
            assert_eq!(
                got.end_ns, *end_ns,
                "{name} line {line}: end (uptime stamp)"
            );
            assert_eq!(got.duration_ns(), *dur_ns, "{name} line {line}: duration");
            let label = match &got.cause {
                Some(c) if kind.ends_with(&format!("({c})")) => format!("{} ({c})", got.kind),
                _ => got.kind.clone(),
            };
            assert_eq!(&label, kind, "{name} line {line}: kind and cause");
        }
        assert!(
            p.warnings.is_empty(),
            "{name}: every line understood, got {:?}",
            p.warnings.messages()
        );
        eprintln!(
            "{name}: {} pauses, all equal to derived/{name}.pauses.csv",
            p.pauses.len()
        );
    }
    let g1 = pauses_of(&jvm_log("jdk17-g1-xmx128m"), Format::Jvm);
    let first = &g1.pauses[0];
    assert_eq!(first.heap_before_bytes, Some(6 << 20), "G1 heap before");
    assert_eq!(first.heap_after_bytes, Some(3 << 20), "G1 heap after");
    assert_eq!(first.heap_total_bytes, Some(128 << 20), "G1 heap size");
    let zgc = pauses_of(&jvm_log("jdk17-zgc-xmx256m"), Format::Jvm);
    assert_eq!(
        zgc.pauses[0].cause.as_deref(),
        Some("Warmup"),
        "ZGC cause from its cycle line"
    );
}

#[test]
fn zgc_mmu_reproduces_its_own_log() {
    let p = pauses_of(&jvm_log("jdk17-zgc-xmx256m"), Format::Auto);
    let last = p.reported_mmu.last().expect("ZGC logs MMU lines");
    assert_eq!(p.reported_mmu.len(), 68, "one MMU line per completed cycle");
    // ZGC's MMU: after each pause, the windows ending at that pause's end, minimum so far: the pauses up to the
    // line, over the time since start.
    let span = (0, last.time_ns);
    let curve_series = p.util_series(span);
    let curve = MmuCurve::new(&curve_series);
    let mut worst_diff: f64 = 0.0;
    for &(w, logged) in &last.points {
        let ours = curve.mmu(w).utilization * 100.0;
        let d = ours - logged;
        eprintln!(
            "ZGC {} ms: ours {ours:.3}% vs logged {logged}% (Δ {d:+.3})",
            w / 1_000_000
        );
        worst_diff = worst_diff.max(d.abs());
        assert!(d.abs() <= 0.15, "{w} ns: ours {ours} vs ZGC {logged}");
    }
    eprintln!(
        "ZGC MMU: max |Δ| = {worst_diff:.3} points over {} windows",
        last.points.len()
    );
}

#[test]
fn decorators_collectors_and_eras() {
    // Uptime in ms, level and tags padded; Parallel.
    let p = pauses_in(
        "[1532ms][info][gc] GC(0) Pause Young (Allocation Failure) 33M->5M(123M) 26.641ms\n",
        Format::Auto,
    );
    assert_eq!(
        (p.pauses[0].start_ns, p.pauses[0].end_ns),
        (1_505_359_000, 1_532_000_000),
        "uptimemillis"
    );
    // Uptime in ns plus pid and tid decorators; Shenandoah.
    let p = pauses_in(
        "[123456789ns][4242][4243][info][gc] GC(3) Pause Init Mark (unload classes) 0.239ms\n\
         [223456789ns][4242][4243][info][gc] GC(3) Pause Final Mark (unload classes) 0.512ms\n\
         [323456789ns][4242][4243][info][gc] GC(3) Concurrent cleanup 80M->60M(128M) 0.084ms\n",
        Format::Jvm,
    );
    assert_eq!(
        p.pauses.len(),
        2,
        "Shenandoah pauses, not its concurrent phases"
    );
    assert_eq!(
        p.pauses[1].kind, "Pause Final Mark (unload classes)",
        "Shenandoah kind"
    );
    assert_eq!(p.pauses[0].end_ns, 123_456_789, "uptimenanos");
    // Wall time only: relative to the first line.
    let p = pauses_in(
        "[2024-03-01T10:00:00.000+0100][info][gc] Using G1\n\
         [2024-03-01T10:00:01.500+0100][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(256M) 3.456ms\n",
        Format::Auto,
    );
    assert_eq!(p.pauses[0].end_ns, 1_500_000_000, "time decorator");
    // Generational ZGC (JDK 21+).
    let p = pauses_in(
        "[0.218s][info][gc,phases   ] GC(0) Y: Pause Mark Start (Major) 0.016ms\n\
         [0.224s][info][gc,phases   ] GC(0) Y: Pause Mark End 0.011ms\n\
         [0.229s][info][gc,phases   ] GC(0) Y: Pause Relocate Start 0.007ms\n\
         [0.231s][info][gc,phases   ] GC(0) O: Pause Mark End 0.006ms\n\
         [0.233s][info][gc,phases   ] GC(0) O: Pause Relocate Start 0.005ms\n\
         [0.245s][info][gc          ] GC(0) Major Collection (Warmup) 30M(12%)->14M(5%) 0.027s\n",
        Format::Auto,
    );
    assert_eq!(p.pauses.len(), 5, "generational ZGC pauses");
    assert_eq!(
        p.pauses[0].cause.as_deref(),
        Some("Warmup"),
        "cause from the collection line"
    );
    // No decorators at all: laid end to end, with a warning.
    let p = pauses_in(
        "Using Serial\nGC(0) Pause Young (Allocation Failure) 10M->2M(64M) 5.000ms\nGC(1) Pause Full (System.gc()) 9M->1M(64M) 20.000ms\n",
        Format::Jvm,
    );
    assert_eq!(
        (p.pauses[1].start_ns, p.pauses[1].end_ns),
        (5_000_000, 25_000_000),
        "end to end"
    );
    assert!(
        p.warnings.messages()[0].contains("end to end"),
        "{:?}",
        p.warnings.messages()
    );
    // JDK 25: safepoint line without Cleanup, with thread counts; no GC line, so safepoints are the pauses.
    let p = pauses_in(
        "[2.000s][info][safepoint] Safepoint \"G1CollectForAllocation\", Time since last: 1000 ns, Reaching safepoint: 2000 ns, At safepoint: 3000 ns, Leaving safepoint: 10 ns, Total: 5010 ns, Threads: 1 runnable, 10 total\n",
        Format::Auto,
    );
    assert_eq!(p.pauses[0].duration_ns(), 5010, "safepoint Total");
    assert!(!p.warnings.is_empty(), "says safepoints were used");
    // The real G1 log decorated with uptime only (`-Xlog:gc*:file:uptime`): same pauses, nothing left over.
    let g1 = std::fs::read_to_string(jvm_log("jdk17-g1-xmx128m")).expect("G1 log");
    let uptime_only: String = g1
        .lines()
        .map(|l| match (l.find("][info]["), l.find("] ")) {
            (Some(a), Some(b)) if a < b => format!("{}{}\n", &l[..a + 1], &l[b + 1..]),
            _ => format!("{l}\n"),
        })
        .collect();
    assert!(
        uptime_only.starts_with("[0.004s] Using G1"),
        "decorators stripped"
    );
    let p = pauses_in(&uptime_only, Format::Auto);
    assert_eq!(p.pauses.len(), 165, "G1 pauses without level and tags");
    assert!(p.warnings.is_empty(), "{:?}", p.warnings.messages());
    // Lines not understood are counted, never fatal while pauses remain.
    let p = pauses_in(
        "[0.5s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 6M->3M(128M) 15.568ms\n\
         [0.6s][info][gc GC(1) Pause Young\n\
         [0.7s][info][class,load] java.lang.Object source: jrt:/java.base\n\
         2019-01-01T00:00:00.000+0000: 0.123: [GC (Allocation Failure) 1024K->512K(2048K), 0.001 secs]\n",
        Format::Jvm,
    );
    assert_eq!(p.pauses.len(), 1, "the readable pause");
    assert_eq!(
        p.warnings.skipped_lines(),
        3,
        "three lines counted: {:?}",
        p.warnings.messages()
    );
}

/// Pauses listed in a logcat line's `paused` field, counted independently of the importer.
fn paused_field_count(line: &str) -> usize {
    let Some((_, rest)) = line.split_once("paused ") else {
        return 0;
    };
    let field = rest
        .split(" total")
        .next()
        .unwrap_or_default()
        .trim_end_matches(',');
    field
        .split(['+', ','])
        .filter(|p| !p.trim().is_empty())
        .count()
}

#[test]
fn every_real_android_line_parses() {
    let tsv = std::fs::read_to_string(shared_data().join("android-logs/real-lines.tsv"))
        .expect("real-lines.tsv");
    let (mut gc, mut info, mut pauses) = (0, 0, 0);
    for row in tsv.lines().skip(1) {
        let cols: Vec<&str> = row.splitn(3, '\t').collect();
        let (era, line) = (cols[0], cols[2]);
        let want = paused_field_count(line);
        match logcat::parse_line(line) {
            LogcatLine::Gc(g) => {
                assert_eq!(g.pauses_ns.len(), want, "{era}: pause count of `{line}`");
                assert!(
                    g.pauses_ns.iter().all(|&p| p > 0),
                    "{era}: durations of `{line}`"
                );
                let dalvik = era.starts_with("dalvik");
                assert_eq!(
                    g.dialect == logcat::Dialect::Dalvik,
                    dalvik,
                    "{era}: dialect"
                );
                if era.contains("total") || era.starts_with("art") {
                    assert!(g.total_ns.is_some(), "{era}: total of `{line}`");
                }
                assert!(g.heap_total_bytes.is_some(), "{era}: heap size of `{line}`");
                gc += 1;
                pauses += want;
            }
            LogcatLine::Info => {
                assert_eq!(want, 0, "{era}: a line with pauses read as info: `{line}`");
                info += 1;
            }
            other => panic!("{era}: `{line}` not understood: {other:?}"),
        }
    }
    eprintln!("real-lines.tsv: {gc} GC lines ({pauses} pauses), {info} GC-related info lines");
    assert_eq!(gc + info, 56, "all 56 lines");
    let p = logcat::parse_line(
        "04-27 10:39:25.959  3060  3064 D dalvikvm: GC_CONCURRENT freed 384K, 6% free 8818K/9300K, paused 2ms+2ms, total 22ms",
    );
    assert!(
        matches!(p, LogcatLine::Gc(ref g) if g.pauses_ns == [2_000_000, 2_000_000] && g.pid.as_deref() == Some("3060")),
        "{p:?}"
    );
}

#[test]
fn a_logcat_capture_is_placed_by_its_time_stamps() {
    let tsv = std::fs::read_to_string(shared_data().join("android-logs/real-lines.tsv"))
        .expect("real-lines.tsv");
    // The chromeview capture (logcat `time` format, one process).
    let capture: String = tsv
        .lines()
        .filter(|l| l.contains("pwnall/chromeview"))
        .map(|l| format!("{}\n", l.splitn(3, '\t').nth(2).unwrap_or_default()))
        .collect();
    let p = pauses_in(&capture, Format::Auto);
    assert_eq!(p.mutators, vec!["4852"], "one pid");
    assert_eq!(
        p.pauses.len(),
        8,
        "3 GC_FOR_ALLOC + 2 GC_CONCURRENT×2 + 1 more GC_FOR_ALLOC"
    );
    assert!(p.warnings.is_empty(), "{:?}", p.warnings.messages());
    // 16:11:53.226 GC_FOR_ALLOC paused 29ms total 29ms is the first GC: it starts at time 0.
    assert_eq!(
        (p.pauses[0].start_ns, p.pauses[0].end_ns),
        (0, 29_000_000),
        "first GC"
    );
    assert_eq!(
        p.span_ns.1, 389_000_000,
        "span: 53.197 s (first GC start) to 53.586 s (last line)"
    );
}

/// A bad input: file name, contents (`None`: the file does not exist), extra arguments, what the error names.
type Case<'a> = (&'a str, Option<&'a [u8]>, Vec<&'a str>, Vec<&'a str>);

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let p = gclab_tests::scratch_root().join(format!("gc-logs-{name}"));
    std::fs::write(&p, bytes).expect("write temp file");
    p
}

fn one_line_error(o: &Output, what: &str) -> String {
    assert_eq!(
        o.status.code(),
        Some(2),
        "{what}: exit status; stderr {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(!err.contains("panicked"), "{what}: panic: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{what}: one line, got {err:?}"
    );
    assert!(err.starts_with("gclab: "), "{what}: {err}");
    err.trim_end().to_string()
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let run = |args: &[&str]| gclab(&[&["mmu"], args].concat());
    let pauses = temp("good.csv", b"start_ns,end_ns\n10,20\n");
    let good = pauses.to_str().expect("path");
    // (file contents or None for a missing file, extra args, what the line must contain)
    let cases: Vec<Case> = vec![
        (
            "missing.csv",
            None,
            vec![],
            vec!["missing.csv", "cannot read"],
        ),
        (
            "empty.csv",
            Some(b"\n\n"),
            vec![],
            vec!["empty.csv:1:", "empty"],
        ),
        (
            "nocol.csv",
            Some(b"start_ns,stop_ns\n1,2\n"),
            vec![],
            vec!["nocol.csv:1:", "missing column `end_ns`"],
        ),
        (
            "cell.csv",
            Some(b"start_ns,end_ns\n1,2\n3,abc\n"),
            vec![],
            vec!["cell.csv:3:", "`abc`", "end_ns"],
        ),
        (
            "order.csv",
            Some(b"start_ns,end_ns\n50,20\n"),
            vec![],
            vec!["order.csv:2:", "before start_ns"],
        ),
        (
            "util.csv",
            Some(b"time_ns,util\n0,1\n10,1.5\n"),
            vec![],
            vec!["util.csv:3:", "`1.5`", "between 0 and 1"],
        ),
        (
            "back.csv",
            Some(b"time_ns,util\n10,1\n5,0\n"),
            vec![],
            vec!["back.csv:3:", "before the previous row"],
        ),
        (
            "garbled.log",
            Some(b"[0.5s][info][gc GC(0) Pause Young\n"),
            vec!["--format", "jvm"],
            vec!["garbled.log:1:", "no GC pause"],
        ),
        (
            "noise.txt",
            Some(b"hello world\nthis is not a GC log\n"),
            vec![],
            vec!["noise.txt:1:", "cannot tell the format"],
        ),
        (
            "dalvik.txt",
            Some(b"hello\nGC_CONCURRENT freed 2K, paused 3xms\n"),
            vec!["--format", "logcat"],
            vec!["dalvik.txt:2:", "paused"],
        ),
        (
            "utf8.csv",
            Some(b"start_ns,end_ns\n1,\xff\xfe\n"),
            vec![],
            vec!["utf8.csv:2:", "UTF-8"],
        ),
    ];
    for (name, content, extra, expect) in &cases {
        let path = match content {
            Some(c) => temp(name, c),
            None => gclab_tests::scratch_root().join(format!("gc-logs-{name}")),
        };
        let file = path.to_str().expect("path");
        let err = one_line_error(&run(&[&[file], extra.as_slice()].concat()), name);
        for e in expect {
            assert!(err.contains(e), "{name}: `{err}` should contain `{e}`");
        }
        eprintln!("{err}");
    }
    let options: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![good, "--windows", "10xs"],
            "--windows: unknown duration unit",
        ),
        (
            vec![good, "--windows", "10"],
            "--windows: duration `10` needs a unit",
        ),
        (
            vec![good, "--span-ns", "100,50"],
            "--span-ns: `100,50` is empty or reversed",
        ),
        (
            vec![good, "--span-ns", "abc"],
            "--span-ns: `abc` is not two values",
        ),
        (
            vec![good, "--format", "csv"],
            "--format: unknown format `csv`",
        ),
        (vec!["--json", "-"], "expected <INPUT>"),
        (vec![good, "--bogus", "1"], "unknown option `--bogus`"),
    ];
    for (args, expect) in &options {
        let err = one_line_error(&run(args), expect);
        assert!(err.contains(expect), "`{err}` should contain `{expect}`");
        eprintln!("{err}");
    }
    assert_eq!(cases.len() + options.len(), 18, "18 bad inputs");
}

#[test]
fn the_cli_reads_logs() {
    let g1 = jvm_log("jdk17-g1-xmx128m");
    let o = gclab(&[
        "mmu",
        g1.to_str().expect("path"),
        "--windows",
        "1ms,10ms,100ms,1s",
        "--json",
        "-",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["format"], "jvm", "detected");
    assert_eq!(v["pauses"], 165, "G1 pauses");
    assert_eq!(
        v["mmu"].as_array().map(Vec::len),
        Some(4),
        "windows in order"
    );
    assert_eq!(v["mmu"][0]["utilization"], 0.0, "1 ms inside a pause");
    assert!(
        (v["max_pause_ms"].as_f64().unwrap_or(0.0) - 55.777).abs() < 1e-9,
        "longest G1 pause"
    );
    assert_eq!(
        v["warnings"].as_array().map(Vec::len),
        Some(0),
        "all lines understood"
    );
    assert_eq!(
        v["worst"].as_array().map(Vec::len),
        Some(20),
        "5 worst per window"
    );
    let zgc = jvm_log("jdk17-zgc-xmx256m");
    let o = gclab(&["mmu", zgc.to_str().expect("path"), "--json", "-"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(
        v["log_mmu"]["mmu"][0]["utilization"], 0.924,
        "ZGC's own MMU is passed on"
    );
    let o = gclab(&["mmu", zgc.to_str().expect("path")]);
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.contains("MMU logged by the runtime"),
        "table: {table}"
    );
    let android = temp("capture.txt", b"GC_FOR_ALLOC freed 0K, 38% free 8772K/14087K, paused 67ms\nGC_CONCURRENT freed 2125K, 47% free 6214K/11719K, paused 3ms+5ms\n");
    let o = gclab(&["mmu", android.to_str().expect("path"), "--json", "-"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["format"], "logcat", "detected");
    assert_eq!(v["pauses"], 3, "1 + 2 pauses");
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap_or_default()
            .contains("end to end"),
        "{}",
        v["warnings"]
    );
}

/// The message of a HotSpot log line after its `[…]` decorators and its `GC(n) ` prefix.
fn hotspot_message(line: &str) -> &str {
    let mut rest = line.trim_end();
    while let Some(r) = rest.strip_prefix('[') {
        rest = r.split_once(']').map_or("", |(_, after)| after);
    }
    let rest = rest.trim_start();
    match rest.strip_prefix("GC(").and_then(|r| r.split_once(") ")) {
        Some((_, m)) => m,
        None => rest,
    }
}

#[test]
fn concurrent_phases_and_heap_transitions_outside_pauses() {
    // Real logs: every `Concurrent … 12.3ms` line is a phase ending at its stamp; every ZGC cycle line with a
    // transition is a heap change, sized by the cycle's `Capacity:` row (-Xmx256m).
    for name in ["jdk17-g1-xmx128m", "jdk17-zgc-xmx256m"] {
        let path = jvm_log(name);
        let text = std::fs::read_to_string(&path).expect("log");
        let phase_lines = text
            .lines()
            .map(hotspot_message)
            .filter(|m| {
                m.starts_with("Concurrent ")
                    && m.rsplit(' ')
                        .next()
                        .and_then(|d| d.strip_suffix("ms"))
                        .is_some_and(|d| d.parse::<f64>().is_ok())
            })
            .count();
        let cycle_lines = text
            .lines()
            .map(hotspot_message)
            .filter(|m| m.starts_with("Garbage Collection (") && m.contains("->"))
            .count();
        let p = pauses_of(&path, Format::Auto);
        assert!(phase_lines > 100, "{name}: the log has concurrent phases");
        assert_eq!(p.concurrent.len(), phase_lines, "{name}: concurrent phases");
        assert_eq!(
            p.heap_changes.len(),
            cycle_lines,
            "{name}: cycle transitions"
        );
        let safepoint_lines = text
            .lines()
            .map(hotspot_message)
            .filter(|m| m.starts_with("Safepoint \""))
            .count();
        assert!(safepoint_lines > 100, "{name}: the log has safepoints");
        assert_eq!(p.safepoints.len(), safepoint_lines, "{name}: safepoints");
        assert!(
            p.safepoints
                .iter()
                .all(|s| s.start_ns <= s.end_ns && !s.operation.is_empty()),
            "{name}: safepoints with their operation"
        );
        assert!(
            p.concurrent
                .windows(2)
                .all(|w| w[0].start_ns <= w[1].start_ns)
                && p.concurrent.iter().all(|c| c.start_ns <= c.end_ns),
            "{name}: phases in time order"
        );
        if name.contains("zgc") {
            assert!(
                p.heap_changes
                    .iter()
                    .all(|h| h.total_bytes == Some(256 << 20)),
                "{name}: capacity from the Capacity rows"
            );
            // `[0.462s] GC(0) Garbage Collection (Warmup)` … `[0.510s] … (Warmup) 34M(13%)->22M(9%)`.
            let h = &p.heap_changes[0];
            assert_eq!(
                (h.start_ns, h.end_ns, h.before_bytes, h.after_bytes),
                (462_000_000, 510_000_000, 34 << 20, 22 << 20),
                "{name}: the first cycle"
            );
            assert_eq!(h.what, "Garbage Collection (Warmup)");
            let mark = &p.concurrent[0];
            assert_eq!(
                (mark.name.as_str(), mark.gc_id, mark.end_ns - mark.start_ns),
                ("Concurrent Mark", Some(0), 24_851_000),
                "{name}: the first phase"
            );
        }
    }
    // Shenandoah's concurrent cleanup frees memory; generational ZGC gives its cycles a length.
    let p = pauses_in(
        "[0.195s][info][gc,start    ] GC(0) Concurrent reset\n\
         [0.195s][info][gc          ] GC(0) Concurrent reset 0.095ms\n\
         [0.200s][info][gc          ] GC(0) Pause Final Mark (unload classes) 0.045ms\n\
         [0.201s][info][gc          ] GC(0) Concurrent cleanup 60M->41M(64M) 0.076ms\n\
         [0.301s][info][gc          ] GC(1) Major Collection (Warmup) 38M(15%)->22M(9%) 0.045s\n\
         [0.302s][info][gc,init] Concurrent Workers: 1\n",
        Format::Jvm,
    );
    assert_eq!(
        p.concurrent.len(),
        2,
        "reset and cleanup; set-up lines are not phases"
    );
    assert_eq!(p.heap_changes.len(), 2);
    let c = &p.heap_changes[0];
    assert_eq!(
        (
            c.start_ns,
            c.end_ns,
            c.before_bytes,
            c.after_bytes,
            c.total_bytes
        ),
        (200_924_000, 201_000_000, 60 << 20, 41 << 20, Some(64 << 20))
    );
    let z = &p.heap_changes[1];
    assert_eq!((z.start_ns, z.end_ns), (256_000_000, 301_000_000));
    assert!(p.warnings.messages().is_empty(), "{:?}", p.warnings);
    // A transition that is not one is a warning, never a phase with made-up sizes.
    let p = pauses_in(
        "[0.1s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 23M->4M(128M) 15.568ms\n\
         [0.2s][info][gc] GC(0) Concurrent cleanup 60Q->41M(64M) 0.076ms\n",
        Format::Jvm,
    );
    assert!(p.heap_changes.is_empty() && p.concurrent.is_empty());
    assert_eq!(p.warnings.skipped_lines(), 1);
    // logcat: a GC that ran longer than its pauses ran concurrently for its logged total.
    let p = pauses_in(
        "01-01 00:00:01.000  10  11 D dalvikvm: GC_CONCURRENT freed 1K, 5% free 1K/2K, paused 2ms+3ms, total 30ms\n\
         01-01 00:00:02.000  10  11 D dalvikvm: GC_FOR_ALLOC freed 1K, 5% free 1K/2K, paused 10ms, total 10ms\n",
        Format::Logcat,
    );
    assert_eq!(p.concurrent.len(), 1, "only the concurrent GC");
    let c = &p.concurrent[0];
    assert_eq!(
        (c.end_ns - c.start_ns, c.name.as_str()),
        (30_000_000, "GC_CONCURRENT")
    );
    assert_eq!(
        c.start_ns, p.pauses[0].start_ns,
        "it began with its first pause"
    );
}

/// A duration token of HotSpot's (`15.568ms`, `0.045s`, `152us`).
fn is_duration(token: &str) -> bool {
    ["ms", "us", "ns", "s"].iter().any(|u| {
        token
            .strip_suffix(u)
            .is_some_and(|n| !n.is_empty() && n.parse::<f64>().is_ok())
    })
}

#[test]
fn real_logs_of_more_collectors_and_decorators() {
    // JDK 17 logs written on this machine by tests/fixtures/logs/Churn.java (see the README there): collectors and
    // decorator sets not in ../shared/data. Each count is checked against a plain scan of the lines; every line
    // must be understood.
    let dir = gclab_tests::repo_root().join("tests/fixtures/logs");
    for (name, pauses, concurrent, transitions) in [
        ("jdk17-shenandoah-xmx64m.log", 56, 170, 25),
        ("jdk17-g1-all-decorators-xmx64m.log", 73, 51, 0),
        ("jdk17-zgc-uptimenanos-xmx128m.log", 75, 149, 24),
        ("jdk17-serial-utctime-debug-xmx32m.log", 10, 0, 0),
        ("jdk17-parallel-gc-only-xmx64m.log", 105, 0, 0),
    ] {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).expect("fixture");
        let ends_with_duration = |m: &str| m.rsplit(' ').next().is_some_and(is_duration);
        let scan = |prefix: &str| {
            text.lines()
                .map(hotspot_message)
                .filter(|m| m.starts_with(prefix) && ends_with_duration(m))
                .count()
        };
        let p = pauses_of(&path, Format::Auto);
        assert_eq!(
            (p.pauses.len(), p.concurrent.len(), p.heap_changes.len()),
            (pauses, concurrent, transitions),
            "{name}: pauses, concurrent phases, transitions outside pauses"
        );
        assert_eq!(p.pauses.len(), scan("Pause "), "{name}: pauses by scan");
        let safepoint_lines = text
            .lines()
            .map(hotspot_message)
            .filter(|m| m.starts_with("Safepoint \"") && m.ends_with(" ns"))
            .count();
        assert_eq!(
            p.safepoints.len(),
            safepoint_lines,
            "{name}: safepoints by scan"
        );
        assert_eq!(
            p.concurrent.len(),
            scan("Concurrent "),
            "{name}: phases by scan"
        );
        assert!(
            p.warnings.messages().is_empty(),
            "{name}: every line understood: {:?}",
            p.warnings.messages()
        );
        assert!(
            p.pauses
                .iter()
                .all(|q| q.start_ns <= q.end_ns && q.end_ns <= p.span_ns.1),
            "{name}: pauses inside the span"
        );
        // ZGC's own MMU, on a log stamped in nanoseconds of uptime.
        if let Some(last) = p.reported_mmu.last() {
            let series = p.util_series((0, last.time_ns));
            let curve = MmuCurve::new(&series);
            for &(w, logged) in &last.points {
                let ours = curve.mmu(w).utilization * 100.0;
                assert!(
                    (ours - logged).abs() <= 0.15,
                    "{name} {w} ns: {ours} vs {logged}"
                );
            }
        }
    }
}

fn mmu_json(args: &[&str]) -> serde_json::Value {
    let o = gclab(args);
    assert!(
        o.status.success(),
        "gclab {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("mmu JSON")
}

/// Issue 21: `--span-ns 0,2^63−1` on a G1 log with a 55 ms pause reported utilisation 1.0 and no worst window
/// (exit 0). Command-line times now share the importers' cap (below 2^62 ns): beyond it is an error; up to it,
/// the MMU is right.
#[test]
fn issue_21_span_beyond_the_time_cap_is_an_error_never_a_wrong_mmu() {
    let log = jvm_log("jdk17-g1-xmx128m");
    let log = log.to_str().expect("utf-8 path");
    for end in [
        "9223372036854775807",
        "9223372036854775806",
        "4611686018427387904",
    ] {
        let span = format!("0,{end}");
        let o = gclab(&[
            "mmu",
            log,
            "--span-ns",
            &span,
            "--windows",
            "1ms",
            "--json",
            "-",
        ]);
        assert_eq!(o.status.code(), Some(2), "--span-ns {span}: exit 2");
        assert!(o.stdout.is_empty(), "--span-ns {span}: no output");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("--span-ns") && err.contains("too large"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "one line: {err}");
    }
    let base = mmu_json(&["mmu", log, "--windows", "1ms", "--json", "-"]);
    let far = mmu_json(&[
        "mmu",
        log,
        "--span-ns",
        "0,4611686018427387903",
        "--windows",
        "1ms",
        "--json",
        "-",
    ]);
    assert_eq!(
        far["mmu"][0]["utilization"], 0.0,
        "a 1 ms window inside the 55 ms pause: {far}"
    );
    assert_eq!(
        far["mmu"], base["mmu"],
        "a longer span beyond the data does not change the 1 ms MMU"
    );
    assert!(
        far["max_pause_ms"].as_f64().is_some_and(|p| p > 55.0),
        "the 55 ms pause: {far}"
    );
    assert!(
        far["worst"].as_array().is_some_and(|w| !w.is_empty()),
        "worst windows listed: {far}"
    );
}

/// Issue 21 item 3: a span reaching past a GC log counted unobserved time as the program running — at a 100 s
/// window the G1 log gave 0.9796 instead of 0.9148. The span is clamped to the log, and the output says so. (A
/// pause CSV lists only pauses: its span is the user's, as `mmu_oracle::the_cli_reproduces_go` relies on.)
#[test]
fn issue_21_span_beyond_the_data_is_clamped_never_a_different_mmu() {
    let log = jvm_log("jdk17-g1-xmx128m");
    let log = log.to_str().expect("utf-8 path");
    let base = mmu_json(&["mmu", log, "--windows", "100s,1ms", "--json", "-"]);
    let far = mmu_json(&[
        "mmu",
        log,
        "--span-ns",
        "0,100000000000000",
        "--windows",
        "100s,1ms",
        "--json",
        "-",
    ]);
    assert_eq!(
        far["mmu"], base["mmu"],
        "the same MMU as the data's own span"
    );
    assert_eq!(
        far["span_ns"], base["span_ns"],
        "clamped to the data's span"
    );
    let warned = far["warnings"].as_array().is_some_and(|w| {
        w.iter()
            .any(|m| m.as_str().is_some_and(|m| m.contains("clamped")))
    });
    assert!(warned, "the clamp is reported: {}", far["warnings"]);
    let o = gclab(&["mmu", log, "--span-ns", "100000000000000,200000000000000"]);
    assert_eq!(o.status.code(), Some(2), "a span past the data's end");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("does not overlap"), "{err}");
}

#[test]
fn issue_21_windows_with_an_empty_item_are_rejected() {
    let log = jvm_log("jdk17-g1-xmx128m");
    for w in ["1ms,,2ms", "1ms,", ",1ms"] {
        let o = gclab(&["mmu", log.to_str().expect("utf-8 path"), "--windows", w]);
        assert_eq!(o.status.code(), Some(2), "--windows {w}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--windows") && err.contains("empty"), "{err}");
    }
}

/// `gclab mmu` imports into `PauseSpans` (times, mutator, line only): the spans, span, counts and warnings must be
/// those of the whole records for every real log, every fixture and the Go pause lists; the app's `LogRecords`
/// keep the concurrent phases' exact union, and the heap transitions and safepoints whole.
#[test]
fn pause_spans_import_keeps_what_the_mmu_measures() {
    use gclab_core::importers::{LogRecords, PauseSink, PauseSpans, import_file_as, union_ns};
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/logs");
    let mut inputs: Vec<PathBuf> = LOGS.iter().map(|n| jvm_log(n)).collect();
    for f in std::fs::read_dir(&fixtures).expect("fixtures") {
        let p = f.expect("entry").path();
        if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("log" | "txt" | "csv")
        ) {
            inputs.push(p);
        }
    }
    inputs.push(shared_data().join("go-mmu/trace1-p2-gogc100-trees/pauses.csv"));
    assert!(inputs.len() >= 12, "inputs: {inputs:?}");
    for path in inputs {
        let full = import_file(&path, Format::Auto);
        let spans = import_file_as::<PauseSpans>(
            &path,
            Format::Auto,
            Default::default(),
            Default::default(),
        );
        let (Ok((f1, Imported::Pauses(a))), Ok((f2, Imported::Pauses(b)))) = (full, spans) else {
            continue;
        };
        let name = path.display();
        assert_eq!(f1, f2, "{name}: format");
        assert_eq!(
            a.pauses.spans().collect::<Vec<_>>(),
            b.pauses.spans().collect::<Vec<_>>(),
            "{name}: pause spans"
        );
        assert_eq!(a.span_ns, b.span_ns, "{name}: span");
        assert_eq!(a.mutators, b.mutators, "{name}: mutators");
        // The measuring sink may count the phases instead of keeping them: their count and covered time agree.
        assert_eq!(a.concurrent_stats(), b.concurrent_stats(), "{name}: phases");
        assert_eq!(
            a.safepoint_stats(),
            b.safepoint_stats(),
            "{name}: safepoints"
        );
        assert_eq!(
            a.heap_change_count(),
            b.heap_change_count(),
            "{name}: heap changes"
        );
        assert_eq!(
            a.warnings.messages(),
            b.warnings.messages(),
            "{name}: warnings"
        );
        // The app's sink keeps the phases' union only, and the heap transitions and safepoints whole.
        let Ok((_, Imported::Pauses(c))) = import_file_as::<LogRecords>(
            &path,
            Format::Auto,
            Default::default(),
            Default::default(),
        ) else {
            panic!("{name}: imports as the app's records")
        };
        assert!(c.concurrent.is_empty(), "{name}: no phase kept whole");
        assert_eq!(
            c.concurrent_union,
            union_ns(a.concurrent.iter().map(|p| (p.start_ns, p.end_ns))),
            "{name}: the phases' union"
        );
        assert_eq!(
            a.concurrent_stats(),
            c.concurrent_stats(),
            "{name}: phases, app"
        );
        assert_eq!(a.heap_changes, c.heap_changes, "{name}: heap changes, app");
        assert_eq!(a.safepoints, c.safepoints, "{name}: safepoints, app");
        let (sa, sb) = (a.util_series(a.span_ns), b.util_series(b.span_ns));
        assert_eq!(sa, sb, "{name}: step functions");
        let (ca, cb) = (MmuCurve::new(&sa), MmuCurve::new(&sb));
        assert_eq!(ca.mmu(1_000_000), cb.mmu(1_000_000), "{name}: MMU at 1 ms");
    }
}
