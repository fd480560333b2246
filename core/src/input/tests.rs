//! `sniff` over the real inputs in `/work/shared/data` and `tests/fixtures`, compressed too, and an unknown file.

use super::*;
use crate::trace::Form;
use std::path::PathBuf;

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(p)
}

#[test]
fn real_inputs_sniff_to_their_kind() {
    let cases: Vec<(PathBuf, InputKind)> = vec![
        (
            repo("tests/fixtures/trace/v2.gctrace"),
            InputKind::Trace(Form::Binary),
        ),
        (
            repo("tests/fixtures/trace/v2.gctrace.txt"),
            InputKind::Trace(Form::Text),
        ),
        (
            repo("tests/fixtures/logs/jdk17-serial-xmx128m.log"),
            InputKind::GcLog(Format::Jvm),
        ),
        (
            repo("tests/fixtures/logs/art-logcat.txt"),
            InputKind::GcLog(Format::Logcat),
        ),
        (
            repo("tests/fixtures/logs/dalvik-logcat.txt"),
            InputKind::GcLog(Format::Logcat),
        ),
        (
            PathBuf::from(
                "/work/shared/data/go-mmu/trace1-p2-gogc100-trees/util_system_sweep.csv.gz",
            ),
            InputKind::GcLog(Format::UtilCsv),
        ),
        (
            PathBuf::from("/work/shared/data/go-mmu/trace1-p2-gogc100-trees/pauses.csv"),
            InputKind::GcLog(Format::PausesCsv),
        ),
        (
            PathBuf::from("/work/shared/data/object-traces/heaptrack/jq/trace.raw.zst"),
            InputKind::AllocTrace(ImportFormat::Heaptrack),
        ),
        (
            PathBuf::from("/work/shared/data/object-traces/heaptrack/jq/objects.csv.gz"),
            InputKind::AllocTrace(ImportFormat::ObjectsCsv),
        ),
        (
            PathBuf::from("/work/shared/data/object-traces/elephant-tracks-2/hello_world"),
            InputKind::AllocTrace(ImportFormat::Et2),
        ),
        (
            PathBuf::from(
                "/work/shared/data/object-traces/elephant-tracks-2/hello_world/trace.bz2",
            ),
            InputKind::AllocTrace(ImportFormat::Et2),
        ),
        (PathBuf::from("any/scenario.toml"), InputKind::Scenario),
    ];
    for (path, want) in cases {
        if !path.exists() && want != InputKind::Scenario {
            continue; // /work/shared/data is absent outside the lab
        }
        assert_eq!(sniff(&path), Ok(want), "{}", path.display());
    }
    assert_eq!(sniff_arg("preset:kvm/calculator"), Ok(InputKind::Scenario));
}

#[test]
fn an_unknown_or_empty_file_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("gclab-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let noise = dir.join("noise.txt");
    std::fs::write(&noise, b"\nhello world\nnot a GC log\n").expect("write");
    let e = sniff(&noise).expect_err("unknown").to_string();
    assert!(
        e.starts_with(&format!(
            "{}:2: cannot tell the format: expected",
            noise.display()
        )),
        "{e}"
    );
    let empty = dir.join("empty.csv");
    std::fs::write(&empty, b"\n\n").expect("write");
    let e = sniff(&empty).expect_err("empty").to_string();
    assert!(e.contains("empty.csv:1: empty file"), "{e}");
    let e = sniff(&dir.join("missing.log"))
        .expect_err("missing")
        .to_string();
    assert!(e.contains("missing.log") && e.contains("cannot"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_gc_log_importer_tells_a_stream_apart_by_the_same_rule() {
    use crate::importers::{ImportErrorKind, import_reader};
    let log = std::fs::read(repo("tests/fixtures/logs/jdk17-serial-xmx128m.log")).expect("fixture");
    let head = read_head(&mut &log[..]).expect("reads");
    assert_eq!(classify("x.log", &head), Ok(InputKind::GcLog(Format::Jvm)));
    let (f, _) = import_reader("x.log", &log[..], Format::Auto).expect("a HotSpot log");
    assert_eq!(f, Format::Jvm, "the importer's Auto agrees with the sniff");
    // Another kind is told as what it is, not as an unknown format.
    let objects = b"obj,size,alloc_seq,free_seq\n1,16,0,3\n";
    let e = import_reader("x.csv", &objects[..], Format::Auto).expect_err("not a GC log");
    assert!(
        matches!(&e.kind, ImportErrorKind::UnknownFormat(m) if m.starts_with("this is a objects-csv")),
        "{e}"
    );
    let e = import_reader("blank.csv", &b"\n\n"[..], Format::Auto).expect_err("empty");
    assert!(matches!(e.kind, ImportErrorKind::Empty(_)), "{e}");
}
