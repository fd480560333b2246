//! Figures for slides (issue #19 item 6): one view as a PNG at a chosen size and scale (2× for slides), with a
//! title and a caption above it, plus the CSV of the data it draws.
//!
//! One way to draw a figure: the app itself in *figure mode* (`GCLAB_FIGURE=1` with `GCLAB_SCREENSHOT=PATH`) —
//! no knob panel, tab row, lesson panel or scrubber, the title and caption above the view — in a window of the
//! figure's size times its scale with the zoom multiplied by the scale, so a 2× figure is the 1× layout with
//! twice the pixels. It saves the frame (atomically, as every screenshot) and writes the view's CSV beside it
//! ([`view_csv`]: the data the view draws, per view and source), then closes. What is on screen reaches the figure
//! through the environment: the scenario with the knobs applied, or the open GC log or trace (`GCLAB_OPEN`), or
//! the lesson step; the pinned baseline (`GCLAB_BASELINE`, [`load_baseline`]). The app's *Export figure* and `gclab lesson export` both start that window as a
//! child process ([`render`]), which needs a display: without one, `xvfb-run` is used when it is installed.

mod csv;

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::{Duration, Instant};

pub use super::state::FigureSize;
pub use csv::view_csv;

/// Draws a figure to `png` in a child process of this program (figure mode), with `env` on top of
/// [`FigureSize::env`]; the CSV lands beside it (`png` with `.csv`). Waits at most `timeout`.
pub fn render(
    png: &Path,
    size: FigureSize,
    env: &[(String, String)],
    timeout: Duration,
) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|k| std::env::var_os(k).is_some_and(|v| !v.is_empty()));
    let mut cmd = if has_display {
        Process::new(&exe)
    } else if which("xvfb-run") {
        let mut c = Process::new("xvfb-run");
        let [w, h] = size.pixels();
        c.args([
            "-a",
            "-s",
            // Twice the window: Xvfb's pointer starts at the screen's centre, off the window.
            &format!("-screen 0 {}x{}x24 -nolisten tcp", 2 * w + 200, 2 * h + 200),
        ])
        .arg(&exe);
        c
    } else {
        return Err(
            "a figure is drawn in a window: no display (DISPLAY, WAYLAND_DISPLAY) and no xvfb-run to make one"
                .into(),
        );
    };
    cmd.envs(size.env())
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("GCLAB_SCREENSHOT", png)
        .env_remove("GCLAB_PRESENT")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start the figure window: {e}"))?;
    let t0 = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut e, &mut err);
                }
                if status.success() && png.is_file() {
                    return Ok(());
                }
                let last = err.lines().last().unwrap_or("no message").to_string();
                return Err(format!("{}: not drawn ({status}): {last}", png.display()));
            }
            Ok(None) if t0.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{}: not drawn within {} s",
                    png.display(),
                    timeout.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(e.to_string()),
        }
    }
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// The CSV beside a figure's PNG.
pub fn csv_path(png: &Path) -> PathBuf {
    png.with_extension("csv")
}

/// The pinned baseline a figure draws (`GCLAB_BASELINE`): a scenario file is simulated (the same scenario and seed
/// give the same run as the one pinned), anything else is read as a GC log. Figure mode only: it waits for the run.
pub fn load_baseline(path: &Path) -> Result<super::state::Pinned, String> {
    use std::sync::Arc;
    if gclab_core::input::is_scenario_path(path) {
        let sc =
            gclab_core::Scenario::load(&path.to_string_lossy(), &[]).map_err(|e| e.to_string())?;
        let run = gclab_core::simulate(
            &sc,
            &gclab_core::Cancel::never(),
            &mut gclab_core::NoProgress,
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(super::state::Pinned::Run(Arc::new(
            super::analysis::RunView::build(run, sc, 0, 0.0),
        )));
    }
    let format = gclab_core::input::sniff_gc_log(path).map_err(|e| e.to_string())?;
    let log = super::log::LogView::load(
        path,
        format,
        Box::new(gclab_core::NoProgress),
        &gclab_core::Cancel::never(),
    )?;
    Ok(super::state::Pinned::Log(Arc::new(log)))
}

/// Draws the figure header: the title large, the caption wrapped below it.
pub fn header(ui: &mut egui::Ui, title: &str, caption: &str) {
    ui.label(egui::RichText::new(title).strong().size(22.0));
    if !caption.is_empty() {
        ui.add(egui::Label::new(egui::RichText::new(caption).size(15.0)).wrap());
    }
    ui.add_space(4.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_2x_figure_has_twice_the_pixels_and_zoom() {
        let f = FigureSize {
            size: [1280, 720],
            scale: 2.0,
            zoom: 1.25,
        };
        assert_eq!(f.pixels(), [2560, 1440]);
        let env = f.env();
        assert!(env.contains(&("GCLAB_WINDOW".into(), "2560x1440".into())));
        assert!(
            env.contains(&("GCLAB_ZOOM".into(), "2.5".into())),
            "{env:?}"
        );
    }
}
