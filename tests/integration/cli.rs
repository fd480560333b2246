//! The CLI contract of DESIGN §5: `presets`, `run`, `sweep` (JSON shapes, CSV files) and the promise that bad input
//! exits with status 2 and one line naming the file, line or field, and what was expected.

use std::io::Write;

use gclab_tests::gclab;

fn stderr_line(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).trim().to_string()
}

#[test]
fn presets_lists_every_kvm_application() {
    let o = gclab(&["presets"]);
    assert!(o.status.success(), "presets failed");
    let text = String::from_utf8_lossy(&o.stdout);
    for app in gclab_core::scenario::presets::KVM_APPS {
        assert!(
            text.lines().any(|l| l == app),
            "{app} missing from `gclab presets`"
        );
    }
}

#[test]
fn android_run_json_has_the_platform_fields() {
    let o = gclab(&[
        "run",
        "preset:android/jack",
        "--set",
        "collector.kind=gencms",
        "--set",
        "heap.target_util=0.5",
        "--json",
        "-",
    ]);
    assert!(o.status.success(), "run failed: {}", stderr_line(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let s = &v["summary"];
    assert_eq!(s["platform"], "android-krait", "platform");
    assert_eq!(s["collector"], "gencms", "collector");
    assert!(s["migrations"].as_u64().is_some(), "migrations");
    assert!(s["delayed_time_s"].as_f64().is_some(), "delayed_time_s");
    assert!(
        s["frequency_transitions"].as_u64().is_some_and(|n| n > 0),
        "transitions"
    );
    let t = s["time_at_frequency_s"]
        .as_object()
        .expect("time_at_frequency_s map");
    assert!(
        t.contains_key("offline") && t.keys().any(|k| k == "2150.4"),
        "keys in MHz and offline: {t:?}"
    );
    let by = s["collections_by_trigger"].as_object().expect("map");
    assert!(
        by.contains_key("minor") && by.contains_key("major"),
        "GenCMS counts minor and major: {by:?}"
    );
    assert!(
        s["energy_j"]["cpu"].as_f64().is_some_and(|e| e > 0.0),
        "CPU energy"
    );
    assert!(s["mmu"].as_array().is_some_and(|m| !m.is_empty()), "MinMU");
}

#[test]
fn run_json_has_the_contract_fields() {
    let o = gclab(&[
        "run",
        "preset:kvm/crypto",
        "--set",
        "collector.kind=adaptive",
        "--json",
        "-",
    ]);
    assert!(o.status.success(), "run failed: {}", stderr_line(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(
        v["scenario"]["collector"]["kind"], "adaptive",
        "scenario echo"
    );
    let s = &v["summary"];
    for f in [
        "execution_time_s",
        "allocations",
        "allocated_bytes",
        "collections",
        "collections_by_trigger",
        "energy_j",
        "gc_cpu_fraction",
        "max_pause_ms",
        "frequency_transitions",
        "execution_cycles",
        "out_of_memory",
        "mmu",
    ] {
        assert!(!s[f].is_null(), "summary lacks `{f}`");
    }
    for e in [
        "total", "cpu", "memory", "heap", "rom", "stack", "gc", "mutator",
    ] {
        assert!(
            s["energy_j"][e].as_f64().is_some_and(|x| x > 0.0),
            "energy_j.{e} missing or not positive"
        );
    }
    let by: u64 = s["collections_by_trigger"]
        .as_object()
        .expect("map")
        .values()
        .filter_map(|x| x.as_u64())
        .sum();
    assert_eq!(
        by,
        s["collections"].as_u64().expect("collections"),
        "per-trigger counts add up"
    );
    let mmu = s["mmu"].as_array().expect("mmu array");
    assert!(mmu.len() >= 3, "MMU on several windows");
    assert!(
        mmu.iter()
            .all(|p| p["window_ms"].is_number() && p["utilization"].is_number()),
        "MMU point shape"
    );
}

#[test]
fn run_csv_writes_the_timelines() {
    let dir = gclab_tests::scratch_root().join("csv");
    let o = gclab(&[
        "run",
        "preset:kvm/calculator",
        "--set",
        "collector.kind=adaptive",
        "--csv",
        dir.to_str().expect("utf-8 temp path"),
    ]);
    assert!(o.status.success(), "run --csv failed: {}", stderr_line(&o));
    for f in [
        "occupancy.csv",
        "gc_events.csv",
        "banks.csv",
        "pauses.csv",
        "mmu.csv",
    ] {
        let text = std::fs::read_to_string(dir.join(f)).unwrap_or_default();
        assert!(
            text.lines().count() >= 2,
            "{f}: header and at least one row"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// An android run's folder also lists its threads with the scheduler statistics Table 3 sums (SYSTOR'15 §4.1.2):
/// one row a thread, the mutators first; the app threads' migrations and delays add up to the summary's.
#[test]
fn run_csv_lists_the_android_threads_with_their_scheduler_statistics() {
    let dir = gclab_tests::scratch_root().join("csv-android");
    let d = dir.to_str().expect("utf-8 temp path");
    let o = gclab(&["run", "preset:android/jack", "--csv", d, "--json", "-"]);
    assert!(o.status.success(), "run --csv failed: {}", stderr_line(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let mut rows = csv::Reader::from_path(dir.join("threads.csv")).expect("threads.csv");
    assert_eq!(
        rows.headers().expect("header"),
        vec!["thread", "name", "cpu_ns", "migrations", "delayed_ns"]
    );
    let rows: Vec<csv::StringRecord> = rows.records().map(|r| r.expect("row")).collect();
    assert!(rows[0][1].starts_with("mutator-"), "mutators first");
    for (k, r) in rows.iter().enumerate() {
        assert_eq!(r[0], k.to_string(), "numbered as the pauses' mutators");
    }
    // The app's threads are the mutators, the daemon, the JIT and the background threads; the phone's other
    // processes (surfaceflinger, system_server, kernel threads) are left out of Table 3's statistics.
    let app = |r: &&csv::StringRecord| {
        !["surfaceflinger", "system_server", "kthread"]
            .iter()
            .any(|p| r[1].starts_with(p))
    };
    let sum = |col: usize| -> u64 {
        rows.iter()
            .filter(app)
            .map(|r| r[col].parse::<u64>().expect("count"))
            .sum()
    };
    assert_eq!(
        Some(sum(3)),
        v["summary"]["migrations"].as_u64(),
        "migrations"
    );
    let delayed = v["summary"]["delayed_time_s"].as_f64().expect("delayed");
    assert!(
        (sum(4) as f64 * 1e-9 - delayed).abs() < 1e-6,
        "delayed time"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_out_of_memory_run_is_a_result() {
    let o = gclab(&[
        "run",
        "preset:kvm/kshape",
        "--set",
        "heap.size=32KiB",
        "--json",
        "-",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "OOM is a result: exit 0 ({})",
        stderr_line(&o)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(
        v["summary"]["out_of_memory"], true,
        "Kshape's state and map cache outgrow a 32 KiB heap"
    );
}

fn temp_scenario(name: &str, text: &str) -> String {
    let p = gclab_tests::scratch_root().join(format!("{name}.toml"));
    let mut f = std::fs::File::create(&p).expect("temp file");
    f.write_all(text.as_bytes()).expect("write");
    p.to_string_lossy().into_owned()
}

/// Each case: arguments, and words the one-line error must contain.
fn bad_cases() -> Vec<(Vec<String>, Vec<String>)> {
    let unknown_key = temp_scenario(
        "unknown",
        "platform = \"kvm-soc\"\n[workload]\nprofile = \"kvm/calculator\"\n[heap]\nsise = 5\n",
    );
    let wrong_type = temp_scenario(
        "type",
        "[workload]\nprofile = \"kvm/calculator\"\n[collector]\nk = \"ten\"\n",
    );
    let out_of_range = temp_scenario(
        "range",
        "[workload]\nprofile = \"kvm/calculator\"\n\n[heap]\nbank_size = \"48KiB\"\n",
    );
    let malformed = temp_scenario("malformed", "[workload\nprofile = 1\n");
    let bad_profile = temp_scenario("profile", "[workload]\nprofile = \"no/such-profile\"\n");
    let bad_unit = temp_scenario(
        "unit",
        "[workload]\nprofile = \"kvm/calculator\"\n[heap]\nsize = \"128 parsecs\"\n",
    );
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let file_named = unknown_key.clone();
    vec![
        (s(&["run", &unknown_key]), s(&[&file_named, ":5", "sise"])),
        (s(&["run", &wrong_type]), s(&[":4", "expected"])),
        (
            s(&["run", &out_of_range]),
            s(&[":5", "heap.bank_size", "divisor"]),
        ),
        (s(&["run", &malformed]), s(&[":1"])),
        (
            s(&["run", &bad_profile]),
            s(&["workload.profile", "no/such-profile"]),
        ),
        (s(&["run", &bad_unit]), s(&[":4", "unit"])),
        (
            s(&["run", "/no/such/file.toml"]),
            s(&["/no/such/file.toml", "cannot read"]),
        ),
        (
            s(&["run", "preset:kvm/nothing"]),
            s(&["unknown preset", "kvm/nothing"]),
        ),
        (
            s(&["run", "preset:kvm/kwml", "--set", "heap.target_utll=0.9"]),
            s(&["--set heap.target_utll", "unknown field"]),
        ),
        (
            s(&["run", "preset:kvm/kwml", "--set", "collector.k=0"]),
            s(&["--set collector.k", "collector.k", "1–"]),
        ),
        (
            s(&["run", "preset:kvm/kwml", "--set", "collector.kind=quantum"]),
            s(&["collector.kind", "quantum"]),
        ),
        (
            s(&["run", "preset:kvm/kwml", "--set", "heap.size"]),
            s(&["--set heap.size", "KEY=VALUE"]),
        ),
        (
            s(&["run", "preset:kvm/kwml", "--set", "collector.kind=cms"]),
            s(&["collector.kind", "android-krait"]),
        ),
        (
            s(&[
                "run",
                "preset:android/jack",
                "--set",
                "heap.target_util=0.95",
            ]),
            s(&["heap.target_util", "0.1", "0.9"]),
        ),
        (
            s(&[
                "run",
                "preset:android/jack",
                "--set",
                "collector.kind=adaptive",
            ]),
            s(&["collector.kind", "kvm-soc"]),
        ),
        (
            s(&[
                "run",
                "preset:android/jack",
                "--set",
                "android.sched.latency_ms=0",
            ]),
            s(&["android.sched.latency_ms"]),
        ),
        (
            s(&["run", "preset:kvm/kwml", "--jsn", "-"]),
            s(&["unknown option", "--jsn"]),
        ),
        (s(&["run"]), s(&["SCENARIO"])),
        (s(&["open", &wrong_type]), s(&[":4", "expected"])),
        (s(&["frobnicate"]), s(&["unknown command", "frobnicate"])),
        (s(&["sweep", "preset:kvm/kwml"]), s(&["--vary"])),
        (
            s(&[
                "sweep",
                "preset:kvm/kwml",
                "--vary",
                "heap.bank_size=16KiB,5KiB",
            ]),
            s(&["heap.bank_size"]),
        ),
    ]
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_problem() {
    for (args, words) in bad_cases() {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = gclab(&a);
        let err = stderr_line(&o);
        assert_eq!(
            o.status.code(),
            Some(2),
            "`gclab {}` should exit 2, got {:?}: {err}",
            a.join(" "),
            o.status.code()
        );
        assert_eq!(
            err.lines().count(),
            1,
            "`gclab {}`: one line expected, got:\n{err}",
            a.join(" ")
        );
        for w in &words {
            assert!(
                err.contains(w.as_str()),
                "`gclab {}`: error should mention `{w}`: {err}",
                a.join(" ")
            );
        }
    }
}

/// Runs `gclab ARGS` under a pseudo-terminal (util-linux `script`), so that stderr is a terminal; returns what the
/// terminal showed (stdout and stderr together).
fn on_a_terminal(args: &[&str]) -> String {
    let cmd = std::iter::once(gclab_tests::gclab_bin().display().to_string())
        .chain(args.iter().map(|a| a.to_string()))
        .collect::<Vec<_>>()
        .join(" ");
    let o = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("util-linux `script` runs the command under a pseudo-terminal");
    assert!(
        o.status.success(),
        "{cmd} under script: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Issue 21 item 5: long commands show progress on a terminal's stderr, and nothing extra when stderr is a pipe
/// or with `--quiet`.
#[test]
fn issue_21_progress_shows_on_a_terminal_and_not_when_quiet_or_piped() {
    let shown = on_a_terminal(&["run", "preset:android/jack"]);
    assert!(
        shown.contains("gclab: run preset:android/jack") && shown.contains(" %"),
        "progress line: {shown:?}"
    );
    assert!(
        shown.contains("\r\x1b[2K"),
        "cleared before the summary: {shown:?}"
    );
    let quiet = on_a_terminal(&["run", "preset:android/jack", "--quiet"]);
    assert!(
        !quiet.contains("gclab: run") && quiet.contains("cms on android-krait"),
        "--quiet: summary only: {quiet:?}"
    );
    let o = gclab(&["run", "preset:android/jack"]);
    assert!(o.status.success(), "run");
    assert!(
        o.stderr.is_empty(),
        "stderr a pipe: no progress: {:?}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = gclab(&["run", "-q", "preset:kvm/kwml", "--json", "-"]);
    assert!(
        o.status.success(),
        "-q is accepted anywhere: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Issue #18 item 5: every verb and sub-verb answers `--help` on stdout with exit 0 (the hand-written parser said
/// "unknown option `--help`"), and the shell completions come from the same definition.
#[test]
fn every_command_answers_help_and_completions_cover_them() {
    let verbs: &[&[&str]] = &[
        &[],
        &["open"],
        &["presets"],
        &["run"],
        &["sweep"],
        &["sweep", "plan"],
        &["sweep", "run"],
        &["sweep", "merge"],
        &["sweep", "info"],
        &["mmu"],
        &["reproduce"],
        &["trace"],
        &["trace", "record"],
        &["trace", "import"],
        &["trace", "stats"],
        &["export-perfetto"],
        &["lesson"],
        &["lesson", "list"],
        &["lesson", "check"],
        &["lesson", "show"],
        &["lesson", "export"],
        &["completions"],
    ];
    for verb in verbs {
        let mut args: Vec<&str> = verb.to_vec();
        args.push("--help");
        let o = gclab(&args);
        let name = verb.join(" ");
        assert_eq!(
            o.status.code(),
            Some(0),
            "`gclab {name} --help` exit status"
        );
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("Usage: gclab") && text.contains(&name),
            "`gclab {name} --help` prints its usage: {text}"
        );
    }
    let o = gclab(&["completions", "bash"]);
    assert!(o.status.success(), "completions bash: {}", stderr_line(&o));
    let script = String::from_utf8_lossy(&o.stdout);
    for word in [
        "export-perfetto",
        "--span-ns",
        "--vary",
        "--shard",
        "record",
    ] {
        assert!(script.contains(word), "the bash completions offer `{word}`");
    }
}

/// A parse error stays gclab's one line (exit 2) and says where the verb's help is.
#[test]
fn a_parse_error_is_one_line_with_the_verbs_usage() {
    let o = gclab(&[
        "sweep",
        "run",
        "plan.json",
        "--index",
        "1",
        "--shard",
        "0/2",
        "--out",
        "d",
    ]);
    assert_eq!(o.status.code(), Some(2), "conflicting flags are bad input");
    let err = stderr_line(&o);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(
        err.contains("--index")
            && err.contains("--shard")
            && err.contains("gclab sweep run --help"),
        "names both flags and the help: {err}"
    );
    let o = gclab(&["trace"]);
    let err = stderr_line(&o);
    assert_eq!(o.status.code(), Some(2), "a missing sub-verb is bad input");
    assert!(
        err.contains("record") && err.contains("import") && err.contains("stats"),
        "lists the sub-verbs: {err}"
    );
}

#[test]
fn open_checks_the_files_kind_before_the_window_and_a_file_of_no_kind_is_bad_input() {
    // `gclab open /etc/passwd`: without a display it exited 1 "cannot open the app: winit…" without looking at
    // the file (and with one, 0). A file gclab cannot read as anything is bad input, like `open bad.toml`.
    let d = gclab_tests::scratch_dir("cli", "open-passwd");
    let passwd = d.join("passwd");
    std::fs::write(
        &passwd,
        "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
    )
    .expect("write");
    for p in [passwd, d.join("absent.log")] {
        let o = gclab(&["open", gclab_tests::path_str(&p)]);
        let err = stderr_line(&o);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{}: exit 2, got {err}",
            p.display()
        );
        assert!(
            err.contains(gclab_tests::path_str(&p))
                && err.lines().count() == 1
                && !err.contains("winit"),
            "one line naming the file, not the window: {err}"
        );
    }
}
