//! Figures for slides (issue #19 item 6): one view as a PNG at a chosen size and scale (2× for slides), with a
//! title and a caption above it, plus the CSV of the data it draws.
//!
//! One way to draw a figure: the app itself in *figure mode* (`GCLAB_FIGURE=1` with `GCLAB_SCREENSHOT=PATH`) —
//! no knob panel, tab row, lesson panel or scrubber, the title and caption above the view — in a window of the
//! figure's size times its scale with the zoom multiplied by the scale, so a 2× figure is the 1× layout with
//! twice the pixels. It saves the frame (atomically, as every screenshot) and writes the view's CSV beside it
//! ([`view_csv`]), then closes. The app's *Export figure* and `gclab lesson export` both start that window as a
//! child process ([`render`]), which needs a display: without one, `xvfb-run` is used when it is installed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::{Duration, Instant};

use super::state::{AppState, ViewKind};
use super::sweep::{SweepMode, SweepState};

pub use super::state::FigureSize;

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

/// The data `view` draws, as CSV: the heap-size or k sweep, the MinMU curve, the energy parts, or the
/// occupancy timeline (heap map, occupancy, CPU lanes). A GC log's views: its pauses by kind (as the pause
/// timeline draws them, decimated to its buckets).
pub fn view_csv(st: &AppState, sweep: &SweepState, tradeoff: &SweepState) -> String {
    let mut s = String::new();
    if let Some(l) = st.log() {
        s.push_str("kind,start_s,duration_ms\n");
        for k in &l.kinds {
            for (t, ms) in &k.bars {
                let _ = writeln!(s, "\"{}\",{t},{ms}", k.kind.replace('"', "'"));
            }
        }
        return s;
    }
    match st.settings.view {
        ViewKind::TradeOff => {
            if let Some(r) = tradeoff
                .result
                .as_ref()
                .filter(|r| r.mode == SweepMode::HeapSize)
            {
                return super::views::tradeoff::csv(r, st.mmu_window_ms);
            }
        }
        ViewKind::Sweep => {
            if let Some(r) = &sweep.result {
                s.push_str(
                    "collector,k,target_util,total_energy_j,memory_energy_j,time_s,max_pause_ms\n",
                );
                let rows = r
                    .base
                    .iter()
                    .map(|p| ("base", p))
                    .chain(r.adaptive.iter().map(|p| ("adaptive", p)))
                    .chain(r.k_allocation.iter().map(|p| ("k-allocation", p)))
                    .chain(
                        r.variants
                            .iter()
                            .flat_map(|(k, v)| v.iter().map(move |p| (k.name(), p))),
                    );
                for (name, p) in rows {
                    let _ = writeln!(
                        s,
                        "{name},{},{},{},{},{},{}",
                        p.k, p.target_util, p.total_j, p.memory_j, p.time_s, p.max_pause_ms
                    );
                }
                return s;
            }
        }
        _ => {}
    }
    let Some(v) = &st.current else {
        return s;
    };
    match st.settings.view {
        ViewKind::Mmu => {
            s.push_str("window_ms,minmu\n");
            for m in &v.run.summary.mmu {
                let _ = writeln!(
                    s,
                    "{},{}",
                    super::format::csv_ms(m.window_ms),
                    m.utilization
                );
            }
        }
        ViewKind::Energy => {
            s.push_str("part,energy_j\n");
            for ((name, _), j) in v.energy.scheme.names().iter().zip(v.energy.parts) {
                if !name.is_empty() {
                    let _ = writeln!(s, "{name},{j}");
                }
            }
            let _ = writeln!(s, "total,{}", v.energy.total);
        }
        _ => {
            s.push_str("time_ns,live_bytes,dead_bytes,free_bytes\n");
            for o in &v.run.occupancy {
                let _ = writeln!(
                    s,
                    "{},{},{},{}",
                    o.time.0, o.live_bytes, o.dead_bytes, o.free_bytes
                );
            }
        }
    }
    s
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
