//! Files: the run as CSV (the files and columns of `gclab run --csv DIR`, from the same writer), the window as PNG,
//! and the native open/save dialogs ([`Dialogs`]). Scenario TOML loading and saving go through
//! `gclab_core::Scenario` in the app's command handling; a bad file changes nothing and its error goes to the
//! status bar.

use std::path::Path;

use gclab_core::Run;

use crate::background::BackgroundTask;

/// Writes `run`'s timelines as CSV files into the folder `dir` ([`Run::csv_files`], the files
/// `gclab run --csv DIR` writes), complete or not at all ([`gclab_core::io::write_dir_atomic`]); returns how many
/// files.
pub fn write_csv(dir: &Path, run: &Run) -> Result<usize, String> {
    let files = run.csv_files();
    gclab_core::io::write_dir_atomic(dir, &files)
        .map_err(|e| format!("{}: cannot write: {e}", dir.display()))?;
    Ok(files.len())
}

/// Encodes RGBA pixels as a PNG that replaces `path` atomically.
fn write_png(path: &Path, rgba: &[u8], w: u32, h: u32) -> Result<(), String> {
    use image::ImageEncoder as _;
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(rgba, w, h, image::ExtendedColorType::Rgba8)
        .map_err(|e| e.to_string())?;
    gclab_core::io::write_file_atomic(path, &png).map_err(|e| e.to_string())
}

/// Saves the next frame as a PNG at `path`; with `close`, then closes the window (used under Xvfb to look at
/// the app).
pub fn save_png(ctx: &egui::Context, path: String, close: bool) {
    let ctx2 = ctx.clone();
    ctx.request_screenshot(move |img| {
        let [w, h] = img.size;
        let bytes: Vec<u8> = img.pixels.iter().flat_map(|c| c.to_array()).collect();
        if let Err(e) = write_png(Path::new(&path), &bytes, w as u32, h as u32) {
            let _ = std::io::Write::write_fmt(
                &mut std::io::stderr(),
                format_args!("gclab: {path}: {e}\n"),
            );
        }
        if close {
            ctx2.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use gclab_core::{Cancel, NoProgress, Scenario, simulate};

    #[test]
    fn a_run_exports_as_csv_files() {
        let sc = Scenario::preset("kvm/calculator").expect("preset");
        let run = simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs");
        let dir = std::env::temp_dir().join(format!("gclab-csv-{}", std::process::id()));
        let n = write_csv(&dir, &run).expect("writes");
        assert_eq!(n, 6, "six files");
        let occ = std::fs::read_to_string(dir.join("occupancy.csv")).expect("occupancy.csv");
        assert_eq!(
            occ.lines().count(),
            run.occupancy.len() + 1,
            "one line per sample"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// What a native dialog answered.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogAnswer {
    /// The scenario file to open (`None`: cancelled, or no dialog could be shown).
    Open(Option<std::path::PathBuf>),
    /// Where to save the scenario.
    Save(Option<std::path::PathBuf>),
}

/// Native open/save dialogs (rfd; on Linux the XDG desktop portal, so GTK's or KDE's chooser) run on a
/// "file-dialog" task — the UI thread never waits for the user — and the app polls for the answer each frame.
/// Without a portal (a bare X server) the dialog answers `None` and the path field and drag-and-drop remain.
pub struct Dialogs {
    task: BackgroundTask<DialogAnswer>,
}

impl Default for Dialogs {
    fn default() -> Self {
        Dialogs {
            task: BackgroundTask::new("file-dialog", 1),
        }
    }
}

impl Dialogs {
    /// True while a dialog is on screen (a second one is not opened).
    pub fn is_open(&self) -> bool {
        self.task.running()
    }

    /// Shows the open dialog for scenario files, starting in `dir`.
    pub fn open_scenario(
        &mut self,
        dir: Option<std::path::PathBuf>,
        wake: &egui::Context,
    ) -> Result<(), String> {
        self.show(wake, move || {
            let mut d = rfd::FileDialog::new()
                .set_title("Open a gclab scenario or a GC log")
                .add_filter("scenario (TOML)", &["toml"])
                .add_filter("GC log (HotSpot unified log, logcat)", &["log", "txt"])
                .add_filter("all files", &["*"]);
            if let Some(dir) = dir {
                d = d.set_directory(dir);
            }
            DialogAnswer::Open(d.pick_file())
        })
    }

    /// Shows the save dialog for the current scenario.
    pub fn save_scenario(
        &mut self,
        dir: Option<std::path::PathBuf>,
        wake: &egui::Context,
    ) -> Result<(), String> {
        self.show(wake, move || {
            let mut d = rfd::FileDialog::new()
                .set_title("Save the scenario as TOML")
                .add_filter("scenario (TOML)", &["toml"])
                .set_file_name("scenario.toml");
            if let Some(dir) = dir {
                d = d.set_directory(dir);
            }
            DialogAnswer::Save(d.save_file())
        })
    }

    fn show(
        &mut self,
        wake: &egui::Context,
        show: impl FnOnce() -> DialogAnswer + Send + 'static,
    ) -> Result<(), String> {
        if self.is_open() {
            return Ok(());
        }
        self.task
            .start(Some(wake), move |sink| {
                let _ = sink.send(show());
            })
            .map(|_| ())
    }

    /// The dialog's answer, once it has one.
    pub fn poll(&mut self) -> Option<DialogAnswer> {
        self.task.poll_latest()
    }
}
