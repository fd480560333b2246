//! Every input under `tests/fixtures/fuzz/<target>/` — the minimised crashes, OOMs and timeouts the `cargo fuzz`
//! targets found (`fuzz/`, docs/fuzzing.md) and hand-made hostile files (huge numbers, wrong magic, cut in the
//! middle of a record, wrong version, invalid UTF-8) — goes through its fuzz target's own entry point
//! (`fuzz/src/lib.rs`, included here as a module: the fuzz crate itself needs libFuzzer and nightly). Each must give
//! a result or an error without panicking, and an error must name the input.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use gclab_tests::repo_root;

use crate::fuzz_entries as entries;

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = repo_root().join("tests/fixtures/fuzz").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn fuzz_findings_and_hostile_inputs_give_errors_not_panics() {
    let mut failures = Vec::new();
    let mut total = 0;
    for (target, entry) in entries::TARGETS {
        let files = inputs(target);
        assert!(!files.is_empty(), "tests/fixtures/fuzz/{target}/ is empty");
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
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{total} inputs");
}
