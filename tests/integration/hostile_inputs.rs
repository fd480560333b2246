//! Issue 21's hostile inputs (item 5 of *Why*), one regression test each, named after what it guards: bad input
//! gives exit 2 and one plain line naming the file, where and what was expected — no Rust `Debug` text, no
//! misleading reason, no output file.

use std::path::{Path, PathBuf};
use std::process::Output;

use gclab_tests::{gclab, repo_root};

fn scratch(name: &str) -> PathBuf {
    gclab_tests::scratch_dir("hostile", name)
}

fn s(p: &Path) -> &str {
    gclab_tests::path_str(p)
}

/// The one error line of a run that must fail with exit 2.
fn fails_with_one_line(o: &Output, what: &str) -> String {
    assert_eq!(o.status.code(), Some(2), "{what}: exit 2");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: one line: {err}");
    assert!(
        !err.contains("Error {") && !err.contains("kind:") && !err.contains("panicked"),
        "{what}: plain text: {err}"
    );
    err
}

#[test]
fn issue_21_a_truncated_zst_reports_a_plain_message() {
    let d = scratch("zst");
    let whole = std::fs::read(repo_root().join("assets/traces/jq.gctrace.zst")).expect("jq trace");
    let cut = d.join("cut.gctrace.zst");
    std::fs::write(&cut, &whole[..whole.len() / 2]).expect("truncated copy");
    for args in [vec!["trace", "stats", s(&cut)], vec!["mmu", s(&cut)]] {
        let err = fails_with_one_line(&gclab(&args), &args.join(" "));
        assert!(
            err.contains("cut.gctrace.zst") && err.contains("truncated"),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn issue_21_a_broken_binary_trace_header_is_reported_as_a_trace_to_export_perfetto() {
    let d = scratch("header");
    let k = d.join("k.gctrace");
    let o = gclab(&["trace", "record", "preset:kvm/kwml", "-o", s(&k)]);
    assert!(o.status.success(), "record");
    let bytes = std::fs::read(&k).expect("trace");
    let broken = d.join("broken.gctrace");
    std::fs::write(&broken, &bytes[..12]).expect("cut header");
    let out = d.join("p.json");
    let err = fails_with_one_line(
        &gclab(&["export-perfetto", s(&broken), "-o", s(&out)]),
        "broken header",
    );
    assert!(
        !err.contains("CSV header"),
        "not mistaken for a GC log: {err}"
    );
    assert!(
        err.contains("broken.gctrace") && err.contains("byte"),
        "names the byte offset: {err}"
    );
    assert!(!out.exists(), "no output");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn issue_21_a_jvm_log_whose_only_line_exceeds_the_cap_says_so() {
    let d = scratch("long");
    let log = d.join("long.log");
    let mut line = "[0.010s][info][gc] ".to_string();
    line.push_str(&"x".repeat(2 << 20));
    line.push('\n');
    std::fs::write(&log, line).expect("long line");
    let err = fails_with_one_line(
        &gclab(&["mmu", s(&log), "--format", "jvm"]),
        "over-long line",
    );
    assert!(
        err.contains("long.log:1:") && err.contains("line cap"),
        "{err}"
    );
    assert!(!err.contains("empty"), "not called empty: {err}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn issue_21_an_et2_input_with_no_objects_exits_2_with_no_output() {
    let d = scratch("et2");
    let t = d.join("trace");
    std::fs::write(&t, "M 1 2 3\nW 5 6 7\nE 1 2\n").expect("et2 without allocations");
    let out = d.join("o.gctrace");
    let err = fails_with_one_line(
        &gclab(&["trace", "import", s(&t), "--format", "et2", "-o", s(&out)]),
        "no objects",
    );
    assert!(err.contains("no objects"), "{err}");
    assert!(!out.exists(), "no output");
    let _ = std::fs::remove_dir_all(&d);
}

/// One policy for bad lines (docs/trace-format.md): a malformed line stops every importer with its line number;
/// an unknown record kind is a warning.
#[test]
fn issue_21_a_malformed_line_stops_every_importer_at_its_line() {
    let d = scratch("policy");
    let cases: [(&str, &str, &str); 3] = [
        (
            "o.csv",
            "obj,size,alloc_seq\n1,16,1\n2,x,2\n",
            "objects-csv",
        ),
        ("h.raw", "v 10400 3\nc 1\n+ 10 1 zz\n", "heaptrack"),
        ("trace", "N 1 16 3 4 0 1\nN 2 sixteen 3 4 0 1\n", "et2"),
    ];
    for (file, text, format) in cases {
        let p = d.join(file);
        std::fs::write(&p, text).expect("input");
        let out = d.join(format!("{file}.gctrace"));
        let err = fails_with_one_line(
            &gclab(&["trace", "import", s(&p), "--format", format, "-o", s(&out)]),
            format,
        );
        let at = if format == "et2" { ":2:" } else { ":3:" };
        assert!(
            err.contains(&format!("{file}{at}")),
            "{format}: names the line: {err}"
        );
        assert!(!out.exists(), "{format}: no output");
    }
    // An unknown record kind is counted, not fatal.
    let p = d.join("unknown");
    std::fs::write(&p, "N 1 16 3 4 0 1\nQ 7\nW 1 3 1\n").expect("input");
    let o = gclab(&[
        "trace",
        "import",
        s(&p),
        "--format",
        "et2",
        "-o",
        s(&d.join("u.gctrace")),
    ]);
    assert!(
        o.status.success(),
        "unknown kinds are warnings: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("warning"),
        "and reported"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn issue_21_a_csv_line_over_the_cap_is_an_error_not_an_abort() {
    let d = scratch("csvline");
    let p = d.join("one-line.csv");
    let mut text = "start_ns,end_ns,".to_string();
    text.push_str(&"1".repeat(3 << 20));
    std::fs::write(&p, text).expect("one long line");
    let err = fails_with_one_line(&gclab(&["mmu", s(&p)]), "2 GB-style single line");
    assert!(
        err.contains("one-line.csv:1:") && err.contains("line cap"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn issue_21_200m_allocations_are_refused_up_front_not_aborted() {
    let o = gclab(&[
        "run",
        "preset:kvm/kwml",
        "--set",
        "workload.phases.0.allocations=200000000",
    ]);
    let err = fails_with_one_line(&o, "200 M allocations");
    assert!(
        err.contains("20000000") && err.contains("allocations"),
        "{err}"
    );
}

/// The cap is the maximum volume at the default grain (25.6 M pieces, a 2.5 GB run): half the default cohort over
/// it (51.2 M pieces, 5 GB when the cap was 64 M) is refused too.
#[test]
fn issue_21_a_fine_android_layout_over_a_huge_volume_is_an_error() {
    let fine = |cohort: &str| {
        gclab(&[
            "run",
            "preset:android/jack",
            "--set",
            "workload.android.allocated_mib=100000",
            "--set",
            &format!("android.engine.cohort_bytes={cohort}"),
        ])
    };
    let err = fails_with_one_line(&fine("16384"), "android pieces at half the default cohort");
    assert!(err.contains("25600000"), "{err}");
    let err = fails_with_one_line(&fine("256"), "android pieces");
    assert!(
        err.contains("android.engine.cohort_bytes") && err.contains("pieces"),
        "{err}"
    );
}

#[test]
fn issue_21_every_one_of_20_bit_flips_in_a_binary_trace_is_an_error() {
    let d = scratch("flips");
    let k = d.join("k.gctrace");
    let o = gclab(&["trace", "record", "preset:kvm/kwml", "-o", s(&k)]);
    assert!(o.status.success(), "record");
    let good = std::fs::read(&k).expect("trace");
    // Deterministic positions spread over the whole file (past the magic, which makes another kind of file).
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let at = 8 + (x % (good.len() as u64 - 8)) as usize;
        let mut b = good.clone();
        b[at] ^= 1 << (x >> 61);
        let p = d.join(format!("flip{i}.gctrace"));
        std::fs::write(&p, &b).expect("flipped copy");
        let err = fails_with_one_line(&gclab(&["trace", "stats", s(&p)]), "flipped bit");
        assert!(
            err.contains(&format!("flip{i}.gctrace: byte ")),
            "flip at {at}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn issue_21_csv_rows_are_named_by_their_line_across_crlf_blank_lines_and_quotes() {
    let d = scratch("csv-lines");
    let p = d.join("p.csv");
    let bytes = std::fs::read(
        repo_root().join("tests/fixtures/fuzz/gc_csv/hand-quoted-crlf-blank-lines.csv"),
    )
    .expect("corpus file");
    std::fs::write(&p, &bytes[1..]).expect("csv");
    let err = fails_with_one_line(&gclab(&["mmu", s(&p)]), "end before start");
    assert!(
        err.contains("p.csv:5: end_ns 25 is before start_ns 30"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
