//! Commands (STYLE §15): panels and views queue them while drawing; the app applies them once at the end of the
//! frame, so no panel reaches into another's state.

use std::path::PathBuf;

/// Something a panel asks the app to do.
#[must_use]
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// The controls changed: re-run the scenario.
    Rerun,
    /// Load an embedded preset (controls reset to its values).
    LoadPreset(String),
    /// Open a file: a scenario TOML (`.toml`), a gclab trace or a GC log (HotSpot unified log, logcat).
    LoadFile(PathBuf),
    /// Abandon the file being loaded.
    CancelLoad,
    /// Close the GC log or trace on screen and show the simulation again.
    CloseLog,
    /// Re-simulate the trace at this path as the workload of a kvm-soc scenario.
    ResimulateTrace(PathBuf),
    /// Load scenario text (a dropped file's bytes).
    LoadText {
        /// The TOML text.
        text: String,
        /// Name for messages.
        origin: String,
    },
    /// Save the current scenario (controls applied) as TOML.
    SaveFile(PathBuf),
    /// Choose a scenario file in the native open dialog.
    OpenDialog,
    /// Choose where to save the scenario in the native save dialog.
    SaveDialog,
    /// Write the current run as CSV files into a directory.
    ExportCsv(PathBuf),
    /// Save the window as a PNG (the next frame).
    ExportPng(PathBuf),
    /// Draw the current view as a figure (PNG under a title and caption, and its CSV) in a child window.
    ExportFigure {
        /// The PNG; the CSV goes beside it.
        path: PathBuf,
        /// Size and scale.
        size: crate::gui::state::FigureSize,
        /// Title above the view (empty: the lesson step's, or the view's and scenario's name).
        title: String,
        /// Caption under the title (empty: the lesson step's text, or none).
        caption: String,
    },
    /// Keep the current run as the baseline.
    PinBaseline,
    /// Forget the baseline.
    ClearBaseline,
    /// Move the playhead / play / pause.
    Playback(PlaybackCommand),
    /// Choose the MinMU window whose worst windows are listed. `[ms]`
    SelectMmuWindow(f64),
    /// Show another view in the centre.
    SetView(crate::gui::state::ViewKind),
    /// Include the CPU in the energy bars.
    EnergyWithCpu(bool),
    /// Overlay the MinMU curves of all five android-krait variants (`false`: remove them).
    MmuVariants(bool),
    /// Start the sweep of the current scenario.
    StartSweep,
    /// Cancel the sweep.
    CancelSweep,
    /// Start the heap-size sweep of the current scenario (the trade-off view).
    StartTradeOff,
    /// Cancel the heap-size sweep.
    CancelTradeOff,
    /// Open a lesson: a built-in id or a lesson file.
    OpenLesson(String),
    /// Go to a lesson step (0-based; clamped).
    LessonGoto(usize),
    /// Presenting, show the page of the step that starts at this block (`lesson_pages`).
    LessonPage(usize),
    /// The class chose an answer to the step's prediction.
    LessonChoose(usize),
    /// Show what the model gives for the step's prediction.
    LessonReveal,
    /// Close the lesson.
    CloseLesson,
    /// Presentation mode on or off: one large view and the lesson text, the knob panel hidden.
    Present(bool),
    /// The Pareto explorer's y axis: `None` = maximum pause, `Some(w)` = MinMU at window `w`. `[ms]`
    ParetoAxis(Option<f64>),
    /// Re-simulate point `i` of the loaded sweep result (the loaded scenario with its settings).
    OpenSweepPoint(usize),
}

/// What the scrubber and the keyboard do to the playhead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlaybackCommand {
    /// Play or pause.
    TogglePlay,
    /// Jump to the next (`true`) or previous collection.
    StepGc(bool),
    /// Move to an instant. `[s]`
    SeekTo(f64),
    /// Playback speed, as a multiple of simulated real time.
    SetSpeed(f64),
}
