//! Issue 21 item 1: every file gclab writes replaces its destination atomically. A writer killed with `SIGKILL`
//! at a random point of its output leaves the old file or the new one, byte for byte, never a truncation; a CSV
//! folder is complete or absent; in a folder that also holds the user's files those are never touched, each of
//! gclab's files is whole and the `.gclab-outputs` manifest is there only beside a complete set; a command may read
//! the file it replaces.
//!
//! The kill points are chosen by bytes written (the writer's files in the output folder reaching a random size),
//! not by time: the test waits for the size, then signals.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use gclab_core::SimRng;
use gclab_tests::{gclab, gclab_bin, gclab_ok};

fn scratch(name: &str) -> PathBuf {
    gclab_tests::scratch_dir("atomic", name)
}

fn s(p: &Path) -> &str {
    gclab_tests::path_str(p)
}

/// Total bytes of the regular files under `dir` (recursively).
fn bytes_under(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => bytes_under(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

/// A folder's files and contents (not recursing; names starting with `.` — temporaries — left out).
fn folder(dir: &Path) -> Option<BTreeMap<String, Vec<u8>>> {
    let rd = std::fs::read_dir(dir).ok()?;
    Some(
        rd.flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| {
                let bytes = std::fs::read(e.path()).expect("read output file");
                (e.file_name().to_string_lossy().into_owned(), bytes)
            })
            .collect(),
    )
}

/// Starts `gclab args` and kills it with SIGKILL once the files under `watch` hold `at` bytes (or lets it end).
/// Returns true when it was killed before ending on its own.
fn kill_at(args: &[&str], watch: &Path, at: u64) -> bool {
    let mut child = Command::new(gclab_bin())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn gclab");
    loop {
        if child.try_wait().expect("try_wait").is_some() {
            return false;
        }
        if bytes_under(watch) >= at {
            let killed = child.kill().is_ok();
            let status = child.wait().expect("wait");
            return killed && !status.success();
        }
        std::thread::yield_now();
    }
}

const BIG: &str = "workload.phases.0.allocations=600000";

#[test]
fn issue_21_a_killed_csv_writer_leaves_a_complete_folder_or_none() {
    let d = scratch("csv");
    let reference = d.join("reference");
    gclab_ok(
        &[
            "run",
            "preset:kvm/kwml",
            "--set",
            BIG,
            "--csv",
            s(&reference),
        ],
        "reference run",
    );
    let new = folder(&reference).expect("reference folder");
    let total: u64 = new.values().map(|v| v.len() as u64).sum();
    let out_dir = d.join("out");
    let out = out_dir.join("csv");
    let mut rng = SimRng::new(2021);
    // A folder of gclab's own is swapped whole. A folder that also holds the user's file is never moved or refused:
    // the user's file is untouched, each of gclab's files is the old or the new one whole, and the manifest is there
    // only when the set is complete.
    let manifest = out.join(".gclab-outputs");
    for shared in [false, true] {
        let mut kills = 0;
        for round in 0..6 {
            let _ = std::fs::remove_dir_all(&out_dir);
            gclab_ok(
                &["run", "preset:kvm/calculator", "--csv", s(&out)],
                "old run",
            );
            let old = folder(&out).expect("old folder");
            if shared {
                std::fs::write(out.join("notes.txt"), "the user's own file").expect("user file");
            }
            let at = bytes_under(&out_dir) + 1 + rng.next_u64() % total;
            kills += u32::from(kill_at(
                &["run", "preset:kvm/kwml", "--set", BIG, "--csv", s(&out)],
                &out_dir,
                at,
            ));
            let Some(mut now) = folder(&out) else {
                assert!(!shared, "round {round}: the user's folder is gone");
                continue; // killed between moving the old folder aside and renaming the new one in
            };
            if !shared {
                assert!(
                    now == old || now == new,
                    "round {round}, killed at {at} bytes: the folder holds {:?}, neither the old nor the new output",
                    now.iter().map(|(k, v)| (k, v.len())).collect::<Vec<_>>()
                );
                continue;
            }
            assert_eq!(
                now.remove("notes.txt").as_deref(),
                Some(&b"the user's own file"[..]),
                "round {round}: the user's file is untouched"
            );
            for (name, bytes) in &now {
                assert!(
                    old.get(name) == Some(bytes) || new.get(name) == Some(bytes),
                    "round {round}, killed at {at} bytes: {name} ({} bytes) is neither the old nor the new file",
                    bytes.len()
                );
            }
            if manifest.exists() {
                assert!(
                    now == old || now == new,
                    "round {round}: a manifest stands beside a mixed set"
                );
            }
        }
        assert!(
            kills > 0,
            "no round killed the writer before it finished (shared folder: {shared})"
        );
    }
    // Run to its end, the shared folder holds the new set, the manifest and the user's file.
    gclab_ok(
        &["run", "preset:kvm/kwml", "--set", BIG, "--csv", s(&out)],
        "shared-folder run",
    );
    let mut now = folder(&out).expect("folder");
    assert!(now.remove("notes.txt").is_some(), "the user's file stays");
    assert_eq!(now, new, "the complete new set");
    assert!(manifest.exists(), "the manifest marks it complete");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn issue_21_trace_import_may_replace_its_own_input() {
    let d = scratch("self");
    let k = d.join("k.gctrace");
    gclab_ok(
        &["trace", "record", "preset:kvm/kwml", "-o", s(&k)],
        "record",
    );
    let stats = |p: &Path| {
        let o = gclab_ok(&["trace", "stats", s(p), "--json", "-"], "stats");
        String::from_utf8(o.stdout).expect("utf-8 JSON")
    };
    let before_stats = stats(&k);
    gclab_ok(
        &["trace", "import", s(&k), "-o", s(&k)],
        "import onto itself",
    );
    assert_eq!(
        stats(&k),
        before_stats,
        "the same trace after importing it onto itself"
    );
    let before = std::fs::read(&k).expect("imported trace");
    // A failing import leaves the old output in place.
    let bad = d.join("bad.csv");
    std::fs::write(&bad, "obj,size\n1,lots\n").expect("bad input");
    let o = gclab(&["trace", "import", s(&bad), "-o", s(&k)]);
    assert_eq!(o.status.code(), Some(2), "bad input exits 2");
    assert_eq!(
        std::fs::read(&k).expect("k.gctrace kept"),
        before,
        "old output kept after a failure"
    );
    let left: Vec<_> = std::fs::read_dir(&d)
        .expect("scratch")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 2, "no temporary file left: {left:?}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Every single-file writer (issue 21 item 1 names CLI outputs, traces and exports): each is started again and again
/// with its destination holding an old file, killed with `SIGKILL` once the output folder (temporaries included)
/// reaches a random size, and must leave the old file or the complete new one. `OUT` in the arguments stands for
/// the destination.
#[test]
fn issue_21_every_writer_killed_mid_output_leaves_the_old_file_or_the_new_one() {
    let d = scratch("writers");
    let trace = d.join("in.gctrace");
    gclab_ok(
        &[
            "trace",
            "record",
            "preset:kvm/kwml",
            "--set",
            BIG,
            "-o",
            s(&trace),
        ],
        "record",
    );
    let log = gclab_tests::shared_data().join("jvm-logs/jdk17-zgc-xmx256m.log");
    let writers: [(&str, Vec<&str>); 5] = [
        (
            "trace record --text",
            vec![
                "trace",
                "record",
                "preset:kvm/kwml",
                "--set",
                BIG,
                "-o",
                "OUT",
                "--text",
            ],
        ),
        (
            "trace import",
            vec!["trace", "import", s(&trace), "-o", "OUT"],
        ),
        (
            "export-perfetto",
            vec![
                "export-perfetto",
                "preset:kvm/kwml",
                "--set",
                BIG,
                "-o",
                "OUT",
            ],
        ),
        ("mmu --json", vec!["mmu", s(&log), "--json", "OUT"]),
        (
            "sweep --json",
            vec![
                "sweep",
                "preset:kvm/kwml",
                "--vary",
                "collector.k=10,100",
                "--json",
                "OUT",
            ],
        ),
    ];
    let mut rng = SimRng::new(1121);
    let mut kills = 0;
    for (name, args) in &writers {
        let with = |out: &Path| -> Vec<String> {
            args.iter()
                .map(|a| {
                    if *a == "OUT" {
                        s(out).to_string()
                    } else {
                        (*a).to_string()
                    }
                })
                .collect()
        };
        let reference = d.join(format!("reference-{}", name.replace(' ', "-")));
        let argv = with(&reference);
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        gclab_ok(&argv, name);
        let new = std::fs::read(&reference).expect("reference output");
        let out_dir = d.join("out");
        let out = out_dir.join("dest");
        let old = format!("the previous output of {name}\n").into_bytes();
        for round in 0..4 {
            let _ = std::fs::remove_dir_all(&out_dir);
            std::fs::create_dir_all(&out_dir).expect("out folder");
            std::fs::write(&out, &old).expect("old output");
            let at = old.len() as u64 + 1 + rng.next_u64() % new.len() as u64;
            let argv = with(&out);
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            kills += u32::from(kill_at(&argv, &out_dir, at));
            let now = std::fs::read(&out).expect("the output exists after a kill");
            assert!(
                now == old || now == new,
                "{name}, round {round}, killed at {at} bytes: the output is {} bytes, neither the old ({}) nor the new ({})",
                now.len(),
                old.len(),
                new.len()
            );
        }
    }
    assert!(kills > 0, "no round killed a writer before it finished");
    let _ = std::fs::remove_dir_all(&d);
}
