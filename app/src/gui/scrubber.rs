//! The bottom panel: the scrubber (play/pause, speed, previous/next collection, a slider over the run) and the
//! status bar (what ran, errors, "computing…"). Keys: space plays/pauses, ←/→ step between collections,
//! Home/End jump to the ends.

use super::command::{Command, PlaybackCommand};
use super::format;
use super::state::AppState;
use super::theme::Palette;

const SPEEDS: [(f64, &str); 7] = [
    (0.0001, "×0.0001"),
    (0.001, "×0.001"),
    (0.01, "×0.01"),
    (0.1, "×0.1"),
    (1.0, "×1 (real time)"),
    (10.0, "×10"),
    (100.0, "×100"),
];

/// Draws the scrubber and the status bar. Presenting (`present`), the status bar shows only an error: its frame
/// time and run line mean nothing to a class, its key list (space plays) is not what the keys do while a lesson is
/// presented (they step it), and at 1280×720 and 200 % its line is the room the lesson's *Reveal* needs (#19 item 5).
pub fn ui(
    ui: &mut egui::Ui,
    st: &AppState,
    pal: &Palette,
    frame_ms: f64,
    present: bool,
    cmds: &mut Vec<Command>,
) {
    let pb = st.playback;
    let dur = st.duration_s();
    ui.add_space(2.0);
    ui.horizontal(|ui| {
        let play = if pb.playing { "Pause" } else { "Play" };
        if ui
            .button(play)
            .on_hover_text("Play or pause (space)")
            .clicked()
        {
            cmds.push(Command::Playback(PlaybackCommand::TogglePlay));
        }
        if ui
            .button("< prev GC")
            .on_hover_text("Previous collection (←)")
            .clicked()
        {
            cmds.push(Command::Playback(PlaybackCommand::StepGc(false)));
        }
        if ui
            .button("next GC >")
            .on_hover_text("Next collection (→)")
            .clicked()
        {
            cmds.push(Command::Playback(PlaybackCommand::StepGc(true)));
        }
        let mut speed = pb.speed;
        let speed_box = egui::ComboBox::from_id_salt("speed")
            .selected_text(
                SPEEDS
                    .iter()
                    .find(|(s, _)| (*s - speed).abs() < speed * 1e-6)
                    .map_or_else(|| format!("×{speed}"), |(_, n)| (*n).to_string()),
            )
            .show_ui(ui, |ui| {
                for (s, name) in SPEEDS {
                    ui.selectable_value(&mut speed, s, name);
                }
            })
            .response
            .on_hover_text("Playback speed: simulated seconds per second of wall time");
        speed_box.widget_info(|| {
            egui::WidgetInfo::labeled(egui::accesskit::Role::ComboBox, true, "playback speed")
        });
        if speed != pb.speed {
            cmds.push(Command::Playback(PlaybackCommand::SetSpeed(speed)));
        }
        let mut t = pb.playhead;
        let w = (ui.available_width() - 170.0).max(100.0);
        ui.spacing_mut().slider_width = w;
        let r = ui
            .add(
                egui::Slider::new(&mut t, 0.0..=dur.max(1e-9))
                    .show_value(false)
                    .trailing_fill(true),
            )
            .on_hover_text("The playhead: drag to move through the run");
        r.widget_info(|| egui::WidgetInfo::slider(true, t, "playhead"));
        if r.changed() {
            cmds.push(Command::Playback(PlaybackCommand::SeekTo(t)));
        }
        ui.monospace(format!(
            "{} / {}",
            format::secs(pb.playhead),
            format::secs(dur)
        ));
    });
    // One line at any zoom (#19 item 5): where the whole line does not fit (1280×720 at 150 % and more), the keys
    // fold to "keys" (the list on hover) and the run's status is cut with "…" (whole on hover); an error wraps.
    let s = &st.status;
    if present && !s.is_error {
        return;
    }
    let frame = format!("frame {frame_ms:.1} ms");
    let keys = "keys: Space play/pause · Left/Right previous/next GC · Home/End";
    let text_w = |t: &str| {
        let font = egui::TextStyle::Body.resolve(ui.style());
        ui.painter()
            .layout_no_wrap(t.to_string(), font, egui::Color32::WHITE)
            .size()
            .x
    };
    let sep = ui.spacing().item_spacing.x * 2.0 + 1.0;
    let whole = text_w(&frame) + text_w(keys) + text_w(&s.message) + 3.0 * sep + 40.0;
    let fits = whole <= ui.available_width();
    let row = |ui: &mut egui::Ui| {
        if st.computing {
            ui.spinner();
            ui.label("computing…");
            ui.separator();
        }
        ui.weak(frame).on_hover_text(
            "Median time to build a frame (the UI's work, not the GPU's), last 60 frames",
        );
        ui.separator();
        ui.weak(if fits { keys } else { "keys" })
            .on_hover_text(format!(
                "Keyboard shortcuts (when no text field has the focus): {keys}"
            ));
        ui.separator();
        if s.is_error {
            ui.colored_label(pal.warn, format!("error: {}", s.message));
        } else {
            ui.add(egui::Label::new(egui::RichText::new(&s.message).weak()).truncate())
                .on_hover_text(&s.message);
        }
    };
    if s.is_error {
        ui.horizontal_wrapped(row);
    } else {
        ui.horizontal(row);
    }
}
