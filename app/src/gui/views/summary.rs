//! The summary table of what is on screen: for a GC log, what it holds — file and format, span, pauses by kind,
//! time paused, safepoints, concurrent phases, lines not understood. (A run's numbers are the energy table,
//! [`super::energy`].)

use crate::gui::format;
use crate::gui::log::LogView;

/// What the log holds, as a table.
pub fn of_log(ui: &mut egui::Ui, log: &LogView) {
    let mut rows: Vec<(&str, String)> = vec![
        ("file", log.name.clone()),
        ("format", log.format.clone()),
        (
            "mutators",
            if log.mutators.len() <= 3 {
                log.mutators.join(", ")
            } else {
                format!("{}", log.mutators.len())
            },
        ),
        ("span", format::secs(log.duration_s)),
        ("pauses", log.pauses.to_string()),
        ("longest pause", format::window_ms(log.max_pause_ms)),
        ("time paused", format::window_ms(log.total_pause_ms)),
        ("paused share of time", format::percent(log.gc_fraction)),
    ];
    for k in &log.kinds {
        rows.push(("  pauses of kind", format!("{} × {}", k.count, k.kind)));
    }
    if log.safepoints.0 > 0 {
        rows.push((
            "safepoints",
            format!(
                "{}, stopping the program {} in all",
                log.safepoints.0,
                format::window_ms(log.safepoints.1)
            ),
        ));
    }
    if log.concurrent_phases > 0 {
        rows.push((
            "concurrent phases",
            format!(
                "{}, running {} ({} of the span)",
                log.concurrent_phases,
                format::window_ms(log.concurrent_ms),
                format::percent(log.concurrent_ms / (log.duration_s * 1e3).max(1e-9))
            ),
        ));
    }
    rows.push(("lines not understood", log.skipped_lines.to_string()));
    rows.push(("loaded in", format::secs(log.load_s)));
    egui::Grid::new("log-summary-table")
        .num_columns(2)
        .striped(true)
        .spacing([10.0, 4.0])
        .show(ui, |ui| {
            ui.strong("log");
            ui.strong("");
            ui.end_row();
            for (name, value) in rows {
                ui.label(name);
                ui.monospace(value);
                ui.end_row();
            }
        });
    for w in log.warnings.iter().take(4) {
        ui.weak(w);
    }
}
