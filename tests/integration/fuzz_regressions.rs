//! Every input under `tests/fixtures/fuzz/<target>/` — the minimised crashes, OOMs and timeouts the `cargo fuzz`
//! targets found (`fuzz/`, docs/fuzzing.md) and hand-made hostile files (huge numbers, wrong magic, cut in the
//! middle of a record, wrong version, invalid UTF-8) — goes through its fuzz target's own entry point
//! (`fuzz/src/lib.rs`, included here as a module: the fuzz crate itself needs libFuzzer and nightly). Each must give
//! a result or an error without panicking, and an error must name the input; the seeds under `fuzz/seeds/<target>/`
//! (real logs, CSVs, traces, scenarios) go through them too, with the entries' differentials.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use gclab_tests::repo_root;

use crate::fuzz_entries as entries;

fn inputs(base: &str, target: &str) -> Vec<PathBuf> {
    let dir = repo_root().join(base).join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs every file under `base/<target>/` through its target's entry; the failures (a panic, or an error that does
/// not name the input) and how many files were run.
fn replay(base: &str) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut total = 0;
    for (target, entry) in entries::TARGETS {
        let files = inputs(base, target);
        assert!(!files.is_empty(), "{base}/{target}/ is empty");
        for path in files {
            total += 1;
            let name = path.display().to_string();
            let bytes = std::fs::read(&path).expect("read the input");
            match catch_unwind(AssertUnwindSafe(|| entry(&name, &bytes))) {
                Ok(Ok(())) => eprintln!("{target}: {name}: ok"),
                Ok(Err(e)) => {
                    eprintln!("{target}: {e}");
                    if !e.contains(&name) {
                        failures.push(format!("{target}: the error `{e}` does not name {name}"));
                    }
                }
                Err(_) => failures.push(format!("{target}: {name} panicked")),
            }
        }
    }
    (failures, total)
}

#[test]
fn fuzz_findings_and_hostile_inputs_give_errors_not_panics() {
    let (failures, total) = replay("tests/fixtures/fuzz");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{total} inputs");
}

/// The fuzzers' seeds — real logs, CSVs, traces and scenarios — pass their targets, the differentials included
/// (a GC log's or a pause CSV's reader on every core in tiny segments against one segment).
#[test]
fn the_fuzz_seeds_pass_their_targets_and_differentials() {
    let (failures, total) = replay("fuzz/seeds");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{total} seeds");
}
