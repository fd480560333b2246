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

/// A fresh, empty scratch folder for one test: `$TMPDIR/gclab-TOPIC-NAME-PID`.
pub fn scratch_dir(topic: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gclab-{topic}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

/// A path as the `&str` a command line takes (temporary paths are UTF-8).
pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}
