//! Shared helpers for the integration tests: paths to the repository, to `../shared/data/`, and to the built
//! `gclab` binary (built on demand, once per test run).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// `../shared/data/` beside the repository (real GC logs, MMU oracles, traces).
pub fn shared_data() -> PathBuf {
    repo_root().join("..").join("shared").join("data")
}

/// The `gclab` binary of this workspace's debug profile, built once.
pub fn gclab_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let root = repo_root();
        let status = Command::new(env!("CARGO"))
            .args(["build", "-q", "-p", "gclab", "--bin", "gclab"])
            .current_dir(&root)
            .status()
            .expect("cargo build of the gclab binary");
        assert!(status.success(), "building gclab failed");
        let target =
            std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
        target.join("debug").join("gclab")
    })
    .clone()
}

/// Runs `gclab ARGS` and returns its output. Without a display: `gclab open BAD.toml` opens a window with the
/// error when it has one (the suite run from a desktop session would wait for it to close).
pub fn gclab(args: &[&str]) -> Output {
    Command::new(gclab_bin())
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("run gclab")
}

/// Runs `gclab ARGS`, which must succeed (`what` names the step in the failure, with gclab's stderr).
pub fn gclab_ok(args: &[&str], what: &str) -> Output {
    let o = gclab(args);
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The folder this test process keeps its scratch files in: `$TMPDIR/gclab-tests-PID`. The first call removes the
/// folders of earlier test processes that are gone (Linux: no `/proc/PID`), so a run leaves at most its own behind
/// instead of every run adding hundreds of files to the temporary folder.
pub fn scratch_root() -> PathBuf {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let tmp = std::env::temp_dir();
        let gone = |pid: u32| {
            Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
        };
        for e in std::fs::read_dir(&tmp).into_iter().flatten().flatten() {
            let name = e.file_name();
            let pid = (name.to_str())
                .and_then(|n| n.strip_prefix("gclab-tests-"))
                .and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(gone) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        let root = tmp.join(format!("gclab-tests-{}", std::process::id()));
        std::fs::create_dir_all(&root).expect("scratch root");
        root
    })
    .clone()
}

/// A fresh, empty scratch folder for one test: `scratch_root()/TOPIC-NAME`.
pub fn scratch_dir(topic: &str, name: &str) -> PathBuf {
    let d = scratch_root().join(format!("{topic}-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

/// A path as the `&str` a command line takes (temporary paths are UTF-8).
pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}
