//! Progress on stderr for the commands that can take more than a second (`run`, `trace record`, `trace import`,
//! `mmu` on big inputs, `reproduce`): one line, `gclab: LABEL  42 %`, redrawn in place and cleared at the end.
//!
//! It is shown only when stderr is a terminal and `--quiet` (`-q`) was not given, so scripts and pipes see stderr
//! exactly as before (errors and warnings only). Simulations report through core's [`gclab_core::Progress`]
//! ([`Line`] implements it); readers that count the bytes they read are watched by [`Watcher`], a named thread
//! that redraws the line from the shared counter until dropped.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::background::BackgroundTask;

/// Set once by `cli::main` from `--quiet`.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences progress for this process (`--quiet`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// True when progress goes to stderr: not `--quiet`, and stderr is a terminal.
pub fn enabled() -> bool {
    !QUIET.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// One progress line on `W` (stderr by default), redrawn when the whole percent changes.
pub struct Line<W: Write = std::io::Stderr> {
    out: Option<W>,
    label: String,
    shown: Option<u32>,
}

impl Line {
    /// A line labelled `label` on stderr, or a silent one when progress is disabled ([`enabled`]).
    pub fn stderr(label: impl Into<String>) -> Line {
        Line::to(enabled().then(std::io::stderr), label)
    }
}

impl<W: Write> Line<W> {
    /// A line on `out` (`None`: silent).
    pub fn to(out: Option<W>, label: impl Into<String>) -> Line<W> {
        Line {
            out,
            label: label.into(),
            shown: None,
        }
    }

    /// Shows `fraction` (clamped to [0, 1]) if its whole percent differs from the one shown.
    pub fn set(&mut self, fraction: f64) {
        let pct = (fraction.clamp(0.0, 1.0) * 100.0).floor() as u32;
        if self.shown == Some(pct) {
            return;
        }
        if let Some(out) = self.out.as_mut() {
            self.shown = Some(pct);
            let _ = write!(out, "\rgclab: {}  {pct:>3} %", self.label);
            let _ = out.flush();
        }
    }

    /// Clears the line (also done on drop) and returns the writer.
    pub fn finish(mut self) -> Option<W> {
        self.clear();
        self.out.take()
    }

    fn clear(&mut self) {
        if let (Some(out), Some(_)) = (self.out.as_mut(), self.shown.take()) {
            let _ = write!(out, "\r\x1b[2K");
            let _ = out.flush();
        }
    }
}

impl<W: Write> gclab_core::Progress for Line<W> {
    fn report(&mut self, fraction: f64) {
        self.set(fraction);
    }
}

impl<W: Write> Drop for Line<W> {
    fn drop(&mut self) {
        self.clear();
    }
}

/// Redraws a progress line from a byte counter on a `progress` [`BackgroundTask`] until dropped.
pub struct Watcher {
    task: BackgroundTask<()>,
}

impl Watcher {
    /// Watches `done` out of `total` (bytes read of a file's size, jobs finished of all); silent when progress is
    /// disabled, when `total` is 0, or when the thread cannot be started.
    pub fn count(label: impl Into<String>, total: u64, done: Arc<AtomicU64>) -> Watcher {
        let mut task = BackgroundTask::new("progress", 1);
        if enabled() && total > 0 {
            let mut line = Line::stderr(label);
            let _ = task.start(None, move |sink| {
                while !sink.is_cancelled() {
                    line.set(done.load(Ordering::Relaxed) as f64 / total as f64);
                    std::thread::park_timeout(std::time::Duration::from_millis(100));
                }
            });
        }
        Watcher { task }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // Wait for the line to be cleared before anything else is printed.
        self.task.stop();
    }
}

/// Inputs from this size on show a progress line while they are read. `[bytes]`
pub(super) const BIG_INPUT_BYTES: u64 = 8 << 20;

/// A byte counter for reading `input`, and a progress line (`VERB INPUT`) drawn from it while the input is read —
/// only for inputs of at least [`BIG_INPUT_BYTES`]: small ones are read in a blink.
pub(super) fn watch_file(
    verb: &str,
    input: &str,
) -> (
    std::sync::Arc<std::sync::atomic::AtomicU64>,
    Option<Watcher>,
) {
    let read = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let size = std::fs::metadata(input).map_or(0, |m| m.len());
    let shown = (size >= BIG_INPUT_BYTES).then(|| {
        Watcher::count(
            format!("{verb} {input}"),
            size,
            std::sync::Arc::clone(&read),
        )
    });
    (read, shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_redraws_on_whole_percent_changes_and_clears_at_the_end() {
        let mut line = Line::to(Some(Vec::new()), "run preset:kvm/kwml");
        for f in [0.0, 0.001, 0.004, 0.42, 0.425, 1.0] {
            line.set(f);
        }
        let out = String::from_utf8(line.finish().expect("writer")).expect("utf-8");
        assert_eq!(
            out.matches('\r').count(),
            4,
            "0 %, 42 %, 100 % and the clear: {out:?}"
        );
        assert!(out.contains("run preset:kvm/kwml   42 %"), "{out:?}");
        assert!(out.ends_with("\r\x1b[2K"), "cleared: {out:?}");
    }

    #[test]
    fn a_silent_line_writes_nothing() {
        let mut line: Line<Vec<u8>> = Line::to(None, "x");
        line.set(0.5);
        assert!(line.finish().is_none(), "no writer");
    }
}
