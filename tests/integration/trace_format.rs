//! The gclab trace format through the real binary: the version-1 fixtures of both forms read with the expected
//! statistics, text ↔ binary conversion is exact, and hostile files (cut, wrong magic, wrong version, garbled
//! line, invalid UTF-8) exit 2 with one line naming the file and the line or byte offset.

use std::path::PathBuf;

use gclab_tests::{gclab, repo_root};

fn fixture(name: &str) -> String {
    repo_root()
        .join("tests/fixtures/trace")
        .join(name)
        .display()
        .to_string()
}

/// A fresh scratch directory for one test.
pub fn scratch(test: &str) -> PathBuf {
    let d = gclab_tests::scratch_root().join(format!("trace-{test}"));
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// `gclab trace stats FILE --json -`, parsed.
pub fn stats_json(file: &str) -> serde_json::Value {
    let o = gclab(&["trace", "stats", file, "--json", "-"]);
    assert!(
        o.status.success(),
        "stats {file}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("stats JSON")
}

#[test]
fn version_1_and_2_fixtures_of_both_forms_read_the_same() {
    for f in [
        "v1.gctrace.txt",
        "v1.gctrace",
        "v2.gctrace.txt",
        "v2.gctrace",
    ] {
        let v = stats_json(&fixture(f));
        assert_eq!(v["objects"], 4, "{f}");
        assert_eq!(v["allocated_bytes"], 4184, "{f}");
        assert_eq!(v["peak_live_bytes"], 4144, "{f}");
        assert_eq!(v["peak_at_event"], 10, "{f}");
        assert_eq!(v["never_freed"], 2, "{f}");
        assert_eq!(v["gc_cycles"], 2, "{f}");
        assert_eq!(v["moves"], 3, "{f}");
        assert_eq!(v["accesses"], 2, "{f}");
        assert!(
            v["lifetime_gc_epochs_histogram"].is_array(),
            "{f}: GC epochs"
        );
        assert_eq!(
            v["top_classes"][0]["name"], "char[]",
            "{f}: by objects, then bytes"
        );
    }
}

#[test]
fn text_binary_text_is_exact() {
    let d = scratch("convert");
    let bin = d.join("a.gctrace").display().to_string();
    let txt = d.join("b.gctrace.txt").display().to_string();
    let o = gclab(&["trace", "import", &fixture("v2.gctrace.txt"), "-o", &bin]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = gclab(&["trace", "import", &bin, "-o", &txt]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let original = std::fs::read_to_string(fixture("v2.gctrace.txt")).expect("fixture");
    let records: Vec<&str> = original.lines().filter(|l| !l.starts_with('#')).collect();
    let back = std::fs::read_to_string(&txt).expect("converted");
    assert_eq!(back.lines().collect::<Vec<_>>(), records, "round trip");
    assert_eq!(
        std::fs::read(&bin).expect("bin"),
        std::fs::read(fixture("v2.gctrace")).expect("fixture"),
        "the binary fixture is what the writer writes"
    );
    // --text forces the text form whatever the name.
    let forced = d.join("c.gctrace").display().to_string();
    let o = gclab(&["trace", "import", &bin, "-o", &forced, "--text"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        std::fs::read_to_string(&forced)
            .expect("text")
            .starts_with("gclab-trace 2\n"),
        "text form"
    );
}

/// Runs `trace stats` on `bytes` and returns the one-line error (asserting exit 2).
fn bad(test: &str, bytes: &[u8]) -> String {
    let d = scratch(test);
    let p = d.join("bad.gctrace");
    std::fs::write(&p, bytes).expect("write");
    let o = gclab(&["trace", "stats", &p.display().to_string()]);
    assert_eq!(o.status.code(), Some(2), "exit 2 for {test}");
    let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains("bad.gctrace"), "names the file: {err}");
    err
}

#[test]
fn a_flipped_bit_in_a_version_2_trace_names_its_block() {
    let good = std::fs::read(fixture("v2.gctrace")).expect("fixture");
    for byte in [12, 100, good.len() - 6, good.len() - 1] {
        let mut b = good.clone();
        b[byte] ^= 0x10;
        let e = bad(&format!("flip-{byte}"), &b);
        assert!(
            e.contains("byte 9: block 1 (bytes 9 to ") && e.contains("checksum mismatch"),
            "byte {byte}: {e}"
        );
    }
    // A flip in the block's length: its end or checksum no longer match.
    let mut b = good.clone();
    b[9] ^= 0x01;
    let e = bad("flip-length", &b);
    assert!(e.contains("block 1"), "{e}");
}

#[test]
fn hostile_binary_traces_name_the_byte_offset() {
    let good = std::fs::read(fixture("v1.gctrace")).expect("fixture");
    let e = bad("cut", &good[..good.len() - 5]);
    assert!(e.contains("byte ") && e.contains("end of file"), "{e}");
    let e = bad("cut-header", &good[..12]);
    assert!(e.contains("byte "), "{e}");
    let mut m = good.clone();
    m[2] = b'X';
    let e = bad("magic", &m);
    assert!(e.contains("byte 0") && e.contains("magic"), "{e}");
    let mut v = good.clone();
    v[8] = 7;
    let e = bad("version", &v);
    assert!(e.contains("byte 8") && e.contains("version 7"), "{e}");
    let mut t = good.clone();
    let at = t.len() - 2;
    t[at] = 0x7E;
    let e = bad("tag", &t);
    assert!(e.contains("unknown record tag 0x7e"), "{e}");
    // A hostile string length after the header: a site name of 2^50 bytes.
    let mut h = good[..0x59].to_vec();
    h.extend_from_slice(&[0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02]);
    let e = bad("length", &h);
    assert!(e.contains("exceeds the limit"), "{e}");
}

#[test]
fn hostile_text_traces_name_the_line() {
    let text = std::fs::read_to_string(fixture("v1.gctrace.txt")).expect("fixture");
    let garbled = text.replace("death 2 200", "death two 200");
    let e = bad("garbled", garbled.as_bytes());
    assert!(
        e.contains("bad.gctrace:17:") && e.contains("object id"),
        "{e}"
    );
    let mut bytes = text
        .replace("move 3 0x10018 215", "move 3 0x10018 21#")
        .into_bytes();
    let marker = bytes.windows(3).position(|w| w == b"21#").expect("marker");
    bytes[marker + 2] = 0xFF;
    let e = bad("utf8", &bytes);
    assert!(e.contains(":19:") && e.contains("UTF-8"), "{e}");
    let e = bad(
        "version",
        text.replace("gclab-trace 1", "gclab-trace 3").as_bytes(),
    );
    assert!(e.contains(":3:") && e.contains("version"), "{e}");
    let cut: String = text.lines().take(20).map(|l| format!("{l}\n")).collect();
    let e = bad("cut", cut.as_bytes());
    assert!(e.contains("end of file") && e.contains("end N"), "{e}");
    let e = bad("count", text.replace("end 15", "end 16").as_bytes());
    assert!(e.contains(":28:") && e.contains("counts 16"), "{e}");
    let e = bad("empty", b"");
    assert!(e.contains("empty"), "{e}");
}

#[test]
fn stats_prints_a_table_and_a_class_timeline() {
    let o = gclab(&[
        "trace",
        "stats",
        &fixture("v1.gctrace"),
        "--class",
        "com/example/Point",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = String::from_utf8_lossy(&o.stdout);
    for want in [
        "top allocation sites",
        "top classes",
        "leak suspects",
        "class com/example/Point over time: 2 objects",
    ] {
        assert!(t.contains(want), "missing `{want}` in\n{t}");
    }
    let o = gclab(&["trace", "stats"]);
    assert_eq!(o.status.code(), Some(2), "missing FILE");
    let o = gclab(&["trace", "frobnicate", "x"]);
    assert_eq!(o.status.code(), Some(2), "unknown subcommand");
}
