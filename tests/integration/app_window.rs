//! The real `gclab` binary opens a real window (eframe + wgpu on Mesa's software Vulkan, under Xvfb) on the
//! embedded default scenario and renders the core's numbers: the window saves its first complete frame as a PNG
//! (`GCLAB_SCREENSHOT`) and closes — once on the overview and once on the heap-layout view (`GCLAB_VIEW`).
//! `scripts/test.sh` installs Xvfb and Mesa; without them this test fails and says so (set
//! `GCLAB_SKIP_WINDOW_TEST=1` to skip it knowingly on a machine that cannot open windows). The Xvfb screen is
//! much larger than the window so that its pointer, at the screen's centre, hovers nothing.

use std::process::Command;

#[test]
fn the_app_opens_a_window_with_the_default_scenario() {
    if std::env::var_os("GCLAB_SKIP_WINDOW_TEST").is_some() {
        return;
    }
    let have_xvfb = Command::new("sh")
        .args(["-c", "command -v xvfb-run"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        have_xvfb,
        "xvfb-run is missing: run scripts/test.sh (it installs Xvfb and Mesa)"
    );
    for view in ["overview", "layout"] {
        let bytes = window_png(view);
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{view}: a PNG");
        // A blank or one-colour window compresses to a few KB; text, a heap map and plots do not.
        assert!(
            bytes.len() > 100_000,
            "{view}: the frame looks empty ({} bytes)",
            bytes.len()
        );
    }
}

/// Opens the app on `view` under Xvfb and returns the PNG it saved.
fn window_png(view: &str) -> Vec<u8> {
    let png = gclab_tests::scratch_root().join(format!("window-{view}.png"));
    let xdg = gclab_tests::scratch_root().join("xdg");
    std::fs::create_dir_all(&xdg).expect("runtime dir");
    let out = Command::new("timeout")
        .arg("120")
        .arg("xvfb-run")
        .args(["-a", "-s", "-screen 0 3400x2400x24 -nolisten tcp"])
        .arg(gclab_tests::gclab_bin())
        .env("GCLAB_SCREENSHOT", &png)
        .env("GCLAB_VIEW", view)
        .env("XDG_RUNTIME_DIR", &xdg)
        .output()
        .expect("run xvfb-run");
    assert!(
        out.status.success(),
        "the app failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).expect("the window saved its frame");
    let _ = std::fs::remove_file(&png);
    let _ = std::fs::remove_dir_all(&xdg);
    bytes
}
